package main

import (
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"deliverylab/core/explore"
	"deliverylab/core/scene"
)

// searchInParallel runs the search of s on every core: cut into parts (explore.Split),
// each searched by the core free next, merged in order — the result one search gives.
// progress, if not nil, is called about every second with the figures so far.
func searchInParallel(s *scene.Scene, opt explore.Options, workers int, progress func(schedules, pruned, found int64)) explore.Result {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	// Each schedule copies a world, runs it and lets it go: the live heap stays small (tens
	// of MB), so collections at the default pace come so often that two cores searching
	// spend their time in them. Five times the live heap between collections measured
	// 1.5x faster on two cores (as the page's workers do, wasm/explorer).
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	whole := explore.New(s, opt)
	parts := whole.Split(workers * explore.PartsPerWorker)
	results := make([]explore.Result, len(parts))
	var schedules, pruned, found atomic.Int64
	next := make(chan int, len(parts))
	for i := range parts {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(workers, len(parts)) {
		wg.Go(func() {
			for i := range next {
				x := whole.Part(parts[i])
				var seen explore.Result
				for more := true; more; {
					more = x.Step()
					r := x.Result()
					schedules.Add(int64(r.Schedules - seen.Schedules))
					pruned.Add(int64(r.Pruned - seen.Pruned))
					found.Add(int64(r.Found - seen.Found))
					seen = r
				}
				results[i] = x.Result()
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return explore.Merge(results)
		case <-tick.C:
			if progress != nil {
				progress(schedules.Load(), pruned.Load(), found.Load())
			}
		}
	}
}
