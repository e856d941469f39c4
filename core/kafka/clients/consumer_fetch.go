package clients

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The consumer's fetcher: one fetch in flight per owned partition, to its leader, from
// the member's position.

// fetched is a record fetched and not yet returned by Poll, with the leader epoch of its
// batch, which the position takes when Poll returns it.
type fetched struct {
	protocol.Record
	Epoch int32
	// Skip: a control record, or one of an aborted transaction under read_committed
	// (consumer_txn.go): Poll moves the position past it and does not return it.
	Skip bool
	// PID is the producer of a transactional record, -1 otherwise.
	PID int64
}

// fetchAll sends a fetch for every owned partition with nothing buffered or in flight.
func (c *Consumer) fetchAll(env *sim.Env) {
	if c.State != Stable {
		return
	}
	for _, tp := range c.assigned {
		if len(c.buffer[tp]) > 0 {
			continue
		}
		if _, busy := c.fetching[tp]; busy {
			continue
		}
		if env.Now() < c.retryAt[tp] {
			continue // backing off after a failed fetch
		}
		leader := c.md.leader(tp)
		if leader == "" {
			c.md.refresh(env, c.cfg.RequestTimeoutMs)
			continue
		}
		if c.validatePosition(env, tp, leader) {
			continue
		}
		c.reqSeq++
		c.fetching[tp] = c.reqSeq
		c.fetchedFrom[tp] = leader
		env.Send(leader, protocol.FetchRequest{ReqID: c.reqSeq, TP: tp, FetchOffset: c.positions[tp], LastFetchedEpoch: -1,
			MaxWaitMs: c.cfg.FetchMaxWaitMs, Isolation: c.cfg.Isolation})
		env.After(c.cfg.FetchMaxWaitMs+c.cfg.RequestTimeoutMs, fetchTimeout{TP: tp, ReqID: c.reqSeq})
	}
}

func (c *Consumer) onFetch(env *sim.Env, r protocol.FetchResponse) []ConsumerEvent {
	if id, ok := c.fetching[r.TP]; !ok || id != r.ReqID {
		return nil
	}
	delete(c.fetching, r.TP)
	switch r.Err {
	case "":
	case protocol.ErrOffsetOutOfRange:
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: r.Err.String(), Partition: r.TP.String()})
		if c.cfg.AutoOffsetReset == ResetNone {
			return c.noOffset(env, r.TP, protocol.ErrNoOffsetForPartition)
		}
		c.resetPosition(env, r.TP)
		return nil
	default:
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: r.Err.String(), Partition: r.TP.String()})
		c.fetchFailed(env, r.TP)
		return nil
	}
	c.failures[r.TP] = 0
	var fresh []fetched
	filter := newTxnFilter(r, c.cfg.Isolation)
	returned := 0
	for _, b := range r.Batches {
		skip := filter.skips(b)
		pid := int64(-1)
		if b.Transactional {
			pid = b.ProducerID
		}
		for _, rec := range b.Records {
			if rec.Offset >= c.positions[r.TP] {
				fresh = append(fresh, fetched{Record: rec, Epoch: b.LeaderEpoch, Skip: skip, PID: pid})
				if !skip {
					returned++
				}
			}
		}
	}
	if returned == 0 {
		// Nothing to return: the position moves past what was skipped at once
		// (FetchCollector moves it to the fetch's next offset).
		if n := len(fresh); n > 0 {
			c.positions[r.TP], c.offsetEpochs[r.TP] = fresh[n-1].Offset+1, fresh[n-1].Epoch
		}
		c.fetchAll(env)
		return nil
	}
	c.buffer[r.TP] = append(c.buffer[r.TP], fresh...)
	return []ConsumerEvent{{Kind: RecordsReady}}
}

// fetchFailed forgets the partition's leader and fetches again after a growing backoff.
func (c *Consumer) fetchFailed(env *sim.Env, tp protocol.TP) {
	c.failures[tp]++
	c.md.forget(tp)
	wait := backoffMs(env, c.cfg.RetryBackoffMs, c.cfg.RetryBackoffMaxMs, c.failures[tp])
	c.retryAt[tp] = env.Now() + wait
	env.After(wait, fetchRetry{})
}

// resetPosition applies auto.offset.reset (earliest or latest) to a partition.
func (c *Consumer) resetPosition(env *sim.Env, tp protocol.TP) {
	delete(c.offsetEpochs, tp)
	if c.cfg.AutoOffsetReset == ResetEarliest {
		c.positions[tp] = 0
		c.fetchAll(env)
		return
	}
	c.resetLatest(env, tp)
}

// resetLatest asks the leader for the end of what consumers may read (the HW).
func (c *Consumer) resetLatest(env *sim.Env, tp protocol.TP) {
	delete(c.positions, tp)
	c.resetSeq[tp]++
	if leader := c.md.leader(tp); leader != "" {
		env.Send(leader, protocol.ListOffsetsRequest{TP: tp, Isolation: c.cfg.Isolation})
		// A request without an answer fails after request.timeout.ms and is tried again
		// after retry.backoff.ms (OffsetFetcher.resetPositionsAsync, requestFailed).
		c.resetLater(env, tp, c.cfg.RequestTimeoutMs+c.cfg.RetryBackoffMs)
		return
	}
	c.md.refresh(env, c.cfg.RequestTimeoutMs)
	c.resetLater(env, tp, c.cfg.RetryBackoffMs)
}

// resetLater asks for the latest offset again after afterMs, unless a newer request
// has been sent by then.
func (c *Consumer) resetLater(env *sim.Env, tp protocol.TP, afterMs int64) {
	env.After(afterMs, resetRetry{TP: tp, Seq: c.resetSeq[tp]})
}

// noOffset is auto.offset.reset=none with no valid position: poll throws err
// (NoOffsetForPartitionException, or LogTruncationException) and the application stops
// consuming.
func (c *Consumer) noOffset(env *sim.Env, tp protocol.TP, err protocol.Error) []ConsumerEvent {
	env.Observe(sim.Observation{Event: protocol.ClientError, Err: err.String(), Partition: tp.String()})
	c.State = GaveUp
	c.assigned = nil
	c.buffer = map[protocol.TP][]fetched{}
	return []ConsumerEvent{{Kind: Stopped, Err: err}}
}
