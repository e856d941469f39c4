package props

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type conf struct{ on bool }

func table() *Table[conf] {
	set := func(c *conf, v Value) error { return Bool(v, &c.on) }
	return NewTable[conf]("Kafka").Key("enable.idempotence", set).Key("transactional.id", set).Key("acks", set).Key("linger.ms", set)
}

// The misspellings the material this playground teaches from writes get the real key.
func TestAMisspeltKeyGetsTheClosestRealOne(t *testing.T) {
	for typo, want := range map[string]string{
		"enable.idempotent":   "enable.idempotence",
		"enabled.idempotence": "enable.idempotence",
		"transcational.id":    "transactional.id",
		"linger.sm":           "linger.ms",
		"ack":                 "acks",
	} {
		err := table().Set(&conf{}, typo, Value{Text: "true"})
		require.Error(t, err, typo)
		assert.Contains(t, err.Error(), "did you mean "+want+"?", typo)
		assert.Contains(t, err.Error(), "only logs a warning for a key it does not know", typo)
	}
}

// A key far from every real one lists them instead: no guess is better than a wrong one.
func TestAFarKeyListsTheRealOnes(t *testing.T) {
	for _, key := range []string{"ac", "compression", "x"} {
		err := table().Set(&conf{}, key, Value{Text: "true"})
		require.Error(t, err)
		assert.NotContains(t, err.Error(), "did you mean", key)
		assert.Contains(t, err.Error(), "expected one of: acks, enable.idempotence, linger.ms, transactional.id", key)
	}
}

func TestEditDistance(t *testing.T) {
	assert.Equal(t, 0, editDistance("acks", "acks"))
	assert.Equal(t, 1, editDistance("transcational", "transactional"), "a swap of neighbours is one edit")
	assert.Equal(t, 2, editDistance("enable.idempotent", "enable.idempotence"))
	assert.Equal(t, 4, editDistance("", "acks"))
}
