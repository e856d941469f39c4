package flink

import (
	"deliverylab/core/kafka/clients"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
	"deliverylab/core/sinks"
)

// sinkWriter is a KafkaSink subtask's writer (KafkaWriter): its producer, and the sends
// it has not heard back from. The first failed send fails the task (WriterCallback keeps
// the exception, and the task's mailbox rethrows it).
type sinkWriter struct {
	producer *clients.Producer
	unacked  int
}

func (w sinkWriter) clone() sinkWriter {
	if w.producer != nil {
		w.producer = w.producer.Clone()
	}
	return w
}

// stop closes the writer's producer: what it had not sent is gone.
func (w *sinkWriter) stop() {
	if w.producer != nil {
		w.producer.Reset()
	}
	w.unacked = 0
}

// idle reports whether every write was answered.
func (w sinkWriter) idle() bool {
	return w.producer == nil || (w.unacked == 0 && w.producer.Idle())
}

// startSink starts a sink subtask's producer.
func (j *Job) startSink(env *sim.Env, t *task) {
	part := SinkName(t.Op)
	t.sink = sinkWriter{producer: j.newProducer(j.name+"-"+part, "")}
	t.sink.producer.Start(env.Port(attemptPort(part, t.Attempt)))
}

// sinkWrite sends a record to the output topic (KafkaWriter.write).
func (j *Job) sinkWrite(env *sim.Env, ti int, d protocol.Data) {
	t := j.tasks[ti]
	t.sink.unacked++
	pe := env.Port(attemptPort(SinkName(t.Op), t.Attempt))
	j.sinkDone(env, ti, t.sink.producer.Send(pe, j.spec.Sink.Topic, d.Key, d.Value, d.Msg))
}

func (j *Job) sinkReceive(env *sim.Env, t *task, _ string, m sim.Message) []clients.Completion {
	return t.sink.producer.Receive(env, m)
}

func (j *Job) sinkFire(env *sim.Env, t *task, _ string, tm sim.Payload) []clients.Completion {
	return t.sink.producer.Fire(env, tm)
}

// sinkDone takes the producer's completions: a failed send fails the task; the last
// answer a barrier's flush waited for lets the task go on.
func (j *Job) sinkDone(env *sim.Env, ti int, done []clients.Completion) {
	t := j.tasks[ti]
	attempt := t.Attempt
	for _, c := range done {
		if !j.current(ti, attempt) {
			return
		}
		if c.Txn != clients.TxnNone {
			continue
		}
		t.sink.unacked = max(0, t.sink.unacked-max(1, len(c.Msgs)))
		if c.Err != "" {
			j.failTask(env, ti, SinkName(t.Op), c.Err.String())
			return
		}
		part := SinkName(t.Op)
		pe := env.Port(attemptPort(part, attempt))
		for i, m := range c.Msgs {
			pe.Observe(sim.Observation{Node: j.node(part), Event: sinks.Written, Msgs: []string{m}, Partition: c.TP.String(),
				Offset: c.Offset + int64(i), Output: j.spec.Sink.Topic})
		}
	}
	if t.Blocked && t.sink.idle() {
		j.barrierFlushed(env, ti)
	}
}

// sinkBarrier is barrier n reaching the sink (SinkWriterOperator.prepareSnapshotPreBarrier):
// under AT_LEAST_ONCE the writer flushes, and the task waits for every write to be
// acknowledged before it acknowledges the checkpoint; under NONE it does not flush
// (KafkaWriter.flush).
func (j *Job) sinkBarrier(env *sim.Env, ti int, n int64, snap map[string]Snapshot) {
	t := j.tasks[ti]
	if j.spec.Sink.Guarantee == GuaranteeNone {
		j.acknowledge(env, ti, SinkName(t.Op), n, snap)
		return
	}
	t.Blocked, t.Barrier, t.Snap = true, n, snap
	pe := env.Port(attemptPort(SinkName(t.Op), t.Attempt))
	j.sinkDone(env, ti, t.sink.producer.Flush(pe))
}

// barrierFlushed: the flush at the barrier is over; the sink's part of the checkpoint is
// taken.
func (j *Job) barrierFlushed(env *sim.Env, ti int) {
	t := j.tasks[ti]
	part := SinkName(t.Op)
	env.Port(attemptPort(part, t.Attempt)).Observe(sim.Observation{Node: j.node(part), Event: PreCommitted, Checkpoint: t.Barrier})
	if !j.current(ti, t.Attempt) {
		return
	}
	j.unblock(env, ti)
}

// sinkNotified is notifyCheckpointComplete at the sink: a KafkaSink without
// transactions has nothing to commit.
func (j *Job) sinkNotified(*sim.Env, int, int64) {}
