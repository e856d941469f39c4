package protocol

// Error is an error as Kafka names it: an error code's name on the wire
// (NOT_LEADER_OR_FOLLOWER, Errors.java), or an exception a client raises itself
// (TimeoutException). "" is no error (Kafka's NONE).
type Error string

// String is the error's name, "" for none.
func (e Error) String() string { return string(e) }

// OrNone is the error's name, or NONE, as a response with an error code prints it.
func (e Error) OrNone() string {
	if e == "" {
		return "NONE"
	}
	return string(e)
}

// Retriable reports what Kafka says of the error (Errors.java): its exception is a
// RetriableException, so a client may try again. A producer retries a batch that failed
// with it while retries and delivery.timeout.ms allow (Sender.canRetry).
func (e Error) Retriable() bool { return e.facts().retriable }

// RefreshesMetadata reports whether a client forgets what it knew of a partition's
// leader after the error: Kafka's InvalidMetadataException family, and a request that
// timed out, whose connection NetworkClient closes and whose broker it stops trusting.
func (e Error) RefreshesMetadata() bool { return e.facts().refreshesMetadata }

func (e Error) facts() errorFacts { return errorsByName[e] }

// errorFacts is one row of the error table.
type errorFacts struct {
	name              Error
	retriable         bool // its exception extends RetriableException
	refreshesMetadata bool // the client refreshes the partition's leadership
	reported          bool // a client reports it to its application (a ClientError observation)
}

// Kafka's error names, as the protocol spells them, plus the client-side exceptions an
// application is told about and the two errors of the playground's sinks.
const (
	ErrNotLeaderOrFollower          Error = "NOT_LEADER_OR_FOLLOWER"
	ErrNotEnoughReplicas            Error = "NOT_ENOUGH_REPLICAS"
	ErrNotEnoughReplicasAfterAppend Error = "NOT_ENOUGH_REPLICAS_AFTER_APPEND"
	ErrRequestTimedOut              Error = "REQUEST_TIMED_OUT"
	ErrUnknownTopicOrPartition      Error = "UNKNOWN_TOPIC_OR_PARTITION"
	ErrCoordinatorNotAvailable      Error = "COORDINATOR_NOT_AVAILABLE"
	ErrNotCoordinator               Error = "NOT_COORDINATOR"
	ErrRebalanceInProgress          Error = "REBALANCE_IN_PROGRESS"
	ErrIllegalGeneration            Error = "ILLEGAL_GENERATION"
	ErrUnknownMemberID              Error = "UNKNOWN_MEMBER_ID"
	ErrOffsetOutOfRange             Error = "OFFSET_OUT_OF_RANGE"
	ErrNetworkException             Error = "NETWORK_EXCEPTION" // the connection to the broker broke
	ErrTimeoutException             Error = "TimeoutException"  // delivery.timeout.ms expired in the producer
	// ErrKafkaException is the plain KafkaException a transactional producer raises when
	// sends it can no longer retry leave a partition's sequences unknown
	// (TransactionManager.maybeResolveSequences: "It is safe to abort the transaction and
	// continue").
	ErrKafkaException              Error = "KafkaException"
	ErrNoOffsetForPartition        Error = "NoOffsetForPartitionException"
	ErrLogTruncation               Error = "LogTruncationException" // KIP-320 found the position past a truncation, with auto.offset.reset=none
	ErrInvalidUpdateVersion        Error = "INVALID_UPDATE_VERSION"
	ErrDuplicateBrokerRegistration Error = "DUPLICATE_BROKER_REGISTRATION"
	ErrIneligibleReplica           Error = "INELIGIBLE_REPLICA"
	ErrSinkUnavailable             Error = "SINK_UNAVAILABLE" // a write reached a sink that is down
	ErrSinkTimeout                 Error = "SINK_TIMEOUT"     // a write got no answer from the sink in time
	ErrOutOfOrderSequenceNumber    Error = "OUT_OF_ORDER_SEQUENCE_NUMBER"
	ErrInvalidProducerEpoch        Error = "INVALID_PRODUCER_EPOCH"
	ErrCoordinatorLoadInProgress   Error = "COORDINATOR_LOAD_IN_PROGRESS"
	ErrStaleBrokerEpoch            Error = "STALE_BROKER_EPOCH"
	// ErrFencedInstanceID answers a static member (group.instance.id) another instance
	// replaced; the playground has no static members, the transactional producer handles
	// it as Kafka's does.
	ErrFencedInstanceID Error = "FENCED_INSTANCE_ID"
	// KIP-848's member epochs: a heartbeat with an epoch the coordinator does not accept
	// (FENCED_MEMBER_EPOCH: the member must rejoin, its partitions lost), an offset
	// commit or fetch with an epoch that is not the member's (STALE_MEMBER_EPOCH), a
	// heartbeat other than a join for a group the coordinator does not have.
	ErrFencedMemberEpoch         Error = "FENCED_MEMBER_EPOCH"
	ErrStaleMemberEpoch          Error = "STALE_MEMBER_EPOCH"
	ErrGroupIDNotFound           Error = "GROUP_ID_NOT_FOUND"
	ErrProducerFenced            Error = "PRODUCER_FENCED"
	ErrConcurrentTransactions    Error = "CONCURRENT_TRANSACTIONS"
	ErrInvalidTxnState           Error = "INVALID_TXN_STATE"
	ErrInvalidTransactionTimeout Error = "INVALID_TRANSACTION_TIMEOUT"
	ErrUnstableOffsetCommit      Error = "UNSTABLE_OFFSET_COMMIT"
	ErrInvalidProducerIDMapping  Error = "INVALID_PRODUCER_ID_MAPPING"
	ErrTransactionAborted        Error = "TRANSACTION_ABORTED" // the client fails a send of a transaction that is aborting
	// ErrTransactionCoordinatorFenced answers a marker from a coordinator older than the
	// one that wrote the producer's last marker (ProducerAppendInfo.checkCoordinatorEpoch).
	ErrTransactionCoordinatorFenced Error = "TRANSACTION_COORDINATOR_FENCED"
	// ErrTransactionAbortable (KIP-890) answers a produce whose partition the transaction
	// coordinator says is not in the producer's ongoing transaction (produce v11+; older
	// clients hear INVALID_TXN_STATE): the client can only abort the transaction.
	ErrTransactionAbortable Error = "TRANSACTION_ABORTABLE"
	// ErrInvalidRequest answers a request the broker refuses before it acts on it: a
	// ConsumerGroupHeartbeat whose fields contradict its epoch (GroupCoordinatorService.
	// throwIfConsumerGroupHeartbeatRequestIsInvalid). The client treats it as fatal.
	ErrInvalidRequest Error = "INVALID_REQUEST"
)

// IllegalState is the IllegalStateException a client throws at an application that calls
// it in a state that forbids the call, with Kafka's message. It is not in the table: the
// application's own mistake, no response code, never retried.
func IllegalState(message string) Error { return Error("IllegalStateException: " + message) }

// errorTable is every error the model uses, with what Kafka says of it: retriable where
// Errors.java maps it to a RetriableException (InvalidMetadataException among them),
// in the order expect.errors lists them.
var errorTable = []errorFacts{
	{name: ErrNotLeaderOrFollower, retriable: true, refreshesMetadata: true, reported: true},
	{name: ErrNotEnoughReplicas, retriable: true, reported: true},
	{name: ErrNotEnoughReplicasAfterAppend, retriable: true, reported: true},
	{name: ErrRequestTimedOut, retriable: true, refreshesMetadata: true, reported: true},
	{name: ErrUnknownTopicOrPartition, retriable: true, refreshesMetadata: true, reported: true},
	{name: ErrCoordinatorNotAvailable, retriable: true, reported: true},
	{name: ErrNotCoordinator, retriable: true, reported: true},
	{name: ErrRebalanceInProgress, reported: true},
	{name: ErrIllegalGeneration, reported: true},
	{name: ErrUnknownMemberID, reported: true},
	{name: ErrOffsetOutOfRange, reported: true},
	{name: ErrNetworkException, retriable: true, refreshesMetadata: true, reported: true},
	// TimeoutException is a RetriableException, but a producer reports it only once a
	// batch's delivery.timeout.ms is spent, when no retry is left.
	{name: ErrTimeoutException, retriable: true, reported: true},
	{name: ErrNoOffsetForPartition, reported: true},
	{name: ErrInvalidUpdateVersion, reported: true},
	{name: ErrSinkUnavailable, reported: true},
	{name: ErrSinkTimeout, reported: true},
	{name: ErrOutOfOrderSequenceNumber, reported: true},
	{name: ErrKafkaException, reported: true},
	{name: ErrInvalidProducerEpoch, reported: true},
	{name: ErrCoordinatorLoadInProgress, retriable: true, reported: true},
	{name: ErrProducerFenced, reported: true},
	{name: ErrConcurrentTransactions, retriable: true, reported: true},
	{name: ErrInvalidTxnState, reported: true},
	{name: ErrInvalidTransactionTimeout, reported: true},
	{name: ErrTransactionAborted, reported: true},
	{name: ErrTransactionCoordinatorFenced, reported: true},
	{name: ErrTransactionAbortable, reported: true},
	{name: ErrInvalidProducerIDMapping, reported: true},
	{name: ErrUnstableOffsetCommit, retriable: true, reported: true},
	{name: ErrLogTruncation, reported: true},
	{name: ErrFencedInstanceID, reported: true},
	{name: ErrFencedMemberEpoch, reported: true},
	{name: ErrStaleMemberEpoch, reported: true},
	{name: ErrGroupIDNotFound, reported: true},
	{name: ErrInvalidRequest, reported: true},
	// Answers of the controller to a broker: no application hears of them.
	{name: ErrDuplicateBrokerRegistration},
	{name: ErrIneligibleReplica},
	{name: ErrStaleBrokerEpoch},
}

var errorsByName = func() map[Error]errorFacts {
	m := make(map[Error]errorFacts, len(errorTable))
	for _, f := range errorTable {
		m[f.name] = f
	}
	return m
}()

// ErrorNames lists every error a run can report to an application, for checking
// expect.errors.
func ErrorNames() []string {
	var out []string
	for _, f := range errorTable {
		if f.reported {
			out = append(out, string(f.name))
		}
	}
	return out
}
