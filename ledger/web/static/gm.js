// The GM's page. Plain forms that work without this script; with it, a form's button
// is disabled once tapped (a second tap while the first is on its way sends nothing: the
// server would refuse it anyway, the page's nonce being used), a "New link" asks first
// (it stops the old link), and a new entry of the log (a player's roll) is said at the top
// of the page and goes on top of the recent entries as it lands.
(function () {
  "use strict";
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var button = event.submitter || form.querySelector("button[type=submit]");
    var ask = button && button.dataset.confirm;
    if (ask && !window.confirm(ask)) { event.preventDefault(); return; }
    if (form.dataset.sent) { event.preventDefault(); return; }
    form.dataset.sent = "1";
    if (button) { button.setAttribute("aria-busy", "true"); }
  });
  if (!window.EventSource) { return; }
  var main = document.querySelector("main");
  var recent = document.getElementById("recent");
  var note = null;
  var after = recent ? recent.dataset.after || "0" : "";
  var source = new EventSource("/events" + (after ? "?after=" + encodeURIComponent(after) : ""));

  // A new entry (a player's roll, another page's tap) is said at the top of the page, where
  // the GM is looking, and goes on top of "Recent entries" as the log words it; its undo
  // and the character cards need the page again: the note says so.
  function said(entry) {
    var text = entry.querySelector(".text");
    var entered = entry.querySelector(".entered");
    var words = text ? text.textContent : entry.textContent.trim();
    return entered ? words + " — " + entered.textContent : words;
  }

  function badge(item) {
    var gm = document.createElement("span");
    gm.className = "badge gm";
    gm.textContent = "GM only";
    item.append(" ", gm);
  }

  function tell(seq, entry) {
    if (!note) {
      note = document.createElement("p");
      note.className = "done just-in";
      note.id = "just-in";
      note.setAttribute("role", "status");
      main.insertBefore(note, main.querySelector("h1").nextSibling);
    }
    var head = document.createElement("strong");
    head.textContent = "Just in #" + seq;
    var link = document.createElement("a");
    link.href = "/gm";
    link.textContent = "Refresh this page";
    note.replaceChildren(head, " — " + said(entry));
    if (entry.classList.contains("gm")) { badge(note); }
    note.append(" ", link);
  }

  function show(event) {
    var seq = event.lastEventId;
    if (!seq || document.getElementById("r-" + seq)) { return; }
    var holder = document.createElement("template");
    holder.innerHTML = event.data;  // server-rendered, every value escaped there
    var entry = holder.content.firstElementChild;
    if (!entry) { return; }
    tell(seq, entry);
    if (!recent) { return; }
    var item = document.createElement("li");
    item.id = "r-" + seq;
    item.className = "fresh";
    var number = document.createElement("span");
    number.className = "seq";
    number.textContent = "#" + seq;
    item.append(number, " ", said(entry));
    if (entry.classList.contains("gm")) { badge(item); }
    var empty = recent.querySelector("li.muted");
    if (empty) { empty.remove(); }
    recent.insertBefore(item, recent.firstChild);
  }

  source.addEventListener("entry", show);
  source.addEventListener("revoked", function () { source.close(); });
  source.addEventListener("ended", function () { source.close(); });
})();
