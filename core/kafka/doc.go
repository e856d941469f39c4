// Package kafka models Apache Kafka 3.9 in KRaft mode closely enough to teach delivery
// semantics: partition logs with leader epochs and a high watermark, replication by
// follower fetch with KIP-320 divergence truncation, ISR shrink and expand, acks and
// min.insync.replicas, a controller that fences silent brokers and elects leaders
// (clean or unclean), the producer client, the consumer client, and a group
// coordinator that keeps committed offsets in the replicated __consumer_offsets log.
//
// Every node here is a sim.Node: a state machine with durable and volatile state.
// ../../shared/FIDELITY.md lists the rules followed and their sources; rule numbers
// appear in comments as (R5) and so on.
package kafka
