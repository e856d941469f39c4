package protocol

import "deliverylab/core/sim"

// logEnds is a broker: the log end offset of its replica of a partition.
type logEnds interface {
	LogEndOffset(tp TP) (int64, bool)
}

// LogOffsets is what a partition's live leader says of its log: where it ends, the high
// watermark (what consumers may read) and the last stable offset (what read_committed
// consumers may read).
type LogOffsets struct {
	Leader       string
	LEO, HW, LSO int64
}

// LiveLeaderOffsets is the log offsets of the partition's live leader, for the offsets
// chart; false while the partition has no live leader.
func LiveLeaderOffsets(v sim.View, tp TP) (LogOffsets, bool) {
	leader, ok := LiveLeader(v, tp)
	if !ok {
		return LogOffsets{}, false
	}
	n, _ := v.Node(leader)
	e, okE := n.(logEnds)
	h, okH := n.(highWatermarks)
	l, okL := n.(lastStableOffsets)
	if !okE || !okH || !okL {
		return LogOffsets{}, false
	}
	leo, okE := e.LogEndOffset(tp)
	hw, okH := h.HighWatermark(tp)
	lso, okL := l.LastStableOffset(tp)
	if !okE || !okH || !okL {
		return LogOffsets{}, false
	}
	return LogOffsets{Leader: leader, LEO: leo, HW: hw, LSO: lso}, true
}
