package clients

import (
	"cmp"
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The producer's Sender: one request per broker carrying a ready batch of every
// partition it leads, at most max.in.flight.requests.per.connection of them in flight,
// and what becomes of a batch that fails, times out or expires.

type inflightProduce struct {
	Batches []*batch // one per partition
	Broker  string
}

func (p *Producer) inflightIDs() []int64 {
	return slices.SortedFunc(maps.Keys(p.inflight), cmp.Compare[int64])
}

func (p *Producer) inflightTo(broker string) int {
	n := 0
	for _, f := range p.inflight {
		if f.Broker == broker {
			n++
		}
	}
	return n
}

// drain sends each broker with a free in-flight slot one request carrying the sendable
// batch of every partition it leads (Sender.sendProducerData, sendProduceRequests), and
// again while more are sendable.
func (p *Producer) drain(env *sim.Env) []Completion {
	p.unblock(env)
	var done []Completion
	if p.txn != nil {
		var ok bool
		if done, ok = p.prepareTransactional(env); !ok {
			return done
		}
	}
	if p.idem != nil && !p.prepareIdempotent(env) {
		return done // no producer id yet: nothing goes out
	}
	for {
		byLeader := map[string][]*batch{}
		needMeta := false
		for _, tp := range p.queueTPs() {
			b := p.sendable(env, tp)
			if b == nil || !p.sendAllowed(tp) {
				continue
			}
			leader := p.md.leader(tp)
			if leader == "" {
				needMeta = true
				continue
			}
			byLeader[leader] = append(byLeader[leader], b)
		}
		if needMeta {
			p.md.refresh(env, p.cfg.RequestTimeoutMs)
		}
		sent := false
		for _, leader := range slices.Sorted(maps.Keys(byLeader)) {
			if !p.conns.ready(env, leader) || p.inflightTo(leader) >= p.cfg.MaxInFlight {
				continue
			}
			done = append(done, p.sendRequest(env, leader, byLeader[leader])...)
			sent = true
		}
		if !sent {
			return done
		}
		p.unblock(env) // acks=0 batches are done once sent
	}
}

func (p *Producer) sendRequest(env *sim.Env, leader string, batches []*batch) []Completion {
	p.reqSeq++
	req := protocol.ProduceRequest{ReqID: p.reqSeq, Acks: p.cfg.Acks, TimeoutMs: p.cfg.RequestTimeoutMs}
	for _, b := range batches {
		b.Attempts++
		rb := protocol.NewBatch(b.Records)
		if p.idem != nil {
			p.assignSequence(b)
			rb.ProducerID, rb.ProducerEpoch, rb.BaseSequence = b.PID, b.Epoch, b.BaseSeq
			rb.Transactional = p.txn != nil
		}
		req.Partitions = append(req.Partitions, protocol.ProducePartition{TP: b.TP, Batch: rb})
	}
	env.Send(leader, req)
	if p.cfg.Acks == protocol.AcksNone {
		// acks=0: the send counts as done the moment it is written to the socket (R4).
		var done []Completion
		for _, b := range batches {
			p.remove(b)
			done = append(done, Completion{Msgs: b.msgs(), TP: b.TP, Offset: -1})
		}
		return done
	}
	for _, b := range batches {
		b.InFlight = true
	}
	p.inflight[p.reqSeq] = &inflightProduce{Batches: batches, Broker: leader}
	env.After(p.cfg.RequestTimeoutMs, requestTimeout{ReqID: p.reqSeq})
	return nil
}

func (p *Producer) remove(b *batch) {
	p.queues[b.TP] = slices.DeleteFunc(slices.Clone(p.queues[b.TP]), func(x *batch) bool { return x == b })
	if len(p.queues[b.TP]) == 0 {
		delete(p.queues, b.TP)
	}
}

// failAll fails every batch of a request that will not be answered.
func (p *Producer) failAll(env *sim.Env, f *inflightProduce, err protocol.Error) []Completion {
	var done []Completion
	for _, b := range f.Batches {
		b.InFlight = false
		done = append(done, p.failed(env, b, err)...)
	}
	return done
}

// failed retries a batch after a retriable error, or gives up on it. A retried batch goes
// back to the front of its partition's queue (Sender.completeBatch, then
// RecordAccumulator.reenqueue's addFirst): a later batch already in flight lands first,
// and batches that failed together go out again last-failed first: with more than one
// request in flight and no idempotence a key's records reorder.
func (p *Producer) failed(env *sim.Env, b *batch, err protocol.Error) []Completion {
	env.Observe(sim.Observation{Event: protocol.ClientError, Err: err.String(), Partition: b.TP.String(), Msgs: b.msgs()})
	if err.RefreshesMetadata() {
		p.md.forget(b.TP)
	}
	expired := env.Now()-b.CreatedMs >= p.cfg.DeliveryTimeoutMs
	retriable := err.Retriable()
	if p.idem != nil && b.HasSeq && b.Attempts <= p.cfg.Retries && !expired {
		retriable = p.canRetryIdempotent(b, err)
	}
	if retriable && b.Attempts <= p.cfg.Retries && !expired {
		wait := backoffMs(env, p.cfg.RetryBackoffMs, p.cfg.RetryBackoffMaxMs, int(b.Attempts))
		b.ReadyAtMs = env.Now() + wait
		env.After(wait, drainTick{})
		q := slices.DeleteFunc(slices.Clone(p.queues[b.TP]), func(x *batch) bool { return x == b })
		if p.idem != nil && b.HasSeq {
			// The idempotent producer keeps the queue in sequence order
			// (RecordAccumulator.insertInSequenceOrder).
			p.queues[b.TP] = reenqueueInSequenceOrder(q, b)
			return nil
		}
		p.queues[b.TP] = append([]*batch{b}, q...)
		return nil
	}
	if p.idem != nil {
		p.failedIdempotent(b, err, b.Attempts <= p.cfg.Retries)
	}
	p.remove(b)
	if expired {
		err = protocol.ErrTimeoutException
	}
	return append([]Completion{{Msgs: b.msgs(), TP: b.TP, Offset: -1, Err: err}}, p.failedTransactional(env, err)...)
}

// timedOut handles a produce request unanswered for request.timeout.ms as NetworkClient
// does (handleTimedOutRequests, processTimeoutDisconnection): it closes the connection to
// the broker, and every request in flight on it ends as timed out (REQUEST_TIMED_OUT,
// Sender.handleProduceResponse), oldest first (InFlightRequests.clearAll), to be retried
// on a new connection opened after reconnect.backoff.ms.
func (p *Producer) timedOut(env *sim.Env, broker string) []Completion {
	return p.disconnect(env, broker, protocol.ErrRequestTimedOut)
}

// disconnect closes the connection to a broker and fails every request in flight on it
// with err, to be retried on a new connection after reconnect.backoff.ms: after a
// request timeout (REQUEST_TIMED_OUT), or when the broker crashed and its end reset the
// connection (NETWORK_EXCEPTION: NetworkClient.processDisconnection).
func (p *Producer) disconnect(env *sim.Env, broker string, err protocol.Error) []Completion {
	p.conns.close(env, broker, firstReconnectBackoffMs)
	var done []Completion
	for _, id := range p.inflightIDs() {
		if f := p.inflight[id]; f.Broker == broker {
			delete(p.inflight, id)
			done = append(done, p.failAll(env, f, err)...)
		}
	}
	// The disconnect may come from stale metadata, so the client asks again at once
	// (NetworkClient's DefaultMetadataUpdater.handleServerDisconnect).
	p.md.refresh(env, p.cfg.RequestTimeoutMs)
	return append(done, p.drain(env)...)
}

// expire fails a batch whose delivery.timeout.ms ran out, in flight or not (KIP-91).
func (p *Producer) expire(env *sim.Env, id int64) []Completion {
	for _, tp := range p.queueTPs() {
		for _, b := range p.queues[tp] {
			if b.ID != id {
				continue
			}
			for _, rid := range p.inflightIDs() {
				f := p.inflight[rid]
				f.Batches = slices.DeleteFunc(slices.Clone(f.Batches), func(x *batch) bool { return x == b })
				if len(f.Batches) == 0 {
					delete(p.inflight, rid)
				}
			}
			p.expiredIdempotent(b)
			p.remove(b)
			env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrTimeoutException.String(), Partition: tp.String(), Msgs: b.msgs()})
			done := append([]Completion{{Msgs: b.msgs(), TP: tp, Offset: -1, Err: protocol.ErrTimeoutException}},
				p.failedTransactional(env, protocol.ErrTimeoutException)...)
			return append(done, p.drain(env)...)
		}
	}
	return nil
}
