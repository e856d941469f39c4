package flink

import (
	"maps"
	"slices"
	"strconv"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/show"
	"deliverylab/core/sim"
	"deliverylab/core/sinks"
)

// The two-phase-commit database sink: a job writing to a transactional sink, as
// flink-connector-jdbc's exactly-once JdbcSink does with an XA data source (JdbcWriter,
// XaTransaction, JdbcCommitter). Each checkpoint's rows go into one XA branch, xid
// "JOB-sink-i-c" for checkpoint c. At barrier n the writer prepares the branch (the
// pre-commit: durable in the database, not visible), and its xid goes into checkpoint n
// as a committable; the rows after the barrier go into the branch for n+1. When
// checkpoint n completes the committer commits every branch up to n, and only then are
// the rows rows. A restored writer first asks the database which of its branches are
// prepared (xa_recover): those its checkpoint recorded are committed, the others (a
// checkpoint that never completed) rolled back; its active branches died with its
// session. Every database call is synchronous, in the task's thread: the task handles
// nothing else meanwhile. A write that fails fails the task (exactly-once allows no
// retry of a statement: JdbcExactlyOnceOptions wants maxRetries 0); a commit, rollback
// or recover the database does not answer is asked again, as commits are idempotent
// (a branch already committed is unknown to it: XAER_NOTA, and the committable is
// dropped).

// xaStepKind is one database call of the writer.
type xaStepKind uint8

const (
	xaWriteStep xaStepKind = iota + 1
	xaPrepareStep
	xaCommitStep
	xaRollbackStep
	xaRecoverStep
)

// xaStep is a database call waiting for its turn, or under way.
type xaStep struct {
	Kind       xaStepKind
	Data       *protocol.Data // a write's record
	Xid        string
	Start      bool  // a write that starts its branch
	Checkpoint int64 // a prepare's or commit's checkpoint
}

// xaWriter is the writer and committer of a sink subtask with two-phase commit.
type xaWriter struct {
	ReqSeq     int64
	Queue      []xaStep // the calls still to make, in order; Queue[0] is under way when Sent
	Sent       bool
	CurrentFor int64            // the checkpoint the open branch is for
	Records    int              // rows written into the open branch
	Pending    map[int64]string // pre-committed branches not yet committed: checkpoint -> xid
}

func (w *xaWriter) clone() *xaWriter {
	if w == nil {
		return nil
	}
	c := *w
	c.Queue = slices.Clone(w.Queue)
	c.Pending = maps.Clone(w.Pending)
	return &c
}

// settled: nothing to call, nothing written that waits for a checkpoint, nothing
// pre-committed waiting for its commit.
func (w *xaWriter) settled() bool { return len(w.Queue) == 0 && w.Records == 0 && len(w.Pending) == 0 }

// xid is this subtask's branch for checkpoint c.
func (j *Job) xid(subtask int, c int64) string {
	return j.xidPrefix(subtask) + strconv.FormatInt(c, 10)
}

// xidPrefix is what every xid of a subtask starts with: "totals-sink-0-".
func (j *Job) xidPrefix(subtask int) string { return j.name + "-" + SinkName(subtask) + "-" }

// startXA initializes the writer: its committables come from the latest completed
// checkpoint, and it recovers before it takes a record. The task is not running for
// the coordinator meanwhile.
func (j *Job) startXA(env *sim.Env, ti int) {
	t := j.tasks[ti]
	w := &xaWriter{Pending: map[int64]string{}, CurrentFor: 1}
	if j.latest != nil {
		w.CurrentFor = j.latest.ID + 1
		for _, c := range j.latest.Parts[SinkName(t.Op)].Committables {
			w.Pending[c.Checkpoint] = c.TransactionalID
		}
	}
	t.sink = sinkWriter{xa: w}
	t.Blocked, t.Initializing = true, true
	j.xaCall(env, ti, xaStep{Kind: xaRecoverStep})
}

// xaWrite writes a record into the open branch, starting it with the first.
func (j *Job) xaWrite(env *sim.Env, ti int, d protocol.Data) {
	w := j.tasks[ti].sink.xa
	j.xaCall(env, ti, xaStep{Kind: xaWriteStep, Data: &d, Xid: j.xid(j.tasks[ti].Op, w.CurrentFor), Start: w.Records == 0})
}

// xaBarrier is barrier n at the sink (JdbcWriter.prepareCommit): the open branch, if it
// holds rows, is prepared; then the task acknowledges with its committables.
func (j *Job) xaBarrier(env *sim.Env, ti int, n int64, snap map[string]Snapshot) {
	t := j.tasks[ti]
	w := t.sink.xa
	t.Barrier, t.Snap = n, snap
	if w.Records == 0 {
		w.CurrentFor = n + 1
		t.Blocked = true
		if len(w.Queue) == 0 {
			j.xaIdle(env, ti)
		}
		return
	}
	xid := j.xid(t.Op, w.CurrentFor)
	w.CurrentFor, w.Records = n+1, 0
	j.xaCall(env, ti, xaStep{Kind: xaPrepareStep, Xid: xid, Checkpoint: n})
}

// xaNotified commits every pre-committed branch up to the completed checkpoint
// (JdbcCommitter.commit).
func (j *Job) xaNotified(env *sim.Env, ti int, n int64) {
	w := j.tasks[ti].sink.xa
	queued := map[int64]bool{}
	for _, s := range w.Queue {
		if s.Kind == xaCommitStep {
			queued[s.Checkpoint] = true
		}
	}
	for _, k := range slices.Sorted(maps.Keys(w.Pending)) {
		if k <= n && !queued[k] {
			j.xaCall(env, ti, xaStep{Kind: xaCommitStep, Xid: w.Pending[k], Checkpoint: k})
		}
	}
}

// xaCall queues a database call; the task waits for every call it queued.
func (j *Job) xaCall(env *sim.Env, ti int, s xaStep) {
	t := j.tasks[ti]
	t.Blocked = true
	t.sink.xa.Queue = append(t.sink.xa.Queue, s)
	j.xaSend(env, ti)
}

// xaSend sends the first queued call unless one is under way, with a new request id
// and its timeout.
func (j *Job) xaSend(env *sim.Env, ti int) {
	t := j.tasks[ti]
	w := t.sink.xa
	if w.Sent || len(w.Queue) == 0 {
		return
	}
	w.Sent = true
	j.xaResend(env, ti)
}

// xaResend sends the call under way again, as a new request.
func (j *Job) xaResend(env *sim.Env, ti int) {
	t := j.tasks[ti]
	w := t.sink.xa
	s := w.Queue[0]
	w.ReqSeq++
	var req sim.Payload
	switch s.Kind {
	case xaWriteStep:
		req = sinks.XaWrite{ReqID: w.ReqSeq, Xid: s.Xid, Start: s.Start, Msg: s.Data.Msg, Key: s.Data.Key, Value: s.Data.Value}
	case xaPrepareStep:
		req = sinks.XaRequest{ReqID: w.ReqSeq, Op: sinks.XaPrepare, Xid: s.Xid}
	case xaCommitStep:
		req = sinks.XaRequest{ReqID: w.ReqSeq, Op: sinks.XaCommit, Xid: s.Xid}
	case xaRollbackStep:
		req = sinks.XaRequest{ReqID: w.ReqSeq, Op: sinks.XaRollback, Xid: s.Xid}
	case xaRecoverStep:
		req = sinks.XaRecover{ReqID: w.ReqSeq, Prefix: j.xidPrefix(t.Op)}
	}
	pe := env.Port(attemptPort(SinkName(t.Op), t.Attempt))
	pe.Send(j.spec.DBSink, req)
	pe.After(dbWriteTimeoutMs, dbWriteTimeout{ReqID: w.ReqSeq})
}

// xaReceive takes the database's answer, or its refusal. It reports whether m was the
// writer's.
func (j *Job) xaReceive(env *sim.Env, ti int, m sim.Message) bool {
	t := j.tasks[ti]
	w := t.sink.xa
	var req int64
	switch p := m.Payload.(type) {
	case sinks.WriteAck, sinks.XaDone, sinks.XaRecovered:
		req = p.(sinks.Numbered).RequestID()
	case sim.Refused:
		return j.xaRefused(env, ti, p)
	case sim.Disconnected:
		// The database crashed: the session's active branch is gone with it. Rows written
		// into it, or a write or prepare under way, fail the task (the next statement
		// would find the connection broken); the committer's calls are made again.
		if w.Records > 0 || w.Sent && (w.Queue[0].Kind == xaWriteStep || w.Queue[0].Kind == xaPrepareStep) {
			j.failTask(env, ti, SinkName(t.Op), protocol.ErrSinkUnavailable.String())
		}
		return true
	default:
		return false
	}
	if !w.Sent || req != w.ReqSeq {
		return true // the answer to a call already made again
	}
	s := w.Queue[0]
	w.Queue, w.Sent = w.Queue[1:], false
	attempt := t.Attempt
	j.xaAnswered(env, ti, s, m.Payload)
	if !j.current(ti, attempt) {
		return true
	}
	if len(w.Queue) > 0 {
		j.xaSend(env, ti)
		return true
	}
	j.xaIdle(env, ti)
	return true
}

// xaRefused: the database is down. A write or a prepare fails the task (its branch
// died with the database's sessions); the committer's calls are made again after a
// while. It reports whether the refused request was the writer's.
func (j *Job) xaRefused(env *sim.Env, ti int, r sim.Refused) bool {
	t := j.tasks[ti]
	w := t.sink.xa
	var req int64
	switch o := r.Orig.(type) {
	case sinks.XaWrite, sinks.XaRequest, sinks.XaRecover:
		req = o.(sinks.Numbered).RequestID()
	default:
		return false
	}
	if !w.Sent || req != w.ReqSeq {
		return true
	}
	part := SinkName(t.Op)
	pe := env.Port(attemptPort(part, t.Attempt))
	pe.Observe(sim.Observation{Node: j.node(part), Event: protocol.ClientError, Err: protocol.ErrSinkUnavailable.String(), Msgs: stepMsgs(w.Queue[0])})
	switch w.Queue[0].Kind {
	case xaWriteStep, xaPrepareStep:
		j.failTask(env, ti, part, protocol.ErrSinkUnavailable.String())
	default:
		pe.After(dbRetryMs, dbRetry{ReqID: w.ReqSeq})
	}
	return true
}

// xaFire runs the writer's timers. It reports whether tm was one of them.
func (j *Job) xaFire(env *sim.Env, ti int, tm sim.Payload) bool {
	t := j.tasks[ti]
	w := t.sink.xa
	switch p := tm.(type) {
	case dbRetry:
		if w.Sent && p.ReqID == w.ReqSeq {
			j.xaResend(env, ti)
		}
		return true
	case dbWriteTimeout:
		if !w.Sent || p.ReqID != w.ReqSeq {
			return true
		}
		part := SinkName(t.Op)
		s := w.Queue[0]
		env.Port(attemptPort(part, t.Attempt)).Observe(sim.Observation{Node: j.node(part), Event: protocol.ClientError,
			Err: protocol.ErrSinkTimeout.String(), Msgs: stepMsgs(s)})
		if s.Kind == xaWriteStep || s.Kind == xaPrepareStep {
			j.failTask(env, ti, part, protocol.ErrSinkTimeout.String())
			return true
		}
		j.xaResend(env, ti)
		return true
	}
	return false
}

// stepMsgs is the message a call carries, for an error's observation.
func stepMsgs(s xaStep) []string {
	if s.Data != nil {
		return msgsOf(s.Data.Msg)
	}
	return nil
}

// xaAnswered takes one call's answer.
func (j *Job) xaAnswered(env *sim.Env, ti int, s xaStep, answer sim.Payload) {
	t := j.tasks[ti]
	w := t.sink.xa
	part := SinkName(t.Op)
	pe := env.Port(attemptPort(part, t.Attempt))
	if d, ok := answer.(sinks.XaDone); ok && d.Err != "" {
		switch s.Kind {
		case xaWriteStep, xaPrepareStep:
			// The branch is gone: the database crashed before it was prepared.
			j.failTask(env, ti, part, d.Err)
		case xaCommitStep:
			pe.Note("committer: " + s.Xid + " is not in the database (" + d.Err + "): committed already, dropped")
			delete(w.Pending, s.Checkpoint)
		}
		return
	}
	switch s.Kind {
	case xaWriteStep:
		w.Records++
	case xaPrepareStep:
		w.Pending[s.Checkpoint] = s.Xid
		pe.Observe(sim.Observation{Node: j.node(part), Event: PreCommitted, Checkpoint: s.Checkpoint, TxnID: s.Xid})
	case xaCommitStep:
		delete(w.Pending, s.Checkpoint)
	case xaRecoverStep:
		j.xaRecovered(pe, ti, answer.(sinks.XaRecovered).Xids)
	}
}

// xaRecovered: the prepared branches of this subtask. Those the restored checkpoint
// recorded are committed; the others were prepared for a checkpoint that never
// completed, and are rolled back. A recorded one the database no longer holds was
// committed before the failure.
func (j *Job) xaRecovered(pe *sim.Env, ti int, prepared []string) {
	w := j.tasks[ti].sink.xa
	recorded := map[string]int64{}
	for k, x := range w.Pending {
		recorded[x] = k
	}
	for _, x := range prepared {
		if k, ok := recorded[x]; ok {
			w.Queue = append(w.Queue, xaStep{Kind: xaCommitStep, Xid: x, Checkpoint: k})
			delete(recorded, x)
			continue
		}
		w.Queue = append(w.Queue, xaStep{Kind: xaRollbackStep, Xid: x})
	}
	for _, x := range slices.Sorted(maps.Keys(recorded)) {
		pe.Note("committer: " + x + " is not prepared in the database: committed already, dropped")
		delete(w.Pending, recorded[x])
	}
}

// xaIdle: every call is answered. The writer's initialization ends, or the barrier's
// snapshot is taken (the committables pre-committed and not yet committed), and the
// task goes on with what waited.
func (j *Job) xaIdle(env *sim.Env, ti int) {
	t := j.tasks[ti]
	w := t.sink.xa
	switch {
	case t.Initializing:
		t.Initializing = false
		j.unblockInit(env, ti)
	case t.Barrier != 0:
		snap := Snapshot{}
		for _, k := range slices.Sorted(maps.Keys(w.Pending)) {
			snap.Committables = append(snap.Committables, Committable{TransactionalID: w.Pending[k], Checkpoint: k})
		}
		t.Snap[SinkName(t.Op)] = snap
		j.unblock(env, ti)
	default:
		j.unblockInit(env, ti)
	}
}

// showXA is the writer's branches as the canvas shows a sink's transactions: the
// pre-committed ones (committing once their commit is under way), then the open one.
func (j *Job) showXA(t *task) []show.PartTxn {
	w := t.sink.xa
	committing := map[int64]bool{}
	for _, s := range w.Queue {
		if s.Kind == xaCommitStep {
			committing[s.Checkpoint] = true
		}
	}
	var out []show.PartTxn
	for _, k := range slices.Sorted(maps.Keys(w.Pending)) {
		st := show.TxnPreCommitted
		if committing[k] {
			st = show.TxnCommitting
		}
		out = append(out, show.PartTxn{ID: w.Pending[k], State: st})
	}
	if w.Records > 0 {
		out = append(out, show.PartTxn{ID: j.xid(t.Op, w.CurrentFor), State: show.TxnOpen})
	}
	return out
}
