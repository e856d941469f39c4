package clients

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// ListenForAssignment makes the client hand each new assignment to its application
// before it looks up any committed offset, as a ConsumerRebalanceListener's
// onPartitionsAssigned runs inside poll() before the positions are fetched
// (ConsumerCoordinator.onJoinComplete, then updateFetchPositions only for partitions
// without a position). An application that keeps its offsets outside Kafka reads them
// there and seeks (KafkaConsumer's javadoc, "Storing Offsets Outside Kafka").
func (c *Consumer) ListenForAssignment() { c.listener = true }

// Group is the group id.
func (c *Consumer) Group() string { return c.group }

// GroupMetadata is the consumer's group metadata for sendOffsetsToTransaction
// (KafkaConsumer.groupMetadata): its group, member id and generation.
func (c *Consumer) GroupMetadata() GroupMetadata {
	return GroupMetadata{Group: c.group, Member: c.member, Generation: c.generation}
}

// Generation is the group generation of the member's current assignment.
func (c *Consumer) Generation() int32 { return c.generation }

// awaitSeek stops after SyncGroup for the application's seeks; it reports whether it did.
func (c *Consumer) awaitSeek() bool {
	if !c.listener {
		return false
	}
	c.State = FetchingOffsets
	c.seeking = true
	c.groupSeq++ // the SyncGroup is answered: its timeout is over
	return true
}

// SeekAssigned positions the member at the offsets its application read for the
// assignment of a generation (KafkaConsumer.seek); the partitions it has none for get
// the group's committed offset, or auto.offset.reset. A seek for an assignment the
// member no longer has (it rebalanced meanwhile) does nothing: the new assignment asks
// again.
func (c *Consumer) SeekAssigned(env *sim.Env, generation int32, offsets map[protocol.TP]int64) []ConsumerEvent {
	if !c.seeking || c.State != FetchingOffsets || generation != c.generation {
		return nil
	}
	c.seeking = false
	var rest []protocol.TP
	for _, tp := range c.assigned {
		if off, ok := offsets[tp]; ok {
			c.positions[tp] = off
		} else {
			rest = append(rest, tp)
		}
	}
	if len(rest) == 0 {
		return c.maybeStable(env)
	}
	c.fetchOffsets(env, rest)
	return nil
}

// Seeking reports whether the member waits for its application's seeks.
func (c *Consumer) Seeking() bool { return c.seeking }
