package view

import (
	"image/color"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestMessageColor(t *testing.T) {
	assert.Equal(t, KindColor("producer"), MessageColor("Produce"))
	assert.Equal(t, Lighten(MessageColor("Produce"), 0.45), MessageColor("ProduceResponse"))
	assert.Equal(t, MessageColor("Fetch"), MessageColor("FetchRequest"), "families by prefix")
	assert.NotEqual(t, MessageColor("OffsetCommit"), MessageColor("Produce"))
	assert.Equal(t, MessageColor("SomethingNew"), MessageColor("SomethingNew"), "stable for unknown kinds")
	assert.Equal(t, uint8(0xff), MessageColor("SomethingNew").A)
}

func TestKindAndFateColors(t *testing.T) {
	for _, k := range []string{"producer", "controller", "broker", "consumer", "sink"} {
		assert.NotEqual(t, Dark.TextDim, KindColor(k), k)
	}
	assert.Equal(t, Dark.TextDim, KindColor("alien"))
	assert.NotEqual(t, FateColor("lost"), FateColor("delivered"))
	assert.Equal(t, Dark.TextDim, FateColor("?"))
}

func TestLighten(t *testing.T) {
	c := color.RGBA{100, 0, 200, 255}
	assert.Equal(t, c, Lighten(c, 0))
	assert.Equal(t, color.RGBA{255, 255, 255, 255}, Lighten(c, 1))
	assert.Equal(t, color.RGBA{178, 128, 228, 255}, Lighten(c, 0.5))
}
