package protocol

import (
	"sort"

	"deliverylab/core/sim"
)

// The questions one Kafka role asks of another's state when a scene judges whether a run
// has settled or what a log still holds. They read the other node through the
// sim.View, never to decide a protocol step.

// partitionAuthority is the controller: what it decided for a partition.
type partitionAuthority interface {
	Partition(tp TP) (PartitionState, bool)
}

// brokerSessions is the controller: whether it has fenced a broker.
type brokerSessions interface {
	Fenced(broker string) bool
}

// highWatermarks is a broker: the high watermark of its replica of a partition.
type highWatermarks interface {
	HighWatermark(tp TP) (int64, bool)
}

// lastStableOffsets is a broker: the last stable offset of its replica of a partition.
type lastStableOffsets interface {
	LastStableOffset(tp TP) (int64, bool)
}

// committedOffsets is a broker that may be a group coordinator.
type committedOffsets interface {
	CommittedOffset(group string, tp TP) int64
}

// groupPlacement is a broker: the __consumer_offsets partition a group lives on, by its
// offsets.topic.num.partitions.
type groupPlacement interface {
	OffsetsPartition(group string) TP
}

// groupOffsets is a broker that may coordinate groups: their committed offsets in a
// partition, for the groups it coordinates.
type groupOffsets interface {
	GroupOffsets(tp TP) []GroupOffset
}

// GroupOffset is a group's committed offset in some partition.
type GroupOffset struct {
	Group  string
	Offset int64
}

// readerPositions is a consumer: the next offset it reads in each partition it owns.
type readerPositions interface {
	Positions() []TPOffset
}

// CommittedOffsets lists, for the canvas, every group's committed offset in a partition
// as its coordinator, if up, answers it; sorted by group.
func CommittedOffsets(v sim.View, tp TP) []GroupOffset {
	var out []GroupOffset
	for _, name := range v.NodeNames() {
		if n, up := v.Node(name); up {
			if b, ok := n.(groupOffsets); ok {
				out = append(out, b.GroupOffsets(tp)...)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Group < out[j].Group })
	return out
}

// ConsumerPositions lists, for the canvas, the position of every consumer that is up and
// owns the partition, by consumer name.
func ConsumerPositions(v sim.View, tp TP) map[string]int64 {
	out := map[string]int64{}
	for _, name := range v.NodeNames() {
		if n, up := v.Node(name); up {
			if c, ok := n.(readerPositions); ok {
				for _, p := range c.Positions() {
					if p.TP == tp {
						out[name] = p.Offset
					}
				}
			}
		}
	}
	return out
}

// GroupTP is the __consumer_offsets partition a group lives on, as the cluster's brokers
// compute it.
func GroupTP(v sim.View, group string) (TP, bool) {
	for _, name := range v.NodeNames() {
		n, _ := v.Node(name)
		if b, ok := n.(groupPlacement); ok {
			return b.OffsetsPartition(group), true
		}
	}
	return TP{}, false
}

// Fenced reports whether the controller has fenced a broker (its session expired, or it
// has not been unfenced since it registered).
func Fenced(v sim.View, broker string) bool {
	n, _ := v.Node(ControllerName)
	c, ok := n.(brokerSessions)
	return ok && c.Fenced(broker)
}

// ControllerState is the controller's record of a partition.
func ControllerState(v sim.View, tp TP) (PartitionState, bool) {
	n, _ := v.Node(ControllerName)
	if c, ok := n.(partitionAuthority); ok {
		return c.Partition(tp)
	}
	return PartitionState{}, false
}

// LiveLeader is the partition's leader as the controller decided it, if that broker is
// up.
func LiveLeader(v sim.View, tp TP) (string, bool) {
	st, ok := ControllerState(v, tp)
	if !ok || st.Leader == "" {
		return "", false
	}
	if _, up := v.Node(st.Leader); !up {
		return "", false
	}
	return st.Leader, true
}

// LiveLeaderHW is the high watermark on the partition's live leader.
func LiveLeaderHW(v sim.View, tp TP) (int64, bool) {
	if b, ok := liveLeaderAs[highWatermarks](v, tp); ok {
		return b.HighWatermark(tp)
	}
	return 0, false
}

// LiveLeaderReadEnd is where a consumer of the given isolation level reads up to on the
// partition's live leader: the HW, or the last stable offset for read_committed.
func LiveLeaderReadEnd(v sim.View, tp TP, level IsolationLevel) (int64, bool) {
	if level != ReadCommitted {
		return LiveLeaderHW(v, tp)
	}
	if b, ok := liveLeaderAs[lastStableOffsets](v, tp); ok {
		return b.LastStableOffset(tp)
	}
	return 0, false
}

// liveLeaderAs is the partition's live leader as the interface asked.
func liveLeaderAs[T any](v sim.View, tp TP) (T, bool) {
	var none T
	leader, ok := LiveLeader(v, tp)
	if !ok {
		return none, false
	}
	n, _ := v.Node(leader)
	b, ok := n.(T)
	return b, ok
}

// CommittedOffset is a group's committed position in a partition as its coordinator (the
// leader of the group's __consumer_offsets partition) would answer it, or -1.
func CommittedOffset(v sim.View, group string, tp TP) int64 {
	gtp, ok := GroupTP(v, group)
	if !ok {
		return -1
	}
	st, ok := ControllerState(v, gtp)
	if !ok || st.Leader == "" {
		return -1
	}
	n, _ := v.Node(st.Leader)
	if b, ok := n.(committedOffsets); ok {
		return b.CommittedOffset(group, tp)
	}
	return -1
}

// CoordinatorAvailable reports whether a group's coordinator (the leader of its
// __consumer_offsets partition) is up.
func CoordinatorAvailable(v sim.View, group string) bool {
	gtp, ok := GroupTP(v, group)
	if !ok {
		return false
	}
	_, ok = LiveLeader(v, gtp)
	return ok
}
