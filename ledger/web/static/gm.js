// The GM's page (#27). Plain forms that work without this script; with it, a form's button
// is disabled once tapped (a second tap while the first is on its way sends nothing: the
// server would refuse it anyway, the page's nonce being used), a "New link" asks first
// (it stops the old link), and a note appears when the live log moves on (a player's roll).
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
  var note = null;
  var source = new EventSource("/events");
  source.addEventListener("entry", function () {
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
