package view

import (
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/play"
	"deliverylab/core/show"
)

// Every rune of the Chinese words is in the canvas's fonts: wasm/font/canvas-zh.otf
// must be regenerated (make canvas-font) when a word changes.
func TestFontHasEveryWord(t *testing.T) {
	for key, w := range Words {
		for _, r := range w.Zh {
			assert.True(t, HasGlyph(r), "%s: %q has no glyph for %q; run make canvas-font", key, w.Zh, r)
		}
		for _, r := range w.En {
			assert.True(t, HasGlyph(r), "%s: %q has no glyph for %q", key, w.En, r)
		}
	}
	assert.False(t, HasGlyph('龍'), "the subset holds only the words' glyphs")
}

// Each word has both languages and the same format verbs in each.
func TestWordsHaveBothLanguages(t *testing.T) {
	for key, w := range Words {
		require.NotEmpty(t, w.En, key)
		require.NotEmpty(t, w.Zh, key)
		assert.Equal(t, strings.Count(w.En, "%"), strings.Count(w.Zh, "%"), key)
	}
	hanOnly := func(s string) bool {
		for _, r := range s {
			if unicode.Is(unicode.Han, r) {
				return true
			}
		}
		return false
	}
	assert.True(t, hanOnly(T(Zh, "down")))
	assert.Equal(t, "DOWN", T(En, "down"))
	assert.Equal(t, "starts at 40 ms", waitingText(En, "starts at 40 ms"))
	assert.Equal(t, "40 ms 启动", waitingText(Zh, "starts at 40 ms"))
	assert.Equal(t, "保持停机", waitingText(Zh, "held down"))
	assert.Equal(t, "已稳定", EndNote(Zh, "settled"))
	assert.Equal(t, "settled", EndNote(En, "settled"))
	assert.Equal(t, "odd", EndNote(Zh, "odd"))
	_, err := ParseLang("fr")
	assert.Error(t, err)
}

// The smallest text of the picture is 14 px at the 1280×800 window's canvas and grows
// with the canvas.
func TestLabelFontAtLeast14(t *testing.T) {
	st := cluster(10)
	prev := 0.0
	for _, size := range [][2]float64{{764, 538}, {1100, 700}, {1900, 1000}} {
		l := Compute(st.Nodes, size[0], size[1])
		min := 1e9
		for _, tx := range append(l.BoxTexts(st.Nodes, En, Dark), l.TopBarTexts(st, 1, En, Dark)...) {
			min = mathMin(min, tx.Px)
		}
		assert.GreaterOrEqual(t, min, 14.0, "%v", size)
		assert.GreaterOrEqual(t, min, prev, "%v: grows with the canvas", size)
		prev = min
	}
	assert.Greater(t, prev, 20.0)
}

func mathMin(a, b float64) float64 {
	if a < b {
		return a
	}
	return b
}

// A tall cell shows its offset and, beside it, the idempotent producer's id and
// sequence; a one-line cell only its message.
func TestCellShowsSequenceWhenTall(t *testing.T) {
	rs := play.ReplicaState{Partition: "orders-0", Leader: true, HW: 1, LEO: 1,
		Records: []play.RecordView{{Offset: 0, Kind: show.Data, Msg: "p1#1", Seq: "0:3"}}}
	texts := func(h float64) []string {
		l := &Layout{M: tm, Boxes: []Box{{Name: "broker-1", Kind: "broker", Up: true, Logs: []LogRow{layoutLog(rs, Rect{0, 0, 400, h}, tm)}}}}
		var out []string
		for _, tx := range l.BoxTexts([]play.NodeState{{Name: "broker-1", Kind: "broker", Up: true}}, En, Dark) {
			out = append(out, tx.S)
		}
		return out
	}
	assert.Subset(t, texts(tm.RowHMax), []string{"0", "0:3", "p1#1"})
	assert.NotContains(t, texts(tm.RowHMin), "0:3")
}
