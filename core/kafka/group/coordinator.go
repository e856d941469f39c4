// Package group is the group coordinator, a role of the broker that leads the group's
// __consumer_offsets partition (Kafka's group-coordinator module, classic protocol):
// membership, rebalances with the range assignor, member session timeouts, and the
// committed offsets, which it appends to its partition and answers once they are
// replicated.
package group

import (
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/kafka/storage"
	"deliverylab/core/sim"
)

// Config is what the coordinator reads of the broker's configuration.
type Config struct {
	InitialRebalanceDelayMs int64 // group.initial.rebalance.delay.ms
	CommitTimeoutMs         int64 // offsets.commit.timeout.ms
}

// Host is what the coordinator needs of the broker it runs on.
type Host interface {
	// IsLeader reports whether the broker leads a partition.
	IsLeader(tp protocol.TP) bool
	// Leader is a partition's leader as the broker's metadata cache has it ("" if none).
	Leader(tp protocol.TP) string
	// TopicPartitions lists a topic's partitions, sorted, as the metadata cache has them.
	TopicPartitions(topic string) []protocol.TP
	// AppendCommit appends records to __consumer_offsets, which the broker must lead;
	// once the HW covers them (or the append fails) the broker calls AppendDone with ref.
	AppendCommit(env *sim.Env, ref int64, records []protocol.Record, timeoutMs int64) bool
	// OffsetsLog is the broker's replica of __consumer_offsets and its HW.
	OffsetsLog() (*storage.Log, int64)
}

// Coordinator holds the groups this broker coordinates. All of it is volatile: the
// committed offsets live in the replicated __consumer_offsets log, and a new coordinator
// rebuilds them from there.
type Coordinator struct {
	cfg       Config
	groups    map[string]*group
	pending   map[int64]pendingCommit // offset commits appended, waiting for the HW
	refSeq    int64
	loadedEnd int64 // the log end when this broker became coordinator: what it loaded
}

type pendingCommit struct {
	From string
	Req  protocol.OffsetCommitRequest
}

// New makes a coordinator with no groups.
func New(cfg Config) Coordinator {
	return Coordinator{cfg: cfg, groups: map[string]*group{}, pending: map[int64]pendingCommit{}}
}

// Reset forgets everything (the broker crashed or restarted).
func (c *Coordinator) Reset() {
	c.groups = map[string]*group{}
	c.pending = map[int64]pendingCommit{}
	c.loadedEnd = 0
}

// Clone copies the coordinator.
func (c *Coordinator) Clone() Coordinator {
	n := *c
	n.groups = make(map[string]*group, len(c.groups))
	for k, g := range c.groups {
		n.groups[k] = g.clone()
	}
	n.pending = maps.Clone(c.pending)
	return n
}

// Handle takes the group requests; it reports whether m was one.
func (c *Coordinator) Handle(env *sim.Env, h Host, m sim.Message) bool {
	switch p := m.Payload.(type) {
	case protocol.FindCoordinatorRequest:
		env.Send(m.From, findCoordinator(h))
	case protocol.JoinGroupRequest:
		c.onJoinGroup(env, h, m.From, p)
	case protocol.SyncGroupRequest:
		c.onSyncGroup(env, h, m.From, p)
	case protocol.HeartbeatRequest:
		c.onHeartbeat(env, h, m.From, p)
	case protocol.OffsetCommitRequest:
		c.onOffsetCommit(env, h, m.From, p)
	case protocol.OffsetFetchRequest:
		c.onOffsetFetch(env, h, m.From, p)
	default:
		return false
	}
	return true
}

// Fire runs the coordinator's timers; it reports whether t was one.
func (c *Coordinator) Fire(env *sim.Env, h Host, t sim.Payload) bool {
	switch t := t.(type) {
	case memberExpiry:
		c.expireMember(env, h, t)
	case joinDeadline:
		c.completeJoin(env, h, t.Group)
	default:
		return false
	}
	return true
}

// OnElection is called when the broker becomes leader of __consumer_offsets: the
// coordinator loads the offsets from the whole log, as GroupMetadataManager reads it to
// its end.
func (c *Coordinator) OnElection(log *storage.Log) { c.loadedEnd = log.LEO() }

// OnResignation is called when the broker stops leading __consumer_offsets: its groups
// go with the partition.
func (c *Coordinator) OnResignation() { c.groups = map[string]*group{} }

func findCoordinator(h Host) protocol.FindCoordinatorResponse {
	leader := h.Leader(protocol.OffsetsTP)
	if leader == "" {
		return protocol.FindCoordinatorResponse{Err: protocol.ErrCoordinatorNotAvailable}
	}
	return protocol.FindCoordinatorResponse{Coordinator: leader}
}

func isCoordinator(h Host) bool { return h.IsLeader(protocol.OffsetsTP) }

// memberNames lists a group's members, sorted.
func (g *group) memberNames() []string { return slices.Sorted(maps.Keys(g.Members)) }
