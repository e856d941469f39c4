package view

import (
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/fate"
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
	for _, code := range fate.Statuses {
		for _, r := range fate.Because(code).Text(Zh) {
			assert.True(t, HasGlyph(r), "status %s: no glyph for %q; run make canvas-font", code, r)
		}
	}
	assert.False(t, HasGlyph('龍'), "the subset holds only the words' glyphs")
}

// A node's status is said whole in the canvas's language; numbers, ids and Kafka's
// states stay as they are.
func TestStatusesAreSaidInChinese(t *testing.T) {
	sent := fate.Because(fate.StatusSent, "sent", "10", "count", "10", "acked", "10").And(fate.StatusIdentity, "id", "pid 0 e1")
	assert.Equal(t, "已发送 10/10 已确认 10 · pid 0 e1", sent.Text(Zh))
	assert.Equal(t, "sent 10/10 acked 10 · pid 0 e1", sent.Text(En))
	rows := fate.Because(fate.StatusRows, "rows", "9").And(fate.StatusRefused, "count", "2")
	assert.Equal(t, "9 行 2 被拒", rows.Text(Zh))
	assert.Equal(t, "Stable 空闲", fate.Because(fate.StatusMember, "state", "Stable").And(fate.StatusIdle).Text(Zh),
		"Kafka's group state stays as Kafka spells it")
	streams := fate.Because(fate.StatusGuarantee, "guarantee", "exactly_once_v2").And(fate.StatusRunning).
		And(fate.StatusStreamsTxn).And(fate.StatusTxnOpen)
	assert.Equal(t, "exactly_once_v2 · running, txn open", streams.Text(Zh))
	assert.Equal(t, "40 ms 启动", fate.Because(fate.StatusStartsAt, "ms", "40").Text(Zh))
	assert.Equal(t, "保持停机", fate.Because(fate.StatusHeldDown).Text(Zh))
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
	waiting := play.NodeState{Waiting: true, Status: fate.Because(fate.StatusStartsAt, "ms", "40")}
	badge, _ := Badge(Box{}, waiting, En, Dark)
	assert.Equal(t, "starts at 40 ms", badge)
	badge, _ = Badge(Box{}, waiting, Zh, Dark)
	assert.Equal(t, "40 ms 启动", badge)
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
