package protocol

// Kafka's error names, as the protocol spells them, plus the client-side exceptions an
// application is told about.
const (
	ErrNotLeaderOrFollower          = "NOT_LEADER_OR_FOLLOWER"
	ErrNotEnoughReplicas            = "NOT_ENOUGH_REPLICAS"
	ErrNotEnoughReplicasAfterAppend = "NOT_ENOUGH_REPLICAS_AFTER_APPEND"
	ErrRequestTimedOut              = "REQUEST_TIMED_OUT"
	ErrUnknownTopicOrPartition      = "UNKNOWN_TOPIC_OR_PARTITION"
	ErrCoordinatorNotAvailable      = "COORDINATOR_NOT_AVAILABLE"
	ErrNotCoordinator               = "NOT_COORDINATOR"
	ErrRebalanceInProgress          = "REBALANCE_IN_PROGRESS"
	ErrIllegalGeneration            = "ILLEGAL_GENERATION"
	ErrUnknownMemberID              = "UNKNOWN_MEMBER_ID"
	ErrOffsetOutOfRange             = "OFFSET_OUT_OF_RANGE"
	ErrNetworkException             = "NETWORK_EXCEPTION" // the connection to the broker broke
	ErrTimeoutException             = "TimeoutException"  // delivery.timeout.ms expired in the producer
	ErrNoOffsetForPartition         = "NoOffsetForPartitionException"
	ErrLogTruncation                = "LogTruncationException" // KIP-320 found the position past a truncation, with auto.offset.reset=none
	ErrInvalidUpdateVersion         = "INVALID_UPDATE_VERSION"
	ErrDuplicateBrokerRegistration  = "DUPLICATE_BROKER_REGISTRATION"
	ErrIneligibleReplica            = "INELIGIBLE_REPLICA"
	ErrSinkUnavailable              = "SINK_UNAVAILABLE" // a write reached a sink that is down
	ErrSinkTimeout                  = "SINK_TIMEOUT"     // a write got no answer from the sink in time
	ErrOutOfOrderSequenceNumber     = "OUT_OF_ORDER_SEQUENCE_NUMBER"
	ErrInvalidProducerEpoch         = "INVALID_PRODUCER_EPOCH"
	ErrCoordinatorLoadInProgress    = "COORDINATOR_LOAD_IN_PROGRESS"
	ErrStaleBrokerEpoch             = "STALE_BROKER_EPOCH"
	// ErrFencedInstanceID answers a static member (group.instance.id) another instance
	// replaced; the playground has no static members, the transactional producer handles
	// it as Kafka's does.
	ErrFencedInstanceID = "FENCED_INSTANCE_ID"
)

// ErrorNames lists every error a run can report, for checking expect.errors.
func ErrorNames() []string {
	return []string{ErrNotLeaderOrFollower, ErrNotEnoughReplicas, ErrNotEnoughReplicasAfterAppend, ErrRequestTimedOut,
		ErrUnknownTopicOrPartition, ErrCoordinatorNotAvailable, ErrNotCoordinator, ErrRebalanceInProgress,
		ErrIllegalGeneration, ErrUnknownMemberID, ErrOffsetOutOfRange, ErrNetworkException, ErrTimeoutException,
		ErrNoOffsetForPartition, ErrInvalidUpdateVersion, ErrSinkUnavailable, ErrSinkTimeout,
		ErrOutOfOrderSequenceNumber, ErrInvalidProducerEpoch, ErrCoordinatorLoadInProgress,
		ErrProducerFenced, ErrConcurrentTransactions, ErrInvalidTxnState, ErrInvalidTransactionTimeout,
		ErrTransactionAborted, ErrTransactionCoordinatorFenced, ErrInvalidProducerIDMapping, ErrUnstableOffsetCommit}
}

// Retriable reports whether a producer retries after this error.
func Retriable(err string) bool {
	switch err {
	case ErrNotLeaderOrFollower, ErrNotEnoughReplicas, ErrNotEnoughReplicasAfterAppend,
		ErrRequestTimedOut, ErrUnknownTopicOrPartition, ErrNetworkException:
		return true
	}
	return false
}

// NeedsMetadata reports whether a client must refresh leadership after this error.
func NeedsMetadata(err string) bool {
	switch err {
	case ErrNotLeaderOrFollower, ErrUnknownTopicOrPartition, ErrNetworkException, ErrRequestTimedOut:
		return true
	}
	return false
}

// orNone is an error name, or NONE.
func orNone(err string) string {
	if err == "" {
		return "NONE"
	}
	return err
}
