package view

import (
	"math"

	"deliverylab/core/play"
)

// laneOffset separates the two directions of a link, so a request and its response
// travel side by side instead of on top of each other.
const laneOffset = 6.0

// Path is the curve a message follows: a quadratic Bézier from P0 to P2 bent towards C.
type Path struct {
	P0, C, P2 Point
}

// At is the point at parameter t in [0,1].
func (p Path) At(t float64) Point {
	u := 1 - t
	return Point{
		u*u*p.P0.X + 2*u*t*p.C.X + t*t*p.P2.X,
		u*u*p.P0.Y + 2*u*t*p.C.Y + t*t*p.P2.Y,
	}
}

// Progress is how far along its path a message is at virtual time nowMs: 0 when sent,
// 1 on arrival. A message that takes no time is drawn as arrived.
func Progress(sentMs, arriveMs int64, nowMs float64) float64 {
	if arriveMs <= sentMs {
		return 1
	}
	return clamp((nowMs-float64(sentMs))/float64(arriveMs-sentMs), 0, 1)
}

// FlightPos is where message f is drawn at virtual time nowMs; false when an end of it
// is not on the canvas.
func (l *Layout) FlightPos(f play.Flight, nowMs float64) (Point, bool) {
	p, ok := l.flightPath(f)
	if !ok {
		return Point{}, false
	}
	return p.At(Progress(f.SentMs, f.ArriveMs, nowMs)), true
}

// Path is the route of a message from one node to another.
func (l *Layout) Path(from, to string) (Path, bool) {
	a, okA := l.Box(from)
	b, okB := l.Box(to)
	if !okA || !okB {
		return Path{}, false
	}
	if from == to { // a node talking to itself: a dot on its top-right corner
		p := Point{a.Rect.Right(), a.Rect.Y}
		return Path{p, p, p}, true
	}
	if a.Column == ColMiddle && b.Column == ColMiddle {
		return sideArc(a, b, from < to, l.M.HeaderH), true
	}
	return straight(a.Rect, b.Rect), true
}

// straight runs border to border between boxes in different columns, shifted into the
// lane of its direction.
func straight(a, b Rect) Path {
	p0 := borderPoint(a, b.Center())
	p2 := borderPoint(b, a.Center())
	dx, dy := p2.X-p0.X, p2.Y-p0.Y
	n := math.Hypot(dx, dy)
	if n == 0 {
		return Path{p0, p0, p2}
	}
	// The normal flips with the direction of travel, so each direction keeps to its
	// own side of the centre line.
	off := laneOffset / 2
	nx, ny := -dy/n*off, dx/n*off
	p0 = Point{p0.X + nx, p0.Y + ny}
	p2 = Point{p2.X + nx, p2.Y + ny}
	return Path{p0, Point{(p0.X + p2.X) / 2, (p0.Y + p2.Y) / 2}, p2}
}

// sideArc joins two boxes of the middle column around the outside of the stack, since
// a straight line would cross the brokers in between. Broker-to-broker replication
// bends to the right; controller traffic bends to the left, away from it.
func sideArc(a, b Box, forward bool, headerH float64) Path {
	left := a.Kind == "controller" || b.Kind == "controller"
	edge := func(bx Box) Point {
		y := bx.Rect.Y + math.Min(headerH/2, bx.Rect.H/2)
		if left {
			return Point{bx.Rect.X, y}
		}
		return Point{bx.Rect.Right(), y}
	}
	p0, p2 := edge(a), edge(b)
	bulge := 22 + 0.2*math.Abs(p2.Y-p0.Y)
	if forward {
		bulge += laneOffset * 2
	}
	cx := math.Max(p0.X, p2.X) + bulge
	if left {
		cx = math.Min(p0.X, p2.X) - bulge
	}
	return Path{p0, Point{cx, (p0.Y + p2.Y) / 2}, p2}
}
