package protocol

import (
	"fmt"
	"strconv"
	"strings"
)

// FindCoordinatorRequest asks any broker which broker coordinates a group, or (KeyType
// TransactionKey) a transactional id: the leader of its __transaction_state partition.
type FindCoordinatorRequest struct {
	request
	background
	Group           string
	KeyType         CoordinatorKey
	TransactionalID string // with KeyType TransactionKey
}

func (FindCoordinatorRequest) Kind() string { return "FindCoordinator" }
func (m FindCoordinatorRequest) Describe() string {
	if m.KeyType == TransactionKey {
		return "FindCoordinator txn " + m.TransactionalID
	}
	return "FindCoordinator " + m.Group
}

// FindCoordinatorResponse names the coordinator: the leader of the group's
// __consumer_offsets partition.
type FindCoordinatorResponse struct {
	background
	Err         Error
	Coordinator string
}

func (FindCoordinatorResponse) Kind() string { return "FindCoordinatorResponse" }
func (m FindCoordinatorResponse) Describe() string {
	if m.Err != "" {
		return "FindCoordinatorResponse " + m.Err.String()
	}
	return "FindCoordinatorResponse " + m.Coordinator
}

// JoinGroupRequest joins (or rejoins) a consumer group.
type JoinGroupRequest struct {
	request
	Group              string
	Member             string // the member id
	ClientID           string // client.id: the application's name
	Topics             []string
	SessionTimeoutMs   int64
	RebalanceTimeoutMs int64 // max.poll.interval.ms: how long a rebalance may wait for the member
}

func (JoinGroupRequest) Kind() string { return "JoinGroup" }
func (m JoinGroupRequest) Describe() string {
	return fmt.Sprintf("JoinGroup %s member=%s", m.Group, m.Member)
}

// JoinGroupResponse ends the join phase of a rebalance.
type JoinGroupResponse struct {
	Err        Error
	Generation int32
}

func (JoinGroupResponse) Kind() string { return "JoinGroupResponse" }
func (m JoinGroupResponse) Describe() string {
	if m.Err != "" {
		return "JoinGroupResponse " + m.Err.String()
	}
	return fmt.Sprintf("JoinGroupResponse generation=%d", m.Generation)
}

// SyncGroupRequest fetches the member's assignment for a generation.
type SyncGroupRequest struct {
	request
	Group      string
	Member     string
	Generation int32
}

func (SyncGroupRequest) Kind() string { return "SyncGroup" }
func (m SyncGroupRequest) Describe() string {
	return fmt.Sprintf("SyncGroup %s member=%s gen=%d", m.Group, m.Member, m.Generation)
}

// SyncGroupResponse carries the assignment (range assignor, computed by the coordinator
// on the group leader's behalf).
type SyncGroupResponse struct {
	Err        Error
	Generation int32
	Assigned   []TP
}

func (SyncGroupResponse) Kind() string { return "SyncGroupResponse" }
func (m SyncGroupResponse) Describe() string {
	if m.Err != "" {
		return "SyncGroupResponse " + m.Err.String()
	}
	return fmt.Sprintf("SyncGroupResponse gen=%d [%s]", m.Generation, TPsText(m.Assigned))
}

// HeartbeatRequest keeps a member alive in its group.
type HeartbeatRequest struct {
	request
	background
	Group      string
	Member     string
	Generation int32
}

func (HeartbeatRequest) Kind() string       { return "Heartbeat" }
func (m HeartbeatRequest) Describe() string { return "Heartbeat " + m.Group + " " + m.Member }

// HeartbeatResponse tells a member whether it must rejoin.
type HeartbeatResponse struct {
	background
	Err Error
}

func (HeartbeatResponse) Kind() string       { return "HeartbeatResponse" }
func (m HeartbeatResponse) Describe() string { return "HeartbeatResponse " + m.Err.OrNone() }

// OffsetCommitRequest commits consumed positions. A KIP-848 member sends its member
// epoch as the generation (GenerationIdOrMemberEpoch), -1 when it has none.
type OffsetCommitRequest struct {
	request
	ReqID      int64
	Group      string
	Member     string
	Generation int32
	Offsets    []TPOffset
	Msgs       []string // identities of the records the commit covers, for the ledger
}

func (OffsetCommitRequest) Kind() string       { return "OffsetCommit" }
func (m OffsetCommitRequest) Describe() string { return string(m.AppendDescribe(nil)) }

// AppendDescribe implements sim.AppendDescriber: a consumer committing often (auto-commit
// at a short interval) sends one of these with every poll.
func (m OffsetCommitRequest) AppendDescribe(b []byte) []byte {
	b = strconv.AppendInt(append(b, "OffsetCommit req="...), m.ReqID, 10)
	b = append(append(append(b, ' '), m.Group...), ' ')
	return appendOffsets(b, m.Offsets)
}
func (OffsetCommitRequest) Label() string { return "commit" }

// OffsetCommitResponse answers a commit once it is replicated.
type OffsetCommitResponse struct {
	ReqID int64
	Err   Error
}

func (OffsetCommitResponse) Kind() string       { return "OffsetCommitResponse" }
func (m OffsetCommitResponse) Describe() string { return string(m.AppendDescribe(nil)) }

// AppendDescribe implements sim.AppendDescriber (the answer to every commit).
func (m OffsetCommitResponse) AppendDescribe(b []byte) []byte {
	b = strconv.AppendInt(append(b, "OffsetCommitResponse req="...), m.ReqID, 10)
	return append(append(b, ' '), m.Err.OrNone()...)
}

// OffsetFetchRequest reads committed positions. RequireStable (KIP-447, OffsetFetch v7):
// a partition with a commit not yet stable — a transactional one waiting for its marker,
// or a plain one waiting for replication — is answered UNSTABLE_OFFSET_COMMIT rather
// than with its last stable offset. The classic consumer always sets it
// (ConsumerCoordinator.sendOffsetFetchRequest); the trace leaves it out.
//
// Member and MemberEpoch (OffsetFetch v9+) are a KIP-848 member's: the coordinator answers
// only the member's current epoch (STALE_MEMBER_EPOCH otherwise). A classic member and a
// consumer without group management send no member ("").
type OffsetFetchRequest struct {
	request
	Group         string
	TPs           []TP
	RequireStable bool
	Member        string
	MemberEpoch   int32
}

func (OffsetFetchRequest) Kind() string       { return "OffsetFetch" }
func (m OffsetFetchRequest) Describe() string { return "OffsetFetch " + m.Group + " " + TPsText(m.TPs) }

// OffsetFetchResponse lists committed positions; -1 means none was committed. Errs are
// the partitions answered with an error of their own (UNSTABLE_OFFSET_COMMIT), offset -1
// in Offsets (OffsetFetchResponse's per-partition error code).
type OffsetFetchResponse struct {
	Err     Error
	Offsets []TPOffset
	Errs    []TPError
}

func (OffsetFetchResponse) Kind() string { return "OffsetFetchResponse" }
func (m OffsetFetchResponse) Describe() string {
	if m.Err != "" {
		return "OffsetFetchResponse " + m.Err.String()
	}
	if len(m.Errs) == 0 {
		return "OffsetFetchResponse " + OffsetsText(m.Offsets)
	}
	parts := make([]string, len(m.Offsets))
	for i, o := range m.Offsets {
		parts[i] = o.String()
		for _, e := range m.Errs {
			if e.TP == o.TP {
				parts[i] = o.TP.String() + "=" + e.Err.String()
			}
		}
	}
	return "OffsetFetchResponse " + strings.Join(parts, ",")
}
