// Package kafka models Apache Kafka 3.9 in KRaft mode closely enough to teach delivery
// semantics. Its subpackages follow Apache Kafka's own modules, so that a file a
// student opens has the name the Kafka documentation uses:
//
//	protocol/    what every role shares: topic partitions, record batches, the requests
//	             and responses on the wire, error names, the protocol points (events)
//	storage/     a replica's durable log, its leader-epoch cache (UnifiedLog) and its
//	             producer state (ProducerStateManager)
//	server/      the broker: replica manager, Partition (high watermark, ISR), the
//	             purgatory of waiting requests, follower fetching, producer ids
//	group/       the group coordinator: membership, rebalances, committed offsets
//	txn/         the transaction coordinator: producer ids and epochs of transactional
//	             ids, fencing, the two-phase end of a transaction over __transaction_state
//	             and the markers, the timeout sweep (TransactionCoordinator)
//	controller/  the KRaft controller: broker sessions, fencing, elections, ISR changes,
//	             producer id blocks
//	clients/     the producer (idempotent, transactional or neither) and consumer clients
//
// This package builds a cluster from a scene's description (cluster.go). Every node is
// a sim.Node: a state machine with durable and volatile state. docs/FIDELITY.md lists
// the rules followed and their sources; rule numbers appear in comments as (R5) and so
// on.
package kafka
