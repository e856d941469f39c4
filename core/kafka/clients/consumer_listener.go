package clients

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// The coordinator's rebalance listener: with ListenForAssignment, the client hands each
// new assignment to its application before it looks up any committed offset, as a
// ConsumerRebalanceListener's onPartitionsAssigned runs inside poll() before the
// positions are fetched (ConsumerCoordinator.onJoinComplete, then updateFetchPositions
// only for partitions without a position). An application that keeps its offsets outside
// Kafka reads them there and seeks (KafkaConsumer's javadoc, "Storing Offsets Outside
// Kafka").

// listen turns the listener on.
func (g *consumerCoordinator) listen() { g.listener = true }

// awaitingSeek reports whether the member waits for its application's seeks.
func (g *consumerCoordinator) awaitingSeek() bool { return g.seeking }

// awaitSeek stops after SyncGroup for the application's seeks; it reports whether it did.
func (g *consumerCoordinator) awaitSeek() bool {
	if !g.listener {
		return false
	}
	g.setState(FetchingOffsets)
	g.seeking = true
	g.groupSeq++ // the SyncGroup is answered: its timeout is over
	return true
}

// seekAssigned positions the member at the offsets its application read for the
// assignment of a generation; the partitions it has none for get the group's committed
// offset, or auto.offset.reset. A seek for an assignment the member no longer has (it
// rebalanced meanwhile) does nothing: the new assignment asks again.
func (g *consumerCoordinator) seekAssigned(env *sim.Env, generation int32, offsets map[protocol.TP]int64) []ConsumerEvent {
	if !g.seeking || g.state != FetchingOffsets || generation != g.generation {
		return nil
	}
	g.seeking = false
	rest := g.fetcher.seek(offsets)
	if len(rest) == 0 {
		return g.maybeStable(env)
	}
	g.fetchOffsets(env, rest)
	return nil
}
