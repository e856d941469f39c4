package view

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/play"
)

// The canvas sizes of the classroom's windows: 1024×768 and 1280×800 (the page around
// the frame takes the rest).
var classroomCanvases = [][2]float64{{620, 430}, {764, 538}}

// sceneStates runs a shipped scene and returns its State at a few points in time: the
// start, along the run, and the end.
func sceneStates(t *testing.T, name string) []play.State {
	s, err := play.Load(name)
	require.NoError(t, err)
	var out []play.State
	for range 6 {
		out = append(out, s.State())
		s.Advance(600)
	}
	s.RunToEnd()
	return append(out, s.State())
}

func TestTypeScaleGrowsWithTheCanvas(t *testing.T) {
	assert.Equal(t, 14.0, MetricsFor(600, 420, false).Base, "the floor")
	assert.Equal(t, 14.0, MetricsFor(764, 538, false).Base)
	assert.InDelta(t, 1280.0/55, MetricsFor(1280, 1000, false).Base, 0.01)
	assert.Equal(t, 26.0, MetricsFor(1900, 1200, false).Base, "the ceiling")
	assert.Greater(t, MetricsFor(764, 538, true).Base, MetricsFor(764, 538, false).Base, "projector mode is a step up")
	small, big := MetricsFor(764, 538, false), MetricsFor(1900, 1000, false)
	assert.Greater(t, big.CellW, small.CellW, "the geometry follows the type")
	assert.Greater(t, big.HeaderH, small.HeaderH)
}

// Every text of every shipped scene, at the classroom sizes and in both languages, is
// drawn whole and at 14 px or more.
func TestShippedScenesAreLegibleAtClassroomSizes(t *testing.T) {
	for _, sc := range play.Scenes() {
		states := sceneStates(t, sc.Name)
		for _, size := range classroomCanvases {
			for _, lang := range []Lang{En, Zh} {
				for _, st := range states {
					l := Compute(st.Nodes, size[0], size[1])
					all := append(l.BoxTexts(st.Nodes, lang, Dark), l.TopBarTexts(st, 1, lang, Dark)...)
					for _, tx := range all {
						assert.GreaterOrEqual(t, tx.Px, 14.0, "%s %v %s: %q", sc.Name, size, lang, tx.S)
						assert.False(t, tx.Cut, "%s %v %s t=%d: %q was cut", sc.Name, size, lang, st.NowMs, tx.S)
					}
				}
			}
		}
	}
}
