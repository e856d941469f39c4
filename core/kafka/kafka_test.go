package kafka

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The vectors of Kafka's UtilsTest.testMurmur2: a keyed message must land where the Java
// client would put it.
func TestMurmur2MatchesKafka(t *testing.T) {
	for key, want := range map[string]int32{
		"21":                         -973932308,
		"foobar":                     -790332482,
		"a-little-bit-long-string":   -985981536,
		"a-little-bit-longer-string": -1486304829,
		"lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8": -58897971,
		"abc": 479470107,
	} {
		assert.Equal(t, want, murmur2([]byte(key)), key)
	}
	p := PartitionForKey("k1", 3)
	assert.True(t, p >= 0 && p < 3)
}

func TestReplicaTruncatesToTheLeadersEpochEnd(t *testing.T) {
	leader := &Replica{}
	leader.append([]Record{{Msg: "a"}, {Msg: "b"}}, 0)
	leader.append([]Record{{Msg: "c"}}, 2)
	follower := &Replica{}
	follower.append([]Record{{Msg: "a"}, {Msg: "b"}, {Msg: "x"}, {Msg: "y"}}, 0)
	follower.HW = 4

	epoch, end := leader.endOffsetFor(follower.lastEpoch())
	assert.Equal(t, int32(0), epoch)
	assert.Equal(t, int64(2), end, "epoch 0 ended where epoch 2 began")
	removed := follower.truncate(end)
	assert.Equal(t, []string{"x", "y"}, msgsOf(removed))
	assert.Equal(t, int64(2), follower.LEO())
	assert.Equal(t, int64(2), follower.HW, "the HW never passes the log end")

	epoch, end = leader.endOffsetFor(2)
	assert.Equal(t, int32(2), epoch)
	assert.Equal(t, leader.LEO(), end, "the latest epoch ends at the log end")
	epoch, _ = leader.endOffsetFor(1)
	assert.Equal(t, int32(0), epoch, "an unknown epoch maps to the largest one below it")
}

func TestProducerConfigFollowsKafka(t *testing.T) {
	c := DefaultProducerConfig()
	require.NoError(t, SetProducerKey(&c, "acks", Value{Text: "1"}))
	require.NoError(t, c.Resolve(), "an implicit idempotence gives way to acks=1")
	assert.False(t, c.EnableIdempotence)

	c = DefaultProducerConfig()
	require.NoError(t, SetProducerKey(&c, "acks", Value{Text: "1"}))
	require.NoError(t, SetProducerKey(&c, "enable.idempotence", Value{Text: "true"}))
	assert.ErrorContains(t, c.Resolve(), "acks must be all in order to use the idempotent producer")

	c = DefaultProducerConfig()
	require.NoError(t, SetProducerKey(&c, "request.timeout.ms", Value{Text: "200000"}))
	require.NoError(t, SetProducerKey(&c, "enable.idempotence", Value{Text: "false"}))
	assert.ErrorContains(t, c.Resolve(), "delivery.timeout.ms should be equal to or larger than")

	for text, want := range map[string]int{"all": -1, "-1": -1, "0": 0, "1": 1, "ALL": -1} {
		c = DefaultProducerConfig()
		require.NoError(t, SetProducerKey(&c, "acks", Value{Text: text}))
		assert.Equal(t, want, c.Acks, text)
	}
	assert.Error(t, SetProducerKey(&c, "acks", Value{Text: "2"}))
	assert.ErrorContains(t, SetProducerKey(&c, "batch.size", Value{Text: "1"}), "unknown key")
}

func TestConsumerSessionTimeoutBounds(t *testing.T) {
	b := DefaultBrokerConfig()
	c := DefaultConsumerConfig()
	require.NoError(t, c.CheckSessionTimeout(b))
	c.SessionTimeoutMs = 5000
	assert.ErrorContains(t, c.CheckSessionTimeout(b), "INVALID_SESSION_TIMEOUT")
}
