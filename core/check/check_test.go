package check

import (
	"testing"

	"deliverylab/core/apps"
	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
)

func obs(event sim.Event, msgs ...string) sim.Observation {
	return sim.Observation{Event: event, Msgs: msgs}
}

func TestFatesAndVerdict(t *testing.T) {
	l := NewLedger([]sim.Observation{
		obs(apps.Sent, "p#1"), obs(apps.Sent, "p#2"), obs(apps.Sent, "p#3"), obs(apps.Sent, "p#4"), obs(apps.Sent, "p#5"), obs(apps.Sent, "p#6"),
		{Event: apps.Acked, Msgs: []string{"p#1", "p#2", "p#3", "p#4"}, Partition: "t-0", Offset: 0},
		{Event: apps.Failed, Msgs: []string{"p#5"}, Err: "TimeoutException"},
		{Event: protocol.Truncated, Node: "broker-1", Msgs: []string{"p#3"}, AtMs: 42},
	})
	r := l.Judge(Output{Name: "db",
		Effects: map[string]int{"p#1": 1, "p#2": 2},
		Held:    map[string]fate.Reason{"p#4": fate.Because(fate.HeldAboveHW, "partition", "t-0", "broker", "broker-2")}})
	fates := map[string]fate.Name{}
	for _, f := range r.Fates {
		fates[f.Msg] = f.Fate
	}
	assert.Equal(t, map[string]fate.Name{"p#1": fate.Delivered, "p#2": fate.Duplicated, "p#3": fate.Lost, "p#4": fate.Unavailable, "p#5": fate.Failed, "p#6": fate.Failed}, fates)
	assert.Equal(t, "none", r.Verdict)
	assert.Equal(t, 6, r.Counts["sent"])
	assert.Equal(t, 4, r.Counts["acked"])
	assert.Equal(t, "acknowledged at 0 ms (offset 0 of t-0), then truncated from broker-1's log at 42 ms when it followed a new leader that never had it",
		r.Fates[2].Reason.Text(fate.En))
	assert.Equal(t, "在 0 毫秒被确认（t-0 的位移 0），随后在 42 毫秒从 broker-1 的日志中被截断：它跟随的新 leader 从未拥有它",
		r.Fates[2].Reason.Text(fate.Zh), "the Chinese reason says what the English one says, offset and partition included")
	assert.Equal(t, "acknowledged, not yet in db: still held by t-0 above the high watermark on broker-2", r.Fates[3].Reason.Text(fate.En))

	assert.Equal(t, "exactly-once", Verdict(0, 0))
	assert.Equal(t, "at-least-once", Verdict(0, 1))
	assert.Equal(t, "at-most-once", Verdict(1, 0))
}

func TestAnomalies(t *testing.T) {
	o := []sim.Observation{
		{Event: apps.Acked, Msgs: []string{"p#1"}, Partition: "t-0", Offset: 0},
		{Event: apps.Acked, Msgs: []string{"p#2"}, Partition: "t-0", Offset: 1},
		{Event: apps.Acked, Msgs: []string{"p#3"}, Partition: "t-0", Offset: 2},
		{Event: apps.Polled, Msgs: []string{"p#1"}, Partition: "t-0", Offset: 0},
		{Event: apps.Polled, Msgs: []string{"p#1"}, Partition: "t-0", Offset: 3},
	}
	acked := func(string) bool { return true }
	a := Anomalies(o, acked)
	assert.Equal(t, 1, a["duplicate"], "p#1 at offsets 0 and 3")
	assert.Equal(t, 2, a["lost-write"], "p#2 and p#3 were never polled though offset 3 was")
	assert.Equal(t, map[string]int{"NOT_ENOUGH_REPLICAS": 1},
		Errors([]sim.Observation{{Event: protocol.ClientError, Err: "NOT_ENOUGH_REPLICAS"}}))
}
