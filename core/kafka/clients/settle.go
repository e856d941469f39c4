package clients

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// Settled reports whether the consumer client has nothing left to read: it gave up, or
// it is joining a group whose coordinator is down (it cannot get further), or it holds
// no fetched record and its position is the HW of every partition it owns that has a live
// leader (the last stable offset for read_committed: an open transaction keeps it
// waiting). A position past the HW is not settled either: the new leader's HW has yet to
// catch up, or an unclean election cut the log under it and the consumer has yet to
// seek back (KIP-320).
func (c *Consumer) Settled(v sim.View) bool {
	switch {
	case c.State() == GaveUp:
		return true
	case c.State() == FetchingOffsets && c.waitsForALeader(v):
		return true // it cannot become stable until a partition it owns has a leader again
	case c.State() != Stable:
		return !protocol.CoordinatorAvailable(v, c.group)
	case c.Buffered() > 0:
		return false
	}
	for _, tp := range c.fetch.owned() {
		if end, ok := protocol.LiveLeaderReadEnd(v, tp, c.cfg.Isolation); ok && c.Position(tp) != end {
			return false
		}
	}
	return true
}

// waitsForALeader reports whether a partition the consumer still needs a starting
// offset for has no live leader to ask.
func (c *Consumer) waitsForALeader(v sim.View) bool {
	for _, tp := range c.fetch.owned() {
		if !c.fetch.hasPosition(tp) {
			if _, live := protocol.LiveLeader(v, tp); !live {
				return true
			}
		}
	}
	return false
}
