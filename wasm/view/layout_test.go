package view

import (
	"fmt"
	"image/color"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"deliverylab/core/play"
	"deliverylab/core/show"
)

func TestComputeColumnsFlowLeftToRight(t *testing.T) {
	st := cluster(4)
	l := Compute(st.Nodes, 1000, 800)
	require.Len(t, l.Boxes, len(st.Nodes))

	p1, _ := l.Box("p1")
	b1, _ := l.Box("broker-1")
	c1, _ := l.Box("c1")
	db, _ := l.Box("db")
	ctl, _ := l.Box("controller")
	assert.Less(t, p1.Rect.Right(), b1.Rect.X, "producer left of brokers")
	assert.Less(t, b1.Rect.Right(), c1.Rect.X, "consumer right of brokers")
	assert.Equal(t, c1.Rect.X, db.Rect.X, "consumers and sinks share the right column")
	assert.InDelta(t, tm.BoxGapMax, b1.Rect.Y-ctl.Rect.Bottom(), 0.001, "controller just above the brokers")
	assert.Equal(t, st.Nodes[4].Up, l.Boxes[4].Up)
}

func TestComputeBoxesStayOnCanvasAndApart(t *testing.T) {
	for _, size := range [][2]float64{{1000, 560}, {640, 480}, {1400, 900}, {600, 420}, {508, 538}} {
		st := cluster(30)
		l := Compute(st.Nodes, size[0], size[1])
		for i, a := range l.Boxes {
			assert.GreaterOrEqual(t, a.Rect.X, 0.0, "%v %s", size, a.Name)
			assert.LessOrEqual(t, a.Rect.Right(), size[0], "%v %s", size, a.Name)
			assert.GreaterOrEqual(t, a.Rect.Y, tm.TopBarH, "%v %s", size, a.Name)
			assert.Greater(t, a.Rect.W, 0.0)
			assert.Greater(t, a.Rect.H, 0.0)
			for _, b := range l.Boxes[i+1:] {
				assert.False(t, a.Rect.Intersects(b.Rect), "%v: %s overlaps %s", size, a.Name, b.Name)
			}
		}
	}
}

func TestComputeBrokersFitHeight(t *testing.T) {
	st := cluster(3)
	l := Compute(st.Nodes, 1000, 560)
	b3, _ := l.Box("broker-3")
	assert.LessOrEqual(t, b3.Rect.Bottom(), 560-l.M.Margin+0.001)
}

func TestLogRowShowsNewestCellsAndHighWatermark(t *testing.T) {
	st := cluster(5)
	l := Compute(st.Nodes, 1000, 800)
	b1, _ := l.Box("broker-1")
	require.Len(t, b1.Logs, 1)
	row := b1.Logs[0]
	assert.True(t, row.Leader)
	assert.Equal(t, "orders-0  leader e1  hw 4  leo 5  isr 1,2,3", row.Label)
	require.Len(t, row.Cells, 5)
	assert.Zero(t, row.Hidden)
	for i, c := range row.Cells {
		assert.Equal(t, int64(i), c.Offset)
		assert.Equal(t, i < 4, c.Committed, "offset %d", i)
		assert.True(t, row.Strip.Contains(c.Rect.Center()))
	}
	// hw 4: the line sits between offset 3 and offset 4.
	assert.Greater(t, row.HWX, row.Cells[3].Rect.Right()-0.001)
	assert.Less(t, row.HWX, row.Cells[4].Rect.X+0.001)

	b3, _ := l.Box("broker-3")
	assert.False(t, b3.Logs[0].Leader)
	assert.Equal(t, b3.Logs[0].Cells[0].Rect.X-tm.CellGap/2, b3.Logs[0].HWX, "hw 0: line before the first cell")
}

func TestLogRowScrollsLongLogs(t *testing.T) {
	st := cluster(200)
	l := Compute(st.Nodes, 1000, 800)
	b1, _ := l.Box("broker-1")
	row := b1.Logs[0]
	require.NotEmpty(t, row.Cells)
	assert.Equal(t, 200, row.Hidden+len(row.Cells))
	assert.Equal(t, int64(199), row.Cells[len(row.Cells)-1].Offset, "the newest record is shown")
	assert.LessOrEqual(t, row.Cells[len(row.Cells)-1].Rect.Right(), b1.Rect.Right())
	assert.Equal(t, row.Cells[len(row.Cells)-1].Rect.X-tm.CellGap/2, row.HWX,
		"hw 199 of 200: after the last committed, before the newest")
}

func TestLogRowHWAfterAllRecords(t *testing.T) {
	rs := play.ReplicaState{Partition: "t-0", HW: 3, LEO: 3, Records: []play.RecordView{{Offset: 0, Kind: show.OffsetCommit, Note: "@4"},
		{Offset: 1, Kind: show.Data, Msg: "p1#1"}, {Offset: 2, Kind: show.Data, Msg: "p1#2"}}}
	row := layoutLog(rs, Rect{0, 0, 400, 40}, tm)
	assert.Equal(t, row.Cells[2].Rect.Right()+tm.CellGap/2, row.HWX)
	assert.True(t, row.Cells[0].Internal())
	assert.Equal(t, "@4", row.Cells[0].Label())
	assert.False(t, row.Cells[1].Internal())
	assert.Equal(t, Dark.Committed, row.Cells[1].Fill(Dark))
}

// A transaction's markers are cells of their own kind, labelled and coloured as such.
func TestLogRowDrawsTransactionMarkers(t *testing.T) {
	rs := play.ReplicaState{Partition: "t-0", HW: 1, LEO: 3, Records: []play.RecordView{{Offset: 0, Kind: show.Data, Msg: "p1#1"},
		{Offset: 1, Kind: show.CommitMarker, Note: "COMMIT"}, {Offset: 2, Kind: show.AbortMarker, Note: "ABORT"}}}
	row := layoutLog(rs, Rect{0, 0, 400, 40}, tm)
	require.Len(t, row.Cells, 3)
	assert.Equal(t, []string{"p1#1", "COMMIT", "ABORT"}, []string{row.Cells[0].Label(), row.Cells[1].Label(), row.Cells[2].Label()})
	assert.Equal(t, []color.RGBA{Dark.Committed, Dark.CommitMark, Dark.AbortMark}, []color.RGBA{row.Cells[0].Fill(Dark), row.Cells[1].Fill(Dark), row.Cells[2].Fill(Dark)})
	assert.True(t, row.Cells[1].Internal())
}

func TestSinkChipsMarkDuplicates(t *testing.T) {
	st := cluster(1)
	l := Compute(st.Nodes, 1000, 800)
	db, _ := l.Box("db")
	require.Len(t, db.Chips, 3)
	assert.Equal(t, []bool{false, true, true}, []bool{db.Chips[0].Dup, db.Chips[1].Dup, db.Chips[2].Dup})
	for _, c := range db.Chips {
		assert.True(t, db.Rect.Contains(c.Rect.Center()))
	}
}

func TestSinkChipsKeepNewest(t *testing.T) {
	rows := make([]string, 500)
	for i := range rows {
		rows[i] = "p1#x"
	}
	rows[499] = "p1#last"
	chips, hidden := layoutChips(rows, nil, Rect{0, 0, 150, 100}, tm, 1)
	require.NotEmpty(t, chips)
	assert.Equal(t, 500, hidden+len(chips))
	assert.Equal(t, "p1#last", chips[len(chips)-1].Msg)
	assert.LessOrEqual(t, chips[len(chips)-1].Rect.Bottom(), 100.0)
}

func TestBoxUnknownName(t *testing.T) {
	l := Compute(cluster(1).Nodes, 800, 500)
	_, ok := l.Box("nope")
	assert.False(t, ok)
}

func TestCellsOutOfSendOrderForTheirKeyAreMarked(t *testing.T) {
	st := cluster(0)
	recs := []play.RecordView{
		{Offset: 0, Kind: show.Data, Msg: "p1#5", Key: "k"},
		{Offset: 1, Kind: show.Data, Msg: "p1#1", Key: "k"}, // behind p1#5, same key
		{Offset: 2, Kind: show.Data, Msg: "p1#2", Key: "j"}, // another key: in order
		{Offset: 3, Kind: show.Data, Msg: "p2#1", Key: "k"}, // another producer
		{Offset: 4, Kind: show.OffsetCommit, Note: "@3"},
		{Offset: 5, Kind: show.Data, Msg: "p1#6", Key: "k"},
		{Offset: 6, Kind: show.Data, Msg: "p1#3"}, // unkeyed: no order to keep
	}
	st.Nodes[2].Partitions[0].Records, st.Nodes[2].Partitions[0].LEO = recs, int64(len(recs))
	l := Compute(st.Nodes, 1400, 560)
	b1, _ := l.Box("broker-1")
	var got []bool
	for _, c := range b1.Logs[0].Cells {
		got = append(got, c.Reordered)
	}
	assert.Equal(t, []bool{false, true, false, false, false, false, false}, got)

	// a scrolled-off record still counts: p1#1 stays marked when p1#5 is hidden
	narrow := Compute(st.Nodes, 420, 560)
	b1, _ = narrow.Box("broker-1")
	row := b1.Logs[0]
	require.Positive(t, row.Hidden)
	for _, c := range row.Cells {
		assert.Equal(t, c.Msg == "p1#1", c.Reordered, c.Msg)
	}
}

func TestABlockedProducerIsMarkedWhileUp(t *testing.T) {
	st := cluster(1)
	st.Nodes[0].Blocked = true
	p1, _ := Compute(st.Nodes, 1000, 800).Box("p1")
	assert.True(t, p1.Blocked)
	st.Nodes[0].Up = false
	p1, _ = Compute(st.Nodes, 1000, 800).Box("p1")
	assert.False(t, p1.Blocked, "a crashed producer is DOWN, not blocked")
}

func TestAFencedBrokerIsMarkedWhileUp(t *testing.T) {
	st := cluster(1)
	i := slices.IndexFunc(st.Nodes, func(n play.NodeState) bool { return n.Name == "broker-1" })
	st.Nodes[i].Fenced = true
	b1, _ := Compute(st.Nodes, 1000, 800).Box("broker-1")
	assert.True(t, b1.Fenced)
	st.Nodes[i].Up = false
	b1, _ = Compute(st.Nodes, 1000, 800).Box("broker-1")
	assert.False(t, b1.Fenced, "a crashed broker is DOWN, not fenced")
}

// A group's committed offset and a consumer's position sit at the boundary before the
// record they name: at the strip's left edge when it scrolled off, after the last record
// at the log end.
func TestLogRowMarksReaders(t *testing.T) {
	recs := make([]play.RecordView, 20)
	for i := range recs {
		recs[i] = play.RecordView{Offset: int64(i), Kind: show.Data}
	}
	rs := play.ReplicaState{Partition: "orders-0", Leader: true, HW: 20, LEO: 20, Records: recs,
		Marks: []show.Mark{{Kind: show.CommittedMark, Who: "dashboard", Offset: 18}, {Kind: show.PositionMark, Who: "c1", Offset: 20},
			{Kind: show.CommittedMark, Who: "old", Offset: 0}}}
	row := layoutLog(rs, Rect{0, 0, 260, 40}, tm)
	require.Positive(t, row.Hidden)
	require.Len(t, row.Marks, 3)
	first, last := row.Cells[0], row.Cells[len(row.Cells)-1]
	at := func(off int64) Cell {
		for _, c := range row.Cells {
			if c.Offset == off {
				return c
			}
		}
		t.Fatalf("offset %d not drawn", off)
		return Cell{}
	}
	assert.Equal(t, MarkAt{Kind: show.CommittedMark, Label: "dashboard 18", X: at(17).Rect.Right() + tm.CellGap/2}, row.Marks[0])
	assert.Less(t, row.Marks[0].X, at(18).Rect.X)
	assert.Equal(t, MarkAt{Kind: show.PositionMark, Label: "c1 20", X: last.Rect.Right() + tm.CellGap/2}, row.Marks[1])
	assert.Equal(t, row.Strip.X, row.Marks[2].X, "offset 0 scrolled off: the left edge")
	assert.Equal(t, row.HiddenAt.X, row.Marks[2].X, "the left edge is the …N slot")
	assert.Equal(t, row.HiddenAt.Right()+tm.CellGap, first.Rect.X)
}

// Readers close together do not overprint: one offset shares a label, neighbours take
// a line each.
func TestLogRowReaderLabelsDoNotOverprint(t *testing.T) {
	recs := make([]play.RecordView, 10)
	for i := range recs {
		recs[i] = play.RecordView{Offset: int64(i), Kind: show.Data}
	}
	rs := play.ReplicaState{Partition: "enriched-0", Leader: true, HW: 10, LEO: 10, Records: recs,
		Marks: []show.Mark{{Kind: show.PositionMark, Who: "audit", Offset: 8}, {Kind: show.PositionMark, Who: "dashboard", Offset: 9},
			{Kind: show.PositionMark, Who: "c1", Offset: 9}, {Kind: show.CommittedMark, Who: "audit", Offset: 8}}}
	row := layoutLog(rs, Rect{0, 0, 500, 40}, tm)
	require.Len(t, row.Marks, 3)
	assert.Equal(t, "audit 8", row.Marks[0].Label)
	assert.Equal(t, 0, row.Marks[0].Line)
	assert.Equal(t, "dashboard, c1 9", row.Marks[1].Label, "two readers at one offset share a label")
	assert.Equal(t, 1, row.Marks[1].Line, "one cell to the right: the next line")
	assert.Equal(t, 0, row.Marks[2].Line, "a committed offset is labelled at the other edge")
}

// What a truncation cut away is drawn after the live records, while there is room.
func TestLogRowDrawsTruncatedRecordsAfterTheLogEnd(t *testing.T) {
	rs := play.ReplicaState{Partition: "orders-0", HW: 2, LEO: 2,
		Records:   []play.RecordView{{Offset: 0, Kind: show.Data, Msg: "p1#1"}, {Offset: 1, Kind: show.Data, Msg: "p1#2"}},
		Truncated: []play.RecordView{{Offset: 2, Kind: show.Data, Msg: "p1#3"}, {Offset: 3, Kind: show.Data, Msg: "p1#4"}}}
	row := layoutLog(rs, Rect{0, 0, 400, 40}, tm)
	require.Len(t, row.Cut, 2)
	assert.Equal(t, "p1#3", row.Cut[0].Msg)
	assert.Greater(t, row.Cut[0].Rect.X, row.Cells[1].Rect.Right(), "after the last live record")
	narrow := layoutLog(rs, Rect{0, 0, 3*(tm.CellW+tm.CellGap) - tm.CellGap, 40}, tm)
	assert.Len(t, narrow.Cut, 1, "only as many as fit")
}

func TestSinkChipsStrikeRefusedDuplicates(t *testing.T) {
	chips, hidden := layoutChips([]string{"p1#1", "p1#2"}, []string{"p1#2"}, Rect{0, 0, 300, 100}, tm, 1)
	require.Zero(t, hidden)
	require.Len(t, chips, 3)
	assert.Equal(t, []bool{false, false, true}, []bool{chips[0].Refused, chips[1].Refused, chips[2].Refused},
		"the refused insert comes after the rows, struck out")
	assert.False(t, chips[1].Dup, "a refused insert is not a second row: the stored p1#2 is no duplicate")
	assert.False(t, chips[2].Dup)
}

// A leader of a partition with transactional data shows its last stable offset beside
// the HW; without transactions the label is as before.
func TestPartitionLabelShowsTheLSO(t *testing.T) {
	rs := play.ReplicaState{Partition: "orders-0", Leader: true, HW: 8, LEO: 9, ISR: []string{"broker-1"}}
	assert.Equal(t, "orders-0  leader e0  hw 8  leo 9  isr 1", PartitionLabel(rs))
	rs.LSO, rs.HasLSO = 4, true
	assert.Equal(t, "orders-0  leader e0  hw 8  lso 4  leo 9  isr 1", PartitionLabel(rs))
}

// Under Kafka 4 a partition whose ISR fell below min.insync.replicas names its eligible
// leader replicas after the ISR, in every form of the label.
func TestPartitionLabelShowsTheELR(t *testing.T) {
	rs := play.ReplicaState{Partition: "orders-0", Leader: true, HW: 8, LEO: 9, ISR: []string{"broker-1"}, ELR: []string{"broker-2", "broker-3"}}
	assert.Equal(t, "orders-0  leader e0  hw 8  leo 9  isr 1 elr 2,3", PartitionLabel(rs))
	for _, form := range partitionLabels(rs) {
		assert.Contains(t, form, "elr 2,3")
	}
}

func TestTxnLineNamesEachTransactionalID(t *testing.T) {
	line := TxnLine([]show.Txn{{ID: "orders-tx", State: "Ongoing", Epoch: 0}, {ID: "b", State: "PrepareCommit", Epoch: 2}})
	assert.Equal(t, "txn orders-tx Ongoing e0 · txn b PrepareCommit e2", line)
}

func TestLSOLineAndAbortedCells(t *testing.T) {
	rs := play.ReplicaState{Partition: "orders-0", Leader: true, HW: 4, LEO: 4, LSO: 2, HasLSO: true, Records: []show.Cell{
		{Offset: 0, Kind: show.Data, Msg: "p1#1"}, {Offset: 1, Kind: show.CommitMarker},
		{Offset: 2, Kind: show.Data, Msg: "p1#3", Aborted: true}, {Offset: 3, Kind: show.Data, Msg: "p2#1"}}}
	row := layoutLog(rs, Rect{0, 0, 400, 40}, tm)
	require.True(t, row.HasLSO)
	assert.InDelta(t, row.Cells[2].Rect.X-tm.CellGap/2, row.LSOX, 0.01, "the LSO line stands before offset 2")
	assert.Less(t, row.LSOX, row.HWX)
	assert.Equal(t, Dark.AbortedRec, row.Cells[2].Fill(Dark))
	assert.Equal(t, Dark.Committed, row.Cells[3].Fill(Dark))
}

// A Streams scene's brokers hold five replicas each (two topics, two __consumer_offsets
// partitions, one of __transaction_state): on a short canvas the followers of the
// internal topics give way, the coordinators (their leaders) and the data stay, and the
// last broker still fits.
func TestManyReplicasHideInternalFollowersFirst(t *testing.T) {
	st := cluster(3)
	leaders := map[string]string{"__consumer_offsets-5": "broker-3", "__consumer_offsets-33": "broker-1",
		"__transaction_state-7": "broker-2", "enriched-0": "broker-2"}
	for i := range st.Nodes {
		n := &st.Nodes[i]
		if n.Kind != "broker" {
			continue
		}
		for _, p := range []string{"__consumer_offsets-5", "__consumer_offsets-33", "__transaction_state-7", "enriched-0"} {
			n.Partitions = append(n.Partitions, play.ReplicaState{Partition: p, Leader: leaders[p] == n.Name, Internal: strings.HasPrefix(p, "__")})
		}
	}
	l := Compute(st.Nodes, 1000, 800)
	b3, _ := l.Box("broker-3")
	assert.LessOrEqual(t, b3.Rect.Bottom(), 800-l.M.Margin+0.001, "every broker fits")
	for _, b := range []string{"broker-1", "broker-2", "broker-3"} {
		box, _ := l.Box(b)
		var shown []string
		for _, r := range box.Logs {
			shown = append(shown, r.Partition)
		}
		assert.Equal(t, 2, box.HiddenFollowers, "%s: its two internal follower replicas give way", b)
		assert.Contains(t, shown, "orders-0", "%s: data replicas stay", b)
		assert.Contains(t, shown, "enriched-0", "%s: data replicas stay", b)
	}
	b2, _ := l.Box("broker-2")
	assert.Equal(t, "__transaction_state-7", b2.Logs[1].Partition, "the transaction coordinator's log stays")

	roomy := Compute(st.Nodes, 1400, 1400)
	b2, _ = roomy.Box("broker-2")
	assert.Zero(t, b2.HiddenFollowers, "with room, every replica is shown")
	assert.Len(t, b2.Logs, 5)
}

// A reader at the end of a full strip: its label covers no cell when the label line has
// room for it (beside the partition label, ending at its mark), and readers' labels
// never overprint.
func TestReaderLabelsSitOnTheLabelLine(t *testing.T) {
	recs := make([]play.RecordView, 30)
	for i := range recs {
		recs[i] = play.RecordView{Offset: int64(i), Kind: show.Data, Msg: fmt.Sprintf("p1#%d", i+1)}
	}
	rs := play.ReplicaState{Partition: "orders-0", Leader: true, HW: 30, LEO: 30, Records: recs,
		Marks: []show.Mark{{Kind: show.PositionMark, Who: "c1", Offset: 30}, {Kind: show.CommittedMark, Who: "dashboard", Offset: 30}}}
	row := layoutLog(rs, Rect{0, 0, 520, 60}, tm)
	require.Positive(t, row.Hidden, "the strip is full: no room after the last cell")
	l := &Layout{M: tm}
	tt := &texts{lang: En, pal: Dark}
	l.logTexts(tt, row)
	var pills []Rect
	for _, tx := range tt.out {
		if !tx.Pill {
			continue
		}
		r := tx.Bounds()
		for _, c := range row.Cells {
			assert.False(t, r.Intersects(c.Rect), "%q covers the cell at offset %d", tx.S, c.Offset)
		}
		for _, p := range pills {
			assert.False(t, r.Intersects(p), "%q overprints another reader's label", tx.S)
		}
		pills = append(pills, r)
	}
	assert.Len(t, pills, 2)
}
