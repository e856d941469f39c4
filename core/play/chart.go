package play

import (
	"deliverylab/core/scene"
	"deliverylab/core/show"
	"deliverylab/core/sim"
)

// Chart is each partition's offsets over the whole run, for the chart under the canvas:
// the copy of the run that learns its length (relearn) samples them at the end of every
// stretch (chartStep) in which something happened, so the chart covers the run from its
// start to its end, the recorded faults included, and the page only draws it.
type Chart struct {
	LengthMs   int64            `json:"lengthMs"`
	Partitions []PartitionChart `json:"partitions"`
}

// PartitionChart is one partition's lines and the moments its leader changed.
type PartitionChart struct {
	Partition string      `json:"partition"`
	Lines     []ChartLine `json:"lines"`
	// Leaders: when the partition got its first leader, then each time it lost it or
	// changed it (Who "" while it has none).
	Leaders []LeaderChange `json:"leaders"`
}

// ChartLine is one offset over time, as steps: Points are [ms, offset] where it changed;
// an offset of -1 means it is not known there (no live leader; the reader does not own
// the partition).
type ChartLine struct {
	Kind   string     `json:"kind"` // leo | hw | lso | committed | position
	Who    string     `json:"who"`  // the group (committed) or the consumer (position); "" for the log's
	Points [][2]int64 `json:"points"`
}

// LeaderChange is a moment the partition's leader changed.
type LeaderChange struct {
	AtMs int64  `json:"atMs"`
	Who  string `json:"who"`
}

// The line kinds of a partition's log; the readers' are show's mark kinds.
const (
	lineLEO = "leo"
	lineHW  = "hw"
	lineLSO = "lso"
)

// chartStep is how finely the chart samples a run about lengthMs long (0: not known
// yet): a pixel or two of a chart 700 pixels wide, never under 5 ms nor over 100 ms.
// Sampling every millisecond in which something happened had doubled what learning the
// timeline costs, and that runs at every click that injects a fault.
func chartStep(lengthMs int64) int64 {
	if lengthMs <= 0 {
		return 20
	}
	return min(max(lengthMs/500, 5), 100)
}

// due reports whether the run stands at the end of a stretch in which something
// happened: the next event, if any, falls in a later one.
func (c *chartSampler) due(w *sim.World) bool {
	next := w.NextEventMs()
	return next != w.NowMs() && (next < 0 || next/c.stepMs != w.NowMs()/c.stepMs)
}

// chartSampler builds a Chart from samples taken as a run goes.
type chartSampler struct {
	stepMs int64
	chart  Chart
	parts  map[string]int    // partition → index in chart.Partitions
	lines  map[lineKey]int   // (partition, kind, who) → index in its Lines
	leader map[string]string // partition → leader at the last sample
}

type lineKey struct{ partition, kind, who string }

func newChartSampler(stepMs int64) *chartSampler {
	return &chartSampler{stepMs: stepMs, parts: map[string]int{}, lines: map[lineKey]int{}, leader: map[string]string{}}
}

// sample records the offsets of r now, where they changed since the last sample.
func (c *chartSampler) sample(r *scene.Run) {
	now := r.World.NowMs()
	for _, o := range r.Offsets() {
		i, ok := c.parts[o.Partition]
		if !ok {
			i = len(c.chart.Partitions)
			c.parts[o.Partition] = i
			c.chart.Partitions = append(c.chart.Partitions, PartitionChart{Partition: o.Partition, Lines: []ChartLine{}, Leaders: []LeaderChange{}})
		}
		p := &c.chart.Partitions[i]
		// The first entry is the first leader (before the controller's first election a
		// partition has none, and that is no change).
		if last, seen := c.leader[o.Partition]; (seen && last != o.Leader) || (!seen && o.Leader != "") {
			c.leader[o.Partition] = o.Leader
			p.Leaders = append(p.Leaders, LeaderChange{AtMs: now, Who: o.Leader})
		}
		c.set(p, lineLEO, "", now, o.LEO)
		c.set(p, lineHW, "", now, o.HW)
		c.set(p, lineLSO, "", now, o.LSO)
		seen := map[lineKey]bool{}
		for _, m := range o.Marks {
			seen[lineKey{o.Partition, string(m.Kind), m.Who}] = true
			c.set(p, string(m.Kind), m.Who, now, m.Offset)
		}
		// A reader that no longer owns the partition (or is down) has no place in it.
		for _, l := range p.Lines {
			k := lineKey{o.Partition, l.Kind, l.Who}
			if (l.Kind == string(show.CommittedMark) || l.Kind == string(show.PositionMark)) && !seen[k] {
				c.set(p, l.Kind, l.Who, now, -1)
			}
		}
	}
	c.chart.LengthMs = now
}

// set adds a point to a line if its offset changed.
func (c *chartSampler) set(p *PartitionChart, kind, who string, now, offset int64) {
	k := lineKey{p.Partition, kind, who}
	i, ok := c.lines[k]
	if !ok {
		if offset < 0 {
			return // a line starts where it is first known
		}
		i = len(p.Lines)
		c.lines[k] = i
		p.Lines = append(p.Lines, ChartLine{Kind: kind, Who: who})
	}
	l := &p.Lines[i]
	if n := len(l.Points); n > 0 {
		if l.Points[n-1][1] == offset {
			return
		}
		if l.Points[n-1][0] == now {
			l.Points[n-1][1] = offset
			return
		}
	}
	l.Points = append(l.Points, [2]int64{now, offset})
}

// Chart is the offsets of every partition over the whole run, as the last relearn saw it.
func (s *Session) Chart() Chart { return s.chart }
