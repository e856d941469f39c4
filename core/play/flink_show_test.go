package play

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/fate"
	"deliverylab/core/show"
)

// jobUntil steps s until its job node satisfies ok, and returns the node; the run must
// not end first.
func jobUntil(t *testing.T, s *Session, job, what string, ok func(NodeState) bool) NodeState {
	t.Helper()
	for s.Step() {
		for _, n := range s.State().Nodes {
			if n.Name == job && ok(n) {
				return n
			}
		}
	}
	require.Failf(t, "the run ended", "before %s", what)
	return NodeState{}
}

// partOfJob is one part of a job node.
func partOfJob(t *testing.T, n NodeState, name string) show.Part {
	t.Helper()
	for _, p := range n.Parts {
		if p.Name == name {
			return p
		}
	}
	require.Failf(t, "no such part", "%s has no %s", n.Name, name)
	return show.Part{}
}

func statusIs(en string) func(NodeState) bool {
	return func(n NodeState) bool { return n.Status.Text(fate.En) == en }
}

// Along the dashboard scene, the job shows at each moment what its subtasks hold: the
// source's offsets, the sum's totals, the sink's transactions, and what the latest
// completed checkpoint holds of each; its status says the checkpoint under way and how
// many tasks acknowledged it.
func TestJobShowsItsStateAlongTheDashboard(t *testing.T) {
	s, err := Load("flink-case-dashboard")
	require.NoError(t, err)

	n := jobUntil(t, s, "cases", "checkpoint 2 half acknowledged", statusIs("checkpoint 1 completed · 2 pending 1/2"))
	assert.Equal(t, "检查点 1 已完成 · 2 进行中 1/2", n.Status.Text(fate.Zh))
	sum := partOfJob(t, n, "sum-0")
	assert.Equal(t, []string{"region-0=6", "region-1=4"}, sum.Totals, "report 4 is folded in")
	assert.Empty(t, sum.Snapshot, "checkpoint 1 held no keys yet")
	src := partOfJob(t, n, "source-0")
	assert.Equal(t, []string{"reports-0@4"}, src.Offsets)
	assert.Equal(t, []string{"reports-0@0"}, src.Snapshot)
	assert.Equal(t, int64(1), src.SnapshotOf)
	assert.Equal(t, []show.PartTxn{{ID: "cases-0-2", State: show.TxnPreCommitted}}, partOfJob(t, n, "sink-0").Txns,
		"the sink flushed at barrier 2 and pre-committed the transaction of checkpoint 2")

	n = jobUntil(t, s, "cases", "checkpoint 2 completed", statusIs("checkpoint 2 completed"))
	sum = partOfJob(t, n, "sum-0")
	assert.Equal(t, []string{"region-0=6", "region-1=4"}, sum.Snapshot)
	assert.Equal(t, int64(2), sum.SnapshotOf)
	assert.Equal(t, []show.PartTxn{{ID: "cases-0-2", State: show.TxnPreCommitted}, {ID: "cases-0-3", State: show.TxnOpen}},
		partOfJob(t, n, "sink-0").Txns, "waiting for notifyCheckpointComplete, the next one open")

	n = jobUntil(t, s, "cases", "the commit of checkpoint 2", func(n NodeState) bool {
		tx := partOfJob(t, n, "sink-0").Txns
		return len(tx) > 0 && tx[0].State == show.TxnCommitting
	})
	assert.Equal(t, "cases-0-2", partOfJob(t, n, "sink-0").Txns[0].ID)

	n = jobUntil(t, s, "cases", "report 5 folded in", func(n NodeState) bool {
		return len(partOfJob(t, n, "sum-0").Totals) == 2 && partOfJob(t, n, "sum-0").Totals[1] == "region-1=9"
	})
	assert.Equal(t, []string{"region-0=6", "region-1=9"}, partOfJob(t, n, "sum-0").Totals)
	assert.Equal(t, []show.PartTxn{{ID: "cases-0-3", State: show.TxnOpen}}, partOfJob(t, n, "sink-0").Txns, "cases-0-2 committed")

	n = jobUntil(t, s, "cases", "the failover", statusIs("checkpoint 2 completed · restarting"))
	sum = partOfJob(t, n, "sum-0")
	assert.False(t, sum.Running)
	assert.Empty(t, sum.Totals, "a failed task holds no state")
	assert.Equal(t, []string{"region-0=6", "region-1=4"}, sum.Snapshot, "checkpoint storage keeps it")

	n = jobUntil(t, s, "cases", "the restore", func(n NodeState) bool { return partOfJob(t, n, "sum-0").Running })
	assert.Equal(t, []string{"region-0=6", "region-1=4"}, partOfJob(t, n, "sum-0").Totals, "restored from checkpoint 2")
	assert.Equal(t, []string{"reports-0@4"}, partOfJob(t, n, "source-0").Offsets, "rewound to checkpoint 2's offset")
	assert.Equal(t, []show.PartTxn{{ID: "cases-0-2", State: show.TxnCommitting}}, partOfJob(t, n, "sink-0").Txns,
		"the restored committable is committed again")
}

// A checkpoint aborted by a task failure is shown until the next one is triggered.
func TestJobShowsTheLastAbortedCheckpoint(t *testing.T) {
	s, err := Load("flink-case-dashboard")
	require.NoError(t, err)
	jobUntil(t, s, "cases", "checkpoint 2 half acknowledged", statusIs("checkpoint 1 completed · 2 pending 1/2"))
	require.NoError(t, s.Inject("{crash: cases/sum-0}"))
	n := jobUntil(t, s, "cases", "the abort", func(n NodeState) bool { return !partOfJob(t, n, "sum-0").Running })
	assert.Equal(t, "checkpoint 1 completed · 2 aborted · restarting", n.Status.Text(fate.En))
	assert.Equal(t, "检查点 1 已完成 · 2 已中止 · 重启中", n.Status.Text(fate.Zh))
	n = jobUntil(t, s, "cases", "the restart", func(n NodeState) bool { return partOfJob(t, n, "sum-0").Running })
	assert.Equal(t, "checkpoint 1 completed · 2 aborted", n.Status.Text(fate.En), "still the last aborted")
	jobUntil(t, s, "cases", "checkpoint 3 triggered", statusIs("checkpoint 1 completed · 3 pending 0/2"))
}
