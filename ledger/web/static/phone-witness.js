// The phone as witness, on the page (#26): on every visit (page load) of a player's page,
// witness.js's visit() checks the campaign's newest checkpoint against the one this phone
// verified before and cosigns it. What it finds is shown here:
//   - nothing yet, first sight, consistent: one quiet line (#witness-status);
//   - rewritten, a changed campaign key, a note that does not verify: a red banner
//     (#history-banner), "this campaign's history was rewritten since you saw it at size N",
//     with both notes offered for download as evidence.
// The server turns it on (main[data-witness]) only when it serves checkpoints.
import * as db from "./phone-db.js";
import {visit} from "./witness.js";

const main = document.querySelector("main[data-campaign]");
const banner = document.getElementById("history-banner");
const status = document.getElementById("witness-status");

function evidence(name, text) {
  const a = document.createElement("a");
  a.className = "button";
  a.download = name;
  a.href = URL.createObjectURL(new Blob([text || ""], {type: "text/plain;charset=utf-8"}));
  a.textContent = "Download " + name;
  return a;
}

function alarm(title, detail, notes) {
  const h = document.createElement("h2");
  h.textContent = title;
  const p = document.createElement("p");
  p.textContent = detail;
  const links = document.createElement("p");
  links.className = "evidence";
  for (const [name, text] of notes) { if (text) { links.append(evidence(name, text), " "); } }
  banner.replaceChildren(h, p, links);
  banner.hidden = false;
}

function quiet(text, state) {
  status.textContent = text;
  status.hidden = false;
  status.dataset.state = state;
}

async function run() {
  const csrfInput = document.querySelector("form.logout input[name=csrf]");
  const result = await visit({db: db, campaign: main.dataset.campaign, csrf: csrfInput ? csrfInput.value : ""});
  banner.dataset.state = result.state;
  if (result.state === "rewritten") {
    alarm("This campaign's history was rewritten since you saw it at size " + result.size,
      "Your phone verified this campaign's log at " + result.size + " events; what the server shows now " +
      "is not that log with entries added (" + result.problem + "). Keep both notes: they are signed by " +
      "the campaign's key, and together they prove it.",
      [["checkpoint-seen-at-" + result.size + ".txt", result.oldNote], ["checkpoint-now.txt", result.newNote]]);
  } else if (result.state === "key-changed") {
    alarm("This campaign's signing key changed since your phone first saw it",
      "Your phone pinned the key " + result.pinned + "; the server now signs with " + result.offered +
      ". A new key can sign any history: ask your GM why.",
      [["checkpoint-seen-before.txt", result.oldNote], ["checkpoint-now.txt", result.newNote]]);
  } else if (result.state === "bad-note") {
    alarm("This campaign's checkpoint does not verify",
      "The server's checkpoint is not signed by the campaign's key (" + result.problem + ").",
      [["checkpoint-now.txt", result.note]]);
  } else if (result.state === "error") {
    quiet("Your phone could not check the campaign's checkpoint: " + result.problem + ".", "error");
  } else if (result.state === "pinned") {
    quiet("Your phone now witnesses this campaign: its key is pinned and the log at " + result.size +
      " events is kept" + (result.cosigned ? " and cosigned." : "."), "pinned");
  } else if (result.state === "consistent") {
    quiet("Your phone checked that the log at " + result.size + " events continues the " + result.before +
      " it saw before" + (result.cosigned ? ", and cosigned it." : "."), "consistent");
  }
}

if (main && banner && status && main.dataset.witness === "on") {
  if (window.crypto && crypto.subtle) {
    run().catch(function (e) { quiet("Your phone could not check the campaign's checkpoint: " + e.message, "error"); });
  } else {
    quiet("Your phone can witness this campaign's history only over https (browsers offer WebCrypto there): " +
      "ask your GM for an https link.", "no-webcrypto");
  }
}
