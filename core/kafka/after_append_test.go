package kafka

import (
	"testing"

	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// client is a bare test client: it sends one produce request and records the answers.
type client struct {
	to      string
	answers []ProduceResponse
}

func (c *client) Name() string { return "client" }
func (c *client) Start(env *sim.Env) {
	env.Send(c.to, ProduceRequest{ReqID: 1, TP: TP{Topic: "t"}, Acks: -1, TimeoutMs: 30000, Records: []Record{{Msg: "c#1"}}})
}
func (c *client) Receive(_ *sim.Env, m sim.Message) {
	if r, ok := m.Payload.(ProduceResponse); ok {
		c.answers = append(c.answers, r)
	}
}
func (c *client) Fire(*sim.Env, sim.Payload) {}
func (c *client) Crash()                     {}
func (c *client) Clone() sim.Node            { n := *c; return &n }

// R5: the ISR shrinks below min.insync.replicas after the HW covered an acks=all batch but
// before the purgatory answered it: the answer is NOT_ENOUGH_REPLICAS_AFTER_APPEND and
// the record stays in the log.
func TestNotEnoughReplicasAfterAppend(t *testing.T) {
	cfg := DefaultBrokerConfig()
	cfg.MinInsyncReplicas = 2
	tp := TP{Topic: "t"}
	w := sim.NewWorld(sim.Config{Seed: 1, LatencyMs: 5})
	brokers := []string{"broker-1", "broker-2"}
	w.Add(NewController(cfg, brokers, []PartitionState{{TP: tp, Replicas: brokers, Leader: "broker-1", ISR: brokers}}), 0)
	for _, b := range brokers {
		br := NewBroker(b, cfg)
		br.HostReplica(tp)
		w.Add(br, 0)
	}
	c := &client{to: "broker-1"}
	w.Add(c, 20)

	n, _ := w.Node("broker-1")
	leader := n.(*Broker)
	covered := func() bool {
		return len(leader.purgatory) == 1 && leader.replicas[tp].HW > leader.purgatory[0].LastOffset
	}
	for !covered() {
		require.True(t, w.Step(), "the HW never covered the batch")
	}
	// Between the HW moving and the purgatory check, the controller's shrink lands.
	st := leader.meta[tp].clone()
	st.ISR = []string{"broker-1"}
	st.PartitionEpoch++
	w.Act("broker-1", func(env *sim.Env) { leader.onMetadata(env, []PartitionState{st}) })
	w.RunUntil(w.NowMs()+50, nil)

	require.Len(t, c.answers, 1)
	assert.Equal(t, ErrNotEnoughReplicasAfterAppend, c.answers[0].Err)
	assert.Equal(t, int64(1), leader.replicas[tp].LEO(), "the record stays in the log: a blind retry duplicates it")
}
