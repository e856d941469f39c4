package flink

import (
	"strconv"

	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// Show implements show.Shower: the job's latest completed checkpoint, the one under way
// and whether a region is restarting; each part's state for the canvas.
func (j *Job) Show(sim.View) show.Node {
	var done int64
	if j.latest != nil {
		done = j.latest.ID
	}
	st := fate.Because(fate.StatusJob, "checkpoint", strconv.FormatInt(done, 10))
	if j.pending != nil {
		st = st.And(fate.StatusCheckpoint, "checkpoint", strconv.FormatInt(j.pending.ID, 10))
	}
	if len(j.down) > 0 {
		st = st.And(fate.StatusRestarting)
	}
	return show.Node{Kind: show.Job, Status: st, Parts: j.showParts()}
}

// showParts is each subtask as the canvas draws it.
func (j *Job) showParts() []show.Part {
	var out []show.Part
	for _, t := range j.tasks {
		for _, p := range j.parts(t) {
			sp := show.Part{Name: p, Running: t.Running, Blocked: t.Blocked}
			if t.Source >= 0 && p == SourceName(t.Source) && t.consumer != nil {
				for _, o := range t.consumer.Positions() {
					sp.Offsets = append(sp.Offsets, o.TP.String()+"@"+strconv.FormatInt(o.Offset, 10))
				}
			}
			if t.Op >= 0 && p == j.spec.OperatorName(t.Op) {
				for i, in := range t.Inputs {
					if in.Seen && j.spec.Checkpointing.Mode == ExactlyOnce {
						sp.BlockedInputs = append(sp.BlockedInputs, SourceName(i))
					}
				}
			}
			out = append(out, sp)
		}
	}
	return out
}

// Positions is where each source subtask reads: the canvas marks it on the leaders' logs.
func (j *Job) Positions() []protocol.TPOffset {
	var out []protocol.TPOffset
	for _, t := range j.tasks {
		if t.consumer != nil && t.Running {
			out = append(out, t.consumer.Positions()...)
		}
	}
	return out
}
