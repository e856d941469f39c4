package server

import (
	"fmt"
	"testing"

	"deliverylab/core/kafka/controller"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// client is a bare test client: it sends one produce request and records the answers.
type client struct {
	to        string
	req       protocol.ProduceRequest
	responses int
	answers   []protocol.ProducePartitionResponse
}

// produce is an acks=all request of one record for each partition.
func produce(tps ...protocol.TP) protocol.ProduceRequest {
	req := protocol.ProduceRequest{ReqID: 1, Acks: protocol.AcksAll, TimeoutMs: 30000}
	for i, tp := range tps {
		batch := protocol.NewBatch([]protocol.Record{protocol.DataRecord(fmt.Sprintf("c#%d", i+1), "", "")})
		req.Partitions = append(req.Partitions, protocol.ProducePartition{TP: tp, Batch: batch})
	}
	return req
}

func (c *client) Name() string       { return "client" }
func (c *client) Start(env *sim.Env) { env.Send(c.to, c.req) }
func (c *client) Receive(_ *sim.Env, m sim.Message) {
	if r, ok := m.Payload.(protocol.ProduceResponse); ok {
		c.responses++
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
	w, leader := twoBrokers(cfg, protocol.PartitionState{TP: tp, Leader: "broker-1"})
	c := &client{to: "broker-1", req: produce(tp)}
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

// twoBrokers is a controller and two brokers replicating the given partitions (each
// with both brokers as replicas, its Leader first); it returns broker-1.
func twoBrokers(cfg Config, parts ...protocol.PartitionState) (*sim.World, *Broker) {
	w := sim.NewWorld(sim.Config{Seed: 1, LatencyMs: 5})
	brokers := []string{"broker-1", "broker-2"}
	for i, p := range parts {
		other := brokers[0]
		if p.Leader == other {
			other = brokers[1]
		}
		parts[i].Replicas = []string{p.Leader, other}
		parts[i].ISR = []string{p.Leader, other}
	}
	w.Add(controller.New(controller.Config{BrokerSessionTimeoutMs: 9000, BrokerHeartbeatIntervalMs: 2000}, brokers, parts), 0)
	var first *Broker
	for _, name := range brokers {
		b := NewBroker(name, cfg)
		for _, p := range parts {
			b.HostReplica(p.TP)
		}
		w.Add(b, 0)
		if first == nil {
			first = b
		}
	}
	return w, first
}

// A produce request carries batches for several partitions, as Kafka's does: each is
// appended (or refused) on its own, and one response answers them all once the HW covers
// every appended batch.
func TestProduceRequestForSeveralPartitions(t *testing.T) {
	a, b, c := protocol.TP{Topic: "t", Partition: 0}, protocol.TP{Topic: "t", Partition: 1}, protocol.TP{Topic: "t", Partition: 2}
	w, leader := twoBrokers(DefaultConfig(), protocol.PartitionState{TP: a, Leader: "broker-1"},
		protocol.PartitionState{TP: b, Leader: "broker-2"}, protocol.PartitionState{TP: c, Leader: "broker-1"})
	cl := &client{to: "broker-1", req: produce(a, b, c)}
	w.Add(cl, 20)
	w.RunUntil(2000, nil)

	require.Equal(t, 1, cl.responses, "one response for the whole request")
	require.Len(t, cl.answers, 3)
	assert.Equal(t, protocol.ProducePartitionResponse{TP: a, BaseOffset: 0}, cl.answers[0])
	assert.Equal(t, protocol.ProducePartitionResponse{TP: b, Err: protocol.ErrNotLeaderOrFollower, BaseOffset: -1}, cl.answers[1],
		"broker-1 does not lead t-1: that partition alone is refused")
	assert.Equal(t, protocol.ProducePartitionResponse{TP: c, BaseOffset: 0}, cl.answers[2])
	for _, tp := range []protocol.TP{a, c} {
		assert.Equal(t, int64(1), leader.replicas.partitions[tp].HW, "%s is replicated", tp)
	}
	assert.Equal(t, int64(0), leader.replicas.partitions[b].LEO(), "nothing appended to the partition it does not lead")
}
