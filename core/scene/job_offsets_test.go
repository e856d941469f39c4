package scene

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/flink"
	"deliverylab/core/kafka/protocol"
)

// groupCommits lists the positions committed to a group, in order ("orders-0=4").
func groupCommits(r *Run, group string) (atMs []int64, committed [][]string) {
	for _, o := range r.World.Observations().All() {
		if o.Event == protocol.OffsetCommitted && o.Group == group {
			atMs = append(atMs, o.AtMs)
			committed = append(committed, o.Committed)
		}
	}
	return atMs, committed
}

// A KafkaSource with a group.id commits the offsets of each completed checkpoint to the
// group, and only then: the group trails the source by up to a checkpoint interval. A
// checkpoint taken before the source read anything commits nothing, and a restore reads
// the checkpoint, never the group.
func TestASourceCommitsItsCheckpointsOffsetsToItsGroup(t *testing.T) {
	r, rep := runJob(t, jobScene(1, "    source: {topic: orders, group.id: totals-offsets}\n    sink: {kafka: {topic: out}}",
		"  - {when: {node: totals/map-0, event: processed, message: p1#7}, crash: totals/map-0}\n"))
	at, committed := groupCommits(r, "totals-offsets")
	completed := observed(r, flink.CheckpointCompleted)
	require.NotEmpty(t, at, "the source commits")
	for i, ms := range at {
		// each commit follows a completed checkpoint by no more than a round trip
		var last int64 = -1
		for _, c := range completed {
			if c.AtMs <= ms {
				last = c.AtMs
			}
		}
		require.GreaterOrEqual(t, last, int64(0), "commit %d came before any checkpoint completed", i)
		assert.Less(t, ms-last, int64(100), "commit %d at %d ms, the last checkpoint completed at %d ms", i, ms, last)
	}
	assert.Equal(t, []string{"orders-0=10"}, committed[len(committed)-1], "the last one is the last checkpoint's, which covers everything")
	restored := observed(r, flink.Restored)
	require.Len(t, restored, 2)
	assert.Equal(t, 10, rep.Messages["delivered"]+rep.Messages["duplicated"])
	assert.Zero(t, rep.Messages["lost"])

	// without a group.id, nothing is committed
	plain, _ := runJob(t, jobScene(1, "    source: {topic: orders}\n    sink: {kafka: {topic: out}}", "  []"))
	for _, o := range plain.World.Observations().All() {
		if o.Event == protocol.OffsetCommitted {
			assert.Equal(t, "audit", o.Group, "only audit commits: %v", o.Committed)
		}
	}
}

// starting.offsets committed starts a job without a checkpoint at its group's offsets; a
// partition with none starts at the earliest; once the job has a checkpoint, a restore
// starts from the checkpoint.
func TestACommittedStartBeginsAtTheGroupsOffsets(t *testing.T) {
	r, _ := runJob(t, jobScene(1, "    source: {topic: orders, group.id: fresh, starting.offsets: committed}\n    sink: {kafka: {topic: out}}", "  []"))
	emitted := observed(r, flink.Emitted)
	require.NotEmpty(t, emitted)
	assert.Equal(t, int64(0), emitted[0].Offset, "nothing committed to fresh: from the earliest")

	_, err := Parse("job.yaml", []byte(jobScene(1, "    source: {topic: orders, starting.offsets: committed}\n    sink: {kafka: {topic: out}}", "  []")))
	assert.ErrorContains(t, err, "committed needs source.group.id")
}

// The group coordinator takes a commit without group management only for a group
// without members: a job whose source shares its group.id with a consumer application
// of that group has its commits refused (UNKNOWN_MEMBER_ID) while the application is a
// member, and the group's offsets stay the application's.
func TestASourceCannotCommitIntoAGroupWithMembers(t *testing.T) {
	text := strings.Replace(jobScene(1, "    source: {topic: orders, group.id: audit}\n    sink: {kafka: {topic: out}}", "  []"),
		"  - consumer: audit\n", "  - consumer: audit\n    group: audit\n", 1)
	r, _ := runJob(t, text)
	var refused, fromJob int
	for _, l := range r.World.Trace().Texts(true) {
		if strings.Contains(l, "->totals/source-0#1 OffsetCommitResponse") {
			fromJob++
			if strings.Contains(l, "UNKNOWN_MEMBER_ID") {
				refused++
			}
		}
	}
	require.Positive(t, fromJob, "the source commits")
	assert.Equal(t, fromJob, refused, "every one refused: audit is a member")
	_, committed := groupCommits(r, "audit")
	for _, c := range committed {
		assert.Equal(t, []string{"out-0"}, []string{strings.Split(c[0], "=")[0]}, "only audit's own positions: %v", c)
	}
}

// A source that starts from its group's offsets while a broker is down (the group's
// coordinator, or the one it asks first) looks the coordinator up again until it
// answers, starts, and lets the run settle.
func TestACommittedStartWaitsOutADownBroker(t *testing.T) {
	for _, b := range []string{"broker-1", "broker-2", "broker-3"} {
		r, rep := runJob(t, jobScene(1, "    source: {topic: orders, group.id: fresh, starting.offsets: committed}\n    sink: {kafka: {topic: out}}",
			"  - {at.ms: 0, crash: "+b+", for.ms: 3000}\n"))
		assert.Equal(t, EndSettled, r.EndNote, b)
		assert.NotEmpty(t, observed(r, flink.Emitted), b)
		assert.Zero(t, rep.Messages["lost"], b)
	}
}
