package protocol

import (
	"fmt"
	"strings"
)

// MemberState is where a consumer-protocol member stands in its reconciliation towards
// its target assignment, as the coordinator sees it (Kafka's
// modern/consumer/MemberState; UNKNOWN, seen only after a classic-to-consumer conversion,
// is left out).
type MemberState uint8

// The member states.
const (
	// MemberStable: the member owns what it may own of its target at its epoch.
	MemberStable MemberState = iota
	// MemberUnrevokedPartitions: the member must give up partitions before its epoch
	// moves on and before it gets any new one.
	MemberUnrevokedPartitions
	// MemberUnreleasedPartitions: the member is at the new epoch, but part of its target
	// is still held by another member that has not released it yet.
	MemberUnreleasedPartitions
)

func (s MemberState) String() string {
	switch s {
	case MemberUnrevokedPartitions:
		return "UNREVOKED_PARTITIONS"
	case MemberUnreleasedPartitions:
		return "UNRELEASED_PARTITIONS"
	}
	return "STABLE"
}

// ConsumerGroupSnapshot is a record of __consumer_offsets: a consumer group's whole
// state (KIP-848) as its coordinator stored it after a heartbeat or a fence changed it.
// Kafka writes the same state as separate records — ConsumerGroupMetadata (the group
// epoch), ConsumerGroupMemberMetadata (a member's subscription), the target-assignment
// metadata and per-member records, ConsumerGroupCurrentMemberAssignment (a member's
// epochs, state and partitions) — and tombstones for a removed member; the playground
// writes one snapshot of the group instead, all at once as Kafka's are, and a
// coordinator that loads the partition takes the last one of each group
// (GroupMetadataManager.replay, onLoaded). A removed member is absent from the next one.
type ConsumerGroupSnapshot struct {
	Group                 string
	GroupEpoch            int32
	AssignmentEpoch       int32 // the group epoch the target assignment was computed for
	AssignmentTimestampMs int64 // when it was computed; 0: compute at the next heartbeat
	// MetadataHash stands for Kafka's metadata hash of the subscribed topics: their
	// partition counts, "orders:2,payments:3". A change bumps the group epoch.
	MetadataHash string
	Members      []ConsumerGroupMemberSnapshot // sorted by id
}

// ConsumerGroupMemberSnapshot is one member in a ConsumerGroupSnapshot.
type ConsumerGroupMemberSnapshot struct {
	ID string
	// ClientHost is the node the member's heartbeats come from (Kafka's clientHost).
	ClientHost         string
	JoinOrder          int64 // the member's place in the assignor's member order
	Epoch              int32
	PreviousEpoch      int32
	State              MemberState
	RebalanceTimeoutMs int64
	Topics             []string  // the subscription, sorted
	Assigned           []TPEpoch // sorted
	PendingRevocation  []TPEpoch // sorted
	Target             []TP      // the member's target assignment, sorted
}

// TPEpoch is a partition with the epoch it was assigned to its member in.
type TPEpoch struct {
	TP    TP
	Epoch int32
}

func (s ConsumerGroupSnapshot) Describe() string {
	ids := make([]string, len(s.Members))
	for i, m := range s.Members {
		ids[i] = fmt.Sprintf("%s@%d", m.ID, m.Epoch)
	}
	return fmt.Sprintf("consumer group %s epoch=%d assignment=%d members=[%s]", s.Group, s.GroupEpoch, s.AssignmentEpoch,
		strings.Join(ids, ","))
}
