// The phone's roll form: die-face buttons fill the dice field, the odds of the roll as
// it stands are fetched from /roll/ID/preview (an HTML fragment rendered and escaped by the
// server) whenever a field changes, and a refusal the preview finds is shown next to the
// field it is about. Without this script the form still posts and the server answers.
const form = document.getElementById("roll-form");

function values() {
  const data = new FormData(form);
  const query = new URLSearchParams();
  for (const [k, v] of data.entries()) {
    if (k === "csrf" || k === "nonce" || k === "dice" || k === "auto" || v === "") { continue; }
    query.append(k, String(v));
  }
  return query;
}

let timer = null;
let asked = 0;
async function preview() {
  const odds = document.getElementById("odds");
  const mine = ++asked;
  let response;
  try {
    response = await fetch(form.dataset.preview + "?" + values().toString(), {
      credentials: "same-origin", headers: {accept: "text/html"}
    });
  } catch (e) {
    return;  // offline: the form still posts
  }
  if (!response.ok || mine !== asked) { return; }
  const holder = document.createElement("template");
  holder.innerHTML = await response.text();  // server-rendered, every value escaped there
  odds.replaceChildren(holder.content);
  for (const old of form.querySelectorAll(".field-error.live")) { old.remove(); }
  const note = odds.querySelector(".odds-note[data-field]");
  const field = note && note.dataset.field ? form.elements[note.dataset.field] : null;
  if (field) {
    const where = field.length && !field.tagName ? field[field.length - 1] : field;
    const line = document.createElement("p");
    line.className = "error field-error live";
    line.textContent = note.textContent;
    const anchor = where.closest("label") || where;
    const small = anchor.nextElementSibling && anchor.nextElementSibling.tagName === "SMALL" ? anchor.nextElementSibling : anchor;
    small.after(line);
  }
  form.dataset.odds = "ready";
}

function soon() {
  clearTimeout(timer);
  timer = setTimeout(preview, 150);
}

function wireDice() {
  const dice = form.elements.dice;
  const faces = form.querySelector(".faces");
  if (!faces) { return; }
  faces.hidden = false;
  faces.addEventListener("click", function (event) {
    const button = event.target.closest("button");
    if (!button) { return; }
    if (button.classList.contains("clear-dice")) {
      dice.value = "";
    } else if (button.classList.contains("next-die")) {
      if (dice.value.trim()) { dice.value = dice.value.trim() + " "; }
      dice.focus();
    } else if (button.dataset.face) {
      const fudge = button.classList.contains("fudge");
      const now = dice.value.trim();
      dice.value = fudge ? now.replace(/\s+/g, "") + button.dataset.face : (now ? now + " " : "") + button.dataset.face;
    }
    dice.dispatchEvent(new Event("input", {bubbles: true}));
  });
}

if (form) {
  wireDice();
  form.addEventListener("change", function (event) {
    if (event.target.name === "skill" && event.target.type === "radio") {
      const other = form.elements.skill_other;
      if (other) { other.value = ""; }
    }
    if (event.target.name !== "dice") { soon(); }
  });
  form.addEventListener("input", function (event) {
    if (event.target.name !== "dice" && event.target.type !== "checkbox" && event.target.type !== "radio") { soon(); }
  });
  form.addEventListener("submit", function () {
    const button = form.querySelector("button[type=submit]");
    // a second tap while the first is on its way would only be refused (one-time nonce)
    setTimeout(function () { button.disabled = true; }, 0);
  });
  preview();
}
