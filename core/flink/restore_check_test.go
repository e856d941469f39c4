package flink

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The restore invariant fires on a checkpoint changed in storage after it completed, and
// on a subtask that restored other totals than its checkpoint's.
func TestTheRestoreInvariantFires(t *testing.T) {
	j := &Job{name: "totals", spec: JobSpec{Operator: Sum}, tasks: []*task{{Op: 0, Source: -1}}}
	j.latest = &Checkpoint{ID: 2, Parts: map[string]Snapshot{"sum-0": {Totals: map[string]Total{"k1": {Value: 3, Folds: "p1#1,p1#2"}}}}}
	j.latestPrint = j.latest.print()

	j.tasks[0].Totals = map[string]Total{"k1": {Value: 3, Folds: "p1#1,p1#2"}}
	j.checkRestored(0)
	require.Empty(t, j.Invariants(nil), "restored as checkpointed")

	j.tasks[0].Totals = map[string]Total{"k1": {Value: 5, Folds: "p1#1,p1#2,p1#3"}}
	j.checkRestored(0)
	require.Len(t, j.Invariants(nil), 1)
	assert.Contains(t, j.Invariants(nil)[0], `totals/sum-0 restored "k1=5[p1#1,p1#2,p1#3]", not checkpoint 2's "k1=3[p1#1,p1#2]"`)

	j.problems = nil
	j.latest.Parts["sum-0"].Totals["k1"] = Total{Value: 4} // the map shared with a running task, say
	j.checkRestored(0)
	require.Len(t, j.Invariants(nil), 1)
	assert.Contains(t, j.Invariants(nil)[0], "checkpoint 2 changed in storage after it completed")
}
