package server

import (
	"testing"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
)

// R1 as ReplicaState.isCaughtUp has it: a follower whose LEO is the leader's stays in the
// ISR of an idle partition however long it stays silent; once the leader appends what it
// does not have, replica.lag.time.max.ms counts again and it is shrunk out.
func TestSilentFollowerWithTheWholeLogStaysInSync(t *testing.T) {
	cfg := DefaultConfig()
	cfg.ReplicaLagTimeMaxMs = 1000
	tp := protocol.TP{Topic: "t"}
	w, leader := twoBrokers(cfg, protocol.PartitionState{TP: tp, Leader: "broker-1"})
	w.Schedule(100, sim.Fault{Kind: sim.FaultCut, From: "broker-1", To: "broker-2"})
	w.RunUntil(5000, nil)
	p := leader.replicas.partitions[tp]
	assert.Equal(t, []string{"broker-1", "broker-2"}, p.state.ISR, "nothing to catch up on: broker-2 is in sync")

	w.Add(&client{to: "broker-1", req: protocol.ProduceRequest{ReqID: 1, Acks: protocol.AcksLeader, TimeoutMs: 30000,
		Partitions: []protocol.ProducePartition{{TP: tp, Batch: protocol.NewBatch([]protocol.Record{protocol.DataRecord("c#1", "", "")})}}}}, 5000)
	w.RunUntil(7000, nil)
	assert.Equal(t, []string{"broker-1"}, p.state.ISR, "broker-2 lacks c#1 for longer than replica.lag.time.max.ms")
}
