package flink

import (
	"strconv"

	"deliverylab/core/apps"
	"deliverylab/core/sim"
)

// The job's protocol points. A subtask's crash is the kernel's own `crashed` at the
// part ("totals/map-0 crashed"); its records' `processed` is the applications' event,
// reported by the operator subtask before it passes the record on.
const (
	CheckpointTriggered sim.Event = "checkpoint-triggered"
	CheckpointCompleted sim.Event = "checkpoint-completed"
	CheckpointAborted   sim.Event = "checkpoint-aborted"
	PreCommitted        sim.Event = "pre-committed"
	Restored            sim.Event = "restored"
	TaskFailed          sim.Event = "task-failed"
	Emitted             sim.Event = "emitted"
)

// Processed is the operator subtasks' point (the applications' event).
const Processed = apps.Processed

func checkpointDetail(o sim.Observation) string { return strconv.FormatInt(o.Checkpoint, 10) }

func init() {
	sim.RegisterEvents(
		sim.EventSpec{Event: CheckpointTriggered, Where: "`JOB/jobmanager`",
			When:   "the checkpoint coordinator triggered checkpoint n: the sources take their snapshots and send barrier n",
			Fields: []sim.Field{sim.FieldCheckpoint}, Detail: "the checkpoint's id", DetailOf: checkpointDetail},
		sim.EventSpec{Event: CheckpointCompleted, Where: "`JOB/jobmanager`",
			When:   "every subtask acknowledged checkpoint n: it is kept in checkpoint storage and the subtasks are told (notifyCheckpointComplete)",
			Fields: []sim.Field{sim.FieldCheckpoint}, Detail: "the checkpoint's id", DetailOf: checkpointDetail},
		sim.EventSpec{Event: CheckpointAborted, Where: "`JOB/jobmanager`",
			When:   "checkpoint n was given up (a subtask failed, or it timed out): it is never used for a restore",
			Fields: []sim.Field{sim.FieldCheckpoint, sim.FieldErr}, Detail: "why", DetailOf: func(o sim.Observation) string { return o.Err }},
		sim.EventSpec{Event: PreCommitted, Where: "`JOB/sink-i`",
			When:   "the sink subtask flushed its writes at barrier n (EXACTLY_ONCE: its transaction for n is pre-committed)",
			Fields: []sim.Field{sim.FieldCheckpoint}, Detail: "the checkpoint's id", DetailOf: checkpointDetail},
		sim.EventSpec{Event: Restored, Where: "`JOB/jobmanager`",
			When:   "the job (or a failed region of it) was deployed again from checkpoint n (0: from the start, none had completed)",
			Fields: []sim.Field{sim.FieldCheckpoint}, Detail: "the checkpoint's id", DetailOf: checkpointDetail},
		sim.EventSpec{Event: Emitted, Where: "`JOB/source-i`",
			When:   "the source subtask emitted the record into the job, before it hands it on (a pause here keeps it in hand)",
			Fields: []sim.Field{sim.FieldMsgs, sim.FieldPartition, sim.FieldOffset}},
		sim.EventSpec{Event: TaskFailed, Where: "`JOB/<subtask>`",
			When:   "a subtask failed (it crashed, or its sink's write failed): its region fails over",
			Fields: []sim.Field{sim.FieldErr}, Detail: "why", DetailOf: func(o sim.Observation) string { return o.Err }},
	)
}
