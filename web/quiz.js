// Predict, then run: a scene's questions (its quiz: key) asked before the run. The
// learner picks an answer to each while the run is at its start; the picks lock once it
// plays; when the run has ended each question shows the run's answer — from the ledger,
// so the user's faults count — beside the pick, and what explains it. Restart asks again.
// Built on the page's extension API (window.deliverylabPage, app.js), like tools.js.
"use strict";
(() => {
  const P = window.deliverylabPage;
  if (!P) return;
  const $ = (id) => document.getElementById(id);
  const pick = (text) => (text ? text[P.lang()] || text.en || "" : "");
  const t = P.t;

  const section = $("quiz");
  if (!section) return;
  // picks[i] is the chosen answer to question i ("" none); they belong to one scene and
  // one round (from 0 ms until the run is back at its start).
  let picks = [];
  let scene = "";
  let key = "";
  // revealed: the answers have been shown; back at the start, that round is over.
  let revealed = false;

  // A question's choice as the page says it: a verdict in the page's words, a count as it is.
  const choiceText = (q, c) => (q.ask === "verdict" ? t(`verdict.${c}`) : c);

  function render(s) {
    const quiz = (s && s.quiz) || [];
    section.hidden = quiz.length === 0;
    if (quiz.length === 0) return;
    const atStart = s.nowMs === 0 && !s.playing && !s.ended;
    if (s.scene !== scene || picks.length !== quiz.length) {
      scene = s.scene;
      picks = quiz.map(() => "");
      revealed = false;
    } else if (atStart && revealed) {
      picks = quiz.map(() => ""); // a new round after a replay
      revealed = false;
    }
    const k = `${P.lang()}|${s.scene}|${atStart}|${s.ended}|${picks.join(",")}|${JSON.stringify(quiz)}`;
    if (k === key) return;
    key = k;
    $("quiz-h").textContent = t("quiz.title");
    const ended = s.ended && quiz.every((q) => q.answer !== "");
    if (ended) revealed = true;
    let right = 0;
    const items = quiz.map((q, i) => {
      const li = document.createElement("li");
      li.className = "quiz-q";
      li.dataset.ask = q.ask;
      const p = document.createElement("p");
      p.className = "quiz-question";
      p.textContent = pick(q.question);
      const choices = document.createElement("div");
      choices.className = "quiz-choices";
      choices.setAttribute("role", "group");
      choices.setAttribute("aria-label", pick(q.question));
      for (const c of q.choices) {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "quiz-choice";
        b.dataset.choice = c;
        b.textContent = choiceText(q, c);
        b.setAttribute("aria-pressed", String(picks[i] === c));
        b.disabled = !atStart;
        if (ended && c === q.answer) b.classList.add("right");
        if (ended && picks[i] === c && c !== q.answer) b.classList.add("wrong");
        b.addEventListener("click", () => {
          picks[i] = picks[i] === c ? "" : c;
          key = "";
          render(P.call("state"));
        });
        choices.append(b);
      }
      li.append(p, choices);
      if (ended) {
        const ok = picks[i] === q.answer;
        if (ok) right++;
        const verdict = document.createElement("p");
        verdict.className = `quiz-answer ${picks[i] === "" ? "" : ok ? "right" : "wrong"}`;
        let text = `${t("quiz.answer")} ${choiceText(q, q.answer)}`;
        if (!q.choices.includes(q.answer)) text += ` ${t("quiz.notOffered")}`;
        text += picks[i] === "" ? ` · ${t("quiz.noPick")}` : ok ? ` · ${t("quiz.right")}` : ` · ${t("quiz.wrong")} ${choiceText(q, picks[i])}`;
        verdict.textContent = text;
        li.append(verdict);
        const why = pick(q.why);
        if (why) {
          const w = document.createElement("p");
          w.className = "quiz-why";
          w.textContent = why;
          li.append(w);
        }
      }
      return li;
    });
    $("quiz-list").replaceChildren(...items);
    const note = $("quiz-note");
    if (ended) {
      note.textContent = t("quiz.score").replace("{right}", String(right)).replace("{all}", String(quiz.length));
    } else if (atStart) {
      note.textContent = t("quiz.ask");
    } else {
      note.textContent = t("quiz.locked");
    }
  }

  P.on("render", render);
  P.on("loaded", (s) => {
    scene = "";
    key = "";
    render(s);
  });
  P.on("lang", () => {
    key = "";
    render(P.call("state"));
  });
})();
