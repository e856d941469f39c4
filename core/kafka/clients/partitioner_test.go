package clients

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
