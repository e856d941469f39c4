// The lessons' language: the page's (Delivery Lab keeps it as deliverylab.lang), or
// the one chosen here; one language shows, both print.
"use strict";
(() => {
  const show = (lang) => {
    for (const s of document.querySelectorAll("section[lang]")) s.hidden = s.lang !== lang;
    for (const b of document.querySelectorAll(".lang button")) b.setAttribute("aria-pressed", String(b.dataset.lang === lang));
    document.documentElement.lang = lang;
    try {
      localStorage.setItem("deliverylab.lang", lang);
    } catch {
      // storage may be refused (a file opened from disk): the choice lasts this page
    }
  };
  let lang = "en";
  try {
    lang = localStorage.getItem("deliverylab.lang") === "zh" ? "zh" : "en";
  } catch {
    lang = "en";
  }
  for (const b of document.querySelectorAll(".lang button")) b.addEventListener("click", () => show(b.dataset.lang));
  show(lang);
})();
