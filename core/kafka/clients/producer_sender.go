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
// and what becomes of a batch that fails, times out or expires. Before each drain it
// lets the transaction manager send its own requests and say whether produce requests
// may go (Sender.runOnce); it asks it for each batch's sequence and tells it how each
// batch ended.

// sender is the Sender with the produce requests in flight.
type sender struct {
	sh       *producerShared
	acc      *recordAccumulator
	tm       *transactionManager // nil unless idempotent
	inflight map[int64]*inflightProduce
}

type inflightProduce struct {
	Batches []*batch // one per partition
	Broker  string
	timeout sim.TimerID // its request.timeout.ms, disarmed when the answer comes
}

// The sender's timers.
type (
	requestTimeout struct{ ReqID int64 }   // request.timeout.ms of a produce request
	deliveryExpiry struct{ BatchID int64 } // delivery.timeout.ms of a batch (KIP-91)
)

func (requestTimeout) Kind() string     { return "RequestTimeout" }
func (deliveryExpiry) Kind() string     { return "DeliveryExpiry" }
func (requestTimeout) Describe() string { return requestTimeoutLine }
func (deliveryExpiry) Describe() string { return deliveryExpiryLine }

var (
	requestTimeoutLine = sim.TimerLine("", requestTimeout{})
	deliveryExpiryLine = sim.TimerLine("", deliveryExpiry{})
)

func (s *sender) reset() { s.inflight = map[int64]*inflightProduce{} }

// clone copies the requests in flight, each batch through cp (the accumulator's copy of
// it must be the same).
func (s *sender) clone(cp func(*batch) *batch) sender {
	c := *s
	c.inflight = make(map[int64]*inflightProduce, len(s.inflight))
	for _, id := range s.inflightIDs() {
		f := s.inflight[id]
		n := &inflightProduce{Broker: f.Broker}
		for _, b := range f.Batches {
			n.Batches = append(n.Batches, cp(b))
		}
		c.inflight[id] = n
	}
	return c
}

func (s *sender) idle() bool { return len(s.inflight) == 0 }

func (s *sender) inflightIDs() []int64 {
	return slices.SortedFunc(maps.Keys(s.inflight), cmp.Compare[int64])
}

func (s *sender) inflightTo(broker string) int {
	n := 0
	for _, f := range s.inflight {
		if f.Broker == broker {
			n++
		}
	}
	return n
}

// drain sends each broker with a free in-flight slot one request carrying the sendable
// batch of every partition it leads (Sender.sendProducerData, sendProduceRequests), and
// again while more are sendable.
func (s *sender) drain(env *sim.Env) []Completion {
	s.acc.unblock(env)
	var done []Completion
	if s.tm != nil {
		var ok bool
		if done, ok = s.tm.prepare(env, s.acc, !s.idle()); !ok {
			return done
		}
	}
	for {
		// A leader is ready when one of its partitions has a sendable batch
		// (RecordAccumulator.ready); the request to a ready leader then carries the first
		// batch of every partition it leads that may be drained, lingering or not
		// (RecordAccumulator.drain, drainBatchesForOneNode).
		ready := map[string]bool{}
		needMeta := false
		for _, tp := range s.acc.queueTPs() {
			b := s.acc.sendable(env, tp, s.tm)
			if b == nil || (s.tm != nil && !s.tm.sendAllowed(tp)) {
				continue
			}
			leader := s.sh.md.leader(tp)
			if leader == "" {
				needMeta = true
				continue
			}
			ready[leader] = true
		}
		byLeader := map[string][]*batch{}
		for _, tp := range s.acc.queueTPs() {
			leader := s.sh.md.leader(tp)
			if !ready[leader] || (s.tm != nil && !s.tm.sendAllowed(tp)) {
				continue
			}
			if b, _ := s.acc.drainable(env, tp, s.tm); b != nil {
				byLeader[leader] = append(byLeader[leader], b)
			}
		}
		if needMeta {
			s.sh.refreshMetadata(env)
		}
		sent := false
		for _, leader := range slices.Sorted(maps.Keys(byLeader)) {
			if !s.sh.conns.ready(env, leader, s.sh.cfg.RequestTimeoutMs) || s.inflightTo(leader) >= s.sh.cfg.MaxInFlight {
				continue
			}
			done = append(done, s.sendRequest(env, leader, byLeader[leader])...)
			sent = true
		}
		if !sent {
			return done
		}
		s.acc.unblock(env) // acks=0 batches are done once sent
	}
}

func (s *sender) sendRequest(env *sim.Env, leader string, batches []*batch) []Completion {
	cfg := &s.sh.cfg
	id := s.sh.nextReqID()
	req := protocol.ProduceRequest{ReqID: id, Acks: cfg.Acks, TimeoutMs: cfg.RequestTimeoutMs}
	for _, b := range batches {
		b.Attempts++
		rb := protocol.NewBatch(b.Records)
		if s.tm != nil {
			s.tm.assignSequence(b, s.acc)
			rb.ProducerID, rb.ProducerEpoch, rb.BaseSequence = b.PID, b.Epoch, b.BaseSeq
			rb.Transactional = s.tm.transactional()
			if rb.Transactional {
				req.TransactionalID = cfg.TransactionalID
				req.TransactionV2 = s.tm.txn.V2
			}
		}
		req.Partitions = append(req.Partitions, protocol.ProducePartition{TP: b.TP, Batch: rb})
	}
	wire := env.Send(leader, req)
	// The protocol point "requested", per partition: a fault there (delay: request) holds
	// this very request on the wire.
	defer func() {
		for _, b := range batches {
			env.Observe(sim.Observation{Event: protocol.Requested, Partition: b.TP.String(), Msgs: b.msgs(), WireID: wire})
		}
	}()
	if cfg.Acks == protocol.AcksNone {
		// acks=0: the send counts as done the moment it is written to the socket (R4).
		var done []Completion
		for _, b := range batches {
			s.acc.remove(b)
			done = append(done, Completion{Msgs: b.msgs(), TP: b.TP, Offset: -1})
		}
		return done
	}
	for _, b := range batches {
		b.InFlight = true
	}
	s.inflight[id] = &inflightProduce{Batches: batches, Broker: leader, timeout: env.After(cfg.RequestTimeoutMs, requestTimeout{ReqID: id})}
	return nil
}

// onProduceResponse completes or fails each batch of an answered request
// (Sender.handleProduceResponse, completeBatch).
func (s *sender) onProduceResponse(env *sim.Env, r protocol.ProduceResponse) []Completion {
	f := s.inflight[r.ReqID]
	if f == nil {
		return nil // answered after the request timed out
	}
	delete(s.inflight, r.ReqID)
	env.Disarm(f.timeout) // answered: its id is never sent again
	var done []Completion
	for _, part := range r.Partitions {
		i := slices.IndexFunc(f.Batches, func(b *batch) bool { return b.TP == part.TP })
		if i < 0 {
			continue // the batch expired meanwhile
		}
		b := f.Batches[i]
		b.InFlight = false
		if part.Err == "" {
			if s.tm != nil {
				s.tm.acked(b)
			}
			s.acc.remove(b)
			done = append(done, Completion{Msgs: b.msgs(), TP: part.TP, Offset: part.BaseOffset})
			continue
		}
		done = append(done, s.failed(env, b, part.Err)...)
	}
	return append(done, s.drain(env)...)
}

// onRefused handles a produce request the broker could not take (it was down).
func (s *sender) onRefused(env *sim.Env, o protocol.ProduceRequest) []Completion {
	if f := s.inflight[o.ReqID]; f != nil {
		delete(s.inflight, o.ReqID)
		return append(s.failAll(env, f, protocol.ErrNetworkException), s.drain(env)...)
	}
	if o.Acks != protocol.AcksNone {
		// A disconnect already failed this request; its refusal says nothing new.
		return nil
	}
	// acks=0: the batch was already counted as sent; the broken connection only makes
	// the client look for the leader again.
	for _, pd := range o.Partitions {
		s.sh.md.forget(pd.TP)
	}
	s.sh.refreshMetadata(env)
	return nil
}

// onRequestTimeout handles a produce request unanswered for request.timeout.ms as
// NetworkClient does (handleTimedOutRequests, processTimeoutDisconnection): it closes
// the connection to the broker, and every request in flight on it ends as timed out
// (REQUEST_TIMED_OUT, Sender.handleProduceResponse), oldest first
// (InFlightRequests.clearAll), to be retried on a new connection opened after
// reconnect.backoff.ms.
func (s *sender) onRequestTimeout(env *sim.Env, t requestTimeout) []Completion {
	if f := s.inflight[t.ReqID]; f != nil {
		return s.disconnect(env, f.Broker, protocol.ErrRequestTimedOut)
	}
	return nil
}

// failAll fails every batch of a request that will not be answered.
func (s *sender) failAll(env *sim.Env, f *inflightProduce, err protocol.Error) []Completion {
	var done []Completion
	for _, b := range f.Batches {
		b.InFlight = false
		done = append(done, s.failed(env, b, err)...)
	}
	return done
}

// failed retries a batch after a retriable error, or gives up on it. A retried batch goes
// back to the front of its partition's queue (Sender.completeBatch, then
// RecordAccumulator.reenqueue's addFirst): a later batch already in flight lands first,
// and batches that failed together go out again last-failed first: with more than one
// request in flight and no idempotence a key's records reorder.
func (s *sender) failed(env *sim.Env, b *batch, err protocol.Error) []Completion {
	cfg := &s.sh.cfg
	env.Observe(sim.Observation{Event: protocol.ClientError, Err: err.String(), Partition: b.TP.String(), Msgs: b.msgs()})
	if err.RefreshesMetadata() {
		s.sh.md.forget(b.TP)
	}
	expired := env.Now()-b.CreatedMs >= cfg.DeliveryTimeoutMs
	retriable := err.Retriable()
	if s.tm != nil && b.HasSeq && b.Attempts <= cfg.Retries && !expired {
		retriable = s.tm.canRetry(b, err, s.tm.transactional())
	}
	if retriable && b.Attempts <= cfg.Retries && !expired {
		wait := backoffMs(env, cfg.RetryBackoffMs, cfg.RetryBackoffMaxMs, int(b.Attempts))
		b.ReadyAtMs = env.Now() + wait
		env.After(wait, drainTick{})
		// The idempotent producer keeps the queue in sequence order.
		s.acc.reenqueue(b, s.tm != nil && b.HasSeq)
		return nil
	}
	if s.tm != nil {
		s.tm.failedForGood(b, err, b.Attempts <= cfg.Retries, s.tm.transactional(), s.acc)
	}
	s.acc.remove(b)
	if expired {
		err = protocol.ErrTimeoutException
	}
	return append([]Completion{{Msgs: b.msgs(), TP: b.TP, Offset: -1, Err: err}}, s.failedTransactional(env, err)...)
}

// failedTransactional tells the transaction manager that a send of the transaction
// failed; when that fails the producer for good, every batch fails with it.
func (s *sender) failedTransactional(env *sim.Env, err protocol.Error) []Completion {
	if s.tm == nil || !s.tm.failedTransactional(env, err) {
		return nil
	}
	return s.abandon(err)
}

// abandon fails everything once the producer failed for good (fenced): every batch,
// queued or in flight, and every send not yet in one fails with err, and so does the
// transaction API call under way.
func (s *sender) abandon(err protocol.Error) []Completion {
	done := s.acc.abandon(err)
	s.inflight = map[int64]*inflightProduce{}
	return append(done, Completion{Txn: TxnFailed, Err: err, Offset: -1})
}

// disconnect closes the connection to a broker and fails every request in flight on it
// with err, to be retried on a new connection after reconnect.backoff.ms: after a
// request timeout (REQUEST_TIMED_OUT), or when the broker crashed and its end reset the
// connection (NETWORK_EXCEPTION: NetworkClient.processDisconnection).
func (s *sender) disconnect(env *sim.Env, broker string, err protocol.Error) []Completion {
	s.sh.conns.close(env, broker, firstReconnectBackoffMs)
	var done []Completion
	for _, id := range s.inflightIDs() {
		if f := s.inflight[id]; f != nil && f.Broker == broker { // gone: a crash at a point failing an earlier one reported, or an abandon
			delete(s.inflight, id)
			done = append(done, s.failAll(env, f, err)...)
		}
	}
	// The disconnect may come from stale metadata, so the client asks again at once
	// (NetworkClient's DefaultMetadataUpdater.handleServerDisconnect).
	s.sh.refreshMetadata(env)
	return append(done, s.drain(env)...)
}

// expire fails a batch whose delivery.timeout.ms ran out, in flight or not (KIP-91).
func (s *sender) expire(env *sim.Env, id int64) []Completion {
	b := s.acc.find(id)
	if b == nil {
		return nil
	}
	for _, rid := range s.inflightIDs() {
		f := s.inflight[rid]
		f.Batches = slices.DeleteFunc(slices.Clone(f.Batches), func(x *batch) bool { return x == b })
		if len(f.Batches) == 0 {
			delete(s.inflight, rid)
		}
	}
	if s.tm != nil {
		s.tm.expired(b)
	}
	s.acc.remove(b)
	env.Observe(sim.Observation{Event: protocol.ClientError, Err: protocol.ErrTimeoutException.String(), Partition: b.TP.String(), Msgs: b.msgs()})
	done := append([]Completion{{Msgs: b.msgs(), TP: b.TP, Offset: -1, Err: protocol.ErrTimeoutException}},
		s.failedTransactional(env, protocol.ErrTimeoutException)...)
	return append(done, s.drain(env)...)
}
