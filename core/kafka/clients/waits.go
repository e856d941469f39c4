package clients

import (
	"strconv"

	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// WaitsFor says what keeps the consumer client from settling (see Settled), for the
// note of a run that ended at its limit: the group it is still joining, or a partition it
// has not read up to the high watermark of its live leader.
func (c *Consumer) WaitsFor(v sim.View) []fate.Reason {
	switch {
	case c.State() == GaveUp:
		return nil
	case c.State() == Finding:
		return []fate.Reason{fate.Because(fate.WaitsForCoordinator, "node", c.clientID, "group", c.group)}
	case c.State() == FetchingOffsets:
		var out []fate.Reason
		for _, tp := range c.fetch.owned() {
			if !c.fetch.hasPosition(tp) && c.md.leader(tp) == "" {
				out = append(out, fate.Because(fate.WaitsForLeader, "node", c.clientID, "partition", tp.String()))
			}
		}
		if len(out) > 0 {
			return out
		}
		return []fate.Reason{fate.Because(fate.WaitsToJoin, "node", c.clientID, "group", c.group)}
	case c.State() != Stable:
		return []fate.Reason{fate.Because(fate.WaitsToJoin, "node", c.clientID, "group", c.group)}
	case c.Buffered() > 0:
		return []fate.Reason{fate.Because(fate.WaitsToProcess, "node", c.clientID)}
	}
	var out []fate.Reason
	for _, tp := range c.fetch.owned() {
		hw, ok := protocol.LiveLeaderReadEnd(v, tp, c.cfg.Isolation) // the LSO for read_committed
		switch pos := c.Position(tp); {
		case !ok || pos == hw:
		case c.md.leader(tp) == "":
			out = append(out, fate.Because(fate.WaitsForLeader, "node", c.clientID, "partition", tp.String()))
		case c.cfg.Isolation == protocol.ReadCommitted:
			out = append(out, fate.Because(fate.WaitsToReadCommitted, "node", c.clientID, "partition", tp.String(),
				"position", strconv.FormatInt(pos, 10), "lso", strconv.FormatInt(hw, 10)))
		default:
			out = append(out, fate.Because(fate.WaitsToRead, "node", c.clientID, "partition", tp.String(),
				"position", strconv.FormatInt(pos, 10), "hw", strconv.FormatInt(hw, 10)))
		}
	}
	return out
}
