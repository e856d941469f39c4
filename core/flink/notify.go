package flink

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// notifyCheckpointComplete reaches a task once per completed checkpoint (a chained task
// hears it at its sink, a source task of a keyed job at its source), and every operator
// of the task's chain takes it: the sink commits what the checkpoint pre-committed, the
// source commits the checkpoint's offsets to its group, if it has one.

// offerNotify hands the task the news, or holds it while the task is paused: it is a
// mail, and waits for the task's thread.
func (j *Job) offerNotify(env *sim.Env, ti int, n int64) {
	if j.tasks[ti].Paused {
		j.tasks[ti].Held = append(j.tasks[ti].Held, item{Notify: n})
		return
	}
	j.notified(env, ti, n)
}

// notified runs checkpoint n's completion in the task's chain.
func (j *Job) notified(env *sim.Env, ti int, n int64) {
	t := j.tasks[ti]
	if t.Source >= 0 {
		j.commitSourceOffsets(env, ti, n)
	}
	if t.Op >= 0 {
		j.sinkNotified(env, ti, n)
	}
}

// commitSourceOffsets commits the source's offsets of completed checkpoint n to its
// group (KafkaSourceReader.notifyCheckpointComplete → commitAsync), for monitoring only:
// a restore reads the checkpoint, never these. A partition the source has read nothing
// of yet is left out: the real reader holds only a starting-offset marker for it until
// its first record (KafkaSourceReader.snapshotState keeps offsets ≥ 0).
func (j *Job) commitSourceOffsets(env *sim.Env, ti int, n int64) {
	t := j.tasks[ti]
	if j.spec.Source.GroupID == "" || j.latest == nil || j.latest.ID != n {
		return
	}
	var offs []protocol.TPOffset
	for _, o := range j.latest.Parts[SourceName(t.Source)].Offsets {
		if o.Offset > 0 {
			offs = append(offs, o)
		}
	}
	t.consumer.CommitAssigned(env.Port(attemptPort(SourceName(t.Source), t.Attempt)), offs)
}
