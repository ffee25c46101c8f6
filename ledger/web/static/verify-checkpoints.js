// The in-browser verifier's check of an export's checkpoint and cosignature lines,
// with witness.js's signed-note, checkpoint and cosignature code (nothing but WebCrypto:
// SHA-256 and Ed25519). It mirrors ledger/history/checkpoint_checks.py check() and names the first
// bad checkpoint in the words of `campaign verify FILE`:
//   - each checkpoint is signed by the campaign's key as the log records it
//     (campaign.created's checkpoint_key, or a checkpoint.key event), its origin is the
//     campaign's (campaign-ledger/<id>), the file holds at least its size of events, and the
//     RFC 6962 root of the first `size` event hashes (recomputed here) is its root;
//   - each cosignature is a valid C2SP tlog-cosignature/v1 of that very checkpoint.
// verify.js calls globalThis.LedgerCheckpoints.check after the chain holds; the downloaded
// verifier inlines this file and witness.js into one module (ledger/web/verifier.py).
import {NoteError, leafHash, nodeHash, openNote, parseCheckpoint, parseVerifierKey, verifyCosignature} from "./witness.js";

const ORIGIN_PREFIX = "campaign-ledger/";

function b64(bytes) {
  let raw = "";
  for (const b of bytes) { raw += String.fromCharCode(b); }
  return btoa(raw);
}

function fromHex(text) {
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) { out[i] = parseInt(text.substr(2 * i, 2), 16); }
  return out;
}

function same(a, b) {
  if (!a || !b || a.length !== b.length) { return false; }
  for (let i = 0; i < a.length; i++) { if (a[i] !== b[i]) { return false; } }
  return true;
}

// Python's repr of a short string, as the CLI's messages quote an origin or a campaign.
function repr(s) { return s.includes("'") && !s.includes('"') ? '"' + s + '"' : "'" + s.replace(/'/g, "\\'") + "'"; }

/** {size: RFC 6962 root} of the first `size` hashes (hex, seq order) for each wanted size
 * the log reaches, with a compact range (one SHA-256 per leaf and per merge). */
async function rootsAt(hashes, sizes) {
  const wanted = new Set(sizes), roots = new Map(), stack = [];
  let size = 0;
  for (const h of hashes) {
    let node = await leafHash(fromHex(h)), s = size;
    while (s & 1) { node = await nodeHash(stack.pop(), node); s = Math.floor(s / 2); }
    stack.push(node);
    size++;
    if (wanted.has(size)) {
      let root = stack[stack.length - 1];
      for (let i = stack.length - 2; i >= 0; i--) { root = await nodeHash(stack[i], root); }
      roots.set(size, root);
    }
  }
  return roots;
}

class Failed extends Error { constructor(size, text) { super(text); this.size = size; } }

async function holds(campaign, vkey, note, size, count, roots, what) {
  if (vkey === null) { throw new Failed(size, what + ": the log records no checkpoint key to check it with"); }
  let checkpoint;
  try {
    const verifier = await parseVerifierKey(vkey);
    const opened = await openNote(note, [verifier]);
    checkpoint = parseCheckpoint(opened.text);
    if (checkpoint.origin !== verifier.name) {
      throw new NoteError("the checkpoint's origin " + repr(checkpoint.origin) + " is not the key's name");
    }
  } catch (e) {
    if (!(e instanceof NoteError)) { throw e; }
    throw new Failed(size, what + " is not signed by this campaign's key (" + e.message + ")");
  }
  const n = checkpoint.size;
  if (n !== size) { throw new Failed(size, what + " claims size " + size + " but its note says " + n); }
  if (checkpoint.origin !== ORIGIN_PREFIX + campaign) { throw new Failed(n, what + " is for " + repr(checkpoint.origin) + ", not this campaign"); }
  if (n > count) { throw new Failed(n, what + " covers " + n + " events but the log holds only " + count + ": the log was truncated"); }
  if (n === 0 || !same(roots.get(n), checkpoint.root)) {
    throw new Failed(n, what + " does not match the log's first " + n + " events: the log was rewritten after " +
      "the checkpoint of size " + n + " was signed");
  }
  return checkpoint;
}

/** Check an export's checkpoint lines ({campaign, size, note}) and cosignature lines
 * ({campaign, size, vkey, signature, cosigner}) against its events' hashes (hex, seq
 * order) and the checkpoint key the log records (`vkey`, or null).
 * Returns {ok, checked: [{size, root (base64), cosigners}], problem, badSize}. */
async function check(options) {
  const campaign = options.campaign, hashes = options.hashes;
  const checkpoints = options.checkpoints || [], cosignatures = options.cosignatures || [];
  const result = {ok: true, checked: [], problem: null, badSize: null};
  try {
    for (const line of [...checkpoints, ...cosignatures]) {
      if (line.campaign !== campaign) {
        throw new Failed(line.size, "a checkpoint line of another campaign (" + repr(String(line.campaign).slice(0, 80)) + ")");
      }
      if (!Number.isSafeInteger(line.size) || line.size < 0) { throw new Failed(null, "a checkpoint line's size is not a whole number"); }
    }
    const roots = await rootsAt(hashes, checkpoints.map(function (c) { return c.size; }));
    const bySize = new Map();
    for (const co of cosignatures) {
      if (!bySize.has(co.size)) { bySize.set(co.size, []); }
      bySize.get(co.size).push(co);
    }
    for (const cp of checkpoints) {
      const what = "the checkpoint of size " + cp.size;
      const note = String(cp.note);
      const got = await holds(campaign, options.vkey, note, cp.size, hashes.length, roots, what);
      const names = [];
      for (const co of bySize.get(cp.size) || []) {
        try {
          await verifyCosignature(String(co.vkey), note, String(co.signature));
        } catch (e) {
          if (!(e instanceof NoteError)) { throw e; }
          throw new Failed(cp.size, "a cosignature of " + what + ": " + e.message);
        }
        names.push(String(co.cosigner || ""));
      }
      bySize.delete(cp.size);
      result.checked.push({size: cp.size, root: b64(got.root), cosigners: names});
    }
    for (const size of bySize.keys()) {
      throw new Failed(size, "a cosignature of a checkpoint of size " + size + " that is not kept");
    }
  } catch (e) {
    if (!(e instanceof Failed)) { throw e; }
    result.ok = false; result.problem = e.message; result.badSize = e.size;
  }
  return result;
}

globalThis.LedgerCheckpoints = {check: check};
