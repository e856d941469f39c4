package view

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"deliverylab/core/play"
	"deliverylab/core/show"
)

// LogRow is one partition replica drawn as a row of cells, newest on the right.
type LogRow struct {
	Partition string
	Leader    bool
	Label     string // "orders-0  leader e1  hw 3  leo 4  isr 1,2,3"
	LabelAt   Point  // top-left of the label line
	Strip     Rect   // where the cells go
	Cells     []Cell
	Hidden    int     // older records scrolled off the left, counted in the "…N" slot
	HiddenAt  Rect    // the strip's first slot, where "…N" stands when Hidden > 0
	HWX       float64 // x of the high-watermark line: records left of it are committed
	// LSOX: x of the last-stable-offset line (HasLSO), left of which read_committed reads.
	LSOX   float64
	HasLSO bool
	Marks  []MarkAt // where the readers stand: groups' committed offsets, consumers' positions
	// Cut are the records the replica's last truncation removed, drawn struck out after
	// its last record while there is room.
	Cut []Cell
}

// MarkAt is a reader's place in a drawn log: the x of the boundary before the record at
// its offset (a committed offset and a position both name the next record to read).
type MarkAt struct {
	Kind  show.MarkKind
	Label string // "dashboard 3" (a group's committed offset), "c1 3" (a consumer's position)
	X     float64
	// Line is the label's line, counted from its edge of the strip: readers standing
	// close together get a line each, so that their labels do not overprint.
	Line int
}

// Cell is one record of a partition log.
type Cell struct {
	Rect      Rect
	Offset    int64
	Kind      show.CellKind
	Msg       string // an application record's identity
	Note      string // what an internal record holds: "@4" (an offset commit), "COMMIT" (a marker)
	Seq       string // an idempotent producer's record: "0:3", producer id and sequence
	Committed bool   // below the high watermark: visible to consumers
	// Reordered: an application record that landed behind a record its producer sent
	// later with the same key (Jepsen's nonmonotonic send), as a retried batch does with
	// more than one request in flight and no idempotence.
	Reordered bool
	Aborted   bool // a record of an aborted transaction
}

// Internal reports whether the cell is an internal record (an offset commit or a
// transaction marker) rather than an application message.
func (c Cell) Internal() bool { return c.Kind != show.Data }

// Label is the cell's text: the message, or what the internal record holds.
func (c Cell) Label() string {
	switch {
	case c.Msg != "":
		return c.Msg
	case c.Note != "":
		return c.Note
	}
	return string(c.Kind)
}

// Fill is the cell's colour: transaction markers and offset commits each have their
// own, application records are lit once committed.
func (c Cell) Fill(p Palette) color.RGBA {
	switch {
	case c.Kind == show.CommitMarker:
		return p.CommitMark
	case c.Kind == show.AbortMarker:
		return p.AbortMark
	case c.Aborted:
		return p.AbortedRec
	case c.Internal():
		return p.ControlRec
	case c.Committed:
		return p.Committed
	}
	return p.Pending
}

// Chip is one row of a sink, as a small labelled box.
type Chip struct {
	Rect Rect
	Msg  string
	Dup  bool // the same message identity is stored more than once
	// Refused: an insert a unique key refused as a duplicate; nothing was stored.
	Refused bool
}

// PartitionLabel is the text above a partition row in full. Broker names in the ISR are
// shortened to their number so the list fits ("broker-2" -> "2"); FitPartitionLabel
// shortens the rest when the row is narrow.
func PartitionLabel(rs play.ReplicaState) string { return partitionLabels(rs)[0] }

// layoutLog fits the newest records of a replica into row's cell strip.
// When older records are left out, the strip's first slot says how many ("…N").
func layoutLog(rs play.ReplicaState, row Rect, m Metrics) LogRow {
	strip := Rect{row.X, row.Y + m.LabelH, row.W, math.Max(8, row.H-m.LabelH-4)}
	labelW := row.W - m.Base*1.1 - 4
	lr := LogRow{Partition: rs.Partition, Leader: rs.Leader, Label: FitPartitionLabel(rs, m.Base, labelW),
		LabelAt: Point{row.X, row.Y}, Strip: strip, HWX: strip.X}
	step := m.CellW + m.CellGap
	fit := max(1, int((strip.W+m.CellGap)/step))
	reordered := outOfSendOrder(rs.Records)
	recs := rs.Records
	first := 0.0 // the slot of the first drawn record
	if len(recs) > fit {
		lr.Hidden = len(recs) - max(1, fit-1)
		recs = recs[lr.Hidden:]
		if fit > 1 {
			lr.HiddenAt = Rect{strip.X, strip.Y, m.CellW, strip.H}
			first = 1
		}
	}
	lr.Cells = make([]Cell, len(recs))
	hwSet := false
	for i, r := range recs {
		rect := Rect{strip.X + (first+float64(i))*step, strip.Y, m.CellW, strip.H}
		lr.Cells[i] = Cell{Rect: rect, Offset: r.Offset, Kind: r.Kind, Msg: r.Msg, Note: r.Note, Seq: r.Seq, Committed: r.Offset < rs.HW,
			Reordered: reordered[lr.Hidden+i], Aborted: r.Aborted}
		if !hwSet && r.Offset >= rs.HW {
			lr.HWX, hwSet = rect.X-m.CellGap/2, true
		}
	}
	if !hwSet && len(recs) > 0 {
		lr.HWX = lr.Cells[len(recs)-1].Rect.Right() + m.CellGap/2
	}
	if rs.HasLSO {
		lr.LSOX, lr.HasLSO = offsetX(lr.Cells, rs.LSO, strip, m.CellGap), true
	}
	lr.Marks = layoutMarks(rs.Marks, lr.Cells, strip, m)
	lr.Cut = layoutCut(rs.Truncated, int(first)+len(lr.Cells), fit, strip, m)
	return lr
}

// layoutCut places the truncated records after the live ones, as many as fit.
func layoutCut(recs []show.Cell, live, fit int, strip Rect, m Metrics) []Cell {
	var out []Cell
	for i, r := range recs {
		slot := live + i
		if slot >= fit {
			break
		}
		rect := Rect{strip.X + float64(slot)*(m.CellW+m.CellGap), strip.Y, m.CellW, strip.H}
		out = append(out, Cell{Rect: rect, Offset: r.Offset, Kind: r.Kind, Msg: r.Msg, Note: r.Note})
	}
	return out
}

// outOfSendOrder marks, over the whole log (scrolled-off records included), each keyed
// application record that comes after a record its producer sent later with the same
// key: "p1#1" behind "p1#5", both with key k. Message identities are PRODUCER#N, N in
// send order.
func outOfSendOrder(recs []show.Cell) []bool {
	out := make([]bool, len(recs))
	latest := map[[2]string]int{} // (producer, key) -> highest N so far
	for i, r := range recs {
		if r.Kind != show.Data || r.Key == "" {
			continue
		}
		prod, num, ok := strings.Cut(r.Msg, "#")
		n, err := strconv.Atoi(num)
		if !ok || err != nil {
			continue
		}
		k := [2]string{prod, r.Key}
		if hi, seen := latest[k]; seen && n < hi {
			out[i] = true
			continue
		}
		latest[k] = n
	}
	return out
}

// layoutMarks puts each mark at the boundary before the record at its offset: at the
// strip's left edge when that record has scrolled off, after the last record when the
// reader is at the log end.
func layoutMarks(marks []show.Mark, cells []Cell, strip Rect, m Metrics) []MarkAt {
	out := make([]MarkAt, 0, len(marks))
	var who [][]string // the readers of each mark
	var offsets []int64
	markLabelW := m.Base * 4
	for _, m := range marks {
		x := strip.X
		for _, c := range cells {
			if c.Offset < m.Offset {
				x = c.Rect.Right() + 1
			}
		}
		// Readers of one kind at one offset share a label ("audit, dashboard 9").
		if i := slices.IndexFunc(out, func(o MarkAt) bool { return o.Kind == m.Kind && o.X == x }); i >= 0 && offsets[i] == m.Offset {
			who[i] = append(who[i], m.Who)
			continue
		}
		line := 0
		for _, o := range out {
			if o.Kind == m.Kind && math.Abs(o.X-x) < markLabelW && o.Line >= line {
				line = o.Line + 1
			}
		}
		out = append(out, MarkAt{Kind: m.Kind, X: x, Line: line})
		who, offsets = append(who, []string{m.Who}), append(offsets, m.Offset)
	}
	for i := range out {
		out[i].Label = fmt.Sprintf("%s %d", strings.Join(who[i], ", "), offsets[i])
	}
	return out
}

// layoutChips fits the newest rows of a sink into the box under its header, then the
// inserts a unique key refused (struck out).
func layoutChips(rows, refused []string, box Rect, m Metrics, detailLines int) ([]Chip, int) {
	count := map[string]int{}
	for _, r := range rows {
		count[r]++
	}
	stored := len(rows)
	rows = append(slices.Clip(rows), refused...)
	ChipW, ChipH, ChipGap := m.ChipW, m.ChipH, m.ChipGap
	perRow := max(1, int((box.W-8+ChipGap)/(ChipW+ChipGap)))
	// The last line is kept for "+N rows" when not every row fits.
	top := m.HeaderH + m.Line*float64(detailLines) // the name, then the sink's detail lines
	lines := max(0, int((box.H-top-4+ChipGap)/(ChipH+ChipGap)))
	if len(rows)+len(refused) > perRow*lines {
		lines = max(0, lines-1)
	}
	fit := perRow * lines
	hidden := 0
	if len(rows) > fit {
		hidden = len(rows) - fit
		rows = rows[hidden:]
	}
	chips := make([]Chip, len(rows))
	for i, r := range rows {
		x := box.X + 4 + float64(i%perRow)*(ChipW+ChipGap)
		y := box.Y + top + float64(i/perRow)*(ChipH+ChipGap)
		chips[i] = Chip{Rect: Rect{x, y, ChipW, ChipH}, Msg: r, Dup: count[r] > 1}
		chips[i].Refused = hidden+i >= stored
		chips[i].Dup = chips[i].Dup && !chips[i].Refused
	}
	return chips, hidden
}

// TxnLine is what a broker's header says of the transactional ids it coordinates:
// "txn orders-tx Ongoing e0", several separated by " · ".
func TxnLine(txns []show.Txn) string {
	parts := make([]string, len(txns))
	for i, t := range txns {
		parts[i] = fmt.Sprintf("txn %s %s e%d", t.ID, t.State, t.Epoch)
	}
	return strings.Join(parts, " · ")
}

// offsetX is the x of the gap before the cell of an offset: the end of the strip's
// cells when the offset is past them, the start when it is before them.
func offsetX(cells []Cell, offset int64, strip Rect, gap float64) float64 {
	for _, c := range cells {
		if c.Offset >= offset {
			return c.Rect.X - gap/2
		}
	}
	if len(cells) == 0 {
		return strip.X
	}
	return cells[len(cells)-1].Rect.Right() + gap/2
}
