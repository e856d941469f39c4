package clients

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// Where the fetcher starts reading a partition: the committed offset the coordinator
// found, or auto.offset.reset (Kafka's OffsetFetcher.resetPositionsAsync, ListOffsets to
// the partition's leader for latest).

// resetRetry asks for the latest offset again.
type resetRetry struct {
	TP  protocol.TP
	Seq int64
}

func (resetRetry) Kind() string       { return "Reset" }
func (t resetRetry) Describe() string { return sim.TimerLine("consumer", t, t.TP.String()) }

// initPositions positions the partitions the application has not sought at the offsets
// the coordinator found committed, or by auto.offset.reset where none was. It returns
// the Stopped event when auto.offset.reset=none finds no offset, and nil otherwise.
func (f *fetcher) initPositions(env *sim.Env, committed []protocol.TPOffset) []ConsumerEvent {
	for _, o := range committed {
		if _, sought := f.positions[o.TP]; sought {
			continue // the application's seek decides
		}
		switch {
		case o.Offset >= 0:
			f.positions[o.TP] = o.Offset
		case f.cfg.AutoOffsetReset == ResetEarliest:
			f.positions[o.TP] = 0
		case f.cfg.AutoOffsetReset == ResetNone:
			return f.noOffset(env, o.TP, protocol.ErrNoOffsetForPartition)
		default:
			f.resetLatest(env, o.TP)
		}
	}
	return nil
}

// resetPosition applies auto.offset.reset (earliest or latest) to a partition.
func (f *fetcher) resetPosition(env *sim.Env, tp protocol.TP) {
	delete(f.offsetEpochs, tp)
	if f.cfg.AutoOffsetReset == ResetEarliest {
		f.positions[tp] = 0
		f.fetchAll(env)
		return
	}
	f.resetLatest(env, tp)
}

// resetLatest asks the leader for the end of what consumers may read (the HW).
func (f *fetcher) resetLatest(env *sim.Env, tp protocol.TP) {
	delete(f.positions, tp)
	f.resetSeq[tp]++
	if leader := f.md.leader(tp); leader != "" {
		env.Send(leader, protocol.ListOffsetsRequest{TP: tp, Isolation: f.cfg.Isolation})
		// A request without an answer fails after request.timeout.ms and is tried again
		// after retry.backoff.ms (OffsetFetcher.resetPositionsAsync, requestFailed).
		f.resetLater(env, tp, f.cfg.RequestTimeoutMs+f.cfg.RetryBackoffMs)
		return
	}
	f.md.refresh(env, f.cfg.RequestTimeoutMs)
	f.resetLater(env, tp, f.cfg.RetryBackoffMs)
}

// resetLater asks for the latest offset again after afterMs, unless a newer request
// has been sent by then.
func (f *fetcher) resetLater(env *sim.Env, tp protocol.TP, afterMs int64) {
	env.After(afterMs, resetRetry{TP: tp, Seq: f.resetSeq[tp]})
}

// onListOffsets takes the latest offset as the partition's position; it reports whether
// it did (an error asks again after retry.backoff.ms).
func (f *fetcher) onListOffsets(env *sim.Env, r protocol.ListOffsetsResponse) bool {
	if r.Err != "" {
		f.onListOffsetsFailed(env, r.TP)
		return false
	}
	f.positions[r.TP] = r.Offset
	return true
}

// onListOffsetsFailed forgets the leader that did not answer and asks again.
func (f *fetcher) onListOffsetsFailed(env *sim.Env, tp protocol.TP) {
	f.md.forget(tp)
	f.resetLater(env, tp, f.cfg.RetryBackoffMs)
}

// onResetRetry asks again for a latest offset still missing. The caller fires it only
// while the member is looking up its starting offsets.
func (f *fetcher) onResetRetry(env *sim.Env, t resetRetry) {
	if t.Seq == f.resetSeq[t.TP] && !f.hasPosition(t.TP) {
		f.resetLatest(env, t.TP)
	}
}

// noOffset is auto.offset.reset=none with no valid position: poll throws err
// (NoOffsetForPartitionException, or LogTruncationException) and the application stops
// consuming. The Stopped event it returns tells the client to stop its membership too.
func (f *fetcher) noOffset(env *sim.Env, tp protocol.TP, err protocol.Error) []ConsumerEvent {
	env.Observe(sim.Observation{Event: protocol.ClientError, Err: err.String(), Partition: tp.String()})
	f.assigned = nil
	f.buffer = map[protocol.TP][]fetched{}
	return []ConsumerEvent{{Kind: Stopped, Err: err}}
}
