// Light or dark: the page follows the phone (prefers-color-scheme) unless the player
// chose otherwise with the menu's theme button; the choice is kept in localStorage and set
// on <html data-theme> by this script, loaded in <head> before the stylesheet applies, so
// a dark page never flashes light. Without JavaScript the phone's setting still applies.
(function () {
  "use strict";
  var KEY = "ledger-theme";
  var root = document.documentElement;
  var ORDER = ["auto", "dark", "light"];
  var WORDS = {auto: "as the phone", dark: "dark", light: "light"};

  function stored() {
    try { return localStorage.getItem(KEY) || "auto"; } catch (e) { return "auto"; }
  }
  function apply(choice) {
    if (choice === "dark" || choice === "light") { root.dataset.theme = choice; }
    else { delete root.dataset.theme; }
  }
  var current = stored();
  apply(current);

  function wire() {
    var button = document.getElementById("theme-toggle");
    if (!button) { return; }
    function label(choice) { button.textContent = "Theme: " + WORDS[choice] + " (tap to change)"; }
    label(current);
    button.hidden = false;
    button.addEventListener("click", function () {
      current = ORDER[(ORDER.indexOf(current) + 1) % ORDER.length];
      try { localStorage.setItem(KEY, current); } catch (e) { /* private mode: this page only */ }
      apply(current);
      label(current);
    });
    // the menu closes when the player taps elsewhere or presses Escape
    var menu = button.closest("details");
    if (menu) {
      document.addEventListener("click", function (event) {
        if (menu.open && !menu.contains(event.target)) { menu.open = false; }
      });
      document.addEventListener("keydown", function (event) {
        if (event.key === "Escape" && menu.open) {
          menu.open = false;
          menu.querySelector("summary").focus();
        }
      });
    }
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", wire); }
  else { wire(); }
})();
