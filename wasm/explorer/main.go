//go:build js

// Command explorer is the page's "Find a failure" search, built by `make wasm` into
// web/explore.wasm: the core and core/explore, no ebiten and no DOM. web/explore-worker.js
// runs it in a Web Worker with the job (shard.Job as JSON) in self.deliverylabJob. It reads
// the scene once, then runs the tasks the page (web/explore.js) hands it, one at a time.
// Every message either way is a JSON string:
//
//	to the page:
//	{type: "ready", plan}                 the scene is read: how the search splits into tasks
//	{type: "progress", progress}          about every 100 ms, and when a task starts
//	{type: "finding", finding}            each counterexample as the task keeps it
//	{type: "done", progress}              the task has tried every schedule (or its budget)
//	{type: "error", error, line, key}     the scene does not read, or the search failed
//	from the page:
//	{type: "task", task}                  search task number task (Plan.Tasks[task])
//
// A task never yields to the worker's event loop: the page stops the search by
// terminating the worker, and keeps what it was sent.
package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"syscall/js"
	"time"

	"deliverylab/wasm/explorer/shard"
)

// progressEvery is how often the page hears how far a task has got.
const progressEvery = 100 * time.Millisecond

type task struct {
	Type string `json:"type"`
	Task int    `json:"task"`
}

func main() {
	// Each schedule copies a world and runs it: a larger heap between collections costs a
	// worker some memory and saves it time (a fifth at 200, measured in Node; the CLI's
	// 400 measured 1.5x on two cores natively, where collections also contend).
	debug.SetGCPercent(400)
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
	sc, err := shard.Prepare(job)
	if err != nil {
		line, key := shard.SceneError(err)
		post(map[string]any{"type": "error", "error": err.Error(), "line": line, "key": key})
		return
	}

	// Tasks arrive as messages; main waits for them, which hands the worker's event loop
	// back to JS until one comes.
	tasks := make(chan task, 8)
	onMessage := js.FuncOf(func(_ js.Value, args []js.Value) any {
		var t task
		data := args[0].Get("data")
		if data.Type() != js.TypeString || json.Unmarshal([]byte(data.String()), &t) != nil || t.Type != "task" {
			post(map[string]any{"type": "error", "error": "a message that is not a task"})
			return nil
		}
		select {
		case tasks <- t:
		default: // the page hands a worker one task at a time
			post(map[string]any{"type": "error", "error": "too many tasks at once"})
		}
		return nil
	})
	defer onMessage.Release()
	js.Global().Set("onmessage", onMessage)
	post(map[string]any{"type": "ready", "plan": sc.Plan()})
	for t := range tasks {
		if !run(sc, t) {
			return
		}
	}
}

// run searches one task, posting its progress and findings; false on a failure.
func run(sc *shard.Scene, t task) bool {
	s, err := sc.Search(t.Task)
	if err != nil {
		post(map[string]any{"type": "error", "error": err.Error()})
		return false
	}
	post(map[string]any{"type": "progress", "progress": s.Progress()})
	last := time.Now()
	for {
		more := s.Step()
		if !more || time.Since(last) >= progressEvery {
			if !report(s) {
				return false
			}
			last = time.Now()
		}
		if !more {
			break
		}
	}
	post(map[string]any{"type": "done", "progress": s.Progress()})
	return true
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
