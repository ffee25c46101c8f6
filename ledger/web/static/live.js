// The live log: new entries arrive as server-sent events (id = seq). The browser resumes
// with Last-Event-ID after a drop or a phone's sleep; an entry already shown is not repeated.
// Each entry is also announced as a "ledger:entry" event on the document (requests.js
// listens there rather than opening a second stream); each one shown here as a
// "ledger:appended" event with the new item as its detail (log-page.js: follow, pill, toast).
// A filtered page (the list's data-filtered, data-mine, data-character, data-session,
// data-rolls, as the server read the query) shows only the new entries that pass the same
// filter, and never a GM-only entry's stub.
// An entry that reveals a seed (data-reveals) marks the engine rolls drawn from it
// (data-seed) verifiable, as the server would on a reload.
// A browser gives up on an answer that is not a stream (a 503 while the server cannot reach
// its database): the page then opens a new stream from the last entry shown, 3 s later.
(function () {
  "use strict";
  var log = document.getElementById("log");
  var status = document.getElementById("status");
  if (!log || !window.EventSource) { return; }
  var after = log.dataset.after || "0";
  var want = log.dataset;

  function passes(item) {
    if (!want.filtered) { return true; }
    var got = item.dataset;
    if (item.classList.contains("stub")) { return false; }
    if (want.mine && want.mine.split(" ").indexOf(got.character || "") < 0) { return false; }
    if (want.character && got.character !== want.character) { return false; }
    if (want.session && got.session !== want.session) { return false; }
    return !(want.rolls && !got.roll);
  }

  function reveal(seed) {
    var rolls = log.querySelectorAll("li[data-seed]");
    for (var i = 0; i < rolls.length; i++) {
      if (rolls[i].dataset.seed !== seed) { continue; }
      var badge = document.createElement("span");
      badge.className = "badge verified";
      badge.title = want.promise || "";
      badge.textContent = "✓ verifiable";
      var text = rolls[i].querySelector(".text");
      if (text) { text.after(" ", badge); }
      delete rolls[i].dataset.seed;
    }
  }

  function connect() {
    var source = new EventSource("/events?after=" + encodeURIComponent(after));
    source.addEventListener("open", function () { status.textContent = "Live: new entries appear here."; });
    source.addEventListener("error", function () {
      status.textContent = "Reconnecting…";
      if (source.readyState === EventSource.CLOSED) { setTimeout(connect, 3000); }
    });
    source.addEventListener("revoked", function () {
      source.close();
      status.textContent = "This link was revoked: ask your GM for a new one.";
    });
    source.addEventListener("ended", function () {
      source.close();
      status.textContent = "You signed out on this device: open your link again to come back.";
    });
    source.addEventListener("entry", function (event) {
      document.dispatchEvent(new CustomEvent("ledger:entry"));  // the page's other scripts
      if (event.lastEventId) { after = event.lastEventId; }
      if (document.getElementById("e" + event.lastEventId)) { return; }
      var holder = document.createElement("template");
      holder.innerHTML = event.data;  // server-rendered, every value escaped there
      var item = holder.content.firstElementChild;
      if (!item) { return; }
      if (item.dataset.reveals) { reveal(item.dataset.reveals); }
      if (!passes(item)) { return; }
      item.classList.add("fresh");
      log.appendChild(item);
      var empty = document.getElementById("empty");
      if (empty) { empty.hidden = true; }
      document.dispatchEvent(new CustomEvent("ledger:appended", {detail: item}));
    });
  }
  connect();
})();
