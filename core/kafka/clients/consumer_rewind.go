package clients

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// RewindToCommitted puts the given owned partitions back at their committed offsets, as
// Kafka Streams does for a corrupted task it revives (TaskManager.closeDirtyAndRevive,
// then StreamTask.resetOffsetsIfNeededAndInitializeMetadata: KafkaConsumer.committed and
// seek): what was fetched for them is dropped, an OffsetFetch asks the coordinator, and
// the member is stable again (AssignedNow) once each has a position. A member looking
// for its moved coordinator drops the positions now and fetches them once it has found it
// (committed blocks until then); a member joining does nothing here: its rejoin fetches
// the committed offsets anyway.
func (c *Consumer) RewindToCommitted(env *sim.Env, tps []protocol.TP) {
	if c.member != nil {
		c.member.rewind(env, tps)
		return
	}
	g := &c.coord
	rediscovering := g.state == Finding && g.resume
	if (g.state != Stable && !rediscovering) || len(tps) == 0 {
		return
	}
	f := &c.fetch
	f.forgetPositions(tps)
	if rediscovering {
		// The coordinator moved and is being looked for: Consumer.committed blocks until
		// it answers, so the positions are fetched once it is found (resumeWith).
		return
	}
	g.setState(FetchingOffsets)
	g.fetchOffsets(env, f.missing())
}

// forgetPositions drops the positions of owned partitions and what was fetched for them,
// so that they are looked up again.
func (f *fetcher) forgetPositions(tps []protocol.TP) {
	for _, tp := range tps {
		f.dropPosition(tp)
	}
	f.returned = nil
}

// rewind is RewindToCommitted for a KIP-848 member in the group: the partitions'
// committed offsets are looked up again (KafkaConsumer.committed, then seek).
func (m *consumerMembership) rewind(env *sim.Env, tps []protocol.TP) {
	if !m.inGroup() || len(tps) == 0 {
		return
	}
	m.fetcher.forgetPositions(tps)
	m.maybeLookUpOffsets(env)
}
