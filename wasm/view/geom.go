package view

import "math"

// Point is a position on the canvas in CSS pixels.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// Rect is an axis-aligned rectangle in CSS pixels; its JSON form is what the JS bridge
// hands to the page and to browser tests.
type Rect struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// Contains reports whether p lies inside r (edges included, so a click on a border counts).
func (r Rect) Contains(p Point) bool {
	return p.X >= r.X && p.X <= r.X+r.W && p.Y >= r.Y && p.Y <= r.Y+r.H
}

// Center is the middle of r.
func (r Rect) Center() Point {
	return Point{r.X + r.W/2, r.Y + r.H/2}
}

// Right is the x of r's right edge.
func (r Rect) Right() float64 { return r.X + r.W }

// Bottom is the y of r's bottom edge.
func (r Rect) Bottom() float64 { return r.Y + r.H }

// Intersects reports whether r and o overlap with a positive area.
func (r Rect) Intersects(o Rect) bool {
	return r.X < o.Right() && o.X < r.Right() && r.Y < o.Bottom() && o.Y < r.Bottom()
}

// Dist is the Euclidean distance between two points.
func Dist(a, b Point) float64 {
	return math.Hypot(a.X-b.X, a.Y-b.Y)
}

// borderPoint is where the ray from r's centre towards target leaves r. Messages start
// and end on box borders so they never travel hidden under a box.
func borderPoint(r Rect, target Point) Point {
	c := r.Center()
	dx, dy := target.X-c.X, target.Y-c.Y
	if dx == 0 && dy == 0 {
		return c
	}
	t := math.Inf(1)
	if dx != 0 {
		t = math.Min(t, (r.W/2)/math.Abs(dx))
	}
	if dy != 0 {
		t = math.Min(t, (r.H/2)/math.Abs(dy))
	}
	if t > 1 {
		t = 1 // target inside r: stop at the target
	}
	return Point{c.X + dx*t, c.Y + dy*t}
}

func clamp(v, lo, hi float64) float64 {
	return math.Max(lo, math.Min(hi, v))
}
