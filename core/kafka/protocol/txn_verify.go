package protocol

import "fmt"

// KIP-890 part 1, transaction partition verification (on by default since Kafka 3.6,
// transaction.partition.verification.enable): before a transactional producer's first
// append to a partition in a transaction, the partition's leader asks the transaction
// coordinator whether the partition is in the producer's ongoing transaction at that
// epoch. The question is an AddPartitionsToTxn request of version 4 or later, sent
// broker to broker with verifyOnly set (AddPartitionsToTxnManager.verifyTransaction);
// the coordinator adds nothing, it only answers
// (TransactionCoordinator.handleVerifyPartitionsInTransaction).

// VerifyPartitionsInTxnRequest is the leader's AddPartitionsToTxn with verifyOnly=true
// for one transactional id (AddPartitionsToTxnTransaction): the partitions a produce
// request would open the producer's transaction on.
type VerifyPartitionsInTxnRequest struct {
	request
	ReqID           int64
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int16
	Partitions      []TP
	// Add: verifyOnly false, for a producer of transactions version 2 (KIP-890 part 2):
	// the coordinator adds the partitions to the transaction, as the producer's own
	// AddPartitionsToTxn did before (AddPartitionsToTxnManager.addOrVerifyTransaction).
	Add bool
}

func (VerifyPartitionsInTxnRequest) Kind() string { return "AddPartitionsToTxn" }
func (m VerifyPartitionsInTxnRequest) Describe() string {
	return fmt.Sprintf("AddPartitionsToTxn req=%d %s %s pid=%d e%d [%s]", m.ReqID, verifyOrAdd(m.Add), m.TransactionalID,
		m.ProducerID, m.ProducerEpoch, TPsText(m.Partitions))
}

func verifyOrAdd(add bool) string {
	if add {
		return "add"
	}
	return "verifyOnly"
}
func (m VerifyPartitionsInTxnRequest) Label() string {
	if m.Add {
		return "add partitions"
	}
	return "verify partitions"
}

// VerifyPartitionsInTxnResponse answers per partition
// (AddPartitionsToTxnResponse.resultForTransaction): no error for a partition in the
// ongoing transaction, TRANSACTION_ABORTABLE for one that is not; a check the whole
// transaction fails (not the coordinator, another producer id, an older epoch, a
// transaction being ended) answers every partition with that error.
type VerifyPartitionsInTxnResponse struct {
	ReqID   int64
	Results []TPError
	Add     bool // the answer to an add (verifyOnly false)
}

func (VerifyPartitionsInTxnResponse) Kind() string { return "AddPartitionsToTxnResponse" }
func (m VerifyPartitionsInTxnResponse) Describe() string {
	return fmt.Sprintf("AddPartitionsToTxnResponse req=%d %s %s", m.ReqID, verifyOrAdd(m.Add), tpErrorsText(m.Results))
}
