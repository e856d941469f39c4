package benchtable

// Row is one line of the table: a figure, how it is read from the results, and its
// budget (issue 22; the README's performance section).
type Row struct {
	Figure string
	Value  func(Results) (float64, bool)
	Unit   string // as the table prints it
	// Budget is what the figure must reach: at most (AtMost) or at least; 0: none, the
	// figure is shown for what it explains.
	Budget float64
	AtMost bool
	// Missing is said when the figure was not measured: what would measure it.
	Missing string
}

// fig is a figure as a benchmark reported it.
func fig(arch, bench, unit string) func(Results) (float64, bool) {
	return func(r Results) (float64, bool) {
		v, ok := r[Key{Arch: arch, Bench: bench, Unit: unit}]
		return v, ok
	}
}

// ratio is a/b, when both were measured.
func ratio(a, b func(Results) (float64, bool)) func(Results) (float64, bool) {
	return func(r Results) (float64, bool) {
		x, okA := a(r)
		y, okB := b(r)
		if !okA || !okB || y == 0 {
			return 0, false
		}
		return x / y, true
	}
}

// anyArch is a figure whatever architecture line came before it: the referee's come from
// make conformance's output, which has none of its own.
func anyArch(bench, unit string) func(Results) (float64, bool) {
	return func(r Results) (float64, bool) {
		for k, v := range r {
			if k.Bench == bench && k.Unit == unit {
				return v, true
			}
		}
		return 0, false
	}
}

// scaled is a figure times k (ms to s).
func scaled(f func(Results) (float64, bool), k float64) func(Results) (float64, bool) {
	return func(r Results) (float64, bool) {
		v, ok := f(r)
		return v * k, ok
	}
}

func size(name string) func(Results) (float64, bool) { return fig("", "size/"+name, "B") }

func unmeasured(Results) (float64, bool) { return 0, false }

const (
	kernel   = "BenchmarkKernelEventsPerSecond"
	seek     = "BenchmarkScrubberSeek"
	pageFind = "BenchmarkFindAFailureInPage/exactly-once-needs-read-committed-default-faults"
	native   = "amd64"
	webAsm   = "wasm"
	referee  = "BenchmarkRefereeRun"
	// make conformance keeps its output in out/conformance.txt, which make bench reads.
	notConformed = "make conformance measures it"
	megabytes    = 1_000_000
)

// Rows is the table make bench prints, in its order.
var Rows = []Row{
	{Figure: "kernel, busiest shipped scene, natively", Value: fig(native, kernel, "events/s"), Unit: "events/s", Budget: 2_000_000},
	{Figure: "kernel, busiest shipped scene, WebAssembly (Node)", Value: fig(webAsm, kernel, "events/s"), Unit: "events/s"},
	{Figure: "kernel, WebAssembly ÷ native", Value: ratio(fig(webAsm, kernel, "events/s"), fig(native, kernel, "events/s")), Unit: "×", Budget: 0.5},
	{Figure: "scrubber seek, worst shipped scene, natively", Value: fig(native, seek, "worst-ms"), Unit: "ms"},
	{Figure: "scrubber seek, median shipped scene, natively", Value: fig(native, seek, "median-ms"), Unit: "ms"},
	{Figure: "scrubber seek, worst shipped scene, WebAssembly (the page)", Value: fig(webAsm, seek, "worst-ms"), Unit: "ms", Budget: 16, AtMost: true},
	{Figure: "scrubber seek, median shipped scene, WebAssembly", Value: fig(webAsm, seek, "median-ms"), Unit: "ms"},
	{Figure: "deliverylab check of every shipped scene", Value: fig(native, "BenchmarkCheckEveryShippedScene", "ms/all"), Unit: "ms", Budget: 1000, AtMost: true},
	{Figure: "explore every single fault of every shipped scene, CLI on every core", Value: fig(native, "BenchmarkExploreCommandEveryShippedScene", "s/all"), Unit: "s", Budget: 10, AtMost: true},
	{Figure: "explorer, CLI on every core", Value: fig(native, "BenchmarkExploreCommandEveryShippedScene", "schedules/s"), Unit: "schedules/s"},
	{Figure: "explorer, one core", Value: fig(native, "BenchmarkExploreEveryShippedScene", "schedules/s"), Unit: "schedules/s"},
	{Figure: "Find a failure in the page, busiest scene, default faults, playing", Value: fig(native, pageFind, "s/search"), Unit: "s", Budget: 30, AtMost: true},
	{Figure: "explorer in the page (that search)", Value: ratio(fig(native, pageFind, "schedules"), fig(native, pageFind, "s/search")), Unit: "schedules/s"},
	{Figure: "page: first contentful paint (median of 5)", Value: fig(native, "BenchmarkPageLoad", "paint-ms"), Unit: "ms", Budget: 500, AtMost: true},
	{Figure: "page: ready to play (median of 5)", Value: fig(native, "BenchmarkPageLoad", "ready-ms"), Unit: "ms", Budget: 1500, AtMost: true},
	{Figure: "page paused: CPU of the browser's processes", Value: fig(native, "BenchmarkPausedPageCPU", "%core"), Unit: "% of a core", Budget: 4, AtMost: true},
	{Figure: "page playing the busiest scene: CPU of the browser's processes", Value: fig(native, "BenchmarkPlayingPageCPU", "%core"), Unit: "% of a core"},
	{Figure: "main.wasm", Value: size("main.wasm"), Unit: "MB"},
	{Figure: "main.wasm gzipped", Value: size("main.wasm.gz"), Unit: "MB", Budget: 4 * megabytes, AtMost: true},
	{Figure: "main.wasm brotli", Value: size("main.wasm.br"), Unit: "MB"},
	{Figure: "explore.wasm gzipped (fetched on the first search)", Value: size("explore.wasm.gz"), Unit: "MB"},
	{Figure: "Draw per frame, crowd scene at its busiest (the page)", Value: fig(native, "BenchmarkDrawWithManyInFlight", "ms/draw"), Unit: "ms", Budget: 4, AtMost: true},
	{Figure: "messages in flight while it drew (the fewest)", Value: fig(native, "BenchmarkDrawWithManyInFlight", "fewest-in-flight"), Unit: "messages"},
	{Figure: "live heap of a session, after its first scene", Value: fig(native, "BenchmarkHeapAfterAnHourOfPlay", "B-live-after-one-scene"), Unit: "MB"},
	{Figure: "live heap of a session, after an hour of virtual time of play", Value: fig(native, "BenchmarkHeapAfterAnHourOfPlay", "B-live-after-an-hour"), Unit: "MB"},
	{Figure: "page: the longest it stops answering while it learns a run's length (a run to the event limit)", Value: fig(native, "BenchmarkLearningARunToTheEventLimit", "longest-block-ms"), Unit: "ms", Budget: 100, AtMost: true},
	{Figure: "page: learning that run's length, in all", Value: fig(native, "BenchmarkLearningARunToTheEventLimit", "s/learn"), Unit: "s"},
	{Figure: "page: the longest wait between two frames meanwhile (the browser's late frames too)", Value: fig(native, "BenchmarkLearningARunToTheEventLimit", "longest-frame-gap-ms"), Unit: "ms"},
	{Figure: "a run to the event limit (2,000,000 events), CLI --json: time", Value: fig(native, "BenchmarkRunToTheEventLimit", "s/run"), Unit: "s", Budget: 2, AtMost: true},
	{Figure: "a run to the event limit, CLI --json: the process's peak memory (resident)", Value: fig(native, "BenchmarkRunToTheEventLimit", "B-from-system"), Unit: "MB", Budget: 300 * megabytes, AtMost: true},
	// A real run lasts at least as long as its scene waits (about 17 s on average, the
	// simulated lengths); the budget is on what the suite costs, its wall time shared among
	// its runs, which runs side by side lower.
	{Figure: "referee: the last make conformance's wall time per real run", Value: scaled(anyArch(referee, "wall-ms/run"), 0.001), Unit: "s", Budget: 20, AtMost: true, Missing: notConformed},
	{Figure: "referee: a real run, mean", Value: scaled(anyArch(referee, "ms/run"), 0.001), Unit: "s", Missing: notConformed},
	{Figure: "referee: the slowest real run", Value: scaled(anyArch(referee, "slowest-ms/run"), 0.001), Unit: "s", Missing: notConformed},
}
