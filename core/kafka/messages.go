package kafka

import (
	"fmt"
	"strings"
)

// TP names a topic partition.
type TP struct {
	Topic     string
	Partition int32
}

func (tp TP) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

// Record is one entry of a partition log. Msg is the application identity ("p1#3")
// that the ledger follows; internal records (offset commits) have none.
type Record struct {
	Offset int64
	Epoch  int32
	Msg    string
	Key    string
	Value  string
	Commit *OffsetCommitValue // __consumer_offsets records only
}

// OffsetCommitValue is what an offset commit record in __consumer_offsets holds.
type OffsetCommitValue struct {
	Group  string
	TP     TP
	Offset int64
}

func msgsOf(recs []Record) []string {
	var out []string
	for _, r := range recs {
		if r.Msg != "" {
			out = append(out, r.Msg)
		}
	}
	return out
}

func rangeText(recs []Record) string {
	ids := msgsOf(recs)
	switch len(ids) {
	case 0:
		return fmt.Sprintf("%d records", len(recs))
	case 1:
		return ids[0]
	default:
		return ids[0] + ".." + ids[len(ids)-1]
	}
}

type request struct{}

func (request) IsRequest() bool { return true }

// ---- controller <-> brokers ----

// BrokerRegistration is a broker announcing itself to the controller after a (re)start.
type BrokerRegistration struct {
	request
	Broker      string
	Incarnation int64
}

func (BrokerRegistration) Kind() string { return "BrokerRegistration" }
func (m BrokerRegistration) Describe() string {
	return fmt.Sprintf("BrokerRegistration %s inc=%d", m.Broker, m.Incarnation)
}

// BrokerHeartbeat keeps a broker's session with the controller alive.
type BrokerHeartbeat struct {
	request
	Broker      string
	Incarnation int64
}

func (BrokerHeartbeat) Kind() string       { return "BrokerHeartbeat" }
func (m BrokerHeartbeat) Describe() string { return "BrokerHeartbeat " + m.Broker }

// BrokerHeartbeatResponse answers a heartbeat.
type BrokerHeartbeatResponse struct{ Fenced bool }

func (BrokerHeartbeatResponse) Kind() string { return "BrokerHeartbeatResponse" }
func (m BrokerHeartbeatResponse) Describe() string {
	return fmt.Sprintf("BrokerHeartbeatResponse fenced=%v", m.Fenced)
}

// PartitionState is the controller's record of one partition.
type PartitionState struct {
	TP             TP
	Replicas       []string
	Leader         string // "" when offline
	LeaderEpoch    int32
	ISR            []string
	PartitionEpoch int32
}

func (p PartitionState) clone() PartitionState {
	p.Replicas = append([]string(nil), p.Replicas...)
	p.ISR = append([]string(nil), p.ISR...)
	return p
}

func (p PartitionState) describe() string {
	leader := p.Leader
	if leader == "" {
		leader = "none"
	}
	return fmt.Sprintf("%s leader=%s epoch=%d isr=[%s]", p.TP, leader, p.LeaderEpoch, strings.Join(p.ISR, ","))
}

// MetadataUpdate carries partition states from the controller (the KRaft metadata log,
// pushed rather than fetched).
type MetadataUpdate struct {
	Partitions []PartitionState
}

func (MetadataUpdate) Kind() string { return "MetadataUpdate" }
func (m MetadataUpdate) Describe() string {
	parts := make([]string, len(m.Partitions))
	for i, p := range m.Partitions {
		parts[i] = p.describe()
	}
	return "MetadataUpdate " + strings.Join(parts, "; ")
}

// AlterPartition asks the controller to change a partition's ISR (KIP-497).
type AlterPartition struct {
	request
	TP             TP
	Leader         string
	LeaderEpoch    int32
	PartitionEpoch int32
	NewISR         []string
}

func (AlterPartition) Kind() string { return "AlterPartition" }
func (m AlterPartition) Describe() string {
	return fmt.Sprintf("AlterPartition %s isr=[%s]", m.TP, strings.Join(m.NewISR, ","))
}

// ---- clients <-> brokers ----

// MetadataRequest asks a broker where partitions lead.
type MetadataRequest struct {
	request
	Topics []string
}

func (MetadataRequest) Kind() string       { return "Metadata" }
func (m MetadataRequest) Describe() string { return "Metadata " + strings.Join(m.Topics, ",") }

// MetadataResponse is a broker's view of partition leadership.
type MetadataResponse struct {
	Partitions []PartitionState
}

func (MetadataResponse) Kind() string { return "MetadataResponse" }
func (m MetadataResponse) Describe() string {
	parts := make([]string, len(m.Partitions))
	for i, p := range m.Partitions {
		parts[i] = p.describe()
	}
	return "MetadataResponse " + strings.Join(parts, "; ")
}

// ProduceRequest sends one batch to a partition leader.
type ProduceRequest struct {
	request
	ReqID     int64
	TP        TP
	Acks      int // 0, 1 or -1 (all)
	TimeoutMs int64
	Records   []Record
}

func (ProduceRequest) Kind() string { return "Produce" }
func (m ProduceRequest) Describe() string {
	return fmt.Sprintf("Produce req=%d %s [%s] acks=%s", m.ReqID, m.TP, rangeText(m.Records), acksText(m.Acks))
}

// ProduceResponse answers a produce request.
type ProduceResponse struct {
	ReqID      int64
	TP         TP
	Err        string
	BaseOffset int64
}

func (ProduceResponse) Kind() string { return "ProduceResponse" }
func (m ProduceResponse) Describe() string {
	if m.Err != "" {
		return fmt.Sprintf("ProduceResponse req=%d %s %s", m.ReqID, m.TP, m.Err)
	}
	return fmt.Sprintf("ProduceResponse req=%d %s offset=%d", m.ReqID, m.TP, m.BaseOffset)
}

// FetchRequest reads a partition from its leader, for a follower (Replica set) or a
// consumer. Followers send the epoch of their last record so the leader can tell them
// where their log diverges (KIP-320).
type FetchRequest struct {
	request
	ReqID            int64
	TP               TP
	Replica          string // the follower broker, "" for a consumer
	FetchOffset      int64
	LastFetchedEpoch int32
	MaxWaitMs        int64
}

func (FetchRequest) Kind() string { return "Fetch" }
func (m FetchRequest) Describe() string {
	return fmt.Sprintf("Fetch req=%d %s from=%d", m.ReqID, m.TP, m.FetchOffset)
}

// FetchResponse carries records and the leader's high watermark.
type FetchResponse struct {
	ReqID         int64
	TP            TP
	Err           string
	Records       []Record
	HW            int64
	Diverging     bool
	DivergedEpoch int32
	DivergedEnd   int64
}

func (FetchResponse) Kind() string { return "FetchResponse" }
func (m FetchResponse) Describe() string {
	switch {
	case m.Err != "":
		return fmt.Sprintf("FetchResponse req=%d %s %s", m.ReqID, m.TP, m.Err)
	case m.Diverging:
		return fmt.Sprintf("FetchResponse req=%d %s diverging epoch=%d end=%d", m.ReqID, m.TP, m.DivergedEpoch, m.DivergedEnd)
	case len(m.Records) == 0:
		return fmt.Sprintf("FetchResponse req=%d %s empty hw=%d", m.ReqID, m.TP, m.HW)
	}
	return fmt.Sprintf("FetchResponse req=%d %s [%s] @%d hw=%d", m.ReqID, m.TP, rangeText(m.Records), m.Records[0].Offset, m.HW)
}

// ListOffsetsRequest asks a leader for the latest readable offset (auto.offset.reset=latest).
type ListOffsetsRequest struct {
	request
	TP TP
}

func (ListOffsetsRequest) Kind() string       { return "ListOffsets" }
func (m ListOffsetsRequest) Describe() string { return "ListOffsets " + m.TP.String() + " latest" }

// ListOffsetsResponse answers with the high watermark.
type ListOffsetsResponse struct {
	TP     TP
	Err    string
	Offset int64
}

func (ListOffsetsResponse) Kind() string { return "ListOffsetsResponse" }
func (m ListOffsetsResponse) Describe() string {
	if m.Err != "" {
		return "ListOffsetsResponse " + m.TP.String() + " " + m.Err
	}
	return fmt.Sprintf("ListOffsetsResponse %s offset=%d", m.TP, m.Offset)
}

func acksText(a int) string {
	if a == -1 {
		return "all"
	}
	return fmt.Sprint(a)
}

// AlterPartitionResponse answers an AlterPartition with the partition's state after it.
type AlterPartitionResponse struct {
	TP    TP
	Err   string
	State PartitionState
}

func (AlterPartitionResponse) Kind() string { return "AlterPartitionResponse" }
func (m AlterPartitionResponse) Describe() string {
	if m.Err != "" {
		return "AlterPartitionResponse " + m.TP.String() + " " + m.Err
	}
	return "AlterPartitionResponse " + m.State.describe()
}

// ApiVersionsRequest is the first request on a new connection; the client sends nothing
// else to a broker until it is answered.
type ApiVersionsRequest struct{ request }

func (ApiVersionsRequest) Kind() string     { return "ApiVersions" }
func (ApiVersionsRequest) Describe() string { return "ApiVersions" }

// ApiVersionsResponse makes the connection ready.
type ApiVersionsResponse struct{}

func (ApiVersionsResponse) Kind() string     { return "ApiVersionsResponse" }
func (ApiVersionsResponse) Describe() string { return "ApiVersionsResponse" }
