package diagram

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The time axis runs down the picture at pxPerMs, except where nothing drawn happens for
// longer than quietMs: such a stretch (a consumer waiting for its start, a session timing
// out) is squeezed to breakPx with its length written across it, so that a run's few busy
// moments are not lost in a tall, mostly empty page.
const (
	quietMs = 200
	breakPx = 36.0
)

// axis maps virtual time to a height on the picture: piecewise linear through its knots.
type axis struct {
	ms     []int64
	px     []float64
	breaks []stretch // the squeezed stretches, in time order
}

// stretch is a squeezed quiet stretch of time.
type stretch struct{ FromMs, ToMs int64 }

// newAxis lays out the times at which something is drawn (sorted or not) from 0 to endMs,
// shrinking the scale if the picture would be taller than maxHeight.
func newAxis(times []int64, endMs int64) axis {
	ts := append([]int64{0, endMs}, times...)
	slices.Sort(ts)
	ts = slices.Compact(ts)
	for len(ts) > 0 && ts[len(ts)-1] > endMs {
		ts = ts[:len(ts)-1]
	}
	build := func(scale float64) axis {
		a := axis{ms: []int64{ts[0]}, px: []float64{topMargin}}
		for i := 1; i < len(ts); i++ {
			gap := ts[i] - ts[i-1]
			h := float64(gap) * scale
			if gap > quietMs && h > breakPx {
				h = breakPx
				a.breaks = append(a.breaks, stretch{ts[i-1], ts[i]})
			}
			a.ms = append(a.ms, ts[i])
			a.px = append(a.px, a.px[len(a.px)-1]+h)
		}
		return a
	}
	a := build(pxPerMs)
	if tall := a.px[len(a.px)-1] - topMargin; tall > maxHeight {
		a = build(pxPerMs * maxHeight / tall)
	}
	return a
}

// y is the height of time ms.
func (a axis) y(ms int64) float64 {
	i := sort.Search(len(a.ms), func(i int) bool { return a.ms[i] >= ms })
	switch {
	case i == 0:
		return a.px[0]
	case i == len(a.ms):
		return a.px[len(a.px)-1]
	}
	f := float64(ms-a.ms[i-1]) / float64(a.ms[i]-a.ms[i-1])
	return a.px[i-1] + f*(a.px[i]-a.px[i-1])
}

// knots is the axis as text, "ms,y;ms,y;…", y to one decimal.
func (a axis) knots() string {
	var b strings.Builder
	for i := range a.ms {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(strconv.FormatInt(a.ms[i], 10))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(a.px[i], 'f', 1, 64))
	}
	return b.String()
}

// squeezed reports whether ms falls inside a squeezed stretch (a tick there would lie).
func (a axis) squeezed(ms int64) bool {
	for _, b := range a.breaks {
		if ms > b.FromMs && ms < b.ToMs {
			return true
		}
	}
	return false
}
