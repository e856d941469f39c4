package server

import (
	"testing"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// markerClient sends one WriteTxnMarkers request and records the answer.
type markerClient struct {
	req     protocol.WriteTxnMarkersRequest
	answers []protocol.WriteTxnMarkersResponse
}

func (c *markerClient) Name() string       { return "coordinator" }
func (c *markerClient) Start(env *sim.Env) { env.Send("broker-1", c.req) }
func (c *markerClient) Receive(_ *sim.Env, m sim.Message) {
	if r, ok := m.Payload.(protocol.WriteTxnMarkersResponse); ok {
		c.answers = append(c.answers, r)
	}
}
func (c *markerClient) Fire(*sim.Env, sim.Payload) {}
func (c *markerClient) Crash()                     {}
func (c *markerClient) Clone() sim.Node            { n := *c; return &n }

// A marker is answered only once the HW has passed it (acks=all): until the follower has
// it the answer waits, and the LSO stays at the transaction's first offset; the canvas
// shows the LSO on the leader. A partition the broker does not lead is refused.
func TestMarkerWaitsForTheHighWatermark(t *testing.T) {
	tp := protocol.TP{Topic: "t"}
	other := protocol.TP{Topic: "u"}
	cfg := DefaultConfig()
	cfg.TransactionPartitionVerificationEnable = false // no coordinator here to verify the batch (KIP-890)
	w, leader := twoBrokers(cfg, protocol.PartitionState{TP: tp, Leader: "broker-1"}, protocol.PartitionState{TP: other, Leader: "broker-2"})
	b := protocol.NewBatch([]protocol.Record{protocol.DataRecord("c#1", "", "")})
	b.ProducerID, b.ProducerEpoch, b.BaseSequence, b.Transactional = 7, 0, 0, true
	w.Add(&client{to: "broker-1", req: protocol.ProduceRequest{ReqID: 1, Acks: protocol.AcksAll, TimeoutMs: 30000,
		Partitions: []protocol.ProducePartition{{TP: tp, Batch: b}}}}, 20)
	w.RunUntil(100, nil)
	p := leader.replicas.partitions[tp]
	require.Equal(t, int64(1), p.HW)
	assert.Equal(t, int64(0), p.LastStableOffset(), "the open transaction holds the LSO at its first offset")

	c := &markerClient{req: protocol.WriteTxnMarkersRequest{ReqID: 3, Markers: []protocol.TxnMarker{
		{ProducerID: 7, Commit: true, Partitions: []protocol.TP{tp, other}}}}}
	w.Add(c, 110)
	w.RunUntil(118, nil) // appended at 115; the follower has not fetched it yet
	require.Equal(t, int64(2), p.LEO(), "the marker is appended")
	assert.Empty(t, c.answers, "and not answered before the HW passes it")
	assert.Equal(t, int64(0), p.LastStableOffset())
	l := leader.Show(w).Logs
	require.NotEmpty(t, l)
	assert.True(t, l[0].HasLSO)
	assert.Equal(t, int64(0), l[0].LSO)

	w.RunUntil(300, nil)
	require.Len(t, c.answers, 1)
	assert.Equal(t, []protocol.TxnMarkerResult{{ProducerID: 7, TP: tp}, {ProducerID: 7, TP: other, Err: protocol.ErrNotLeaderOrFollower}},
		c.answers[0].Results)
	assert.Equal(t, int64(2), p.LastStableOffset(), "the HW passed the COMMIT: the LSO follows it")
}
