package clients

import (
	"deliverylab/core/kafka/protocol"
	"deliverylab/core/sim"
)

// A consumer without a group, whose application names its partitions and where to
// start in each (KafkaConsumer.assign and seek): Flink's KafkaSource split readers read
// so, keeping their offsets in the job's checkpoints rather than in a group. It finds no
// coordinator, joins nothing, never heartbeats and never commits; it looks up a partition
// without a starting offset by auto.offset.reset, and is stable (fetching) once every
// partition it was given has a position.

// NewAssignedConsumer makes a consumer its application assigns partitions to; clientID
// names it (client.id).
func NewAssignedConsumer(cfg ConsumerConfig, clientID string, bootstrap, topics []string) *Consumer {
	cfg.GroupProtocol = ClassicProtocol // no group: no membership role of either protocol
	c := NewConsumer(cfg, "", clientID, bootstrap, topics)
	c.manual = true
	return c
}

// Assign gives the consumer its partitions (KafkaConsumer.assign) and where to start in
// each (seek): an offset below 0 starts where auto.offset.reset says. It replaces any
// earlier assignment, with what was fetched for it.
func (c *Consumer) Assign(env *sim.Env, start map[protocol.TP]int64) []ConsumerEvent {
	c.fetch.revoke()
	c.fetch.assign(protocol.SortedTPs(start))
	var lookup []protocol.TPOffset
	for _, tp := range c.fetch.owned() {
		if off := start[tp]; off >= 0 {
			c.fetch.positions[tp] = off
			continue
		}
		lookup = append(lookup, protocol.TPOffset{TP: tp, Offset: -1})
	}
	c.coord.setState(FetchingOffsets)
	if evs := c.fetch.initPositions(env, lookup); len(evs) > 0 {
		return c.fromFetcher(evs)
	}
	return c.coord.maybeStable(env)
}
