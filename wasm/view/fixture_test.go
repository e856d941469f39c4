package view

import (
	"fmt"

	"deliverylab/core/fate"
	"deliverylab/core/play"
	"deliverylab/core/show"
)

// cluster is a hand-made state shaped like the acks scenes: one producer, a controller,
// three brokers replicating orders-0 (broker-1 leads), one consumer and a database.
func cluster(records int) play.State {
	recs := make([]play.RecordView, records)
	for i := range recs {
		recs[i] = play.RecordView{Offset: int64(i), Kind: show.Data, Msg: fmt.Sprintf("p1#%d", i+1), Epoch: 1}
	}
	replica := func(leader bool, hw int64) []play.ReplicaState {
		return []play.ReplicaState{{Partition: "orders-0", Leader: leader, Epoch: 1,
			LEO: int64(records), HW: hw, ISR: []string{"broker-1", "broker-2", "broker-3"}, Records: recs}}
	}
	return play.State{
		NowMs: 10,
		Nodes: []play.NodeState{
			{Name: "p1", Kind: "producer", Up: true, Status: fate.Because(fate.StatusSent, "sent", "3", "count", "10", "acked", "2")},
			{Name: "controller", Kind: "controller", Up: true},
			{Name: "broker-1", Kind: "broker", Up: true, Partitions: replica(true, int64(records)-1)},
			{Name: "broker-2", Kind: "broker", Up: true, Partitions: replica(false, int64(records)-1)},
			{Name: "broker-3", Kind: "broker", Up: false, Partitions: replica(false, 0)},
			{Name: "c1", Kind: "consumer", Up: true},
			{Name: "db", Kind: "sink", Up: true, Rows: []string{"p1#1", "p1#2", "p1#2"}},
		},
		InFlight: []play.Flight{
			{ID: 7, From: "p1", To: "broker-1", Kind: "Produce", Label: "p1#3", SentMs: 8, ArriveMs: 12},
			{ID: 8, From: "broker-2", To: "broker-1", Kind: "Fetch", SentMs: 9, ArriveMs: 11},
		},
	}
}

// tm is the type scale of the smallest canvas the tests lay out (764×538: base 14).
var tm = MetricsFor(764, 538, false)
