// The GM's page (#27). Plain forms that work without this script; with it, a form's button
// is disabled once tapped (a second tap while the first is on its way sends nothing: the
// server would refuse it anyway, the page's nonce being used), a "New link" asks first
// (it stops the old link), and a new entry of the log (a player's roll) goes on top of the
// recent entries as it lands, with a note that the rest of the page wants a refresh.
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

  // A new entry (a player's roll, another page's tap) goes on top of "Recent entries" as
  // the log words it; its undo and the character cards need the page again: a note says so.
  function show(event) {
    var seq = event.lastEventId;
    if (!recent || !seq || document.getElementById("r-" + seq)) { return; }
    var holder = document.createElement("template");
    holder.innerHTML = event.data;  // server-rendered, every value escaped there
    var entry = holder.content.firstElementChild;
    if (!entry) { return; }
    var item = document.createElement("li");
    item.id = "r-" + seq;
    item.className = "fresh";
    var number = document.createElement("span");
    number.className = "seq";
    number.textContent = "#" + seq;
    var text = entry.querySelector(".text");
    var entered = entry.querySelector(".entered");
    item.append(number, " ", text ? text.textContent : entry.textContent.trim());
    if (entered) { item.append(" — " + entered.textContent); }
    if (entry.classList.contains("gm")) {
      var badge = document.createElement("span");
      badge.className = "badge gm";
      badge.textContent = "GM only";
      item.append(" ", badge);
    }
    var empty = recent.querySelector("li.muted");
    if (empty) { empty.remove(); }
    recent.insertBefore(item, recent.firstChild);
  }

  source.addEventListener("entry", function (event) {
    show(event);
    if (note) { return; }
    note = document.createElement("p");
    note.className = "done";
    note.setAttribute("role", "status");
    var link = document.createElement("a");
    link.href = "/gm";
    link.textContent = "New entries in the log: refresh this page";
    note.appendChild(link);
    main.insertBefore(note, main.querySelector("h1").nextSibling);
  });
  source.addEventListener("revoked", function () { source.close(); });
  source.addEventListener("ended", function () { source.close(); });
})();
