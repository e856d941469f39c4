//go:build js

package main

import "time"

// perf measures the game's own cost per Update and per real Draw, so the page and the
// browser tests can see it without a profiler. Draws counts the frames actually painted:
// when paused it must stand still while ticks keep counting.
type perf struct {
	Draws       int64   `json:"draws"`
	UpdateUsAvg float64 `json:"updateUsAvg"`
	// UpdateUsMax is the longest Update since the scene was put on the canvas: learning a
	// long run's length goes a slice an Update, so that none is long.
	UpdateUsMax int64   `json:"updateUsMax"`
	DrawUsAvg   float64 `json:"drawUsAvg"`
	DrawUsMax   int64   `json:"drawUsMax"`
	// DrawUsTotal: every real Draw's time added up, so that a reader can average over
	// exactly the frames it watched (the running average still carries older frames).
	DrawUsTotal int64 `json:"drawUsTotal"`
	// StaticRepaint and LaneRepaints count the paintings of the static layer (boxes,
	// logs, rows: whenever a node changes) and of the lanes under it (only when a link
	// appears, is cut, or moves).
	StaticRepaint int64 `json:"staticRepaints"`
	LaneRepaints  int64 `json:"laneRepaints"`
}

// ewma weight: the average follows roughly the last 30 samples.
const perfAlpha = 1.0 / 30

func (p *perf) addUpdate(d time.Duration) {
	p.UpdateUsAvg += (float64(d.Microseconds()) - p.UpdateUsAvg) * perfAlpha
	p.UpdateUsMax = max(p.UpdateUsMax, d.Microseconds())
}

func (p *perf) addDraw(d time.Duration) {
	us := d.Microseconds()
	p.Draws++
	p.DrawUsAvg += (float64(us) - p.DrawUsAvg) * perfAlpha
	p.DrawUsMax = max(p.DrawUsMax, us)
	p.DrawUsTotal += us
}
