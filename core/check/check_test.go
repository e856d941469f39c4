package check

import (
	"testing"

	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
)

func obs(event string, msgs ...string) sim.Observation {
	return sim.Observation{Event: event, Msgs: msgs}
}

func TestFatesAndVerdict(t *testing.T) {
	l := NewLedger([]sim.Observation{
		obs("sent", "p#1"), obs("sent", "p#2"), obs("sent", "p#3"), obs("sent", "p#4"), obs("sent", "p#5"), obs("sent", "p#6"),
		{Event: "acked", Msgs: []string{"p#1", "p#2", "p#3", "p#4"}, Partition: "t-0", Offset: 0},
		{Event: "failed", Msgs: []string{"p#5"}, Detail: "TimeoutException"},
		{Event: "truncated", Node: "broker-1", Msgs: []string{"p#3"}, AtMs: 42},
	})
	r := l.Judge(Output{Name: "db",
		Effects: map[string]int{"p#1": 1, "p#2": 2},
		Held:    map[string]bool{"p#4": true}, Why: map[string]string{"p#4": "t-0 on broker-2"}})
	fates := map[string]string{}
	for _, f := range r.Fates {
		fates[f.Msg] = f.Fate
	}
	assert.Equal(t, map[string]string{"p#1": Delivered, "p#2": Duplicated, "p#3": Lost, "p#4": Unavailable, "p#5": Failed, "p#6": Failed}, fates)
	assert.Equal(t, "none", r.Verdict)
	assert.Equal(t, 6, r.Counts["sent"])
	assert.Equal(t, 4, r.Counts["acked"])
	assert.Contains(t, r.Fates[2].En, "truncated from broker-1's log at 42 ms")
	assert.NotEmpty(t, r.Fates[2].Zh)

	assert.Equal(t, "exactly-once", Verdict(0, 0))
	assert.Equal(t, "at-least-once", Verdict(0, 1))
	assert.Equal(t, "at-most-once", Verdict(1, 0))
}

func TestAnomalies(t *testing.T) {
	o := []sim.Observation{
		{Event: "acked", Msgs: []string{"p#1"}, Partition: "t-0", Offset: 0},
		{Event: "acked", Msgs: []string{"p#2"}, Partition: "t-0", Offset: 1},
		{Event: "acked", Msgs: []string{"p#3"}, Partition: "t-0", Offset: 2},
		{Event: "polled", Msgs: []string{"p#1"}, Partition: "t-0", Offset: 0},
		{Event: "polled", Msgs: []string{"p#1"}, Partition: "t-0", Offset: 3},
	}
	acked := func(string) bool { return true }
	a := Anomalies(o, acked)
	assert.Equal(t, 1, a["duplicate"], "p#1 at offsets 0 and 3")
	assert.Equal(t, 2, a["lost-write"], "p#2 and p#3 were never polled though offset 3 was")
	assert.Equal(t, map[string]int{"NOT_ENOUGH_REPLICAS": 1}, Errors([]sim.Observation{{Event: "error", Detail: "NOT_ENOUGH_REPLICAS"}}))
}
