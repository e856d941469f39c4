// A teacher's tools around the playground: the canvas's context menu of faults, the fault
// syntax one click from the fault box, a scene of one's own (open, drop or paste a YAML
// file), the scene's key settings as toggles, and share links that carry the whole run.
// Built on the page's extension API (window.deliverylabPage, app.js); every action goes
// through the canvas frame's bridge, so the state a test reads is what the user did.
"use strict";
(() => {
  const P = window.deliverylabPage;
  if (!P) return; // an app.js without the extension API: the page works without these tools
  const $ = (id) => document.getElementById(id);
  const el = (tag, props = {}, ...children) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k in e && typeof v !== "string") e[k] = v;
      else e.setAttribute(k, v);
    }
    e.append(...children);
    return e;
  };
  const pick = (text) => (text ? text[P.lang()] || text.en || "" : "");
  const failed = (r) => !r || r.error !== undefined;

  // The tools' words are the "tools.*" keys of web/words.js, beside the page's own.
  const t = P.t;
  // tf says a word with its %s filled in; a function replacement, so a "$" in a scene key
  // is not read as a replacement pattern.
  const tf = (key, value) => t(key).replace("%s", () => String(value));

  // ---- the canvas's context menu -------------------------------------------------
  const menu = $("fault-menu");
  let menuReturnFocus = null;

  function closeMenu() {
    if (!menu || menu.hidden) return;
    menu.hidden = true;
    menu.replaceChildren();
    if (menuReturnFocus && menuReturnFocus.focus) menuReturnFocus.focus();
    menuReturnFocus = null;
  }

  function targetName(target) {
    if (!target) return "";
    if (target.kind === "node") return target.name || "";
    if (target.kind === "link") return `${target.from} → ${target.to}`;
    if (target.kind === "message") {
      const s = P.call("state");
      const f = s && !s.error ? (s.inFlight || []).find((m) => m.id === target.id) : null;
      return f ? `#${f.id} ${f.kind} ${f.from} → ${f.to}` : `#${target.id}`;
    }
    return "";
  }

  function menuItems() {
    return [...menu.querySelectorAll('[role="menuitem"]')];
  }

  function focusItem(i) {
    const items = menuItems();
    if (!items.length) return;
    items[(i + items.length) % items.length].focus();
  }

  function choose(button, item) {
    if (item.disabled) return; // greyed: its reason is already on it
    const r = P.call("inject", item.fault);
    if (failed(r)) {
      const err = menu.querySelector(".menu-error");
      err.textContent = P.errorText(r);
      err.hidden = false;
      button.focus();
      return;
    }
    closeMenu();
    syncHash(true);
  }

  P.onCanvasMenu = (x, y, clientX, clientY) => {
    if (!menu) return;
    const r = P.call("menuAt", x, y);
    if (failed(r)) {
      P.notice(P.errorText(r));
      return;
    }
    const items = r.items || [];
    const title = targetName(r.target);
    menu.replaceChildren();
    menu.setAttribute("role", "menu");
    menu.setAttribute("aria-label", `${t("tools.menuFor")} ${title}`);
    menu.dataset.target = r.target ? r.target.kind : "none";
    menu.dataset.id = r.target && r.target.id !== undefined ? String(r.target.id) : "";
    menu.append(el("div", { class: "menu-title", text: title || t("tools.menuNothing") }));
    items.forEach((item) => {
      const b = el("button", { type: "button", role: "menuitem", class: "menu-item" });
      b.dataset.fault = item.fault;
      b.append(el("span", { class: "menu-label", text: pick(item.label) }));
      if (item.disabled) {
        b.setAttribute("aria-disabled", "true");
        b.classList.add("disabled");
        const why = pick(item.why);
        b.title = why;
        b.append(el("small", { class: "menu-why", text: why }));
      }
      b.addEventListener("click", () => choose(b, item));
      menu.append(b);
    });
    if (!items.length && r.target && r.target.kind !== "none") {
      menu.append(el("div", { class: "menu-empty dim", text: t("tools.menuNothing") }));
    }
    const err = el("div", { class: "menu-error error", role: "alert" });
    err.hidden = true;
    menu.append(err);
    if (!items.length && (!r.target || r.target.kind === "none")) {
      menu.hidden = true;
      return;
    }
    menuReturnFocus = document.activeElement;
    menu.hidden = false;
    // Open at the pointer, kept inside the viewport.
    const w = menu.offsetWidth;
    const h = menu.offsetHeight;
    menu.style.left = `${Math.max(4, Math.min(clientX, innerWidth - w - 4))}px`;
    menu.style.top = `${Math.max(4, Math.min(clientY, innerHeight - h - 4))}px`;
    const first = menuItems().findIndex((b) => b.getAttribute("aria-disabled") !== "true");
    focusItem(Math.max(0, first));
  };

  if (menu) {
    menu.addEventListener("keydown", (e) => {
      const items = menuItems();
      const at = items.indexOf(document.activeElement);
      if (e.key === "ArrowDown") focusItem(at + 1);
      else if (e.key === "ArrowUp") focusItem(at < 0 ? -1 : at - 1);
      else if (e.key === "Home") focusItem(0);
      else if (e.key === "End") focusItem(-1);
      else if (e.key === "Escape") closeMenu();
      else if (e.key === "Tab") closeMenu();
      else if (e.key === "Enter" || e.key === " ") {
        if (at >= 0) items[at].click();
      } else return;
      e.preventDefault();
      e.stopPropagation(); // the page's keys (Space plays) stay out of an open menu
    });
    document.addEventListener("pointerdown", (e) => {
      if (!menu.hidden && !menu.contains(e.target)) closeMenu();
    }, true);
    // A click in the canvas frame reaches its own document, not this one; this window
    // then loses focus.
    window.addEventListener("blur", () => {
      menuReturnFocus = null;
      closeMenu();
    });
    window.addEventListener("resize", closeMenu);
  }

  // ---- the fault syntax, one click from the fault box -----------------------------
  const help = $("fault-help");
  let helpText = null;

  // An example is a line of the help text that starts with a fault itself: a flow
  // mapping ("{crash: broker-1}  — what it does"), braces balanced.
  const exampleOf = (line) => {
    const s = line.trim();
    if (!s.startsWith("{")) return "";
    let depth = 0;
    for (let i = 0; i < s.length; i++) {
      if (s[i] === "{") depth++;
      else if (s[i] === "}" && --depth === 0) return s.slice(0, i + 1);
    }
    return "";
  };

  function renderHelp() {
    if (!help) return;
    const panel = $("fault-help-text");
    if (!panel || panel.hidden) return;
    if (!helpText) {
      const r = P.call("faultHelp");
      if (failed(r)) {
        panel.replaceChildren(el("p", { class: "error", text: P.errorText(r) }));
        return;
      }
      helpText = r.text;
    }
    const lines = pick(helpText).split("\n");
    panel.replaceChildren(...lines.map((line) => {
      const ex = exampleOf(line);
      if (!ex) return el("div", { class: "help-line", text: line || "\u00a0" });
      const b = el("button", { type: "button", class: "help-example", text: ex, title: t("tools.exampleFill") });
      b.dataset.example = ex;
      const rest = line.trim().slice(ex.length);
      b.addEventListener("click", () => {
        const box = $("fault");
        if (!box) return;
        box.value = ex;
        box.focus();
      });
      return el("div", { class: "help-line" }, b, el("span", { class: "dim", text: rest }));
    }));
  }

  if (help) {
    const toggle = el("button", { type: "button", id: "fault-help-toggle", "aria-expanded": "false", "aria-controls": "fault-help-text" });
    const panel = el("div", { id: "fault-help-text", class: "fault-help-text", role: "region" });
    panel.hidden = true;
    toggle.addEventListener("click", () => {
      panel.hidden = !panel.hidden;
      toggle.setAttribute("aria-expanded", String(!panel.hidden));
      renderHelp();
    });
    help.replaceChildren(toggle, panel);
  }

  // ---- a scene of one's own: open, drop or paste ------------------------------------
  const tools = $("scene-tools");
  const dialog = el("dialog", { id: "paste-dialog", class: "paste-dialog" });
  const pasteText = el("textarea", { id: "paste-text", spellcheck: false, rows: 18, cols: 70 });
  const pasteError = el("p", { id: "paste-error", class: "error", role: "alert" });
  let ownFileName = "pasted.yaml";

  function sceneErrorText(r) {
    const where = [];
    if (r.line > 0) where.push(tf("tools.atLine", r.line));
    if (r.key) where.push(tf("tools.atKey", r.key));
    if (!where.length) return P.errorText(r);
    // The core's text starts with where it is ("my.yaml:11: apps[0].sendd: …"): said once.
    let msg = P.errorText(r);
    if (r.line > 0) msg = msg.replace(/^[^\n:]*:\d+: /, "");
    if (r.key && msg.startsWith(`${r.key}: `)) msg = msg.slice(r.key.length + 2);
    return where.join(t("sep.list")) + t("sep.colon") + msg;
  }

  // selectLine puts the caret on a 1-based line of the textarea, the whole line selected,
  // scrolled into view.
  function selectLine(line) {
    const text = pasteText.value;
    let start = 0;
    for (let i = 1; i < line && start >= 0; i++) start = text.indexOf("\n", start) + 1 || -1;
    if (start < 0) return;
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    pasteText.focus();
    pasteText.setSelectionRange(start, end);
    const perLine = pasteText.scrollHeight / Math.max(1, text.split("\n").length);
    pasteText.scrollTop = Math.max(0, (line - 3) * perLine);
  }

  function openPaste(text, fileName, r) {
    if (text !== undefined) pasteText.value = text;
    if (fileName) ownFileName = fileName;
    pasteError.textContent = r ? sceneErrorText(r) : "";
    pasteError.hidden = !r;
    if (!dialog.open) dialog.showModal();
    if (r && r.line > 0) selectLine(r.line);
    else pasteText.focus();
  }

  // loadOwn parses text with the same core as the shipped scenes. On an error the text
  // stays in the paste dialog with the line selected, so nothing typed is lost.
  function loadOwn(text, fileName) {
    const r = P.call("loadSource", text, fileName);
    if (failed(r)) {
      openPaste(text, fileName, r);
      return false;
    }
    if (dialog.open) dialog.close();
    pasteError.hidden = true;
    linkFailure = null;
    renderLinkError();
    defaults = {};
    P.notice(`${t("tools.loadedOwn")} ${fileName}`);
    syncHash(true);
    return true;
  }

  async function loadFile(file) {
    let text;
    try {
      text = await file.text();
    } catch (err) {
      P.notice(`${t("tools.readFailed")} ${err && err.message ? err.message : err}`);
      return;
    }
    loadOwn(text, file.name);
  }

  const isYAML = (name) => /\.ya?ml$/i.test(name || "");
  const fileInput = el("input", { type: "file", id: "scene-file", accept: ".yaml,.yml,application/yaml,text/yaml", class: "visually-hidden", tabindex: "-1" });
  fileInput.addEventListener("change", () => {
    const f = fileInput.files && fileInput.files[0];
    if (f) loadFile(f);
    fileInput.value = ""; // the same file may be opened again after editing it
  });
  const openButton = el("button", { type: "button", id: "open-scene" });
  openButton.addEventListener("click", () => fileInput.click());
  const pasteButton = el("button", { type: "button", id: "paste-scene" });
  pasteButton.addEventListener("click", () => openPaste(undefined, ownFileName));
  const shareButton = el("button", { type: "button", id: "share-link" });
  // saveFile hands text (or a Blob) to the browser's download as a file of that name.
  function saveFile(text, type, file) {
    const url = URL.createObjectURL(text instanceof Blob ? text : new Blob([text], { type }));
    const a = el("a", { href: url, download: file });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }
  // The run so far as a space-time diagram (one line per node, one arrow per message),
  // saved as an SVG file for slides; the highlighted message's arrows stand out.
  const diagramButton = el("button", { type: "button", id: "save-diagram" });
  diagramButton.addEventListener("click", () => {
    const r = P.call("diagram");
    if (!failed(r)) saveFile(r.svg, "image/svg+xml", r.file);
  });
  // The run so far as JSON (the scene, its link, the outcome, every trace line and
  // observation): for a course page, a notebook, or a bug report.
  const runButton = el("button", { type: "button", id: "save-run" });
  runButton.addEventListener("click", () => {
    const r = P.call("runJSON");
    if (!failed(r)) saveFile(JSON.stringify(r.run, null, 2) + "\n", "application/json", r.file);
  });
  // The canvas at this moment as a picture for slides: the game paints it again at
  // projector resolution (1920×1080) and hands the pixels over; the browser encodes the
  // PNG. The picture is painted by the canvas's next frame, so it is waited for.
  const pngButton = el("button", { type: "button", id: "save-png" });
  pngButton.addEventListener("click", () => {
    const r = P.call("capturePNG");
    if (failed(r)) return;
    pngButton.disabled = true;
    const started = Date.now();
    const poll = () => {
      const shot = P.call("takeCapture");
      if (!shot || shot.error !== undefined) {
        if (Date.now() - started < 10000) {
          setTimeout(poll, 50);
          return;
        }
        pngButton.disabled = false;
        P.notice(t("tools.pngFailed"));
        return;
      }
      const c = document.createElement("canvas");
      c.width = shot.width;
      c.height = shot.height;
      c.getContext("2d").putImageData(new ImageData(shot.data, shot.width, shot.height), 0, 0);
      c.toBlob((blob) => {
        pngButton.disabled = false;
        if (blob) saveFile(blob, "image/png", r.file);
      }, "image/png");
    };
    poll();
  });
  const shareURL = el("input", { id: "share-url", readonly: "", class: "share-url", spellcheck: "false" });
  shareURL.hidden = true;
  const linkError = el("p", { id: "link-error", class: "error", role: "alert" });
  linkError.hidden = true;
  if (tools) tools.replaceChildren(openButton, fileInput, pasteButton, shareButton, diagramButton, pngButton, runButton, shareURL, linkError);

  const pasteLoad = el("button", { type: "button", id: "paste-load" });
  pasteLoad.addEventListener("click", () => loadOwn(pasteText.value, ownFileName));
  const pasteCancel = el("button", { type: "button", id: "paste-cancel" });
  pasteCancel.addEventListener("click", () => dialog.close());
  pasteText.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      pasteLoad.click();
    }
  });
  dialog.append(
    el("h2", { id: "paste-title" }),
    el("p", { id: "paste-hint", class: "dim" }),
    pasteText, pasteError,
    el("div", { class: "dialog-buttons" }, pasteLoad, pasteCancel),
  );
  dialog.setAttribute("aria-labelledby", "paste-title");
  document.body.append(dialog);

  // Drag and drop anywhere on the page, the canvas frame included: the frame's document
  // sees the drag first, then the drop target covers everything.
  const dropTarget = el("div", { id: "drop-target", class: "drop-target", "aria-hidden": "true" });
  dropTarget.hidden = true;
  document.body.append(dropTarget);
  let drags = 0;
  const carriesFiles = (e) => e.dataTransfer && [...(e.dataTransfer.types || [])].includes("Files");
  const showDrop = (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault();
    dropTarget.textContent = t("tools.dropHere");
    dropTarget.hidden = false;
  };
  document.addEventListener("dragenter", (e) => {
    if (!carriesFiles(e)) return;
    drags++;
    showDrop(e);
  });
  document.addEventListener("dragover", showDrop);
  document.addEventListener("dragleave", () => {
    drags = Math.max(0, drags - 1);
    if (drags === 0) dropTarget.hidden = true;
  });
  document.addEventListener("drop", (e) => {
    if (!carriesFiles(e)) return;
    e.preventDefault();
    drags = 0;
    dropTarget.hidden = true;
    const files = [...e.dataTransfer.files];
    const f = files.find((x) => isYAML(x.name)) || (files.length === 1 ? files[0] : null);
    if (!f) {
      P.notice(t("tools.dropOne"));
      return;
    }
    loadFile(f);
  });
  const frame = $("game");
  const watchFrameDrags = () => {
    try {
      frame.contentWindow.addEventListener("dragenter", showDrop);
      frame.contentWindow.addEventListener("dragover", showDrop);
    } catch {
      // another origin: drags over the canvas are then only seen once they leave it
    }
  };
  if (frame) {
    frame.addEventListener("load", watchFrameDrags);
    watchFrameDrags();
  }

  // ---- share links ------------------------------------------------------------------
  let written = ""; // the hash this page last wrote: a hashchange to it is not a new link

  let linkFailure = null; // the bridge's refusal of the link the page was opened with

  function renderLinkError() {
    linkError.hidden = !linkFailure;
    if (linkFailure) linkError.textContent = `${t("tools.badLink")} (${P.errorText(linkFailure)})`;
  }

  // The message stays until the user opens something else.
  const sceneList = $("scene-list");
  if (sceneList) {
    sceneList.addEventListener("click", () => {
      linkFailure = null;
      renderLinkError();
    });
  }

  const linkURL = (hash) => `${location.origin}${location.pathname}#${hash}`;

  shareButton.addEventListener("click", async () => {
    const r = P.call("shareLink");
    if (failed(r)) {
      P.notice(P.errorText(r));
      return;
    }
    const url = linkURL(r.hash);
    written = r.hash;
    history.replaceState(null, "", `#${r.hash}`);
    shareURL.value = url;
    shareURL.hidden = false;
    try {
      await navigator.clipboard.writeText(url);
      P.notice(t("tools.copied"));
    } catch {
      shareURL.focus();
      shareURL.select();
      P.notice(t("tools.copyByHand"));
    }
  });

  // The URL always carries the run as it stands, so that a link copied from the address
  // bar works too: after a load, a fault or a setting, and whenever the run stops (not
  // on every frame of a playing run).
  let hashKey = "";
  // A twin run (web/twin.js) rides on the link as "~twin=<its choice>" after the run's
  // own link: "scene:NAME" or "set:KEY=VALUE".
  const TWIN = "~twin=";
  const twinChoice = () => (P.twinChoice ? P.twinChoice() : "");
  function splitTwin(hash) {
    const i = hash.indexOf(TWIN);
    if (i < 0) return [hash, ""];
    let choice = "";
    try {
      choice = decodeURIComponent(hash.slice(i + TWIN.length));
    } catch {
      choice = ""; // a damaged twin part: the run opens without its twin
    }
    return [hash.slice(0, i), choice];
  }
  P.syncLink = () => syncHash(true);

  function syncHash(arg) {
    const force = arg === true;
    const s = force ? P.call("state") : arg;
    if (!s || s.error || !s.loaded) return;
    const what = JSON.stringify([s.faultList || s.faults, s.armedList || null, s.settings || null, s.source || s.scene, s.seed, twinChoice()]);
    // A playing run writes when what it plays changes (a fault, a setting); a stopped
    // one also when its time moved.
    const key = s.playing ? what : `${what}|${s.nowMs}`;
    if (!force && (key === hashKey || (s.playing && hashKey.startsWith(what)))) return;
    hashKey = key;
    const r = P.call("shareLink");
    if (failed(r) || !r.hash) return;
    const twin = twinChoice();
    const hash = twin ? `${r.hash}${TWIN}${encodeURIComponent(twin)}` : r.hash;
    if (hash === written) return;
    written = hash;
    history.replaceState(null, "", `#${hash}`);
    if (!shareURL.hidden) shareURL.value = linkURL(hash);
  }

  // openFromHash opens a link (a v1. share link, or a shipped scene's name). A damaged
  // link says so and opens the first shipped scene: the page must not load another.
  P.openFromHash = (full) => {
    full = full || "";
    if (!full) return false;
    if (full === written) return true; // the page's own hash coming back
    const [hash, twin] = splitTwin(full);
    const opened = openRun(hash);
    if (opened && twin && !linkFailure && P.openTwin) P.openTwin(twin);
    return opened;
  };

  // openRun opens a run's link without its twin part.
  function openRun(hash) {
    let name = hash;
    try {
      name = decodeURIComponent(hash);
    } catch {
      // not a scene name then; openLink says what is wrong with it
    }
    const list = P.call("scenes");
    const scenes = Array.isArray(list) ? list : [];
    if (scenes.some((s) => s.name === name)) {
      linkFailure = null;
    renderLinkError();
      P.loadScene(name);
      written = "";
      syncHash(true);
      return true;
    }
    const r = P.call("openLink", hash);
    if (!failed(r)) {
      linkFailure = null;
    renderLinkError();
      written = hash;
      defaults = {};
      P.notice(pick(P.call("state").title));
      return true;
    }
    if (scenes.length) P.loadScene(scenes[0].name);
    written = "";
    syncHash(true);
    linkFailure = r;
    renderLinkError();
    P.notice(t("tools.badLink"));
    return true;
  }

  // ---- the configuration panel --------------------------------------------------------
  const config = $("config-panel");
  let configKey = "";
  let defaults = {}; // each setting's value as the scene has it, seen while unchanged
  const configError = el("p", { id: "config-error", class: "error", role: "alert" });
  configError.hidden = true;

  const isSwitch = (st) => st.choices && st.choices.length === 2 && st.choices.includes("true") && st.choices.includes("false");
  const defaultOf = (st) => {
    if (st.default !== undefined) return String(st.default);
    if (defaults[st.key] !== undefined) return defaults[st.key];
    if (isSwitch(st)) return st.value === "true" ? "false" : "true";
    return undefined;
  };

  function setSetting(key, value) {
    const r = P.call("setSetting", key, value);
    if (failed(r)) {
      configError.textContent = `${key}=${value}: ${P.errorText(r)}`;
      configError.hidden = false;
    } else {
      configError.hidden = true;
    }
    renderConfig(P.call("state"), true); // back to the effective value either way
    if (!failed(r)) syncHash(true);
    const again = config && config.querySelector(`[data-key="${CSS.escape(key)}"] .control`);
    if (again) again.focus();
    return r;
  }

  function settingRow(st) {
    const row = el("div", { class: `setting${st.changed ? " changed" : ""}` });
    row.dataset.key = st.key;
    const id = `setting-${st.key.replace(/[^a-zA-Z0-9_-]/g, "_")}`;
    const label = el("label", { for: id, class: "setting-label" },
      el("span", { text: pick(st.label) || st.key }), el("code", { class: "setting-key", text: st.key }));
    let control;
    if (isSwitch(st)) {
      const on = st.value === "true";
      control = el("button", { type: "button", id, class: "control switch", role: "switch", "aria-checked": String(on), text: st.value });
      control.addEventListener("click", () => setSetting(st.key, on ? "false" : "true"));
    } else {
      control = el("select", { id, class: "control" },
        ...st.choices.map((c) => el("option", { value: c, text: c })));
      control.value = st.value;
      control.addEventListener("change", () => setSetting(st.key, control.value));
    }
    row.append(label, control);
    if (st.changed) {
      row.append(el("span", { class: "changed-mark", text: t("tools.changed") }));
      const def = defaultOf(st);
      if (def !== undefined) {
        const reset = el("button", { type: "button", class: "reset", text: `${t("tools.reset")} (${def})` });
        reset.addEventListener("click", () => setSetting(st.key, def));
        row.append(reset);
      }
    }
    return row;
  }

  function renderConfig(s, force) {
    if (!config || !s || s.error || !s.loaded) return;
    const settings = s.settings || [];
    for (const st of settings) if (!st.changed && defaults[st.key] === undefined) defaults[st.key] = st.value;
    const key = `${P.lang()}|${JSON.stringify(settings)}|${s.seed}`;
    if (key === configKey && !force) return;
    configKey = key;
    const seed = el("input", { type: "number", id: "seed-input", class: "control", step: "1", min: "0" });
    if (s.seed !== undefined) seed.value = String(s.seed);
    else seed.placeholder = t("tools.seedOfScene");
    seed.addEventListener("change", () => {
      const n = Number(seed.value);
      if (!Number.isInteger(n) || n < 0) return;
      const r = P.call("setSeed", n);
      configError.hidden = !failed(r);
      if (failed(r)) configError.textContent = P.errorText(r);
      renderConfig(P.call("state"), true);
      if (!failed(r)) syncHash(true);
    });
    const rows = settings.map(settingRow);
    const changed = settings.filter((st) => st.changed && defaultOf(st) !== undefined);
    const parts = [el("h3", { text: t("tools.settings") })];
    if (!rows.length) parts.push(el("p", { class: "dim", text: t("tools.noSettings") }));
    parts.push(...rows);
    parts.push(el("div", { class: "setting seed" },
      el("label", { for: "seed-input", class: "setting-label" }, el("span", { text: t("tools.seed") }), el("code", { class: "setting-key", text: "seed" })), seed));
    if (changed.length > 1) {
      const all = el("button", { type: "button", id: "reset-all", class: "reset", text: t("tools.resetAll") });
      all.addEventListener("click", () => {
        for (const st of changed) setSetting(st.key, defaultOf(st));
      });
      parts.push(all);
    }
    parts.push(el("p", { class: "dim setting-note", text: t("tools.settingsNote") }), configError);
    config.replaceChildren(...parts);
  }

  // ---- labels and the page's events -------------------------------------------------
  function renderLabels() {
    openButton.textContent = t("tools.openFile");
    pasteButton.textContent = t("tools.paste");
    shareButton.textContent = t("tools.share");
    diagramButton.textContent = t("tools.diagram");
    diagramButton.title = t("tools.diagramHint");
    pngButton.textContent = t("tools.png");
    pngButton.title = t("tools.pngHint");
    runButton.textContent = t("tools.saveRun");
    runButton.title = t("tools.saveRunHint");
    shareURL.setAttribute("aria-label", t("tools.shareLabel"));
    $("paste-title").textContent = t("tools.pasteTitle");
    $("paste-hint").textContent = t("tools.pasteHint");
    pasteLoad.textContent = t("tools.load");
    pasteCancel.textContent = t("tools.cancel");
    dropTarget.textContent = t("tools.dropHere");
    const toggle = $("fault-help-toggle");
    if (toggle) {
      toggle.textContent = t("tools.syntax");
      toggle.title = t("tools.syntaxTitle");
    }
    renderHelp();
    closeMenu();
  }

  // An own scene, or a link's, is none of the shipped scenes in the list; a link's
  // shipped scene is that one.
  let lastSource = null;
  function markSource(s) {
    if (!s.source) return;
    lastSource = s.source;
    const current = s.source.kind === "shipped" ? s.source.name : null;
    for (const b of document.querySelectorAll("#scene-list button[data-scene]")) {
      const is = String(b.dataset.scene === current);
      if (b.getAttribute("aria-current") !== is) b.setAttribute("aria-current", is);
    }
  }

  // The page rebuilds the list (a language switch, say) with its own idea of the current
  // scene: mark the source again.
  if (sceneList) {
    new MutationObserver(() => {
      if (lastSource) markSource({ source: lastSource });
    }).observe(sceneList, { childList: true });
  }

  P.on("render", (s) => {
    if (!s || s.error) return;
    markSource(s);
    renderConfig(s);
    syncHash(s);
  });
  P.on("loaded", (s) => {
    defaults = {};
    configError.hidden = true;
    closeMenu();
    if (s && !s.error) {
      markSource(s);
      renderConfig(s, true);
    }
    syncHash(true);
  });
  P.on("lang", () => {
    renderLabels();
    configKey = "";
    renderConfig(P.call("state"), true);
    renderLinkError();
  });
  renderLabels();
})();
