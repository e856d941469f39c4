package view

import (
	"strings"

	"deliverylab/core/show"
)

// A subtask's box says, under its name, that it is paused (its thread stopped), and what
// the subtask holds: a source's offsets
// ("orders-0@4"), a count's or sum's keyed totals ("region-0=6"), an EXACTLY_ONCE
// sink's transactions ("cases-0-2 pre-committed", "cases-0-3 open"), and, dimmed, what
// the latest completed checkpoint holds of it ("ckpt 2: region-0=6 region-1=4"): the
// state a failover rolls back to. Items are packed onto lines at spaces, so a wide box
// takes several per line and a narrow one one per line.

// PartDetail is how much a job's part boxes say, as the column's height allows.
type PartDetail int

const (
	PartNames    PartDetail = iota // names only
	PartState                      // and each subtask's own state
	PartSnapshot                   // and the latest completed checkpoint's snapshot
)

// maxPartItems is how many keys or partitions a part box lists before it says how many
// more there are: a part box is a glance, not a table.
const maxPartItems = 4

// PartLine is one detail line of a part box.
type PartLine struct {
	S      string
	Dim    bool // the checkpoint's snapshot, not the live state
	Paused bool // the paused badge, in the paused colour
}

// PartLines is what a part box says under its name in lang, wrapped to maxW at px.
func PartLines(p show.Part, d PartDetail, lang Lang, px, maxW float64) []PartLine {
	if d < PartState {
		return nil
	}
	var out []PartLine
	add := func(s string, dim bool) {
		for _, l := range Wrap(s, px, maxW) {
			out = append(out, PartLine{S: l, Dim: dim})
		}
	}
	if p.Paused {
		out = append(out, PartLine{S: T(lang, "pausedBadge"), Paused: true})
	}
	if items := partItems(lang, p.Offsets, p.Totals); items != "" {
		add(items, false)
	}
	for _, tx := range p.Txns {
		add(tx.ID+" "+T(lang, "txn:"+string(tx.State)), false)
	}
	if d >= PartSnapshot && len(p.Snapshot) > 0 {
		add(T(lang, "ckptOf", p.SnapshotOf)+" "+partItems(lang, p.Snapshot), true)
	}
	return out
}

// partItems joins a part's items, the first maxPartItems of them and a count of the rest.
func partItems(lang Lang, lists ...[]string) string {
	var all []string
	for _, l := range lists {
		all = append(all, l...)
	}
	if len(all) > maxPartItems {
		all = append(all[:maxPartItems-1], T(lang, "moreItems", len(all)-maxPartItems+1))
	}
	return strings.Join(all, " ")
}

// partRows is how many detail lines a part's box keeps room for: its lines in the
// longer language, and as many item lines as its snapshot has, so a failed subtask
// that lost its state keeps its box's size.
func partRows(p show.Part, d PartDetail, px, maxW float64) int {
	rows := 0
	for _, lang := range []Lang{En, Zh} {
		q := p
		if len(q.Snapshot) > len(q.Offsets)+len(q.Totals) {
			if partGroup(q.Name) == 0 {
				q.Offsets = q.Snapshot
			} else {
				q.Totals = q.Snapshot
			}
		}
		rows = max(rows, len(PartLines(q, d, lang, px, maxW)))
	}
	return rows
}
