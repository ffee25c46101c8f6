// The phone checks its own answers. For every roll request this phone sent entropy
// for (phone-db.js "answers"), it reads the campaign's export (the players' view, the same
// file `campaign verify FILE` checks), verifies it with the in-browser verifier (verify.js:
// chain, seeds, every engine draw, ledger-roll-v2 rolls with their request and entropy) and
// looks for the roll that answered the request:
//   - it used exactly the entropy this phone sent: fine (and verified as ledger-roll-v2 once
//     its session's seed is revealed);
//   - another entropy, or physical dice, answered it: flagged;
//   - the request was withdrawn after this phone sent its answer (the GM's server could have
//     drawn the dice, seen them, and thrown them away): flagged;
//   - the server said the answer was recorded, yet no roll answers the request, or the
//     request itself is gone from the log (a rebuilt log): flagged.
// A request still open that the server refused or never heard of is not flagged: tap Roll
// again (the same entropy is sent).
import "./verify.js";
import * as db from "./phone-db.js";

const LedgerVerify = globalThis.LedgerVerify;

/** Check this phone's answers for `campaign` against the export at `url`.
 * Returns {flags: [{seq, text}], fine: [{seq, text}], pending: [{seq, text}], verdict}. */
export async function checkAnswers(campaign, url) {
  const records = (await db.all("answers")).filter(function (r) {
    return r.campaign === campaign && r.status !== "made";
  });
  if (!records.length) { return {flags: [], fine: [], pending: [], verdict: null}; }
  const response = await fetch(url || "/export.ndjson", {credentials: "same-origin"});
  if (!response.ok) { throw new Error("the export could not be read (" + response.status + ")"); }
  // WebCrypto exists only on https, localhost and files opened from the device: over plain
  // http on the table's network the entropies are still compared, the dice are not checked
  return judgeAnswers(records, await response.text(), Boolean(globalThis.crypto && crypto.subtle));
}

/** What checkAnswers finds, given this phone's answer `records` (phone-db.js "answers")
 * and the export's `text`; `canHash`: WebCrypto is there to verify the log. The log's own
 * failure is flagged in the words of `campaign verify FILE` (the same first bad seq), and
 * every answer is still listed with what the phone knows of it. */
export async function judgeAnswers(records, text, canHash) {
  const result = {flags: [], fine: [], pending: [], verdict: null};
  const report = canHash ? await LedgerVerify.verifyExport(text, "") : {ok: true, unchecked: true};
  result.verdict = report;
  const events = {}, answers = {}, ended = {};
  for (const line of text.split("\n")) {
    if (!line.trim()) { continue; }
    let row;
    try { row = JSON.parse(line); } catch (e) { continue; }
    if (!row || typeof row.seq !== "number") { continue; }
    events[row.seq] = row;
    const data = row.data;
    if (!data || typeof data !== "object") { continue; }
    if (typeof data.request === "number" && (row.type === "roll.withdrawn" || Array.isArray(data.draws))) {
      if (!(data.request in answers)) { answers[data.request] = row; }
    }
    if (row.type === "session.ended" && typeof data.number === "number") { ended[data.number] = true; }
  }
  if (!report.ok) {
    result.flags.push({seq: report.badSeq, text: "The log fails `campaign verify`'s check: " +
      LedgerVerify.failureWords(report.badSeq, report.problem) + "."});
  }
  records = records.slice().sort(function (a, b) { return a.seq - b.seq; });
  for (const r of records) {
    const what = "Request #" + r.seq + " (" + r.words + ")";
    const asked = events[r.seq];
    if (!asked || asked.type !== "roll.requested" || !asked.data || asked.data.character !== r.character) {
      result.flags.push({seq: r.seq, text: what + ": your phone answered it, but it is no longer in the log: the log was rebuilt."});
      continue;
    }
    const closing = answers[r.seq];
    if (!closing) {
      if (r.status === "accepted") {
        result.flags.push({seq: r.seq, text: what + ": the server said your answer was recorded as event " + r.roll +
          ", but no roll answers it in the log."});
      } else {
        result.pending.push({seq: r.seq, text: what + ": not answered yet" + (r.error ? " (" + r.error + ")" : "") + ": tap Roll again."});
      }
      continue;
    }
    if (closing.type === "roll.withdrawn") {
      result.flags.push({seq: r.seq, text: what + ": withdrawn at event " + closing.seq + " (" + closing.data.reason +
        ") after your phone sent its answer: the GM's server could have seen that roll and discarded it."});
      continue;
    }
    const roll = closing.data;
    if (roll.source !== "engine" || roll.entropy !== r.entropy) {
      result.flags.push({seq: r.seq, text: what + ": answered at event " + closing.seq + " " +
        (roll.source !== "engine" ? "with physical dice" : "with randomness that is not the one your phone sent") +
        " (if you answered from another device, that was it)."});
      continue;
    }
    if (!report.ok) {  // the log's failure is flagged above; the answer itself is as sent
      result.fine.push({seq: r.seq, text: what + ": event " + closing.seq + " used exactly your phone's randomness; " +
        "its dice cannot be vouched for while the log fails verification (see above)."});
    } else if (report.unchecked) {
      result.fine.push({seq: r.seq, text: what + ": event " + closing.seq + " used exactly your phone's randomness " +
        "(its dice are checked on https or by the downloaded verifier: this page has no WebCrypto over plain http)."});
    } else if (ended[closing.session]) {
      result.fine.push({seq: r.seq, text: what + ": event " + closing.seq + " used exactly your phone's randomness and its dice verify (ledger-roll-v2)."});
    } else {
      result.fine.push({seq: r.seq, text: what + ": event " + closing.seq + " used exactly your phone's randomness; its dice verify once session " +
        closing.session + "'s seed is revealed."});
    }
  }
  return result;
}

function items(target, entries, className) {
  for (const e of entries) {
    const li = document.createElement("li");
    li.className = className;
    li.dataset.seq = e.seq === null ? "" : String(e.seq);
    li.textContent = e.text;
    target.appendChild(li);
  }
}

/** Show `result`: flags in red in `flagsBox` (hidden when none), every answer in `mine`. */
export function showChecks(result, flagsBox, mine) {
  if (flagsBox) {
    flagsBox.replaceChildren();
    if (result.flags.length) {
      const title = document.createElement("h2");
      title.textContent = "Your phone caught something";
      const ul = document.createElement("ul");
      ul.className = "cards";
      items(ul, result.flags, "flag");
      flagsBox.append(title, ul);
    }
    flagsBox.hidden = result.flags.length === 0;
    flagsBox.dataset.count = String(result.flags.length);
  }
  if (mine) {
    const ul = document.createElement("ul");
    ul.className = "cards";
    items(ul, result.flags, "flag");
    items(ul, result.pending, "pending");
    items(ul, result.fine, "fine");
    if (!ul.children.length) {
      const p = document.createElement("p");
      p.className = "muted";
      p.textContent = "This phone has answered no roll request of this campaign yet.";
      mine.replaceChildren(p);
    } else {
      mine.replaceChildren(ul);
    }
    mine.dataset.done = "1";
    mine.dataset.flags = String(result.flags.length);
  }
}
