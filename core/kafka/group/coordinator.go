// Package group is the group coordinator, a role of the broker that leads the group's
// __consumer_offsets partition (Kafka's group-coordinator module): membership of classic
// groups, rebalances with the range assignor, member session timeouts, and the committed
// offsets, which it appends to its partition and answers once they are replicated. Groups
// of the new consumer protocol (KIP-848, group.protocol=consumer) live beside the classic
// ones (consumer_group*.go): the coordinator assigns their partitions itself and moves
// each member towards its target with ConsumerGroupHeartbeat alone.
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
	OffsetsPartitions       int   // offsets.topic.num.partitions
	// The consumer protocol's (GroupCoordinatorConfig): a member's session, the interval
	// the coordinator tells members to heartbeat at, and how often a group's target
	// assignment may be computed again (KIP-1263).
	ConsumerSessionTimeoutMs     int64 // group.consumer.session.timeout.ms
	ConsumerHeartbeatIntervalMs  int64 // group.consumer.heartbeat.interval.ms
	ConsumerAssignmentIntervalMs int64 // group.consumer.assignment.interval.ms
}

// Host is what the coordinator needs of the broker it runs on.
type Host interface {
	// IsLeader reports whether the broker leads a partition.
	IsLeader(tp protocol.TP) bool
	// Leader is a partition's leader as the broker's metadata cache has it ("" if none).
	Leader(tp protocol.TP) string
	// TopicPartitions lists a topic's partitions, sorted, as the metadata cache has them.
	TopicPartitions(topic string) []protocol.TP
	// AppendCommit appends records to a __consumer_offsets partition with acks=all
	// (offsets.commit.required.acks is -1) and says at which offset, or the error that
	// kept it from appending anything; once the HW covers them, the append fails or
	// timeoutMs pass, the broker calls AppendDone with ref.
	AppendCommit(env *sim.Env, ref int64, tp protocol.TP, records []protocol.Record, timeoutMs int64) (int64, protocol.Error)
	// AppendTxnOffsets appends them as AppendCommit does, as a transactional batch of the
	// producer pid with its epoch: the producer's transaction opens on the partition and
	// holds its LSO until the marker. An epoch older than the partition knows for the
	// producer appends nothing (INVALID_PRODUCER_EPOCH).
	AppendTxnOffsets(env *sim.Env, ref int64, tp protocol.TP, records []protocol.Record, pid int64, epoch int16, timeoutMs int64) (int64, protocol.Error)
}

// Coordinator holds the groups this broker coordinates: those living on the
// __consumer_offsets partitions it leads. All of it is volatile: the committed offsets
// live in the replicated __consumer_offsets log, and a new coordinator rebuilds its cache
// of them from there.
type Coordinator struct {
	cfg     Config
	groups  map[string]*group
	offsets map[string]map[protocol.TP]committed // the offsets cache, per group
	pending map[int64]pendingCommit              // offset commits appended, waiting for the HW
	// transactional offsets waiting for their marker, per group and producer id
	// (GroupMetadata.pendingTransactionalOffsetCommits), and the TxnOffsetCommit appends
	// waiting for the HW
	txnPending map[string]map[int64]txnOffsets
	txnAppends map[int64]pendingTxnAppend
	stores     map[int64]pendingStore // GroupMetadata appends waiting for the HW
	refSeq     int64
	// consumer-protocol groups (a group id is a classic group or one of these), their
	// snapshot appends waiting for the HW, and the tokens that tell their armed timers
	// from cancelled or replaced ones (never reset, so a timer armed before a crash or a
	// resignation never matches)
	consumerGroups map[string]*consumerGroup
	consumerStores map[int64]pendingConsumerStore
	timerSeq       int64
	bodies         commitBodies // the last commit's record body of each partition (commit_bodies.go)
}

// committed is a cached offset and where its record lies in __consumer_offsets.
type committed struct {
	Offset, RecordOffset int64
}

type pendingCommit struct {
	From string
	Req  protocol.OffsetCommitRequest
	Base int64 // the offset of the first record in __consumer_offsets
}

// New makes a coordinator with no groups.
func New(cfg Config) Coordinator {
	c := Coordinator{cfg: cfg}
	c.Reset()
	return c
}

// Reset forgets everything (the broker crashed or restarted).
func (c *Coordinator) Reset() {
	c.groups = map[string]*group{}
	c.offsets = map[string]map[protocol.TP]committed{}
	c.pending = map[int64]pendingCommit{}
	c.txnPending = map[string]map[int64]txnOffsets{}
	c.txnAppends = map[int64]pendingTxnAppend{}
	c.stores = map[int64]pendingStore{}
	c.consumerGroups = map[string]*consumerGroup{}
	c.consumerStores = map[int64]pendingConsumerStore{}
	c.bodies = nil
}

// OffsetsPartition is the __consumer_offsets partition a group lives on.
func (c *Coordinator) OffsetsPartition(groupID string) protocol.TP {
	return protocol.OffsetsTP(groupID, c.cfg.OffsetsPartitions)
}

// Clone copies the coordinator.
func (c *Coordinator) Clone() Coordinator {
	n := *c
	n.bodies = nil // a cache, and its maps are not the clone's to add to
	n.groups = make(map[string]*group, len(c.groups))
	for k, g := range c.groups {
		n.groups[k] = g.clone()
	}
	n.offsets = make(map[string]map[protocol.TP]committed, len(c.offsets))
	for k, o := range c.offsets {
		n.offsets[k] = maps.Clone(o)
	}
	n.pending = maps.Clone(c.pending)
	n.txnPending = make(map[string]map[int64]txnOffsets, len(c.txnPending))
	for k, byPID := range c.txnPending {
		m := make(map[int64]txnOffsets, len(byPID))
		for pid, t := range byPID {
			m[pid] = t.clone()
		}
		n.txnPending[k] = m
	}
	n.txnAppends = maps.Clone(c.txnAppends)
	n.stores = maps.Clone(c.stores)
	n.consumerGroups = make(map[string]*consumerGroup, len(c.consumerGroups))
	for k, g := range c.consumerGroups {
		n.consumerGroups[k] = g.clone()
	}
	n.consumerStores = maps.Clone(c.consumerStores)
	return n
}

// Handle takes the group requests; it reports whether m was one.
func (c *Coordinator) Handle(env *sim.Env, h Host, m sim.Message) bool {
	switch p := m.Payload.(type) {
	case protocol.FindCoordinatorRequest:
		env.Send(m.From, c.findCoordinator(h, p.Group))
	case protocol.JoinGroupRequest:
		c.onJoinGroup(env, h, m.From, p)
	case protocol.SyncGroupRequest:
		c.onSyncGroup(env, h, m.From, p)
	case protocol.HeartbeatRequest:
		c.onHeartbeat(env, h, m.From, p)
	case protocol.LeaveGroupRequest:
		c.onLeaveGroup(env, h, m.From, p)
	case protocol.OffsetCommitRequest:
		c.onOffsetCommit(env, h, m.From, p)
	case protocol.TxnOffsetCommitRequest:
		c.onTxnOffsetCommit(env, h, m.From, p)
	case protocol.OffsetFetchRequest:
		c.onOffsetFetch(env, h, m.From, p)
	case protocol.ConsumerGroupHeartbeatRequest:
		c.onConsumerGroupHeartbeat(env, h, m.From, p)
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
	case consumerSessionTimeout:
		c.expireConsumerSession(env, h, t)
	case consumerRebalanceTimeout:
		c.expireConsumerRebalance(env, h, t)
	default:
		return false
	}
	return true
}

// OnElection is called when the broker becomes leader of a __consumer_offsets
// partition: the coordinator loads that partition's groups and their offsets from the
// whole log, as GroupMetadataManager.doLoadGroupsAndOffsets reads it to its end —
// records of commits that failed or timed out included — transactional offsets by their
// markers, in log order (loadBatch), and each group's members from its last
// GroupMetadata record (loadGroups), or, for a consumer-protocol group, from its last
// ConsumerGroupSnapshot (loadConsumerGroups): whichever of the two kinds a group id
// was stored as last is what it is.
func (c *Coordinator) OnElection(env *sim.Env, tp protocol.TP, log *storage.Log) {
	loaded := map[string]protocol.GroupMetadata{}
	consumers := map[string]protocol.ConsumerGroupSnapshot{}
	for _, b := range log.Read(0, log.LEO()) {
		c.loadBatch(tp, b)
		if b.Control {
			continue
		}
		for _, r := range b.Records {
			switch body := r.Body.(type) {
			case protocol.GroupMetadata:
				if c.OffsetsPartition(body.Group) == tp {
					loaded[body.Group] = body
					delete(consumers, body.Group)
				}
			case protocol.ConsumerGroupSnapshot:
				if c.OffsetsPartition(body.Group) == tp {
					consumers[body.Group] = body
					delete(loaded, body.Group)
				}
			}
		}
	}
	c.loadGroups(env, loaded)
	c.loadConsumerGroups(env, consumers)
}

// OnResignation is called when the broker stops leading a __consumer_offsets partition:
// the groups living on it, and their cached offsets, go with it
// (GroupMetadataManager.removeGroupsForPartition).
func (c *Coordinator) OnResignation(env *sim.Env, tp protocol.TP) {
	for _, name := range slices.Sorted(maps.Keys(c.groups)) {
		if c.OffsetsPartition(name) == tp {
			// GroupCoordinator.onGroupUnloaded: members waiting for their assignment are
			// told to find the new coordinator.
			c.groups[name].abortSyncs(env, protocol.ErrNotCoordinator)
			delete(c.groups, name)
		}
	}
	for name := range c.consumerGroups {
		if c.OffsetsPartition(name) == tp {
			// Their snapshot appends in flight fail with the partition, and the members
			// waiting on them hear NOT_COORDINATOR (consumerStoreDone).
			delete(c.consumerGroups, name)
		}
	}
	for name := range c.offsets {
		if c.OffsetsPartition(name) == tp {
			delete(c.offsets, name)
		}
	}
	for name := range c.txnPending {
		if c.OffsetsPartition(name) == tp {
			delete(c.txnPending, name)
		}
	}
}

// findCoordinator names the leader of the group's partition (KafkaApis
// handleFindCoordinatorRequest).
func (c *Coordinator) findCoordinator(h Host, groupID string) protocol.FindCoordinatorResponse {
	leader := h.Leader(c.OffsetsPartition(groupID))
	if leader == "" {
		return protocol.FindCoordinatorResponse{Err: protocol.ErrCoordinatorNotAvailable}
	}
	return protocol.FindCoordinatorResponse{Coordinator: leader}
}

// isCoordinator reports whether this broker leads the group's partition
// (GroupCoordinator.isCoordinatorForGroup).
func (c *Coordinator) isCoordinator(h Host, groupID string) bool {
	return h.IsLeader(c.OffsetsPartition(groupID))
}

// memberNames lists a group's members, sorted.
func (g *group) memberNames() []string { return slices.Sorted(maps.Keys(g.Members)) }
