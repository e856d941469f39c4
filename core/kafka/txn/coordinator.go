// Package txn is the transaction coordinator, a role of the broker that leads the
// transactional id's __transaction_state partition (Kafka's TransactionCoordinator,
// TransactionStateManager and TransactionMarkerChannelManager): it hands a
// transactional producer its producer id and epoch, fencing older instances, records
// the partitions of each transaction, and ends a transaction in two phases —
// PrepareCommit or PrepareAbort written to the transaction log, then COMMIT or ABORT
// markers written to every partition of the transaction, then CompleteCommit or
// CompleteAbort. Every transition is a protocol.TxnLogRecord appended to the id's
// partition of the log with acks=all; a broker that becomes its leader loads the latest
// record of each id and finishes what was being prepared.
package txn

import (
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// DefaultLogPartitions is transaction.state.log.num.partitions' default.
const DefaultLogPartitions = 50

// Config is what the coordinator reads of the broker's configuration.
type Config struct {
	LogPartitions     int   // transaction.state.log.num.partitions
	MaxTimeoutMs      int64 // transaction.max.timeout.ms
	AbortIntervalMs   int64 // transaction.abort.timed.out.transaction.cleanup.interval.ms
	OffsetsPartitions int   // offsets.topic.num.partitions, for AddOffsetsToTxn
	RequestTimeoutMs  int64 // request.timeout.ms: how long an append to the log may wait for the ISR
	RetryBackoffMs    int64 // how long a marker whose leader is unknown or failed waits before it is sent again
	ExpirationMs      int64 // transactional.id.expiration.ms (expiration.go)
	ExpireIntervalMs  int64 // transaction.remove.expired.transaction.cleanup.interval.ms
	// TransactionVersion is the cluster's finalized transaction.version: 2 bumps the
	// epoch of the coordinator's own aborts as version 2 does (a timed-out or fenced
	// transaction is ended at the cluster's version, TransactionStateManager.
	// transactionVersionLevel), and the client learns it (InitProducerIdResponse).
	TransactionVersion int16
}

// Host is what the coordinator needs of the broker it runs on.
type Host interface {
	// IsLeader reports whether the broker leads a partition.
	IsLeader(tp protocol.TP) bool
	// Leader is a partition's leader as the broker's metadata cache has it ("" if none).
	Leader(tp protocol.TP) string
	// LeaderEpoch is a partition's leader epoch as the metadata cache has it: for a
	// partition of the transaction log, the coordinator epoch its markers carry.
	LeaderEpoch(tp protocol.TP) int32
	// AppendTxnLog appends records to a __transaction_state partition with acks=all and
	// says at which offset, or the error that kept it from appending anything; once the
	// HW covers them, the append fails or timeoutMs pass, the broker calls AppendDone
	// with ref.
	AppendTxnLog(env *sim.Env, ref int64, tp protocol.TP, records []protocol.Record, timeoutMs int64) (int64, protocol.Error)
	// NewProducerID hands out a producer id from the broker's block, or false while the
	// broker waits for a block from the controller.
	NewProducerID(env *sim.Env) (int64, bool)
}

// Coordinator holds the transactional ids this broker coordinates: those living on the
// __transaction_state partitions it leads. All of it is volatile: the states live in
// the replicated log, and a new coordinator loads them from there.
type Coordinator struct {
	cfg      Config
	txns     map[string]*metadata
	pending  map[int64]pendingAppend // log appends waiting for the HW
	markers  map[int64]markerRequest // WriteTxnMarkers in flight
	refSeq   int64
	reqSeq   int64
	swept    bool // the timeout sweep is armed
	expiring bool // the expiration sweep is armed (expiration.go)
}

// metadata is one transactional id's TransactionMetadata.
type metadata struct {
	ID         string
	PID        int64
	Epoch      int16
	TimeoutMs  int64
	State      protocol.TxnState
	Partitions []protocol.TP // sorted
	StartMs    int64
	// LastUpdateMs is when the last transition was made (txnLastUpdateTimestamp, kept in
	// the log): an id idle for transactional.id.expiration.ms since expires.
	LastUpdateMs int64
	// Pending: a transition is being written to the log (pendingState); the id answers
	// CONCURRENT_TRANSACTIONS meanwhile.
	Pending bool
	// Fencing: the pending transition is the abort of a fenced or timed-out transaction
	// (PrepareEpochFence, then PrepareAbort at the bumped epoch).
	Fencing bool
	// Remaining are the partitions whose marker is not yet written, in PrepareCommit or
	// PrepareAbort; CoordEpoch is the log partition's leader epoch the markers carry.
	Remaining  []protocol.TP
	CoordEpoch int32
	// Abandoned: a partition said this coordinator's markers are stale; it sends no
	// more of them and leaves the transaction to the coordinator that fenced it.
	Abandoned bool
	// LastEpoch, when HasLastEpoch, is the epoch before the producer's own last bump
	// (TransactionMetadata.lastProducerEpoch, kept in memory only, not in the log): a
	// retried bump whose answer was lost is answered with the current epoch.
	LastEpoch    int16
	HasLastEpoch bool
}

// reply is the answer a log append owes once it is durable.
type reply uint8

const (
	replyNone reply = iota // a transition of the coordinator's own (fence, timeout, completion)
	replyInit
	replyAddPartitions
	replyAddOffsets
	replyEnd
	// replyFence answers the InitProducerId whose new instance fenced an open
	// transaction: CONCURRENT_TRANSACTIONS once its abort is durable, to retry.
	replyFence
	// replyBrokerAdd answers a partition leader's or a group coordinator's
	// AddPartitionsToTxn of transactions version 2, once the partitions are written in.
	replyBrokerAdd
	// replyEndV2 answers EndTxn v5 with the bumped epoch once PrepareCommit or
	// PrepareAbort is durable.
	replyEndV2
)

type pendingAppend struct {
	Rec   protocol.TxnLogRecord
	Reply reply
	From  string
	ReqID int64
	Added []protocol.TP // replyBrokerAdd: the partitions asked for
}

// The coordinator's timers.
type (
	// abortSweep looks for transactions past their timeout, every
	// transaction.abort.timed.out.transaction.cleanup.interval.ms.
	abortSweep struct{}
	// markerRetry sends the markers of an id again.
	markerRetry struct{ ID string }
	// markerTimeout gives up on a WriteTxnMarkers unanswered for request.timeout.ms.
	markerTimeout struct{ ReqID int64 }
)

func (abortSweep) Kind() string          { return "TxnAbortSweep" }
func (markerRetry) Kind() string         { return "TxnMarkerRetry" }
func (markerTimeout) Kind() string       { return "TxnMarkerTimeout" }
func (abortSweep) Describe() string      { return abortSweepLine }
func (t markerRetry) Describe() string   { return sim.TimerLine("", t, t.ID) }
func (t markerTimeout) Describe() string { return markerTimeoutLine }

// The timers' lines in the trace, from their Kinds (sim.TimerLine).
var abortSweepLine, markerTimeoutLine = sim.TimerLine("", abortSweep{}), sim.TimerLine("", markerTimeout{})

func (m *metadata) tp(partitions int) protocol.TP {
	return protocol.TransactionStateTP(m.ID, partitions)
}

// New makes a coordinator with no transactional ids.
func New(cfg Config) Coordinator {
	c := Coordinator{cfg: cfg}
	c.Reset()
	return c
}

// Reset forgets everything (the broker crashed or restarted).
func (c *Coordinator) Reset() {
	c.txns = map[string]*metadata{}
	c.pending = map[int64]pendingAppend{}
	c.markers = map[int64]markerRequest{}
	c.swept, c.expiring = false, false
}

// Clone copies the coordinator.
func (c *Coordinator) Clone() Coordinator {
	n := *c
	n.txns = make(map[string]*metadata, len(c.txns))
	for k, m := range c.txns {
		v := *m
		v.Partitions = slices.Clone(m.Partitions)
		v.Remaining = slices.Clone(m.Remaining)
		n.txns[k] = &v
	}
	n.pending = make(map[int64]pendingAppend, len(c.pending))
	for k, p := range c.pending {
		p.Rec.Partitions = slices.Clone(p.Rec.Partitions)
		n.pending[k] = p
	}
	n.markers = make(map[int64]markerRequest, len(c.markers))
	for k, r := range c.markers {
		r.TPs = slices.Clone(r.TPs)
		n.markers[k] = r
	}
	return n
}

// LogPartition is the __transaction_state partition a transactional id lives on.
func (c *Coordinator) LogPartition(transactionalID string) protocol.TP {
	return protocol.TransactionStateTP(transactionalID, c.cfg.LogPartitions)
}

// Handle takes the transaction requests; it reports whether m was one.
func (c *Coordinator) Handle(env *sim.Env, h Host, m sim.Message) bool {
	switch p := m.Payload.(type) {
	case protocol.FindCoordinatorRequest:
		if p.KeyType != protocol.TransactionKey {
			return false
		}
		env.Send(m.From, c.findCoordinator(h, p.TransactionalID))
	case protocol.InitProducerIdRequest:
		if p.TransactionalID == "" {
			return false
		}
		c.onInitProducerId(env, h, m.From, p)
	case protocol.AddPartitionsToTxnRequest:
		c.onAddPartitions(env, h, m.From, p.ReqID, p.TransactionalID, p.ProducerID, p.ProducerEpoch, p.Partitions, replyAddPartitions)
	case protocol.AddOffsetsToTxnRequest:
		// The group's __consumer_offsets partition joins the transaction
		// (TransactionCoordinator.handleAddPartitionsToTransaction, from KafkaApis
		// handleAddOffsetsToTxnRequest).
		tp := protocol.OffsetsTP(p.Group, c.cfg.OffsetsPartitions)
		c.onAddPartitions(env, h, m.From, p.ReqID, p.TransactionalID, p.ProducerID, p.ProducerEpoch, []protocol.TP{tp}, replyAddOffsets)
	case protocol.EndTxnRequest:
		c.onEndTxn(env, h, m.From, p)
	case protocol.VerifyPartitionsInTxnRequest: // KIP-890: a leader asks (verify.go)
		c.onVerifyPartitions(env, h, m.From, p)
	case protocol.WriteTxnMarkersResponse:
		c.onMarkersResponse(env, h, p)
	case sim.Refused:
		o, ok := p.Orig.(protocol.WriteTxnMarkersRequest)
		if !ok {
			return false
		}
		c.markersLost(env, h, o.ReqID)
	default:
		return false
	}
	return true
}

// Fire runs the coordinator's timers; it reports whether t was one.
func (c *Coordinator) Fire(env *sim.Env, h Host, t sim.Payload) bool {
	switch t := t.(type) {
	case abortSweep:
		c.abortTimedOut(env, h)
		env.After(c.cfg.AbortIntervalMs, t)
	case markerRetry:
		if m := c.txns[t.ID]; m != nil && c.isCoordinator(h, m.ID) {
			c.sendMarkers(env, h, m)
		}
	case markerTimeout:
		c.markersLost(env, h, t.ReqID)
	case expireSweep:
		c.expireIdle(env, h)
		env.After(c.cfg.ExpireIntervalMs, t)
	default:
		return false
	}
	return true
}

// OnDisconnected gives up on the markers in flight to a broker whose connection broke.
func (c *Coordinator) OnDisconnected(env *sim.Env, h Host, peer string) {
	for _, id := range slices.Sorted(maps.Keys(c.markers)) {
		if c.markers[id].Broker == peer {
			c.markersLost(env, h, id)
		}
	}
}

// findCoordinator names the leader of the id's partition (KafkaApis
// handleFindCoordinatorRequest with CoordinatorType.TRANSACTION).
func (c *Coordinator) findCoordinator(h Host, transactionalID string) protocol.FindCoordinatorResponse {
	leader := h.Leader(c.LogPartition(transactionalID))
	if leader == "" {
		return protocol.FindCoordinatorResponse{Err: protocol.ErrCoordinatorNotAvailable}
	}
	return protocol.FindCoordinatorResponse{Coordinator: leader}
}

func (c *Coordinator) isCoordinator(h Host, transactionalID string) bool {
	return h.IsLeader(c.LogPartition(transactionalID))
}

// record is the metadata's state as a log record.
func (m *metadata) record() protocol.TxnLogRecord {
	return protocol.TxnLogRecord{TransactionalID: m.ID, ProducerID: m.PID, ProducerEpoch: m.Epoch, TimeoutMs: m.TimeoutMs,
		State: m.State, Partitions: slices.Clone(m.Partitions), StartMs: m.StartMs, LastUpdateMs: m.LastUpdateMs}
}

// write appends a transition to the id's log partition; the metadata is pending until
// the append is durable (TransactionStateManager.appendTransactionToLog). It returns the
// error that kept it from appending, as the client is to hear it.
func (c *Coordinator) write(env *sim.Env, h Host, m *metadata, rec protocol.TxnLogRecord, pa pendingAppend) protocol.Error {
	if rec.State != protocol.TxnDead {
		// every transition but the tombstone is an update (the prepare* methods'
		// updateTimestamp; prepareDead keeps txnLastUpdateTimestamp)
		rec.LastUpdateMs = env.Now()
	}
	c.refSeq++
	_, err := h.AppendTxnLog(env, c.refSeq, m.tp(c.cfg.LogPartitions), []protocol.Record{{Body: rec}}, c.cfg.RequestTimeoutMs)
	if err != "" {
		return protocol.CoordinatorAppendError(err)
	}
	pa.Rec = rec
	m.Pending = true
	c.pending[c.refSeq] = pa
	env.Note("txn log " + rec.TransactionalID + " " + rec.State.String() + " e" + itoa(int64(rec.ProducerEpoch)))
	return ""
}

// AppendDone completes the append made under ref: durable (err is ""), the transition
// takes effect and its answer goes out; failed, the metadata stays as it was and the
// client hears the error.
func (c *Coordinator) AppendDone(env *sim.Env, h Host, ref int64, err protocol.Error) {
	pa, ok := c.pending[ref]
	if !ok {
		return
	}
	delete(c.pending, ref)
	m := c.txns[pa.Rec.TransactionalID]
	if m == nil {
		return // the partition moved away meanwhile
	}
	m.Pending = false
	err = protocol.CoordinatorAppendError(err)
	if err == "" && pa.Rec.State == protocol.TxnDead {
		// The tombstone is durable: the id is forgotten (writeTombstonesForExpiredTransactionalIds'
		// removeFromCacheCallback).
		delete(c.txns, m.ID)
		return
	}
	if err == "" {
		m.apply(pa.Rec)
	} else {
		m.Fencing = false
	}
	switch pa.Reply {
	case replyInit:
		r := protocol.InitProducerIdResponse{ReqID: pa.ReqID, Err: err, ProducerID: m.PID, ProducerEpoch: m.Epoch,
			TransactionVersion: c.cfg.TransactionVersion}
		if err != "" {
			r.ProducerID, r.ProducerEpoch = protocol.NoProducerID, protocol.NoProducerEpoch
		}
		env.Send(pa.From, r)
	case replyAddPartitions:
		env.Send(pa.From, addPartitionsAnswer(pa.ReqID, pa.Rec.Partitions, err))
	case replyAddOffsets:
		env.Send(pa.From, protocol.AddOffsetsToTxnResponse{ReqID: pa.ReqID, Err: err})
	case replyEnd:
		env.Send(pa.From, protocol.EndTxnResponse{ReqID: pa.ReqID, Err: err})
	case replyEndV2:
		r := protocol.EndTxnResponse{ReqID: pa.ReqID, Err: err, TransactionV2: true,
			ProducerID: protocol.NoProducerID, ProducerEpoch: protocol.NoProducerEpoch}
		if err == "" {
			r.ProducerID, r.ProducerEpoch = m.PID, m.Epoch
		}
		env.Send(pa.From, r)
	case replyBrokerAdd:
		env.Send(pa.From, protocol.VerifyPartitionsInTxnResponse{ReqID: pa.ReqID, Add: true,
			Results: protocol.TPErrors(pa.Added, err)})
	case replyFence:
		answer := err
		if answer == "" {
			answer = protocol.ErrConcurrentTransactions
		}
		env.Send(pa.From, protocol.InitProducerIdResponse{ReqID: pa.ReqID, Err: answer, ProducerID: protocol.NoProducerID,
			ProducerEpoch: protocol.NoProducerEpoch})
	}
	if err != "" {
		if pa.Reply == replyNone && preparing(m.State) && err != protocol.ErrNotCoordinator {
			// The completion could not be written: try again (TransactionMarkerChannelManager's
			// retryAppendToLog).
			c.complete(env, h, m)
		}
		return
	}
	switch m.State {
	case protocol.TxnPrepareCommit, protocol.TxnPrepareAbort:
		m.Fencing = false
		m.Remaining = slices.Clone(m.Partitions)
		m.CoordEpoch = h.LeaderEpoch(m.tp(c.cfg.LogPartitions))
		c.prepared(env, h, m)
	}
}

// prepared reports that a transaction's PrepareCommit or PrepareAbort is durable here —
// just written, or loaded by a new leader of the log — and sends its markers, unless the
// broker crashed at that point: then the next leader of the log finishes it.
func (c *Coordinator) prepared(env *sim.Env, h Host, m *metadata) {
	env.Observe(sim.Observation{Event: protocol.TxnPrepared, Partition: m.tp(c.cfg.LogPartitions).String(),
		TxnID: m.ID, Value: protocol.MarkerFor(m.State == protocol.TxnPrepareCommit).String()})
	if env.Alive() {
		c.sendMarkers(env, h, m)
	}
}

func (m *metadata) apply(rec protocol.TxnLogRecord) {
	m.PID, m.Epoch, m.TimeoutMs, m.State = rec.ProducerID, rec.ProducerEpoch, rec.TimeoutMs, rec.State
	m.Partitions, m.StartMs, m.LastUpdateMs = slices.Clone(rec.Partitions), rec.StartMs, rec.LastUpdateMs
}

func addPartitionsAnswer(reqID int64, tps []protocol.TP, err protocol.Error) protocol.AddPartitionsToTxnResponse {
	return protocol.AddPartitionsToTxnResponse{ReqID: reqID, Results: protocol.TPErrors(tps, err)}
}

// OnElection is called when the broker becomes leader of a __transaction_state
// partition: it loads the latest record of each of the partition's ids from the whole
// log (TransactionStateManager.loadTransactionMetadata) and sends the markers of those in
// PrepareCommit or PrepareAbort again (TransactionCoordinator.onElection, the
// transactions to complete), and arms the timeout sweep.
func (c *Coordinator) OnElection(env *sim.Env, h Host, tp protocol.TP, records []protocol.Record) {
	loaded := map[string]protocol.TxnLogRecord{}
	for _, r := range records {
		rec, ok := r.Body.(protocol.TxnLogRecord)
		switch {
		case !ok || c.LogPartition(rec.TransactionalID) != tp:
		case rec.State == protocol.TxnDead:
			delete(loaded, rec.TransactionalID) // a tombstone: the id expired (expiration.go)
		default:
			loaded[rec.TransactionalID] = rec
		}
	}
	for _, id := range slices.Sorted(maps.Keys(loaded)) {
		m := &metadata{ID: id}
		m.apply(loaded[id])
		c.txns[id] = m
		env.Note("txn loaded " + id + " " + m.State.String() + " e" + itoa(int64(m.Epoch)))
		if preparing(m.State) {
			m.Remaining = slices.Clone(m.Partitions)
			m.CoordEpoch = h.LeaderEpoch(tp)
			c.prepared(env, h, m)
		}
	}
	if !c.swept {
		c.swept = true
		env.After(c.cfg.AbortIntervalMs, abortSweep{})
	}
	c.armExpiration(env)
}

// OnResignation is called when the broker stops leading a __transaction_state
// partition: its ids go with it (TransactionStateManager.removeTransactionsForTxnTopicPartition),
// and the markers in flight for them are forgotten.
func (c *Coordinator) OnResignation(tp protocol.TP) {
	for id := range c.txns {
		if c.LogPartition(id) == tp {
			delete(c.txns, id)
		}
	}
	for ref, pa := range c.pending {
		if c.LogPartition(pa.Rec.TransactionalID) == tp {
			delete(c.pending, ref)
		}
	}
	for id, r := range c.markers {
		if c.LogPartition(r.ID) == tp {
			delete(c.markers, id)
		}
	}
}

// TxnView is what the canvas shows of one transactional id.
type TxnView struct {
	ID         string
	PID        int64
	Epoch      int16
	State      protocol.TxnState
	Partitions []protocol.TP
}

// View lists the ids this broker coordinates, sorted.
func (c *Coordinator) View() []TxnView {
	var out []TxnView
	for _, id := range slices.Sorted(maps.Keys(c.txns)) {
		m := c.txns[id]
		st := m.State
		if m.Fencing {
			st = protocol.TxnPrepareEpochFence
		}
		out = append(out, TxnView{ID: id, PID: m.PID, Epoch: m.Epoch, State: st, Partitions: slices.Clone(m.Partitions)})
	}
	return out
}

// Unsettled names the ids whose transaction is in progress — ongoing with partitions in
// it (its producer ends it, or, if it is gone, the timeout sweep aborts it), a transition
// being written, or markers not all written — sorted: a run is not over while one is.
func (c *Coordinator) Unsettled() []string {
	var out []string
	for _, id := range sortedIDs(c.txns) {
		if unsettled(c.txns[id]) {
			out = append(out, id)
		}
	}
	return out
}

// IsUnsettled reports whether Unsettled names id (the broker's settle check asks about
// the one that held it last before it lists them all).
func (c *Coordinator) IsUnsettled(id string) bool {
	m, ok := c.txns[id]
	return ok && unsettled(m)
}

func unsettled(m *metadata) bool {
	ongoing := m.State == protocol.TxnOngoing && len(m.Partitions) > 0
	return m.Pending || ongoing || (preparing(m.State) && !m.Abandoned)
}
