package flink

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
	"deliverylab/core/sinks"
)

// dbWriter is a sink subtask writing to a database sink as a plain database client does
// (a JdbcSink with batch size 1): each record is written at once and the task waits for
// the answer before it takes the next one, so a barrier finds nothing pending and the
// checkpoint holds nothing of the sink's. After a restore the records read again are
// written again: a table stores them twice, an upsert or a unique key makes that
// harmless (the unique key's statement is INSERT ... ON CONFLICT DO NOTHING: a plain
// INSERT would make JdbcOutputFormat throw, and the job crash-loop on the replay). A
// sink that is down refuses the write, which is tried again every
// dbRetryMs; one without an answer for dbWriteTimeoutMs is written again, as the
// consumer applications do.
type dbWriter struct {
	ReqSeq  int64
	Pending *protocol.Data // the record being written, nil when none
}

// dbRetryMs and dbWriteTimeoutMs are the consumer applications' own (core/apps).
const (
	dbRetryMs        = 100
	dbWriteTimeoutMs = 5000
)

// dbRetry and dbWriteTimeout are a db writer's timers.
type (
	dbRetry        struct{ ReqID int64 }
	dbWriteTimeout struct{ ReqID int64 }
)

func (dbRetry) Kind() string            { return "DbRetry" }
func (dbRetry) Describe() string        { return dbRetryLine }
func (dbWriteTimeout) Kind() string     { return "DbWriteTimeout" }
func (dbWriteTimeout) Describe() string { return dbWriteTimeoutLine }
func (w *dbWriter) clone() *dbWriter {
	if w == nil {
		return nil
	}
	c := *w
	return &c
}

var (
	dbRetryLine        = sim.TimerLine("sink", dbRetry{})
	dbWriteTimeoutLine = sim.TimerLine("sink", dbWriteTimeout{})
)

// dbWrite writes a record; the task is blocked until the sink answers.
func (j *Job) dbWrite(env *sim.Env, ti int, d protocol.Data) {
	t := j.tasks[ti]
	t.Blocked = true
	t.sink.db.Pending = &d
	j.dbSend(env, ti)
}

// dbSend sends the pending record with a new request id and arms its timeout.
func (j *Job) dbSend(env *sim.Env, ti int) {
	t := j.tasks[ti]
	w := t.sink.db
	if w.Pending == nil {
		return
	}
	w.ReqSeq++
	pe := env.Port(attemptPort(SinkName(t.Op), t.Attempt))
	pe.Send(j.spec.DBSink, sinks.Write{ReqID: w.ReqSeq, Msg: w.Pending.Msg, Key: w.Pending.Key, Value: w.Pending.Value})
	pe.After(dbWriteTimeoutMs, dbWriteTimeout{ReqID: w.ReqSeq})
}

// dbReceive takes the sink's answer, or its refusal. It reports whether m was the db
// writer's.
func (j *Job) dbReceive(env *sim.Env, ti int, m sim.Message) bool {
	t := j.tasks[ti]
	w := t.sink.db
	part := SinkName(t.Op)
	switch p := m.Payload.(type) {
	case sinks.WriteAck:
		if w.Pending == nil || p.ReqID != w.ReqSeq {
			return true // the answer to a write already written again
		}
		d := *w.Pending
		w.Pending = nil
		env.Port(attemptPort(part, t.Attempt)).Observe(sim.Observation{Node: j.node(part), Event: sinks.Written, Msgs: msgsOf(d.Msg), Output: j.spec.DBSink})
		if j.current(ti, t.Attempt) {
			j.unblockInit(env, ti)
		}
		return true
	case sim.Refused:
		if wr, ok := p.Orig.(sinks.Write); ok {
			if w.Pending != nil && wr.ReqID == w.ReqSeq {
				pe := env.Port(attemptPort(part, t.Attempt))
				pe.Observe(sim.Observation{Node: j.node(part), Event: protocol.ClientError, Err: protocol.ErrSinkUnavailable.String(), Msgs: msgsOf(wr.Msg)})
				pe.After(dbRetryMs, dbRetry{ReqID: w.ReqSeq})
			}
			return true
		}
	}
	return false
}

// dbFire runs the writer's timers. It reports whether tm was one of them.
func (j *Job) dbFire(env *sim.Env, ti int, tm sim.Payload) bool {
	t := j.tasks[ti]
	w := t.sink.db
	switch p := tm.(type) {
	case dbRetry:
		if p.ReqID == w.ReqSeq {
			j.dbSend(env, ti)
		}
		return true
	case dbWriteTimeout:
		if w.Pending != nil && p.ReqID == w.ReqSeq {
			part := SinkName(t.Op)
			env.Port(attemptPort(part, t.Attempt)).Observe(sim.Observation{Node: j.node(part), Event: protocol.ClientError,
				Err: protocol.ErrSinkTimeout.String(), Msgs: msgsOf(w.Pending.Msg)})
			j.dbSend(env, ti)
		}
		return true
	}
	return false
}
