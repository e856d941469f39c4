package view

import (
	"image/color"
	"testing"

	"github.com/stretchr/testify/assert"

	"deliverylab/core/sim"
)

func TestMessageColor(t *testing.T) {
	assert.Equal(t, KindColor("producer"), MessageColor("produce", "Produce"))
	assert.Equal(t, Lighten(MessageColor("produce", "Produce"), 0.45), MessageColor("produce", "ProduceResponse"))
	assert.Equal(t, MessageColor("fetch", "Fetch"), MessageColor("fetch", "ListOffsets"), "by family, not by name")
	assert.NotEqual(t, MessageColor("offsets", "OffsetCommit"), MessageColor("produce", "Produce"))
	for _, f := range sim.Families {
		assert.Contains(t, familyColors, f.String(), "every family has a hue")
	}
	assert.Equal(t, MessageColor("unknown", "SomethingNew"), MessageColor("unknown", "SomethingNew"), "stable for unknown kinds")
	assert.Equal(t, uint8(0xff), MessageColor("unknown", "SomethingNew").A)
}

func TestKindAndFateColors(t *testing.T) {
	for _, k := range []string{"producer", "controller", "broker", "consumer", "sink", "job"} {
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
