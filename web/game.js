// Loads main.wasm into the canvas frame and reports progress, readiness and crashes to
// the page (index.html) by postMessage. The Go side calls window.deliverylabReport.
"use strict";
(() => {
  const page = window.parent !== window ? window.parent : null;
  const tell = (msg) => {
    if (page) page.postMessage({ source: "deliverylab", ...msg }, location.origin);
  };

  // Called by the Go side: "ready", "changed" (the page should re-render) or "crashed".
  window.deliverylabReport = (event, detail) => {
    if (event === "crashed") {
      window.deliverylabCrashed = detail || "crashed";
    }
    tell({ type: event, detail });
  };

  // Idle gate. Ebiten asks for an animation frame every frame, even when Draw has
  // nothing to paint, so a paused playground would still wake Go 60 times a second. After
  // a second of nothing changing the game calls deliverylabIdle(): Ebiten's next frame
  // request is then held until input reaches the canvas or the page sends a command
  // (deliverylabWake()). A paused page then runs no code at all.
  const raf = window.requestAnimationFrame.bind(window);
  let held = null;
  let idle = false;
  window.requestAnimationFrame = (cb) => {
    if (idle) {
      held = cb;
      return 0;
    }
    return raf(cb);
  };
  window.deliverylabIdle = () => {
    idle = true;
  };
  window.deliverylabWake = () => {
    idle = false;
    if (held) {
      const cb = held;
      held = null;
      raf(cb);
    }
  };
  for (const type of ["pointerdown", "pointermove", "pointerup", "mousedown", "mousemove", "mouseup", "wheel",
    "mouseout", "keydown", "keyup", "touchstart", "touchmove", "touchend", "resize", "focus", "visibilitychange"]) {
    window.addEventListener(type, window.deliverylabWake, { capture: true, passive: true });
  }

  // Keys and right-clicks reach this frame's document once the canvas was clicked, not
  // the page's: forward every key to the page, which handles them whatever has focus
  // (web/app.js), and keep the browser from scrolling or otherwise acting on the ones it
  // handles. The list matches app.js's key map.
  const handled = new Set([" ", "ArrowRight", "ArrowLeft", "+", "=", "-", "_", "r", "R", "l", "L", "p", "P", "?", "Escape", "."]);
  window.addEventListener("keydown", (e) => {
    tell({ type: "key", key: e.key, code: e.code, shiftKey: e.shiftKey, repeat: e.repeat,
      ctrlKey: e.ctrlKey, metaKey: e.metaKey, altKey: e.altKey });
    if (handled.has(e.key) && !e.ctrlKey && !e.metaKey && !e.altKey) e.preventDefault();
  }, { capture: true });
  window.addEventListener("contextmenu", (e) => {
    e.preventDefault();
    tell({ type: "contextmenu", x: e.clientX, y: e.clientY });
  }, { capture: true });

  const go = new Go();
  // The game never exits on its own: any exit (a Go panic exits with code 2) is a crash.
  const exit = go.exit.bind(go);
  go.exit = (code) => {
    window.deliverylabReport("crashed", `the Go program exited with code ${code}`);
    exit(code);
  };

  // Count the decoded bytes as they stream into the compiler. With gzip the server sends
  // the decoded size in X-Decoded-Length, since Content-Length is the compressed size.
  async function load() {
    const res = await fetch("main.wasm");
    if (!res.ok) {
      throw new Error(`main.wasm: HTTP ${res.status} (run "make wasm")`);
    }
    const total = Number(res.headers.get("X-Decoded-Length") || res.headers.get("Content-Length") || 0);
    let loaded = 0;
    let shown = -1;
    const counter = new TransformStream({
      transform(chunk, controller) {
        loaded += chunk.byteLength;
        const pct = total ? Math.floor((100 * loaded) / total) : -1;
        if (pct !== shown) {
          shown = pct;
          tell({ type: "progress", loaded, total });
        }
        controller.enqueue(chunk);
      },
    });
    const counted = new Response(res.body.pipeThrough(counter), {
      headers: { "Content-Type": "application/wasm" },
    });
    const { instance } = await WebAssembly.instantiateStreaming(counted, go.importObject);
    tell({ type: "starting" });
    go.run(instance);
  }

  load().catch((err) => {
    console.error("deliverylab: could not start:", err);
    window.deliverylabReport("crashed", String(err && err.message ? err.message : err));
  });
})();
