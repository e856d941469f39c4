// Package shard is a Web Worker's part of the page's "Find a failure" search: the worker
// (wasm/explorer) reads the scene once (Prepare), tells the page how the search splits
// into tasks (Plan), and runs the tasks the page hands it, a schedule at a time, posting
// their progress and findings; the page (web/explore.js) keeps a worker a core busy with
// tasks until none is left, and merges what they find.
//
// A search of one fault at a time (explore.depth 1, the default) splits by fault: a task
// is one of the explore block's concrete faults, searched at every protocol point with
// core/explore, and the tasks together try exactly the schedules one search tries. A task
// keeps the first finding of each kind in the search's own order (points first, then
// faults), and Finding.Order places a finding in the order of the whole search, so the
// page, keeping the least Order of each kind, shows what one search would: the
// counterexamples `deliverylab explore` prints. Tasks are handed out as workers come free,
// so a worker whose faults end quickly takes more of them. A deeper search (pairs,
// triples) is one task: its schedules combine faults of every task.
//
// Pure Go, tested natively: the worker's syscall/js glue is all in wasm/explorer.
package shard

import (
	"errors"
	"fmt"
	"strings"

	"deliverylab/core/explore"
	"deliverylab/core/play"
	"deliverylab/core/scene"
	"deliverylab/core/sim"
)

// Job is what the page hands each worker: the scene as the page plays it.
type Job struct {
	File    string      `json:"file"`    // the scene file's name ("acks-1-lost.yaml")
	Text    string      `json:"text"`    // its text
	Changes [][2]string `json:"changes"` // the page's setting changes (key, value), in order
	Seed    *int64      `json:"seed"`    // the page's seed; nil: the file's
}

// Plan is how the search splits: Tasks are the explore block's faults (their places in
// it) each task searches.
type Plan struct {
	Scene  string  `json:"scene"`
	Depth  int     `json:"depth"`
	Faults int     `json:"faults"` // the explore block's concrete faults
	Tasks  [][]int `json:"tasks"`
}

// Progress is what a task has done so far.
type Progress struct {
	Task      int    `json:"task"`
	Claim     string `json:"claim"` // the verdict the scene claims
	Points    int    `json:"points"`
	Faults    int    `json:"faults"`    // the task's faults
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
	// protocol point's place in the run and its fault's in the explore block (a search
	// of one fault at a time), or its schedule's number (a deeper one, never split). Of
	// each kind the page keeps the least.
	Order [3]int `json:"order"`
}

// Scene is a worker's scene, read once.
type Scene struct {
	job    Job
	src    []byte
	sc     *scene.Scene
	e      *scene.Explore
	faults []placed
	split  bool // a task a fault: a search of one fault at a time, of more than one
}

type placed struct {
	index int
	fault sim.Fault
	wire  string
}

// Prepare reads the job's scene with the page's settings and seed. A scene that does not
// parse gives the parser's error.
func Prepare(j Job) (*Scene, error) {
	src := []byte(j.Text)
	sc, err := scene.WithSettings(j.File, src, j.Changes)
	if err != nil {
		return nil, err
	}
	if j.Seed != nil {
		sc.Seed = *j.Seed
	}
	s := &Scene{job: j, src: src, sc: sc, e: sc.Explore}
	if s.e == nil {
		s.e = explore.Defaults(sc)
	}
	for _, ef := range s.e.Faults {
		for _, f := range ef.Faults {
			s.faults = append(s.faults, placed{index: len(s.faults), fault: f, wire: ef.Wire})
		}
	}
	s.split = s.e.Depth == 1 && len(s.faults) > 1
	return s, nil
}

// Plan splits the search: a task a fault, or one task of them all for a deeper search.
func (s *Scene) Plan() Plan {
	p := Plan{Scene: s.sc.Name, Depth: s.e.Depth, Faults: len(s.faults), Tasks: [][]int{}}
	if !s.split {
		all := []int{}
		for _, f := range s.faults {
			all = append(all, f.index)
		}
		p.Tasks = append(p.Tasks, all)
		return p
	}
	for _, f := range s.faults {
		p.Tasks = append(p.Tasks, []int{f.index})
	}
	return p
}

// Search is a task under way.
type Search struct {
	scene    *Scene
	x        *explore.Search
	faults   []placed
	progress Progress
	sent     int // findings handed out by NewFindings
}

// Search starts task number task: the search of these faults (places in the explore
// block, as Plan gives them).
func (s *Scene) Search(task int, faults []int) (*Search, error) {
	part := &scene.Explore{Depth: s.e.Depth, Budget: s.e.Budget}
	if n := len(s.Plan().Tasks); n > 1 {
		part.Budget = (s.e.Budget + n - 1) / n // the block's budget, shared
	}
	t := &Search{scene: s, progress: Progress{Task: task}}
	for _, i := range faults {
		if i < 0 || i >= len(s.faults) {
			return nil, fmt.Errorf("task %d: no fault %d (the explore block has %d)", task, i, len(s.faults))
		}
		p := s.faults[i]
		t.faults = append(t.faults, p)
		part.Faults = append(part.Faults, scene.ExploreFault{Text: p.fault.Describe(), Faults: []sim.Fault{p.fault}, Wire: p.wire})
	}
	t.progress.Faults = len(t.faults)
	if len(t.faults) == 0 {
		return nil, fmt.Errorf("task %d has no fault", task)
	}
	searched := *s.sc
	searched.Explore = part
	t.x = explore.New(&searched, explore.Options{})
	t.update()
	return t, nil
}

// Step runs the task's next schedule; it returns false once the task is done.
func (t *Search) Step() bool {
	more := t.x.Step()
	t.update()
	return more
}

func (t *Search) update() {
	r := t.x.Result()
	p := &t.progress
	p.Claim, p.Points = r.Claim, r.Points
	p.Schedules, p.Pruned, p.Found = r.Schedules, r.Pruned, r.Found
	p.Done, p.Exhausted = t.x.Done(), r.Exhausted
}

// Progress is what the task has done so far.
func (t *Search) Progress() Progress { return t.progress }

// NewFindings are the findings the task kept since the last call, ready for the page.
func (t *Search) NewFindings() ([]Finding, error) {
	found := t.x.Result().Findings
	var out []Finding
	for ; t.sent < len(found); t.sent++ {
		f, err := t.finding(found[t.sent])
		if err != nil {
			return out, err
		}
		out = append(out, f)
	}
	return out, nil
}

func (t *Search) finding(f explore.Finding) (Finding, error) {
	s := t.scene
	text, err := Found(s.src, s.sc, s.job.Seed, f.Faults)
	if err != nil {
		return Finding{}, err
	}
	out := Finding{Kind: f.Verdict, Verdict: f.Verdict, Breaks: f.Breaks, Invariant: f.Invariant, Messages: f.Report.Messages,
		Scene: string(text), File: strings.TrimSuffix(s.sc.Name, foundSuffix) + foundSuffix + ".yaml", Order: t.order(f)}
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

// order places a finding in the order of the whole search (Finding.Order): every task
// searches the same protocol points of the same run without faults, so a single fault's
// point and its place in the explore block order it among every task's.
func (t *Search) order(f explore.Finding) [3]int {
	n := len(f.Faults)
	if !t.scene.split || n != 1 {
		return [3]int{n, f.Schedule, 0}
	}
	return [3]int{n, f.Points[0], t.faults[f.Candidates[0]].index}
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
