package clients

import (
	"fmt"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The fetcher's position validation after a leader change (KIP-320). It remembers the
// leader epoch of the record before its position; when the metadata names a new leader
// epoch, it asks the leader where its log ends that epoch before fetching again. A position
// past that end lies beyond a truncation (an unclean election cut it away): the
// consumer seeks back to the end, the first offset known to diverge, instead of
// falling back to auto.offset.reset as an out-of-range fetch would
// (SubscriptionState.maybeValidatePosition, maybeCompleteValidation).

// validatePosition sends the check when the partition's leader epoch moved on since the
// position was last checked; it reports whether it did (the fetch waits for the answer).
func (f *fetcher) validatePosition(env *sim.Env, tp protocol.TP, leader string) bool {
	current := f.md.Leaders[tp].LeaderEpoch
	epoch, known := f.offsetEpochs[tp]
	if !known || f.checkedAt[tp] == current {
		f.checkedAt[tp] = current // nothing to check a position against without its epoch
		return false
	}
	id := f.ids.next()
	f.fetchedFrom[tp] = leader
	env.Send(leader, protocol.OffsetsForLeaderEpochRequest{ReqID: id, TP: tp, LeaderEpoch: epoch})
	f.fetching[tp] = fetchInFlight{ReqID: id, timeout: env.After(f.cfg.RequestTimeoutMs, fetchTimeout{TP: tp, ReqID: id})}
	return true
}

// onOffsetsForLeaderEpoch completes a validation.
func (f *fetcher) onOffsetsForLeaderEpoch(env *sim.Env, r protocol.OffsetsForLeaderEpochResponse) []ConsumerEvent {
	if !f.answered(env, r.TP, r.ReqID) {
		return nil
	}
	if r.Err != "" {
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: r.Err.String(), Partition: r.TP.String()})
		f.fetchFailed(env, r.TP)
		return nil
	}
	f.checkedAt[r.TP] = f.md.Leaders[r.TP].LeaderEpoch
	pos := f.positions[r.TP]
	switch {
	case r.LeaderEpoch < 0:
		// The leader knows no epoch as old as the position's: nothing says where to go.
		if f.cfg.AutoOffsetReset == ResetNone {
			return f.noOffset(env, r.TP, protocol.ErrLogTruncation)
		}
		env.Note(fmt.Sprintf("truncation detected on %s at offset %d: resetting (auto.offset.reset)", r.TP, pos))
		f.resetPosition(env, r.TP)
		return nil
	case r.EndOffset < pos:
		if f.cfg.AutoOffsetReset == ResetNone {
			return f.noOffset(env, r.TP, protocol.ErrLogTruncation)
		}
		env.Note(fmt.Sprintf("truncation detected on %s at offset %d: seeks to %d, where epoch %d ends", r.TP, pos, r.EndOffset, r.LeaderEpoch))
		f.positions[r.TP] = r.EndOffset
		f.offsetEpochs[r.TP] = r.LeaderEpoch
		env.Observe(sim.Observation{Event: protocol.TruncationDetected, Partition: r.TP.String(), Offset: r.EndOffset})
	}
	f.fetchAll(env)
	return nil
}
