package flink

import (
	"deliverylab/core/sim"
)

// The checkpoint coordinator, on the job manager (CheckpointCoordinator): periodic
// triggers, at most one checkpoint in flight (a trigger that falls due meanwhile waits
// for it to end), the acknowledgements, completion and the timeout.

func (j *Job) coordinatorFire(env *sim.Env, tm sim.Payload) {
	switch t := tm.(type) {
	case checkpointTick:
		env.After(j.spec.Checkpointing.IntervalMs, checkpointTick{})
		if j.pending != nil {
			j.queued = true
			return
		}
		j.trigger(env)
	case checkpointTimeout:
		if j.pending != nil && j.pending.ID == t.Checkpoint {
			j.abort(env, "expired before completing")
		}
	case restartDue:
		j.down = remove(j.down, t.Region)
		j.deploy(env, t.Region)
	}
}

// trigger starts checkpoint n: every source task takes its snapshot and sends barrier n.
// A job with a task not running (a region waiting for its restart) cannot take one
// (CheckpointCoordinator: not all required tasks are running), and waits for the next
// interval.
func (j *Job) trigger(env *sim.Env) {
	j.queued = false
	for _, t := range j.tasks {
		if !t.Running || t.Initializing {
			return
		}
	}
	j.counter++
	n := j.counter
	j.aborted = 0
	j.pending = &pendingCheckpoint{ID: n, Acked: map[int]bool{}, Parts: map[string]Snapshot{}}
	env.Observe(sim.Observation{Node: j.node(JobManager), Event: CheckpointTriggered, Checkpoint: n})
	for _, t := range j.tasks {
		if t.Source >= 0 {
			env.Send(j.address(t, SourceName(t.Source)), TriggerCheckpoint{Checkpoint: n})
		}
	}
	env.After(j.spec.Checkpointing.TimeoutMs, checkpointTimeout{Checkpoint: n})
}

// coordinatorReceive takes a task's acknowledgement; the last one completes the
// checkpoint.
func (j *Job) coordinatorReceive(env *sim.Env, m sim.Message) {
	a, ok := m.Payload.(AcknowledgeCheckpoint)
	if !ok || j.pending == nil || a.Checkpoint != j.pending.ID {
		return // late: the checkpoint was aborted
	}
	_, attempt, _ := parsePort(sim.PortOf(m.From))
	t, ti := j.taskOf(a.Part)
	if t == nil || !t.Running || t.Attempt != attempt {
		return
	}
	j.pending.Acked[ti] = true
	for k, v := range a.Snapshots {
		j.pending.Parts[k] = v
	}
	if len(j.pending.Acked) < len(j.tasks) {
		return
	}
	done := Checkpoint{ID: j.pending.ID, Parts: j.pending.Parts}
	j.latest, j.pending = &done, nil
	j.latestPrint = done.print()
	env.Observe(sim.Observation{Node: j.node(JobManager), Event: CheckpointCompleted, Checkpoint: done.ID})
	for _, t := range j.tasks {
		switch {
		case t.Op >= 0:
			env.Send(j.address(t, SinkName(t.Op)), NotifyCheckpointComplete{Checkpoint: done.ID})
		case j.spec.Source.GroupID != "":
			// a source task has something to do with it only when it commits to a group
			env.Send(j.address(t, SourceName(t.Source)), NotifyCheckpointComplete{Checkpoint: done.ID})
		}
	}
	if j.queued {
		j.trigger(env)
	}
}

// abort gives the pending checkpoint up: it is never used for a restore.
func (j *Job) abort(env *sim.Env, why string) {
	env.Observe(sim.Observation{Node: j.node(JobManager), Event: CheckpointAborted, Checkpoint: j.pending.ID, Err: why})
	j.aborted, j.pending = j.pending.ID, nil
	if j.queued {
		j.trigger(env)
	}
}

// address is a part's address in a task attempt: "totals/map-0#3".
func (j *Job) address(t *task, part string) string {
	return sim.Address(j.name, attemptPort(part, t.Attempt))
}

func remove(s []int, v int) []int {
	out := s[:0]
	for _, x := range s {
		if x != v {
			out = append(out, x)
		}
	}
	return out
}
