// "Find a failure": search the scene's fault schedules for a run that loses or duplicates
// a message, without holding up the page. The search runs in Web Workers
// (web/explore-worker.js), one per core, each with its own WebAssembly instance of
// web/explore.wasm (wasm/explorer: the core, no canvas); the search splits into tasks (a
// task a run of protocol points, wasm/explorer/shard), handed to the workers as they
// come free. explore.wasm is fetched and compiled only when the button is first pressed,
// so the page's first load is unchanged. The panel
// shows the progress, stops on Stop (the workers are terminated), and lists one
// counterexample of each kind; choosing one loads it as a scene of its own (its faults
// listed and marked on the scrubber by app.js), ready to play, share and save.
// Built on the page's extension API (window.deliverylabPage, app.js).
"use strict";
(() => {
  const P = window.deliverylabPage;
  const panel = document.getElementById("explore-panel");
  if (!P || !panel) return;
  const $ = (id) => document.getElementById(id);
  const el = (tag, props = {}, ...children) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v);
    }
    e.append(...children);
    return e;
  };
  const t = P.t;
  // tv fills a word's {name} placeholders; a function replacement, so a "$" in a value
  // is not read as a pattern.
  const tv = (key, vars = {}) => t(key).replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
  const pick = (text) => (text ? text[P.lang()] || text.en || "" : "");
  const failed = (r) => !r || r.error !== undefined;
  const verdictName = (v) => (v && t(`verdict.${v}`) !== `verdict.${v}` ? t(`verdict.${v}`) : v || "");
  const secs = (ms) => (ms / 1000).toFixed(1);

  // One worker per core, at most four: each holds its own WebAssembly heap (about
  // 100 MB while it searches), and the canvas keeps the main thread. ?explore-workers=N
  // sets another count (1 to 8), to measure what the split gains.
  const asked = Number(new URLSearchParams(location.search).get("explore-workers"));
  const WORKERS = Number.isInteger(asked) && asked >= 1 && asked <= 8 ? asked
    : Math.max(1, Math.min(4, navigator.hardwareConcurrency || 2));

  // explore.wasm, compiled once, when the button is first pressed; a failure is forgotten,
  // so the next press tries again.
  let compiling = null;
  function compiled() {
    if (!compiling) {
      compiling = (async () => {
        const res = await fetch("explore.wasm");
        if (!res.ok) throw new Error(`explore.wasm: HTTP ${res.status} (run "make wasm")`);
        return WebAssembly.compileStreaming(res);
      })();
      compiling.catch(() => (compiling = null));
    }
    return compiling;
  }

  // search is the search under way, or the last one, or null. state: loading, running,
  // done, stopped, failed. plan is how it splits (the first worker ready says), queue the
  // tasks not handed out yet, tasks[i] task i's last progress, current[k] worker k's task;
  // findings keeps one counterexample of each kind, the least in the search's order
  // (shard.Finding.Order).
  let search = null;
  let loadedFinding = null; // the finding loaded last, while it is the page's scene
  let loadingFinding = false;

  const less = (a, b) => {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] < b[i];
    return false;
  };

  // refused is a search that could not start, and why.
  const refused = (say) => {
    const now = performance.now();
    return { state: "failed", error: say, findings: new Map(), tasks: [], workers: [], startedAt: now, endedAt: now };
  };

  function start() {
    if (search && (search.state === "loading" || search.state === "running")) return;
    if (typeof Worker !== "function" || typeof WebAssembly !== "object") {
      search = refused(() => t("explore.noWorkers"));
      render();
      return;
    }
    const src = P.call("sceneSource");
    if (failed(src)) {
      search = refused(() => P.errorText(src));
      render();
      return;
    }
    const st = P.call("state");
    const s = {
      state: "loading",
      job: { file: src.file, text: src.text, changes: src.changes || [], seed: src.seed, workers: WORKERS },
      title: st && !st.error ? st.title : null,
      plan: null,
      queue: [],
      tasks: [],
      current: [],
      freeMs: [], // when each worker found no task left, from the start
      findings: new Map(),
      workers: [],
      startedAt: performance.now(),
      endedAt: 0,
      error: null, // a function: the error in the page's language at the time
    };
    search = s;
    loadedFinding = null;
    const hadFocus = document.activeElement === findButton;
    render();
    if (hadFocus) stopButton.focus(); // the button just pressed is disabled now
    compiled().then((module) => {
      if (search !== s || s.state !== "loading") return; // stopped while it loaded
      s.state = "running";
      for (let k = 0; k < WORKERS; k++) {
        const w = new Worker("explore-worker.js");
        w.onmessage = (e) => onMessage(s, k, e.data);
        w.onerror = (e) => {
          e.preventDefault(); // said in the panel, not as an uncaught error
          fail(s, () => `${t("explore.failed")}${e.message || "worker error"}`);
        };
        w.postMessage({ module, job: s.job });
        s.workers.push(w);
      }
      render();
    }, (err) => {
      if (search === s) fail(s, () => `${t("explore.noWasm")}${err && err.message ? err.message : err}`);
    });
  }

  function onMessage(s, k, data) {
    if (search !== s || s.state !== "running") return;
    let m;
    try {
      m = JSON.parse(data);
    } catch {
      fail(s, () => `${t("explore.failed")}${String(data).slice(0, 200)}`);
      return;
    }
    if (m.type === "progress" || m.type === "done") s.tasks[m.progress.task] = m.progress;
    if (m.type === "ready") {
      if (!s.plan) {
        s.plan = m.plan;
        s.queue = m.plan.tasks.map((_, i) => i);
      }
      next(s, k);
    } else if (m.type === "finding") {
      const f = m.finding;
      const old = s.findings.get(f.kind);
      if (!old || less(f.order, old.order)) s.findings.set(f.kind, f);
    } else if (m.type === "done") {
      next(s, k);
      if (s.plan.tasks.every((_, i) => s.tasks[i] && s.tasks[i].done)) halt(s, "done");
    } else if (m.type === "error") {
      // As the paste dialog says a scene's error (web/tools.js): where, then what, once.
      let what = String(m.error || "");
      if (m.line > 0) what = what.replace(/^[^\n:]*:\d+: /, "");
      if (m.key && what.startsWith(`${m.key}: `)) what = what.slice(m.key.length + 2);
      fail(s, () => {
        const where = [];
        if (m.line > 0) where.push(tv("explore.atLine", { n: m.line }));
        if (m.key) where.push(tv("explore.atKey", { key: m.key }));
        const msg = where.length ? where.join(t("sep.list")) + t("sep.colon") + what : what;
        return (m.line > 0 ? t("explore.badScene") : t("explore.failed")) + msg;
      });
      return;
    }
    scheduleRender();
  }

  // next hands worker k the next task, or lets it go when none is left.
  function next(s, k) {
    if (!s.queue.length) {
      s.current[k] = -1;
      s.freeMs[k] = performance.now() - s.startedAt;
      s.workers[k].terminate();
      return;
    }
    const i = s.queue.shift();
    s.current[k] = i;
    s.workers[k].postMessage(JSON.stringify({ type: "task", task: i }));
  }

  function halt(s, state) {
    for (const w of s.workers || []) w.terminate();
    s.state = state;
    s.endedAt = performance.now();
    if (document.activeElement === stopButton) refocusFind = true; // Stop goes away
  }

  // fail ends the search with an error: say() says it in the page's language.
  function fail(s, say) {
    if (search !== s) return;
    halt(s, "failed");
    s.error = say;
    render();
  }

  function stop() {
    const s = search;
    if (!s || (s.state !== "loading" && s.state !== "running")) return;
    halt(s, "stopped");
    render();
  }

  // The figures of every task, added up.
  function totals(s) {
    const out = { tried: 0, pruned: 0, found: 0, total: 0, claim: "", exhausted: true };
    for (const p of s.tasks) {
      if (!p) continue;
      out.tried += p.schedules;
      out.pruned += p.pruned;
      out.found += p.found;
      out.claim = p.claim || out.claim;
      if (s.plan) out.total = s.plan.points * s.plan.faults;
      out.exhausted = out.exhausted && p.exhausted;
    }
    return out;
  }

  // ---- loading a finding --------------------------------------------------------------
  function load(f) {
    const s = search;
    loadingFinding = true;
    let r;
    try {
      r = P.call("loadSource", f.scene, f.file);
      // The search ran with the page's settings; the finding's scene has the seed, and
      // gets the settings back here, so it plays as it was found.
      for (const [key, value] of failed(r) ? [] : s.job.changes) {
        const set = P.call("setSetting", key, value);
        if (failed(set)) r = set;
      }
    } finally {
      loadingFinding = false;
    }
    if (failed(r)) {
      s.error = () => `${t("explore.loadFailed")}${P.errorText(r)}`;
      render();
      return;
    }
    loadedFinding = f;
    s.error = null;
    P.notice(`${t("explore.loadedNotice")} ${f.file}`);
    render();
  }

  // The file "Save as scene" writes: the finding's scene, and a comment (in the page's
  // language) naming the settings the page set again after loading it, which this scene
  // file does not say itself.
  function savedText(f) {
    const changes = (search && search.job.changes) || [];
    if (!changes.length) return f.scene;
    const list = changes.map(([k, v]) => `${k}=${v}`).join(", ");
    return `# ${tv("explore.savedChanges", { changes: list })}\n${f.scene}`;
  }

  // ---- rendering ------------------------------------------------------------------------
  let scheduled = false;
  function scheduleRender() {
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(() => {
      scheduled = false;
      render();
    });
  }

  const findButton = el("button", { type: "button", id: "explore-find", class: "explore-find" });
  findButton.addEventListener("click", start);
  const stopButton = el("button", { type: "button", id: "explore-stop" });
  stopButton.addEventListener("click", stop);
  const heading = el("h3", { id: "explore-h" });
  const note = el("p", { class: "dim explore-note", id: "explore-note" });
  const status = el("p", { id: "explore-status", class: "explore-status" });
  const bar = el("progress", { id: "explore-bar", max: "1", value: "0" });
  const live = el("p", { id: "explore-live", class: "sr-only", role: "status" }); // state changes only, not every figure
  const error = el("p", { id: "explore-error", class: "error", role: "alert" });
  const list = el("ol", { id: "explore-findings", class: "explore-findings" });
  const scope = el("p", { id: "explore-scope", class: "dim explore-scope" });
  const loadedBox = el("div", { id: "explore-loaded", class: "explore-loaded" });
  const loadedText = el("p", { id: "explore-loaded-text" });
  const playButton = el("button", { type: "button", id: "explore-play" });
  // Play brings the canvas into sight first: the panel is below it, and a browser holds
  // back the frames of a canvas scrolled out of view.
  playButton.addEventListener("click", () => {
    const stage = document.querySelector(".stage");
    if (stage) stage.scrollIntoView({ block: "start" });
    P.call("play");
  });
  const shareButton = el("button", { type: "button", id: "explore-share" });
  shareButton.addEventListener("click", () => {
    const b = $("share-link"); // the page's own Copy link (web/tools.js)
    if (b) b.click();
  });
  const saveLink = el("a", { id: "explore-save", class: "button-like" });
  let saveURL = "";
  loadedBox.append(loadedText, el("div", { class: "explore-actions" }, playButton, shareButton, saveLink));
  panel.append(heading, note, el("div", { class: "explore-row" }, findButton, stopButton, bar), status, live, error, scope, list, loadedBox);
  panel.setAttribute("aria-labelledby", "explore-h");

  // outcome says what a finding's run did, in the page's words.
  function outcome(f) {
    if (f.kind === "invariant") return tv("explore.invariant", { text: f.invariant });
    const parts = [];
    const n = f.messages || {};
    if (n.lost > 0) parts.push(tv(n.lost === 1 ? "explore.loses" : "explore.losesMany", { n: n.lost }));
    if (n.duplicated > 0) parts.push(tv(n.duplicated === 1 ? "explore.duplicates" : "explore.duplicatesMany", { n: n.duplicated }));
    return parts.join(t("sep.list")) || verdictName(f.verdict);
  }

  function findingItem(f, claim) {
    const li = el("li", { class: "finding-item" });
    const b = el("button", { type: "button", class: `finding ${f.breaksClaim ? "breaks" : "admits"}`, title: t("explore.loadTitle") });
    b.dataset.kind = f.kind;
    b.dataset.verdict = f.verdict;
    b.dataset.breaks = String(f.breaksClaim);
    b.setAttribute("aria-current", String(f === loadedFinding));
    const count = f.faults.length === 1 ? t("explore.oneFault") : tv("explore.manyFaults", { n: f.faults.length });
    const head = el("span", { class: "finding-head" },
      el("span", { class: "finding-badge", text: tv(f.breaksClaim ? "explore.breaks" : "explore.admits", { claim: verdictName(claim) }) }),
      el("strong", { class: `finding-outcome ${f.messages && f.messages.lost > 0 ? "fate-lost" : "fate-duplicated"}`, text: outcome(f) }),
      el("span", { class: "finding-verdict", text: `${t("verdict")}${t("sep.colon")}${verdictName(f.verdict)}` }));
    const faults = el("span", { class: "finding-faults" }, el("span", { class: "dim", text: count + t("sep.colon") }),
      ...f.faults.map((x, i) => el("span", { class: "finding-fault", text: (i ? t("sep.list") : "") + pick(x) })));
    b.append(head, faults);
    b.addEventListener("click", () => load(f));
    li.append(b);
    // A counterexample beside the scene it breaks: the scene as it is (A) and the run with
    // the found faults (B), in lockstep (web/twin.js).
    if (P.openTwinSource) {
      const twin = el("button", { type: "button", class: "finding-twin", text: t("explore.asTwin"), title: t("explore.asTwinTitle") });
      twin.dataset.kind = f.kind;
      twin.addEventListener("click", () => P.openTwinSource(f.scene, f.file, (search && search.job.changes) || []));
      li.append(twin);
    }
    return li;
  }

  let lastLive = "";
  let lastListKey = "";
  let refocusFind = false;
  function render() {
    heading.textContent = t("explore.title");
    note.textContent = t("explore.note");
    findButton.textContent = t("explore.find");
    findButton.title = t("explore.findTitle");
    stopButton.textContent = t("explore.stop");
    playButton.textContent = t("play");
    shareButton.textContent = t("tools.share");
    saveLink.textContent = t("explore.save");
    saveLink.title = t("explore.saveTitle");
    const s = search;
    const busy = Boolean(s) && (s.state === "loading" || s.state === "running");
    findButton.disabled = busy;
    stopButton.disabled = !busy;
    stopButton.hidden = !busy;
    if (refocusFind && !busy) {
      refocusFind = false;
      findButton.focus();
    }
    panel.dataset.state = s ? s.state : "idle";
    if (!s) {
      lastListKey = "";
      status.textContent = "";
      bar.hidden = true;
      error.hidden = true;
      scope.hidden = true;
      list.replaceChildren();
      loadedBox.hidden = true;
      return;
    }
    const n = totals(s);
    const ms = (s.endedAt || performance.now()) - s.startedAt;
    const vars = { tried: n.tried, total: n.total, pruned: n.pruned, found: n.found, secs: secs(ms), kinds: s.findings.size };
    let text = "";
    if (s.state === "loading") text = t("explore.loading");
    else if (s.state === "running") text = tv("explore.running", vars);
    else if (s.state === "done") text = tv(n.exhausted ? "explore.done" : "explore.budget", vars);
    else if (s.state === "stopped") text = tv("explore.stopped", vars);
    else if (s.state === "failed") text = n.tried ? tv("explore.stopped", vars) : "";
    status.textContent = text;
    status.dataset.tried = String(n.tried);
    status.dataset.found = String(n.found);
    status.dataset.total = String(n.total);
    bar.hidden = s.state !== "running";
    bar.value = n.total ? Math.min(1, (n.tried + n.pruned) / n.total) : 0;
    error.hidden = !s.error;
    error.textContent = s.error ? s.error() : "";

    const sayLive = s.state === "running" ? t("explore.searching") : s.state === "loading" ? t("explore.loading") : text;
    if (sayLive !== lastLive) {
      lastLive = sayLive;
      live.textContent = sayLive;
    }

    const found = [...s.findings.values()].sort((a, b) => (a.breaksClaim !== b.breaksClaim ? (a.breaksClaim ? -1 : 1) : less(a.order, b.order) ? -1 : 1));
    scope.hidden = !s.title || (!found.length && s.state !== "running" && s.state !== "done");
    scope.textContent = s.title ? tv("explore.scope", { title: pick(s.title) }) : "";
    // Rebuilt only when what it shows changes, not on every figure: a finding keeps the
    // keyboard's focus while the search goes on.
    const listKey = [P.lang(), s.state === "done", s.state, n.claim, loadedFinding ? loadedFinding.order.join(",") + loadedFinding.kind : "",
      ...found.map((f) => `${f.kind}@${f.order.join(",")}`)].join("|");
    if (listKey === lastListKey) {
      // unchanged
    } else if (found.length) {
      const focused = document.activeElement && list.contains(document.activeElement) ? document.activeElement.dataset.kind : "";
      list.replaceChildren(...found.map((f) => findingItem(f, n.claim)));
      const again = focused && [...list.querySelectorAll("button.finding")].find((b) => b.dataset.kind === focused);
      if (again) again.focus();
    } else if (s.state === "done") {
      list.replaceChildren(el("li", { class: "dim", text: tv("explore.nothing", { claim: verdictName(n.claim) }) }));
    } else if (s.state === "running") {
      list.replaceChildren(el("li", { class: "dim", text: t("explore.noneYet") }));
    } else {
      list.replaceChildren();
    }
    lastListKey = listKey;

    loadedBox.hidden = !loadedFinding;
    if (loadedFinding) {
      loadedText.textContent = tv("explore.loaded", { file: loadedFinding.file });
      const key = `${P.lang()}|${loadedFinding.file}|${loadedFinding.order.join(",")}`;
      if (saveLink.dataset.for !== key) {
        if (saveURL) URL.revokeObjectURL(saveURL);
        saveURL = URL.createObjectURL(new Blob([savedText(loadedFinding)], { type: "application/yaml" }));
        saveLink.href = saveURL;
        saveLink.download = loadedFinding.file;
        saveLink.dataset.for = key;
      }
    }
  }

  // Another scene than a finding of this search: the search is of the scene before, so
  // it stops and its findings go.
  P.on("loaded", () => {
    if (loadingFinding || !search) return;
    if (search.state === "loading" || search.state === "running") halt(search, "stopped");
    search = null;
    loadedFinding = null;
    render();
  });
  P.on("lang", render);
  render();

  // For the browser tests: the search's figures as the panel has them.
  window.deliverylabExplore = {
    state: () => {
      const s = search;
      if (!s) return { state: "idle", workers: WORKERS };
      const n = totals(s);
      return { state: s.state, workers: WORKERS, ...n, kinds: s.findings.size, error: s.error ? s.error() : "",
        elapsedMs: (s.endedAt || performance.now()) - s.startedAt,
        tasks: s.plan ? s.plan.tasks.length : 0,
        freeMs: s.freeMs || [], // when each worker found no task left, from the start
        findings: [...s.findings.values()] };
    },
  };
})();
