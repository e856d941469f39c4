// Package explore is "Find a failure": it searches the fault schedules a scene's explore
// block allows — every fault at every protocol point of the run, then pairs and triples up
// to explore.depth within a budget — runs each to its end, judges it with the same ledger
// as any run, and keeps the first schedule of each kind that loses or duplicates a message
// (fewest faults first, then earliest). It is deterministic: the same scene gives the same
// order, the same figures and the same counterexamples, natively and in the browser.
//
// A schedule is not run from the start. The search keeps a cursor: the run of the faults
// already placed, advanced event by event; a schedule that adds a fault at a point is a
// copy of the cursor taken just before the point's event, with the fault's trigger armed,
// run from there. The scene's own faults are left out: the search looks for its own.
package explore

import (
	"deliverylab/core/scene"
	"deliverylab/core/sim"
)

// Options bound a search; zero takes the scene's explore block (or the defaults).
type Options struct {
	Depth  int
	Budget int
}

// Finding is a schedule whose run lost or duplicated a message, or broke an invariant.
type Finding struct {
	Verdict string // the run's verdict
	// Breaks: it breaks the scene's claim (its expect.verdict); otherwise it shows what
	// the claim admits (a duplicate under at-least-once).
	Breaks    bool
	Faults    []scene.FaultSpec
	Report    scene.Report
	Invariant string // what was wrong, when an invariant failed at the end of the run
	Schedule  int    // its number in the search's order (1-based)
	// branch is the report of the branch the search judged (without a trace); Report
	// is the same schedule run from the start with its trace. Tests hold them equal.
	branch scene.Report
}

// Result is what a search found and what it cost.
type Result struct {
	Scene  string
	Claim  string // the verdict the scene claims
	Depth  int
	Budget int
	// Points: the protocol points of the run without faults; Faults: the concrete faults
	// the explore block stands for.
	Points, Faults int
	Schedules      int  // schedules run
	Pruned         int  // schedules not run: the fault could not act there
	Found          int  // schedules that lost, duplicated or broke an invariant
	Exhausted      bool // every schedule up to Depth was tried
	Findings       []Finding
}

// Search is a search under way: Step runs it a schedule at a time, so that a page can
// run it between frames.
type Search struct {
	base   *scene.Scene // the scene without its own faults
	claim  claim
	faults []candidate // the explore block's concrete faults, in order
	depth  int         // the depth being searched (iterative deepening)
	stack  []*frame
	res    Result
	kinds  map[string]bool // verdicts (and "invariant") already kept
	done   bool
}

// candidate is one concrete fault of the explore block.
type candidate struct {
	fault sim.Fault
	wire  string // "request" / "response": only at points that carry one
}

// placed is a fault at a point.
type placed struct {
	at    point
	fault sim.Fault
}

// frame is a schedule being extended: its run (the cursor), the points after its last
// fault, and the next (point, fault) to add.
type frame struct {
	prefix []placed
	cursor *scene.Run
	points []point
	pi, fi int
}

// New starts a search of s.
func New(s *scene.Scene, opt Options) *Search {
	e := s.Explore
	if e == nil {
		e = Defaults(s)
	}
	x := &Search{claim: claimOf(s), depth: 1, kinds: map[string]bool{}}
	base := *s
	base.Faults = nil
	x.base = &base
	for _, ef := range e.Faults {
		for _, f := range ef.Faults {
			x.faults = append(x.faults, candidate{fault: f, wire: ef.Wire})
		}
	}
	x.res = Result{Scene: s.Name, Claim: x.claim.text, Depth: e.Depth, Budget: e.Budget, Faults: len(x.faults)}
	if opt.Depth > 0 {
		x.res.Depth = opt.Depth
	}
	if opt.Budget > 0 {
		x.res.Budget = opt.Budget
	}
	root := x.quietRun()
	points := record(x.quietRun()).points(-1)
	x.res.Points = len(points)
	x.stack = []*frame{{cursor: root, points: points}}
	if len(x.faults) == 0 || x.res.Points == 0 {
		x.finish(true)
	}
	return x
}

// Run searches s to the end.
func Run(s *scene.Scene, opt Options) Result {
	x := New(s, opt)
	for x.Step() {
	}
	return x.Result()
}

// Result is what the search has found so far (all of it once Step returned false).
func (x *Search) Result() Result { return x.res }

// Done reports whether the search has ended.
func (x *Search) Done() bool { return x.done }

// Step runs the next schedule (pruning the ones before it that cannot matter); it
// returns false once the search has ended.
func (x *Search) Step() bool {
	for !x.done {
		if x.res.Schedules >= x.res.Budget {
			x.finish(false)
			break
		}
		if len(x.stack) == 0 {
			if x.depth >= x.res.Depth {
				x.finish(true)
				break
			}
			x.depth++
			x.restart()
			continue
		}
		f := x.stack[len(x.stack)-1]
		at, c, ok := f.next(x)
		if !ok {
			x.stack = x.stack[:len(x.stack)-1]
			continue
		}
		if x.advance(f, at) && x.prune(f, at, c) {
			x.res.Pruned++
			continue
		}
		x.try(f, at, c)
		return !x.done
	}
	return false
}

func (x *Search) finish(exhausted bool) {
	x.done, x.res.Exhausted, x.stack = true, exhausted, nil
}

// restart begins the next depth from the run without faults.
func (x *Search) restart() {
	rec := record(x.quietRun())
	x.stack = []*frame{{cursor: x.quietRun(), points: rec.points(-1)}}
}

// next is the frame's next (point, fault) to try, in order: points first, then faults.
func (f *frame) next(x *Search) (point, candidate, bool) {
	for f.pi < len(f.points) {
		p := f.points[f.pi]
		for f.fi < len(x.faults) {
			c := x.faults[f.fi]
			f.fi++
			if c.wire != "" && c.wire != p.wire {
				continue // a wire fault needs the request or response just sent there
			}
			return p, c, true
		}
		f.pi, f.fi = f.pi+1, 0
	}
	return point{}, candidate{}, false
}

// advance moves the frame's cursor to just before the point's event; it reports whether
// the cursor is there (a cursor never goes back).
func (x *Search) advance(f *frame, p point) bool {
	w := f.cursor.World
	for w.EventsRun() < p.event {
		if !w.Step() {
			return false
		}
	}
	return w.EventsRun() == p.event
}

// try runs the frame's schedule with c added at p: to its end when that makes a schedule
// of the depth searched, else to find the points after it, as a new frame.
func (x *Search) try(f *frame, p point, c candidate) {
	sched := append(append([]placed(nil), f.prefix...), placed{at: p, fault: c.fault})
	run := &scene.Run{Scene: x.base, World: f.cursor.World.Clone()}
	t := p.trigger
	t.Fault = c.fault
	run.World.ArmFault(t)
	if len(sched) < x.depth {
		// An inner schedule: run it to learn its points; one that already breaks
		// something was reported at its own depth and is not extended.
		cursor := &scene.Run{Scene: x.base, World: run.World.Clone()}
		rec := record(run)
		if x.finding(rec.run) != nil {
			return
		}
		x.stack = append(x.stack, &frame{prefix: sched, cursor: cursor, points: rec.points(p.obs)})
		return
	}
	x.res.Schedules++
	run.ToEnd()
	if fd := x.finding(run); fd != nil {
		x.res.Found++
		fd.Faults, fd.Schedule = specs(sched), x.res.Schedules
		if !x.kinds[kindOf(*fd)] {
			x.kinds[kindOf(*fd)] = true
			x.res.Findings = append(x.res.Findings, x.traced(*fd))
		}
	}
}

// finding judges a finished run: nil when nothing was lost or duplicated, every
// invariant holds, and no acks=all record was lost to fewer failures than
// min.insync.replicas.
func (x *Search) finding(r *scene.Run) *Finding {
	rep := r.Judge()
	fd := &Finding{Verdict: rep.Verdict, Report: rep}
	if bad := r.Problems(rep); len(bad) > 0 {
		fd.Invariant, fd.Breaks = bad[0], true
		return fd
	}
	lost, dup := rep.Messages["lost"] > 0, rep.Messages["duplicated"] > 0
	if !lost && !dup {
		return nil
	}
	fd.Breaks = (lost && x.claim.noLoss) || (dup && x.claim.noDuplicate)
	return fd
}

// quietRun is a run of the scene without its faults that writes no trace: the search
// judges outcomes only, and a trace costs a fifth of a run.
func (x *Search) quietRun() *scene.Run {
	r := x.base.NewRun()
	r.World.Trace().Off = true
	return r
}

// traced runs a finding's schedule again from the start with its trace, as the scene
// with those faults runs: its report then carries the trace hash a replay must give.
func (x *Search) traced(fd Finding) Finding {
	s := *x.base
	s.Faults = fd.Faults
	r := s.NewRun()
	r.ToEnd()
	fd.branch, fd.Report = fd.Report, r.Judge()
	return fd
}

// kindOf is what a finding is kept under: one of each verdict, and invariants apart.
func kindOf(f Finding) string {
	if f.Invariant != "" {
		return "invariant"
	}
	return f.Verdict
}

// specs writes a schedule as the scene's faults: each at its point.
func specs(sched []placed) []scene.FaultSpec {
	var out []scene.FaultSpec
	for _, pl := range sched {
		t := pl.at.trigger
		t.Fault = pl.fault
		out = append(out, scene.FaultSpec{When: &t, Fault: pl.fault})
	}
	return out
}
