package flink

import (
	"slices"

	"deliverylab/core/sim"
)

// A paused subtask is a task whose thread has stopped (pause: JOB/source-1): a long GC
// pause of one task, or a call that blocks. The job's other tasks go on, checkpoints are
// triggered, barriers travel; what comes for the paused task waits in order. A pause at
// one of its points (emitted, processed) stops it with that record in hand. Its source's
// fetcher is a thread of its own and fills a small queue meanwhile; here the source
// fetches again once it runs: what it fetched leaves after its barrier either way.
//
// At the resume the task finishes the record in hand, then runs the mails that came
// meanwhile before anything else (Flink's MailboxProcessor runs mails before its next
// default action): a checkpoint's trigger injects its barrier ahead of the records the
// source fetched during the pause. A pause belongs to the task attempt: a failover
// deploys attempts that run.

// PausePart implements sim.PartPauser.
func (j *Job) PausePart(env *sim.Env, part string) {
	if t, _ := j.taskOf(part); t != nil && t.Running {
		t.Paused = true
	}
}

// ResumePart implements sim.PartPauser.
func (j *Job) ResumePart(env *sim.Env, part string) {
	t, ti := j.taskOf(part)
	if t == nil || !t.Paused {
		return
	}
	t.Paused = false
	t.Held = resumeOrder(t.Held)
	if t.Blocked {
		return // its sink still waits; the flush's end runs what it holds, in this order
	}
	held := t.Held
	t.Held = nil
	j.replay(env, ti, held)
}

// resumeOrder is what a paused task runs at its resume: the record in hand, the mails
// (checkpoint triggers, notifications of completed checkpoints), then the rest as it came.
func resumeOrder(held []item) []item {
	mail := func(it item) bool { return it.Trigger != 0 || it.Notify != 0 }
	var inHand, mails, rest []item
	for _, it := range held {
		switch {
		case it.InHand:
			inHand = append(inHand, it)
		case mail(it):
			mails = append(mails, it)
		default:
			rest = append(rest, it)
		}
	}
	return slices.Concat(inHand, mails, rest)
}

// holdAhead keeps items a task could not run yet ahead of what it held already, behind
// a record in hand (they came before what it held, after the one it had started).
func (t *task) holdAhead(items []item) {
	n := 0
	for n < len(t.Held) && t.Held[n].InHand {
		n++
	}
	t.Held = slices.Concat(t.Held[:n:n], items, t.Held[n:])
}
