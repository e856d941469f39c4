package view

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"deliverylab/core/play"
	"deliverylab/core/show"
)

// Align says where a text's anchor point is.
type Align int

const (
	TopLeft Align = iota
	TopRight
	Center
	LeftMid
	BottomRight
	BottomLeft
)

// Text is one piece of text the canvas draws: already fitted to its room (Cut says
// that took a "…"), at Px CSS pixels.
type Text struct {
	S     string
	Px    float64
	At    Point
	Align Align
	Color color.RGBA
	Cut   bool
	// Pill: drawn on a translucent patch of the background, for a label that stands
	// over cells (a reader's mark).
	Pill bool
}

// Bounds is the rectangle t covers.
func (t Text) Bounds() Rect {
	w, h := TextWidth(t.S, t.Px), t.Px*1.2
	x, y := t.At.X, t.At.Y
	switch t.Align {
	case TopRight, BottomRight:
		x -= w
	case Center:
		x -= w / 2
	}
	switch t.Align {
	case Center, LeftMid:
		y -= h / 2
	case BottomRight, BottomLeft:
		y -= h
	}
	return Rect{x, y, w, h}
}

// texts collects the texts of a picture, fitting each to its room.
type texts struct {
	out  []Text
	lang Lang
	pal  Palette
}

func (t *texts) add(s string, px float64, at Point, a Align, c color.RGBA, maxW float64) {
	s, cut := Fit(s, px, maxW)
	if s == "" && !cut {
		return
	}
	t.out = append(t.out, Text{S: s, Px: px, At: at, Align: a, Color: c, Cut: cut})
}

// BoxTexts is every text of the boxes (the picture's static part): names, badges,
// detail lines, partition labels, cells, readers' marks, sink rows and the counts of
// what was left out. boxes and nodes are in the same order.
func (l *Layout) BoxTexts(nodes []play.NodeState, lang Lang, pal Palette) []Text {
	t := &texts{lang: lang, pal: pal}
	for i, b := range l.Boxes {
		if i < len(nodes) {
			l.boxTexts(t, b, nodes[i])
		}
	}
	return t.out
}

// Badge is what a box's header says on its right of the node's state, in lang, and
// its colour; "" when the header shows the node's own detail instead.
func Badge(b Box, n play.NodeState, lang Lang, pal Palette) (string, color.RGBA) {
	switch {
	case n.Waiting:
		return n.Status.Text(lang), pal.TextDim // "starts at N ms", "held down"
	case !b.Up:
		return T(lang, "down"), pal.Down
	case n.Paused:
		return T(lang, "pausedBadge"), pal.Paused
	case b.Blocked: // send() waits for buffer.memory (the page's legend says so in both languages)
		return T(lang, "blocked"), pal.Blocked
	case b.Fenced: // the controller fenced it (the page's legend says so in both languages)
		return T(lang, "fenced"), pal.Fenced
	}
	return "", pal.TextDim
}

func (l *Layout) boxTexts(t *texts, b Box, n play.NodeState) {
	m, pal := l.M, t.pal
	detail := n.Status.Text(t.lang)
	inner := b.Rect.W - 2*m.Pad
	nameW := TextWidth(b.Name, m.Name)
	t.add(b.Name, m.Name, Point{b.Rect.X + m.Pad, b.Rect.Y + (m.HeaderH-m.Name)/2}, TopLeft, pal.Text, inner)
	right := Point{b.Rect.Right() - m.Pad, b.Rect.Y + (m.HeaderH-m.Base)/2}
	rightW := inner - nameW - m.Pad
	badge, bc := Badge(b, n, t.lang, pal)
	app := b.Kind != "broker" && b.Kind != "sink" && b.Kind != "controller"
	switch {
	case badge != "" && app: // under the name, wrapped: the side columns are narrow
		for i, line := range Wrap(badge, m.Base, inner) {
			t.add(line, m.Base, Point{b.Rect.X + m.Pad, b.Rect.Y + m.HeaderH + m.Line*float64(i)}, TopLeft, bc, inner)
		}
	case badge != "":
		t.add(badge, m.Base, right, TopRight, bc, rightW)
	case b.Kind == "broker" && len(n.Txns) > 0: // its transaction coordinator's ids, in place of the partition count
		t.add(fitTxnLine(n.Txns, m.Base, rightW), m.Base, right, TopRight, pal.Text, rightW)
	case b.Kind == "broker" || b.Kind == "controller":
		t.add(detail, m.Base, right, TopRight, pal.TextDim, rightW)
	case b.Kind == "sink": // on its own lines under the name: the chips start below them
		for i, line := range SinkDetailLines(detail, m, b.Rect.W) {
			t.add(line, m.Base, Point{b.Rect.X + m.Pad, b.Rect.Y + m.HeaderH + m.Line*float64(i)}, TopLeft, pal.TextDim, inner)
		}
	}
	if app && b.Up && !n.Waiting && !n.Paused {
		lines := AppDetailLines(detail, m.Base, inner)
		bottom := b.Rect.Bottom()
		if b.Kind == "job" { // the status lines end where the parts begin
			bottom = b.PartsTop
		}
		for i, line := range lines {
			at := Point{b.Rect.X + m.Pad, b.Rect.Y + m.HeaderH + m.Line*float64(i)}
			if at.Y+m.Line > bottom+1 { // more lines than the box holds: the last one says so
				t.out[len(t.out)-1].Cut = true
				break
			}
			t.add(line, m.Base, at, TopLeft, pal.TextDim, inner)
		}
	}
	for _, row := range b.Logs {
		l.logTexts(t, row)
	}
	for _, p := range b.Parts { // a job's parts: their names in their boxes, their state under them
		l.partTexts(t, p)
	}
	for _, c := range b.Chips {
		col := pal.Text
		if c.Refused {
			col = pal.TextDim
		}
		t.add(c.Msg, m.Base, c.Rect.Center(), Center, col, c.Rect.W-2)
	}
	if b.Hidden > 0 {
		t.add(T(t.lang, "rows", b.Hidden), m.Base, Point{b.Rect.Right() - m.Pad, b.Rect.Bottom() - 3}, BottomRight, pal.TextDim, inner)
	}
	if b.HiddenFollowers > 0 { // the column is too short for every replica (the legend says so)
		t.add(T(t.lang, "followerRows", b.HiddenFollowers), m.Base, Point{b.Rect.Right() - m.Pad, b.Rect.Bottom() - 3}, BottomRight, pal.TextDim, inner)
	}
}

// partTexts is a job part's name, centred on its first line, and its detail lines
// (partlines.go) under it: the live state, then the checkpoint's snapshot, dimmed.
func (l *Layout) partTexts(t *texts, p PartBox) {
	m, pal := l.M, t.pal
	col := pal.Text
	if !p.Up {
		col = pal.Down
	}
	if p.Rows == 0 {
		t.add(p.Name, m.Base, p.Rect.Center(), Center, col, p.Rect.W-2)
		return
	}
	// A line higher than a lone name, so the last line's descenders clear the border.
	t.add(p.Name, m.Base, Point{p.Rect.Center().X, p.Rect.Y + 1 + m.Line/2}, Center, col, p.Rect.W-2)
	maxW := m.partLineW(p.Rect.W)
	for i, line := range PartLines(p.State, p.Detail, t.lang, m.Base, maxW) {
		if i >= p.Rows { // cannot happen: the rows are the longer language's
			t.out[len(t.out)-1].Cut = true
			break
		}
		c := pal.Text
		switch {
		case line.Dim:
			c = pal.TextDim
		case line.Paused:
			c = pal.Paused
		}
		at := Point{p.Rect.X + m.Pad/2, p.Rect.Y + 1 + m.Line*float64(i+1)}
		t.add(line.S, m.Base, at, TopLeft, c, maxW)
	}
}

// AppDetailLines is an application's status as its box shows it: the parts separated
// by " · " (a producer's counts, then its producer id, epoch and sequences), each
// wrapped at spaces to the box's width.
func AppDetailLines(detail string, px, maxW float64) []string {
	var out []string
	for _, part := range strings.Split(detail, " · ") {
		out = append(out, Wrap(part, px, maxW)...)
	}
	return out
}

// SinkDetailLines is a sink's status (its row count and what it refused or rewrote)
// wrapped to a box w wide: at most two lines.
func SinkDetailLines(detail string, m Metrics, w float64) []string {
	lines := Wrap(detail, m.Base, w-2*m.Pad)
	if len(lines) > 2 {
		lines = append(lines[:1], strings.Join(lines[1:], " "))
	}
	return lines
}

// fitTxnLine is the header's list of the transactional ids a broker coordinates: in
// full when it fits, else without the epochs, else the states alone.
func fitTxnLine(txns []show.Txn, px, maxW float64) string {
	full := TxnLine(txns)
	if TextWidth(full, px) <= maxW {
		return full
	}
	parts := make([]string, len(txns))
	for i, tx := range txns {
		parts[i] = fmt.Sprintf("%s %s", tx.ID, tx.State)
	}
	if s := strings.Join(parts, " · "); TextWidth(s, px) <= maxW {
		return s
	}
	for i, tx := range txns {
		parts[i] = string(tx.State)
	}
	if s := "txn " + strings.Join(parts, "·"); TextWidth(s, px) <= maxW {
		return s
	}
	return fmt.Sprintf("txn ×%d", len(txns))
}

func (l *Layout) logTexts(t *texts, row LogRow) {
	m, pal := l.M, t.pal
	badge := BadgeRect(row, m)
	letter, lc := "F", pal.TextDim
	if row.Leader {
		letter, lc = "L", pal.Background
	}
	t.add(letter, m.Base, badge.Center(), Center, lc, 0)
	labelX := badge.Right() + 4
	t.add(row.Label, m.Base, Point{labelX, row.LabelAt.Y}, TopLeft, pal.TextDim, row.Strip.Right()-labelX)
	// The readers' labels go on the label line beside the partition label when there is
	// room, so that they cover no cell; only what does not fit there sits on the strip.
	placed := []Rect{{X: row.LabelAt.X, Y: row.LabelAt.Y, W: labelX + TextWidth(row.Label, m.Base) + m.Pad - row.LabelAt.X, H: m.LabelH}}
	if row.Hidden > 0 && row.HiddenAt.W > 0 {
		t.add(T(t.lang, "older", row.Hidden), m.Base, row.HiddenAt.Center(), Center, pal.TextDim, row.HiddenAt.W-2)
	}
	twoLines := row.Strip.H >= 2*m.Line
	for _, c := range row.Cells {
		msg := CellLabel(c, m.Base, c.Rect.W-3)
		if twoLines {
			off := fmt.Sprint(c.Offset)
			t.add(off, m.Base, Point{c.Rect.X + 2, c.Rect.Y}, TopLeft, pal.TextDim, c.Rect.W-3)
			// The idempotent producer's id and sequence ("0:3"), when it fits beside the
			// offset; a cell too narrow leaves it out (the producer's box says its pid).
			if c.Seq != "" && TextWidth(off, m.Base)+TextWidth(c.Seq, m.Base)+6 <= c.Rect.W {
				t.add(c.Seq, m.Base, Point{c.Rect.Right() - 2, c.Rect.Y}, TopRight, pal.TextDim, 0)
			}
			t.add(msg, m.Base, Point{c.Rect.Center().X, c.Rect.Bottom() - m.Line/2}, Center, pal.Text, c.Rect.W-3)
		} else {
			t.add(msg, m.Base, c.Rect.Center(), Center, pal.Text, c.Rect.W-3)
		}
	}
	for _, c := range row.Cut {
		t.add(CellLabel(c, m.Base, c.Rect.W-3), m.Base, c.Rect.Center(), Center, pal.TextDim, c.Rect.W-3)
	}
	for _, mk := range row.Marks {
		c := pal.ReaderMark
		if mk.Kind == show.CommittedMark {
			c = pal.GroupMark
		}
		if tx, ok := markOnLabelLine(row, mk, m, c, placed); ok {
			placed = append(placed, tx.Bounds())
			t.out = append(t.out, tx)
			continue
		}
		at, a, room := MarkLabelAt(row, mk, m)
		// In a one-line strip a position and a committed offset share the line: a label
		// that would overprint another is left out (its mark line still stands).
		s, cut := Fit(mk.Label, m.Base, room)
		tx := Text{S: s, Px: m.Base, At: at, Align: a, Color: c, Cut: cut, Pill: true}
		r := tx.Bounds()
		if slices.ContainsFunc(placed, r.Intersects) {
			continue
		}
		placed = append(placed, r)
		t.out = append(t.out, tx)
	}
}

// BadgeRect is the leader/follower badge in front of a partition row's label.
func BadgeRect(row LogRow, m Metrics) Rect {
	s := m.Base * 1.1
	return Rect{X: row.LabelAt.X, Y: row.LabelAt.Y + (m.LabelH-s)/2, W: s, H: s}
}

// markOnLabelLine places a reader's label on the row's label line: ending at its mark,
// else starting there, else just left of the readers' labels already on the line (two
// readers at the log end) — when it fits whole within the row and clear of the
// partition label (placed[0]) and the labels placed before it.
func markOnLabelLine(row LogRow, mk MarkAt, m Metrics, c color.RGBA, placed []Rect) (Text, bool) {
	at := func(x float64, a Align) Text {
		return Text{S: mk.Label, Px: m.Base, At: Point{X: x, Y: row.LabelAt.Y}, Align: a, Color: c, Pill: true}
	}
	cands := []Text{at(mk.X-2, TopRight), at(mk.X+2, TopLeft)}
	for _, p := range placed[1:] {
		cands = append(cands, at(p.X-m.Pad, TopRight))
	}
	for _, cand := range cands {
		r := cand.Bounds()
		if r.X < row.Strip.X || r.Right() > row.Strip.Right()+1 || slices.ContainsFunc(placed, r.Intersects) {
			continue
		}
		return cand, true
	}
	return Text{}, false
}

// MarkLabelAt is where a reader's label goes and how wide it may be: a group's
// committed offset at the bottom of the strip, a consumer's position at the top, each
// stacked line by line; right of its line, or left of it when the strip's end is nearer
// than the label is long.
func MarkLabelAt(row LogRow, mk MarkAt, m Metrics) (Point, Align, float64) {
	line := float64(mk.Line) * m.Line
	y, left, right := row.Strip.Y+line, TopRight, TopLeft
	if mk.Kind == show.CommittedMark {
		y, left, right = row.Strip.Bottom()-line, BottomRight, BottomLeft
	}
	roomR, roomL := row.Strip.Right()-mk.X-2, mk.X-2-row.Strip.X
	if TextWidth(mk.Label, m.Base) > roomR && roomL > roomR {
		return Point{X: mk.X - 2, Y: y}, left, roomL
	}
	return Point{X: mk.X + 2, Y: y}, right, roomR
}

// cellShort are the documented short forms of internal records' labels, used when the
// full one does not fit its cell: the cell's colour still says which marker it is.
var cellShort = map[string]string{"COMMIT": "CMT", "ABORT": "ABT", "ongoing": "ongo", "empty": "emp"}

// CellLabel is a cell's text fitted to w at px: its label, or the short form of a
// transaction marker's.
func CellLabel(c Cell, px, w float64) string {
	s := c.Label()
	if TextWidth(s, px) <= w {
		return s
	}
	if short, ok := cellShort[s]; ok {
		return short
	}
	return s
}

// FitPartitionLabel is a partition row's label fitted to maxW at px. It tries, in
// order: the full label; without the role word (the L/F badge says it); numbers
// joined to their names ("hw3"); and the internal topics' names shortened to
// "__co-N" (__consumer_offsets) and "__ts-N" (__transaction_state); and any other
// topic's name cut to its first three letters ("enr-0" for enriched-0). ISR, HW, LEO
// and LSO are in every form (the last says "hw=lso10" when the two are equal).
func FitPartitionLabel(rs play.ReplicaState, px, maxW float64) string {
	forms := partitionLabels(rs)
	for _, f := range forms {
		if TextWidth(f, px) <= maxW {
			return f
		}
	}
	return forms[len(forms)-1]
}

func partitionLabels(rs play.ReplicaState) []string {
	role := "follower"
	if rs.Leader {
		role = "leader"
	}
	lso := func(sep string) string {
		if !rs.HasLSO {
			return ""
		}
		return fmt.Sprintf("  lso%s%d", sep, rs.LSO) // read_committed reads below it
	}
	short := rs.Partition
	for long, abbr := range map[string]string{"__consumer_offsets-": "__co-", "__transaction_state-": "__ts-"} {
		if rest, ok := strings.CutPrefix(rs.Partition, long); ok {
			short = abbr + rest
		}
	}
	isrs := brokerNumbers(rs.ISR)
	if len(rs.ELR) > 0 { // Kafka 4's eligible leader replicas, after the ISR they may stand in for
		isrs += " elr " + brokerNumbers(rs.ELR)
	}
	tiny := short
	if topic, num, ok := cutPartition(rs.Partition); ok && short == rs.Partition && len([]rune(topic)) > 3 {
		tiny = string([]rune(topic)[:3]) + "-" + num
	}
	forms := []string{
		fmt.Sprintf("%s  %s e%d  hw %d%s  leo %d  isr %s", rs.Partition, role, rs.Epoch, rs.HW, lso(" "), rs.LEO, isrs),
		fmt.Sprintf("%s  e%d  hw %d%s  leo %d  isr %s", rs.Partition, rs.Epoch, rs.HW, lso(" "), rs.LEO, isrs),
		strings.ReplaceAll(fmt.Sprintf("%s e%d hw%d%s leo%d isr%s", rs.Partition, rs.Epoch, rs.HW, lso(""), rs.LEO, isrs), "  ", " "),
		strings.ReplaceAll(fmt.Sprintf("%s hw%d%s leo%d isr%s", short, rs.HW, lso(""), rs.LEO, isrs), "  ", " "),
		strings.ReplaceAll(fmt.Sprintf("%s hw%d%s leo%d isr%s", tiny, rs.HW, lso(""), rs.LEO, isrs), "  ", " "),
	}
	if rs.HasLSO && rs.LSO == rs.HW { // no open transaction: one number says both
		forms = append(forms, fmt.Sprintf("%s hw=lso%d leo%d isr%s", tiny, rs.HW, rs.LEO, isrs))
	}
	return forms
}

// brokerNumbers is "1,2,3" for broker-1, broker-2, broker-3.
func brokerNumbers(brokers []string) string {
	nums := make([]string, len(brokers))
	for i, b := range brokers {
		nums[i] = strings.TrimPrefix(b, "broker-")
	}
	return strings.Join(nums, ",")
}

// cutPartition splits "orders-0" into its topic and partition number.
func cutPartition(p string) (topic, num string, ok bool) {
	i := strings.LastIndexByte(p, '-')
	if i <= 0 {
		return "", "", false
	}
	return p[:i], p[i+1:], true
}

// TopBarTexts is the status line: the virtual time, whether the run plays (and how
// fast), is paused or has ended (and why), and how many messages are on the wire.
func (l *Layout) TopBarTexts(st play.State, speed float64, lang Lang, pal Palette) []Text {
	return TopBar(st, speed, lang, pal, l.Width, l.M)
}

// TopBar is the status line of a w-wide canvas (also drawn before any layout exists).
func TopBar(st play.State, speed float64, lang Lang, pal Palette, w float64, m Metrics) []Text {
	t := &texts{lang: lang, pal: pal}
	status := T(lang, "paused")
	switch {
	case st.Ended && st.EndNote != "":
		status = T(lang, "endedWhy", EndNote(lang, st.EndNote))
	case st.Ended:
		status = T(lang, "ended")
	case st.Playing:
		status = T(lang, "playing", speed)
	}
	y := (m.TopBarH - m.Base) / 2
	clock := T(lang, "time", st.NowMs)
	t.add(clock, m.Base, Point{m.Margin, y}, TopLeft, pal.Text, 0)
	x := m.Margin + math.Max(TextWidth(clock, m.Base), m.Base*7) + m.Base
	right := w - m.Margin
	if n := len(st.InFlight); n > 0 {
		s := T(lang, "inFlight", n)
		t.add(s, m.Base, Point{right, y}, TopRight, pal.TextDim, 0)
		right -= TextWidth(s, m.Base) + m.Base
	}
	t.add(status, m.Base, Point{x, y}, TopLeft, pal.TextDim, right-x)
	return t.out
}
