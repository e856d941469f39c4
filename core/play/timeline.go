package play

import (
	"cmp"
	"math"
	"strconv"

	"deliverylab/core/fate"
	"deliverylab/core/scene"
	"deliverylab/core/sim"
)

// maxMs is "no time limit" for forward: the run's own limit stops it.
const maxMs = math.MaxInt64

// Timeline is the whole run as the scrubber shows it: how long the run with the
// recorded faults lasts, and where its faults and captions are.
type Timeline struct {
	LengthMs int64  `json:"lengthMs"`
	Settled  bool   `json:"settled"` // the run ends because it settled (not at stop.ms or a limit)
	Marks    []Mark `json:"marks"`
	// Learning: the run's length is still being learned (Session.LearnFor), and LengthMs and
	// Marks are as far as the copy that learns it has got.
	Learning bool `json:"learning,omitempty"`
}

// Mark is one fault or caption on the scrubber.
type Mark struct {
	AtMs  int64  `json:"atMs"`
	Kind  string `json:"kind"`  // fault | caption | scene-fault
	Index int    `json:"index"` // into faultList, the narration index, or into sceneFaults
	Text  Text   `json:"text"`
}

// Branch tells the user that recorded faults were discarded: a fault injected before
// them started a new branch, or a changed run could not replay them.
type Branch struct {
	AtMs      int64 `json:"atMs"`
	Discarded int   `json:"discarded"`
	Text      Text  `json:"text"`
}

// forward runs the run to ms, applying the recorded faults that lie ahead at their
// points, and stops early right after an event that makes stop true (it reports that).
func (s *Session) forward(ms int64, stop func(*sim.World) bool) bool {
	for {
		s.applyDue(ms)
		if s.next >= len(s.injected) || s.injected[s.next].AtMs > ms {
			return s.run.AdvanceUntil(ms, stop)
		}
		f := s.injected[s.next]
		hit := false
		s.run.AdvanceUntil(f.AtMs, func(w *sim.World) bool {
			if stop != nil && stop(w) {
				hit = true
				return true
			}
			return f.AfterEvents >= 0 && w.EventsRun() >= f.AfterEvents
		})
		if hit {
			s.applyDue(ms)
			return true
		}
		// Its events have run or its time has come (or the run ended before: in the
		// recorded run too, the fault then came at the end).
		s.applyNext()
	}
}

// applyDue applies the recorded faults whose event count the run has reached, up to
// time limit.
func (s *Session) applyDue(limit int64) {
	for s.next < len(s.injected) {
		f := s.injected[s.next]
		if f.AfterEvents < 0 || s.run.World.EventsRun() < f.AfterEvents || f.AtMs > limit {
			return
		}
		s.applyNext()
	}
}

// applyNext applies the next recorded fault now. One replayed by time whose message is
// not on the wire in this run is dropped, and the user is told which.
func (s *Session) applyNext() {
	w := s.run.World
	f := &s.injected[s.next]
	w.AdvanceClock(f.AtMs)
	if f.AfterEvents < 0 {
		if isWireFault(f.Fault) && !inFlight(w, f.Fault.WireID) {
			s.dropUnreplayable(s.next)
			return
		}
		f.AfterEvents = w.EventsRun() // from now on this run replays it exactly
	}
	s.run.Ended = false // a fault may give the run more to do
	f.applyTo(w)
	s.next++
}

// isWireFault: the fault acts on one message in flight (drop, delay, duplicate).
func isWireFault(f sim.Fault) bool {
	return f.Kind == sim.FaultDrop || f.Kind == sim.FaultDelay || f.Kind == sim.FaultDuplicate
}

// dropUnreplayable removes fault i, which a changed run cannot replay; relearn tells
// the user which.
func (s *Session) dropUnreplayable(i int) {
	s.unreplayed = append(s.unreplayed, s.injected[i])
	s.injected = append(s.injected[:i:i], s.injected[i+1:]...)
	s.keys = nil // taken with the fault still in the list
}

// unreplayedNotice says which recorded faults a changed run dropped.
func unreplayedNotice(dropped []injected) *Branch {
	var list Text
	for i, f := range dropped {
		if i > 0 {
			list = list.then(say(fate.ListSep))
		}
		list = list.then(say(fate.UnreplayedOne, "fault", f.Fault.Describe(),
			"ms", strconv.FormatInt(f.AtMs, 10), "id", strconv.FormatInt(f.Fault.WireID, 10)))
	}
	return &Branch{AtMs: dropped[0].AtMs, Discarded: len(dropped),
		Text: sayAround(fate.Unreplayed, "faults", list, "count", strconv.Itoa(len(dropped)))}
}

// addInjected records a fault the user injects now and applies it. A fault injected
// before recorded faults (the user scrubbed back) starts a new branch: the later faults
// are discarded, and State.branch says so.
func (s *Session) addInjected(inj injected) {
	w := s.run.World
	inj.AfterEvents, inj.AtMs = w.EventsRun(), w.NowMs()
	if later := len(s.injected) - s.next; later > 0 {
		s.injected = s.injected[:s.next]
		s.branch = &Branch{AtMs: inj.AtMs, Discarded: later,
			Text: say(fate.Branched, "count", strconv.Itoa(later), "ms", strconv.FormatInt(inj.AtMs, 10))}
	}
	s.injected = append(s.injected, inj)
	s.next++
	s.run.Ended = false // a new fault may give the run more to do
	inj.applyTo(w)
	s.relearn()
	s.version++
}

// StepBack goes to the state after one event fewer: a re-run to that event count, with
// the recorded faults applied at their points.
func (s *Session) StepBack() error {
	target := s.run.World.EventsRun() - 1
	if target < 0 {
		return refuse(fate.StepBackStart)
	}
	s.playing, s.waiting = false, -1
	s.rewindTo(func(w *sim.World) bool { return w.EventsRun() <= target })
	if s.run.World.EventsRun() < target {
		s.forward(maxMs, func(w *sim.World) bool { return w.EventsRun() >= target })
	}
	s.applyDue(maxMs)
	s.version++
	return nil
}

// canStepBack reports whether there is an event to step back over.
func (s *Session) canStepBack() bool { return s.run.World.EventsRun() > 0 }

// pausingCaption is a stop condition for forward: a narration step with pause: true was
// just reached. It notes the caption the run now waits at.
func (s *Session) pausingCaption() func(*sim.World) bool {
	seen := len(s.run.World.Narrated())
	return func(w *sim.World) bool {
		n := w.Narrated()
		for ; seen < len(n); seen++ {
			if s.sc.Narration[n[seen].Index].Pause {
				s.waiting = n[seen].Index
				seen++
				return true
			}
		}
		return false
	}
}

// noteCaptions makes a pausing caption reached by a step wait for Continue, like one
// reached while playing.
func (s *Session) noteCaptions(before int) {
	n := s.run.World.Narrated()
	for i := before; i < len(n); i++ {
		if s.sc.Narration[n[i].Index].Pause {
			s.waiting, s.playing = n[i].Index, false
		}
	}
}

// Continue goes on after a caption that paused the run, and plays.
func (s *Session) Continue() {
	s.waiting, s.playing = -1, true
	s.version++
}

// learnSliceEvents is how many events relearn's copy runs before relearn returns, unless
// the session says otherwise (LearnAtOnce): every shipped scene is learned at once. A
// longer run (a teacher's scene that never settles runs to 2,000,000 events) is learned
// on by LearnFor; the page does that by its own clock, a part of each frame, so that it
// never stops answering while it learns.
const learnSliceEvents = 10_000

// relearn starts learning the timeline again: a copy of the run with the recorded faults
// runs to its end (the scrubber's length and marks), a slice now and the rest as LearnFor
// is called. A changed run (setting, seed) also fixes there the event counts of the
// faults it replays by time, so that seeks replay them exactly. Until it is learned, the
// keyframes of the run before are not this run's: none are kept.
func (s *Session) relearn() {
	s.startLearning()
	s.learn(cmp.Or(s.atOnce, learnSliceEvents))
}

// startLearning sets the copy that learns the timeline at 0 ms.
func (s *Session) startLearning() {
	cp := &Session{sc: s.sc, run: newRun(s.sc), injected: s.injected, waiting: -1, sampler: newChartSampler(chartStep(s.timeline.LengthMs))}
	cp.sampler.sample(cp.run)
	s.learner, s.keys = cp, nil
}

// Learning reports whether the timeline is still being learned: the front end then
// calls LearnFor once a frame.
func (s *Session) Learning() bool { return s.learner != nil }

// LearnFor runs the copy that learns the timeline on for up to events events, and
// reports whether it is still learning.
func (s *Session) LearnFor(events int64) bool {
	if s.learner != nil {
		s.learn(max(events, 1))
		s.version++
	}
	return s.learner != nil
}

// learn runs the learner on for up to budget events and takes what it learned: the
// whole timeline, its keyframes and chart once it reached the end, or the timeline so
// far.
func (s *Session) learn(budget int64) {
	cp := s.learner
	done := cp.runKeyedFor(budget)
	if !done {
		// The chart so far (the sampler's points are taken where they fall due, not where
		// a slice ends: a chart learned in slices is the one learned at once).
		s.chart = cp.sampler.chart
		s.chart.LengthMs = cp.run.World.NowMs()
		s.timeline = s.timelineOf(cp)
		s.timeline.Learning = true
		return
	}
	s.learner = nil
	cp.sampler.sample(cp.run)
	s.chart = cp.sampler.chart
	s.injected, s.keys = cp.injected, cp.keys
	if len(cp.unreplayed) > 0 {
		s.branch = unreplayedNotice(cp.unreplayed)
	}
	s.timeline = s.timelineOf(cp)
}

// timelineOf is the timeline as far as the learner has got.
func (s *Session) timelineOf(cp *Session) Timeline {
	t := Timeline{LengthMs: cp.run.World.NowMs(), Settled: cp.run.EndNote == scene.EndSettled, Marks: []Mark{}}
	for i, f := range cp.injected {
		t.Marks = append(t.Marks, Mark{AtMs: f.AtMs, Kind: "fault", Index: i, Text: f.Desc})
	}
	t.Marks = append(t.Marks, s.sceneFaultMarks(cp.run.World, t.LengthMs)...)
	for _, n := range cp.run.World.Narrated() {
		t.Marks = append(t.Marks, Mark{AtMs: n.AtMs, Kind: "caption", Index: n.Index, Text: Text(s.sc.Narration[n.Index].Text)})
	}
	return t
}

// timelineState fills in the State fields about the timeline and the recorded faults.
func (s *Session) timelineState(st *State) {
	st.EventsRun, st.CanStepBack = s.run.World.EventsRun(), s.canStepBack()
	st.Timeline, st.Branch, st.WaitingCaption = s.timeline, s.branch, s.waiting
	st.Settings = s.settings()
	st.Source = s.source.state()
	st.Seed = s.sc.Seed
}
