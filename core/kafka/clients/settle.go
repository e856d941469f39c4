package clients

import (
	"strconv"

	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// consumerWait is one thing the consumer client waits for: a code, and the partition
// with the position and the read end (the HW, or the LSO for read_committed) when it is
// about one.
type consumerWait struct {
	code     fate.Code
	tp       protocol.TP
	pos, end int64
}

// waits is the one answer to what the consumer client still waits for. It waits for
// nothing once it gave up, or while it is joining a group whose coordinator is down (it
// cannot get further), or while a partition it needs a starting offset for has no live
// leader (it cannot become stable until one is elected). Joining, it waits for the
// coordinator, to learn a partition's leader, or to join; stable, for the application to
// take what it fetched, then for each partition it owns to read up to the read end of
// its live leader. A position past the read end waits too: the new leader's HW has yet
// to catch up, or an unclean election cut the log under it and the consumer has yet to
// seek back (KIP-320). Settled stops at the first; yield returns false to stop.
func (c *Consumer) waits(v sim.View, yield func(consumerWait) bool) {
	switch st := c.State(); {
	case st == GaveUp:
		return
	case st == FetchingOffsets && c.waitsForALeader(v):
		return
	case c.manual && st == Finding:
		return // not assigned anything yet: its application decides
	case c.manual && st != Stable:
		yield(consumerWait{code: fate.WaitsForLeader})
		return
	case st != Stable:
		if !protocol.CoordinatorAvailable(v, c.group) {
			return
		}
		if st == Finding {
			yield(consumerWait{code: fate.WaitsForCoordinator})
			return
		}
		if st == FetchingOffsets {
			// Every partition has a live leader, but the client may not know it yet.
			learning := false
			for _, tp := range c.fetch.owned() {
				if !c.fetch.hasPosition(tp) && c.md.leader(tp) == "" {
					learning = true
					if !yield(consumerWait{code: fate.WaitsForLeader, tp: tp}) {
						return
					}
				}
			}
			if learning {
				return
			}
		}
		yield(consumerWait{code: fate.WaitsToJoin})
		return
	case c.member != nil && c.member.hb.inFlight && protocol.CoordinatorAvailable(v, c.group):
		// A KIP-848 member's heartbeat is how it learns that it was fenced or that its
		// assignment moved: until it is answered the member may hold partitions the
		// coordinator gave away (a heartbeat lost on a cut link is answered by its
		// timeout, then by the coordinator found again).
		yield(consumerWait{code: fate.WaitsForCoordinator})
		return
	case c.Buffered() > 0:
		yield(consumerWait{code: fate.WaitsToProcess})
		return
	}
	for _, tp := range c.fetch.owned() {
		end, ok := protocol.LiveLeaderReadEnd(v, tp, c.cfg.Isolation)
		pos := c.Position(tp)
		if !ok || pos == end {
			continue
		}
		w := consumerWait{code: fate.WaitsToRead, tp: tp, pos: pos, end: end}
		switch {
		case c.md.leader(tp) == "":
			w.code = fate.WaitsForLeader // it has a live leader the client has not learned yet
		case c.cfg.Isolation == protocol.ReadCommitted:
			w.code = fate.WaitsToReadCommitted
		}
		if !yield(w) {
			return
		}
	}
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

// Settled reports whether the consumer client waits for nothing (see waits).
func (c *Consumer) Settled(v sim.View) bool {
	settled := true
	c.waits(v, func(consumerWait) bool { settled = false; return false })
	return settled
}

// WaitsFor says what keeps the consumer client from settling, for the note of a run that
// ended at its limit.
func (c *Consumer) WaitsFor(v sim.View) []fate.Reason {
	var out []fate.Reason
	c.waits(v, func(w consumerWait) bool {
		out = append(out, w.reason(c.clientID, c.group))
		return true
	})
	return out
}

// reason words a wait.
func (w consumerWait) reason(node, group string) fate.Reason {
	switch w.code {
	case fate.WaitsForCoordinator, fate.WaitsToJoin:
		return fate.Because(w.code, "node", node, "group", group)
	case fate.WaitsForLeader:
		return fate.Because(w.code, "node", node, "partition", w.tp.String())
	case fate.WaitsToReadCommitted:
		return fate.Because(w.code, "node", node, "partition", w.tp.String(), "position", itoa(w.pos), "lso", itoa(w.end))
	case fate.WaitsToRead:
		return fate.Because(w.code, "node", node, "partition", w.tp.String(), "position", itoa(w.pos), "hw", itoa(w.end))
	}
	return fate.Because(w.code, "node", node)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
