package play

import (
	"slices"

	"deliverylab/core/diagram"
	"deliverylab/core/scene"
	"deliverylab/core/sim"
)

// Diagram draws the run so far as a space-time diagram (SVG, core/diagram): the arrows of
// highlight's message ("p1#5", or "") stand out.
func (s *Session) Diagram(highlight string) []byte {
	in := DiagramInput(s.sc, s.replayed(func(w *sim.World) { w.KeepWire() }))
	in.Highlight = highlight
	return diagram.SVG(in)
}

// WholeDiagram draws the whole run, from its start to its end with the recorded faults,
// whatever moment the session stands at: the page's diagram view, on which it marks that
// moment itself. background draws the background traffic too.
func (s *Session) WholeDiagram(highlight string, background bool) []byte {
	cp := &Session{sc: s.sc, run: newRun(s.sc), injected: slices.Clone(s.injected), waiting: -1}
	cp.run.World.KeepWire()
	cp.run.AdvanceTo(0)
	cp.forward(maxMs, nil)
	cp.applyDue(maxMs)
	in := DiagramInput(s.sc, cp.run)
	in.Highlight, in.ShowBackground = highlight, background
	return diagram.SVG(in)
}

// replayed is the run so far played again from the start, with prepare's records kept
// (every message for a diagram, the whole trace for an export), to exactly where the
// session stands: the same scene, seed and faults give the same run. The session's own run
// keeps no such records (a long run's would fill the tab) and is left as it was.
func (s *Session) replayed(prepare func(*sim.World)) *scene.Run {
	events, now := s.run.World.EventsRun(), s.run.World.NowMs()
	saved, savedNext := s.run, s.next
	s.run, s.next = newRun(s.sc), 0
	prepare(s.run.World)
	s.run.AdvanceTo(0)
	if s.run.World.EventsRun() < events {
		s.forward(now, func(w *sim.World) bool { return w.EventsRun() >= events })
	}
	replay := s.run
	s.run, s.next = saved, savedNext
	return replay
}

// DiagramInput is what a diagram of the run shows: every node, every message the run's
// world logged (World.KeepWire), each node's time down.
func DiagramInput(sc *scene.Scene, r *scene.Run) diagram.Input {
	w := r.World
	in := diagram.Input{Title: sc.Title.En, Nodes: w.NodeNames(), EndMs: w.NowMs()}
	for _, m := range w.Wire() {
		a := diagram.Arrow{From: sim.NodeOf(m.From), To: sim.NodeOf(m.To), SentMs: m.SentMs, EndMs: m.EndMs, Kind: m.Payload.Kind(),
			Family: sim.FamilyOf(m.Payload).String(), Background: sim.IsBackground(m.Payload)}
		if l, ok := m.Payload.(sim.Labeled); ok {
			a.Label = l.Label()
		}
		switch m.End {
		case sim.WireInFlight:
			a.EndMs = w.NowMs() // still on the wire: drawn to where it is now
			a.Ended = m.End.String()
		case sim.WireReceived:
		default:
			a.Lost, a.Ended = true, m.End.String()
		}
		in.Arrows = append(in.Arrows, a)
	}
	down := map[string]int64{}
	for _, o := range w.Observations().All() {
		switch o.Event {
		case sim.Crashed:
			down[o.Node] = o.AtMs
		case sim.Restarted:
			if from, ok := down[o.Node]; ok {
				in.Spans = append(in.Spans, diagram.Span{Node: o.Node, FromMs: from, ToMs: o.AtMs, What: "down"})
				delete(down, o.Node)
			}
		}
	}
	for _, n := range in.Nodes { // down to the end, in the nodes' order
		if from, ok := down[n]; ok {
			in.Spans = append(in.Spans, diagram.Span{Node: n, FromMs: from, ToMs: w.NowMs(), What: "down"})
		}
	}
	return in
}
