package flink

import (
	"deliverylab/core/kafka/clients"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
	"deliverylab/core/sinks"
)

// sinkWriter is a KafkaSink subtask's writer (KafkaWriter): its producer, and the sends
// it has not heard back from. The first failed send fails the task (WriterCallback keeps
// the exception, and the task's mailbox rethrows it). Under EXACTLY_ONCE its producers
// are the transactional ones of eos (sink_eos.go).
type sinkWriter struct {
	producer *clients.Producer
	unacked  int
	eos      *eosWriter
	db       *dbWriter // a database sink's writer instead of a producer (sink_db.go)
	xa       *xaWriter // a transactional database sink's two-phase-commit writer (sink_xa.go)
}

func (w sinkWriter) clone() sinkWriter {
	if w.producer != nil {
		w.producer = w.producer.Clone()
	}
	w.eos = w.eos.clone()
	w.db = w.db.clone()
	w.xa = w.xa.clone()
	return w
}

// stop closes the writer's producers: what they had not sent is gone.
func (w *sinkWriter) stop() {
	if w.producer != nil {
		w.producer.Reset()
	}
	if w.eos != nil {
		for _, p := range w.eos.producers {
			p.Reset()
		}
	}
	w.unacked, w.eos, w.db, w.xa = 0, nil, nil, nil
}

// writing is the producer the writer writes with.
func (w sinkWriter) writing() *clients.Producer {
	if w.eos != nil {
		return w.eos.producers[w.eos.Current]
	}
	return w.producer
}

// flushed reports whether every write was answered.
func (w sinkWriter) flushed() bool {
	p := w.writing()
	return w.unacked == 0 && (p == nil || p.Idle())
}

// settled reports whether the writer waits for nothing: every write answered and, under
// EXACTLY_ONCE, nothing written in the open transaction, nothing pre-committed left to
// commit, no initTransactions under way.
func (w sinkWriter) settled() bool {
	if !w.flushed() || (w.db != nil && w.db.Pending != nil) || (w.xa != nil && !w.xa.settled()) {
		return false
	}
	e := w.eos
	return e == nil || (e.Records == 0 && len(e.Pending) == 0 && e.Steps == nil)
}

// startSink starts a sink subtask's producer (or, under EXACTLY_ONCE, its writer's
// initialization).
func (j *Job) startSink(env *sim.Env, ti int) {
	t := j.tasks[ti]
	if j.spec.Sink.Guarantee == GuaranteeExactlyOnce {
		j.startEOS(env, ti)
		return
	}
	part := SinkName(t.Op)
	if j.spec.DBSink != "" && j.spec.DBTwoPhaseCommit {
		j.startXA(env, ti)
		return
	}
	if j.spec.DBSink != "" {
		t.sink = sinkWriter{db: &dbWriter{}}
		return
	}
	t.sink = sinkWriter{producer: j.newProducer(j.name+"-"+part, "")}
	t.sink.producer.Start(env.Port(attemptPort(part, t.Attempt)))
}

// sinkWrite sends a record to the output topic (KafkaWriter.write).
func (j *Job) sinkWrite(env *sim.Env, ti int, d protocol.Data) {
	t := j.tasks[ti]
	if t.sink.db != nil {
		j.dbWrite(env, ti, d)
		return
	}
	if t.sink.xa != nil {
		j.xaWrite(env, ti, d)
		return
	}
	t.sink.unacked++
	rest := ""
	if e := t.sink.eos; e != nil {
		rest = e.Current
		e.Records++
	}
	pe := j.sinkEnv(env, t, rest)
	j.sinkDone(env, ti, rest, t.sink.writing().SendRecord(pe, j.spec.Sink.Topic, d))
}

// sinkEnv is the Env of one of the sink's producers: rest "" is the plain writer's.
func (j *Job) sinkEnv(env *sim.Env, t *task, rest string) *sim.Env {
	port := attemptPort(SinkName(t.Op), t.Attempt)
	if rest != "" {
		port += "." + rest
	}
	return env.Port(port)
}

// sinkProducer is the producer a port rest names.
func (t *task) sinkProducer(rest string) *clients.Producer {
	if rest == "" {
		return t.sink.producer
	}
	if t.sink.eos != nil {
		return t.sink.eos.producers[rest]
	}
	return nil
}

func (j *Job) sinkReceive(env *sim.Env, t *task, rest string, m sim.Message) []clients.Completion {
	if p := t.sinkProducer(rest); p != nil {
		return p.Receive(env, m)
	}
	return nil
}

func (j *Job) sinkFire(env *sim.Env, t *task, rest string, tm sim.Payload) []clients.Completion {
	if p := t.sinkProducer(rest); p != nil {
		return p.Fire(env, tm)
	}
	return nil
}

// sinkDone takes a producer's completions.
func (j *Job) sinkDone(env *sim.Env, ti int, rest string, done []clients.Completion) {
	t := j.tasks[ti]
	if t.sink.eos != nil {
		j.eosDone(env, ti, rest, done)
		return
	}
	attempt := t.Attempt
	for _, c := range done {
		if !j.current(ti, attempt) {
			return
		}
		if c.Txn == clients.TxnNone {
			j.sinkCompletion(env, ti, c)
		}
	}
	if j.current(ti, attempt) && t.Blocked && t.sink.flushed() {
		j.barrierFlushed(env, ti)
	}
}

// sinkNotified is notifyCheckpointComplete at the sink: the EXACTLY_ONCE committer, or
// the two-phase-commit database sink's, commits; a sink without transactions has
// nothing to commit.
func (j *Job) sinkNotified(env *sim.Env, ti int, n int64) {
	if j.tasks[ti].sink.eos != nil {
		j.eosNotified(env, ti, n)
	}
	if j.tasks[ti].sink.xa != nil {
		j.xaNotified(env, ti, n)
	}
}

// sinkCompletion is one write answered: a failed one fails the task; an acknowledged
// one is written.
func (j *Job) sinkCompletion(env *sim.Env, ti int, c clients.Completion) {
	t := j.tasks[ti]
	t.sink.unacked = max(0, t.sink.unacked-max(1, len(c.Msgs)))
	part := SinkName(t.Op)
	if c.Err != "" {
		j.failTask(env, ti, part, c.Err.String())
		return
	}
	pe := env.Port(attemptPort(part, t.Attempt))
	for i, m := range c.Msgs {
		pe.Observe(sim.Observation{Node: j.node(part), Event: sinks.Written, Msgs: []string{m}, Partition: c.TP.String(),
			Offset: c.Offset + int64(i), Output: j.spec.Sink.Topic})
	}
}

// sinkBarrier is barrier n reaching the sink (SinkWriterOperator.prepareSnapshotPreBarrier):
// under AT_LEAST_ONCE and EXACTLY_ONCE the writer flushes, and the task waits for every
// write to be acknowledged before it acknowledges the checkpoint; under NONE it does not
// flush (KafkaWriter.flush).
func (j *Job) sinkBarrier(env *sim.Env, ti int, n int64, snap map[string]Snapshot) {
	t := j.tasks[ti]
	if t.sink.xa != nil {
		j.xaBarrier(env, ti, n, snap)
		return
	}
	if j.spec.Sink.Guarantee == GuaranteeNone {
		j.acknowledge(env, ti, SinkName(t.Op), n, snap)
		return
	}
	t.Blocked, t.Barrier, t.Snap = true, n, snap
	rest := ""
	if e := t.sink.eos; e != nil {
		rest, e.Phase = e.Current, eosFlushing
	}
	j.sinkDone(env, ti, rest, t.sink.writing().Flush(j.sinkEnv(env, t, rest)))
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
