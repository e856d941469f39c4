package protocol

import "fmt"

// The idempotent producer's messages: InitProducerId (client to any broker) and
// AllocateProducerIds (broker to controller, KIP-730), and a batch's sequence range.

// InitProducerIdRequest asks a broker for a producer id and epoch. Without a
// transactional id any broker answers it from its block of ids
// (TransactionCoordinator.handleInitProducerId with a null transactional id).
//
// With a TransactionalID it goes to the id's transaction coordinator, which keeps the
// id's producer id and bumps its epoch, fencing any older instance (transactions.go).
//
// A transactional producer that aborts after a failed send bumps its own epoch (KIP-360,
// TransactionManager.beginCompletingTransaction with epochBumpRequired): Bump is set and
// ProducerID and ProducerEpoch are the ones it has, which the coordinator checks — only
// the current producer may bump (InitProducerIdRequestData's ProducerId and
// ProducerEpoch; -1 for a first InitProducerId, as here without Bump).
type InitProducerIdRequest struct {
	request
	ReqID                int64
	TransactionalID      string // "" for an idempotent producer without transactions
	TransactionTimeoutMs int64  // transaction.timeout.ms, with a TransactionalID
	Bump                 bool
	ProducerID           int64
	ProducerEpoch        int16
}

func (InitProducerIdRequest) Kind() string { return "InitProducerId" }
func (m InitProducerIdRequest) Describe() string {
	if m.TransactionalID != "" && m.Bump {
		return fmt.Sprintf("InitProducerId req=%d %s timeout=%d pid=%d e%d", m.ReqID, m.TransactionalID,
			m.TransactionTimeoutMs, m.ProducerID, m.ProducerEpoch)
	}
	if m.TransactionalID != "" {
		return fmt.Sprintf("InitProducerId req=%d %s timeout=%d", m.ReqID, m.TransactionalID, m.TransactionTimeoutMs)
	}
	return fmt.Sprintf("InitProducerId req=%d", m.ReqID)
}

// InitProducerIdResponse gives a new producer id at epoch 0, or an error
// (COORDINATOR_LOAD_IN_PROGRESS while the broker waits for a block of ids).
type InitProducerIdResponse struct {
	ReqID         int64
	Err           Error
	ProducerID    int64
	ProducerEpoch int16
	// TransactionVersion is the cluster's finalized transaction.version as the answering
	// broker has it: what the client learned from the ApiVersions exchange of the
	// connection the answer came over (ApiVersionsResponse's finalized features, which
	// the real client reads once initTransactions has its producer id:
	// TransactionManager.maybeUpdateTransactionV2Enabled). Not a field of Kafka's
	// InitProducerId response; the simulated coordinator's connections carry no
	// ApiVersions of their own.
	TransactionVersion int16
}

func (InitProducerIdResponse) Kind() string { return "InitProducerIdResponse" }
func (m InitProducerIdResponse) Describe() string {
	if m.Err != "" {
		return fmt.Sprintf("InitProducerIdResponse req=%d %s", m.ReqID, m.Err)
	}
	if m.TransactionVersion > 0 {
		return fmt.Sprintf("InitProducerIdResponse req=%d pid=%d epoch=%d transaction.version=%d", m.ReqID, m.ProducerID,
			m.ProducerEpoch, m.TransactionVersion)
	}
	return fmt.Sprintf("InitProducerIdResponse req=%d pid=%d epoch=%d", m.ReqID, m.ProducerID, m.ProducerEpoch)
}

// AllocateProducerIdsRequest asks the controller for a block of producer ids (KIP-730).
type AllocateProducerIdsRequest struct {
	request
	Broker      string
	Incarnation int64
}

func (AllocateProducerIdsRequest) Kind() string { return "AllocateProducerIds" }
func (m AllocateProducerIdsRequest) Describe() string {
	return "AllocateProducerIds " + m.Broker
}

// AllocateProducerIdsResponse hands a broker the ids Start .. Start+Len-1, which no
// other broker gets (ProducerIdControlManager.generateNextProducerId).
type AllocateProducerIdsResponse struct {
	Err   Error
	Start int64
	Len   int64
}

func (AllocateProducerIdsResponse) Kind() string { return "AllocateProducerIdsResponse" }
func (m AllocateProducerIdsResponse) Describe() string {
	if m.Err != "" {
		return "AllocateProducerIdsResponse " + m.Err.String()
	}
	return fmt.Sprintf("AllocateProducerIdsResponse ids=%d..%d", m.Start, m.Start+m.Len-1)
}

// ProducerIDBlockSize is how many ids the controller hands a broker at a time
// (ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE).
const ProducerIDBlockSize = 1000

// HasProducerID reports whether the batch comes from an idempotent producer.
func (b RecordBatch) HasProducerID() bool { return b.ProducerID != NoProducerID }

// Tail is the batch's records from offset on, as a batch of their own: its base offset
// and, for an idempotent producer's batch, its base sequence move with the first record
// kept, so that each record keeps its sequence (a follower that already has the head of
// a batch appends only the rest).
func (b RecordBatch) Tail(offset int64) RecordBatch {
	if offset <= b.BaseOffset {
		return b
	}
	cut := offset - b.BaseOffset
	b.Records = b.Records[cut:]
	b.BaseOffset = offset
	if b.BaseSequence != NoSequence {
		b.BaseSequence = int32((int64(b.BaseSequence) + cut) % (1 << 31))
	}
	return b
}

// LastSequence is the sequence of the batch's last record (RecordBatch.lastSequence:
// a sequence wraps from 2147483647 to 0).
func (b RecordBatch) LastSequence() int32 {
	if b.BaseSequence == NoSequence {
		return NoSequence
	}
	return int32((int64(b.BaseSequence) + int64(len(b.Records)) - 1) % (1 << 31))
}

// producerText is " pid=7 e0 seq=0..4" for an idempotent batch, "" otherwise.
func producerText(b RecordBatch) string {
	if !b.HasProducerID() {
		return ""
	}
	return fmt.Sprintf(" pid=%d e%d seq=%d..%d", b.ProducerID, b.ProducerEpoch, b.BaseSequence, b.LastSequence())
}
