// The verifier's page: read a chosen export file (or fetch this table's) and show the verdict.
(function () {
  "use strict";
  var form = document.getElementById("verifier");
  var out = document.getElementById("verdict");
  if (!form || !out) { return; }
  function show(text, ok) {
    out.textContent = text;
    out.className = ok ? "ok" : "bad";
    out.dataset.done = "1";
  }
  async function check(text) {
    if (!window.crypto || !window.crypto.subtle) {
      show("This browser offers WebCrypto only on https, localhost or a file opened from your device: " +
        "nothing was checked, the log's signed checkpoints could not be checked either; " +
        "download the verifier and open it from your device.", false);
      return;
    }
    out.textContent = "Checking…";
    out.dataset.done = "";
    try {
      var report = await LedgerVerify.verifyExport(text, document.getElementById("receipt").value);
      out.dataset.badSeq = report.badSeq === null ? "" : String(report.badSeq);
      show(LedgerVerify.describe(report), report.ok);
      // the phone compares the key it pinned with the one the log records (verify-pin.js)
      document.dispatchEvent(new CustomEvent("ledger:verified", {detail: report}));
    } catch (e) {
      out.dataset.badSeq = "";
      show("Error: " + e.message, false);
    }
  }
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var file = document.getElementById("export-file").files[0];
    if (!file) { show("Choose an export file first.", false); return; }
    file.text().then(check);
  });
  var fetchButton = document.getElementById("fetch-export");
  if (fetchButton) {
    fetchButton.addEventListener("click", function () {
      out.textContent = "Fetching this table's export…";
      out.dataset.done = "";
      fetch(fetchButton.dataset.url, {credentials: "same-origin"}).then(function (r) {
        if (!r.ok) { throw new Error("the table answered " + r.status); }
        return r.text();
      }).then(check, function (e) {
        show("Could not fetch this table's export (" + e.message + "): nothing was checked; " +
          "try again, or download the export and choose the file.", false);
      });
    });
  }
})();
