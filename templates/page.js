/* tujie page script: theme (prefers-color-scheme, then the remembered toggle), progress stamps
   (click cycles, remembered per page and card), glossary pop-up on hover, focus and tap.
   The only script on the page; the CSP allows it by hash. No network, no inline handlers. */
(function () {
  "use strict";
  var root = document.documentElement;
  var THEME_KEY = "tujie-theme";
  var STAMP_KEY = "tujie-progress:" + (root.getAttribute("data-page") || "page") + ":";
  var STATES = ["learned", "review", "next"];
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

  /* Each card draws only its initial face; other faces are copies of the page's one <template>
     per state, with every id suffixed by the card so filters and text ids stay unique. */
  function faceFor(state, card) {
    var template = document.getElementById("stamp-face-" + state);
    if (!template || !template.content) { return null; }
    var face = template.content.cloneNode(true);
    var renamed = {};
    Array.prototype.forEach.call(face.querySelectorAll("[id]"), function (el) {
      renamed[el.id] = el.id + "-" + card;
      el.id = renamed[el.id];
    });
    Array.prototype.forEach.call(face.querySelectorAll("*"), function (el) {
      Array.prototype.forEach.call(el.attributes, function (attr) {
        var value = attr.value.replace(/url\(#([^)]+)\)/g, function (all, id) {
          return renamed[id] ? "url(#" + renamed[id] + ")" : all;
        });
        if (value !== attr.value) { el.setAttribute(attr.name, value); }
      });
    });
    return face;
  }
  function setStamp(stamp, state) {
    stamp.setAttribute("data-state", state);
    var label = stamp.getAttribute("data-label-" + state);
    if (label) { stamp.setAttribute("aria-label", label); }
    var holder = stamp.querySelector(".stamp-face");
    if (holder && holder.getAttribute("data-face") !== state) {
      var face = faceFor(state, stamp.getAttribute("data-card"));
      if (face) {
        holder.textContent = "";
        holder.appendChild(face);
        holder.setAttribute("data-face", state);
      }
    }
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

  function setupGlossary() {
    var pop = document.getElementById("gloss-pop");
    if (!pop) { return; }
    var pinned = null;
    function show(term) {
      pop.textContent = "";
      var name = document.createElement("strong");
      name.textContent = term.getAttribute("data-term") || term.textContent;
      pop.appendChild(name);
      pop.appendChild(document.createTextNode(" " + (term.getAttribute("data-def") || "")));
      pop.hidden = false;
    }
    function hide() { if (!pinned) { pop.hidden = true; } }
    var terms = document.querySelectorAll("dfn.term");
    Array.prototype.forEach.call(terms, function (term) {
      term.addEventListener("mouseenter", function () { show(term); });
      term.addEventListener("mouseleave", hide);
      term.addEventListener("focus", function () { show(term); });
      term.addEventListener("blur", function () { if (pinned === term) { pinned = null; } hide(); });
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
