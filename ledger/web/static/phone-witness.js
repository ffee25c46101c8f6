// The phone as witness, on a player's pages. On every visit (page load), and on the live log
// when a session ends, witness.js's visit() checks the campaign's newest checkpoint against
// the one this phone verified before and cosigns it. What it finds is shown here:
//   - first sight, consistent: one quiet line (#witness-status). A phone remembers what it
//     checked per web address (IndexedDB belongs to scheme, host and port), so first sight
//     says plainly that this phone has not seen the campaign before *at this address*, with
//     the log's age, rather than claiming to witness it;
//   - rewritten, a changed campaign key, a note that does not verify: a red banner
//     (#history-banner), "this campaign's history was rewritten since you saw it at size N",
//     with both notes offered for download as evidence.
// After each new checkpoint (a session's end) the phone offers, in one tap, to keep its
// signed note in the player's own files (#keep-note). "Check a note I kept" (#kept-note, on
// every player's page) reads such a file and checks it against the log now with
// witness.js's checkKeptNote(): a rewrite is caught at any address.
// After each visit the phone offers the player to cosign their character's chronicle
// entries (chronicle-cosign.js, #chronicle-cosign), checked with the key it pinned.
// The server turns the visit on (main[data-witness]) only when it serves checkpoints.
import * as db from "./phone-db.js";
import {offerEntries} from "./chronicle-cosign.js";
import {checkKeptNote, visit} from "./witness.js";

const main = document.querySelector("main[data-campaign]");
const banner = document.getElementById("history-banner");
const status = document.getElementById("witness-status");
const campaign = main ? main.dataset.campaign : "";

function download(name, text, label) {
  const a = document.createElement("a");
  a.className = "button";
  a.download = name;
  a.href = URL.createObjectURL(new Blob([text || ""], {type: "text/plain;charset=utf-8"}));
  a.textContent = label || "Download " + name;
  return a;
}

function alarm(target, state, title, detail, notes) {
  const h = document.createElement("h2");
  h.textContent = title;
  const p = document.createElement("p");
  p.textContent = detail;
  const links = document.createElement("p");
  links.className = "evidence";
  for (const [name, text] of notes) { if (text) { links.append(download(name, text), " "); } }
  target.replaceChildren(h, p, links);
  target.className = "banner";
  target.setAttribute("role", "alert");
  target.dataset.state = state;
  target.hidden = false;
}

function quiet(text, state) {
  status.textContent = text;
  status.hidden = false;
  status.dataset.state = state;
}

function plural(n, one, many) { return n + " " + (n === 1 ? one : many); }

/** "the log holds 14 sessions (212 events, since 2025-09-02)" from a visit's result. */
function age(result) {
  const sessions = typeof result.sessions === "number"
    ? (result.sessions ? plural(result.sessions, "session", "sessions") : "no session yet") : null;
  const events = plural(result.size, "event", "events");
  const since = result.since ? ", since " + result.since : "";
  return "the log holds " + (sessions ? sessions + " (" + events + since + ")" : events + since);
}

// --- keep the signed note ---------------------------------------------------------------

const savedKey = "saved:" + campaign;

/** Offer the newest checkpoint's note for download, unless this phone kept that one. */
async function offerNote(result) {
  const place = document.getElementById("keep-note");
  if (!place || !result.note) { return; }
  const saved = await db.get("witness", savedKey);
  if (saved && saved.size === result.size) { place.hidden = true; return; }
  const name = campaign + "-checkpoint-" + result.size + ".txt";
  const link = download(name, result.note, "Keep the signed note of this log (" + plural(result.size, "event", "events") + ")");
  link.id = "keep-note-link";
  const why = document.createElement("span");
  why.className = "muted";
  why.textContent = " In your own files it proves what this table's log was, at any address: " +
    "check it later with \u201cCheck a note I kept\u201d.";
  link.addEventListener("click", function () {
    db.put("witness", {key: savedKey, size: result.size, at: new Date().toISOString()}).catch(function () {});
    why.textContent = " Kept as " + name + ": check it on any page of this table with \u201cCheck a note I kept\u201d.";
    place.dataset.state = "kept";
  });
  place.replaceChildren(link, why);
  place.dataset.state = "offered";
  place.hidden = false;
}

// --- the visit ---------------------------------------------------------------------------

async function run() {
  const csrfInput = document.querySelector("form.logout input[name=csrf]");
  const result = await visit({db: db, campaign: campaign, csrf: csrfInput ? csrfInput.value : ""});
  banner.dataset.state = result.state;
  if (result.state === "rewritten") {
    alarm(banner, "rewritten", "This campaign's history was rewritten since you saw it at size " + result.size,
      "Your phone verified this campaign's log at " + result.size + " events; what the server shows now " +
      "is not that log with entries added (" + result.problem + "). Keep both notes: they are signed by " +
      "the campaign's key, and together they prove it.",
      [["checkpoint-seen-at-" + result.size + ".txt", result.oldNote], ["checkpoint-now.txt", result.newNote]]);
  } else if (result.state === "key-changed") {
    alarm(banner, "key-changed", "This campaign's signing key changed since your phone first saw it",
      "Your phone pinned the key " + result.pinned + "; the server now signs with " + result.offered +
      ". A new key can sign any history: ask your GM why.",
      [["checkpoint-seen-before.txt", result.oldNote], ["checkpoint-now.txt", result.newNote]]);
  } else if (result.state === "bad-note") {
    alarm(banner, "bad-note", "This campaign's checkpoint does not verify",
      "The server's checkpoint is not signed by the campaign's key (" + result.problem + ").",
      [["checkpoint-now.txt", result.note]]);
  } else if (result.state === "error") {
    quiet("Your phone could not check the campaign's checkpoint: " + result.problem + ".", "error");
  } else if (result.state === "pinned") {
    quiet("This phone has not seen this campaign before at this address; " + age(result) + ". " +
      "From now on it checks that this log only grows: its key is pinned and the log at " +
      plural(result.size, "event", "events") + " is kept" + (result.cosigned ? " and cosigned" : "") +
      ". Played at this table before? Check a note you kept.", "pinned");
    await offerNote(result);
  } else if (result.state === "consistent") {
    quiet("Your phone checked that the log at " + result.size + " events continues the " + result.before +
      " it saw before" + (result.cosigned ? ", and cosigned it." : "."), "consistent");
    await offerNote(result);
  }
  if (result.state === "pinned" || result.state === "consistent") {  // a player's page: the GM's never witnesses
    const kept = await db.get("witness", "campaign:" + campaign);
    await offerEntries(document.getElementById("chronicle-cosign"),
      {db: db, csrf: csrfInput ? csrfInput.value : "", pinned: kept ? kept.vkey : ""});
  }
}

// --- check a note I kept -------------------------------------------------------------------

async function checkFile(file, out) {
  out.className = "muted";
  out.setAttribute("role", "status");
  out.dataset.state = "checking";
  out.textContent = "Checking " + file.name + "\u2026";
  if (file.size > 20000) {
    out.dataset.state = "unreadable";
    out.textContent = file.name + " is not a checkpoint note (too long): pick the note you kept.";
    return;
  }
  const result = await checkKeptNote({note: await file.text()});
  const keptName = "checkpoint-kept-" + result.size + ".txt";
  if (result.state === "holds") {
    out.className = "kept-ok";
    out.dataset.state = "holds";
    out.textContent = "Your note holds: the log now (" + plural(result.now, "event", "events") +
      ") continues the checkpoint of size " + result.size + " you kept, unchanged.";
  } else if (result.state === "rewritten") {
    alarm(out, "rewritten", "This campaign's history was rewritten since the checkpoint of size " + result.size + " you kept",
      "Your note shows the log at " + result.size + " events with root " + result.root + "; the log this " +
      "server shows now (" + plural(result.now, "event", "events") + ") does not continue it (" + result.problem +
      "). Keep both notes: they are signed by the campaign's key, and together they prove it.",
      [[keptName, result.keptNote], ["checkpoint-now.txt", result.newNote]]);
  } else if (result.state === "key-changed") {
    alarm(out, "key-changed", "The note you kept is not signed by the key this table signs with now",
      "Your note of size " + result.size + " is signed by " + (result.signers.join(", ") || "no key") +
      "; this server signs with " + result.offered + ". A new key can sign any history: ask your GM why.",
      [[keptName, result.keptNote], ["checkpoint-now.txt", result.newNote]]);
  } else if (result.state === "bad-kept-note") {
    alarm(out, "bad-kept-note", "The note you kept does not verify with this campaign's key",
      "Its signature fails (" + result.problem + "): either the file was changed since you kept it, or the " +
      "table's key was.", []);
  } else if (result.state === "no-checkpoint") {
    alarm(out, "no-checkpoint", "This table shows no checkpoint, though your note proves one of size " + result.size + " was signed",
      "Checkpoints are never thrown away: a log served without them cannot show that it continues the one you " +
      "kept. Ask your GM why.", [[keptName, result.keptNote]]);
  } else if (result.state === "bad-note") {
    alarm(out, "bad-note", "This campaign's checkpoint does not verify",
      "The server's checkpoint is not signed by the key it names (" + result.problem + ").",
      [["checkpoint-now.txt", result.note]]);
  } else if (result.state === "other-campaign") {
    out.dataset.state = "other-campaign";
    out.textContent = "That note is of " + result.kept + "; this table serves " + result.now +
      ": pick a note you kept at this campaign's table.";
  } else if (result.state === "unreadable") {
    out.dataset.state = "unreadable";
    out.textContent = file.name + " is not a checkpoint note (" + result.problem + "): pick the note you kept.";
  } else {
    out.dataset.state = "error";
    out.textContent = "The note could not be checked just now: " + result.problem + ". Try again.";
  }
}

function checker() {
  const box = document.createElement("details");
  box.id = "kept-note";
  box.className = "kept-note";
  const summary = document.createElement("summary");
  summary.textContent = "Check a note I kept";
  const label = document.createElement("label");
  label.htmlFor = "kept-note-file";
  label.textContent = "The note (a file this phone kept after a session, or one `campaign checkpoint` printed)";
  const input = document.createElement("input");
  input.type = "file";
  input.id = "kept-note-file";
  input.accept = ".txt,.note,text/plain";
  const out = document.createElement("div");
  out.id = "kept-note-result";
  out.hidden = true;
  input.addEventListener("change", function () {
    const file = input.files && input.files[0];
    if (!file) { return; }
    out.hidden = false;
    if (!(window.crypto && crypto.subtle)) {
      out.textContent = "This browser checks notes only over https (WebCrypto): open the table's https link.";
      out.dataset.state = "no-webcrypto";
      return;
    }
    checkFile(file, out).catch(function (e) {
      out.className = "muted";
      out.dataset.state = "error";
      out.textContent = "The note could not be checked just now: " + e.message + ". Try again.";
    });
  });
  box.append(summary, label, input, out);
  return box;
}

if (main && banner && status) {
  const keep = document.createElement("p");
  keep.id = "keep-note";
  keep.hidden = true;
  const entries = document.createElement("section");
  entries.id = "chronicle-cosign";
  entries.className = "chronicle-cosign";
  entries.hidden = true;
  status.after(keep, entries, checker());
}

if (main && banner && status && main.dataset.witness === "on") {
  if (window.crypto && crypto.subtle) {
    let running = null, wanted = false;
    const again = function () {
      if (running) { wanted = true; return; }  // once more when this check ends
      running = run().catch(function (e) {
        quiet("Your phone could not check the campaign's checkpoint: " + e.message, "error");
      }).finally(function () {
        running = null;
        if (wanted) { wanted = false; again(); }
      });
    };
    again();
    // a session's end (its entry reveals the seed) signs a checkpoint: check it and offer its note
    document.addEventListener("ledger:appended", function (event) {
      if (event.detail && event.detail.dataset && event.detail.dataset.reveals) { again(); }
    });
  } else {
    quiet("Your phone can witness this campaign's history only over https (browsers offer WebCrypto there): " +
      "ask your GM for an https link.", "no-webcrypto");
  }
}
