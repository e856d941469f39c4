package flink

import (
	"maps"
	"slices"
	"strconv"

	"deliverylab/core/kafka/clients"
	"deliverylab/core/sim"
)

// The EXACTLY_ONCE KafkaSink (flink-connector-kafka 4.0: ExactlyOnceKafkaWriter with the
// INCREMENTING transaction naming and the PROBING abort strategy, and KafkaCommitter).
// Each checkpoint's writes go into a transaction of their own, transactional.id
// "prefix-subtask-checkpoint". At barrier n the writer flushes and, if the transaction
// holds records, pre-commits it: its id, producer id and epoch (the committable) go into
// checkpoint n, and a new producer begins the transaction for n+1
// (snapshotState → startTransaction, initTransactions). When checkpoint n completes the
// committer commits every committable up to n. A restored sink first commits again what
// its checkpoint recorded (resumeTransaction with the recorded producer id and epoch:
// already committed, the coordinator takes it as a retry; aborted meanwhile, the commit
// fails, is logged and dropped, and its records are lost), then aborts what a failed
// attempt may have left open: initTransactions on "prefix-subtask-c" for c from the
// restored checkpoint + 1 on, until an id that was never used (epoch 0).

// eosPhase is what the writer is doing besides writing.
type eosPhase uint8

const (
	eosWriting  eosPhase = iota
	eosInit              // initializing: committing the restored committables, probing, beginning
	eosFlushing          // at a barrier: waiting for every write of the transaction
	eosStarting          // at a barrier: pre-committed, beginning the next transaction
)

// eosWriter is the EXACTLY_ONCE part of a sink writer.
type eosWriter struct {
	Phase      eosPhase
	Current    string // the port rest of the producer holding the open transaction ("w5")
	CurrentFor int64  // the checkpoint that transaction is for
	Last       int64  // the last checkpoint id a transactional id was made for
	Records    int    // records written into the open transaction
	// Steps: the initTransactions still to run before the writer may write, in order,
	// each a checkpoint id of this subtask's ids; Probing: the first of them are the
	// aborter's probes (which stop at an unused id).
	Steps   []int64
	Probing int
	// ProbeSub is the subtask whose ids are probed (this one, then this one plus the
	// parallelism while a probe found something to abort); Aborted counts its used ids.
	ProbeSub int
	Aborted  int
	// Pending: committables not yet committed, by checkpoint; Keep: the port rest of the
	// producer that wrote each (this attempt's own); Committing: the commits under way,
	// by port rest.
	Pending    map[int64]Committable
	Keep       map[int64]string
	Committing map[string]int64
	producers  map[string]*clients.Producer
}

func (e *eosWriter) clone() *eosWriter {
	if e == nil {
		return nil
	}
	c := *e
	c.Steps = slices.Clone(e.Steps)
	c.Pending = maps.Clone(e.Pending)
	c.Keep = maps.Clone(e.Keep)
	c.Committing = maps.Clone(e.Committing)
	c.producers = make(map[string]*clients.Producer, len(e.producers))
	for k, p := range e.producers {
		c.producers[k] = p.Clone()
	}
	return &c
}

// transactionalID is the id of this subtask's transaction for checkpoint c.
func (j *Job) transactionalID(subtask int, c int64) string {
	return j.spec.Sink.TransactionalIDPrefix + "-" + strconv.Itoa(subtask) + "-" + strconv.FormatInt(c, 10)
}

// startEOS initializes an EXACTLY_ONCE writer (ExactlyOnceKafkaWriter.initialize): commit
// what the restored checkpoint pre-committed, probe for lingering transactions, then
// begin the transaction for the checkpoint after the restored one. The task is blocked
// meanwhile, as a task is not running before its operators are initialized.
func (j *Job) startEOS(env *sim.Env, ti int) {
	t := j.tasks[ti]
	var restored int64
	e := &eosWriter{Pending: map[int64]Committable{}, Keep: map[int64]string{}, Committing: map[string]int64{},
		producers: map[string]*clients.Producer{}}
	if j.latest != nil {
		restored = j.latest.ID
		for _, c := range j.latest.Parts[SinkName(t.Op)].Committables {
			e.Pending[c.Checkpoint] = c
		}
	}
	e.Last = restored
	t.sink.eos = e
	for _, n := range slices.Sorted(maps.Keys(e.Pending)) {
		j.recommit(env, ti, n)
	}
	e.Steps, e.Probing, e.Phase, e.ProbeSub = []int64{restored + 1}, 1, eosInit, t.Op
	t.Blocked, t.Initializing = true, true
	j.nextEOSStep(env, ti)
}

// recommit commits a restored committable with a producer that resumes its transaction.
func (j *Job) recommit(env *sim.Env, ti int, n int64) {
	t := j.tasks[ti]
	e := t.sink.eos
	c := e.Pending[n]
	rest := "c" + strconv.FormatInt(n, 10)
	p := j.newProducer(j.name+"-"+SinkName(t.Op), c.TransactionalID)
	e.producers[rest] = p
	pe := j.eosEnv(env, t, rest)
	p.Start(pe)
	if err := p.ResumeTransaction(c.ProducerID, c.Epoch); err != nil {
		return
	}
	e.Committing[rest] = n
	done, err := p.CommitTransaction(pe)
	if err == nil {
		j.eosDone(env, ti, rest, done)
	}
}

// eosEnv is the Env of one of the writer's producers.
func (j *Job) eosEnv(env *sim.Env, t *task, rest string) *sim.Env {
	return env.Port(attemptPort(SinkName(t.Op), t.Attempt) + "." + rest)
}

// nextEOSStep runs the next initTransactions of the writer's start or of a barrier: a
// probe, a gap's id, or the producer of the next transaction.
func (j *Job) nextEOSStep(env *sim.Env, ti int) {
	t := j.tasks[ti]
	e := t.sink.eos
	c := e.Steps[0]
	rest, id := "w"+strconv.FormatInt(c, 10), j.transactionalID(t.Op, c)
	if e.Probing > 0 {
		rest, id = "p"+strconv.Itoa(e.ProbeSub)+"-"+strconv.FormatInt(c, 10), j.transactionalID(e.ProbeSub, c)
	}
	p := j.newProducer(j.name+"-"+SinkName(t.Op), id)
	e.producers[rest] = p
	pe := j.eosEnv(env, t, rest)
	p.Start(pe)
	done, err := p.InitTransactions(pe)
	if err == nil {
		j.eosDone(env, ti, rest, done)
	}
}

// eosDone takes the completions of one of the writer's producers.
func (j *Job) eosDone(env *sim.Env, ti int, rest string, done []clients.Completion) {
	t := j.tasks[ti]
	attempt := t.Attempt
	for _, c := range done {
		if !j.current(ti, attempt) {
			return
		}
		e := t.sink.eos
		switch c.Txn {
		case clients.TxnNone:
			j.sinkCompletion(env, ti, c)
		case clients.TxnInitialized:
			j.eosInitialized(env, ti, rest)
		case clients.TxnCommitted:
			n := e.Committing[rest]
			delete(e.Committing, rest)
			delete(e.Pending, n)
			delete(e.producers, rest) // returned to the pool
		case clients.TxnFailed:
			if n, ok := e.Committing[rest]; ok {
				// KafkaCommitter: a fenced producer or a transaction no longer in progress
				// (aborted by the coordinator's timeout) is logged and the committable
				// dropped; its records are lost.
				j.eosEnv(env, t, rest).Note("committer: " + e.Pending[n].TransactionalID + " not committed (" + c.Err.String() + "), dropped")
				delete(e.Committing, rest)
				delete(e.Pending, n)
				delete(e.producers, rest)
				continue
			}
			j.failTask(env, ti, SinkName(t.Op), c.Err.String())
			return
		}
	}
	if j.current(ti, attempt) && t.sink.eos.Phase == eosFlushing && t.sink.flushed() {
		j.eosPrecommit(env, ti)
	}
}

// eosPrecommit: the transaction's writes are all acknowledged at barrier n
// (ExactlyOnceKafkaWriter.prepareCommit): a transaction with records is pre-committed,
// its committable kept for the committer and put in the checkpoint; one without is
// recycled. Then the transaction for n+1 begins (snapshotState → startTransaction), the
// ids of any checkpoints skipped since the last one initialized first.
func (j *Job) eosPrecommit(env *sim.Env, ti int) {
	t := j.tasks[ti]
	e := t.sink.eos
	n := t.Barrier
	part := SinkName(t.Op)
	if e.Records > 0 {
		pid, epoch := e.producers[e.Current].ProducerIDAndEpoch()
		c := Committable{TransactionalID: j.transactionalID(t.Op, e.CurrentFor), ProducerID: pid, Epoch: epoch, Checkpoint: n}
		e.Pending[n] = c
		e.Keep[n] = e.Current
		env.Port(attemptPort(part, t.Attempt)).Observe(sim.Observation{Node: j.node(part), Event: PreCommitted, Checkpoint: n, TxnID: c.TransactionalID})
		if !j.current(ti, t.Attempt) {
			return
		}
	} else {
		delete(e.producers, e.Current) // recycled: nothing was sent in it
	}
	snap := Snapshot{}
	for _, k := range slices.Sorted(maps.Keys(e.Pending)) {
		snap.Committables = append(snap.Committables, e.Pending[k])
	}
	t.Snap[part] = snap
	e.Phase, e.Records, e.Current = eosStarting, 0, ""
	for c := e.Last + 1; c <= n; c++ {
		e.Steps = append(e.Steps, c)
	}
	e.Steps = append(e.Steps, n+1)
	j.nextEOSStep(env, ti)
}

// eosNotified commits every pre-committed transaction up to the completed checkpoint
// with the producer that wrote it (KafkaCommitter.commit).
func (j *Job) eosNotified(env *sim.Env, ti int, n int64) {
	t := j.tasks[ti]
	e := t.sink.eos
	for _, k := range slices.Sorted(maps.Keys(e.Pending)) {
		rest, live := e.Keep[k]
		if k > n || !live {
			continue
		}
		delete(e.Keep, k)
		e.Committing[rest] = k
		p := e.producers[rest]
		done, err := p.CommitTransaction(j.eosEnv(env, t, rest))
		if err == nil {
			j.eosDone(env, ti, rest, done)
		}
	}
}

// eosInitialized: one initTransactions returned. A probe that found an unused id (epoch
// 0) ends the probing; the last step's producer begins the transaction and the writer
// goes on.
func (j *Job) eosInitialized(env *sim.Env, ti int, rest string) {
	t := j.tasks[ti]
	e := t.sink.eos
	c := e.Steps[0]
	e.Steps = e.Steps[1:]
	if e.Probing > 0 {
		e.Probing--
		_, epoch := e.producers[rest].ProducerIDAndEpoch()
		delete(e.producers, rest) // recycled
		switch {
		case epoch != 0: // it was used: its open transaction, if any, is now aborted
			e.Aborted++
			e.Steps, e.Probing = append([]int64{c + 1}, e.Steps...), e.Probing+1
		case e.Aborted > 0: // the subtask parallelism further on may have left some too
			e.ProbeSub, e.Aborted = e.ProbeSub+j.spec.Parallelism, 0
			e.Steps, e.Probing = append([]int64{e.Last + 1}, e.Steps...), e.Probing+1
		default:
			e.Steps = append(e.Steps, e.Last+1) // the transaction the writer begins with
		}
	} else if len(e.Steps) > 0 {
		delete(e.producers, rest) // a gap's id, initialized and recycled
	}
	if len(e.Steps) > 0 {
		j.nextEOSStep(env, ti)
		return
	}
	e.Steps = nil
	p := e.producers[rest]
	_ = p.BeginTransaction()
	e.Current, e.CurrentFor, e.Last, e.Records = rest, c, c, 0
	phase := e.Phase
	e.Phase = eosWriting
	if phase == eosInit {
		t.Initializing = false
		j.unblockInit(env, ti)
		return
	}
	j.unblock(env, ti)
}
