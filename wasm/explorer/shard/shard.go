// Package shard is one Web Worker's share of the page's "Find a failure" search: the
// worker (wasm/explorer) runs a Search a schedule at a time and posts its progress and
// findings; the page (web/explore.js) starts a worker per core and merges what they find.
//
// A search of one fault at a time (explore.depth 1, the default) is split by fault: the
// explore block's concrete faults are dealt round-robin to the shares, each share runs
// core/explore over its faults at every protocol point, and together they try exactly the
// schedules one search tries. Each share keeps the first finding of each kind in the
// search's own order (points first, then faults), and Finding.Order places a finding in
// the order of the whole search, so that the page, keeping the least Order of each kind,
// shows what one search would: the counterexamples `deliverylab explore` prints. A deeper
// search (pairs, triples) is not split: its schedules combine faults of every share, so
// share 0 runs all of it and the others have nothing to do.
//
// Pure Go, tested natively: the worker's syscall/js glue is all in wasm/explorer.
package shard

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"deliverylab/core/explore"
	"deliverylab/core/play"
	"deliverylab/core/scene"
	"deliverylab/core/sim"
)

// Job is what the page hands one worker: the scene as the page plays it, and which share
// of the search is this worker's.
type Job struct {
	File    string      `json:"file"`    // the scene file's name ("acks-1-lost.yaml")
	Text    string      `json:"text"`    // its text
	Changes [][2]string `json:"changes"` // the page's setting changes (key, value), in order
	Seed    *int64      `json:"seed"`    // the page's seed; nil: the file's
	Shard   int         `json:"shard"`   // this worker's share, 0 ≤ Shard < Shards
	Shards  int         `json:"shards"`
}

// Progress is what a share has done so far.
type Progress struct {
	Shard     int    `json:"shard"`
	Scene     string `json:"scene"`
	Claim     string `json:"claim"` // the verdict the scene claims
	Depth     int    `json:"depth"`
	Points    int    `json:"points"`    // protocol points of the run without faults
	Faults    int    `json:"faults"`    // this share's concrete faults
	AllFaults int    `json:"allFaults"` // the explore block's
	Schedules int    `json:"schedules"` // run
	Pruned    int    `json:"pruned"`    // not run: the fault could not act there
	Found     int    `json:"found"`     // schedules that lost, duplicated or broke an invariant
	Done      bool   `json:"done"`
	Exhausted bool   `json:"exhausted"` // every schedule was tried (not stopped by the budget)
}

// Finding is a counterexample as the page shows, loads, shares and saves it.
type Finding struct {
	Kind      string         `json:"kind"` // its verdict, or "invariant": one of each is kept
	Verdict   string         `json:"verdict"`
	Breaks    bool           `json:"breaksClaim"` // it breaks the scene's claim; else the claim admits it
	Invariant string         `json:"invariant,omitempty"`
	Messages  map[string]int `json:"messages"` // the ledger's counts: sent, lost, duplicated, ...
	Faults    []play.Text    `json:"faults"`   // each fault of the schedule in words
	Syntax    []string       `json:"syntax"`   // each as the scene file writes it
	// Scene is the scene file with these faults instead of its own (Found), File its name:
	// ready to load, share and save.
	Scene string `json:"scene"`
	File  string `json:"file"`
	// Order places it in the order of the whole search: its fault count, then its
	// protocol point's place in the run and its fault's in the explore block (a split
	// search), or its schedule's number (one that is not split). Of each kind the page
	// keeps the least.
	Order [3]int `json:"order"`
}

// Search is a share under way.
type Search struct {
	job      Job
	src      []byte
	sc       *scene.Scene
	x        *explore.Search // nil: nothing to do in this share
	progress Progress
	// faults are this share's faults with their places in the explore block; obs is the
	// run without faults, whose observations order the protocol points (a split search).
	faults []placed
	obs    []sim.Observation
	sent   int // findings handed out by NewFindings
}

type placed struct {
	index int
	fault sim.Fault
	wire  string
}

// Start reads the job's scene (its settings and seed as the page has them) and sets up
// this share of its search. A scene that does not parse gives the parser's error.
func Start(j Job) (*Search, error) {
	if j.Shards < 1 || j.Shard < 0 || j.Shard >= j.Shards {
		return nil, fmt.Errorf("share %d of %d: expected 0 ≤ share < shares", j.Shard, j.Shards)
	}
	src := []byte(j.Text)
	sc, err := scene.WithSettings(j.File, src, j.Changes)
	if err != nil {
		return nil, err
	}
	if j.Seed != nil {
		sc.Seed = *j.Seed
	}
	s := &Search{job: j, src: src, sc: sc}
	e := sc.Explore
	if e == nil {
		e = explore.Defaults(sc)
	}
	shards := j.Shards
	if e.Depth > 1 {
		shards = 1 // a schedule of several faults draws them from every share
	}
	var all []placed
	for _, ef := range e.Faults {
		for _, f := range ef.Faults {
			all = append(all, placed{index: len(all), fault: f, wire: ef.Wire})
		}
	}
	part := &scene.Explore{Depth: e.Depth, Budget: (e.Budget + shards - 1) / shards}
	for _, p := range all {
		if j.Shard < shards && p.index%shards == j.Shard {
			s.faults = append(s.faults, p)
			part.Faults = append(part.Faults, scene.ExploreFault{Text: p.fault.Describe(), Faults: []sim.Fault{p.fault}, Wire: p.wire})
		}
	}
	s.progress = Progress{Shard: j.Shard, Scene: sc.Name, Depth: e.Depth, Faults: len(s.faults), AllFaults: len(all)}
	if len(s.faults) == 0 {
		s.progress.Done, s.progress.Exhausted = true, true
		return s, nil
	}
	searched := *sc
	searched.Explore = part
	s.x = explore.New(&searched, explore.Options{})
	if shards > 1 {
		base := *sc
		base.Faults = nil
		r := base.NewRun()
		r.ToEnd()
		s.obs = r.World.Observations()
	}
	s.update()
	return s, nil
}

// Step runs the share's next schedule; it returns false once the share is done.
func (s *Search) Step() bool {
	if s.x == nil {
		return false
	}
	more := s.x.Step()
	s.update()
	return more
}

func (s *Search) update() {
	r := s.x.Result()
	p := &s.progress
	p.Claim, p.Points = r.Claim, r.Points
	p.Schedules, p.Pruned, p.Found = r.Schedules, r.Pruned, r.Found
	p.Done, p.Exhausted = s.x.Done(), r.Exhausted
}

// Progress is what the share has done so far.
func (s *Search) Progress() Progress { return s.progress }

// NewFindings are the findings kept since the last call, ready for the page.
func (s *Search) NewFindings() ([]Finding, error) {
	if s.x == nil {
		return nil, nil
	}
	found := s.x.Result().Findings
	var out []Finding
	for ; s.sent < len(found); s.sent++ {
		f, err := s.finding(found[s.sent])
		if err != nil {
			return out, err
		}
		out = append(out, f)
	}
	return out, nil
}

func (s *Search) finding(f explore.Finding) (Finding, error) {
	text, err := Found(s.src, s.sc, s.job.Seed, f.Faults)
	if err != nil {
		return Finding{}, err
	}
	out := Finding{Kind: f.Verdict, Verdict: f.Verdict, Breaks: f.Breaks, Invariant: f.Invariant, Messages: f.Report.Messages,
		Scene: string(text), File: strings.TrimSuffix(s.sc.Name, foundSuffix) + foundSuffix + ".yaml", Order: s.order(f)}
	if f.Invariant != "" {
		out.Kind = "invariant"
	}
	for _, spec := range f.Faults {
		out.Faults = append(out.Faults, play.SceneFaultText(spec))
		out.Syntax = append(out.Syntax, play.SceneFaultSyntax(spec))
	}
	return out, nil
}

// foundSuffix ends the name of a scene the search found ("acks-1-lost-found.yaml").
const foundSuffix = "-found"

// order places a finding in the order of the whole search (Finding.Order).
func (s *Search) order(f explore.Finding) [3]int {
	n := len(f.Faults)
	if s.obs == nil || n != 1 || f.Faults[0].When == nil {
		return [3]int{n, f.Schedule, 0}
	}
	spec := f.Faults[0]
	point := slices.IndexFunc(s.obs, func(o sim.Observation) bool { return matches(*spec.When, o) })
	fault := len(s.faults) // past every fault: cannot happen, but orders after them
	for _, p := range s.faults {
		if reflect.DeepEqual(p.fault, spec.Fault) && (p.wire == "" || p.wire == wireOf(spec.When.Event)) {
			fault = p.index
			break
		}
	}
	if point < 0 {
		point = len(s.obs)
	}
	return [3]int{n, point, fault}
}

// matches is sim's trigger matching: a schedule's fault is armed at its protocol point
// with a trigger that matches that point's observation first, so the first observation
// of the run without faults it matches is its point.
func matches(t sim.Trigger, o sim.Observation) bool {
	if t.Event != o.Event {
		return false
	}
	if t.Node != "" && t.Node != o.Node && !strings.HasPrefix(o.Node, t.Node+"/") {
		return false
	}
	if t.Detail != "" && t.Detail != o.Detail() {
		return false
	}
	if t.Checkpoint != 0 && t.Checkpoint != o.Checkpoint {
		return false
	}
	return t.Message == "" || slices.Contains(o.Msgs, t.Message)
}

// wireOf is the message a point's event carries the wire id of: the request or the
// response just sent, or none.
func wireOf(e sim.Event) string {
	spec, ok := sim.LookupEvent(string(e))
	switch {
	case !ok:
		return ""
	case slices.Contains(spec.Fields, sim.FieldRequestWire):
		return "request"
	case slices.Contains(spec.Fields, sim.FieldWireID):
		return "response"
	}
	return ""
}

// SceneError is where a scene file's error is, for the page: its line (0: unknown) and
// dotted key ("" unknown).
func SceneError(err error) (line int, key string) {
	var se *scene.Error
	if errors.As(err, &se) {
		return se.Line, se.Key
	}
	return 0, ""
}
