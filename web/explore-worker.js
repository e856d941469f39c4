// A Web Worker running one share of "Find a failure" (web/explore.js starts one per core):
// its own WebAssembly instance of web/explore.wasm (wasm/explorer), so the search never
// holds up the page or the canvas. The page sends {module, job} once: the compiled module
// (compiled once in the page, shared by the workers) and the job (wasm/explorer/shard's
// Job). The Go program posts its progress and findings itself, as JSON strings, and
// returns when its share is done; the page terminates the worker to stop it.
"use strict";
importScripts("wasm_exec.js");

const fail = (error) => self.postMessage(JSON.stringify({ type: "error", error }));

self.onmessage = async (e) => {
  self.onmessage = null; // one job per worker
  const { module, job } = e.data || {};
  const go = new Go();
  // The search returns on its own (code 0); any other exit is a Go panic, which Go has
  // already printed.
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
