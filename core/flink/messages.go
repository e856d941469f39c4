package flink

import (
	"strconv"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The job's own traffic: records and barriers on the channels between subtasks (a keyBy
// shuffle), and the checkpoint coordinator's calls to its subtasks and their answers.
// They travel between the job's parts (its process talks to itself), so the canvas
// draws them as every other message.

// StreamRecord is one record on a channel, from a source subtask to an operator subtask.
type StreamRecord struct {
	From int // the source subtask
	protocol.Data
}

func (StreamRecord) Kind() string { return "Record" }
func (r StreamRecord) Describe() string {
	s := "Record"
	if r.Msg != "" {
		s += " " + r.Msg
	}
	return s + " key=" + r.Key
}
func (r StreamRecord) Label() string    { return r.Msg }
func (StreamRecord) Family() sim.Family { return sim.Stream }

// Barrier is checkpoint barrier n on a channel: everything the source sent before it is
// in checkpoint n, everything after it is not.
type Barrier struct {
	From       int // the source subtask
	Checkpoint int64
}

func (Barrier) Kind() string       { return "Barrier" }
func (b Barrier) Describe() string { return "Barrier " + strconv.FormatInt(b.Checkpoint, 10) }
func (b Barrier) Label() string    { return "|" + strconv.FormatInt(b.Checkpoint, 10) + "|" }
func (Barrier) Family() sim.Family { return sim.Stream }

// TriggerCheckpoint is the coordinator's call to a source subtask: take snapshot n and
// send barrier n (Task.triggerCheckpointBarrier).
type TriggerCheckpoint struct{ Checkpoint int64 }

func (TriggerCheckpoint) Kind() string { return "TriggerCheckpoint" }
func (t TriggerCheckpoint) Describe() string {
	return "TriggerCheckpoint " + strconv.FormatInt(t.Checkpoint, 10)
}
func (TriggerCheckpoint) Family() sim.Family { return sim.Checkpoint }

// AcknowledgeCheckpoint is a subtask's snapshot of checkpoint n, sent to the coordinator
// once it is taken (and, for a sink, flushed).
type AcknowledgeCheckpoint struct {
	Checkpoint int64
	Part       string              // a part of the task that acknowledges
	Snapshots  map[string]Snapshot // the task's parts' snapshots
}

func (AcknowledgeCheckpoint) Kind() string { return "AcknowledgeCheckpoint" }
func (a AcknowledgeCheckpoint) Describe() string {
	return "AcknowledgeCheckpoint " + strconv.FormatInt(a.Checkpoint, 10) + " " + a.Part
}
func (AcknowledgeCheckpoint) Family() sim.Family { return sim.Checkpoint }

// NotifyCheckpointComplete tells a subtask that checkpoint n is completed: a sink commits
// what it pre-committed for it.
type NotifyCheckpointComplete struct{ Checkpoint int64 }

func (NotifyCheckpointComplete) Kind() string { return "NotifyCheckpointComplete" }
func (n NotifyCheckpointComplete) Describe() string {
	return "NotifyCheckpointComplete " + strconv.FormatInt(n.Checkpoint, 10)
}
func (NotifyCheckpointComplete) Family() sim.Family { return sim.Checkpoint }

// The coordinator's timers.
type (
	checkpointTick    struct{}                   // execution.checkpointing.interval is up
	checkpointTimeout struct{ Checkpoint int64 } // execution.checkpointing.timeout
	restartDue        struct{ Region int }       // restart.delay.ms after a failover
)

func (checkpointTick) Kind() string     { return "CheckpointTick" }
func (checkpointTick) Describe() string { return checkpointTickLine }
func (checkpointTick) Background() bool { return true }
func (checkpointTimeout) Kind() string  { return "CheckpointTimeout" }
func (t checkpointTimeout) Describe() string {
	return sim.TimerLine("jobmanager", t, strconv.FormatInt(t.Checkpoint, 10))
}
func (restartDue) Kind() string       { return "RestartDue" }
func (t restartDue) Describe() string { return sim.TimerLine("jobmanager", t, strconv.Itoa(t.Region)) }

var checkpointTickLine = sim.TimerLine("jobmanager", checkpointTick{})

func msgsOf(msg string) []string {
	if msg == "" {
		return nil
	}
	return []string{msg}
}
