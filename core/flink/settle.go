package flink

import (
	"slices"
	"strconv"

	"deliverylab/core/fate"
	"deliverylab/core/sim"
)

// A job has settled when every task runs and holds nothing, its sources have read
// everything they can, its sinks heard back from every write, and its latest completed
// checkpoint covers what its sources read: the rest a running job comes to, where a
// failure would replay nothing. Until then it waits for its next checkpoint; after it,
// its periodic checkpoints are background and do not keep a run going.

// Settled implements sim.Settler.
func (j *Job) Settled(v sim.View) bool { return len(j.WaitsFor(v)) == 0 }

// WaitsFor says what keeps the job from settling.
func (j *Job) WaitsFor(v sim.View) []fate.Reason {
	if len(j.down) > 0 {
		return []fate.Reason{fate.Because(fate.WaitsForRestart, "node", j.name)}
	}
	if j.pending != nil {
		return []fate.Reason{fate.Because(fate.WaitsForCheckpoint, "node", j.name, "checkpoint", strconv.FormatInt(j.pending.ID, 10))}
	}
	waitCheckpoint := j.latest == nil
	for _, t := range j.tasks {
		busy := !t.Running || t.Blocked || len(t.Held) > 0
		for _, in := range t.Inputs {
			busy = busy || len(in.Held) > 0
		}
		if busy {
			return []fate.Reason{fate.Because(fate.WaitsToProcess, "node", j.name)}
		}
		if t.consumer != nil && !t.consumer.Settled(v) {
			return t.consumer.WaitsFor(v)
		}
		if t.Op >= 0 && !t.sink.settled() {
			return []fate.Reason{fate.Because(fate.WaitsForAcks, "node", j.node(SinkName(t.Op)))}
		}
		if t.consumer != nil && j.latest != nil && !slices.Equal(j.latest.Parts[SourceName(t.Source)].Offsets, t.consumer.Positions()) {
			waitCheckpoint = true
		}
	}
	if waitCheckpoint {
		return []fate.Reason{fate.Because(fate.WaitsForCheckpoint, "node", j.name, "checkpoint", strconv.FormatInt(j.counter+1, 10))}
	}
	return nil
}
