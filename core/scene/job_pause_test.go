package scene

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/flink"
	"deliverylab/core/sim"
)

// keyedPauseJob is a keyed job with two source subtasks feeding one map subtask.
const keyedPauseJob = `    source: {topic: orders, parallelism: 2}
    keyed: true
    parallelism: 1
    sink: {kafka: {topic: out}}`

// sourceOf is the source subtask that emits a message in a run of the scene.
func sourceOf(t *testing.T, text, msg string) string {
	r, _ := runJob(t, text)
	for _, o := range observed(r, flink.Emitted) {
		if len(o.Msgs) == 1 && o.Msgs[0] == msg {
			return o.Node
		}
	}
	t.Fatalf("no source emitted %s", msg)
	return ""
}

// sendsOf lists the records and barriers a part's attempts put on the wire after a
// time, in order, as the trace says them ("Record p1#1 key=k1", "Barrier 1").
func sendsOf(r *Run, part string, afterMs int64) []string {
	var out []string
	for _, l := range r.World.Trace().Texts(true) {
		at, rest, _ := strings.Cut(l, " ")
		if ms, _ := parseInt(at); ms < afterMs {
			continue
		}
		f := strings.Fields(rest)
		if len(f) > 3 && f[0] == "send" && strings.HasPrefix(f[2], part+"#") && (f[3] == "Record" || f[3] == "Barrier") {
			out = append(out, strings.Join(f[3:], " "))
		}
	}
	return out
}

func parseInt(s string) (int64, bool) {
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// A source subtask paused at its record's point holds that record; the job goes on
// around it (the other source's records and barriers flow, the checkpoint waits). At
// the resume it hands on the record in hand first, then the barrier of the checkpoint
// triggered meanwhile, and only then what it fetched: the mailbox's mails run before
// its next default action.
func TestAPausedSourceHandsOnItsRecordThenItsBarrier(t *testing.T) {
	src := sourceOf(t, jobScene(2, keyedPauseJob, "  []"), "p1#1")
	r, rep := runJob(t, jobScene(2, keyedPauseJob, "  - when: {event: emitted, message: p1#1}\n    pause: "+src+"\n    for.ms: 7000\n"))
	var pausedAt, resumedAt int64 = -1, -1
	for _, l := range r.World.Trace().Texts(false) {
		at, rest, _ := strings.Cut(l, " ")
		ms, _ := parseInt(at)
		switch {
		case strings.HasPrefix(rest, "fault pause "+src):
			pausedAt = ms
		case rest == "fault resume "+src:
			resumedAt = ms
		}
	}
	require.Positive(t, pausedAt)
	require.Equal(t, pausedAt+7000, resumedAt, "resumed after for.ms")
	triggered := observed(r, flink.CheckpointTriggered)
	require.NotEmpty(t, triggered)
	assert.Less(t, triggered[0].AtMs, resumedAt, "checkpoint 1 was triggered during the pause")
	part := sim.PortOf(src)
	during := sendsOf(r, "totals/"+part, pausedAt+1)
	require.GreaterOrEqual(t, len(during), 3)
	assert.Equal(t, "Record p1#1 key=k1", during[0], "the record in hand goes first")
	assert.Equal(t, "Barrier 1", during[1], "then the barrier of the checkpoint triggered during the pause")
	assert.True(t, strings.HasPrefix(during[2], "Record "), "then what it fetched meanwhile: %v", during)
	for _, o := range observed(r, flink.Emitted) {
		if o.Node == src && o.AtMs > pausedAt && o.AtMs < resumedAt {
			t.Errorf("%s emitted %v while paused", src, o.Msgs)
		}
	}
	assert.Equal(t, 10, rep.Messages["delivered"])
}

// A pause belongs to the task attempt: a failover deploys a new attempt that runs, so a
// source paused for good does not stall the job once another task fails.
func TestAPauseEndsWithItsTaskAttempt(t *testing.T) {
	src := sourceOf(t, jobScene(2, keyedPauseJob, "  []"), "p1#1")
	r, rep := runJob(t, jobScene(2, keyedPauseJob, "  - when: {event: emitted, message: p1#1}\n    pause: "+src+"\n"+
		"  - when: {event: checkpoint-triggered, checkpoint: 1}\n    crash: totals/map-0\n"))
	assert.Equal(t, EndSettled, r.EndNote, "the new attempt of %s runs", src)
	assert.Len(t, observed(r, flink.Restored), 2)
	// restored from nothing (checkpoint 1 never completed): the sink, NONE, writes again
	// what it wrote before the failure, and nothing is missing
	assert.Equal(t, 10, rep.Messages["delivered"]+rep.Messages["duplicated"])
	assert.Zero(t, rep.Messages["lost"])
}

// An operator subtask paused at its point holds the record it was processing: it folds
// and writes it after the resume, and its point is not seen twice.
func TestAPausedOperatorWritesItsRecordAfterTheResume(t *testing.T) {
	r, rep := runJob(t, jobScene(1, "    source: {topic: orders}\n    sink: {kafka: {topic: out}}",
		"  - when: {event: processed, message: p1#3}\n    pause: totals/map-0\n    for.ms: 500\n"))
	var processed, appended []int64
	for _, o := range r.World.Observations().All() {
		if !slices.Contains(o.Msgs, "p1#3") {
			continue
		}
		switch {
		case o.Event == flink.Processed && o.Node == "totals/map-0":
			processed = append(processed, o.AtMs)
		case o.Event == "appended" && o.Partition == "out-0":
			appended = append(appended, o.AtMs)
		}
	}
	require.Len(t, processed, 1, "its point is seen once")
	require.Len(t, appended, 1)
	assert.GreaterOrEqual(t, appended[0], processed[0]+500, "written only after the resume")
	assert.Equal(t, 10, rep.Messages["delivered"])
}

// The real runner stops a subtask's thread only at its own record point: a pause made
// anywhere else makes the scene simulator-only for the conformance suite, with the reason.
func TestARealPauseOfASubtaskIsAtItsOwnPoint(t *testing.T) {
	for fault, ok := range map[string]bool{
		"  - {when: {node: totals/source-0, event: emitted, message: p1#2}, pause: totals/source-0}": true,
		"  - {when: {node: totals/map-0, event: processed}, pause: totals/map-0, for.ms: 100}":       true,
		"  - {at.ms: 500, pause: totals/source-0}":                                                   false,
		"  - {when: {node: totals/source-0, event: emitted}, pause: totals/map-0}":                   false,
		"  - {when: {event: checkpoint-triggered}, pause: totals/source-0}":                          false,
	} {
		s, err := Parse("job.yaml", []byte(jobScene(1, "    source: {topic: orders}\n    sink: {kafka: {topic: out}}", fault)))
		require.NoError(t, err, fault)
		_, err = s.Plan(10000)
		if ok {
			assert.NoError(t, err, fault)
		} else {
			assert.ErrorContains(t, err, "pauses totals/", fault)
		}
	}
}

// A KafkaSink subtask's written has no counterpart on the real job: a fault waiting for it
// would never fire there, so the planner says so instead.
func TestARealJobDoesNotSeeAKafkaSinksWritten(t *testing.T) {
	s, err := Parse("job.yaml", []byte(jobScene(1, "    source: {topic: orders}\n    sink: {kafka: {topic: out}}",
		"  - {when: {node: totals/sink-0, event: written, message: p1#4}, crash: p1}")))
	require.NoError(t, err)
	_, err = s.Plan(10000)
	assert.ErrorContains(t, err, "does not see totals/sink-0 written on a real job")
}
