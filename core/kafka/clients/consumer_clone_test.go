package clients

import (
	"testing"

	"deliverylab/core/kafka/protocol"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A clone's roles share the clone's metadata, config and request ids, not the original's:
// a branch of the world (the explorer, seeking) must not move the run it came from.
func TestConsumerCloneRewiresItsRoles(t *testing.T) {
	c := NewConsumer(DefaultConsumerConfig(), "g", "c1", []string{"broker-1"}, []string{"t"})
	tp := protocol.TP{Topic: "t", Partition: 0}
	c.fetch.assign([]protocol.TP{tp})
	c.fetch.seek(map[protocol.TP]int64{tp: 3})
	n := c.Clone()

	require.Same(t, &n.fetch, n.coord.fetcher.(*fetcher))
	require.Same(t, &n.md, n.fetch.md)
	require.Same(t, &n.md, n.coord.md)
	require.Same(t, &n.ids, n.fetch.ids)
	require.Same(t, &n.ids, n.coord.ids)
	require.Same(t, &n.cfg, n.fetch.cfg)

	n.fetch.seek(map[protocol.TP]int64{tp: 9})
	n.md.Leaders[tp] = protocol.PartitionState{TP: tp, Leader: "broker-1"}
	assert.Equal(t, int64(1), n.ids.next())
	assert.Equal(t, int64(3), c.Position(tp), "the original keeps its position")
	assert.Empty(t, c.md.leader(tp), "and its metadata")
	assert.Equal(t, int64(1), c.ids.next(), "and its request ids")
	assert.Equal(t, int64(9), n.Position(tp))
}
