// The live log page follows the game: it opens at the newest entry (or at the entry
// the address names, #eN, after a roll), and keeps the newest in view as entries land
// unless the player scrolled up to read; then a "New entries" pill says how many landed
// below and jumps down when tapped. A roll that lands shows a toast (role=status, read out
// by screen readers) and vibrates the phone where it can, once the player has touched the
// page (browsers refuse vibration before that).
(function () {
  "use strict";
  var log = document.getElementById("log");
  var pill = document.getElementById("new-entries");
  var toast = document.getElementById("toast");
  if (!log) { return; }
  var SLACK = 120;  // px from the bottom that still counts as "at the newest"
  var following = true;
  var unseen = 0;
  var hideToast = null;

  function atBottom() {
    return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - SLACK;
  }
  function newest() { return log.lastElementChild; }
  function toNewest() {
    var last = newest();
    if (last) { last.scrollIntoView({block: "end"}); }
    window.scrollTo(0, document.documentElement.scrollHeight);
  }
  function showPill() {
    if (!pill) { return; }
    pill.textContent = unseen === 1 ? "1 new entry ↓" : unseen + " new entries ↓";
    pill.hidden = false;
  }
  function hidePill() {
    unseen = 0;
    if (pill) { pill.hidden = true; }
  }

  var done = document.getElementById("recorded-ok");
  if (done) {
    done.hidden = false;
    done.addEventListener("click", function () { document.getElementById("recorded").hidden = true; });
  }

  // the page opens at the newest entry, unless it was opened at one (#eN)
  if (!/^#e\d+$/.test(window.location.hash)) { toNewest(); }
  following = atBottom() || !/^#e\d+$/.test(window.location.hash);

  window.addEventListener("scroll", function () {
    following = atBottom();
    if (following) { hidePill(); }
  }, {passive: true});

  if (pill) {
    pill.addEventListener("click", function () {
      following = true;
      hidePill();
      toNewest();
      var last = newest();
      var link = last && last.querySelector("a, .seq");
      if (link && link.focus) { link.focus({preventScroll: true}); }
    });
  }

  function say(item) {
    if (!toast) { return; }
    var seq = item.querySelector(".seq");
    var outcome = item.querySelector(".outcome .sr");
    var text = item.querySelector(".text");
    toast.textContent = (seq ? seq.textContent + " " : "") +
      (outcome ? outcome.textContent + " " : "") + (text ? text.textContent : "");
    toast.classList.add("shown");
    if (hideToast) { clearTimeout(hideToast); }
    hideToast = setTimeout(function () {
      toast.classList.remove("shown");
      toast.textContent = "";
    }, 5000);
    var touched = navigator.userActivation ? navigator.userActivation.hasBeenActive : false;
    if (touched && typeof navigator.vibrate === "function") { navigator.vibrate(60); }
  }

  document.addEventListener("ledger:appended", function (event) {
    var item = event.detail;
    if (following) {
      toNewest();
    } else {
      unseen += 1;
      showPill();
    }
    if (item && item.dataset && item.dataset.roll) { say(item); }
  });
})();
