/* tujie page script: theme (prefers-color-scheme, then the remembered toggle), progress stamps
   (click cycles, remembered per page and card), glossary pop-up on hover, focus and tap.
   The only script on the page; the CSP allows it by hash. No network, no inline handlers. */
(function () {
  "use strict";
  var root = document.documentElement;
  var THEME_KEY = "tujie-theme";
  var STAMP_KEY = "tujie-progress:" + (root.getAttribute("data-page") || "page") + ":";
  var STATES = ["unmarked", "learned", "review", "next"];
  var media = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;

  function recall(key) {
    try { return window.localStorage.getItem(key); } catch (err) { return null; }
  }
  function remember(key, value) {
    try { window.localStorage.setItem(key, value); } catch (err) { /* private mode: no memory */ }
  }
  function chosenTheme() {
    var saved = recall(THEME_KEY);
    if (saved === "light" || saved === "dark") { return saved; }
    return media && media.matches ? "dark" : "light";
  }
  function applyTheme(theme) {
    root.setAttribute("data-theme", theme);
    var button = document.getElementById("theme-toggle");
    if (button) { button.setAttribute("aria-pressed", theme === "dark" ? "true" : "false"); }
  }
  /* Set before the body is parsed, so the page never flashes the other theme. */
  applyTheme(chosenTheme());

  function setupTheme() {
    var button = document.getElementById("theme-toggle");
    applyTheme(root.getAttribute("data-theme") || chosenTheme());
    if (button) {
      button.addEventListener("click", function () {
        var next = root.getAttribute("data-theme") === "dark" ? "light" : "dark";
        remember(THEME_KEY, next);
        applyTheme(next);
      });
    }
    if (media && media.addEventListener) {
      media.addEventListener("change", function () {
        if (!recall(THEME_KEY)) { applyTheme(chosenTheme()); }
      });
    }
  }

  /* Each state is drawn once as a <symbol id="stamp-sym-STATE"> at the top of the body; a
     card's stamp is a <use> of it, so changing state re-points the <use> and its title. */
  function setStamp(stamp, state) {
    stamp.setAttribute("data-state", state);
    var holder = stamp.querySelector(".stamp-face");
    var symbol = document.getElementById("stamp-sym-" + state);
    var label = root.getAttribute("data-stamp-label");
    /* The accessible name contains the stamp's visible words (axe: label-content-name-mismatch). */
    if (label && symbol) {
      stamp.setAttribute("aria-label", label.replace("{state}", symbol.getAttribute("data-word") || state));
    }
    if (!holder || !symbol || holder.getAttribute("data-face") === state) { return; }
    var use = holder.querySelector("use");
    var title = holder.querySelector("title");
    var desc = holder.querySelector("desc");
    if (use) { use.setAttribute("href", "#stamp-sym-" + state); }
    if (title) { title.textContent = symbol.getAttribute("data-title") || state; }
    if (desc) { desc.textContent = symbol.getAttribute("data-desc") || state; }
    holder.setAttribute("data-face", state);
  }
  function setupStamps() {
    var stamps = document.querySelectorAll("button.stamp");
    Array.prototype.forEach.call(stamps, function (stamp) {
      var key = STAMP_KEY + stamp.getAttribute("data-card");
      var saved = recall(key);
      if (STATES.indexOf(saved) >= 0) { setStamp(stamp, saved); }
      stamp.addEventListener("click", function () {
        var now = STATES.indexOf(stamp.getAttribute("data-state"));
        var next = STATES[(now + 1) % STATES.length];
        setStamp(stamp, next);
        remember(key, next);
      });
    });
  }

  /* A definition is written once, in its first-use note (li#note-N); the pop-up copies it. */
  function setupGlossary() {
    var pop = document.getElementById("gloss-pop");
    if (!pop) { return; }
    var pinned = null;
    function show(term) {
      var id = term.getAttribute("aria-describedby") || (term.getAttribute("href") || "").slice(1);
      var note = id ? document.getElementById(id) : null;
      var text = note ? note.querySelector("span") : null;
      var named = note ? note.querySelector("a, strong") : null;
      if (!text) { return; }
      pop.textContent = "";
      var name = document.createElement("strong");
      name.textContent = named ? named.textContent : term.textContent;
      pop.appendChild(name);
      pop.appendChild(document.createTextNode(" " + text.textContent));
      pop.hidden = false;
    }
    function hide() { if (!pinned) { pop.hidden = true; } }
    var terms = document.querySelectorAll("dfn.term, a.gloss-link");
    Array.prototype.forEach.call(terms, function (term) {
      var link = term.tagName === "A";
      term.addEventListener("mouseenter", function () { show(term); });
      term.addEventListener("mouseleave", hide);
      term.addEventListener("focus", function () { show(term); });
      term.addEventListener("blur", function () { if (pinned === term) { pinned = null; } hide(); });
      if (link) { return; }  /* a footer link follows its href to the note */
      term.addEventListener("click", function (event) {
        event.stopPropagation();
        pinned = pinned === term ? null : term;
        if (pinned) { show(term); } else { pop.hidden = true; }
      });
    });
    document.addEventListener("click", function () { pinned = null; pop.hidden = true; });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape") { pinned = null; pop.hidden = true; }
    });
  }

  function start() {
    setupTheme();
    setupStamps();
    setupGlossary();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
