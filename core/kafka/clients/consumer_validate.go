package clients

import (
	"fmt"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// Position validation after a leader change (KIP-320). The consumer remembers the leader
// epoch of the record before its position; when the metadata names a new leader epoch,
// it asks the leader where its log ends that epoch before fetching again. A position
// past that end lies beyond a truncation (an unclean election cut it away): the
// consumer seeks back to the end, the first offset known to diverge, instead of
// falling back to auto.offset.reset as an out-of-range fetch would
// (SubscriptionState.maybeValidatePosition, maybeCompleteValidation).

// validatePosition sends the check when the partition's leader epoch moved on since the
// position was last checked; it reports whether it did (the fetch waits for the answer).
func (c *Consumer) validatePosition(env *sim.Env, tp protocol.TP, leader string) bool {
	current := c.md.Leaders[tp].LeaderEpoch
	epoch, known := c.offsetEpochs[tp]
	if !known || c.checkedAt[tp] == current {
		c.checkedAt[tp] = current // nothing to check a position against without its epoch
		return false
	}
	c.reqSeq++
	c.fetching[tp] = c.reqSeq
	c.fetchedFrom[tp] = leader
	env.Send(leader, protocol.OffsetsForLeaderEpochRequest{ReqID: c.reqSeq, TP: tp, LeaderEpoch: epoch})
	env.After(c.cfg.RequestTimeoutMs, fetchTimeout{TP: tp, ReqID: c.reqSeq})
	return true
}

// onOffsetsForLeaderEpoch completes a validation.
func (c *Consumer) onOffsetsForLeaderEpoch(env *sim.Env, r protocol.OffsetsForLeaderEpochResponse) []ConsumerEvent {
	if id, ok := c.fetching[r.TP]; !ok || id != r.ReqID {
		return nil
	}
	delete(c.fetching, r.TP)
	if r.Err != "" {
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: r.Err.String(), Partition: r.TP.String()})
		c.fetchFailed(env, r.TP)
		return nil
	}
	c.checkedAt[r.TP] = c.md.Leaders[r.TP].LeaderEpoch
	pos := c.positions[r.TP]
	switch {
	case r.LeaderEpoch < 0:
		// The leader knows no epoch as old as the position's: nothing says where to go.
		if c.cfg.AutoOffsetReset == ResetNone {
			return c.noOffset(env, r.TP, protocol.ErrLogTruncation)
		}
		env.Note(fmt.Sprintf("truncation detected on %s at offset %d: resetting (auto.offset.reset)", r.TP, pos))
		c.resetPosition(env, r.TP)
		return nil
	case r.EndOffset < pos:
		if c.cfg.AutoOffsetReset == ResetNone {
			return c.noOffset(env, r.TP, protocol.ErrLogTruncation)
		}
		env.Note(fmt.Sprintf("truncation detected on %s at offset %d: seeks to %d, where epoch %d ends", r.TP, pos, r.EndOffset, r.LeaderEpoch))
		c.positions[r.TP] = r.EndOffset
		c.offsetEpochs[r.TP] = r.LeaderEpoch
		env.Observe(sim.Observation{Event: protocol.TruncationDetected, Partition: r.TP.String(), Offset: r.EndOffset})
	}
	c.fetchAll(env)
	return nil
}
