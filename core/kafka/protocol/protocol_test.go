package protocol

import (
	"testing"

	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
)

// What a viewer need not watch, and what keeps a run from settling, is said by the
// messages themselves (sim.Background).
func TestBackgroundTraffic(t *testing.T) {
	batch := NewBatch([]Record{DataRecord("p1#1", "", "")})
	for _, p := range []sim.Payload{BrokerHeartbeat{}, BrokerHeartbeatResponse{}, HeartbeatRequest{}, HeartbeatResponse{},
		MetadataRequest{}, MetadataResponse{}, ApiVersionsRequest{}, ApiVersionsResponse{}, FindCoordinatorRequest{},
		FindCoordinatorResponse{}, FetchRequest{}, FetchResponse{HW: 3}} {
		assert.True(t, sim.IsBackground(p), p.Kind())
	}
	for _, p := range []sim.Payload{ProduceRequest{}, ProduceResponse{}, MetadataUpdate{}, BrokerRegistration{}, BrokerRegistrationResponse{}, AlterPartition{},
		FetchResponse{Batches: []RecordBatch{batch}}, FetchResponse{Err: ErrNotLeaderOrFollower}, FetchResponse{Diverging: true},
		OffsetCommitRequest{}, JoinGroupRequest{}} {
		assert.False(t, sim.IsBackground(p), p.Describe())
	}
	assert.True(t, sim.IsBackground(sim.Refused{Orig: HeartbeatRequest{}}), "a refused request is as background as it was")
	assert.False(t, sim.IsBackground(sim.Refused{Orig: ProduceRequest{}}))
}

func TestLabelsAndDescriptions(t *testing.T) {
	three := NewBatch([]Record{DataRecord("p1#1", "", ""), DataRecord("p1#2", "", ""), DataRecord("p1#3", "", "")})
	req := ProduceRequest{ReqID: 4, Acks: AcksLeader, Partitions: []ProducePartition{{TP: TP{Topic: "orders"}, Batch: three}}}
	assert.Equal(t, "p1#1..#3", sim.Label(req))
	assert.Equal(t, "Produce req=4 orders-0 [p1#1..p1#3] acks=1", req.Describe())
	assert.Equal(t, "ack @7", sim.Label(ProduceResponse{Partitions: []ProducePartitionResponse{{BaseOffset: 7}}}))
	assert.Equal(t, "NOT_ENOUGH_REPLICAS", sim.Label(ProduceResponse{Partitions: []ProducePartitionResponse{{Err: ErrNotEnoughReplicas}}}))
	assert.Equal(t, "fetch @2", sim.Label(FetchRequest{FetchOffset: 2}))
	assert.Equal(t, "Heartbeat", sim.Label(HeartbeatRequest{}), "a payload without a label shows its kind")
	commit := Record{Body: OffsetCommit{Group: "g", TP: TP{Topic: "orders"}, Offset: 4}}
	assert.Equal(t, "commit g orders-0=4", commit.Body.Describe())
	assert.Equal(t, "", commit.Msg(), "an internal record has no application identity")
}
