//go:build js

package main

import (
	"deliverylab/core/play"
	"deliverylab/wasm/view"
)

// bridgeState is what state() hands the page: the session's State, each node's and each
// message's place on the canvas (CSS pixels, canvas origin; the page adds its own offset
// for page coordinates), and the game's own counters.
type bridgeState struct {
	play.State
	Nodes    []nodeView   `json:"nodes"`
	InFlight []flightView `json:"inFlight"`

	Loaded    bool      `json:"loaded"`
	View      uint64    `json:"view"`   // the game's version: bumps on any change the page shows
	Ticks     int64     `json:"ticks"`  // Update calls so far
	Asleep    bool      `json:"asleep"` // the frame loop sleeps until input or a command
	Speed     float64   `json:"speed"`
	Canvas    view.Rect `json:"canvas"`
	Hover     hoverView `json:"hover"`
	LastError notice    `json:"lastError"`
	LastClick click     `json:"lastClick"`
	Perf      perf      `json:"perf"`

	// The canvas's own: the smallest text size the last Draw drew (CSS px) and how many
	// texts it had to cut; its language and mode; the lanes drawn; the highlight.
	LabelFontPx float64        `json:"labelFontPx"`
	Truncated   int            `json:"truncated"`
	Projector   bool           `json:"projector"`
	Lang        view.Lang      `json:"lang"`
	Links       []view.Lane    `json:"links"`
	Highlight   view.Highlight `json:"highlight"`
}

type nodeView struct {
	play.NodeState
	Rect view.Rect `json:"rect"`
	// PartRects: a Flink job's parts (the job manager and the subtasks) by name, in
	// canvas CSS pixels like rect.
	PartRects map[string]view.Rect `json:"partRects,omitempty"`
}

type flightView struct {
	play.Flight
	Pos      view.Point `json:"pos"`
	OnCanvas bool       `json:"onCanvas"`
}

type hoverView struct {
	Node   string     `json:"node,omitempty"`
	Flight int64      `json:"flight,omitempty"`
	Link   *play.Link `json:"link,omitempty"` // the lane under the pointer
}

// snapshot builds the bridge state. Called with g.mu held.
func (g *Game) snapshot() bridgeState {
	b := bridgeState{
		State: g.st, Loaded: g.sess != nil, View: g.view, Ticks: g.ticks, Asleep: g.asleep, Speed: g.speed, LastClick: g.lastClick,
		Canvas: view.Rect{W: g.widthCSS, H: g.heightCSS}, LastError: g.notice, Perf: g.perf,
		Nodes: make([]nodeView, len(g.st.Nodes)), InFlight: make([]flightView, len(g.st.InFlight)),
		LabelFontPx: g.textStats.MinPx, Truncated: g.textStats.Cut, Projector: g.projector, Lang: g.lang,
		Links: g.lanes, Highlight: g.highlight,
	}
	if b.Links == nil {
		b.Links = []view.Lane{}
	}
	if b.Highlight.Nodes == nil {
		b.Highlight.Nodes = []string{}
	}
	if g.hover.Flight {
		b.Hover.Flight = g.hover.FlightID
	}
	b.Hover.Node = g.hover.Node
	if g.hover.Link {
		b.Hover.Link = &play.Link{From: g.hover.From, To: g.hover.To}
	}
	for i, n := range g.st.Nodes {
		b.Nodes[i].NodeState = n
		if g.layout != nil {
			if box, ok := g.layout.Box(n.Name); ok {
				b.Nodes[i].Rect = box.Rect
				for _, p := range box.Parts {
					if b.Nodes[i].PartRects == nil {
						b.Nodes[i].PartRects = map[string]view.Rect{}
					}
					b.Nodes[i].PartRects[p.Name] = p.Rect
				}
			}
		}
	}
	for i, f := range g.st.InFlight {
		b.InFlight[i].Flight = f
		if g.layout != nil {
			b.InFlight[i].Pos, b.InFlight[i].OnCanvas = g.layout.FlightPos(f, g.drawNowMs())
		}
	}
	return b
}
