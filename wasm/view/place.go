package view

// PlaceLabel finds where a flight's label of size w×h may go near the dot at pos: to
// its right, its left, above or below, on the wire and not over any box (node names,
// header lines and partition rows stay readable). ok=false: no place is free, so the
// label is left out. Nor does it cover the labels already placed (taken).
func (l *Layout) PlaceLabel(pos Point, w, h float64, taken []Rect) (Rect, bool) {
	gap := FlightRadius + 2
	tries := []Rect{
		{pos.X + gap, pos.Y - h/2, w, h},
		{pos.X - gap - w, pos.Y - h/2, w, h},
		{pos.X - w/2, pos.Y - gap - h, w, h},
		{pos.X - w/2, pos.Y + gap, w, h},
		{pos.X + gap, pos.Y - gap - h, w, h},
		{pos.X + gap, pos.Y + gap, w, h},
		{pos.X - gap - w, pos.Y - gap - h, w, h},
		{pos.X - gap - w, pos.Y + gap, w, h},
	}
	top := l.M.TopBarH
	for _, r := range tries {
		if r.X < 0 || r.Y < top || r.Right() > l.Width || r.Bottom() > l.Height {
			continue
		}
		free := true
		for _, b := range l.Boxes {
			if b.Rect.Intersects(r) {
				free = false
				break
			}
		}
		for _, o := range taken {
			if o.Intersects(r) {
				free = false
			}
		}
		if free {
			return r, true
		}
	}
	return Rect{}, false
}
