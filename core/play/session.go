package play

import (
	"fmt"

	"deliverylab/core/scene"
	"deliverylab/core/sim"
	"deliverylab/scenes"
)

// Session is one scene being watched in the playground.
type Session struct {
	sc       *scene.Scene
	run      *scene.Run
	playing  bool
	injected []injected
	version  uint64
}

// injected is a fault the user added, with where it happened.
type injected struct {
	AfterEvents int64 // the world's event count when it was injected
	AtMs        int64
	Text        string
	Fault       sim.Fault
	// Armed: a `when:` fault, armed at AtMs (When, tagged Tag in the world's triggers)
	// and happening at its protocol point.
	Armed bool
	When  *sim.Trigger
	Tag   string
	Desc  Text // what it did or hit, said when it was made
}

// Scenes lists the shipped scenes in display order.
func Scenes() []SceneInfo {
	var out []SceneInfo
	for _, name := range scenes.Names() {
		data, err := scenes.Read(name)
		if err != nil {
			continue
		}
		sc, err := scene.Parse(name+".yaml", data)
		if err != nil {
			continue // a broken shipped scene is caught by the scene tests
		}
		out = append(out, SceneInfo{Name: name, Title: Text(sc.Title), Summary: Text(sc.Summary)})
	}
	return out
}

// Load starts a session on a shipped scene.
func Load(name string) (*Session, error) {
	data, err := scenes.Read(name)
	if err != nil {
		return nil, fmt.Errorf("no scene named %q", name)
	}
	return LoadSource(name+".yaml", data)
}

// LoadSource starts a session on a scene file's text.
func LoadSource(file string, data []byte) (*Session, error) {
	sc, err := scene.Parse(file, data)
	if err != nil {
		return nil, err
	}
	s := &Session{sc: sc, run: newRun(sc), version: 1}
	s.run.AdvanceTo(0) // the nodes boot at 0 ms: show them up from the first frame
	return s, nil
}

// Play lets time run when the front end calls Advance.
func (s *Session) Play() { s.playing = true; s.version++ }

// Pause stops time.
func (s *Session) Pause() { s.playing = false; s.version++ }

// Version changes whenever anything visible changes.
func (s *Session) Version() uint64 { return s.version }

// NowMs is the virtual time.
func (s *Session) NowMs() int64 { return s.run.World.NowMs() }

// Advance runs virtual time forward by ms.
func (s *Session) Advance(ms int64) {
	if s.run.Ended || ms <= 0 {
		return
	}
	s.run.AdvanceTo(s.run.World.NowMs() + ms)
	s.version++
	if s.run.Ended {
		s.playing = false
	}
}

// FastForward runs up to ms of virtual time while only background traffic is on the
// wire (heartbeats, empty long polls, metadata), and stops at once when a message worth
// watching is sent, so the front end can hurry through timeouts without skipping it.
func (s *Session) FastForward(ms int64) {
	if s.run.Ended || ms <= 0 {
		return
	}
	s.run.AdvanceUntil(s.run.World.NowMs()+ms, func(w *sim.World) bool { return !w.Quiet() })
	s.version++
	if s.run.Ended {
		s.playing = false
	}
}

// Step runs exactly one event; it returns false once the run has ended.
func (s *Session) Step() bool {
	ok := s.run.Step()
	s.version++
	return ok
}

// RunToEnd runs until the run settles or reaches its limit.
func (s *Session) RunToEnd() {
	s.run.ToEnd()
	s.playing = false
	s.version++
}

// SeekTo rebuilds the run and replays it, with the user's faults, up to virtual time ms.
func (s *Session) SeekTo(ms int64) error {
	if ms < 0 {
		return fmt.Errorf("seek: expected a time of 0 ms or more, got %d", ms)
	}
	run := newRun(s.sc)
	var kept []injected
	for _, f := range s.injected {
		if f.AtMs > ms {
			break // faults after the target are forgotten: the user rewound past them
		}
		for run.World.EventsRun() < f.AfterEvents && run.World.NextEventMs() >= 0 {
			run.World.Step()
		}
		run.World.AdvanceClock(f.AtMs)
		run.Ended = false
		f.applyTo(run.World)
		kept = append(kept, f)
	}
	if run.World.NowMs() < ms {
		run.AdvanceTo(ms)
	}
	s.run, s.injected = run, kept
	s.version++
	return nil
}

// newRun builds a run of the scene whose trace keeps only its tail: the page shows the
// last traceTail lines, and a long run's whole text would fill the tab's memory.
func newRun(sc *scene.Scene) *scene.Run {
	r := sc.NewRun()
	r.World.Trace().Tail = traceTail
	return r
}
