// A live sheet: on every new log entry, fetch the sheet again and swap it in.
(function () {
  "use strict";
  var sheet = document.getElementById("sheet");
  if (!sheet || !window.EventSource) { return; }
  var source = new EventSource("/events?after=" + encodeURIComponent(sheet.dataset.after || "0"));
  var pending = false;
  source.addEventListener("revoked", function () { source.close(); });
  source.addEventListener("entry", function () {
    document.dispatchEvent(new CustomEvent("ledger:entry"));  // the page's other scripts
    if (pending) { return; }
    pending = true;
    fetch(sheet.dataset.part, {credentials: "same-origin"}).then(function (r) {
      return r.ok ? r.text() : null;
    }).then(function (html) {
      pending = false;
      if (html !== null) { sheet.innerHTML = html; }
    }, function () { pending = false; });
  });
})();
