package scene

import (
	"strings"
	"testing"

	"deliverylab/core/flink"
	"deliverylab/core/sim"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jobScene is a Flink job between orders and out, read by audit; faults and the job's
// own keys are the test's.
func jobScene(partitions int, job, faults string) string {
	return `
seed: 1
cluster:
  brokers: 3
  topics:
    - {name: orders, partitions: ` + itoa(int64(partitions)) + `, replication.factor: 3}
    - {name: out, partitions: 1, replication.factor: 3}
apps:
  - producer: p1
    send: {topic: orders, count: 10, interval.ms: 200, key: "k{n}", value: "{n}"}
  - job: totals
    checkpointing: {interval.ms: 5000}
    restart.delay.ms: 1000
` + job + `
  - consumer: audit
    topics: [out]
    config: {enable.auto.commit: false, auto.offset.reset: earliest}
faults:
` + faults
}

func runJob(t *testing.T, text string) (*Run, Report) {
	t.Helper()
	s, err := Parse("job.yaml", []byte(text))
	require.NoError(t, err)
	r := s.NewRun()
	r.ToEnd()
	return r, r.Judge()
}

func observed(r *Run, ev sim.Event) []sim.Observation {
	var out []sim.Observation
	for _, o := range r.World.Observations().All() {
		if o.Event == ev {
			out = append(out, o)
		}
	}
	return out
}

// A task that fails before the first checkpoint completed restarts from nothing: the
// source reads its partition from the start again, and a sink without transactions
// writes everything it had written once more.
func TestAJobFailingBeforeItsFirstCheckpointReplaysFromTheStart(t *testing.T) {
	r, rep := runJob(t, jobScene(1, `    source: {topic: orders}
    sink: {kafka: {topic: out}}`, `  - when: {node: totals/map-0, event: processed, message: p1#4}
    crash: totals/map-0`))
	restored := observed(r, flink.Restored)
	require.Len(t, restored, 2, "the start, and the restart after the failure")
	assert.Equal(t, int64(0), restored[1].Checkpoint, "no checkpoint had completed")
	assert.Equal(t, 3, rep.Messages["duplicated"], "p1#1..p1#3 were written before the failure and again after it")
	assert.Equal(t, 7, rep.Messages["delivered"])
	assert.Equal(t, "settled", string(rep.EndNote))
}

// The sink's delivery guarantee decides whether a checkpoint can complete while a write
// is unanswered. The link from the job to out's leader is cut as the job takes p1#3, and
// the job crashes once checkpoint 1 completed: with NONE checkpoint 1 completes at once,
// with p1#1..p1#3 behind its offsets but never written, and the restored job does not read
// them again: lost. With AT_LEAST_ONCE the flush at the barrier waits for the link, no
// checkpoint completes, and the restored job reads everything again.
func TestANoneSinkLosesWhatAnAtLeastOnceSinkFlushes(t *testing.T) {
	faults := `  - when: {node: totals/map-0, event: processed, message: p1#3}
    cut: [totals, broker-2]
    for.ms: 8000
  - {at.ms: 7000, crash: totals, for.ms: 1000}`
	scene := func(guarantee string) string {
		return strings.Replace(jobScene(1, `    source: {topic: orders}
    sink: {kafka: {topic: out, delivery.guarantee: `+guarantee+`}}`, faults), "interval.ms: 200", "interval.ms: 1", 1)
	}
	r, rep := runJob(t, scene("NONE"))
	require.NotEmpty(t, observed(r, flink.CheckpointCompleted))
	assert.Equal(t, int64(1), observed(r, flink.CheckpointCompleted)[0].Checkpoint)
	assert.Positive(t, rep.Messages["lost"], "NONE: the checkpoint covered writes that never happened")

	r, rep = runJob(t, scene("AT_LEAST_ONCE"))
	for _, o := range observed(r, flink.CheckpointCompleted) {
		assert.Greater(t, o.AtMs, int64(8000), "AT_LEAST_ONCE: no checkpoint completes while a write waits for the cut link")
	}
	assert.Zero(t, rep.Messages["lost"])
	assert.Equal(t, 10, rep.Messages["delivered"]+rep.Messages["duplicated"])
}

// Without keyBy each source subtask is chained to its map and sink, a pipelined region of
// its own: a failure of one restarts only that task. With keyBy the shuffle joins every
// task into one region, and every task is deployed again.
func TestAFailureRestartsItsPipelinedRegion(t *testing.T) {
	deployed := func(r *Run, part string) int {
		n := 0
		for _, l := range r.World.Trace().Texts(true) {
			if strings.Contains(l, " send ") && strings.Contains(l, "totals/"+part+"#") {
				n++
			}
		}
		return n
	}
	failure := `  - when: {node: totals, event: processed, message: p1#4}
    crash: totals/map-0`
	chained, rep := runJob(t, jobScene(2, `    source: {topic: orders, parallelism: 2}
    sink: {kafka: {topic: out}}`, failure))
	assert.Len(t, observed(chained, flink.Restored), 3, "two regions at the start, one after the failure")
	assert.Equal(t, 10, rep.Messages["delivered"]+rep.Messages["duplicated"])
	attempts := map[string]bool{}
	for _, l := range chained.World.Trace().Texts(true) {
		for _, p := range []string{"source-0#", "source-1#"} {
			if i := strings.Index(l, "totals/"+p); i >= 0 {
				attempts[l[i:i+len("totals/")+len(p)+1]] = true
			}
		}
	}
	assert.True(t, attempts["totals/source-0#3"], "source-0 was deployed again: %v", attempts)
	assert.False(t, attempts["totals/source-1#4"] || attempts["totals/source-1#3"], "source-1 kept running: %v", attempts)
	assert.Positive(t, deployed(chained, "source-1"))

	keyed, rep := runJob(t, jobScene(2, `    source: {topic: orders, parallelism: 2}
    keyed: true
    parallelism: 2
    sink: {kafka: {topic: out}}`, failure))
	assert.Len(t, observed(keyed, flink.Restored), 2, "one region, at the start and after the failure")
	assert.Equal(t, 10, rep.Messages["delivered"]+rep.Messages["duplicated"])
	var records int
	for _, l := range keyed.World.Trace().Texts(true) {
		if strings.Contains(l, " send ") && strings.Contains(l, " Record p1#") {
			records++
		}
	}
	assert.GreaterOrEqual(t, records, 10, "every record crossed the shuffle")
}

// A checkpoint under way when a task fails is aborted and never restored from; the next
// one gets the next id.
func TestACheckpointUnderWayWhenATaskFailsIsNeverUsed(t *testing.T) {
	r, _ := runJob(t, jobScene(1, `    source: {topic: orders}
    sink: {kafka: {topic: out}}`, `  - when: {node: totals/jobmanager, event: checkpoint-triggered, checkpoint: 1}
    crash: totals/map-0`))
	aborted := observed(r, flink.CheckpointAborted)
	require.Len(t, aborted, 1)
	assert.Equal(t, int64(1), aborted[0].Checkpoint)
	restored := observed(r, flink.Restored)
	assert.Equal(t, int64(0), restored[len(restored)-1].Checkpoint, "checkpoint 1 never completed")
	completed := observed(r, flink.CheckpointCompleted)
	assert.Equal(t, int64(2), completed[0].Checkpoint, "ids go on after the aborted one")
}

// A crashed job keeps its checkpoint storage: restarted, it restores from the latest
// completed checkpoint and counts on from its id.
func TestACrashedJobRestoresFromCheckpointStorage(t *testing.T) {
	r, rep := runJob(t, jobScene(1, `    source: {topic: orders}
    sink: {kafka: {topic: out}}`, `  - when: {node: totals/jobmanager, event: checkpoint-completed, checkpoint: 1}
    crash: totals
    for.ms: 2000`))
	restored := observed(r, flink.Restored)
	require.Len(t, restored, 2)
	assert.Equal(t, int64(1), restored[1].Checkpoint)
	completed := observed(r, flink.CheckpointCompleted)
	assert.Len(t, completed, 1, "restored at checkpoint 1, the job has read nothing past it: it has settled")
	assert.Greater(t, restored[1].AtMs, completed[0].AtMs+2000-1, "down for its for.ms")
	assert.Equal(t, 10, rep.Messages["delivered"], "everything was read and written before checkpoint 1, which covers it all")
}

// The job manager is the job's process, and a subtask only fails: the parser says so.
func TestJobFaultsNameWhatCanFail(t *testing.T) {
	for fault, want := range map[string]string{
		"  - {at.ms: 10, crash: totals/jobmanager}":               "the job manager is the job's process",
		"  - {at.ms: 10, restart: totals/map-0}":                  "a subtask does not restart on its own",
		"  - {at.ms: 10, pause: totals/sink-0}":                   "pause the operator subtask instead (totals/map-0)",
		"  - {at.ms: 10, crash: totals/map-7}":                    "expected a node of this scene",
		"  - {when: {event: sent, checkpoint: 1}, crash: totals}": "sent carries no checkpoint",
	} {
		_, err := Parse("job.yaml", []byte(jobScene(1, `    source: {topic: orders}
    sink: {kafka: {topic: out}}`, fault)))
		require.Error(t, err, fault)
		assert.Contains(t, err.Error(), want, fault)
	}
}

// eosSink is an EXACTLY_ONCE KafkaSink with a transaction timeout.
func eosSink(timeoutMs string) string {
	return `    source: {topic: orders}
    sink: {kafka: {topic: out, delivery.guarantee: EXACTLY_ONCE, transactional.id.prefix: totals, transaction.timeout.ms: ` + timeoutMs + `}}`
}

// An EXACTLY_ONCE sink writes each checkpoint's records in a transaction of its own,
// committed once the checkpoint completes: a task failure aborts what was written after
// the restored checkpoint (the aborter's initTransactions fences it), the records are
// written again in a new transaction, and a read_committed reader gets each once.
func TestAnExactlyOnceSinkTakesBackWhatATaskFailureReplays(t *testing.T) {
	text := strings.Replace(jobScene(1, eosSink("60000"), `  - when: {node: totals/map-0, event: processed, message: p1#6}
    crash: totals/map-0`), "auto.offset.reset: earliest}", "auto.offset.reset: earliest, isolation.level: read_committed}", 1)
	r, rep := runJob(t, text)
	assert.Equal(t, "exactly-once", rep.Verdict)
	assert.Equal(t, 10, rep.Messages["delivered"])
	var ids []string
	for _, o := range observed(r, flink.PreCommitted) {
		ids = append(ids, o.TxnID)
	}
	assert.NotEmpty(t, ids)
	for _, id := range ids {
		assert.True(t, strings.HasPrefix(id, "totals-0-"), "prefix-subtask-checkpoint: %s", id)
	}
	var probes int
	for _, l := range r.World.Trace().Texts(false) {
		if strings.Contains(l, "send ") && strings.Contains(l, "InitProducerId") && strings.Contains(l, "totals/sink-0#2.p") {
			probes++
		}
	}
	assert.GreaterOrEqual(t, probes, 2, "after the failure the aborter probes the ids from the restored checkpoint on")

	// read_uncommitted, the reader also gets the aborted first writes
	_, rep = runJob(t, jobScene(1, eosSink("60000"), `  - when: {node: totals/map-0, event: processed, message: p1#6}
    crash: totals/map-0`))
	assert.Positive(t, rep.Messages["duplicated"], "a read_uncommitted reader sees the aborted transaction's records")
}

// Down longer than transaction.timeout.ms after a checkpoint completed and before its
// commit, the job finds its pre-committed transaction aborted by the coordinator: the
// recommit is fenced, logged and dropped, and its records are lost, silently.
func TestAnExactlyOnceSinkLosesWhatTheBrokerAbortedWhileTheJobWasDown(t *testing.T) {
	text := strings.Replace(jobScene(1, eosSink("8000"), `  - when: {node: totals/jobmanager, event: checkpoint-completed, checkpoint: 1}
    crash: totals
    for.ms: 12000`), "auto.offset.reset: earliest}", "auto.offset.reset: earliest, isolation.level: read_committed}", 1)
	text = strings.Replace(text, "brokers: 3", "brokers: 3\n  config: {transaction.abort.timed.out.transaction.cleanup.interval.ms: 500}", 1)
	text = strings.Replace(text, "interval.ms: 200,", "interval.ms: 10,", 1) // all ten before checkpoint 1
	r, rep := runJob(t, text)
	dropped := false
	for _, l := range r.World.Trace().Texts(false) {
		dropped = dropped || strings.Contains(l, "committer: totals-0-1 not committed")
	}
	assert.True(t, dropped, "the committer drops the aborted transaction")
	assert.Equal(t, 10, rep.Messages["lost"])
}

// A count or sum's totals are judged by their lineage, so only a consumer that is its own
// output may read them, and a sum takes only producers' whole numbers.
func TestTotalsGoOnlyWhereTheirLineageIsKept(t *testing.T) {
	sum := `    source: {topic: orders}
    keyed: true
    operator: sum
    sink: {kafka: {topic: out}}`
	ok := jobScene(1, sum, "  []")
	_, err := Parse("job.yaml", []byte(ok))
	require.NoError(t, err)
	for name, c := range map[string]struct{ edit keysEdit }{
		"a consumer writing the totals to a sink":  {keysEdit{"apps/2/sink", "db"}},
		"a Streams application reading the totals": {keysEdit{"apps/3", "{streams: s1, from: out, to: orders}"}},
	} {
		// a count, so that the Streams application may write its input
		text := keysApply(t, keysApply(t, ok, keysEdit{"apps/1/operator", "count"}), c.edit)
		if name == "a consumer writing the totals to a sink" {
			text = keysApply(t, text, keysEdit{"sinks", "[{name: db}]"})
		}
		_, err := Parse("job.yaml", []byte(text))
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "totals of job totals", name)
	}
	words := keysApply(t, ok, keysEdit{"apps/0/send/value", "order-{n}"})
	_, err = Parse("job.yaml", []byte(words))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `job totals sums each record's value per key: expected a whole number such as "1" or "{n}", got "order-1"`)
	count := keysApply(t, words, keysEdit{"apps/1/operator", "count"})
	_, err = Parse("job.yaml", []byte(count))
	assert.NoError(t, err, "a count takes any value")
}

// A dashboard over a sum shows each key's last total: after a task failure the job's
// totals come back with their checkpoint, and each report is folded in once, whatever the
// sink's delivery guarantee (with NONE the dashboard saw totals the failure took back).
func TestASumRestoresItsTotalsWithItsCheckpoint(t *testing.T) {
	for _, guarantee := range []string{"NONE", "AT_LEAST_ONCE"} {
		text := strings.Replace(jobScene(1, `    checkpointing: {interval.ms: 700}
    source: {topic: orders}
    keyed: true
    operator: sum
    sink: {kafka: {topic: out, delivery.guarantee: `+guarantee+`}}`, `  - when: {node: totals/sum-0, event: processed, message: p1#8}
    crash: totals/sum-0`), "    checkpointing: {interval.ms: 5000}\n", "", 1)
		text = strings.Replace(text, `key: "k{n}"`, `key: "k{n%2}"`, 1)
		r, rep := runJob(t, text)
		require.NotEmpty(t, observed(r, flink.Restored), guarantee)
		var restoredFrom int64
		for _, o := range observed(r, flink.Restored) {
			restoredFrom = o.Checkpoint
		}
		require.Positive(t, restoredFrom, "%s: the failure comes after a checkpoint with totals", guarantee)
		assert.Equal(t, "exactly-once", rep.Verdict, guarantee)
		require.NotNil(t, rep.Total, guarantee)
		assert.Equal(t, int64(55), rep.Total.Shown, guarantee)
		assert.Equal(t, int64(55), rep.Total.Expected, guarantee)
	}
}

// A job writes to a database sink after a map: a counter is refused.
func TestJobDatabaseSinksSayWhatTheyTake(t *testing.T) {
	for kind, want := range map[string]string{
		"counter": "db is a counter: expected a sink of kind table, unique-key, upsert or transactional",
	} {
		text := jobScene(1, `    source: {topic: orders}
    sink: {db: {sink: db}}`, "  []\n") + "sinks:\n  - {name: db, kind: " + kind + "}\n"
		_, err := Parse("job.yaml", []byte(text))
		require.Error(t, err, kind)
		assert.Contains(t, err.Error(), want, kind)
	}
	text := jobScene(1, `    source: {topic: orders}
    keyed: true
    operator: count
    sink: {db: {sink: db}}`, "  []\n") + "sinks:\n  - {name: db, kind: upsert}\n"
	_, err := Parse("job.yaml", []byte(text))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a count's totals are judged by their lineage")
	_, err = Parse("job.yaml", []byte(jobScene(1, `    source: {topic: orders}
    sink: {kafka: {topic: out}, db: {sink: db}}`, "  []\n")+"sinks:\n  - {name: db}\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "expected one sink: kafka or db, not both")
}

// A database sink that is down refuses the job's write, which is tried again until the
// sink is back: nothing is lost, and the task holds everything after it in order.
func TestAJobWaitsForItsDatabaseSink(t *testing.T) {
	text := jobScene(1, `    source: {topic: orders}
    sink: {db: {sink: db}}`, `  - {when: {node: totals/sink-0, event: written, message: p1#3}, crash: db, for.ms: 1500}
`) + "sinks:\n  - {name: db}\n"
	r, rep := runJob(t, text)
	assert.Equal(t, "exactly-once", rep.Outputs["db"].Verdict)
	assert.Equal(t, 10, rep.Outputs["db"].Messages["delivered"])
	refused := 0
	for _, o := range observed(r, "error") {
		if o.Node == "totals/sink-0" && o.Err == "SINK_UNAVAILABLE" {
			refused++
		}
	}
	assert.Greater(t, refused, 5, "tried again every 100 ms while the sink was down")
}
