package play

import (
	"slices"
	"strconv"
	"testing"

	"deliverylab/core/show"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lineOf finds a partition's line of a kind (and reader).
func lineOf(p PartitionChart, kind, who string) (ChartLine, bool) {
	for _, l := range p.Lines {
		if l.Kind == kind && (who == "" || l.Who == who) {
			return l, true
		}
	}
	return ChartLine{}, false
}

// stepAt is a line's offset at ms.
func stepAt(l ChartLine, ms int64) int64 {
	v := int64(-1)
	for _, p := range l.Points {
		if p[0] > ms {
			break
		}
		v = p[1]
	}
	return v
}

// TestChartSamplesTheOffsetsOverTheRun: the chart covers the whole run as the scrubber
// does; the log end reaches every message sent; the high watermark never passes it; the
// group's committed offset and the consumer's position are there and never pass the
// high watermark; every line only changes where it says.
func TestChartSamplesTheOffsetsOverTheRun(t *testing.T) {
	s, err := Load("commit-after-processing")
	require.NoError(t, err)
	c := s.Chart()
	st := s.State()
	assert.Equal(t, st.Timeline.LengthMs, c.LengthMs)
	require.Len(t, c.Partitions, 1)
	p := c.Partitions[0]
	assert.Equal(t, "orders-0", p.Partition)
	leo, ok := lineOf(p, "leo", "")
	require.True(t, ok)
	hw, ok := lineOf(p, "hw", "")
	require.True(t, ok)
	committed, ok := lineOf(p, "committed", "")
	require.True(t, ok, "the group's committed offset")
	position, ok := lineOf(p, "position", "c1")
	require.True(t, ok, "c1's position")
	assert.Equal(t, int64(10), stepAt(leo, c.LengthMs), "all ten messages are in the log at the end")
	for _, l := range []ChartLine{leo, hw, committed, position} {
		for i := 1; i < len(l.Points); i++ {
			assert.Less(t, l.Points[i-1][0], l.Points[i][0], "%s: one point a moment", l.Kind)
			assert.NotEqual(t, l.Points[i-1][1], l.Points[i][1], "%s: a point where it changed", l.Kind)
		}
	}
	for ms := int64(0); ms <= c.LengthMs; ms += 10 {
		if h := stepAt(hw, ms); h >= 0 {
			assert.LessOrEqual(t, h, stepAt(leo, ms), "HW ≤ LEO at %d ms", ms)
			assert.LessOrEqual(t, stepAt(committed, ms), h, "committed ≤ HW at %d ms", ms)
		}
	}
	assert.Len(t, p.Leaders, 1, "no election in this scene")
}

// TestChartMarksElectionsAndTheLastStableOffset: a crashed leader's partition has no
// leader for a while, then a new one; a transaction holds the LSO below the HW; a user's
// fault is in the chart at once (it is learned again with the timeline).
func TestChartMarksElectionsAndTheLastStableOffset(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	var leaders []string
	for _, l := range s.Chart().Partitions[0].Leaders {
		leaders = append(leaders, l.Who)
	}
	require.GreaterOrEqual(t, len(leaders), 2)
	assert.Equal(t, "broker-1", leaders[0])
	assert.NotEqual(t, "broker-1", leaders[len(leaders)-1], "another broker leads at the end")

	s, err = Load("txn-lso-holds-back")
	require.NoError(t, err)
	apart := false
	for _, p := range s.Chart().Partitions {
		hw, okH := lineOf(p, "hw", "")
		lso, okL := lineOf(p, "lso", "")
		if !okH || !okL {
			continue
		}
		for _, pt := range hw.Points {
			if l := stepAt(lso, pt[0]); l >= 0 && l < pt[1] {
				apart = true
			}
		}
	}
	assert.True(t, apart, "an open transaction holds the LSO below the HW")

	s, err = Load("commit-after-processing")
	require.NoError(t, err)
	before := s.Chart().Partitions[0].Leaders
	require.NotEmpty(t, before[0].Who)
	require.NoError(t, s.SeekTo(1000))
	require.NoError(t, s.Inject(`{"crash": "`+before[0].Who+`"}`))
	after := s.Chart().Partitions[0].Leaders
	assert.Greater(t, len(after), len(before), "the crash of the leader is in the chart")
}

// TestLedgerSaysEachMessagesTransaction: a message written twice, once in a transaction
// that was aborted and again in one that committed, says both in log order; while a
// transaction is open its messages say so; messages written outside transactions say
// nothing.
func TestLedgerSaysEachMessagesTransaction(t *testing.T) {
	s, err := Load("exactly-once-needs-read-committed")
	require.NoError(t, err)
	s.RunToEnd()
	both := false
	for _, m := range s.State().Ledger.Messages {
		require.NotEmpty(t, m.Txn, "%s: every message here is transactional", m.ID)
		if len(m.Txn) == 2 && m.Txn[0] == show.RecordTxnAborted && m.Txn[1] == show.RecordTxnCommitted {
			both = true
		}
	}
	assert.True(t, both, "the retried message: an aborted copy, then the committed one")

	s, err = Load("txn-lso-holds-back")
	require.NoError(t, err)
	open := false
	for ms := int64(100); ms < s.Chart().LengthMs && !open; ms += 100 {
		require.NoError(t, s.SeekTo(ms))
		for _, m := range s.State().Ledger.Messages {
			open = open || slices.Contains(m.Txn, show.RecordTxnOpen)
		}
	}
	assert.True(t, open, "a message of a transaction not ended yet")

	s, err = Load("acks-1-lost")
	require.NoError(t, err)
	s.RunToEnd()
	for _, m := range s.State().Ledger.Messages {
		assert.Empty(t, m.Txn, m.ID)
	}
}

// TestWholeDiagramCoversTheRun: the diagram view draws the whole run with its recorded
// faults whatever moment the session stands at, and leaves the session where it was.
func TestWholeDiagramCoversTheRun(t *testing.T) {
	s, err := Load("acks-1-lost")
	require.NoError(t, err)
	require.NoError(t, s.SeekTo(500))
	svg := string(s.WholeDiagram("", false))
	assert.Contains(t, svg, ";"+strconv.FormatInt(s.Chart().LengthMs, 10)+",", "its axis reaches the run's end")
	assert.Equal(t, int64(500), s.State().NowMs)
	assert.NotContains(t, svg, `data-background="true"`)
	with := string(s.WholeDiagram("p1#5", true))
	assert.Contains(t, with, `data-background="true"`)
	assert.Contains(t, with, `stroke="#e6007e"`, "the highlighted message")
}
