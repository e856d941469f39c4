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

// jobWait is the one answer to what the job waits for: a code ("" for nothing), and the
// task whose consumer or sink it is about. Settled asks it at every instant, so it builds
// no reasons; WaitsFor turns it into one.
type jobWait struct {
	code fate.Code
	task *task
}

func (j *Job) wait(v sim.View) jobWait {
	switch {
	case len(j.down) > 0:
		return jobWait{code: fate.WaitsForRestart}
	case j.pending != nil:
		return jobWait{code: fate.WaitsForCheckpoint}
	}
	waitCheckpoint := j.latest == nil
	for _, t := range j.tasks {
		busy := !t.Running || t.Blocked || len(t.Held) > 0
		for _, in := range t.Inputs {
			busy = busy || len(in.Held) > 0
		}
		switch {
		case busy:
			return jobWait{code: fate.WaitsToProcess}
		case t.consumer != nil && !t.consumer.Settled(v):
			return jobWait{code: fate.WaitsToRead, task: t}
		case t.consumer != nil && t.consumer.Storing():
			return jobWait{code: fate.WaitsForCommit, task: t} // its group's commit
		case t.Op >= 0 && !t.sink.settled():
			return jobWait{code: fate.WaitsForAcks, task: t}
		}
		if t.consumer != nil && j.latest != nil && !slices.Equal(j.latest.Parts[SourceName(t.Source)].Offsets, t.consumer.Positions()) {
			waitCheckpoint = true
		}
	}
	if waitCheckpoint {
		return jobWait{code: fate.WaitsForCheckpoint}
	}
	return jobWait{}
}

// Settled implements sim.Settler.
func (j *Job) Settled(v sim.View) bool { return j.wait(v).code == "" }

// WaitsFor says what keeps the job from settling.
func (j *Job) WaitsFor(v sim.View) []fate.Reason {
	w := j.wait(v)
	switch w.code {
	case "":
		return nil
	case fate.WaitsToRead:
		return w.task.consumer.WaitsFor(v) // its source's consumer says what it waits for
	case fate.WaitsForAcks:
		return []fate.Reason{fate.Because(w.code, "node", j.node(SinkName(w.task.Op)))}
	case fate.WaitsForCommit:
		return []fate.Reason{fate.Because(w.code, "node", j.node(SourceName(w.task.Source)))}
	case fate.WaitsForCheckpoint:
		next := j.counter + 1
		if j.pending != nil {
			next = j.pending.ID
		}
		return []fate.Reason{fate.Because(w.code, "node", j.name, "checkpoint", strconv.FormatInt(next, 10))}
	}
	return []fate.Reason{fate.Because(w.code, "node", j.name)}
}
