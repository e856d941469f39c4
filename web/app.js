// The page around the canvas: scene picker, controls, captions and the ledger, all as
// DOM text so any script renders with the system's fonts. The game runs in the iframe
// #game (Ebiten wants a document of its own); window.deliverylab here is the page's
// facade over the game's bridge, used by these controls and by the browser tests.
"use strict";
(() => {
  const $ = (id) => document.getElementById(id);
  const frame = $("game");

  // ---- language -------------------------------------------------------------------
  const STRINGS = {
    tagline: { en: "Kafka delivery semantics, message by message", zh: "Kafka 投递语义，逐条消息剖析" },
    scenes: { en: "Scenes", zh: "场景" },
    loadingScenes: { en: "Loading scenes…", zh: "正在加载场景…" },
    noScene: { en: "Delivery Lab", zh: "Delivery Lab" },
    play: { en: "Play", zh: "播放" },
    pause: { en: "Pause", zh: "暂停" },
    replay: { en: "Replay", zh: "重播" },
    step: { en: "Step", zh: "单步" },
    runToEnd: { en: "Run to end", zh: "运行到结束" },
    restart: { en: "Restart", zh: "重新开始" },
    speed: { en: "Speed", zh: "速度" },
    loading: { en: "Loading the simulation…", zh: "正在加载模拟…" },
    starting: { en: "Starting the simulation…", zh: "正在启动模拟…" },
    hint: {
      en: "Click a broker to crash it and again to restart it; click a message in flight to drop it. Keys: Space plays or pauses, → steps.",
      zh: "点击一个 broker 让它崩溃，再点一次让它重启；点击传输中的消息将其丢弃。按键：空格播放或暂停，→ 单步。",
    },
    legend: {
      en: "On the canvas: BLOCKED on a producer means its send() waits for buffer.memory (at most max.block.ms); a log cell outlined in pink is a record that landed behind a later send with the same key (reordered); FENCED on a broker means the controller fenced it (no heartbeat within broker.session.timeout.ms): it is up, but may still believe it leads what the controller moved away; cells struck out in red after a log's end are records a truncation just cut from that replica; \"0:3\" at the top right of a log cell is the idempotent producer's id (0) and the record's sequence number (3); an orange dot on the wire is a leader's answer to a batch it already had (an idempotent retry), bouncing back with the original offset; in a sink, a row outlined in orange is stored more than once, and one struck out in orange is an insert a unique key refused as a duplicate; COMMIT and ABORT cells are a transaction's markers and grey cells the records of an aborted transaction, \"lso N\" beside hw (and a green line, when it stands short of the high watermark) is the last stable offset below which a read_committed consumer reads, \"txn ID State eN\" on a broker is a transactional id it coordinates, and a lime box is a Kafka Streams application (its guarantee, its thread's state and, under exactly_once_v2, its transaction), and \"+N follower rows\" under a broker counts the follower replicas left out when the canvas is too short for every row (those of internal topics first; the leaders, the coordinators among them, stay).",
      zh: "画布上：生产者上的 BLOCKED 表示它的 send() 正在等待 buffer.memory（最多 max.block.ms）；粉色描边的日志格子是一条落在同键后发消息之后的记录（顺序被打乱）；broker 上的 FENCED 表示控制器已隔离它（broker.session.timeout.ms 内没有心跳）：它还在运行，却可能仍以为自己领导着已被控制器移走的分区；日志末尾之后被红线划掉的格子，是该副本刚被截断掉的记录；日志格子右上角的“0:3”是幂等生产者的 ID（0）和这条记录的序号（3）；线路上的橙色圆点是 leader 对它已有批次（幂等重试）的应答，带着原来的位移弹回；在 sink 中，橙色描边的行被存了不止一次，被橙色划掉的是唯一键作为重复拒绝的插入；COMMIT 和 ABORT 格子是事务的标记，灰色格子是被中止事务的记录，hw 旁边的“lso N”（它落后于高水位时还有一条绿线）是最后稳定位移（read_committed 的消费者只读它之下的记录），broker 上的“txn ID 状态 eN”是它作为协调者管理的事务 ID，青柠色的框是 Kafka Streams 应用（它的处理保证、线程状态，以及 exactly_once_v2 下的事务），broker 下方的“+N follower rows”是画布太矮、放不下所有行时省略的跟随者副本数（先省略内部主题的；领导者，包括各个协调者，始终保留）。",
    },
    faultLabel: { en: "Inject a fault", zh: "注入故障" },
    inject: { en: "Inject", zh: "注入" },
    captions: { en: "Narration", zh: "解说" },
    offScript: {
      en: "Your faults changed the run: the captions after them follow the scene's script and may not match what you see.",
      zh: "你注入的故障改变了这次运行：之后的解说仍按场景剧本展开，可能与你看到的不符。",
    },
    about: { en: "About this scene", zh: "关于本场景" },
    faults: { en: "Your faults", zh: "你注入的故障" },
    noFaults: { en: "None yet.", zh: "暂无。" },
    invariants: { en: "Invariant violations", zh: "不变量被破坏" },
    ledger: { en: "Ledger", zh: "账本" },
    verdict: { en: "Verdict", zh: "结论" },
    message: { en: "Message", zh: "消息" },
    fate: { en: "Fate", zh: "结局" },
    why: { en: "Why", zh: "原因" },
    trace: { en: "Trace", zh: "事件轨迹" },
    output: { en: "output", zh: "输出" },
    crashed: { en: "The simulation stopped: ", zh: "模拟已停止：" },
    noMessages: { en: "No messages yet.", zh: "还没有消息。" },
    endWhy: { en: "Why the run stopped:", zh: "运行为何停止：" },
    anomalies: { en: "Anomalies (Jepsen's names)", zh: "异常（Jepsen 的命名）" },
    totalShown: { en: "Dashboard total: shown", zh: "看板总数：显示" },
    totalExpected: { en: "expected", zh: "应为" },
    overcounts: { en: "overcounts by", zh: "多算了" },
    undercounts: { en: "undercounts by", zh: "少算了" },
  };
  const FATES = {
    sent: { en: "sent", zh: "已发送" },
    acked: { en: "acked", zh: "已确认" },
    delivered: { en: "delivered", zh: "已送达" },
    lost: { en: "lost", zh: "丢失" },
    duplicated: { en: "duplicated", zh: "重复" },
    unavailable: { en: "unavailable", zh: "不可用" },
    failed: { en: "failed", zh: "失败" },
    pending: { en: "pending", zh: "待定" },
  };
  const COUNT_ORDER = Object.keys(FATES);

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

  const t = (key) => (STRINGS[key] ? STRINGS[key][lang] : key);
  const pick = (text) => (text ? text[lang] || text.en || "" : "");
  const fateName = (f) => (FATES[f] ? FATES[f][lang] : f);

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
    for (const el of document.querySelectorAll("[data-i18n]")) {
      el.textContent = t(el.dataset.i18n);
    }
    renderScenes();
    keys = {};
    scheduleRender(true);
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
  const READS = new Set(["state", "version", "scenes"]);
  function call(name, ...args) {
    if (window.deliverylabCrashed) {
      return { error: `the simulation has crashed: ${window.deliverylabCrashed}` };
    }
    const b = inner();
    if (!b || !b.ready) return { error: "the simulation is still loading" };
    if (!READS.has(name)) scheduleRender();
    return b[name](...args);
  }

  // Node rectangles come from the game in canvas CSS pixels (rect). Here each also gets
  // clientRect (the top-level viewport, where mouse events point) and pageRect (the
  // document, scroll included); messages get clientPos and pagePos.
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
    return s;
  }

  const api = {
    ready: false,
    renderedView: -1, // the game's view (state().view) the DOM shows
    scenes: () => call("scenes"),
    load(name) {
      const r = call("load", name);
      if (!r.error) {
        current = name;
        maxSeenMs = 0;
        history.replaceState(null, "", `#${encodeURIComponent(name)}`);
        markCurrentScene();
      }
      return r;
    },
    play: () => call("play"),
    pause: () => call("pause"),
    step: () => call("step"),
    seek: (ms) => call("seek", ms),
    runToEnd: () => call("runToEnd"),
    inject: (fault) => call("inject", fault),
    setSpeed(x) {
      const r = call("setSpeed", x);
      if (!r.error) $("speed").value = String(x);
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

  // ---- loading, readiness and crashes ---------------------------------------------
  let scenes = [];
  let current = "";

  window.addEventListener("message", (e) => {
    if (e.source !== frame.contentWindow || !e.data || e.data.source !== "deliverylab") return;
    const m = e.data;
    if (m.type === "progress") {
      const loader = $("loader");
      if (m.total > 0) {
        loader.classList.remove("indeterminate");
        $("bar-fill").style.width = `${Math.min(100, (100 * m.loaded) / m.total)}%`;
        $("loader-detail").textContent = `${(m.loaded / 1048576).toFixed(1)} / ${(m.total / 1048576).toFixed(1)} MB`;
      } else {
        loader.classList.add("indeterminate");
        $("loader-detail").textContent = `${(m.loaded / 1048576).toFixed(1)} MB`;
      }
    } else if (m.type === "starting") {
      $("bar-fill").style.width = "100%";
      $("loader").querySelector("p").textContent = t("starting");
    } else if (m.type === "changed") {
      scheduleRender();
    } else if (m.type === "ready") {
      onReady();
    } else if (m.type === "crashed") {
      onCrashed(m.detail);
    }
  });

  function onReady() {
    if (api.ready || window.deliverylabCrashed) return;
    const list = call("scenes");
    scenes = Array.isArray(list) ? list : [];
    renderScenes();
    const wanted = decodeURIComponent(location.hash.slice(1));
    const first = scenes.find((s) => s.name === wanted) || scenes[0];
    if (first) api.load(first.name);
    $("loader").classList.add("done");
    for (const el of document.querySelectorAll(".controls [disabled], .inject [disabled]")) {
      el.disabled = false;
    }
    api.ready = true;
    scheduleRender(true);
  }

  function onCrashed(reason) {
    if (window.deliverylabCrashed && $("crashed").textContent) return;
    window.deliverylabCrashed = reason || "crashed";
    api.ready = false;
    const banner = $("crashed");
    banner.textContent = t("crashed") + window.deliverylabCrashed;
    banner.hidden = false;
    for (const el of document.querySelectorAll(".controls button, .controls select, .controls input, .inject button")) {
      el.disabled = true;
    }
  }

  // ---- scene picker ---------------------------------------------------------------
  function renderScenes() {
    if (!scenes.length) return;
    const ul = $("scene-list");
    ul.replaceChildren(
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
    markCurrentScene();
  }

  function markCurrentScene() {
    for (const b of document.querySelectorAll("#scene-list button")) {
      b.setAttribute("aria-current", String(b.dataset.scene === current));
    }
  }

  // ---- controls -------------------------------------------------------------------
  let last = null; // the last state rendered
  let pendingSeek = null;
  let dragging = false;

  $("play").addEventListener("click", togglePlay);
  $("step").addEventListener("click", () => api.step());
  $("run-end").addEventListener("click", () => api.runToEnd());
  $("restart").addEventListener("click", () => api.seek(0));
  $("speed").addEventListener("change", (e) => api.setSpeed(Number(e.target.value)));
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
    $("fault-error").textContent = r.error || "";
    if (!r.error) $("fault").value = "";
  });
  document.addEventListener("keydown", (e) => {
    if (!api.ready || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target.closest && e.target.closest("input, select, textarea, button")) return;
    if (e.key === " ") {
      e.preventDefault();
      togglePlay();
    } else if (e.key === "." || e.key === "ArrowRight") {
      e.preventDefault();
      api.step();
    }
  });

  function togglePlay() {
    const s = last;
    if (!s) return;
    if (s.ended) {
      api.seek(0);
      api.play();
    } else if (s.playing) {
      api.pause();
    } else {
      api.play();
    }
  }

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
      api.seek(ms);
    }
    const v = call("version");
    if (v === lastView && !force) return;
    lastView = v;
    force = false;
    const s = api.state();
    if (s && !s.error) {
      render(s);
      api.renderedView = s.view; // tests wait for this before reading the DOM
    }
  }

  // The ready or crashed message can arrive before this script listens: look as well,
  // until one of them has happened.
  const watch = setInterval(() => {
    if (api.ready || window.deliverylabCrashed) {
      clearInterval(watch);
      return;
    }
    const b = inner();
    if (frame.contentWindow && frame.contentWindow.deliverylabCrashed) {
      onCrashed(frame.contentWindow.deliverylabCrashed);
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

  function render(s) {
    last = s;
    if (!s.loaded) return;
    if (changed("head", `${s.scene}|${lang}`)) {
      $("scene-title").textContent = pick(s.title) || s.scene;
      $("scene-title").title = pick(s.title) || s.scene;
      $("scene-summary").textContent = pick(s.summary);
    }
    maxSeenMs = Math.max(maxSeenMs, s.nowMs);
    seek.max = String(maxSeenMs);
    if (!dragging && pendingSeek === null) seek.value = String(s.nowMs);
    $("time").textContent = `${s.nowMs} ms`;
    const play = $("play");
    play.textContent = t(s.ended ? "replay" : s.playing ? "pause" : "play");
    play.dataset.i18n = s.ended ? "replay" : s.playing ? "pause" : "play";
    $("step").disabled = s.ended;
    $("run-end").disabled = s.ended;
    renderCaptions(s);
    renderLedger(s);
    renderEndWhy(s);
    renderFaults(s);
    renderErrors(s);
    if (changed("trace", (s.trace || []).join("\n"))) $("trace").textContent = keys.trace;
    if (s.lastError && s.lastError.seq > noticeSeq) {
      noticeSeq = s.lastError.seq;
      const n = $("notice");
      n.textContent = s.lastError.text;
      n.hidden = false;
      clearTimeout(noticeTimer);
      noticeTimer = setTimeout(() => (n.hidden = true), 6000);
    }
  }

  function renderCaptions(s) {
    const caps = s.captions || [];
    const lastCap = caps[caps.length - 1];
    const from = s.faultsFromMs ?? -1;
    if (!changed("captions", `${s.scene}|${lang}|${caps.length}|${lastCap ? lastCap.atMs : ""}|${from}`)) return;
    const ol = $("captions");
    const offScript = (c) => from >= 0 && c.atMs >= from;
    ol.replaceChildren(
      ...caps.map((c, i) => {
        const li = document.createElement("li");
        if (i === caps.length - 1) li.classList.add("current");
        if (offScript(c)) {
          li.classList.add("off-script");
          li.title = t("offScript");
        }
        const at = document.createElement("span");
        at.className = "at";
        at.textContent = `${c.atMs} ms`;
        li.append(at, document.createTextNode(c[lang] || c.en));
        return li;
      }),
    );
    const note = $("off-script");
    note.textContent = t("offScript");
    note.hidden = from < 0;
    ol.scrollTop = ol.scrollHeight;
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

  function renderLedger(s) {
    const l = s.ledger || {};
    if (!changed("ledger", `${lang}|${JSON.stringify(l)}`)) return;
    const counts = l.counts || {};
    const verdict = $("verdict");
    verdict.textContent = l.verdict || "—";
    const worst = ["lost", "duplicated", "unavailable", "failed"].find((f) => counts[f] > 0);
    verdict.className = `verdict ${worst ? `fate-${worst}` : counts.delivered ? "fate-delivered" : ""}`;
    $("output").textContent = l.output ? `${t("output")}: ${l.output}` : "";
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
    renderTotal(s, l.total);
    const rows = (l.messages || []).map((m) => {
      const tr = document.createElement("tr");
      tr.dataset.fate = m.fate;
      const id = document.createElement("td");
      id.textContent = m.id;
      const fate = document.createElement("td");
      fate.className = `fate fate-${m.fate}`;
      fate.textContent = fateName(m.fate);
      const why = document.createElement("td");
      why.textContent = pick(m.reason);
      tr.append(id, fate, why);
      return tr;
    });
    if (!rows.length) {
      const tr = document.createElement("tr");
      const td = document.createElement("td");
      td.colSpan = 3;
      td.className = "dim";
      td.textContent = t("noMessages");
      tr.append(td);
      rows.push(tr);
    }
    $("ledger-body").replaceChildren(...rows);
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

  function renderFaults(s) {
    const faults = s.faults || [];
    if (!changed("faults", `${lang}|${JSON.stringify(faults)}`)) return;
    const items = faults.map((f) => {
      const li = document.createElement("li");
      const code = document.createElement("code");
      code.textContent = f;
      li.append(code);
      return li;
    });
    if (!items.length) {
      const li = document.createElement("li");
      li.className = "dim";
      li.textContent = t("noFaults");
      items.push(li);
    }
    $("faults").replaceChildren(...items);
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
