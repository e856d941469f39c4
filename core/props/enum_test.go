package props

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type level uint8

func (l level) String() string { return [...]string{"low", "high"}[l] }

var levels = []level{0, 1}

type leveled struct {
	lvl level
	on  bool
}

func leveledTable() *Table[leveled] {
	return NewTable[leveled]("Kafka").
		Enum("level", Words(levels), func(c *leveled, v Value) error { return OneOf(v, levels, &c.lvl) }).
		Flag("on", func(c *leveled) *bool { return &c.on }).
		Key("plain", func(*leveled, Value) error { return nil })
}

// An enumerated key's words are kept by its table, so a toggle offering them and the
// parser accepting them cannot drift apart.
func TestAnEnumeratedKeyOffersTheWordsItAccepts(t *testing.T) {
	tab := leveledTable()
	assert.Equal(t, []string{"low", "high"}, tab.Choices("level"))
	assert.Equal(t, []string{"true", "false"}, tab.Choices("on"))
	assert.Nil(t, tab.Choices("plain"))

	var c leveled
	for _, w := range tab.Choices("level") {
		require.NoError(t, tab.Set(&c, "level", Value{Text: w}))
		assert.Equal(t, w, c.lvl.String())
	}
	require.NoError(t, tab.Set(&c, "on", Value{Text: "true"}))
	assert.True(t, c.on)

	err := tab.Set(&c, "level", Value{Text: "medium"})
	require.Error(t, err)
	assert.Equal(t, `expected one of low, high, got "medium"`, err.Error())
}

// Choices hands out a copy: a caller changing it does not change the table.
func TestChoicesAreACopy(t *testing.T) {
	tab := leveledTable()
	tab.Choices("level")[0] = "changed"
	assert.Equal(t, []string{"low", "high"}, tab.Choices("level"))
}
