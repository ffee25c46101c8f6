// The live log: new entries arrive as server-sent events (id = seq). The browser resumes
// with Last-Event-ID after a drop or a phone's sleep; an entry already shown is not repeated.
// Each entry is also announced as a "ledger:entry" event on the document (requests.js
// listens there rather than opening a second stream).
// A browser gives up on an answer that is not a stream (a 503 while the server cannot reach
// its database): the page then opens a new stream from the last entry shown, 3 s later.
(function () {
  "use strict";
  var log = document.getElementById("log");
  var status = document.getElementById("status");
  if (!log || !window.EventSource) { return; }
  var after = log.dataset.after || "0";
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
      item.classList.add("fresh");
      log.appendChild(item);
      var near = window.innerHeight + window.scrollY >= document.body.scrollHeight - 400;
      if (near) { item.scrollIntoView({block: "end"}); }
    });
  }
  connect();
})();
