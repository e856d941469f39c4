package explore

// Part is a share of a search of one fault at a time: every fault of the explore block at
// the protocol points From to To-1 of the run without faults. The parts Split gives,
// searched apart (the CLI's goroutines, the page's Web Workers) and merged in order, find
// what one search finds, with the same figures and the same schedule numbers.
type Part struct {
	From int `json:"from"`
	To   int `json:"to"`
}

// PartsPerWorker is how many parts a search is cut into for each worker that searches
// it (a core of the CLI, a Web Worker of the page): parts are handed out as workers come
// free, so a worker whose parts end early (late points have short branches) takes more.
const PartsPerWorker = 4

// Split cuts the search x (just made by New) into at most n parts of consecutive
// protocol points. A search that cannot be cut is one part of every point: a deeper one
// (its pairs start from the singles' outcomes, in one order), and one whose budget could
// stop it before every single fault is tried (where it stops depends on the parts before).
func (x *Search) Split(n int) []Part {
	points := x.res.Points
	if x.res.Depth > 1 || points*len(x.faults) > x.res.Budget || n < 2 || points < 2 {
		return []Part{{From: 0, To: points}}
	}
	n = min(n, points)
	parts := make([]Part, 0, n)
	for i := range n {
		parts = append(parts, Part{From: i * points / n, To: (i + 1) * points / n})
	}
	return parts
}

// Part starts the search of one part of x, a search New made and Step has not run: it
// shares x's scene, faults and the protocol points x learned by running the scene to its
// end, so a part does not run it again, and has a cursor of its own at the start. Parts
// of one search may run at once, on goroutines of their own: they only read what they
// share.
func (x *Search) Part(p Part) *Search {
	px := &Search{base: x.base, claim: x.claim, faults: x.faults, depth: 1, res: x.res, kinds: map[string]bool{}, done: x.done}
	px.res.Findings = nil
	if px.done || len(x.stack) != 1 {
		return px
	}
	points := x.stack[0].points
	from, to := max(p.From, 0), min(p.To, len(points))
	var mine []point
	if from < to {
		mine = points[from:to:to]
	}
	px.stack = []*frame{{cursor: px.quietRun(), points: mine}}
	return px
}

// Merge joins the results of a search's parts, given in order, into the result of the
// whole search: figures added up, schedules numbered on from the parts before, and of
// each kind the first finding.
func Merge(parts []Result) Result {
	if len(parts) == 0 {
		return Result{}
	}
	out := parts[0]
	out.Schedules, out.Pruned, out.Found, out.Exhausted, out.Findings = 0, 0, 0, true, nil
	kinds := map[string]bool{}
	for _, r := range parts {
		for _, f := range r.Findings {
			if kinds[kindOf(f)] {
				continue
			}
			kinds[kindOf(f)] = true
			f.Schedule += out.Schedules
			out.Findings = append(out.Findings, f)
		}
		out.Schedules += r.Schedules
		out.Pruned += r.Pruned
		out.Found += r.Found
		out.Exhausted = out.Exhausted && r.Exhausted
	}
	return out
}
