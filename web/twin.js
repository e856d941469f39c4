// Twin runs: the scene beside a twin — the same scene with one setting changed, or the
// scene it is classically compared with (a preset) — in a second canvas (#game-b, its own
// game), in lockstep on the first one's clock: play, pause, step, scrub and Run to end
// move A as always and B follows A's time; a fault made on either pane is made on the
// other at its own protocol point (a fault on a message hits the twin's own copy of that
// message: play.InjectLike). The panel says each pane's verdict and counts and lists the
// messages whose fates differ, with why on each side.
// Built on the page's extension API (window.deliverylabPage, app.js), like tools.js.
"use strict";
(() => {
  const P = window.deliverylabPage;
  const api = window.deliverylab;
  if (!P || !api) return;
  const $ = (id) => document.getElementById(id);
  const t = P.t;
  const pick = (text) => (text ? text[P.lang()] || text.en || "" : "");
  const frameB = $("game-b");
  const wrap = frameB && frameB.parentElement;
  const select = $("twin-with");
  if (!frameB || !wrap || !select) return;

  // The classic comparisons between shipped scenes; any scene can also be compared with
  // itself with one of its settings changed.
  const PRESETS = [
    ["acks-1-lost", "acks-all-safe"],
    ["retry-duplicate", "idempotent-retry"],
    ["commit-before-processing", "commit-after-processing"],
    ["auto-commit-async-loses", "auto-commit-is-at-least-once"],
    ["streams-at-least-once-duplicates", "streams-exactly-once"],
    ["flink-sink-none-duplicates", "flink-sink-exactly-once"],
    ["flink-at-least-once-counts-twice", "flink-case-dashboard"],
  ];

  let twin = null; // {choice, label, ready, followed, seenA, seenB, notes}
  let optionsKey = "";

  const bridgeB = () => {
    try {
      const b = frameB.contentWindow && frameB.contentWindow.deliverylab;
      return b && b.ready ? b : null;
    } catch {
      return null;
    }
  };
  const callB = (name, ...args) => {
    const b = bridgeB();
    return b && typeof b[name] === "function" ? b[name](...args) : { error: "the twin is not ready" };
  };
  const failed = (r) => !r || r.error !== undefined;
  const errText = (r) => (r && ((P.lang() === "zh" && r.errorZh) || r.error)) || "";

  // ---- choosing the twin -----------------------------------------------------------
  function options(s) {
    const key = `${P.lang()}|${s.scene}|${JSON.stringify(s.settings)}`;
    if (key === optionsKey) return;
    optionsKey = key;
    const opts = [];
    for (const [a, b] of PRESETS) {
      const other = s.scene === a ? b : s.scene === b ? a : "";
      if (other) opts.push({ value: `scene:${other}`, text: t("twin.preset").replace("{scene}", other) });
    }
    for (const st of s.settings || []) {
      for (const c of st.choices || []) {
        if (c !== st.value) opts.push({ value: `set:${st.key}=${c}`, text: `${pick(st.label) || st.key} = ${c}` });
      }
    }
    select.replaceChildren(
      ...opts.map((o) => {
        const e = document.createElement("option");
        e.value = o.value;
        e.textContent = o.text;
        return e;
      }),
    );
    $("twin-open").disabled = opts.length === 0;
  }

  // ---- opening and closing -------------------------------------------------------------
  // open opens the twin chosen in the list, or source, a scene file ({text, file,
  // changes}: a counterexample Find a failure found).
  function open(source, chosen) {
    const choice = source ? "source" : chosen || select.value;
    if (!choice) return;
    const s = api.state();
    if (!s || s.error || !s.loaded) return;
    if (twin) close();
    const option = [...select.options].find((o) => o.value === choice);
    const label = source ? source.file : option ? option.textContent : choice.slice("set:".length).replaceAll(";", ", ");
    // changes: a twin of the scene with its settings changed, each [key, value] ("set:"
    // choices say them as "set:KEY=VALUE;KEY=VALUE").
    const changes = choice.startsWith("set:") ? choice.slice("set:".length).split(";").map((kv) => kv.split("=")) : [];
    twin = { choice, source, label, changes, ready: false, followed: -1, seenA: new Set(), seenB: new Set(), notes: [] };
    wrap.classList.add("twin");
    $("pane-a").hidden = $("pane-b").hidden = false;
    $("pane-a").textContent = `A · ${s.scene}`;
    $("pane-b").textContent = `B · ${twin.label}`;
    $("twin-open").hidden = true;
    $("twin-file").hidden = true;
    $("twin-close").hidden = false;
    $("twin-add").hidden = !!source || choice.startsWith("scene:");
    if (!frameB.src) frameB.src = "game.html";
    waitForB();
  }

  function close() {
    const was = twin !== null;
    twin = null;
    wrap.classList.remove("twin");
    $("pane-a").hidden = $("pane-b").hidden = true;
    $("twin-open").hidden = false;
    $("twin-file").hidden = false;
    $("twin-close").hidden = true;
    $("twin-add").hidden = true;
    $("twin-status").hidden = true;
    callB("pause");
    if (was && P.syncLink) P.syncLink();
  }

  function waitForB() {
    if (!twin) return;
    if (!bridgeB()) {
      setTimeout(waitForB, 50);
      return;
    }
    start();
  }

  // start loads B (as A was loaded, its settings and seed, then the twin's change), makes
  // A's faults so far on it in time order, and brings it to A's moment.
  function start() {
    const s = api.state();
    const src = P.call("sceneSource");
    callB("setLang", P.lang());
    let r;
    if (twin.choice.startsWith("scene:")) {
      r = callB("load", twin.choice.slice("scene:".length));
    } else if (twin.source) {
      r = callB("loadSource", twin.source.text, twin.source.file);
      for (const [k, v] of twin.source.changes) if (!failed(r)) r = callB("setSetting", k, v);
    } else {
      r = src.shipped ? callB("load", s.scene) : callB("loadSource", src.text, src.file);
      for (const [k, v] of src.changes || []) if (!failed(r)) r = callB("setSetting", k, v);
      const bs = callB("state");
      if (!failed(r) && src.seed !== undefined && bs && bs.seed !== src.seed) r = callB("setSeed", src.seed);
      for (const [k, v] of twin.changes) if (!failed(r)) r = callB("setSetting", k, v);
    }
    if (failed(r)) {
      P.notice(`${t("twin.failed")} ${errText(r)}`);
      close();
      return;
    }
    callB("pause");
    twin.ready = true;
    if (P.syncLink) P.syncLink(); // the share link carries the twin
    for (const f of [...(s.faultList || [])].filter((f) => !f.future).sort((a, b) => a.atMs - b.atMs)) {
      twin.seenA.add(faultKey(f));
      callB("seek", f.atMs);
      mirror(f, "B");
    }
    for (const a of s.armedList || []) {
      twin.seenA.add(faultKey(a));
      mirror(a, "B");
    }
    twin.followed = -1;
    follow(s);
    render(s);
  }

  // ---- lockstep and faults ---------------------------------------------------------------
  // follow brings B to A's moment; once A has ended, B runs on to its own end, so that
  // both verdicts are final.
  function follow(s) {
    if (!twin || !twin.ready) return;
    const target = s.ended ? Number.MAX_SAFE_INTEGER : s.nowMs;
    if (target === twin.followed) return;
    twin.followed = target;
    if (s.ended) callB("runToEnd");
    else callB("seek", s.nowMs);
  }

  // A fault's identity across the lists: an armed one (when:) by its text, whether it
  // still waits or has fired; any other by its time and text.
  const faultKey = (f) => (/\bwhen\s*:/.test(f.syntax) ? `armed|${f.syntax}` : `${f.atMs}|${f.syntax}`);

  // mirror makes fault f (an entry of one pane's faultList or armedList) on the other
  // pane ("A" or "B"), and notes what could not be made there.
  function mirror(f, to) {
    const r = to === "B" ? callB("injectLike", f.syntax, f.wire || null) : P.call("injectLike", f.syntax, f.wire || null);
    if (failed(r)) twin.notes.push(`${to}: ${t("twin.notMade")} ${pick(f.text) || f.syntax} — ${errText(r)}`);
    // What the other pane now lists is accounted for: it is not made back here.
    const st = to === "B" ? callB("state") : P.call("state");
    const seen = to === "B" ? twin.seenB : twin.seenA;
    for (const g of [...((st && st.faultList) || []), ...((st && st.armedList) || [])]) seen.add(faultKey(g));
  }

  // newFaults makes on the other pane what the user made on this one since last time.
  function newFaults(st, from) {
    const seen = from === "A" ? twin.seenA : twin.seenB;
    for (const f of [...(st.faultList || []), ...(st.armedList || [])]) {
      const k = faultKey(f);
      if (seen.has(k)) continue;
      seen.add(k);
      if (!f.future) mirror(f, from === "A" ? "B" : "A");
    }
  }

  // ---- the panel ---------------------------------------------------------------------------
  function verdictLine(name, l) {
    const counts = l.counts || {};
    const parts = ["delivered", "lost", "duplicated"].filter((k) => k in counts).map((k) => `${counts[k]} ${t(`fate.${k}`)}`);
    return `${name}: ${l.verdict ? t(`verdict.${l.verdict}`) : "—"} (${parts.join(", ")})`;
  }

  function render(s) {
    options(s);
    if (!twin || !twin.ready) return;
    // B's state is read when B changed (its version), not at every frame A draws.
    const v = callB("version");
    if (v !== twin.bVersion || !twin.b) {
      const b = callB("state");
      if (failed(b)) return;
      twin.b = b;
      twin.bVersion = v;
    }
    const b = twin.b;
    newFaults(s, "A");
    newFaults(b, "B");
    const la = s.ledger || {};
    const lb = b.ledger || {};
    $("twin-status").hidden = false;
    $("twin-verdicts").textContent = `${verdictLine("A", la)} · ${verdictLine("B", lb)}`;
    const fa = new Map((la.messages || []).map((m) => [m.id, m]));
    const fb = new Map((lb.messages || []).map((m) => [m.id, m]));
    const ids = [...new Set([...fa.keys(), ...fb.keys()])];
    const rows = ids
      .filter((id) => !fa.has(id) || !fb.has(id) || fa.get(id).fate !== fb.get(id).fate)
      .map((id) => {
        const tr = document.createElement("tr");
        tr.dataset.id = id;
        const cell = (m) => {
          const td = document.createElement("td");
          if (!m) {
            td.textContent = "—";
            return td;
          }
          td.dataset.fate = m.fate;
          const f = document.createElement("b");
          f.className = `fate-${m.fate}`;
          f.textContent = t(`fate.${m.fate}`);
          td.append(f, document.createTextNode(` ${pick(m.reason)}`));
          return td;
        };
        const idCell = document.createElement("td");
        idCell.textContent = id;
        tr.append(idCell, cell(fa.get(id)), cell(fb.get(id)));
        return tr;
      });
    if (!rows.length) {
      const tr = document.createElement("tr");
      const td = document.createElement("td");
      td.colSpan = 3;
      td.className = "dim";
      td.textContent = t("twin.same");
      tr.append(td);
      rows.push(tr);
    }
    $("twin-diff-body").replaceChildren(...rows);
    $("twin-notes").replaceChildren(
      ...twin.notes.slice(-5).map((n) => {
        const li = document.createElement("li");
        li.textContent = n;
        return li;
      }),
    );
  }

  // The share link's part (web/tools.js): what the twin is, and opening one from a link
  // once the run it belongs to has loaded.
  P.twinChoice = () => (twin && twin.ready && !twin.source ? twin.choice : ""); // a file does not fit in a link
  P.openTwinSource = (text, file, changes) => {
    open({ text, file, changes: changes || [] });
    const stage = document.querySelector(".stage");
    if (stage) stage.scrollIntoView({ block: "start" });
  };
  P.openTwin = (choice) => {
    const started = Date.now();
    const tryOpen = () => {
      const s = api.state();
      if (!s || s.error || !s.loaded) {
        if (Date.now() - started < 30000) setTimeout(tryOpen, 50);
        return;
      }
      options(s);
      const known = [...select.options].some((o) => o.value === choice);
      if (!known && !choice.startsWith("set:")) {
        P.notice(`${t("twin.failed")} ${choice}`);
        return;
      }
      if (known) select.value = choice;
      open(undefined, choice);
    };
    setTimeout(tryOpen, 0);
  };

  $("twin-open").addEventListener("click", () => open());
  // Another setting changed on B (a twin of the scene with its settings): B has then
  // more than one change, and is brought back to A's moment.
  $("twin-add").addEventListener("click", () => {
    if (!twin || !twin.ready || !select.value.startsWith("set:")) return;
    const [k, v] = select.value.slice("set:".length).split("=");
    const r = callB("setSetting", k, v);
    if (failed(r)) {
      twin.notes.push(`B: ${errText(r)}`);
    } else {
      twin.changes = [...twin.changes.filter(([a]) => a !== k), [k, v]];
      twin.choice = `set:${twin.changes.map(([a, b]) => `${a}=${b}`).join(";")}`;
      twin.label = twin.changes.map(([a, b]) => `${a} = ${b}`).join(", ");
      $("pane-b").textContent = `B · ${twin.label}`;
      twin.followed = -1;
      if (P.syncLink) P.syncLink();
    }
    const s = api.state();
    follow(s);
    render(s);
  });
  // A scene file of the user's own as the twin.
  const fileInput = $("twin-file-input");
  $("twin-file").addEventListener("click", () => fileInput.click());
  fileInput.addEventListener("change", () => {
    const f = fileInput.files && fileInput.files[0];
    fileInput.value = "";
    if (!f) return;
    f.text().then((text) => P.openTwinSource(text, f.name, []));
  });
  $("twin-close").addEventListener("click", close);
  // B's own changes (a fault clicked on its canvas) come as its "changed" messages.
  window.addEventListener("message", (e) => {
    if (!twin || !twin.ready || e.source !== frameB.contentWindow || !e.data || e.data.type !== "changed") return;
    const s = api.state();
    if (s && !s.error) render(s);
  });
  P.on("render", (s) => {
    if (!s || s.error || !s.loaded) return;
    follow(s);
    render(s);
  });
  P.on("loaded", (s) => {
    if (twin) close();
    optionsKey = "";
    if (s && !s.error) options(s);
  });
  P.on("lang", () => {
    optionsKey = "";
    if (twin && twin.ready) callB("setLang", P.lang());
    const s = api.state();
    if (s && !s.error && s.loaded) render(s);
  });
})();
