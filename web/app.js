// The page around the canvas: scene picker, controls, scrubber, captions and the ledger,
// all as DOM text so any script renders with the system's fonts. The game runs in the
// iframe #game (Ebiten wants a document of its own); window.deliverylab here is the
// page's facade over the game's bridge, used by these controls and by the browser tests,
// and window.deliverylabPage (the extension API below) is what web/tools.js builds on.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const frame = $("game");

  // ---- words ----------------------------------------------------------------------
  // Every word is in web/words.js, loaded first; here are only the lists that order them.
  const STRINGS = window.deliverylabWords;
  if (!STRINGS) throw new Error("deliverylab: web/words.js must load before app.js");
  // A message's fates, in the order the counts show them (each is the word "fate.<name>").
  const COUNT_ORDER = ["sent", "acked", "delivered", "lost", "duplicated", "unavailable", "failed", "pending"];
  // The keys, for the help overlay: [keys shown, the word saying what they do].
  const KEY_HELP = [
    ["Space", "key.space"],
    ["→", "key.stepOn"],
    ["←", "key.stepBack"],
    ["+  −", "key.speed"],
    ["R", "key.restart"],
    ["L", "key.lang"],
    ["P", "key.projector"],
    ["?", "key.help"],
    ["Esc", "key.close"],
  ];
  // The legend: every badge, line and cell the canvas draws (wasm/static.go, wasm/draw.go,
  // wasm/view/color.go), each with a swatch drawn the same way. [swatch class, swatch text
  // (Kafka's names and sample cells, the same in both languages; or a badge() word, the
  // canvas's own, wasm/view/words.go), the word saying what it means].
  const badge = (key) => ({ word: key });
  const LEGEND = [
    ["sw-leader", "L", "legend.leader"],
    ["sw-follower", "F", "legend.follower"],
    ["sw-row", "hw 3", "legend.replicaRow"],
    ["sw-hw", "", "legend.hw"],
    ["sw-lso", "", "legend.lso"],
    ["sw-group", "", "legend.group"],
    ["sw-reader", "", "legend.reader"],
    ["sw-cell sw-committed", "p1#3", "legend.committed"],
    ["sw-cell sw-uncommitted", "p1#4", "legend.uncommitted"],
    ["sw-cell sw-seq", "0:3", "legend.seq"],
    ["sw-cell sw-control", "c1@4", "legend.control"],
    ["sw-cell sw-commit", "COMMIT", "legend.commit"],
    ["sw-cell sw-abort", "ABORT", "legend.abort"],
    ["sw-cell sw-aborted", "p1#5", "legend.aborted"],
    ["sw-cell sw-reordered", "p1#2", "legend.reordered"],
    ["sw-truncated", "p1#6", "legend.truncated"],
    ["sw-cell sw-dup-row", "p1#7", "legend.dupRow"],
    ["sw-refused", "p1#7", "legend.refused"],
    ["sw-dot", "", "legend.dot"],
    ["sw-dot sw-bounced", "", "legend.bounced"],
    ["sw-link", "", "legend.link"],
    ["sw-cut", "", "legend.cut"],
    ["sw-down", badge("legend.down.badge"), "legend.down"],
    ["sw-paused", badge("legend.paused.badge"), "legend.paused"],
    ["sw-blocked", badge("legend.blocked.badge"), "legend.blocked"],
    ["sw-fenced", badge("legend.fenced.badge"), "legend.fenced"],
    ["sw-row", "txn", "legend.txnRow"],
    ["sw-kinds", "kinds", "legend.kinds"],
    ["sw-streams", "streams", "legend.streams"],
    ["sw-job", "map-0", "legend.job"],
    ["sw-barrier", "", "legend.barrier"],
    ["sw-row", "+2", "legend.hiddenRows"],
    ["sw-highlight", "", "legend.highlight"],
  ];
  const SPEEDS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 25, 100];
  // At ×½ every shipped scene plays end to end in 17–86 s when nobody interferes (the game
  // shows 25 virtual ms a second ×speed, 200× faster while only background traffic is on
  // the wire): a class follows one request across the wire and sees the whole story in a
  // minute or so. browsertest/scrubber_test.go measures it per scene.
  const DEFAULT_SPEED = 0.5;

  // ---- language -------------------------------------------------------------------
  const stored = (() => {
    try {
      return localStorage.getItem("deliverylab.lang");
    } catch {
      return null;
    }
  })();
  let lang = new URLSearchParams(location.search).get("lang") || stored ||
    ((navigator.language || "").startsWith("zh") ? "zh" : "en");
  if (lang !== "zh") lang = "en";

  const t = (key) => (STRINGS[key] ? STRINGS[key][lang] || STRINGS[key].en : key);
  const pick = (text) => (text ? text[lang] || text.en || "" : "");
  const fateName = (f) => (STRINGS[`fate.${f}`] ? t(`fate.${f}`) : f);
  const verdictName = (v) => (STRINGS[`verdict.${v}`] ? t(`verdict.${v}`) : v);
  const errorText = (r) => (r ? (lang === "zh" && r.errorZh) || r.error || "" : "");
  // untimed drops a leading "120 ms: " (or its Chinese form) from a text the page shows
  // beside its own time, whatever the page's language: the core's text may be in either.
  const either = (key) => [STRINGS[key].en.trim(), STRINGS[key].zh.trim()];
  const timedPrefix = new RegExp(`^\\d+ (${either("core.ms").join("|")})\\s*[${either("sep.colon").join("")}]\\s*`);
  const untimed = (text) => text.replace(timedPrefix, "");
  const pageError = (key, detail = "") => ({ error: STRINGS[key].en + detail, errorZh: STRINGS[key].zh + detail });

  function setLang(l) {
    lang = l === "zh" ? "zh" : "en";
    try {
      localStorage.setItem("deliverylab.lang", lang);
    } catch {
      // storage may be disabled; the choice then lasts for this page only
    }
    document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
    for (const b of document.querySelectorAll("[data-lang]")) {
      b.setAttribute("aria-pressed", String(b.dataset.lang === lang));
    }
    for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
    for (const el of document.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
    for (const el of document.querySelectorAll("[data-i18n-aria]")) el.setAttribute("aria-label", t(el.dataset.i18nAria));
    renderScenes();
    renderLegend();
    renderHelp();
    canvas("setLang", lang);
    keys = {};
    scheduleRender(true);
    emit("lang", lang);
    return { ok: true };
  }

  // ---- the facade: window.deliverylab ---------------------------------------------
  const inner = () => {
    try {
      return frame.contentWindow && frame.contentWindow.deliverylab;
    } catch {
      return null;
    }
  };

  // call forwards to the game's bridge. Commands mark the page for a re-render; reads
  // (state, version, scenes) do not, or polling would re-render every frame.
  const READS = new Set(["state", "version", "scenes", "menuAt", "faultHelp", "shareLink", "sceneSource", "diagram", "runJSON", "chart", "takeCapture", "wholeDiagram"]);
  function call(name, ...args) {
    if (window.deliverylabCrashed) return pageError("hasCrashed", window.deliverylabCrashed);
    const b = inner();
    if (!b || !b.ready) return pageError("stillLoading");
    if (typeof b[name] !== "function") return pageError("notAvailable", name);
    if (!READS.has(name)) scheduleRender();
    const r = b[name](...args);
    // Whoever loads (the scene list, web/tools.js, a test), the page follows the new scene.
    if (LOADS.has(name) && r && !r.error) afterLoad(name === "load" ? String(args[0]) : "", name === "load");
    return r;
  }
  const LOADS = new Set(["load", "loadSource", "openLink"]);
  // canvas calls a canvas-only method (setLang, setProjector, highlight) when the game
  // has it: a page without it still works, it just shows less.
  function canvas(name, ...args) {
    const b = inner();
    if (b && b.ready && typeof b[name] === "function") call(name, ...args);
  }

  // Node rectangles come from the game in canvas CSS pixels (rect). Here each also gets
  // clientRect (the top-level viewport, where mouse events point) and pageRect (the
  // document, scroll included); messages get clientPos and pagePos, links clientA/clientB.
  function addPageCoords(s) {
    const r = frame.getBoundingClientRect();
    const cx = r.left + frame.clientLeft;
    const cy = r.top + frame.clientTop;
    const shift = (o, dx, dy) => ({ ...o, x: o.x + dx, y: o.y + dy });
    s.canvasClientRect = { x: cx, y: cy, w: s.canvas.w, h: s.canvas.h };
    for (const n of s.nodes || []) {
      n.clientRect = shift(n.rect, cx, cy);
      n.pageRect = shift(n.rect, cx + scrollX, cy + scrollY);
    }
    for (const f of s.inFlight || []) {
      f.clientPos = shift(f.pos, cx, cy);
      f.pagePos = shift(f.pos, cx + scrollX, cy + scrollY);
    }
    for (const l of s.links || []) {
      if (l.a && l.b) {
        l.clientA = shift(l.a, cx, cy);
        l.clientB = shift(l.b, cx, cy);
      }
    }
    return s;
  }

  let speed = DEFAULT_SPEED;
  const api = {
    ready: false,
    renderedView: -1, // the game's view (state().view) the DOM shows
    scenes: () => call("scenes"),
    load: (name) => call("load", name),
    // A teacher's own scene and share links (web/tools.js): loaded like a shipped scene,
    // but the hash is theirs to set.
    loadSource: (text, fileName) => call("loadSource", text, fileName),
    openLink: (hash) => call("openLink", hash),
    shareLink: () => call("shareLink"),
    // The run so far as a space-time diagram: {svg, file} (core/diagram).
    diagram: () => call("diagram"),
    // The run so far as one document: {run, file} (play.Export).
    runJSON: () => call("runJSON"),
    // The scene file as loaded, with the settings and seed changed here (web/explore.js).
    sceneSource: () => call("sceneSource"),
    setSetting: (key, value) => call("setSetting", key, value),
    setSeed: (n) => call("setSeed", n),
    menuAt: (x, y) => call("menuAt", x, y),
    faultHelp: () => call("faultHelp"),
    readyAtMs: -1, // performance.now() when the page became interactive (paint_test.go)
    play: () => call("play"),
    pause: () => call("pause"),
    step: () => call("step"),
    stepBack: () => call("stepBack"),
    continue: () => call("continue"),
    seek: (ms) => call("seek", ms),
    runToEnd: () => call("runToEnd"),
    inject: (fault) => call("inject", fault),
    highlight: (what) => call("highlight", what),
    setProjector: (on) => setProjector(Boolean(on)),
    setSpeed(x) {
      const r = call("setSpeed", x);
      if (!r.error) {
        speed = x;
        $("speed").value = String(x);
      }
      return r;
    },
    state() {
      const s = call("state");
      return s && !s.error ? addPageCoords(s) : s;
    },
    version: () => call("version"),
    setLang,
  };
  window.deliverylab = api;

  // ---- the page's extension API, for web/tools.js ------------------------------------
  const listeners = { render: [], lang: [], loaded: [] };
  function emit(event, arg) {
    for (const fn of listeners[event] || []) {
      try {
        fn(arg);
      } catch (err) {
        console.error(`deliverylab: a ${event} listener failed:`, err);
      }
    }
  }
  const ext = {
    call,
    lang: () => lang,
    t,
    addStrings(more) {
      Object.assign(STRINGS, more);
    },
    errorText,
    on(event, fn) {
      if (!listeners[event]) throw new Error(`deliverylabPage.on: no event "${event}" (render, lang, loaded)`);
      listeners[event].push(fn);
    },
    notice: (text) => showNotice(text),
    loadScene: (name) => api.load(name),
    openFromHash: null,
    onCanvasMenu: null,
  };
  window.deliverylabPage = ext;

  // ---- loading, readiness and crashes ---------------------------------------------
  let scenes = [];
  let current = "";

  // The frame's main.wasm download, compile and Go start-up would keep the CPU busy
  // before the shell's first paint reaches the screen (on two cores, compiling 20 MB of
  // WebAssembly starves the raster and compositor threads): the frame gets its source
  // only once the browser reports the first contentful paint, or after a second if it
  // never does (a tab in the background, a browser without paint timing).
  let started = false;
  function startGame() {
    if (started) return;
    started = true;
    frame.src = "game.html";
  }
  try {
    new PerformanceObserver((list, observer) => {
      if (list.getEntriesByName("first-contentful-paint").length) {
        observer.disconnect();
        startGame();
      }
    }).observe({ type: "paint", buffered: true });
  } catch {
    requestAnimationFrame(() => setTimeout(startGame, 0));
  }
  setTimeout(startGame, 1000);

  window.addEventListener("message", (e) => {
    if (e.source !== frame.contentWindow || !e.data || e.data.source !== "deliverylab") return;
    const m = e.data;
    if (m.type === "progress") {
      const loader = $("loader");
      if (m.total > 0) {
        const pct = Math.min(100, (100 * m.loaded) / m.total);
        loader.classList.remove("indeterminate");
        $("bar-fill").style.width = `${pct}%`;
        loader.querySelector(".bar").setAttribute("aria-valuenow", String(Math.round(pct)));
        $("loader-detail").textContent = `${(m.loaded / 1048576).toFixed(1)} / ${(m.total / 1048576).toFixed(1)} MB`;
      } else {
        loader.classList.add("indeterminate");
        $("loader-detail").textContent = `${(m.loaded / 1048576).toFixed(1)} MB`;
      }
    } else if (m.type === "starting") {
      $("bar-fill").style.width = "100%";
      $("loader-text").dataset.i18n = "starting";
      $("loader-text").textContent = t("starting");
    } else if (m.type === "changed") {
      scheduleRender();
    } else if (m.type === "ready") {
      onReady();
    } else if (m.type === "crashed") {
      onCrashed(m.detail);
    } else if (m.type === "key") {
      onKey(m, null);
    } else if (m.type === "contextmenu") {
      const r = frame.getBoundingClientRect();
      if (typeof ext.onCanvasMenu === "function") {
        ext.onCanvasMenu(m.x, m.y, r.left + frame.clientLeft + m.x, r.top + frame.clientTop + m.y);
      }
    }
  });

  function onReady() {
    if (api.ready || window.deliverylabCrashed) return;
    api.ready = true;
    api.readyMs = performance.now(); // when the page became ready to play (make bench)
    const list = call("scenes");
    scenes = Array.isArray(list) ? list : [];
    renderScenes();
    canvas("setLang", lang);
    api.setSpeed(speed);
    const hash = location.hash.slice(1);
    if (!openHash(hash)) {
      const first = scenes.find((s) => s.name === safeDecode(hash)) || scenes[0];
      if (first) api.load(first.name);
    }
    $("loader").classList.add("done");
    api.readyAtMs = performance.now();
    for (const el of document.querySelectorAll(".controls [disabled], .inject [disabled], #scene-select")) {
      el.disabled = false;
    }
    scheduleRender(true);
  }

  const safeDecode = (s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };

  // openHash gives the hash to web/tools.js first (share links), and otherwise loads the
  // shipped scene it names; it reports whether something was opened.
  function openHash(hash) {
    if (typeof ext.openFromHash === "function" && ext.openFromHash(hash)) return true;
    const name = safeDecode(hash);
    if (!scenes.some((s) => s.name === name)) return false;
    if (name !== current) api.load(name);
    return true;
  }
  window.addEventListener("hashchange", () => {
    if (api.ready) openHash(location.hash.slice(1));
  });

  // afterLoad follows a new scene: a shipped one (name) is named in the hash, so a reload
  // or a bookmark opens it again.
  function afterLoad(name, shipped) {
    const s = api.state();
    current = shipped ? name : (s && s.source && s.source.kind === "shipped" && s.source.name) || "";
    maxSeenMs = 0;
    selected = "";
    if (shipped && location.hash.slice(1) !== encodeURIComponent(name)) {
      history.replaceState(null, "", `#${encodeURIComponent(name)}`);
    }
    markCurrentScene();
    if (s && !s.error) emit("loaded", s);
  }

  function onCrashed(reason) {
    if (window.deliverylabCrashed && $("crashed").textContent) return;
    window.deliverylabCrashed = reason || "crashed";
    api.ready = false;
    const banner = $("crashed");
    banner.textContent = t("crashed") + window.deliverylabCrashed;
    banner.hidden = false;
    for (const el of document.querySelectorAll(".controls button, .controls select, .scrubber input, .inject button")) {
      el.disabled = true;
    }
  }

  // ---- scene picker: cards (wide windows) and a select (everywhere else) --------------
  function renderScenes() {
    if (!scenes.length) return;
    $("scene-list").replaceChildren(
      ...scenes.map((s) => {
        const li = document.createElement("li");
        const b = document.createElement("button");
        b.type = "button";
        b.dataset.scene = s.name;
        b.textContent = pick(s.title) || s.name;
        const small = document.createElement("small");
        small.textContent = pick(s.summary);
        b.title = pick(s.summary);
        b.append(small);
        b.addEventListener("click", () => api.load(s.name));
        li.append(b);
        return li;
      }),
    );
    $("scene-select").replaceChildren(
      ...scenes.map((s) => {
        const o = document.createElement("option");
        o.value = s.name;
        o.textContent = pick(s.title) || s.name;
        return o;
      }),
    );
    markCurrentScene();
  }

  function markCurrentScene() {
    for (const b of document.querySelectorAll("#scene-list button")) {
      b.setAttribute("aria-current", String(b.dataset.scene === current));
    }
    const sel = $("scene-select");
    if (scenes.some((s) => s.name === current)) sel.value = current;
  }
  $("scene-select").addEventListener("change", (e) => {
    api.load(e.target.value);
    e.target.blur(); // the keys are the playground's again
  });

  // ---- controls -------------------------------------------------------------------
  let last = null; // the last state rendered
  let pendingSeek = null;
  let dragging = false;

  // Each command reports a refusal (e.g. no step back at 0 ms) in the notice line.
  const report = (r) => {
    if (r && r.error) showNotice(errorText(r));
    return r;
  };
  const fresh = () => {
    const s = api.state();
    return s && !s.error && s.loaded ? s : null;
  };

  // togglePlay acts on the state as it is now, not as it was last drawn: right after
  // Run to end the DOM may still show the state before it.
  function togglePlay() {
    const s = fresh();
    if (!s) return;
    if (s.waitingCaption >= 0) {
      report(api.continue());
    } else if (s.ended) {
      report(api.seek(0));
      report(api.play());
    } else if (s.playing) {
      report(api.pause());
    } else {
      report(api.play());
    }
  }
  const step = () => report(api.step());
  const stepBack = () => report(api.stepBack());
  const restart = () => report(api.seek(0));
  function speedBy(dir) {
    const i = SPEEDS.findIndex((x) => x >= speed - 1e-9);
    const at = i < 0 ? SPEEDS.length - 1 : SPEEDS[i] > speed + 1e-9 && dir > 0 ? i - 1 : i;
    const next = SPEEDS[Math.max(0, Math.min(SPEEDS.length - 1, at + dir))];
    if (next !== speed && !report(api.setSpeed(next)).error) showNotice(`${t("speedNow")} ×${next}`);
  }

  $("play").addEventListener("click", togglePlay);
  $("step").addEventListener("click", step);
  $("step-back").addEventListener("click", stepBack);
  $("run-end").addEventListener("click", () => report(api.runToEnd()));
  $("restart").addEventListener("click", restart);
  $("speed").addEventListener("change", (e) => {
    report(api.setSpeed(Number(e.target.value)));
    e.target.blur(); // a select keeps its keys; give them back to the playground
  });
  const seek = $("seek");
  seek.addEventListener("pointerdown", () => (dragging = true));
  seek.addEventListener("pointerup", () => (dragging = false));
  // Seeking replays the run from the start, so drags are coalesced to one per frame.
  seek.addEventListener("input", () => {
    pendingSeek = Number(seek.value);
    scheduleRender();
  });
  for (const b of document.querySelectorAll("[data-lang]")) {
    b.addEventListener("click", () => setLang(b.dataset.lang));
  }
  $("inject-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("fault").value.trim();
    if (!text) return;
    const r = api.inject(text);
    $("fault-error").textContent = errorText(r);
    if (!r.error) $("fault").value = "";
  });

  // ---- projector mode and the help overlay ----------------------------------------
  let projector = false;
  let ownFullscreen = false; // the page entered fullscreen for the projector
  function setProjector(on) {
    projector = on;
    document.body.classList.toggle("projector", on);
    $("projector").setAttribute("aria-pressed", String(on));
    canvas("setProjector", on);
    const root = document.documentElement;
    if (on && !document.fullscreenElement && root.requestFullscreen) {
      // Refused without a user gesture (or in a test): the mode works in the window too.
      root.requestFullscreen().then(() => (ownFullscreen = true), () => {});
    } else if (!on && ownFullscreen && document.fullscreenElement) {
      ownFullscreen = false;
      document.exitFullscreen().catch(() => {});
    }
    return { ok: true };
  }
  document.addEventListener("fullscreenchange", () => {
    if (!document.fullscreenElement && ownFullscreen) {
      ownFullscreen = false; // Esc left fullscreen: leave the projector mode with it
      if (projector) setProjector(false);
    }
  });
  $("projector").addEventListener("click", () => setProjector(!projector));

  let helpReturn = null; // what had focus before the help opened
  function setHelp(open) {
    const help = $("help");
    if (open === !help.hidden) return;
    help.hidden = !open;
    if (open) {
      helpReturn = document.activeElement;
      $("help-close").focus();
    } else if (helpReturn && helpReturn.focus && helpReturn !== document.body) {
      helpReturn.focus();
    }
  }
  $("help-button").addEventListener("click", () => setHelp(true));
  $("help-close").addEventListener("click", () => setHelp(false));
  $("help").addEventListener("click", (e) => {
    if (e.target === $("help")) setHelp(false);
  });

  function renderHelp() {
    $("help-keys").replaceChildren(
      ...KEY_HELP.flatMap(([k, word]) => {
        const dt = document.createElement("dt");
        for (const part of k.split(/\s+/)) {
          const kbd = document.createElement("kbd");
          kbd.textContent = part === "Space" ? t("kbd.space") : part;
          dt.append(kbd, " ");
        }
        const dd = document.createElement("dd");
        dd.textContent = t(word);
        return [dt, dd];
      }),
    );
  }

  function renderLegend() {
    $("legend-list").replaceChildren(
      ...LEGEND.map(([cls, sample, word]) => {
        const li = document.createElement("li");
        const sw = document.createElement("span");
        sw.className = `sw ${cls}`;
        sw.setAttribute("aria-hidden", "true");
        if (cls.includes("sw-kinds")) {
          for (const c of ["#38bdf8", "#f59e0b", "#a78bfa", "#34d399", "#a3e635", "#f472b6", "#f0abfc"]) {
            const i = document.createElement("i");
            i.style.borderColor = c;
            sw.append(i);
          }
        } else {
          sw.textContent = typeof sample === "object" ? t(sample.word) : sample;
        }
        const text = document.createElement("span");
        text.textContent = t(word);
        li.append(sw, text);
        return li;
      }),
    );
  }

  // ---- keys: the same ones whatever has focus -------------------------------------
  // The page's own keydowns (capture phase, before a focused button sees them) and the
  // ones the canvas frame forwards (web/game.js) both end here.
  const KEYS = {
    " ": togglePlay,
    ArrowRight: step,
    ".": step,
    ArrowLeft: stepBack,
    "+": () => speedBy(1),
    "=": () => speedBy(1),
    "-": () => speedBy(-1),
    _: () => speedBy(-1),
    r: restart,
    R: restart,
    l: () => setLang(lang === "zh" ? "en" : "zh"),
    L: () => setLang(lang === "zh" ? "en" : "zh"),
    p: () => setProjector(!projector),
    P: () => setProjector(!projector),
    "?": () => setHelp($("help").hidden),
    Escape: () => setHelp(false),
  };
  const REPEATS = new Set(["ArrowRight", "ArrowLeft", ".", "+", "=", "-", "_"]); // held down: again and again

  // typing reports whether an element keeps its own keys: text fields and selects.
  function typing(el) {
    if (!el || !el.closest) return false;
    if (el.isContentEditable || el.closest("textarea, select")) return true;
    const input = el.closest("input");
    return Boolean(input) && !["range", "button", "checkbox", "radio", "submit", "reset"].includes(input.type);
  }

  // onKey runs a key's action; it returns whether it did. e is the page's own event.
  function onKey(k, e) {
    if (k.ctrlKey || k.metaKey || k.altKey) return false;
    const action = KEYS[k.key];
    if (!action) return false;
    if (e && typing(e.target)) return false;
    if (k.repeat && !REPEATS.has(k.key)) return true;
    action();
    return true;
  }
  document.addEventListener("keydown", (e) => {
    if (onKey(e, e)) e.preventDefault(); // a focused button never sees the Space
  }, { capture: true });
  // A button is clicked by Space on keyup: a Space this page handled never gets there.
  document.addEventListener("keyup", (e) => {
    if (e.key === " " && !typing(e.target)) e.preventDefault();
  }, { capture: true });

  // ---- rendering: when the game says something changed ---------------------------
  // The game posts "changed" from its Update and this page's commands schedule a render;
  // at most one render per animation frame, and none at all while the run is paused.
  let scheduled = false;
  let force = true;
  let lastView = -1;
  let keys = {};
  let maxSeenMs = 0;
  let noticeSeq = 0;
  let noticeTimer = 0;
  let selected = ""; // the ledger row chosen, by message id
  let highlighted = "{}"; // what the canvas was last asked to highlight

  function scheduleRender(forceAll) {
    if (forceAll) force = true;
    if (scheduled) return;
    scheduled = true;
    requestAnimationFrame(renderNow);
  }

  function renderNow() {
    scheduled = false;
    if (!api.ready) return;
    if (pendingSeek !== null) {
      const ms = pendingSeek;
      pendingSeek = null;
      report(api.seek(ms));
    }
    const v = call("version");
    if (v === lastView && !force) return;
    lastView = v;
    force = false;
    const s = api.state();
    if (s && !s.error) {
      render(s);
      api.renderedView = s.view; // tests wait for this before reading the DOM
      if (s.loaded) emit("render", s);
    }
  }

  // The ready or crashed message can arrive before this script listens: look as well,
  // until one of them has happened.
  const watch = setInterval(() => {
    if (api.ready || window.deliverylabCrashed) {
      clearInterval(watch);
      return;
    }
    let crashed = "";
    try {
      crashed = frame.contentWindow && frame.contentWindow.deliverylabCrashed;
    } catch {
      crashed = "";
    }
    const b = inner();
    if (crashed) {
      onCrashed(crashed);
    } else if (b && b.ready) {
      onReady();
    }
  }, 200);

  // changed reports whether a section's key differs from the last render's.
  function changed(section, key) {
    if (keys[section] === key) return false;
    keys[section] = key;
    return true;
  }

  function showNotice(text) {
    const n = $("notice");
    n.textContent = text;
    n.hidden = !text;
    clearTimeout(noticeTimer);
    noticeTimer = setTimeout(() => (n.hidden = true), 6000);
  }

  function render(s) {
    last = s;
    if (!s.loaded) return;
    if (changed("head", `${s.scene}|${lang}`)) {
      $("scene-title").textContent = pick(s.title) || s.scene;
      $("scene-title").title = pick(s.title) || s.scene;
      $("scene-summary").textContent = pick(s.summary);
    }
    if (changed("release", `${pick(s.releaseNote || {})}|${lang}`)) {
      const note = pick(s.releaseNote || {});
      $("release-note").textContent = note;
      $("release-note").hidden = !note;
    }
    renderControls(s);
    renderScrubber(s);
    renderCaptions(s);
    renderStatus(s);
    renderLedger(s);
    renderEndWhy(s);
    renderSceneFaults(s);
    renderFaults(s);
    renderBranch(s);
    renderErrors(s);
    renderHighlight(s);
    if (changed("trace", (s.trace || []).join("\n"))) $("trace").textContent = keys.trace;
    if (s.lastError && s.lastError.seq > noticeSeq) {
      noticeSeq = s.lastError.seq;
      showNotice((lang === "zh" && s.lastError.textZh) || s.lastError.text);
    }
  }

  function renderControls(s) {
    const play = $("play");
    const word = s.waitingCaption >= 0 ? "continue" : s.ended ? "replay" : s.playing ? "pause" : "play";
    play.dataset.i18n = word;
    play.textContent = t(word);
    $("step").disabled = s.ended;
    $("run-end").disabled = s.ended;
    $("step-back").disabled = !s.canStepBack;
    speed = s.speed || speed;
    if (document.activeElement !== $("speed")) $("speed").value = String(speed);
  }

  // The scrubber spans the whole run (timeline.lengthMs, which the session learns by
  // running a copy to the end); before that is known, the time seen so far. A long run
  // is learned a slice a frame (timeline.learning): the scrubber grows meanwhile.
  function renderScrubber(s) {
    maxSeenMs = Math.max(maxSeenMs, s.nowMs);
    const tl = s.timeline;
    const length = Math.max(tl ? tl.lengthMs : maxSeenMs, s.nowMs, 1);
    seek.max = String(length);
    if (!dragging && pendingSeek === null) seek.value = String(s.nowMs);
    $("time").textContent = `${s.nowMs} ms`;
    const learning = Boolean(tl && tl.learning);
    $("length").textContent = learning ? ` / ≥ ${length} ms · ${t("learningLength")}` : ` / ${length} ms`;
    $("length").dataset.learning = String(learning);
    const marks = (tl && tl.marks) || [];
    const future = (s.faultList || []).map((f) => f.future);
    const sceneDone = (s.sceneFaults || []).map((f) => f.done);
    if (!changed("marks", `${lang}|${length}|${JSON.stringify(marks)}|${future}|${sceneDone}`)) return;
    const markWord = { fault: "faultMark", caption: "captionMark", "scene-fault": "sceneFaultMark" };
    $("marks").replaceChildren(
      ...marks.map((m) => {
        const b = document.createElement("button");
        b.type = "button";
        b.className = `mark mark-${m.kind}`;
        if (m.kind === "fault" && future[m.index]) b.classList.add("future");
        if (m.kind === "scene-fault" && !sceneDone[m.index]) b.classList.add("future");
        b.style.left = `${(100 * Math.min(m.atMs, length)) / length}%`;
        b.dataset.at = String(m.atMs);
        b.dataset.kind = m.kind;
        const label = `${m.atMs} ms · ${t(markWord[m.kind] || "captionMark")}${t("sep.colon")}${untimed(pick(m.text))}`;
        b.title = label;
        b.setAttribute("aria-label", label);
        b.addEventListener("click", () => report(api.seek(m.atMs)));
        return b;
      }),
    );
  }

  function renderCaptions(s) {
    const caps = s.captions || [];
    const from = s.faultsFromMs ?? -1;
    const key = `${s.scene}|${lang}|${from}|${s.waitingCaption}|${caps.map((c) => `${c.index}@${c.atMs}`).join(",")}`;
    if (!changed("captions", key)) return;
    const ol = $("captions");
    const offScript = (c) => from >= 0 && c.atMs >= from;
    ol.replaceChildren(
      ...caps.map((c, i) => {
        const li = document.createElement("li");
        if (i === caps.length - 1) li.classList.add("current");
        if (c.index !== undefined) li.dataset.index = String(c.index);
        if (offScript(c)) {
          li.classList.add("off-script");
          li.title = t("offScript");
        }
        const b = document.createElement("button");
        b.type = "button";
        b.className = "cap";
        b.title = t("captionSeek");
        const at = document.createElement("span");
        at.className = "at";
        at.textContent = `${c.atMs} ms`;
        b.append(at, document.createTextNode(c[lang] || c.en));
        b.addEventListener("click", () => report(api.seek(c.atMs)));
        li.append(b);
        if (s.waitingCaption >= 0 && c.index === s.waitingCaption) {
          li.classList.add("waiting");
          const go = document.createElement("button");
          go.type = "button";
          go.className = "continue";
          go.textContent = t("continue");
          go.title = t("continueTitle");
          go.addEventListener("click", () => report(api.continue()));
          li.append(go);
        }
        return li;
      }),
    );
    const note = $("off-script");
    note.textContent = t("offScript");
    note.hidden = from < 0;
    ol.scrollTop = ol.scrollHeight;
  }

  // The verdict and counts, in the strip above the canvas.
  function renderStatus(s) {
    const l = s.ledger || {};
    const counts = l.counts || {};
    if (!changed("status", `${lang}|${l.verdict}|${JSON.stringify(counts)}`)) return;
    const verdict = $("verdict");
    verdict.textContent = l.verdict ? verdictName(l.verdict) : "—";
    verdict.title = l.verdict ? "" : t("verdictPending");
    verdict.dataset.verdict = l.verdict || "";
    const worst = ["lost", "duplicated", "unavailable", "failed"].find((f) => counts[f] > 0);
    verdict.className = `verdict ${worst ? `fate-${worst}` : counts.delivered ? "fate-delivered" : ""}`;
    const extra = Object.keys(counts).filter((k) => !COUNT_ORDER.includes(k)).sort();
    $("counts").replaceChildren(
      ...[...COUNT_ORDER, ...extra].filter((k) => k in counts).map((k) => {
        const li = document.createElement("li");
        li.className = `count-${k} fate-${k}`;
        li.dataset.count = k;
        const b = document.createElement("b");
        b.textContent = String(counts[k]);
        li.append(b, document.createTextNode(fateName(k)));
        return li;
      }),
    );
  }

  // A run that did not settle says why it stopped (its limit, or a frozen clock) and
  // what it still waited for, in the page's language.
  function renderEndWhy(s) {
    const text = s.ended ? pick(s.endWhy) : "";
    if (!changed("endWhy", `${lang}|${text}`)) return;
    $("end-why").hidden = text === "";
    $("end-why-text").textContent = text;
  }

  // A dashboard over the output (a counter, or the sum of a sink's values): the total it
  // shows as the run goes, and once the run has ended the total it should show.
  function renderTotal(s, total) {
    const p = $("total");
    p.hidden = !total;
    if (!total) return;
    let text = `${t("totalShown")} ${total.shown}`;
    if (s.ended) {
      text += ` · ${t("totalExpected")} ${total.expected}`;
      const gap = total.shown - total.expected;
      if (gap > 0) text += ` (${t("overcounts")} ${gap})`;
      if (gap < 0) text += ` (${t("undercounts")} ${-gap})`;
    }
    p.textContent = text;
    const gap = total.shown - total.expected;
    p.className = `total ${!s.ended || gap === 0 ? "" : gap > 0 ? "fate-duplicated" : "fate-lost"}`;
  }

  // selectMessage shows a ledger row's message on the canvas and jumps to the moment
  // its fate was decided; choosing it again lets go.
  function selectMessage(m) {
    selected = selected === m.id ? "" : m.id;
    keys.ledger = null; // re-mark the rows
    if (selected && m.atMs >= 0) report(api.seek(m.atMs));
    scheduleRender(true);
  }

  function renderLedger(s) {
    const l = s.ledger || {};
    if (!changed("ledger", `${lang}|${selected}|${JSON.stringify(l)}`)) return;
    $("output").textContent = l.output ? `${t("output")}: ${l.output}` : "";
    renderTotal(s, l.total);
    // The transaction column, for a scene whose messages were written in transactions.
    const txns = (l.messages || []).some((m) => m.txn && m.txn.length);
    $("col-txn").hidden = !txns;
    const rows = (l.messages || []).map((m) => {
      const tr = document.createElement("tr");
      tr.dataset.fate = m.fate;
      tr.dataset.id = m.id;
      tr.tabIndex = 0;
      tr.setAttribute("aria-selected", String(m.id === selected));
      tr.addEventListener("click", () => selectMessage(m));
      tr.addEventListener("keydown", (e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          selectMessage(m);
        }
      });
      const id = document.createElement("td");
      id.textContent = m.id;
      const fate = document.createElement("td");
      fate.className = `fate fate-${m.fate}`;
      fate.textContent = fateName(m.fate);
      const why = document.createElement("td");
      why.textContent = pick(m.reason);
      tr.append(id, fate);
      if (txns) {
        const txn = document.createElement("td");
        txn.className = "txn";
        txn.dataset.txn = (m.txn || []).join(",");
        txn.textContent = m.txn && m.txn.length ? m.txn.map((x) => t(`txn.${x}`)).join(" → ") : "—";
        tr.append(txn);
      }
      tr.append(why);
      return tr;
    });
    if (!rows.length) {
      const tr = document.createElement("tr");
      const td = document.createElement("td");
      td.colSpan = txns ? 4 : 3;
      td.className = "dim";
      td.textContent = t("noMessages");
      tr.append(td);
      rows.push(tr);
    }
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.id : undefined;
    $("ledger-body").replaceChildren(...rows);
    if (focused) { // rebuilt rows keep the keyboard's place
      const again = [...$("ledger-body").children].find((tr) => tr.dataset.id === focused);
      if (again) again.focus();
    }
    // Jepsen's anomalies, once the run has ended: each with its count, and what it means
    // on hover and for screen readers.
    const anomalies = l.anomalies || [];
    $("anomalies").hidden = anomalies.length === 0;
    $("anomaly-list").replaceChildren(
      ...anomalies.map((a) => {
        const li = document.createElement("li");
        li.dataset.anomaly = a.name;
        li.className = a.count > 0 ? "anomaly seen" : "anomaly dim";
        li.title = pick(a.meaning);
        const b = document.createElement("b");
        b.textContent = String(a.count);
        const why = document.createElement("span");
        why.className = "meaning";
        why.textContent = pick(a.meaning);
        li.append(b, document.createTextNode(a.name), why);
        return li;
      }),
    );
  }

  // The canvas highlights the selected ledger message and its path, else what the
  // current caption talks about; it is asked only when that changes.
  function renderHighlight(s) {
    let want = {};
    const msg = selected && ((s.ledger && s.ledger.messages) || []).find((m) => m.id === selected);
    if (selected) {
      want = { message: selected, nodes: (msg && msg.path) || [] };
    } else {
      const caps = s.captions || [];
      const cap = caps[caps.length - 1];
      if (cap && cap.nodes && cap.nodes.length) want = { nodes: cap.nodes };
    }
    const key = JSON.stringify(want);
    if (key === highlighted) return;
    highlighted = key;
    canvas("highlight", want);
  }

  // The user's faults as the session lists them (faultList: by what they hit, in both
  // languages; the ones after now dimmed), or as their scene syntax from an older game.
  function renderFaults(s) {
    const list = s.faultList;
    const armed = s.armedList || [];
    const faults = s.faults || [];
    if (!changed("faults", `${lang}|${JSON.stringify(list || faults)}|${JSON.stringify(armed)}`)) return;
    const items = list
      ? list.map((f) => {
        const li = document.createElement("li");
        const at = document.createElement("span");
        at.className = "at";
        at.textContent = `${f.atMs} ms`;
        li.append(at, document.createTextNode(` ${untimed(pick(f.text))}`));
        li.dataset.at = String(f.atMs);
        if (f.syntax) li.title = f.syntax;
        if (f.future) {
          li.classList.add("future");
          li.title = `${t("futureFault")}${f.syntax ? ` · ${f.syntax}` : ""}`;
        }
        return li;
      })
      : faults.map((f) => {
        const li = document.createElement("li");
        const code = document.createElement("code");
        code.textContent = f;
        li.append(code);
        return li;
      });
    // Faults armed at a protocol point, not fired yet.
    for (const a of armed) {
      const li = document.createElement("li");
      li.className = "armed";
      li.textContent = `${t("armed")} ${pick(a.text)}`;
      if (a.syntax) li.title = a.syntax;
      items.push(li);
    }
    if (!items.length) {
      const li = document.createElement("li");
      li.className = "dim";
      li.textContent = t("noFaults");
      items.push(li);
    }
    $("faults").replaceChildren(...items);
  }

  // The scene's own faults (its faults: key; a counterexample "Find a failure" loaded is
  // a scene whose faults are the ones found): when each happened, or that it is armed or
  // still ahead. Hidden, with its heading, for a scene without any.
  function renderSceneFaults(s) {
    const list = s.sceneFaults || [];
    if (!changed("sceneFaults", `${lang}|${s.ended}|${JSON.stringify(list)}`)) return;
    $("scene-faults-h").hidden = list.length === 0;
    $("scene-faults").hidden = list.length === 0;
    $("scene-faults").replaceChildren(
      ...list.map((f) => {
        const li = document.createElement("li");
        li.dataset.syntax = f.syntax; // the scene file's syntax (not a title: a title is prose)
        li.dataset.done = String(f.done);
        if (f.done || !f.armed) {
          const at = document.createElement("span");
          at.className = "at";
          at.textContent = `${f.atMs} ms`;
          li.dataset.at = String(f.atMs);
          li.append(at);
        }
        const armed = f.armed && !f.done ? `${t("armed")} ` : "";
        li.append(document.createTextNode(` ${armed}${untimed(pick(f.text))}`));
        if (!f.done) {
          li.classList.add(f.armed ? "armed" : "future");
          li.title = t(!f.armed ? "sceneFaultAhead" : s.ended ? "sceneFaultNever" : "sceneFaultArmed");
        }
        return li;
      }),
    );
  }

  // After a fault injected before later recorded ones, those were discarded: say so.
  function renderBranch(s) {
    const text = s.branch ? pick(s.branch.text) : "";
    if (!changed("branch", `${lang}|${text}`)) return;
    $("branch").textContent = text;
    $("branch").hidden = !text;
  }

  function renderErrors(s) {
    const errs = s.errors || [];
    if (!changed("errors", JSON.stringify(errs))) return;
    $("errors").hidden = errs.length === 0;
    $("error-list").replaceChildren(
      ...errs.map((e) => {
        const li = document.createElement("li");
        li.textContent = e;
        return li;
      }),
    );
  }

  setLang(lang);
})();
