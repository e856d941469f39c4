package play

import (
	"fmt"
	"strconv"

	"deliverylab/core/fate"
	"deliverylab/core/scene"
	"deliverylab/core/sim"
	"deliverylab/scenes"
)

// Session is one scene being watched in the playground.
type Session struct {
	sc      *scene.Scene
	source  sceneSource
	run     *scene.Run
	playing bool
	// injected are the faults the user recorded, in order; the first next of them are
	// applied to run, the rest lie ahead of it (the user scrubbed back) and are replayed
	// when time reaches them again.
	injected []injected
	next     int
	version  uint64
	branch   *Branch
	waiting  int // narration index of the pausing caption the run waits at, or -1
	timeline Timeline
	// chart: every partition's offsets over the run (chart.go), from the last relearn;
	// sampler is set on the copy that relearn runs, nil on a session itself.
	chart   Chart
	sampler *chartSampler
	// unreplayed are recorded faults a changed run could not replay (relearn's copy
	// collects them).
	unreplayed []injected
	// keys are keyframes of the run with the recorded faults (relearn's copy takes them,
	// keyEvery events apart: runKeyedFor).
	keys     []keyframe
	keyEvery int64
	// learner is the copy of the run relearn runs to its end, a slice at a time (LearnFor),
	// while it is not there yet; nil once the timeline is learned. atOnce is how many
	// events relearn learns before it returns (0: learnSliceEvents; LearnAtOnce).
	learner *Session
	atOnce  int64
}

// Option changes how a session is made (LoadSource).
type Option func(*Session)

// LearnAtOnce sets how many events of the run relearn learns before it returns, at load
// and after every change; the rest is learned a slice at a time (LearnFor). The page
// loads a teacher's scene, which may run to the event limit, this way, and learns the
// rest by its own clock.
func LearnAtOnce(events int64) Option { return func(s *Session) { s.atOnce = max(events, 1) } }

// injected is a fault the user added, with where it happened.
type injected struct {
	// AfterEvents is the world's event count when it was injected; -1 while it is to be
	// replayed by time (AtMs) in a run the user changed (a setting, the seed).
	AfterEvents int64
	AtMs        int64
	Text        string
	Fault       sim.Fault
	// Armed: a `when:` fault, armed at AtMs (When, tagged Tag in the world's triggers)
	// and happening at its protocol point.
	Armed bool
	When  *sim.Trigger
	Tag   string
	Desc  Text // what it did or hit, said when it was made
	// Wire: the message a fault on a message hit, by what it is (twin.go).
	Wire *WireMatch
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
		return nil, refuse(fate.NoScene, "name", fmt.Sprintf("%q", name))
	}
	s, err := LoadSource(name+".yaml", data)
	if err != nil {
		return nil, err
	}
	s.source.Shipped = true
	return s, nil
}

// LoadSource starts a session on a scene file's text.
func LoadSource(file string, data []byte, opts ...Option) (*Session, error) {
	s, err := newSession(file, data, opts...)
	if err != nil {
		return nil, err
	}
	s.restart()
	return s, nil
}

// newSession is a session on a scene file's text, not started yet: its run and timeline
// come with restart (a link sets its faults and settings first, and learns once).
func newSession(file string, data []byte, opts ...Option) (*Session, error) {
	sc, err := scene.Parse(file, data)
	if err != nil {
		return nil, err
	}
	s := &Session{sc: tagSceneFaults(sc), source: sceneSource{File: file, Data: data, Seed: sc.Seed, base: sc.Settings()}, waiting: -1}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// restart builds a fresh run of the scene at 0 ms and learns the timeline again.
func (s *Session) restart() {
	s.run, s.next, s.playing, s.waiting = newRun(s.sc), 0, false, -1
	s.run.AdvanceTo(0) // the nodes boot at 0 ms: show them up from the first frame
	s.relearn()
	s.version++
}

// Play lets time run when the front end calls Advance.
func (s *Session) Play() { s.playing, s.waiting = true, -1; s.version++ }

// Pause stops time.
func (s *Session) Pause() { s.playing = false; s.version++ }

// Version changes whenever anything visible changes.
func (s *Session) Version() uint64 { return s.version }

// NowMs is the virtual time.
func (s *Session) NowMs() int64 { return s.run.World.NowMs() }

// Advance runs virtual time forward by ms, stopping at a caption that pauses the run.
func (s *Session) Advance(ms int64) {
	if s.run.Ended || ms <= 0 || s.waiting >= 0 {
		return
	}
	s.forward(s.run.World.NowMs()+ms, s.pausingCaption())
	s.afterPlay()
}

// FastForward runs up to ms of virtual time while only background traffic is on the
// wire (heartbeats, empty long polls, metadata), and stops at once when a message worth
// watching is sent, so the front end can hurry through timeouts without skipping it.
func (s *Session) FastForward(ms int64) {
	if s.run.Ended || ms <= 0 || s.waiting >= 0 {
		return
	}
	caption := s.pausingCaption()
	s.forward(s.run.World.NowMs()+ms, func(w *sim.World) bool { return caption(w) || !w.Quiet() })
	s.afterPlay()
}

func (s *Session) afterPlay() {
	s.version++
	if s.run.Ended || s.waiting >= 0 {
		s.playing = false
	}
}

// Step runs exactly one event; it returns false once the run has ended.
func (s *Session) Step() bool {
	s.applyDue(maxMs)
	before := len(s.run.World.Narrated())
	ok := s.run.Step()
	s.applyDue(s.run.World.NowMs())
	s.noteCaptions(before)
	s.version++
	return ok
}

// RunToEnd runs until the run settles or reaches its limit; captions do not stop it.
func (s *Session) RunToEnd() {
	s.jumpToKeyframe(func(*sim.World) bool { return true }) // the end's, once learned
	s.forward(maxMs, nil)
	s.playing, s.waiting = false, -1
	s.version++
}

// SeekTo moves to virtual time ms. Going back rebuilds the run and replays it with the
// user's faults; the faults after ms are kept and happen again as time passes them.
func (s *Session) SeekTo(ms int64) error {
	if ms < 0 {
		return refuse(fate.SeekNegative, "ms", strconv.FormatInt(ms, 10))
	}
	fits := func(w *sim.World) bool { return w.NowMs() <= ms }
	if ms < s.run.World.NowMs() {
		s.rewindTo(fits)
	} else {
		s.jumpToKeyframe(fits)
	}
	s.waiting = -1
	if s.run.World.NowMs() < ms || s.run.World.EventsRun() == 0 {
		s.forward(ms, nil)
	}
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
