package protocol

import (
	"fmt"
	"strings"
)

// The transaction protocol (KIP-98, KIP-447): the messages between a transactional
// producer, its transaction coordinator (the leader of the transactional id's
// __transaction_state partition) and the partition leaders the coordinator writes
// markers to, and the records of the transaction log.

// TransactionStateTopic is the internal topic of the transaction log.
const TransactionStateTopic = "__transaction_state"

// TxnState is where a transactional id's transaction stands in its coordinator
// (TransactionState).
type TxnState uint8

// The states, as TransactionState names them.
const (
	TxnEmpty             TxnState = iota // no transaction since the last one ended (or ever)
	TxnOngoing                           // partitions added, not yet ended
	TxnPrepareCommit                     // EndTxn(commit) written to the log; markers to write
	TxnPrepareAbort                      // EndTxn(abort), a timeout or a fence; markers to write
	TxnCompleteCommit                    // every marker written
	TxnCompleteAbort                     // every marker written
	TxnPrepareEpochFence                 // a new InitProducerId fences the ongoing transaction: abort it, then bump
	TxnDead                              // expired transactional id
)

func (s TxnState) String() string {
	return [...]string{"Empty", "Ongoing", "PrepareCommit", "PrepareAbort", "CompleteCommit", "CompleteAbort",
		"PrepareEpochFence", "Dead"}[s]
}

// CoordinatorKey is what FindCoordinator looks up (FindCoordinatorRequest.KeyType).
type CoordinatorKey uint8

// The key types.
const (
	GroupKey       CoordinatorKey = 0
	TransactionKey CoordinatorKey = 1
)

// TxnLogRecord is a record of __transaction_state: the state of one transactional id
// after a transition (TransactionLog's value: producer id and epoch, timeout, state, the
// partitions of the transaction, when it started, when it was last updated). The latest
// record of an id is its state; a coordinator that takes over a partition of the log
// loads it from them. A record in state Dead is the tombstone of an expired id (Kafka's
// record with the id's key and a null value): the id is gone.
type TxnLogRecord struct {
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int16
	TimeoutMs       int64
	State           TxnState
	Partitions      []TP
	StartMs         int64 // when the ongoing transaction started (-1 when none)
	LastUpdateMs    int64 // when the coordinator made this transition (txnLastUpdateTimestamp)
}

func (r TxnLogRecord) Describe() string {
	return fmt.Sprintf("txn %s pid=%d e%d %s [%s]", r.TransactionalID, r.ProducerID, r.ProducerEpoch, r.State, TPsText(r.Partitions))
}

// InitProducerIdRequest with a TransactionalID goes to the id's coordinator: it bumps
// the epoch, fencing any older instance (and aborting its open transaction first). Its
// fields are in idempotence.go.

// AddPartitionsToTxnRequest adds partitions to the ongoing transaction before the
// producer's first batch to each.
type AddPartitionsToTxnRequest struct {
	request
	ReqID           int64
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int16
	Partitions      []TP
}

func (AddPartitionsToTxnRequest) Kind() string { return "AddPartitionsToTxn" }
func (m AddPartitionsToTxnRequest) Describe() string {
	return fmt.Sprintf("AddPartitionsToTxn req=%d %s pid=%d e%d [%s]", m.ReqID, m.TransactionalID, m.ProducerID, m.ProducerEpoch, TPsText(m.Partitions))
}
func (AddPartitionsToTxnRequest) Label() string { return "add partitions" }

// TPError is one partition's answer.
type TPError struct {
	TP  TP
	Err Error
}

// TPErrors answers every partition with one error (nil for no partitions).
func TPErrors(tps []TP, err Error) []TPError {
	var out []TPError
	for _, tp := range tps {
		out = append(out, TPError{TP: tp, Err: err})
	}
	return out
}

// AddPartitionsToTxnResponse answers per partition.
type AddPartitionsToTxnResponse struct {
	ReqID   int64
	Results []TPError
}

func (AddPartitionsToTxnResponse) Kind() string { return "AddPartitionsToTxnResponse" }
func (m AddPartitionsToTxnResponse) Describe() string {
	return fmt.Sprintf("AddPartitionsToTxnResponse req=%d %s", m.ReqID, tpErrorsText(m.Results))
}

// tpErrorsText is per-partition answers as the trace writes them: "orders-0=NONE …".
func tpErrorsText(results []TPError) string {
	parts := make([]string, len(results))
	for i, r := range results {
		parts[i] = r.TP.String() + "=" + r.Err.OrNone()
	}
	return strings.Join(parts, " ")
}

// AddOffsetsToTxnRequest adds the group's __consumer_offsets partition to the
// transaction (sendOffsetsToTransaction, first step).
type AddOffsetsToTxnRequest struct {
	request
	ReqID           int64
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int16
	Group           string
}

func (AddOffsetsToTxnRequest) Kind() string { return "AddOffsetsToTxn" }
func (m AddOffsetsToTxnRequest) Describe() string {
	return fmt.Sprintf("AddOffsetsToTxn req=%d %s pid=%d e%d group=%s", m.ReqID, m.TransactionalID, m.ProducerID, m.ProducerEpoch, m.Group)
}

// AddOffsetsToTxnResponse answers it.
type AddOffsetsToTxnResponse struct {
	ReqID int64
	Err   Error
}

func (AddOffsetsToTxnResponse) Kind() string { return "AddOffsetsToTxnResponse" }
func (m AddOffsetsToTxnResponse) Describe() string {
	return fmt.Sprintf("AddOffsetsToTxnResponse req=%d %s", m.ReqID, m.Err.OrNone())
}

// TxnOffsetCommitRequest commits a consumer's offsets inside the transaction, to the
// group coordinator (sendOffsetsToTransaction, second step). KIP-447: it carries the
// consumer's group metadata, so a zombie's commit after a rebalance is refused.
type TxnOffsetCommitRequest struct {
	request
	ReqID           int64
	TransactionalID string
	Group           string
	ProducerID      int64
	ProducerEpoch   int16
	Member          string
	Generation      int32
	Offsets         []TPOffset
	Msgs            []string // the identities the offsets cover (for the trace and the ledger)
	// TransactionV2: TxnOffsetCommit v5, of a producer of transactions version 2, that
	// sent no AddOffsetsToTxn: the group coordinator adds the offsets partition to the
	// transaction itself before it writes.
	TransactionV2 bool
}

func (TxnOffsetCommitRequest) Kind() string { return "TxnOffsetCommit" }
func (m TxnOffsetCommitRequest) Describe() string {
	return fmt.Sprintf("TxnOffsetCommit req=%d %s %s gen=%d pid=%d e%d %s", m.ReqID, m.TransactionalID, m.Group, m.Generation,
		m.ProducerID, m.ProducerEpoch, OffsetsText(m.Offsets))
}
func (TxnOffsetCommitRequest) Label() string { return "txn commit" }

// TxnOffsetCommitResponse answers it.
type TxnOffsetCommitResponse struct {
	ReqID int64
	Err   Error
}

func (TxnOffsetCommitResponse) Kind() string { return "TxnOffsetCommitResponse" }
func (m TxnOffsetCommitResponse) Describe() string {
	return fmt.Sprintf("TxnOffsetCommitResponse req=%d %s", m.ReqID, m.Err.OrNone())
}

// EndTxnRequest commits or aborts the transaction.
type EndTxnRequest struct {
	request
	ReqID           int64
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int16
	Commit          bool
	// TransactionV2: EndTxn v5, of a producer of transactions version 2: the coordinator
	// bumps the epoch and answers with it (TransactionVersion.transactionVersionForEndTxn).
	TransactionV2 bool
}

func (EndTxnRequest) Kind() string { return "EndTxn" }
func (m EndTxnRequest) Describe() string {
	return fmt.Sprintf("EndTxn req=%d %s pid=%d e%d %s", m.ReqID, m.TransactionalID, m.ProducerID, m.ProducerEpoch, MarkerFor(m.Commit).String())
}
func (m EndTxnRequest) Label() string { return "end " + strings.ToLower(MarkerFor(m.Commit).String()) }

// EndTxnResponse answers once PrepareCommit or PrepareAbort is durable in the
// transaction log; the markers are written after it.
type EndTxnResponse struct {
	ReqID int64
	Err   Error
	// TransactionV2: the answer to EndTxn v5, with the producer id and the epoch the
	// transaction ended at, bumped (EndTxnResponse v5's ProducerId and ProducerEpoch):
	// the producer's next transaction runs at them.
	TransactionV2 bool
	ProducerID    int64
	ProducerEpoch int16
}

func (EndTxnResponse) Kind() string { return "EndTxnResponse" }
func (m EndTxnResponse) Describe() string {
	if m.TransactionV2 && m.Err == "" {
		return fmt.Sprintf("EndTxnResponse req=%d NONE pid=%d e%d", m.ReqID, m.ProducerID, m.ProducerEpoch)
	}
	return fmt.Sprintf("EndTxnResponse req=%d %s", m.ReqID, m.Err.OrNone())
}

// TxnMarker is one producer's marker for some partitions (WritableTxnMarker).
type TxnMarker struct {
	ProducerID       int64
	ProducerEpoch    int16
	Commit           bool
	CoordinatorEpoch int32
	Partitions       []TP
	// TransactionVersion is the transaction's (WriteTxnMarkers v2): under version 2 a
	// marker carries the epoch its EndTxn bumped to, and the leader holds it to that.
	TransactionVersion int16
}

// WriteTxnMarkersRequest asks a partition leader to append COMMIT or ABORT control
// batches (TransactionMarkerChannelManager, one request per broker).
type WriteTxnMarkersRequest struct {
	request
	ReqID   int64
	Markers []TxnMarker
}

func (WriteTxnMarkersRequest) Kind() string { return "WriteTxnMarkers" }
func (m WriteTxnMarkersRequest) Describe() string {
	parts := make([]string, len(m.Markers))
	for i, mk := range m.Markers {
		parts[i] = fmt.Sprintf("pid=%d e%d %s [%s]", mk.ProducerID, mk.ProducerEpoch, MarkerFor(mk.Commit).String(), TPsText(mk.Partitions))
	}
	return fmt.Sprintf("WriteTxnMarkers req=%d %s", m.ReqID, strings.Join(parts, "; "))
}
func (m WriteTxnMarkersRequest) Label() string {
	if len(m.Markers) == 1 {
		return "marker " + strings.ToLower(MarkerFor(m.Markers[0].Commit).String())
	}
	return "markers"
}

// WriteTxnMarkersResponse answers per producer and partition.
type WriteTxnMarkersResponse struct {
	ReqID   int64
	Results []TxnMarkerResult
}

// TxnMarkerResult is one partition's answer for one producer's marker.
type TxnMarkerResult struct {
	ProducerID int64
	TP         TP
	Err        Error
}

func (WriteTxnMarkersResponse) Kind() string { return "WriteTxnMarkersResponse" }
func (m WriteTxnMarkersResponse) Describe() string {
	parts := make([]string, len(m.Results))
	for i, r := range m.Results {
		parts[i] = fmt.Sprintf("pid=%d %s=%s", r.ProducerID, r.TP, r.Err.OrNone())
	}
	return fmt.Sprintf("WriteTxnMarkersResponse req=%d %s", m.ReqID, strings.Join(parts, " "))
}

// AbortedTxn is an aborted transaction a read_committed consumer must skip: a producer
// and the first offset of its aborted transaction in the partition (FetchResponse's
// AbortedTransaction, from the partition's aborted-transaction index).
type AbortedTxn struct {
	ProducerID  int64
	FirstOffset int64
}

// IsolationLevel is a consumer's isolation.level, sent with every fetch.
type IsolationLevel uint8

// The isolation levels.
const (
	ReadUncommitted IsolationLevel = 0
	ReadCommitted   IsolationLevel = 1
)

// IsolationLevels are isolation.level's choices, in the order Kafka's docs list them.
var IsolationLevels = []IsolationLevel{ReadUncommitted, ReadCommitted}

// String is the level as isolation.level spells it.
func (l IsolationLevel) String() string {
	if l == ReadCommitted {
		return "read_committed"
	}
	return "read_uncommitted"
}

// suffix is what a request's description adds for its level: nothing for the default.
func (l IsolationLevel) suffix() string {
	if l == ReadCommitted {
		return " " + l.String()
	}
	return ""
}

// MarkerFor is the control marker that ends a transaction committed (or not).
func MarkerFor(commit bool) ControlType {
	if commit {
		return ControlCommit
	}
	return ControlAbort
}
