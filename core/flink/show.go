package flink

import (
	"maps"
	"slices"
	"strconv"

	"deliverylab/core/fate"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// Show implements show.Shower: the job's latest completed checkpoint, the one under way
// (how many tasks acknowledged it) or the last one aborted, and whether a region is
// restarting; each part's state and snapshot for the canvas.
func (j *Job) Show(sim.View) show.Node {
	st := fate.Because(fate.StatusJobNone)
	if j.latest != nil {
		st = fate.Because(fate.StatusJob, "checkpoint", strconv.FormatInt(j.latest.ID, 10))
	}
	switch {
	case j.pending != nil:
		st = st.And(fate.StatusCheckpoint, "checkpoint", strconv.FormatInt(j.pending.ID, 10),
			"acked", strconv.Itoa(len(j.pending.Acked)), "tasks", strconv.Itoa(len(j.tasks)))
	case j.aborted > 0:
		st = st.And(fate.StatusCheckpointAborted, "checkpoint", strconv.FormatInt(j.aborted, 10))
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
			sp := show.Part{Name: p, Running: t.Running, Blocked: t.Blocked, Paused: t.Paused}
			switch {
			case t.Source >= 0 && p == SourceName(t.Source):
				if t.consumer != nil {
					sp.Offsets = offsetTexts(t.consumer.Positions())
				}
			case t.Op >= 0 && p == j.spec.OperatorName(t.Op):
				for i, in := range t.Inputs {
					if in.Seen && j.spec.Checkpointing.Mode == ExactlyOnce {
						sp.BlockedInputs = append(sp.BlockedInputs, SourceName(i))
					}
				}
				sp.Totals = totalTexts(t.Totals)
			case t.Op >= 0 && p == SinkName(t.Op):
				sp.Txns = j.showTxns(t)
			}
			j.showSnapshot(&sp)
			out = append(out, sp)
		}
	}
	return out
}

// showSnapshot adds what the latest completed checkpoint holds of a part: a source's
// offsets, a count's or sum's totals (a sink's committables are its pre-committed
// transactions, shown as such).
func (j *Job) showSnapshot(sp *show.Part) {
	if j.latest == nil {
		return
	}
	s, ok := j.latest.Parts[sp.Name]
	if !ok {
		return
	}
	sp.Snapshot = append(offsetTexts(s.Offsets), totalTexts(s.Totals)...)
	if len(sp.Snapshot) > 0 {
		sp.SnapshotOf = j.latest.ID
	}
}

// showTxns is an EXACTLY_ONCE sink's transactions: the pre-committed ones (committing
// once their checkpoint completed), then the open one.
func (j *Job) showTxns(t *task) []show.PartTxn {
	if t.sink.xa != nil {
		return j.showXA(t)
	}
	e := t.sink.eos
	if e == nil {
		return nil
	}
	committing := map[int64]bool{}
	for _, n := range e.Committing {
		committing[n] = true
	}
	var out []show.PartTxn
	for _, n := range slices.Sorted(maps.Keys(e.Pending)) {
		st := show.TxnPreCommitted
		if committing[n] {
			st = show.TxnCommitting
		}
		out = append(out, show.PartTxn{ID: e.Pending[n].TransactionalID, State: st})
	}
	if e.Current != "" {
		out = append(out, show.PartTxn{ID: j.transactionalID(t.Op, e.CurrentFor), State: show.TxnOpen})
	}
	return out
}

// offsetTexts is each partition's offset as the canvas says it: "orders-0@4".
func offsetTexts(offs []protocol.TPOffset) []string {
	var out []string
	for _, o := range offs {
		out = append(out, o.TP.String()+"@"+strconv.FormatInt(o.Offset, 10))
	}
	return out
}

// totalTexts is keyed state as the canvas says it, sorted by key: "region-0=6".
func totalTexts(totals map[string]Total) []string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(totals)) {
		out = append(out, k+"="+strconv.FormatInt(totals[k].Value, 10))
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
