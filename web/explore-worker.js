// A Web Worker running tasks of "Find a failure" (web/explore.js starts one per core):
// its own WebAssembly instance of web/explore.wasm (wasm/explorer), so the search never
// holds up the page or the canvas. The page sends {module, job} first: the compiled
// module (compiled once in the page, shared by the workers) and the job
// (wasm/explorer/shard's Job). The Go program then takes over the worker's messages: it
// says when it is ready, takes tasks, and posts their progress and findings, all as JSON
// strings; the page terminates the worker when it has no task left, or to stop.
"use strict";
importScripts("wasm_exec.js");

const fail = (error) => self.postMessage(JSON.stringify({ type: "error", error }));

self.onmessage = async (e) => {
  self.onmessage = null; // one job per worker
  const { module, job } = e.data || {};
  const go = new Go();
  // Any exit but 0 is a Go panic, which Go has already printed.
  go.exit = (code) => {
    if (code !== 0) fail(`the search stopped (exit code ${code})`);
  };
  try {
    const instance = await WebAssembly.instantiate(module, go.importObject);
    self.deliverylabJob = JSON.stringify(job);
    await go.run(instance);
  } catch (err) {
    fail(String(err && err.message ? err.message : err));
  }
};
