// The player's phone cosigns their character's chronicle entries (docs/league.md
// "Cosigned entries"). After each session's end the table signs an entry per character who
// played; on the player's pages this shows each entry of their characters not yet cosigned
// (#chronicle-cosign): who, which session, what changed, as the table signed it (the
// signature checked with the campaign key this phone pinned). One tap, "This is mine:
// cosign it", signs the entry's text with this phone's own key (witness.js deviceKey, the
// key that cosigns checkpoints) and posts it (POST /chronicle/cosignature). An entry whose
// signature does not verify is shown as such and offered no button.
import {cosign, cosignerVkey, deviceKey, NoteError, openNote, parseVerifierKey} from "./witness.js";

/** The entry's "changed" line (a JSON list of sentences), or [] when it has none. */
export function changedOf(text) {
  for (const line of text.split("\n")) {
    if (line.startsWith("changed ")) {
      try { const got = JSON.parse(line.slice(8)); return Array.isArray(got) ? got.map(String) : []; } catch (e) { return []; }
    }
  }
  return [];
}

/** The entries of the player's characters (GET /chronicle), each with `text` once its
 * signature verifies with `pinned` (the campaign key this phone pinned), else `problem`. */
export async function entriesToCosign(fetcher, pinned) {
  const response = await fetcher("/chronicle", {credentials: "same-origin", headers: {accept: "application/json"}});
  if (!response.ok) { return []; }
  const got = await response.json();
  const verifier = await parseVerifierKey(pinned || got.vkey);
  const out = [];
  for (const entry of got.entries || []) {
    try {
      const note = await openNote(entry.note, [verifier]);
      out.push(Object.assign({text: note.text}, entry));
    } catch (e) {
      if (!(e instanceof NoteError)) { throw e; }
      out.push(Object.assign({problem: e.message}, entry));
    }
  }
  return out;
}

/** Cosign one entry (its verified `text`) with this phone's key and post it: {ok, problem}. */
export async function cosignEntry(options, entry) {
  const fetcher = options.fetcher || fetch.bind(window);
  const device = await deviceKey(options.db);
  const now = options.now || Date.now;
  const line = await cosign(entry.text, device.name, device.privateKey, device.publicKey, Math.floor(now() / 1000));
  const posted = await fetcher("/chronicle/cosignature", {
    method: "POST", credentials: "same-origin",
    headers: {"content-type": "application/json", "x-csrf-token": options.csrf || ""},
    body: JSON.stringify({entry: entry.hash, vkey: await cosignerVkey(device.name, device.publicKey), signature: line})
  });
  if (posted.status === 204) { return {ok: true, vkey: await cosignerVkey(device.name, device.publicKey)}; }
  let problem = "the table answered " + posted.status;
  try { problem = (await posted.json()).error || problem; } catch (e) { /* not JSON */ }
  return {ok: false, problem: problem};
}

function item(entry, options) {
  const li = document.createElement("li");
  li.className = "chronicle-entry";
  li.dataset.entry = entry.hash;
  li.dataset.character = entry.character;
  const head = document.createElement("strong");
  head.textContent = entry.name + "'s chronicle entry for session " + entry.session;
  const what = document.createElement("span");
  li.append(head, " ", what);
  if (entry.problem) {
    what.textContent = "does not verify with this table's key (" + entry.problem + "): do not cosign it; ask your GM.";
    li.dataset.state = "bad-entry";
    return li;
  }
  const changed = changedOf(entry.text);
  what.textContent = "signed by the table: " + (changed.length ? changed.join("; ") : "nothing changed") + ".";
  const button = document.createElement("button");
  button.type = "button";
  button.className = "cosign-entry";
  button.textContent = "This is mine: cosign it";
  const out = document.createElement("span");
  out.className = "muted";
  button.addEventListener("click", function () {
    button.disabled = true;
    out.textContent = " Cosigning\u2026";
    cosignEntry(options, entry).then(function (result) {
      if (result.ok) {
        li.dataset.state = "cosigned";
        button.remove();
        out.textContent = " Your phone cosigned it: any table you take this character to sees that you agreed.";
      } else {
        li.dataset.state = "refused";
        button.disabled = false;
        out.textContent = " Not cosigned: " + result.problem + ".";
      }
    }).catch(function (e) {
      li.dataset.state = "refused";
      button.disabled = false;
      out.textContent = " Not cosigned: " + e.message + ".";
    });
  });
  li.dataset.state = "offered";
  li.append(" ", button, out);
  return li;
}

/** Show the entries of the player's characters not yet cosigned in `place` (an element),
 * each with its one-tap cosign button; hidden when there are none. */
export async function offerEntries(place, options) {
  const fetcher = options.fetcher || fetch.bind(window);
  const entries = (await entriesToCosign(fetcher, options.pinned)).filter(function (e) { return !e.cosigned; });
  const shown = new Set(Array.from(place.querySelectorAll("li[data-entry]"), function (li) { return li.dataset.entry; }));
  let list = place.querySelector("ul");
  if (!list) {
    const title = document.createElement("p");
    title.textContent = "Your table signed what your character did this session. If it is right, cosign it with this phone: " +
      "the entry then proves, at every table you take the character to, that you agreed it is yours.";
    list = document.createElement("ul");
    place.replaceChildren(title, list);
  }
  for (const entry of entries) {
    if (!shown.has(entry.hash)) { list.append(item(entry, options)); }
  }
  place.hidden = !list.children.length;
  place.dataset.ready = "1";
}
