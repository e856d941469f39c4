package protocol

import (
	"fmt"
	"strings"
)

// The new consumer group protocol (KIP-848, group.protocol=consumer; Kafka 4.x): one
// request, ConsumerGroupHeartbeat (api key 68), joins, heartbeats, acknowledges
// revocations and leaves, and the coordinator assigns the partitions itself.

// Member epochs a member sends besides its own (ConsumerMembershipManager).
const (
	JoinGroupEpoch  int32 = 0  // joining, or rejoining after it was fenced
	LeaveGroupEpoch int32 = -1 // a dynamic member leaving
)

// ConsumerGroupHeartbeatRequest is a member's heartbeat. A field the member leaves out
// (null on the wire) means "unchanged": the subscription (HasTopics), the rebalance
// timeout (-1) and the partitions the member owns (HasOwned). A joining member sends all
// of them, the owned partitions empty; after that, the client sends a field only when it
// changed since the last heartbeat sent, or after an error (ConsumerHeartbeatRequestManager.
// HeartbeatState.buildRequestData). The owned partitions are the acknowledgement of a
// reconciliation: a revoked partition the request no longer lists is released.
type ConsumerGroupHeartbeatRequest struct {
	request
	Group              string
	Member             string // chosen by the client (a UUID in Kafka), kept for its lifetime
	Epoch              int32  // the member epoch; JoinGroupEpoch or LeaveGroupEpoch
	RebalanceTimeoutMs int64  // max.poll.interval.ms; -1: unchanged
	HasTopics          bool
	Topics             []string // the subscription, with HasTopics
	HasOwned           bool
	Owned              []TP // the partitions the member owns, with HasOwned
}

// Background: a heartbeat that only keeps the member alive is background traffic; one
// that joins, leaves or acknowledges an assignment is the rebalance itself.
func (m ConsumerGroupHeartbeatRequest) Background() bool {
	return m.Epoch > JoinGroupEpoch && !m.HasOwned
}

func (ConsumerGroupHeartbeatRequest) Kind() string { return "ConsumerGroupHeartbeat" }
func (m ConsumerGroupHeartbeatRequest) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ConsumerGroupHeartbeat %s member=%s epoch=%d", m.Group, m.Member, m.Epoch)
	if m.HasOwned {
		b.WriteString(" owned=[" + TPsText(m.Owned) + "]")
	}
	return b.String()
}

// ConsumerGroupHeartbeatResponse gives the member its epoch and, when the assignment
// changed (or the member joined or sent a full heartbeat), the whole of the partitions it
// may own now (HasAssignment): never one another member has yet to release.
type ConsumerGroupHeartbeatResponse struct {
	Err                 Error
	Member              string
	Epoch               int32
	HeartbeatIntervalMs int64
	HasAssignment       bool
	Assignment          []TP
}

// Background: an answer without an assignment only keeps the member alive.
func (m ConsumerGroupHeartbeatResponse) Background() bool { return !m.HasAssignment && m.Err == "" }

func (ConsumerGroupHeartbeatResponse) Kind() string { return "ConsumerGroupHeartbeatResponse" }
func (m ConsumerGroupHeartbeatResponse) Describe() string {
	if m.Err != "" {
		return "ConsumerGroupHeartbeatResponse " + m.Err.String()
	}
	s := fmt.Sprintf("ConsumerGroupHeartbeatResponse epoch=%d", m.Epoch)
	if m.HasAssignment {
		s += " [" + TPsText(m.Assignment) + "]"
	}
	return s
}

// Label is the heartbeat's text on the canvas: a join, a leave, the acknowledgement of
// an assignment (the partitions the member owns), or a plain heartbeat.
func (m ConsumerGroupHeartbeatRequest) Label() string {
	switch {
	case m.Epoch == JoinGroupEpoch:
		return "join"
	case m.Epoch == LeaveGroupEpoch:
		return "leave"
	case m.HasOwned:
		return "owns [" + TPsText(m.Owned) + "]"
	}
	return "heartbeat"
}

// Label is the answer's text on the canvas: the member epoch, and the assignment when
// it carries one.
func (m ConsumerGroupHeartbeatResponse) Label() string {
	if m.Err != "" {
		return m.Err.String()
	}
	s := fmt.Sprintf("epoch %d", m.Epoch)
	if m.HasAssignment {
		s += " [" + TPsText(m.Assignment) + "]"
	}
	return s
}
