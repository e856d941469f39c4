//go:build js

// Command explorer is the page's "Find a failure" search, built by `make wasm` into
// web/explore.wasm: the core and core/explore, no ebiten and no DOM. web/explore-worker.js
// runs it in a Web Worker, with the job (shard.Job as JSON) in self.deliverylabJob; it
// posts JSON strings back to the page (web/explore.js):
//
//	{type: "progress", progress}   about every 100 ms, and once at the start
//	{type: "finding", finding}     each counterexample as the share keeps it
//	{type: "done", progress}       the share has tried every schedule (or its budget)
//	{type: "error", error, line, key}  the scene does not read, or the search failed
//
// The search never yields to the worker's event loop: the page stops it by terminating
// the worker, and keeps what it was sent.
package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"syscall/js"
	"time"

	"deliverylab/wasm/explorer/shard"
)

// progressEvery is how often the page hears how far the share has got.
const progressEvery = 100 * time.Millisecond

func main() {
	// Each schedule copies a world and runs it: a larger heap between collections costs a
	// worker a little memory and saves it about a fifth of its time (measured in Node).
	debug.SetGCPercent(200)
	defer func() {
		if r := recover(); r != nil {
			post(map[string]any{"type": "error", "error": fmt.Sprintf("internal error: %v", r)})
		}
	}()
	var job shard.Job
	raw := js.Global().Get("deliverylabJob")
	if raw.Type() != js.TypeString {
		post(map[string]any{"type": "error", "error": "no job: self.deliverylabJob is not set"})
		return
	}
	if err := json.Unmarshal([]byte(raw.String()), &job); err != nil {
		post(map[string]any{"type": "error", "error": "the job is not JSON: " + err.Error()})
		return
	}
	s, err := shard.Start(job)
	if err != nil {
		line, key := shard.SceneError(err)
		post(map[string]any{"type": "error", "error": err.Error(), "line": line, "key": key})
		return
	}
	post(map[string]any{"type": "progress", "progress": s.Progress()})
	last := time.Now()
	for {
		more := s.Step()
		if !more || time.Since(last) >= progressEvery {
			if !report(s) {
				return
			}
			last = time.Now()
		}
		if !more {
			break
		}
	}
	post(map[string]any{"type": "done", "progress": s.Progress()})
}

// report posts the findings kept since the last report, then the progress.
func report(s *shard.Search) bool {
	found, err := s.NewFindings()
	for _, f := range found {
		post(map[string]any{"type": "finding", "finding": f})
	}
	if err != nil {
		post(map[string]any{"type": "error", "error": err.Error()})
		return false
	}
	post(map[string]any{"type": "progress", "progress": s.Progress()})
	return true
}

// post sends the page one message, as a JSON string.
func post(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"type": "error", "error": err.Error()})
	}
	js.Global().Call("postMessage", string(b))
}
