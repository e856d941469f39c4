package apps

import (
	"fmt"
	"slices"

	"deliverylab/core/fate"
	"deliverylab/core/kafka/clients"
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/show"
	"deliverylab/core/sim"
	"deliverylab/core/sinks"
)

// Guarantee is a Kafka Streams application's processing.guarantee.
type Guarantee string

// The processing guarantees (StreamsConfig.PROCESSING_GUARANTEE_CONFIG).
const (
	AtLeastOnce   Guarantee = "at_least_once"
	ExactlyOnceV2 Guarantee = "exactly_once_v2"
)

// Guarantees are processing.guarantee's choices, in the order Kafka's docs list them.
var Guarantees = []Guarantee{AtLeastOnce, ExactlyOnceV2}

func (g Guarantee) String() string { return string(g) }

// StreamsSpec is what a Kafka Streams application does: read From, pass each record on
// unchanged (key, value and identity), write To, and commit every CommitIntervalMs.
type StreamsSpec struct {
	From, To         string
	Guarantee        Guarantee
	CommitIntervalMs int64
}

// The ports of a Streams application's process: one stream thread's main consumer and
// its producer, each with its own connections (StreamThread's clients).
const (
	streamsConsumerPort = "consumer"
	streamsProducerPort = "producer"
)

// Streams is a Kafka Streams application with one stream thread (StreamThread.runOnce):
// it polls its input, processes each record — here it forwards it to the output topic
// through its producer — and every commit.interval.ms commits what it processed.
// Under at_least_once a commit flushes the producer, then commits the consumer's
// offsets (commitSync): a crash between the two leaves outputs written whose inputs
// will be processed again. Under exactly_once_v2 the thread's producer is
// transactional: the outputs and the input offsets (sendOffsetsToTransaction) commit in
// one transaction, which a crash leaves open for the coordinator to abort.
type Streams struct {
	name     string
	spec     StreamsSpec
	consumer *clients.Consumer
	producer *clients.Producer
	// newProducer makes the thread's producer for a transactional.id (exactly_once_v2)
	// or none; txnIDOf names process n's (see TransactionalID).
	newProducer func(transactionalID string) *clients.Producer
	txnIDOf     func(process int) string

	// volatile
	phase     streamsPhase
	unacked   int      // output sends without their completion yet
	processed []string // input identities processed since the last commit
	txnID     string   // this process's transactional.id (exactly_once_v2)
	// sendErr is the first failed output send since it was last thrown, classified
	// (RecordCollectorImpl's sendException, set in the send callback by recordSendError):
	// the next send or commit throws it before any offset is committed.
	sendErr *streamsSendErr

	// durable: the process ids used so far (a restarted process takes a new one)
	processes int
}

type streamsPhase uint8

const (
	streamsStarting   streamsPhase = iota // initTransactions() has not returned
	streamsRunning                        // polling and processing
	streamsFlushing                       // a commit waits for the outputs to be acknowledged
	streamsCommitting                     // commitSync, or the transaction's commit, has not returned
	streamsDead                           // the stream thread died of a fatal error (the client shut down)
)

func (p streamsPhase) String() string {
	return [...]string{"starting", "running", "flushing", "committing", "dead"}[p]
}

// status is the phase's word in the application's status line.
func (p streamsPhase) status() fate.Code {
	return [...]fate.Code{fate.StatusStarting, fate.StatusRunning, fate.StatusFlushing, fate.StatusCommitting, fate.StatusDown}[p]
}

// streamsCommitTick is the thread's commit.interval.ms clock (StreamThread.maybeCommit).
type streamsCommitTick struct{}

func (streamsCommitTick) Kind() string     { return "StreamsCommit" }
func (streamsCommitTick) Describe() string { return streamsCommitTickLine }

// The timers' lines in the trace, from their Kinds (sim.TimerLine).
var (
	streamsCommitTickLine = sim.TimerLine("app", streamsCommitTick{})
)

// NewStreams makes a Kafka Streams application from its main consumer and a maker of
// its producer.
func NewStreams(name string, spec StreamsSpec, consumer *clients.Consumer, newProducer func(transactionalID string) *clients.Producer,
	txnIDOf func(process int) string) *Streams {
	return &Streams{name: name, spec: spec, consumer: consumer, newProducer: newProducer, txnIDOf: txnIDOf}
}

// Name implements sim.Node.
func (s *Streams) Name() string { return s.name }

// TransactionalID is the transactional.id of the thread producer of a process under
// exactly_once_v2: "<application.id>-<process id>-<thread index>"
// (StreamThread's EOS-v2 producer, StreamsProducer). Real Streams draws the process id
// as a random UUID for a stateless topology; here process n of the application gets
// the n-th number whose transactional id lives on the same __transaction_state
// partition (partitionOf) as the first one's, so that the cluster need run only that
// partition of the transaction log.
func TransactionalID(app string, process int, partitionOf func(string) int32) string {
	want := partitionOf(streamsTxnID(app, 1))
	for id, found := 1, 0; ; id++ {
		if partitionOf(streamsTxnID(app, id)) == want {
			if found++; found == process {
				return streamsTxnID(app, id)
			}
		}
	}
}

func streamsTxnID(app string, id int) string { return fmt.Sprintf("%s-%d-1", app, id) }

// Start boots a new process: a new process id (so a new transactional.id under
// exactly_once_v2, which does not fence the old one's open transaction: the
// coordinator's timeout aborts it), the clients, and initTransactions.
func (s *Streams) Start(env *sim.Env) {
	s.processes++
	s.phase, s.unacked, s.processed, s.sendErr = streamsRunning, 0, nil, nil
	s.txnID = ""
	if s.spec.Guarantee == ExactlyOnceV2 {
		s.txnID = s.txnIDOf(s.processes)
	}
	s.producer = s.newProducer(s.txnID)
	s.consumer.Start(env.Port(streamsConsumerPort))
	pe := env.Port(streamsProducerPort)
	s.producer.Start(pe)
	env.After(s.spec.CommitIntervalMs, streamsCommitTick{})
	if s.txnID != "" {
		s.phase = streamsStarting
		done, err := s.producer.InitTransactions(pe)
		if err != nil {
			return
		}
		s.report(env, done)
	}
}

// Crash loses both clients and what the thread had in hand.
func (s *Streams) Crash() {
	s.consumer.Reset()
	if s.producer != nil {
		s.producer.Reset()
	}
	s.phase, s.unacked, s.processed, s.sendErr = streamsRunning, 0, nil, nil
}

// Clone implements sim.Node.
func (s *Streams) Clone() sim.Node {
	c := *s
	c.consumer = s.consumer.Clone()
	if s.producer != nil {
		c.producer = s.producer.Clone()
	}
	c.processed = slices.Clone(s.processed)
	if s.sendErr != nil {
		e := *s.sendErr
		c.sendErr = &e
	}
	return &c
}

// Receive hands each answer to the client whose port it came to.
func (s *Streams) Receive(env *sim.Env, m sim.Message) {
	if env.PortName() == streamsProducerPort {
		s.report(env, s.producer.Receive(env, m))
		return
	}
	s.handle(env, s.consumer.Receive(env, m))
}

// Fire runs the commit clock, and the clients' timers on their ports.
func (s *Streams) Fire(env *sim.Env, t sim.Payload) {
	if _, ok := t.(streamsCommitTick); ok {
		env.After(s.spec.CommitIntervalMs, streamsCommitTick{})
		s.maybeCommit(env)
		return
	}
	if env.PortName() == streamsProducerPort {
		s.report(env, s.producer.Fire(env, t))
		return
	}
	s.handle(env, s.consumer.Fire(env, t))
}

// handle takes the main consumer's events.
func (s *Streams) handle(env *sim.Env, evs []clients.ConsumerEvent) {
	for _, e := range evs {
		switch e.Kind {
		case clients.RecordsReady, clients.AssignedNow, clients.Rebalancing:
			s.poll(env)
		case clients.Committed, clients.CommitFailed:
			// commitSync returned (a failed one leaves the offsets where they were: the
			// records are processed again by whoever owns them next).
			if s.phase == streamsCommitting && s.spec.Guarantee == AtLeastOnce {
				s.committed(env)
			}
		}
	}
}

// poll runs one poll and processes what it returned, each record forwarded to the
// output topic.
func (s *Streams) poll(env *sim.Env) {
	if s.phase != streamsRunning {
		return
	}
	ce, pe := env.Port(streamsConsumerPort), env.Port(streamsProducerPort)
	recs := s.consumer.Poll(ce)
	for _, r := range recs {
		env.Observe(sim.Observation{Event: Polled, Msgs: msgs(r), Partition: r.TP.String(), Offset: r.Offset, Value: r.Value})
		if !env.Alive() {
			return
		}
	}
	for _, r := range recs {
		env.Observe(sim.Observation{Event: Processed, Msgs: msgs(r), Partition: r.TP.String(), Offset: r.Offset})
		if !env.Alive() {
			return
		}
		if s.sendErr != nil {
			// RecordCollectorImpl.send: checkForException throws the earlier send's
			// error before this record is sent.
			s.throwSendErr(env)
			return
		}
		if s.txnID != "" && !s.inTransaction() {
			// The transaction begins with the first record sent after a commit
			// (StreamsProducer.maybeBeginTransaction).
			if err := s.producer.BeginTransaction(); err != nil {
				return
			}
		}
		s.unacked++
		if r.Msg != "" {
			s.processed = append(s.processed, r.Msg)
		}
		s.report(env, s.producer.Send(pe, s.spec.To, r.Key, r.Value, r.Msg))
		if !env.Alive() {
			return
		}
	}
}

// maybeCommit commits what was processed since the last commit, when the interval is
// over (StreamThread.maybeCommit; TaskManager.commit).
func (s *Streams) maybeCommit(env *sim.Env) {
	if s.phase != streamsRunning || (len(s.processed) == 0 && !s.inTransaction()) {
		return
	}
	s.phase = streamsFlushing
	s.flushed(env)
}

// flushed goes on with the commit once every output is acknowledged: under
// at_least_once the offsets are committed (commitSync) only after the producer's flush;
// under exactly_once_v2 the offsets go into the transaction, which then commits.
func (s *Streams) flushed(env *sim.Env) {
	if s.phase != streamsFlushing || s.unacked > 0 {
		return
	}
	if s.sendErr != nil {
		// RecordCollectorImpl.flush: the producer flushed, then checkForException throws
		// the error of a failed send before any offset is committed.
		s.throwSendErr(env)
		return
	}
	s.phase = streamsCommitting
	ce, pe := env.Port(streamsConsumerPort), env.Port(streamsProducerPort)
	if s.txnID == "" {
		if !s.consumer.Commit(ce) {
			s.committed(env)
		}
		return
	}
	offsets, msgs := s.consumer.Consumed()
	done, err := s.producer.SendOffsetsToTransaction(pe, offsets, s.consumer.GroupMetadata(), msgs)
	if err != nil {
		s.phase = streamsRunning
		return
	}
	s.report(env, done)
}

// committed ends a commit: the thread polls again.
func (s *Streams) committed(env *sim.Env) {
	s.phase, s.processed = streamsRunning, nil
	s.poll(env)
}

// report takes the producer's completions: outputs acknowledged, and the transaction
// API's calls.
func (s *Streams) report(env *sim.Env, done []clients.Completion) {
	for _, c := range done {
		if !env.Alive() {
			return
		}
		if c.Txn == clients.TxnNone {
			s.outputDone(env, c)
			continue
		}
		s.txnDone(env, c)
	}
	s.flushed(env)
}

func (s *Streams) outputDone(env *sim.Env, c clients.Completion) {
	s.unacked = max(0, s.unacked-max(1, len(c.Msgs)))
	if c.Err != "" {
		if c.Err == protocol.ErrTransactionAborted {
			return // a batch an abort discarded: the abort's own doing, no send error
		}
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: c.Err.String(), Msgs: c.Msgs})
		if s.sendErr == nil { // RecordCollectorImpl: the first error is kept
			s.sendErr = &streamsSendErr{Kind: classifySendErr(c.Err), Err: c.Err}
		}
		return
	}
	for i, m := range c.Msgs {
		env.Observe(sim.Observation{Event: sinks.Written, Msgs: []string{m}, Partition: c.TP.String(), Offset: c.Offset + int64(i), Output: s.spec.To})
		if !env.Alive() {
			return
		}
	}
}

func (s *Streams) txnDone(env *sim.Env, c clients.Completion) {
	pe := env.Port(streamsProducerPort)
	switch c.Txn {
	case clients.TxnInitialized:
		s.phase = streamsRunning
		s.poll(env)
	case clients.TxnOffsetsSent:
		done, err := s.producer.CommitTransaction(pe)
		if err != nil {
			s.abort(env)
			return
		}
		s.report(env, done)
	case clients.TxnCommitted:
		env.Observe(sim.Observation{Event: TxnCommitted, Msgs: s.processed})
		s.committed(env)
	case clients.TxnAborted:
		env.Observe(sim.Observation{Event: TxnAborted, Msgs: s.processed})
		// The task was closed dirty (RecordCollectorImpl.closeDirty aborts under EOS) and
		// is revived from its committed offsets: what the transaction held is processed
		// again.
		s.revive(env)
	case clients.TxnFailed:
		env.Observe(sim.Observation{Event: protocol.ClientError, Err: c.Err.String(), Msgs: s.processed})
		if s.producer.TxnState() == clients.TxnFatalError {
			s.migrated(env)
			return
		}
		s.abort(env)
	}
}

// migrated is Streams' answer to a fenced producer (TaskMigratedException): its tasks
// are closed dirty, the thread leaves and rejoins the group (StreamThread.handleTaskMigrated,
// TaskManager.handleLostAll) and, under exactly_once_v2, its producer is made again and
// initialized anew (StreamsProducer.resetProducer: the new producer's initTransactions
// bumps the epoch, which aborts what the old one left open): what was processed since
// the last commit is processed again from the committed offsets. The main consumer
// unsubscribes, which sends LeaveGroup, and subscribes again as a new member
// (mainConsumer.unsubscribe, subscribeConsumer): the coordinator rebalances at once
// rather than when the old member's session times out.
func (s *Streams) migrated(env *sim.Env) {
	env.Note("task migrated: rejoining the group")
	ce, pe := env.Port(streamsConsumerPort), env.Port(streamsProducerPort)
	s.consumer.Unsubscribe(ce, "the consumer unsubscribed from all topics")
	s.phase, s.processed = streamsRunning, nil
	s.consumer.Start(ce)
	if s.txnID == "" {
		return
	}
	s.producer = s.newProducer(s.txnID)
	s.phase, s.unacked, s.sendErr = streamsStarting, 0, nil
	s.producer.Start(pe)
	done, err := s.producer.InitTransactions(pe)
	if err != nil {
		return
	}
	s.report(env, done)
}

// abort aborts the open transaction after a failed commit (the task is migrated: its
// records are processed again from the committed offsets by their next owner).
func (s *Streams) abort(env *sim.Env) {
	s.phase = streamsCommitting
	done, err := s.producer.AbortTransaction(env.Port(streamsProducerPort))
	if err != nil {
		return
	}
	s.report(env, done)
}

// inTransaction reports whether the thread producer has a transaction open: begun at
// the first output after a commit (StreamsProducer.maybeBeginTransaction), until its
// commit or abort returns.
func (s *Streams) inTransaction() bool {
	if s.producer == nil { // not started yet
		return false
	}
	switch s.producer.TxnState() {
	case clients.TxnInTransaction, clients.TxnCommitting, clients.TxnAborting, clients.TxnAbortableError:
		return true
	}
	return false
}

// idle reports whether the thread has nothing in hand: no output unacknowledged, no
// commit or transaction under way.
func (s *Streams) idle() bool {
	// A kept send error is work in hand: the next commit throws it and the task is
	// processed again.
	return s.phase == streamsRunning && s.unacked == 0 && s.sendErr == nil && !s.inTransaction() && s.consumer.PendingCommits() == 0 &&
		(s.producer == nil || s.producer.Idle())
}

// Positions is the main consumer's position in each input partition it owns.
func (s *Streams) Positions() []protocol.TPOffset { return s.consumer.Positions() }

// Show implements show.Shower: the guarantee, the thread's state and, under
// exactly_once_v2, its transaction.
func (s *Streams) Show(sim.View) show.Node {
	status := fate.Because(fate.StatusGuarantee, "guarantee", fmt.Sprint(s.spec.Guarantee))
	if s.consumer.State() != clients.Stable { // Kafka's name of the group state, as it is
		status = status.And(fate.StatusState, "state", s.consumer.State().String())
	} else {
		status = status.And(s.phase.status())
	}
	if s.txnID != "" { // the id is on its coordinator's header
		status = status.And(fate.StatusStreamsTxn).And(txnStateWord[s.producer.TxnState()])
	}
	return show.Node{Kind: show.Streams, Status: status}
}

// Invariants lists what is wrong with what the main consumer returned.
func (s *Streams) Invariants(v sim.View) []string { return s.consumer.Invariants(v) }

// MemberID is the member id of the main consumer's incarnation.
func (s *Streams) MemberID() string { return s.consumer.MemberID() }

// What a failed output send becomes (RecordCollectorImpl.recordSendError).
type streamsSendErrKind uint8

const (
	// taskMigrated: the producer is fenced (ProducerFencedException,
	// InvalidProducerEpochException, OutOfOrderSequenceException, InvalidPidMappingException):
	// TaskMigratedException.
	taskMigrated streamsSendErrKind = iota
	// taskCorrupted: a RetriableException (a TimeoutException among them):
	// TaskCorruptedException, the task revived from its committed offsets.
	taskCorrupted
	// sendFatal: anything else goes to the production exception handler, whose default
	// (DefaultProductionExceptionHandler) answers FAIL: a StreamsException that kills the
	// stream thread.
	sendFatal
)

type streamsSendErr struct {
	Kind streamsSendErrKind
	Err  protocol.Error
}

// classifySendErr is RecordCollectorImpl.recordSendError's choice for a send's error.
func classifySendErr(err protocol.Error) streamsSendErrKind {
	switch err {
	case protocol.ErrProducerFenced, protocol.ErrInvalidProducerEpoch, protocol.ErrOutOfOrderSequenceNumber,
		protocol.ErrInvalidProducerIDMapping:
		return taskMigrated
	}
	if err.Retriable() {
		return taskCorrupted
	}
	return sendFatal
}

// throwSendErr throws the kept send error (RecordCollectorImpl.checkForException clears it
// as it throws) and does what the stream thread does with it (StreamThread.runLoop).
func (s *Streams) throwSendErr(env *sim.Env) {
	e := *s.sendErr
	s.sendErr = nil
	switch e.Kind {
	case taskMigrated:
		env.Note(fmt.Sprintf("send failed with %s: TaskMigratedException", e.Err))
		s.migrated(env)
	case taskCorrupted:
		env.Note(fmt.Sprintf("send failed with %s: TaskCorruptedException", e.Err))
		s.corrupted(env)
	default:
		s.die(env, e.Err)
	}
}

// corrupted is StreamThread's answer to TaskCorruptedException (TaskManager.handleCorruption,
// closeDirtyAndRevive): the task is closed dirty — under exactly_once_v2 its transaction
// is aborted (RecordCollectorImpl.closeDirty) — and revived from its committed offsets:
// what it processed since the last commit is processed again. (The thread has one task
// per input partition; here every input partition is revived together.)
func (s *Streams) corrupted(env *sim.Env) {
	if s.txnID != "" && s.inTransaction() {
		s.abort(env) // TxnAborted revives
		return
	}
	s.revive(env)
}

// revive puts the input back at its committed offsets
// (StreamTask.resetOffsetsIfNeededAndInitializeMetadata) and polls on from there.
func (s *Streams) revive(env *sim.Env) {
	s.phase, s.processed = streamsRunning, nil
	s.consumer.RewindToCommitted(env.Port(streamsConsumerPort), s.consumer.Assigned())
	s.poll(env)
}

// die is a fatal error of the stream thread: the uncaught exception handler's default,
// SHUTDOWN_CLIENT (KafkaStreams.defaultStreamsUncaughtExceptionHandler), shuts the
// application down; it processes nothing more.
func (s *Streams) die(env *sim.Env, err protocol.Error) {
	env.Note(fmt.Sprintf("send failed with %s: StreamsException, the stream thread dies", err))
	env.Observe(sim.Observation{Event: protocol.ClientError, Err: "StreamsException"})
	s.phase, s.processed = streamsDead, nil
	s.consumer.Reset()
	if s.producer != nil {
		s.producer.Reset()
	}
}
