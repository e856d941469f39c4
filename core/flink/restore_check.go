package flink

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"deliverylab/core/sim"
)

// The restore invariant: a subtask restored from the latest completed checkpoint holds
// exactly that checkpoint's state (CheckpointCoordinator.restoreLatestCheckpointedState
// hands each subtask its snapshot unchanged). The job remembers what each completed
// checkpoint held when it completed, and compares what every restored task holds with
// it; a snapshot changed in storage after it completed, or state restored from anything
// else, is a problem Invariants reports.

// print is a checkpoint's state as text: every part's offsets, committables and totals,
// in a fixed order.
func (c *Checkpoint) print() string {
	if c == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "checkpoint %d", c.ID)
	for _, part := range slices.Sorted(maps.Keys(c.Parts)) {
		b.WriteString("\n" + part + ": " + c.Parts[part].print())
	}
	return b.String()
}

func (s Snapshot) print() string {
	var b strings.Builder
	for _, o := range s.Offsets {
		fmt.Fprintf(&b, "%s@%d ", o.TP, o.Offset)
	}
	for _, c := range s.Committables {
		fmt.Fprintf(&b, "txn %s pid=%d e%d cp%d ", c.TransactionalID, c.ProducerID, c.Epoch, c.Checkpoint)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Totals)) {
		fmt.Fprintf(&b, "%s=%d[%s] ", k, s.Totals[k].Value, s.Totals[k].Folds)
	}
	return strings.TrimSpace(b.String())
}

// checkRestored compares a freshly started task's state with the checkpoint it was
// restored from; it runs at every deployment after the first checkpoint.
func (j *Job) checkRestored(ti int) {
	if j.latest == nil {
		return
	}
	if now := j.latest.print(); now != j.latestPrint {
		j.problems = append(j.problems, fmt.Sprintf("%s: checkpoint %d changed in storage after it completed:\nthen %s\nnow  %s",
			j.name, j.latest.ID, j.latestPrint, now))
		return
	}
	t := j.tasks[ti]
	if t.Op >= 0 && j.spec.Operator.Aggregates() {
		name := j.spec.OperatorName(t.Op)
		want := Snapshot{Totals: j.latest.Parts[name].Totals}.print()
		if got := (Snapshot{Totals: t.Totals}).print(); got != want {
			j.problems = append(j.problems, fmt.Sprintf("%s/%s restored %q, not checkpoint %d's %q", j.name, name, got, j.latest.ID, want))
		}
	}
}

// Invariants lists what is wrong with the job's state: a restore that did not give a
// subtask its checkpoint's state.
func (j *Job) Invariants(sim.View) []string { return slices.Clone(j.problems) }
