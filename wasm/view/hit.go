package view

import (
	"encoding/json"
	"strings"

	"deliverylab/core/play"
)

// FlightRadius is the radius of a message dot; a click within FlightHitRadius of its
// centre hits it (a little slack, as a moving dot is hard to catch).
const (
	FlightRadius    = 6.0
	FlightHitRadius = FlightRadius + 5
)

// Hit is what lies under a point: an in-flight message, a node, a link's lane, or
// nothing.
type Hit struct {
	Node     string // set when a node was hit
	Flight   bool   // a message was hit
	FlightID int64
	Link     bool // one direction of a link was hit: From -> To
	From, To string
	Cut      bool // that direction is cut
}

// None reports whether nothing was hit.
func (h Hit) None() bool { return !h.Flight && h.Node == "" && !h.Link }

// HitTest finds what is under p when the picture shows virtual time nowMs. Messages are
// drawn over boxes, so they win; among messages the nearest wins, and on a tie the one
// drawn last (the newest). Then boxes, then the nearest lane within LinkHitRadius.
func (l *Layout) HitTest(p Point, flights []play.Flight, nowMs float64, lanes []Lane) Hit {
	best, bestD := -1, FlightHitRadius
	for i, f := range flights {
		pos, ok := l.FlightPos(f, nowMs)
		if !ok {
			continue
		}
		if d := Dist(p, pos); d <= bestD {
			best, bestD = i, d
		}
	}
	if best >= 0 {
		return Hit{Flight: true, FlightID: flights[best].ID}
	}
	for _, b := range l.Boxes {
		if b.Rect.Contains(p) {
			// A job's subtask is a part of its own ("totals/map-0"); its job manager
			// and its frame are the job.
			for _, pt := range b.Parts {
				if pt.Rect.Contains(p) && !pt.Manager {
					return Hit{Node: b.Name + "/" + pt.Name}
				}
			}
			return Hit{Node: b.Name}
		}
	}
	lane, laneD := -1, LinkHitRadius
	for i, ln := range lanes {
		if d := ln.Dist(p); d <= laneD {
			lane, laneD = i, d
		}
	}
	if lane >= 0 {
		ln := lanes[lane]
		return Hit{Link: true, From: ln.From, To: ln.To, Cut: ln.Cut}
	}
	return Hit{}
}

// Fault is the fault a click on h injects, in the scene file's syntax: a broker or a
// Flink job that is up crashes, a crashed one restarts, a job's running subtask crashes
// (a task failure: its region fails over), a message in flight is dropped, a lane is
// cut one way or, when cut, healed. Other nodes are not clickable (ok=false).
func (l *Layout) Fault(h Hit) (fault string, ok bool) {
	var v any
	switch {
	case h.Link && h.Cut:
		v = map[string][2]string{"heal-oneway": {h.From, h.To}}
	case h.Link:
		v = map[string][2]string{"cut-oneway": {h.From, h.To}}
	case h.Flight:
		v = struct {
			Drop string `json:"drop"`
			ID   int64  `json:"id"`
		}{"message", h.FlightID}
	case strings.Contains(h.Node, "/"):
		node, part, _ := strings.Cut(h.Node, "/")
		p, found := l.Part(node, part)
		if !found || !p.Up || p.Manager {
			return "", false
		}
		v = map[string]string{"crash": h.Node}
	case h.Node != "":
		b, found := l.Box(h.Node)
		if !found || (b.Kind != "broker" && b.Kind != "job") {
			return "", false
		}
		if b.Up {
			v = map[string]string{"crash": b.Name}
		} else {
			v = map[string]string{"restart": b.Name}
		}
	default:
		return "", false
	}
	out, err := json.Marshal(v)
	if err != nil {
		return "", false
	}
	return string(out), true
}
