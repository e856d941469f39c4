package server

import (
	"testing"

	"deliverylab/core/kafka/controller"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// client is a bare test client: it sends one acks=all produce request and records the
// answers.
type client struct {
	to      string
	answers []protocol.ProducePartitionResponse
}

func (c *client) Name() string { return "client" }
func (c *client) Start(env *sim.Env) {
	env.Send(c.to, protocol.ProduceRequest{ReqID: 1, Acks: protocol.AcksAll, TimeoutMs: 30000, Partitions: []protocol.ProducePartition{
		{TP: protocol.TP{Topic: "t"}, Batch: protocol.NewBatch([]protocol.Record{protocol.DataRecord("c#1", "", "")})}}})
}
func (c *client) Receive(_ *sim.Env, m sim.Message) {
	if r, ok := m.Payload.(protocol.ProduceResponse); ok {
		c.answers = append(c.answers, r.Partitions...)
	}
}
func (c *client) Fire(*sim.Env, sim.Payload) {}
func (c *client) Crash()                     {}
func (c *client) Clone() sim.Node            { n := *c; return &n }

// R5: the ISR shrinks below min.insync.replicas after the HW covered an acks=all batch but
// before the purgatory answered it: the answer is NOT_ENOUGH_REPLICAS_AFTER_APPEND and
// the record stays in the log.
func TestNotEnoughReplicasAfterAppend(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MinInsyncReplicas = 2
	tp := protocol.TP{Topic: "t"}
	w := sim.NewWorld(sim.Config{Seed: 1, LatencyMs: 5})
	brokers := []string{"broker-1", "broker-2"}
	w.Add(controller.New(controller.Config{BrokerSessionTimeoutMs: 9000, BrokerHeartbeatIntervalMs: 2000}, brokers,
		[]protocol.PartitionState{{TP: tp, Replicas: brokers, Leader: "broker-1", ISR: brokers}}), 0)
	var leader *Broker
	for _, name := range brokers {
		b := NewBroker(name, cfg)
		b.HostReplica(tp)
		w.Add(b, 0)
		if leader == nil {
			leader = b
		}
	}
	c := &client{to: "broker-1"}
	w.Add(c, 20)

	covered := func() bool {
		ops := leader.replicas.produces.ops
		return len(ops) == 1 && leader.replicas.partitions[tp].HW > ops[0].Parts[0].LastOffset
	}
	for !covered() {
		require.True(t, w.Step(), "the HW never covered the batch")
	}
	// Between the HW moving and the purgatory check, the controller's shrink lands.
	st := leader.replicas.meta[tp].Clone()
	st.ISR = []string{"broker-1"}
	st.PartitionEpoch++
	w.Act("broker-1", func(env *sim.Env) { leader.replicas.applyMetadata(env, leader, []protocol.PartitionState{st}) })
	w.RunUntil(w.NowMs()+50, nil)

	require.Len(t, c.answers, 1)
	assert.Equal(t, protocol.ErrNotEnoughReplicasAfterAppend, c.answers[0].Err)
	assert.Equal(t, int64(1), leader.replicas.partitions[tp].LEO(), "the record stays in the log: a blind retry duplicates it")
}
