package check

import (
	"maps"
	"slices"
	"testing"

	"deliverylab/core/apps"
	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
	"deliverylab/core/sinks"

	"github.com/stretchr/testify/assert"
)

func obs(event sim.Event, msgs ...string) sim.Observation {
	return sim.Observation{Event: event, Msgs: msgs}
}

func TestFatesAndVerdict(t *testing.T) {
	l := NewLedger(sim.ListOf([]sim.Observation{
		obs(apps.Sent, "p#1"), obs(apps.Sent, "p#2"), obs(apps.Sent, "p#3"), obs(apps.Sent, "p#4"), obs(apps.Sent, "p#5"), obs(apps.Sent, "p#6"),
		{Event: apps.Acked, Msgs: []string{"p#1", "p#2", "p#3", "p#4"}, Partition: "t-0", Offset: 0},
		{Event: apps.Failed, Msgs: []string{"p#5"}, Err: "TimeoutException"},
		{Event: protocol.Truncated, Node: "broker-1", Msgs: []string{"p#3"}, AtMs: 42},
	}))
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
	assert.Equal(t, "acknowledged at 0 ms (offset 0 of t-0), then truncated from broker-1's log at 42 ms when it followed a new leader",
		r.Fates[2].Reason.Text(fate.En))
	assert.Equal(t, "在 0 毫秒被确认（t-0 的位移 0），随后在 42 毫秒、broker-1 跟随新 leader 时从它的日志中被截断",
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
	a := Anomalies(sim.ListOf(o), acked, nil)
	assert.Equal(t, 1, a[Duplicate], "p#1 at offsets 0 and 3")
	assert.Equal(t, 2, a[LostWrite], "p#2 and p#3 were never polled though offset 3 was")
	assert.Zero(t, a[AbortedRead])

	// A message a Streams application wrote on to another topic is in two partitions:
	// one copy in each is no duplicate; a second copy in the output is.
	derived := []sim.Observation{
		{Event: apps.Polled, Msgs: []string{"p#1"}, Partition: "in-0", Offset: 4},
		{Event: apps.Polled, Msgs: []string{"p#1"}, Partition: "out-0", Offset: 0},
	}
	assert.Zero(t, Anomalies(sim.ListOf(derived), acked, nil)[Duplicate])
	derived = append(derived, sim.Observation{Event: apps.Polled, Msgs: []string{"p#1"}, Partition: "out-0", Offset: 2})
	assert.Equal(t, 1, Anomalies(sim.ListOf(derived), acked, nil)[Duplicate])

	// aborted-read: a poll of a record an ABORT marker ended, whoever aborted it.
	aborted := map[sim.RecordAt]bool{{Partition: "out-0", Offset: 2}: true}
	assert.Equal(t, 1, Anomalies(sim.ListOf(derived), acked, aborted)[AbortedRead], "p#1 polled at out-0@2, an aborted record")
	assert.Zero(t, Anomalies(sim.ListOf(derived[:2]), acked, aborted)[AbortedRead], "the committed copy alone is no aborted read")
	assert.Equal(t, map[string]int{"NOT_ENOUGH_REPLICAS": 1},
		Errors(sim.ListOf([]sim.Observation{{Event: protocol.ClientError, Err: "NOT_ENOUGH_REPLICAS"}})))
}

func sent(node string, msgs ...string) sim.Observation {
	return sim.Observation{Node: node, Event: apps.Sent, Msgs: msgs}
}

func ackedAt(node, tp string, off int64, msgs ...string) sim.Observation {
	return sim.Observation{Node: node, Event: apps.Acked, Msgs: msgs, Partition: tp, Offset: off}
}

func polled(node, tp string, off int64, msg string) sim.Observation {
	return sim.Observation{Node: node, Event: apps.Polled, Msgs: []string{msg}, Partition: tp, Offset: off}
}

func orderOf(o ...sim.Observation) map[Anomaly]int {
	a := Anomalies(sim.ListOf(o), func(string) bool { return true }, nil)
	return map[Anomaly]int{NonmonotonicSend: a[NonmonotonicSend], NonmonotonicPoll: a[NonmonotonicPoll], PollSkip: a[PollSkip]}
}

// Jepsen's nonmonotonic-send: a producer's next record to a partition lands at or before
// the one it sent before.
func TestNonmonotonicSend(t *testing.T) {
	// p sends p#1 then p#2 and p#3 (one batch); the retried p#1 lands behind them.
	reordered := orderOf(sent("p", "p#1"), sent("p", "p#2"), sent("p", "p#3"),
		ackedAt("p", "t-0", 0, "p#2", "p#3"), ackedAt("p", "t-0", 2, "p#1"))
	assert.Equal(t, map[Anomaly]int{NonmonotonicSend: 1, NonmonotonicPoll: 0, PollSkip: 0}, reordered, "p#1 at 2, then p#2 at 0")

	inOrder := orderOf(sent("p", "p#1"), sent("p", "p#2"), sent("p", "p#3"),
		ackedAt("p", "t-0", 0, "p#1"), ackedAt("p", "t-0", 1, "p#2", "p#3"))
	assert.Zero(t, inOrder[NonmonotonicSend])

	// Other partitions and other producers are separate orders.
	apart := orderOf(sent("p", "p#1"), sent("q", "q#1"), sent("p", "p#2"),
		ackedAt("p", "t-0", 5, "p#1"), ackedAt("q", "t-0", 3, "q#1"), ackedAt("p", "t-1", 0, "p#2"))
	assert.Zero(t, apart[NonmonotonicSend])

	// acks=1 and a failover: p#2 acknowledged at 1 is truncated, and p#3 is appended at
	// 1 on the new leader. Two records seen at one offset are not an order (Jepsen calls
	// that an inconsistent offset and compares with only one of them).
	reused := orderOf(sent("p", "p#1"), sent("p", "p#2"), sent("p", "p#3"),
		ackedAt("p", "t-0", 0, "p#1"), ackedAt("p", "t-0", 1, "p#2"), ackedAt("p", "t-0", 1, "p#3"))
	assert.Zero(t, reused[NonmonotonicSend])

	// A restarted producer is a new sequence, like Jepsen's new process: what it sends
	// again after the restart is not compared with what it sent before.
	restarted := orderOf(sent("p", "p#1"), ackedAt("p", "t-0", 4, "p#1"),
		sim.Observation{Node: "p", Event: sim.Crashed}, sim.Observation{Node: "p", Event: sim.Restarted},
		sent("p", "p#2"), ackedAt("p", "t-0", 0, "p#2"))
	assert.Zero(t, restarted[NonmonotonicSend])
}

// Jepsen's nonmonotonic-poll and poll-skip: a consumer's next record of a partition is
// not the next record of the log.
func TestNonmonotonicPollAndPollSkip(t *testing.T) {
	log := []sim.Observation{ackedAt("p", "t-0", 0, "p#1", "p#2", "p#3", "p#4")}
	with := func(o ...sim.Observation) map[Anomaly]int {
		return orderOf(append(append([]sim.Observation{}, log...), o...)...)
	}

	assert.Equal(t, map[Anomaly]int{NonmonotonicSend: 0, NonmonotonicPoll: 1, PollSkip: 0},
		with(polled("c", "t-0", 0, "p#1"), polled("c", "t-0", 1, "p#2"), polled("c", "t-0", 2, "p#3"), polled("c", "t-0", 1, "p#2")),
		"back from 2 to 1 with nothing to explain it")
	assert.Equal(t, 1, with(polled("c", "t-0", 0, "p#1"), polled("c", "t-0", 0, "p#1"))[NonmonotonicPoll], "the same record again")
	assert.Equal(t, map[Anomaly]int{NonmonotonicSend: 0, NonmonotonicPoll: 0, PollSkip: 1},
		with(polled("c", "t-0", 0, "p#1"), polled("c", "t-0", 3, "p#4")), "offsets 1 and 2 hold records and c jumped over them")

	// A gap in offsets no record is known at is not a skip (Jepsen's dense index).
	assert.Zero(t, orderOf(polled("c", "t-0", 0, "p#1"), polled("c", "t-0", 7, "p#2"))[PollSkip])
	// A record appended twice (a retry) is read at each offset, in order.
	assert.Equal(t, map[Anomaly]int{NonmonotonicSend: 0, NonmonotonicPoll: 0, PollSkip: 0},
		with(polled("c", "t-0", 0, "p#1"), polled("c", "t-0", 1, "p#2"), polled("c", "t-0", 2, "p#2"), polled("c", "t-0", 3, "p#4")))

	clean := map[Anomaly]int{NonmonotonicSend: 0, NonmonotonicPoll: 0, PollSkip: 0}
	upTo2 := []sim.Observation{polled("c", "t-0", 0, "p#1"), polled("c", "t-0", 1, "p#2"), polled("c", "t-0", 2, "p#3")}
	// A rebalance: the eager protocol revokes everything and the consumer starts again
	// from the committed offset, 1. Normal at-least-once behaviour.
	assert.Equal(t, clean, with(append(upTo2,
		sim.Observation{Node: "c", Event: protocol.Assigned, Group: "g", Generation: 2, Assigned: []string{"t-0"}},
		polled("c", "t-0", 1, "p#2"), polled("c", "t-0", 2, "p#3"))...), "rewind to the committed offset after a rebalance")
	// A crash and restart: the same.
	assert.Equal(t, clean, with(append(upTo2,
		sim.Observation{Node: "c", Event: sim.Crashed}, sim.Observation{Node: "c", Event: sim.Restarted},
		polled("c", "t-0", 0, "p#1"))...), "rewind after a restart")
	// OFFSET_OUT_OF_RANGE and auto.offset.reset: a seek, either way.
	assert.Equal(t, clean, with(append(upTo2,
		sim.Observation{Node: "c", Event: protocol.ClientError, Err: protocol.ErrOffsetOutOfRange.String(), Partition: "t-0"},
		polled("c", "t-0", 0, "p#1"))...), "reset to earliest")
	// KIP-320: the position lay past a truncation and the consumer seeks back.
	assert.Equal(t, clean, with(append(upTo2,
		sim.Observation{Node: "c", Event: protocol.TruncationDetected, Partition: "t-0", Offset: 1},
		polled("c", "t-0", 1, "p#2"))...), "seek back to a truncation")
	// Another consumer, or another partition, is a separate order.
	assert.Equal(t, clean, with(append(upTo2, polled("d", "t-0", 0, "p#1"), polled("c", "t-1", 0, "x"))...))
	// A seek of another partition explains nothing here.
	assert.Equal(t, 1, with(append(upTo2,
		sim.Observation{Node: "c", Event: protocol.ClientError, Err: protocol.ErrOffsetOutOfRange.String(), Partition: "t-1"},
		polled("c", "t-0", 0, "p#1"))...)[NonmonotonicPoll])
}

// Every anomaly the checker reports says what it means, in every language.
func TestEveryAnomalyIsExplainedInEveryLanguage(t *testing.T) {
	for _, name := range AllAnomalies {
		for _, lang := range fate.Langs {
			assert.NotEmpty(t, Meaning(name).Text(lang), "%s in %s", name, lang)
		}
	}
	assert.ElementsMatch(t, AllAnomalies, slices.Collect(maps.Keys(Anomalies(sim.ListOf(nil), func(string) bool { return true }, nil))))
}

// A duplicate its reader took from an aborted transaction is explained by that read, not
// by the writer's replay: the writer took the copy back.
func TestADuplicateReadFromAnAbortedTransactionSaysSo(t *testing.T) {
	l := NewLedger(sim.ListOf([]sim.Observation{
		obs(apps.Sent, "p#1"),
		{Event: apps.Acked, Msgs: []string{"p#1"}, Partition: "in-0", Offset: 0},
		{Event: sinks.Written, Node: "job/sink-0", Msgs: []string{"p#1"}},
		{Event: sinks.Written, Node: "job/sink-0", Msgs: []string{"p#1"}},
	}))
	out := Output{Name: "audit", Effects: map[string]int{"p#1": 2}}
	assert.Contains(t, l.Judge(out).Fates[0].Reason.Text(fate.En), "job/sink-0 wrote it 2 times")
	out.ReadAborted = map[string]int{"p#1": 1}
	r := l.Judge(out)
	assert.Equal(t, fate.Duplicated, r.Fates[0].Fate)
	assert.Contains(t, r.Fates[0].Reason.Text(fate.En), "1 of the copies audit read came from transactions that were aborted")
	assert.Contains(t, r.Fates[0].Reason.Text(fate.Zh), "audit 读到的副本中有 1 份来自被中止的事务")
}

// A message lost because it reached the output's topic only in an aborted transaction
// says where it was and why the reader skipped it.
func TestALossInsideAnAbortedTransactionSaysSo(t *testing.T) {
	l := NewLedger(sim.ListOf([]sim.Observation{
		obs(apps.Sent, "p#1"),
		{Event: apps.Acked, Msgs: []string{"p#1"}, Partition: "in-0", Offset: 0},
	}))
	out := Output{Name: "audit", Effects: map[string]int{}}
	assert.Contains(t, l.Judge(out).Fates[0].Reason.Text(fate.En), "no log that could still deliver it holds it")
	out.OnlyAborted = map[string][]string{"p#1": {"out-0@3"}}
	r := l.Judge(out)
	assert.Equal(t, fate.Lost, r.Fates[0].Fate)
	assert.Contains(t, r.Fates[0].Reason.Text(fate.En), "only inside a transaction that was aborted (out-0@3)")
	assert.Contains(t, r.Fates[0].Reason.Text(fate.Zh), "只在一个被中止的事务里进入过主题（out-0@3）")
}
