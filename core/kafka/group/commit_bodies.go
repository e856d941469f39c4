package group

import "deliverylab/core/kafka/protocol"

// A consumer commits the same positions again and again while it has nothing new to
// read (auto-commit, every auto.commit.interval.ms): each commit is a record of
// __consumer_offsets, and each record had its own copy of one and the same body. A run
// that never settles commits for as long as it runs — a quarter of a million commits by
// the event limit, on three replicas — and the collector, which marks each copy and
// follows its two names at every cycle, did that on the page's one thread while the page
// learned the run. The coordinator keeps the body of each partition's last commit and
// uses it again when the position has not moved: a body is a value, never changed once
// made, so a record that shares it is the record it would have been.

// commitBodies is the body of the last commit of each group's partitions. It is only a
// cache: a clone starts without it.
type commitBodies map[string]map[protocol.TP]protocol.Body

// commitBody is the body of the record of group's commit of o.
func (c *Coordinator) commitBody(group string, o protocol.TPOffset) protocol.Body {
	last := c.bodies[group]
	if b, ok := last[o.TP]; ok && b.(protocol.OffsetCommit).Offset == o.Offset {
		return b
	}
	b := protocol.Body(protocol.OffsetCommit{Group: group, TP: o.TP, Offset: o.Offset})
	if last == nil {
		if c.bodies == nil {
			c.bodies = commitBodies{}
		}
		last = map[protocol.TP]protocol.Body{}
		c.bodies[group] = last
	}
	last[o.TP] = b
	return b
}
