// Offsets over time: under the canvas, one chart per partition of the scene's topics —
// the leader's log end (LEO), high watermark (HW) and last stable offset (LSO), each
// group's committed offset and each consumer's position, as steps over the whole run,
// with the lag between the high watermark and the committed offset shaded, faults and
// leader changes marked. A line follows the scrubber; a click on a chart seeks there.
// The session samples the offsets when it learns the run (play.Chart); this only draws.
// Built on the page's extension API (window.deliverylabPage, app.js), like tools.js.
"use strict";
(() => {
  const P = window.deliverylabPage;
  if (!P) return;
  const $ = (id) => document.getElementById(id);
  const t = P.t;
  const panel = $("chart-panel");
  if (!panel) return;
  const SVG = "http://www.w3.org/2000/svg";
  // The chart is as wide as its panel, in CSS pixels, so its text keeps its size (the
  // style sheet's, larger in projector mode) at any width; it is drawn again on a resize.
  let W = 800;
  const H = 130;
  const PAD = { left: 48, right: 10, top: 20, bottom: 20 };
  const COLOR = { leo: "#94a3b8", hw: "#fbbf24", lso: "#4ade80", committed: "#a78bfa", position: "#22d3ee" };

  let chart = null;
  // listWidth is the charts' width, told by the ResizeObserver: reading it at every
  // render would lay the page out again at every frame of a playing run.
  let listWidth = 0;
  let chartKey = "";
  let drawnKey = "";
  let marks = [];

  const svg = (tag, attrs = {}) => {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    return e;
  };
  const x = (ms) => PAD.left + ((W - PAD.left - PAD.right) * Math.min(ms, chart.lengthMs)) / Math.max(chart.lengthMs, 1);

  // valueAt is a step line's offset at ms (-1 before its first point).
  function valueAt(points, ms) {
    let v = -1;
    for (const [at, off] of points) {
      if (at > ms) break;
      v = off;
    }
    return v;
  }

  // stepPath draws a step line, broken where the offset is unknown (-1).
  function stepPath(points, y) {
    let d = "";
    let open = false;
    points.forEach(([at, off], i) => {
      const end = i + 1 < points.length ? points[i + 1][0] : chart.lengthMs;
      if (off < 0) {
        open = false;
        return;
      }
      d += open ? ` V${y(off).toFixed(1)}` : ` M${x(at).toFixed(1)} ${y(off).toFixed(1)}`;
      d += ` H${x(end).toFixed(1)}`;
      open = true;
    });
    return d.trim();
  }

  function lineName(l) {
    return l.who ? `${t(`chart.${l.kind}`)} ${l.who}` : t(`chart.${l.kind}`);
  }

  function drawPartition(p) {
    const lines = p.lines.filter((l) => {
      if (l.kind !== "lso") return true;
      const hw = p.lines.find((h) => h.kind === "hw");
      // the LSO only where it ever stands apart from the HW (a partition with transactions)
      return hw && [...l.points, ...hw.points].some(([at]) => valueAt(l.points, at) !== valueAt(hw.points, at));
    });
    const top = Math.max(1, ...lines.flatMap((l) => l.points.map(([, off]) => off)));
    const y = (off) => H - PAD.bottom - ((H - PAD.top - PAD.bottom) * off) / top;
    const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart-svg", role: "img" });
    root.dataset.partition = p.partition;
    root.setAttribute("aria-label", `${t("chart.title")}: ${p.partition}`);
    root.append(svg("rect", { x: PAD.left, y: PAD.top, width: W - PAD.left - PAD.right, height: H - PAD.top - PAD.bottom, class: "chart-plot" }));
    const label = svg("text", { x: PAD.left, y: PAD.top - 3, class: "chart-label" });
    label.textContent = p.partition;
    const topLabel = svg("text", { x: PAD.left - 4, y: PAD.top + 10, class: "chart-axis", "text-anchor": "end" });
    topLabel.textContent = String(top);
    const zero = svg("text", { x: PAD.left - 4, y: H - PAD.bottom, class: "chart-axis", "text-anchor": "end" });
    zero.textContent = "0";
    const end = svg("text", { x: W - PAD.right, y: H - 4, class: "chart-axis", "text-anchor": "end" });
    end.textContent = `${chart.lengthMs} ms`;
    root.append(label, topLabel, zero, end);

    // The lag: between the high watermark and the first group's committed offset.
    const hw = p.lines.find((l) => l.kind === "hw");
    const committed = p.lines.find((l) => l.kind === "committed");
    if (hw && committed) {
      const times = [...new Set([...hw.points, ...committed.points].map(([at]) => at))].sort((a, b) => a - b);
      times.forEach((at, i) => {
        const next = i + 1 < times.length ? times[i + 1] : chart.lengthMs;
        const h = valueAt(hw.points, at);
        const c = valueAt(committed.points, at);
        if (h >= 0 && c >= 0 && h > c && next > at) {
          const r = svg("rect", { x: x(at), y: y(h), width: Math.max(x(next) - x(at), 0.5), height: y(c) - y(h), class: "chart-lag" });
          const title = svg("title");
          title.textContent = `${t("chart.lag")} ${committed.who}: ${h - c}`;
          r.append(title);
          root.append(r);
        }
      });
    }
    for (const m of marks) {
      if (m.kind === "caption") continue;
      const v = svg("line", { x1: x(m.atMs), x2: x(m.atMs), y1: PAD.top, y2: H - PAD.bottom, class: "chart-fault" });
      const title = svg("title");
      title.textContent = `${m.atMs} ms · ${t("chart.fault")}: ${P.lang() === "zh" ? m.text.zh : m.text.en}`;
      v.append(title);
      root.append(v);
    }
    p.leaders.slice(1).forEach((c) => {
      const px = x(c.atMs);
      const tri = svg("path", { d: `M${px - 4} ${PAD.top} L${px + 4} ${PAD.top} L${px} ${PAD.top + 6} Z`, class: "chart-leader" });
      const title = svg("title");
      title.textContent = `${c.atMs} ms · ${c.who ? `${t("chart.leader")} ${c.who}` : t("chart.noLeader")}`;
      tri.append(title);
      root.append(tri);
    });
    const seen = {};
    for (const l of lines) {
      const n = (seen[l.kind] = (seen[l.kind] || 0) + 1);
      const path = svg("path", { d: stepPath(l.points, y), class: `chart-line chart-${l.kind}`, stroke: COLOR[l.kind] || "#e2e8f0" });
      if (n > 1) path.setAttribute("stroke-dasharray", n === 2 ? "6 3" : "2 3");
      path.dataset.kind = l.kind;
      path.dataset.who = l.who;
      const title = svg("title");
      title.textContent = lineName(l);
      path.append(title);
      root.append(path);
    }
    const cursor = svg("line", { y1: PAD.top, y2: H - PAD.bottom, class: "chart-cursor" });
    root.append(cursor);
    root.addEventListener("click", (e) => {
      const box = root.getBoundingClientRect();
      const at = ((e.clientX - box.left) / box.width) * W;
      const ms = Math.round(((at - PAD.left) / (W - PAD.left - PAD.right)) * chart.lengthMs);
      window.deliverylab.seek(Math.max(0, Math.min(ms, chart.lengthMs)));
    });
    return root;
  }

  function legend() {
    const items = ["leo", "hw", "lso", "committed", "position"].map((k) => {
      const li = document.createElement("li");
      const sw = document.createElement("span");
      sw.className = "chart-swatch";
      sw.style.background = COLOR[k];
      li.append(sw, document.createTextNode(t(`chart.${k}`)));
      return li;
    });
    const lag = document.createElement("li");
    const sw = document.createElement("span");
    sw.className = "chart-swatch chart-swatch-lag";
    lag.append(sw, document.createTextNode(t("chart.lag")));
    return [...items, lag];
  }

  function draw() {
    if (!chart) return;
    const width = Math.max(480, listWidth || 800);
    const projector = document.body.classList.contains("projector");
    const key = `${chartKey}|${P.lang()}|${width}|${projector}`;
    if (key === drawnKey) return;
    drawnKey = key;
    W = width;
    $("chart-h").textContent = t("chart.title");
    $("chart-legend").replaceChildren(...legend());
    $("chart-list").replaceChildren(...chart.partitions.map(drawPartition));
  }

  function moveCursor(nowMs) {
    if (!chart) return;
    for (const c of panel.querySelectorAll(".chart-cursor")) {
      c.setAttribute("x1", x(nowMs));
      c.setAttribute("x2", x(nowMs));
    }
    panel.dataset.cursorMs = String(Math.min(nowMs, chart.lengthMs));
  }

  // While a long run's length is learned the timeline changes every frame: the chart
  // (a long run's is large) is fetched and drawn again at most once a second then, and
  // once more when it is learned.
  let chartFetchedAt = 0;
  function render(s) {
    if (!s || s.error || !s.loaded) return;
    const key = `${s.scene}|${s.seed}|${JSON.stringify(s.timeline)}|${JSON.stringify(s.settings)}`;
    const learning = Boolean(s.timeline && s.timeline.learning);
    if (key !== chartKey && (!learning || !chart || performance.now() - chartFetchedAt > 1000)) {
      const c = P.call("chart");
      if (!c || c.error) return;
      chart = c;
      chartKey = key;
      chartFetchedAt = performance.now();
      marks = (s.timeline && s.timeline.marks) || [];
    }
    const wasHidden = panel.hidden;
    panel.hidden = !chart || chart.partitions.length === 0;
    if (wasHidden && !panel.hidden) measure(); // its first width, once it is shown
    draw();
    lastNow = s.nowMs;
    moveCursor(s.nowMs);
  }

  P.on("render", render);
  P.on("loaded", (s) => {
    chartKey = "";
    render(s);
  });
  P.on("lang", () => {
    drawnKey = "";
    draw();
  });
  // A new width (the window, projector mode) or projector mode's type: drawn again.
  let lastNow = 0;
  const redraw = () => {
    draw();
    moveCursor(lastNow);
  };
  const measure = () => {
    listWidth = Math.round($("chart-list").clientWidth || panel.clientWidth || 0);
  };
  if (window.ResizeObserver) {
    new ResizeObserver(() => {
      measure();
      redraw();
    }).observe($("chart-list"));
  }
  new MutationObserver(redraw).observe(document.body, { attributes: true, attributeFilter: ["class"] });
})();
