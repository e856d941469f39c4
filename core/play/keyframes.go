package play

import (
	"deliverylab/core/scene"
	"deliverylab/core/sim"
)

// keyframe is the run as it stood at one point of the timeline, kept so that a seek or a
// step back starts from the nearest keyframe before its target instead of from 0 ms (a
// seek to the end of the busiest shipped scene ran 5,894 events again each time).
// relearn, which runs a copy of the run to its end anyway, takes them.
type keyframe struct {
	run  *scene.Run // never run on: a seek runs a clone of it
	next int        // the recorded faults applied by then
}

// Keyframes come every keyframeEvery events; past maxKeyframes every other one is let go
// and the interval doubles, so a long run keeps at most maxKeyframes of them and a seek
// runs at most about 2*len/maxKeyframes events. (A keyframe of the busiest shipped scene
// holds about 250 KB: 16 of them, 4 MB.)
const (
	keyframeEvery = 256
	maxKeyframes  = 16
)

// runKeyedFor runs on towards the end of the run for up to budget events, as
// forward(maxMs, nil) then applyDue(maxMs) do, taking a keyframe every so many events
// and one at the end, and reports whether it got there. Run in slices it takes the
// same keyframes as in one go: a slice that stops between two resumes where it stopped.
// A keyframe is the state a step back to its event count gives (StepBack), so both seeks
// and steps back may start from it.
func (s *Session) runKeyedFor(budget int64) bool {
	if s.keyEvery == 0 {
		s.keyEvery = keyframeEvery
	}
	stopAt := s.run.World.EventsRun() + budget
	for s.run.World.EventsRun() < stopAt {
		target := (s.run.World.EventsRun()/s.keyEvery + 1) * s.keyEvery
		stop := min(target, stopAt)
		if !s.forward(maxMs, func(w *sim.World) bool {
			if s.sampler != nil && s.sampler.due(w) {
				s.sampler.sample(s.run)
			}
			return w.EventsRun() >= stop
		}) {
			s.endKeyed()
			return true
		}
		if s.run.World.EventsRun() < target {
			break // the slice ran out between two keyframes
		}
		s.applyDue(maxMs)
		s.keys = append(s.keys, keyframe{run: s.run.Clone(), next: s.next})
		if len(s.keys) > maxKeyframes {
			kept := s.keys[:0]
			for i := 1; i < len(s.keys); i += 2 { // those at multiples of twice the interval
				kept = append(kept, s.keys[i])
			}
			clear(s.keys[len(kept):])
			s.keys, s.keyEvery = kept, 2*s.keyEvery
		}
	}
	return false
}

// endKeyed applies the faults left and takes the keyframe at the end, where Run to end
// and a drag to the scrubber's end go.
func (s *Session) endKeyed() {
	s.applyDue(maxMs)
	if n := len(s.keys); n == 0 || s.keys[n-1].run.World.EventsRun() < s.run.World.EventsRun() {
		s.keys = append(s.keys, keyframe{run: s.run.Clone(), next: s.next})
	}
}

// rewindTo starts the run again from the latest keyframe that fits (at or before the
// target), or from 0 ms when none does.
func (s *Session) rewindTo(fits func(*sim.World) bool) {
	for i := len(s.keys) - 1; i >= 0; i-- {
		if k := s.keys[i]; fits(k.run.World) {
			s.run, s.next = k.run.Clone(), k.next
			return
		}
	}
	s.run, s.next = newRun(s.sc), 0
}

// jumpToKeyframe moves the run to the latest keyframe that fits (at or before the
// target), if it is ahead of where the run stands.
func (s *Session) jumpToKeyframe(fits func(*sim.World) bool) {
	for i := len(s.keys) - 1; i >= 0; i-- {
		k := s.keys[i]
		w := k.run.World
		if w.EventsRun() <= s.run.World.EventsRun() {
			return
		}
		if fits(w) {
			s.run, s.next = k.run.Clone(), k.next
			return
		}
	}
}
