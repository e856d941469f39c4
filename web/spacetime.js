// The run as a diagram, on the page: the whole run as a space-time diagram (one line per
// node, one arrow per message, time running down; the session draws it, core/diagram),
// with a red line where the run stands that follows the scrubber and keeps itself in
// view while the run plays, and a click that seeks to the moment clicked. It is drawn
// only while its panel is open, and again when the run, the highlighted message or the
// background switch changes. Built on the page's extension API (window.deliverylabPage).
"use strict";
(() => {
  const P = window.deliverylabPage;
  const api = window.deliverylab;
  if (!P || !api) return;
  const $ = (id) => document.getElementById(id);
  const panel = $("diagram-panel");
  const box = $("diagram-box");
  const background = $("diagram-background");
  if (!panel || !box || !background) return;
  const SVG = "http://www.w3.org/2000/svg";

  let key = "";
  let knots = []; // [ms, y] through which time maps to height
  let svg = null;
  let line = null;
  let last = null;

  // y is the height of ms on the picture; ms the time at height y.
  function through(v, from, to) {
    if (!knots.length) return 0;
    if (v <= knots[0][from]) return knots[0][to];
    for (let i = 1; i < knots.length; i++) {
      const a = knots[i - 1];
      const b = knots[i];
      if (v <= b[from]) return b[from] === a[from] ? b[to] : a[to] + ((v - a[from]) / (b[from] - a[from])) * (b[to] - a[to]);
    }
    return knots[knots.length - 1][to];
  }
  const y = (ms) => through(ms, 0, 1);
  const msAt = (h) => Math.round(through(h, 1, 0));

  function draw(s) {
    const r = P.call("wholeDiagram", background.checked);
    if (!r || r.error !== undefined) return;
    const doc = new DOMParser().parseFromString(r.svg, "image/svg+xml");
    svg = document.importNode(doc.documentElement, true);
    knots = (svg.getAttribute("data-axis") || "").split(";").filter(Boolean).map((k) => k.split(",").map(Number));
    const width = Number(svg.getAttribute("width")) || 0;
    scaleForMode();
    line = document.createElementNS(SVG, "line");
    line.setAttribute("class", "now");
    line.setAttribute("x1", "0");
    line.setAttribute("x2", String(width));
    svg.append(line);
    svg.addEventListener("click", (e) => {
      const m = svg.getScreenCTM();
      if (!m) return;
      const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
      api.seek(Math.max(0, msAt(p.y)));
    });
    box.replaceChildren(svg);
    moveLine(s, true);
  }

  // scaleForMode draws the picture at its own size, larger in projector mode (its text is
  // 12 px at its own size); the box scrolls both ways.
  function scaleForMode() {
    if (!svg) return;
    const k = document.body.classList.contains("projector") ? 1.5 : 1;
    svg.style.width = `${Number(svg.getAttribute("width")) * k}px`;
    svg.style.height = `${Number(svg.getAttribute("height")) * k}px`;
  }
  new MutationObserver(() => {
    scaleForMode();
    if (last) moveLine(last, true);
  }).observe(document.body, { attributes: true, attributeFilter: ["class"] });

  // moveLine puts the red line at the run's moment, scrolling it into view when asked
  // (a seek) or when the playing run has moved it out of view.
  function moveLine(s, scroll) {
    if (!svg || !line) return;
    const h = y(s.nowMs);
    line.setAttribute("y1", String(h));
    line.setAttribute("y2", String(h));
    panel.dataset.nowMs = String(s.nowMs);
    const scale = svg.getBoundingClientRect().height / (Number(svg.getAttribute("height")) || 1);
    const at = h * scale;
    if (scroll || at < box.scrollTop || at > box.scrollTop + box.clientHeight) {
      box.scrollTop = Math.max(0, at - box.clientHeight / 3);
    }
  }

  function render(s) {
    if (!s || s.error || !s.loaded) return;
    const seeked = last && !s.playing && s.nowMs !== last.nowMs;
    last = s;
    if (!panel.open) return;
    const hl = (s.highlight && s.highlight.message) || "";
    const k = `${s.scene}|${s.seed}|${JSON.stringify(s.timeline)}|${JSON.stringify(s.settings)}|${hl}|${background.checked}`;
    if (k !== key) {
      key = k;
      draw(s);
      return;
    }
    moveLine(s, seeked);
  }

  panel.addEventListener("toggle", () => {
    if (panel.open && last) render(api.state());
  });
  background.addEventListener("change", () => {
    if (last) render(api.state());
  });
  P.on("render", render);
  P.on("loaded", (s) => {
    key = "";
    render(s);
  });
})();
