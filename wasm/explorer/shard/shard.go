// Package shard is a Web Worker's part of the page's "Find a failure" search: the worker
// (wasm/explorer) reads the scene once (Prepare), tells the page how the search splits
// into tasks (Plan), and runs the tasks the page hands it, a schedule at a time, posting
// their progress and findings; the page (web/explore.js) keeps a worker a core busy with
// tasks until none is left, and merges what they find.
//
// A task is a part of the search (explore.Split): a run of consecutive protocol points,
// every fault of the explore block at each. The parts together try exactly the schedules
// one search tries; each keeps the first finding of each kind, and Finding.Order places a
// finding in the order of the whole search (its part, then its schedule in the part), so
// the page, keeping the least Order of each kind, shows what one search would: the
// counterexamples `deliverylab explore` prints (which splits the same way on the CPU's
// cores). There are a few tasks a worker, handed out as workers come free, so a worker
// whose parts end quickly (late points have short branches) takes more of them. A search
// that cannot be split (pairs, triples) is one task.
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
)

// Job is what the page hands each worker: the scene as the page plays it.
type Job struct {
	File    string      `json:"file"`    // the scene file's name ("acks-1-lost.yaml")
	Text    string      `json:"text"`    // its text
	Changes [][2]string `json:"changes"` // the page's setting changes (key, value), in order
	Seed    *int64      `json:"seed"`    // the page's seed; nil: the file's
	Workers int         `json:"workers"` // the page's workers: the search splits in explore.PartsPerWorker times as many tasks
}

// Plan is how the search splits: each task is a part of it.
type Plan struct {
	Scene  string         `json:"scene"`
	Depth  int            `json:"depth"`
	Faults int            `json:"faults"` // the explore block's concrete faults
	Points int            `json:"points"` // the protocol points of the run without faults
	Tasks  []explore.Part `json:"tasks"`
}

// Progress is what a task has done so far.
type Progress struct {
	Task      int    `json:"task"`
	Claim     string `json:"claim"` // the verdict the scene claims
	Points    int    `json:"points"`
	Faults    int    `json:"faults"`    // the explore block's concrete faults
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
	// Order places it in the order of the whole search: its fault count, its task, and
	// its schedule's number in the task. Of each kind the page keeps the least.
	Order [3]int `json:"order"`
}

// Scene is a worker's scene, read once.
type Scene struct {
	job  Job
	src  []byte
	sc   *scene.Scene
	plan Plan
	// whole is the search the tasks are parts of: it ran the scene to its end once, and
	// its parts share what it learned.
	whole *explore.Search
}

// Prepare reads the job's scene with the page's settings and seed, and splits its search.
// A scene that does not parse gives the parser's error.
func Prepare(j Job) (*Scene, error) {
	src := []byte(j.Text)
	sc, err := scene.WithSettings(j.File, src, j.Changes)
	if err != nil {
		return nil, err
	}
	if j.Seed != nil {
		sc.Seed = *j.Seed
	}
	x := explore.New(sc, explore.Options{})
	r := x.Result()
	s := &Scene{job: j, src: src, sc: sc, whole: x,
		plan: Plan{Scene: sc.Name, Depth: r.Depth, Faults: r.Faults, Points: r.Points, Tasks: x.Split(max(j.Workers, 1) * explore.PartsPerWorker)}}
	return s, nil
}

// Plan is how the search splits into tasks.
func (s *Scene) Plan() Plan { return s.plan }

// Search is a task under way.
type Search struct {
	scene    *Scene
	task     int
	x        *explore.Search
	progress Progress
	sent     int // findings handed out by NewFindings
}

// Search starts task number task of the plan.
func (s *Scene) Search(task int) (*Search, error) {
	if task < 0 || task >= len(s.plan.Tasks) {
		return nil, fmt.Errorf("no task %d (the search has %d)", task, len(s.plan.Tasks))
	}
	t := &Search{scene: s, task: task, progress: Progress{Task: task}}
	t.x = s.whole.Part(s.plan.Tasks[task])
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
	p.Claim, p.Points, p.Faults = r.Claim, r.Points, r.Faults
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

// order places a finding in the order of the whole search (Finding.Order): the parts
// are in the search's order, and a part's schedules too.
func (t *Search) order(f explore.Finding) [3]int {
	return [3]int{len(f.Faults), t.task, f.Schedule}
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
