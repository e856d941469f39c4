// Record video (WebM): a stretch of the run at a chosen speed, for a course page. The
// page seeks to the stretch's start, plays it at that speed and records the canvas as it
// plays (the canvas's captureStream through the browser's MediaRecorder), then stops at
// its end and saves the file. What is recorded is what the canvas shows, frame by frame.
// Built on the page's extension API (window.deliverylabPage, app.js), like tools.js.
"use strict";
(() => {
  const P = window.deliverylabPage;
  const api = window.deliverylab;
  if (!P || !api) return;
  const $ = (id) => document.getElementById(id);
  const t = P.t;
  const tools = $("scene-tools");
  if (!tools) return;
  const el = (tag, props = {}, ...children) => {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (k === "text") e.textContent = v;
      else e.setAttribute(k, v);
    }
    e.append(...children);
    return e;
  };
  const tf = (key, vars) => t(key).replace(/\{(\w+)\}/g, (_, k) => String(vars[k]));
  const SPEEDS = ["0.25", "0.5", "1", "2", "5", "10"];

  const button = el("button", { type: "button", id: "record-video" });
  const from = el("input", { id: "video-from", type: "number", min: "0", step: "1" });
  const to = el("input", { id: "video-to", type: "number", min: "0", step: "1" });
  const speed = el("select", { id: "video-speed" }, ...SPEEDS.map((v) => el("option", { value: v, text: `×${v}` })));
  const fromLabel = el("label", { for: "video-from" });
  const toLabel = el("label", { for: "video-to" });
  const speedLabel = el("label", { for: "video-speed" });
  const record = el("button", { type: "button", id: "video-record" });
  const cancel = el("button", { type: "button", id: "video-cancel" });
  const status = el("p", { id: "video-status", class: "error", role: "alert" });
  const title = el("h2", { id: "video-title" });
  const dialog = el(
    "dialog",
    { id: "video-dialog", class: "video-dialog", "aria-labelledby": "video-title" },
    title,
    el("div", { class: "video-fields" }, fromLabel, from, toLabel, to, speedLabel, speed),
    el("div", { class: "video-buttons" }, record, cancel),
    status,
  );
  document.body.append(dialog);
  tools.append(button);

  let recording = null;

  function labels() {
    button.textContent = recording ? t("video.recordingShort") : t("video.button");
    button.title = t("video.hint");
    title.textContent = t("video.title");
    fromLabel.textContent = t("video.from");
    toLabel.textContent = t("video.to");
    speedLabel.textContent = t("video.speed");
    record.textContent = t("video.record");
    cancel.textContent = t("tools.cancel");
  }

  button.addEventListener("click", () => {
    if (recording) return;
    const s = api.state();
    if (!s || s.error) return;
    const length = (s.timeline && s.timeline.lengthMs) || s.nowMs;
    from.value = String(s.nowMs < length ? s.nowMs : 0);
    to.value = String(length);
    speed.value = SPEEDS.includes(String(s.speed)) ? String(s.speed) : "1";
    status.textContent = "";
    dialog.showModal();
  });
  cancel.addEventListener("click", () => dialog.close());

  function save(blob, file) {
    const url = URL.createObjectURL(blob);
    const a = el("a", { href: url, download: file });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }

  record.addEventListener("click", () => {
    const s = api.state();
    const length = (s.timeline && s.timeline.lengthMs) || 0;
    const a = Math.round(Number(from.value));
    const b = Math.round(Number(to.value));
    const x = Number(speed.value);
    if (!(a >= 0 && b > a && b <= length)) {
      status.textContent = tf("video.bad", { length });
      return;
    }
    const frame = $("game");
    const canvas = frame && frame.contentDocument && frame.contentDocument.querySelector("canvas");
    const mime = window.MediaRecorder && ["video/webm;codecs=vp9", "video/webm;codecs=vp8", "video/webm"].find((m) => MediaRecorder.isTypeSupported(m));
    if (!canvas || !canvas.captureStream || !mime) {
      status.textContent = t("video.unsupported");
      return;
    }
    dialog.close();
    api.pause();
    api.seek(a);
    api.setSpeed(x);
    const rec = new MediaRecorder(canvas.captureStream(30), { mimeType: mime });
    const chunks = [];
    rec.ondataavailable = (e) => {
      if (e.data && e.data.size > 0) chunks.push(e.data);
    };
    rec.onstop = () => {
      recording = null;
      labels();
      button.disabled = false;
      save(new Blob(chunks, { type: "video/webm" }), `${s.scene}-${a}-${b}ms.webm`);
    };
    recording = { rec, end: b };
    button.disabled = true;
    labels();
    P.notice(tf("video.recording", { from: a, to: b, speed: x }));
    rec.start(250);
    api.play();
    // Watch the run, not the renders: the run ends the recording at the stretch's end,
    // at the run's end, or when the user pauses it; a caption that stops the run for
    // the teacher is gone on from, as the video cannot wait for Continue.
    const watch = setInterval(() => {
      const now = api.state();
      if (now && !now.error && now.waitingCaption >= 0 && now.nowMs < b) {
        api.continue();
        return;
      }
      if (!now || now.error || now.nowMs >= b || now.ended || !now.playing) {
        clearInterval(watch);
        api.pause();
        rec.stop();
      }
    }, 50);
  });

  P.on("lang", labels);
  labels();
})();
