package protocol

// CoordinatorAppendError is what a coordinator answers a request whose write to its own
// log failed: a lost leadership makes the broker no longer the coordinator; too few
// replicas, a timeout or a missing partition make the coordinator unavailable, which a
// client retries after finding it again. The transaction coordinator maps a failed
// append of __transaction_state so (TransactionStateManager.appendTransactionToLog), and
// Kafka 4's group coordinator a failed write of __consumer_offsets so
// (CoordinatorOperationExceptionHelper.handleOperationException).
func CoordinatorAppendError(err Error) Error {
	switch err {
	case ErrNotLeaderOrFollower:
		return ErrNotCoordinator
	case ErrNotEnoughReplicas, ErrNotEnoughReplicasAfterAppend, ErrRequestTimedOut, ErrUnknownTopicOrPartition:
		return ErrCoordinatorNotAvailable
	}
	return err
}
