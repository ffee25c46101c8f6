// Roll requests on the player's phone. The open requests addressed to this player
// (/requests/part, rendered by the server) are shown at the top of every page and fetched
// again whenever the live stream says something was written; a new one makes the phone
// vibrate where it can. **Roll** makes 32 bytes with crypto.getRandomValues, keeps them in
// IndexedDB under the request's seq (phone-db.js: a second tap sends the same bytes), and
// posts them; **Enter dice** posts the faces of physical dice. On the home page the phone
// then checks its answers against the log (answers-check.js).
import * as db from "./phone-db.js";
import {checkAnswers, showChecks} from "./answers-check.js";

const section = document.getElementById("requests");
const list = document.getElementById("request-list");
const main = document.querySelector("main[data-campaign]");
const campaign = main ? main.dataset.campaign : "";
let known = null;

function hex(bytes) {
  return Array.from(bytes, function (b) { return b.toString(16).padStart(2, "0"); }).join("");
}

// What happened to an answer, on its card: kind "busy", "ok" or "bad".
function say(li, text, kind) {
  const out = li.querySelector(".answer-status");
  out.textContent = text;
  out.className = "answer-status " + (kind === "bad" ? "error" : kind);
}

function buzz() {
  const active = navigator.userActivation ? navigator.userActivation.hasBeenActive : true;
  if (active && typeof navigator.vibrate === "function") { navigator.vibrate([200, 100, 200]); }
}

async function post(li, form, fields) {
  const body = new URLSearchParams({csrf: form.elements.csrf.value, nonce: form.elements.nonce.value});
  for (const k in fields) { body.set(k, fields[k]); }
  const response = await fetch("/answer/" + li.dataset.seq, {
    method: "POST", body: body, credentials: "same-origin", headers: {accept: "application/json"}
  });
  let data = {};
  try { data = await response.json(); } catch (e) { data = {error: "The server answered " + response.status + "."}; }
  return {status: response.status, data: data};
}

async function rollNow(li, form) {
  const seq = Number(li.dataset.seq);
  const key = campaign + ":" + seq;
  let record = await db.get("answers", key);
  if (!record) {
    record = {key: key, campaign: campaign, seq: seq, character: li.dataset.character,
      words: li.dataset.words, entropy: hex(crypto.getRandomValues(new Uint8Array(32))),
      status: "made", roll: null, error: "", at: new Date().toISOString()};
  }
  record.status = record.status === "accepted" ? "accepted" : "sent";
  await db.put("answers", record);  // kept before it leaves the phone
  let answer;
  try {
    answer = await post(li, form, {entropy: record.entropy});
  } catch (e) {
    say(li, "Your answer may not have arrived (no connection): tap Roll again, the same randomness is sent.", "bad");
    return;
  }
  if (answer.status === 200) {
    record.status = "accepted"; record.roll = answer.data.roll; record.error = "";
    await db.put("answers", record);
    li.dataset.answered = String(answer.data.roll);
    // the server's words: the dice, the result and the outcome, and how the dice came
    // (never "drawn" for a result the rules give without dice)
    say(li, answer.data.text || ("Recorded: event " + answer.data.roll + " in the log."), "ok");
  } else {
    if (record.status !== "accepted") { record.status = "refused"; }
    record.error = answer.data.error || "";
    await db.put("answers", record);
    say(li, answer.data.error || ("The server answered " + answer.status + "."), "bad");
  }
  done(li);
}

async function sendDice(li, form) {
  let answer;
  try {
    answer = await post(li, form, {dice: form.elements.dice.value});
  } catch (e) {
    say(li, "Your dice may not have arrived (no connection): send them again.", "bad");
    return;
  }
  if (answer.status === 200) {
    li.dataset.answered = String(answer.data.roll);
    say(li, answer.data.text || ("Recorded: event " + answer.data.roll + " in the log."), "ok");
  } else {
    say(li, answer.data.error || ("The server answered " + answer.status + "."), "bad");
  }
  done(li);
}

// Die-face buttons fill the dice field: a Fudge face is added to the run ("++-0"),
// a number after a space ("3 5"); "Next die" leaves a space for the keypad.
function wireFaces(li) {
  const dice = li.querySelector("input.dice-entry");
  const faces = li.querySelector(".faces");
  if (!dice || !faces) { return; }
  faces.hidden = false;
  faces.addEventListener("click", function (event) {
    const button = event.target.closest("button");
    if (!button) { return; }
    const now = dice.value.trim();
    if (button.classList.contains("clear-dice")) { dice.value = ""; }
    else if (button.classList.contains("next-die")) { dice.value = now ? now + " " : ""; dice.focus(); }
    else if (button.classList.contains("fudge")) { dice.value = now.replace(/\s+/g, "") + button.dataset.face; }
    else if (button.dataset.face) { dice.value = (now ? now + " " : "") + button.dataset.face; }
  });
}

function wire(li) {
  wireFaces(li);
  const form = li.querySelector("form.answer");
  const button = li.querySelector("button.roll-now");
  button.hidden = false;
  function busy(on) { for (const b of li.querySelectorAll("button")) { b.disabled = on; } }
  // answered: the card keeps only what happened (no Roll to tap a second time); else the
  // buttons come back for another try
  function settle() {
    if (!li.querySelector(".answer-status.ok")) { busy(false); return; }
    button.hidden = true;
    const dice = li.querySelector("details.dice");
    if (dice) { dice.hidden = true; }
  }
  button.addEventListener("click", function () {
    li.dataset.keep = "1";
    busy(true);
    say(li, "Rolling…", "busy");
    rollNow(li, form).catch(function (e) { say(li, "Could not answer: " + e.message, "bad"); }).finally(settle);
  });
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    li.dataset.keep = "1";
    busy(true);
    sendDice(li, form).catch(function (e) { say(li, "Could not answer: " + e.message, "bad"); }).finally(settle);
  });
}

// An answered card stays a few seconds with what happened (refreshes keep it), then goes.
function done(li) {
  setTimeout(function () { delete li.dataset.keep; refresh(); }, 4000);
  checkHere();
}

let fetching = null;
async function refresh() {
  if (fetching) { return fetching; }
  fetching = (async function () {
    const response = await fetch(section.dataset.part, {credentials: "same-origin", headers: {accept: "text/html"}});
    if (!response.ok) { return; }
    const holder = document.createElement("template");
    holder.innerHTML = await response.text();  // server-rendered, every value escaped there
    const cards = Array.from(holder.content.querySelectorAll("li.request"));
    const seqs = cards.map(function (li) { return li.dataset.seq; });
    const fresh = known === null ? seqs : seqs.filter(function (s) { return !known.has(s); });
    known = new Set(seqs);
    cards.forEach(wire);
    const kept = Array.from(list.querySelectorAll("li.request[data-keep]"));
    const keptSeqs = new Set(kept.map(function (li) { return li.dataset.seq; }));
    const shown = kept.concat(cards.filter(function (li) { return !keptSeqs.has(li.dataset.seq); }));
    shown.sort(function (a, b) { return Number(a.dataset.seq) - Number(b.dataset.seq); });
    list.replaceChildren.apply(list, shown);
    section.hidden = shown.length === 0;
    section.dataset.count = String(cards.length);
    if (fresh.length) { buzz(); }
  })().finally(function () { fetching = null; });
  return fetching;
}

let checking = null;
function checkHere() {
  const mine = document.getElementById("my-answers");
  if (!mine || checking) { return; }
  checking = checkAnswers(campaign).then(function (result) {
    showChecks(result, document.getElementById("answer-flags"), mine);
  }, function (e) {
    mine.textContent = "Could not check your answers: " + e.message;
  }).finally(function () { checking = null; });
}

function listen() {
  const changed = function () { refresh(); checkHere(); };
  if (document.getElementById("log") || document.getElementById("sheet")) {
    // the live log and the live sheet have a stream already: they announce each entry
    document.addEventListener("ledger:entry", changed);
    return;
  }
  if (!window.EventSource) { return; }
  const source = new EventSource("/events");
  source.addEventListener("entry", changed);
  source.addEventListener("revoked", function () { source.close(); });
  source.addEventListener("ended", function () { source.close(); });
}

if (section && list && campaign) {
  refresh().then(function () { section.dataset.ready = "1"; });
  listen();
  checkHere();
}
