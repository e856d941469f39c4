package server

import (
	"fmt"
	"maps"
	"slices"

	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// KIP-890 part 1, transaction partition verification (transaction.partition.verification.enable,
// true by default since 3.6): before a transactional producer's first append to a
// partition in a transaction — its producer state there has no ongoing transaction — the
// leader asks the transaction coordinator whether the partition is in the producer's
// ongoing transaction at that epoch, and appends only once it says so. A produce that
// arrives late, after its transaction was aborted, is refused instead of opening a
// transaction no coordinator knows of, which would hold the last stable offset back until
// the producer's next transaction there commits or aborts it — records of an aborted
// transaction committed (the hanging transaction KIP-890 closed).
//
// The leader remembers each verification it starts with a guard (VerificationStateEntry
// and its unique VerificationGuard, in ProducerStateManager): any transactional batch of
// the producer appended meanwhile — its first data batch, or a marker — clears it, and an
// append that needs verification carries the guard it started with and must find it still
// there (UnifiedLog.analyzeAndValidateProducerState), so a verification answered before an
// abort marker is not used after it.
//
// Simplified: Kafka's AddPartitionsToTxnManager sends one request per coordinator at a
// time and batches what waits; here each produce request that needs verification sends its
// own. The guards of a broker that crashes are forgotten (they live in memory only), and
// they do not expire (VerificationStateEntry's expiration is beyond the playground's runs).
// The group coordinator's verification of a TxnOffsetCommit (GroupCoordinator.
// handleTxnCommitOffsets) is not modelled.

// verificationEntry is a partition's VerificationStateEntry for one producer: its guard and
// the lowest sequence and latest epoch of the batches that started it.
type verificationEntry struct {
	Guard     int64
	LowestSeq int32
	Epoch     int16
}

// pendingVerification is a produce request waiting for the coordinator's answer.
type pendingVerification struct {
	From        string
	Req         protocol.ProduceRequest
	Coordinator string
	Guards      map[protocol.TP]int64
	// StartedMs is when the first request went out: transactions version 2 retries a
	// CONCURRENT_TRANSACTIONS answer until add.partitions.to.txn.retry.backoff.max.ms
	// have passed since.
	StartedMs int64
	Add       bool // transactions version 2: the coordinator adds the partitions
	// The transaction asked about: its id, producer id and epoch.
	TransactionalID string
	ProducerID      int64
	ProducerEpoch   int16
	// Offsets, instead of Req: a TxnOffsetCommit of version 2 whose offsets partition is
	// being added (offsets_add.go).
	Offsets *protocol.TxnOffsetCommitRequest
	// Refused are the request's partitions refused before the coordinator was asked
	// (version 2: a batch of an older epoch than the partition knows).
	Refused map[protocol.TP]protocol.Error
}

// Transactions version 2's retries of an add the coordinator answered
// CONCURRENT_TRANSACTIONS (the previous transaction's markers are being written):
// add.partitions.to.txn.retry.backoff.ms and .max.ms, Kafka 4's defaults
// (ReplicaManager.maybeRetryOnConcurrentTransactions).
const (
	addPartitionsRetryBackoffMs = 20
	addPartitionsRetryMaxMs     = 100
)

// verifyRetry sends an add again after a CONCURRENT_TRANSACTIONS answer.
type verifyRetry struct{ ReqID int64 }

func (verifyRetry) Kind() string     { return "TxnAddRetry" }
func (verifyRetry) Describe() string { return verifyRetryLine }

var verifyRetryLine = sim.TimerLine("", verifyRetry{})

// verified is what a produce request's append is told by its verification: the errors
// of the partitions the coordinator refused, and the guards it started.
type verified struct {
	Errs   map[protocol.TP]protocol.Error
	Guards map[protocol.TP]int64
	V2     bool // the request's transactions are version 2's: one epoch each
}

// verifyTimeout gives up on an unanswered verification after the broker's request.timeout.ms
// (AddPartitionsToTxnManager is an InterBrokerSendThread with config.requestTimeoutMs).
type verifyTimeout struct{ ReqID int64 }

func (verifyTimeout) Kind() string     { return "TxnVerifyTimeout" }
func (verifyTimeout) Describe() string { return verifyTimeoutLine }

var verifyTimeoutLine = sim.TimerLine("", verifyTimeout{})

// startVerification is ReplicaManager.handleProduceAppend's start
// (maybeStartTransactionVerificationForPartitions): a request of a transactional id with
// transactional batches, verification on, and a partition this broker leads where the
// producer has no ongoing transaction, starts (or joins) a verification there
// (UnifiedLog.maybeStartTransactionVerification) and waits for the coordinator. It reports
// whether the request waits; one that does not is appended at once.
//
// A producer of transactions version 2 (produce v12+) sent no AddPartitionsToTxn: its
// leaders add the partitions (verifyOnly false), whatever
// transaction.partition.verification.enable says (maybeSendPartitionsToTransactionCoordinator);
// a batch at an epoch older than the partition has is not sent to the coordinator: the
// append refuses it with INVALID_PRODUCER_EPOCH (UnifiedLog.maybeStartTransactionVerification).
func (rm *ReplicaManager) startVerification(env *sim.Env, h hooks, from string, req protocol.ProduceRequest) bool {
	if req.TransactionalID == "" || !req.TransactionV2 && !rm.cfg.TransactionPartitionVerificationEnable {
		return false
	}
	guards := map[protocol.TP]int64{}
	refused := map[protocol.TP]protocol.Error{}
	var pid int64
	var epoch int16
	for _, pd := range req.Partitions {
		b := pd.Batch
		p := rm.leaderOf(pd.TP)
		if !b.Transactional || !b.HasProducerID() || p == nil || p.ongoingTxnOf(b, req.TransactionV2) {
			continue // not led here: the append answers NOT_LEADER_OR_FOLLOWER
		}
		if req.TransactionV2 && p.olderEpoch(b.ProducerID, b.ProducerEpoch) {
			refused[pd.TP] = protocol.ErrInvalidProducerEpoch
			continue
		}
		pid, epoch = b.ProducerID, b.ProducerEpoch
		guards[pd.TP] = p.startVerification(b, rm.nextReq)
	}
	if len(guards) == 0 {
		if len(refused) == 0 {
			return false
		}
		rm.appendProduce(env, h, from, req, verified{Errs: refused, V2: true})
		return true
	}
	tps := protocol.SortedTPs(guards)
	coordinator := rm.meta[protocol.TransactionStateTP(req.TransactionalID, rm.cfg.TransactionStateLogNumPartitions)].Leader
	pv := pendingVerification{From: from, Req: req, Coordinator: coordinator, Guards: guards, StartedMs: env.Now(),
		Add: req.TransactionV2, TransactionalID: req.TransactionalID, ProducerID: pid, ProducerEpoch: epoch, Refused: refused}
	if coordinator == "" || slices.Contains(rm.fenced, coordinator) {
		// No live leader of the id's transaction log partition
		// (AddPartitionsToTxnManager.getTransactionCoordinator).
		results := protocol.TPErrors(tps, protocol.ErrCoordinatorNotAvailable)
		rm.verificationDone(env, pv, results)
		rm.appendProduce(env, h, from, req, rm.verifiedBy(pv, results))
		return true
	}
	rm.askCoordinator(env, pv)
	return true
}

// askCoordinator sends a verification (or, version 2, an add) to the coordinator and
// waits for its answer.
func (rm *ReplicaManager) askCoordinator(env *sim.Env, pv pendingVerification) {
	id := rm.await(pv)
	env.Send(pv.Coordinator, protocol.VerifyPartitionsInTxnRequest{ReqID: id, TransactionalID: pv.TransactionalID,
		ProducerID: pv.ProducerID, ProducerEpoch: pv.ProducerEpoch, Partitions: protocol.SortedTPs(pv.Guards), Add: pv.Add})
	env.After(BrokerRequestTimeoutMs, verifyTimeout{ReqID: id})
}

// await keeps a verification under a new request id until it is answered or failed.
func (rm *ReplicaManager) await(pv pendingVerification) int64 {
	id := rm.nextReq()
	if rm.verifying == nil {
		rm.verifying = map[int64]pendingVerification{}
	}
	rm.verifying[id] = pv
	return id
}

// onVerifyResponse takes the coordinator's answer (AddPartitionsToTxnManager's
// AddPartitionsToTxnHandler.onComplete).
func (rm *ReplicaManager) onVerifyResponse(env *sim.Env, h hooks, resp protocol.VerifyPartitionsInTxnResponse) {
	pv, ok := rm.verifying[resp.ReqID]
	if !ok {
		return // timed out or its connection broke before
	}
	delete(rm.verifying, resp.ReqID)
	if pv.Offsets != nil {
		rm.offsetsAddDone(env, h, pv, resp.Results)
		return
	}
	if pv.Add && env.Now()-pv.StartedMs+addPartitionsRetryBackoffMs <= addPartitionsRetryMaxMs &&
		slices.ContainsFunc(resp.Results, func(r protocol.TPError) bool { return r.Err == protocol.ErrConcurrentTransactions }) {
		// The previous transaction's markers are still being written: ask again shortly.
		env.After(addPartitionsRetryBackoffMs, verifyRetry{ReqID: rm.await(pv)})
		return
	}
	rm.verificationDone(env, pv, resp.Results)
	rm.appendProduce(env, h, pv.From, pv.Req, rm.verifiedBy(pv, resp.Results))
}

// retryVerification sends a retried add again, unless it was failed meanwhile (its
// coordinator's connection broke).
func (rm *ReplicaManager) retryVerification(env *sim.Env, reqID int64) {
	pv, ok := rm.verifying[reqID]
	if !ok {
		return
	}
	delete(rm.verifying, reqID)
	rm.askCoordinator(env, pv)
}

// verificationLost fails a verification whose request will not be answered: it timed
// out, or the connection to the coordinator broke (NETWORK_EXCEPTION, sendCallbacksToAll).
func (rm *ReplicaManager) verificationLost(env *sim.Env, h hooks, reqID int64) {
	pv, ok := rm.verifying[reqID]
	if !ok {
		return
	}
	delete(rm.verifying, reqID)
	results := protocol.TPErrors(protocol.SortedTPs(pv.Guards), protocol.ErrNetworkException)
	if pv.Offsets != nil {
		rm.offsetsAddDone(env, h, pv, results)
		return
	}
	rm.verificationDone(env, pv, results)
	rm.appendProduce(env, h, pv.From, pv.Req, rm.verifiedBy(pv, results))
}

// verificationsTo fails the verifications in flight to a broker whose connection broke.
func (rm *ReplicaManager) verificationsTo(env *sim.Env, h hooks, broker string) {
	for _, id := range slices.Sorted(maps.Keys(rm.verifying)) {
		if rm.verifying[id].Coordinator == broker {
			rm.verificationLost(env, h, id)
		}
	}
}

// verificationDone notes a refused verification.
func (rm *ReplicaManager) verificationDone(env *sim.Env, pv pendingVerification, results []protocol.TPError) {
	for _, r := range results {
		if r.Err != "" {
			env.Note(fmt.Sprintf("verification of %s for %s: %s", r.TP, pv.TransactionalID, r.Err))
		}
	}
}

// verifiedBy is what the coordinator's answer means for the append: a coordinator's
// PRODUCER_FENCED becomes INVALID_PRODUCER_EPOCH, which producers expect from a produce
// (AddPartitionsToTxnManager); TRANSACTION_ABORTABLE stays as it is for a produce of
// version 11 or later, as the playground's 3.9 clients send (genericError; older clients
// would hear INVALID_TXN_STATE); and the retriable answers of a coordinator that cannot
// tell yet become NOT_ENOUGH_REPLICAS, an error every producer retries without refreshing
// its metadata (ReplicaManager.handleProduceAppend's postVerificationCallback).
func (rm *ReplicaManager) verifiedBy(pv pendingVerification, results []protocol.TPError) verified {
	v := verified{Errs: maps.Clone(pv.Refused), Guards: pv.Guards, V2: pv.Add}
	if v.Errs == nil {
		v.Errs = map[protocol.TP]protocol.Error{}
	}
	for _, r := range results {
		err := r.Err
		switch err {
		case "":
			continue
		case protocol.ErrProducerFenced:
			err = protocol.ErrInvalidProducerEpoch
		case protocol.ErrConcurrentTransactions:
			if !pv.Add {
				err = protocol.ErrNotEnoughReplicas
			} // (version 2 tells the producer CONCURRENT_TRANSACTIONS, which it retries)
		case protocol.ErrNetworkException, protocol.ErrCoordinatorLoadInProgress,
			protocol.ErrCoordinatorNotAvailable, protocol.ErrNotCoordinator:
			err = protocol.ErrNotEnoughReplicas
		}
		v.Errs[r.TP] = err
	}
	return v
}

// ongoingTxn reports whether the producer has an open transaction on this partition
// (UnifiedLog.hasOngoingTransaction: its entry's currentTxnFirstOffset).
func (p *Partition) ongoingTxn(pid int64) bool {
	e, ok := p.Log.Producer(pid)
	return ok && e.TxnFirstOffset >= 0
}

// ongoingTxnOf reports whether the batch's transaction is open here already, so its
// leader need not ask the coordinator. Under transactions version 2 every transaction
// has an epoch of its own: a transaction open at an earlier epoch (its marker not yet
// written) is not the batch's (UnifiedLog.hasOngoingTransaction(producerId, epoch)).
func (p *Partition) ongoingTxnOf(b protocol.RecordBatch, v2 bool) bool {
	if !v2 {
		return p.ongoingTxn(b.ProducerID)
	}
	e, ok := p.Log.Producer(b.ProducerID)
	return ok && e.TxnFirstOffset >= 0 && e.Epoch == b.ProducerEpoch
}

// olderEpoch reports whether epoch is older than the producer's on this partition: under
// transactions version 2 its transaction has ended here (the marker bumped the epoch).
func (p *Partition) olderEpoch(pid int64, epoch int16) bool {
	e, ok := p.Log.Producer(pid)
	return ok && epoch < e.Epoch
}

// startVerification creates the producer's verification entry if it has none, or
// updates its lowest sequence and epoch, and returns its guard
// (ProducerStateManager.maybeCreateVerificationStateEntry,
// VerificationStateEntry.maybeUpdateLowestSequenceAndEpoch).
func (p *Partition) startVerification(b protocol.RecordBatch, newGuard func() int64) int64 {
	if p.verifying == nil {
		p.verifying = map[int64]verificationEntry{}
	}
	e, ok := p.verifying[b.ProducerID]
	switch {
	case !ok:
		e = verificationEntry{Guard: newGuard(), LowestSeq: b.BaseSequence, Epoch: b.ProducerEpoch}
	case b.ProducerEpoch == e.Epoch && b.BaseSequence < e.LowestSeq:
		e.LowestSeq = b.BaseSequence
	case b.ProducerEpoch > e.Epoch:
		e.Epoch, e.LowestSeq = b.ProducerEpoch, b.BaseSequence
	}
	p.verifying[b.ProducerID] = e
	return e.Guard
}

// clearVerification forgets a producer's verification once one of its transactional
// batches is appended: its transaction is open here or ended (UnifiedLog.updateProducers).
func (p *Partition) clearVerification(batches ...protocol.RecordBatch) {
	for _, b := range batches {
		if b.Transactional && p.verifying != nil {
			delete(p.verifying, b.ProducerID)
		}
	}
}

// checkVerified is the append's check of a client's transactional batch with no ongoing
// transaction here (UnifiedLog.batchMissingRequiredVerification): with verification on,
// the partition must still hold the guard the request's verification started, or the
// record is not part of an ongoing transaction (INVALID_TXN_STATE); a batch past the
// lowest sequence that started the verification is out of order
// (ProducerAppendInfo.checkSequence).
func (rm *ReplicaManager) checkVerified(p *Partition, b protocol.RecordBatch, v verified) protocol.Error {
	if !rm.cfg.TransactionPartitionVerificationEnable || !b.Transactional || !b.HasProducerID() || p.ongoingTxnOf(b, v.V2) {
		return ""
	}
	e, ok := p.verifying[b.ProducerID]
	if guard := v.Guards[p.TP]; !ok || guard == 0 || e.Guard != guard {
		return protocol.ErrInvalidTxnState
	}
	if b.BaseSequence > e.LowestSeq {
		return protocol.ErrOutOfOrderSequenceNumber
	}
	return ""
}
