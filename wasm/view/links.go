package view

import (
	"math"
	"sort"

	"deliverylab/core/play"
)

// LinkHitRadius is how near a lane a click must be to hit it: under half the distance
// between a link's two lanes plus the slack a thin line needs.
const LinkHitRadius = 5.0

// Lane is one direction of a link between two nodes that talk: the line a message from
// From to To travels on. A and B are its ends in canvas CSS pixels; for a curved lane
// (between two boxes of the middle column) they are the ends of its middle fifth, so the
// middle of A..B lies on the lane.
type Lane struct {
	From string `json:"from"`
	To   string `json:"to"`
	Cut  bool   `json:"cut"`
	A    Point  `json:"a"`
	B    Point  `json:"b"`
	Path Path   `json:"-"`
	Line bool   `json:"-"` // straight: A and B are the path's ends
}

// Lanes are both directions of every link in talked (pairs that had a message on the
// wire, in either direction) and every cut link, sorted by (from, to). A node talking
// to itself has no lane.
func (l *Layout) Lanes(talked, cuts []play.Link) []Lane {
	cut := map[play.Link]bool{}
	set := map[play.Link]bool{}
	add := func(k play.Link) {
		if k.From != k.To {
			set[k], set[play.Link{From: k.To, To: k.From}] = true, true
		}
	}
	for _, k := range talked {
		add(k)
	}
	for _, k := range cuts {
		cut[k] = true
		add(k)
	}
	keys := SortedLinks(set)
	out := make([]Lane, 0, len(keys))
	for _, k := range keys {
		p, ok := l.Path(k.From, k.To)
		if !ok {
			continue
		}
		ln := Lane{From: k.From, To: k.To, Cut: cut[k], Path: p}
		if ln.Line = p.C == (Point{(p.P0.X + p.P2.X) / 2, (p.P0.Y + p.P2.Y) / 2}); ln.Line {
			ln.A, ln.B = p.P0, p.P2
		} else {
			ln.A, ln.B = p.At(0.4), p.At(0.6)
		}
		out = append(out, ln)
	}
	return out
}

// laneSteps is how finely a curved lane is followed when measuring a distance to it.
const laneSteps = 16

// Dist is the distance from q to the lane.
func (ln Lane) Dist(q Point) float64 {
	if ln.Line {
		return segDist(q, ln.Path.P0, ln.Path.P2)
	}
	best := math.Inf(1)
	prev := ln.Path.P0
	for i := 1; i <= laneSteps; i++ {
		next := ln.Path.At(float64(i) / laneSteps)
		best = math.Min(best, segDist(q, prev, next))
		prev = next
	}
	return best
}

// segDist is the distance from q to the segment a..b.
func segDist(q, a, b Point) float64 {
	dx, dy := b.X-a.X, b.Y-a.Y
	n := dx*dx + dy*dy
	if n == 0 {
		return Dist(q, a)
	}
	t := clamp(((q.X-a.X)*dx+(q.Y-a.Y)*dy)/n, 0, 1)
	return Dist(q, Point{a.X + t*dx, a.Y + t*dy})
}

// Talked adds to seen the pairs of the messages on the wire: the links worth drawing
// build up as the run goes.
func Talked(seen map[play.Link]bool, flights []play.Flight) bool {
	grew := false
	for _, f := range flights {
		k := play.Link{From: f.From, To: f.To}
		if f.From > f.To {
			k = play.Link{From: f.To, To: f.From}
		}
		if f.From != f.To && !seen[k] {
			seen[k], grew = true, true
		}
	}
	return grew
}

// SortedLinks is seen's pairs, sorted.
func SortedLinks(seen map[play.Link]bool) []play.Link {
	out := make([]play.Link, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].From != out[j].From {
			return out[i].From < out[j].From
		}
		return out[i].To < out[j].To
	})
	return out
}
