// The phone as witness: C2SP signed notes, tlog-checkpoints, RFC 9162 proofs and
// tlog-cosignature/v1, with nothing but the browser's WebCrypto (SHA-256, Ed25519).
// It mirrors ledger/trust/notes.py and ledger/trust/merkle.py, and is tested against them
// (tests/test_web_witness.py): the Go reference's note vectors, random trees and proofs,
// mangled notes refused.
//
//   openNote(message, verifiers)      C2SP signed-note: the text and the verified signatures
//   parseVerifierKey("name+hash+b64")  a pinned Ed25519 verifier key (algorithm 0x01)
//   parseCheckpoint(text)              C2SP tlog-checkpoint: origin, size, root, extensions
//   verifyInclusion / verifyConsistency   RFC 9162 2.1.3.2 and 2.1.4.2
//   cosign(text, name, key, pub, t)    C2SP tlog-cosignature/v1 signature line
//   visit({campaign, ...})             what a phone does on every visit (see below)
//   checkKeptNote({note, ...})         a note the player kept, against the log now
//
// Every failure is thrown as a NoteError or ProofError whose message says which.

const encoder = new TextEncoder();
const SIG_PREFIX = "\u2014 ";  // an em dash and a space
const MAX_SIGNATURES = 100;
const ALG_ED25519 = 0x01;       // C2SP signed-note: Ed25519 note signatures
const ALG_COSIGNATURE = 0x04;   // C2SP tlog-cosignature: Ed25519 cosignature/v1

export class NoteError extends Error { constructor(m) { super(m); this.name = "NoteError"; } }
export class UnverifiedNote extends NoteError {
  constructor(note) { super("note has no verifiable signatures"); this.note = note; }
}
export class ProofError extends Error { constructor(m) { super(m); this.name = "ProofError"; } }

// --- bytes -----------------------------------------------------------------------------

const B64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict base64 (padding required, no other character) to bytes; null when malformed. */
export function b64decode(text) {
  if (typeof text !== "string" || !B64.test(text)) { return null; }
  const raw = atob(text);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) { out[i] = raw.charCodeAt(i); }
  return out;
}

/** Bytes to base64 (with padding). */
export function b64encode(bytes) {
  let raw = "";
  for (const b of bytes) { raw += String.fromCharCode(b); }
  return btoa(raw);
}

export function concat(...parts) {
  const out = new Uint8Array(parts.reduce(function (n, p) { return n + p.length; }, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

function equal(a, b) {
  if (a.length !== b.length) { return false; }
  let d = 0;
  for (let i = 0; i < a.length; i++) { d |= a[i] ^ b[i]; }
  return d === 0;
}

function hex(bytes) { return Array.from(bytes, function (b) { return b.toString(16).padStart(2, "0"); }).join(""); }
function uint32(bytes) { return ((bytes[0] << 24) >>> 0) + (bytes[1] << 16) + (bytes[2] << 8) + bytes[3]; }

export async function sha256(bytes) { return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)); }

function validName(name) { return name.length > 0 && !name.includes("+") && !/\s/.test(name); }

// --- signed notes (C2SP signed-note) ----------------------------------------------------

/** The 32-bit key hash: the first four bytes of SHA-256(name || "\n" || alg || key). */
export async function keyHash(name, algAndKey) {
  return uint32(await sha256(concat(encoder.encode(name), new Uint8Array([0x0a]), algAndKey)));
}

/** A verifier key "NAME+HASH+BASE64(0x01 || 32-byte Ed25519 key)" as {name, hash, key,
 * publicKey (a CryptoKey), vkey}. Throws NoteError("malformed verifier key") and the
 * reference's other refusals (a hash that does not match, an unknown algorithm). */
export async function parseVerifierKey(vkey) {
  if (typeof vkey !== "string") { throw new NoteError("malformed verifier key"); }
  const first = vkey.indexOf("+");
  const name = first < 0 ? vkey : vkey.slice(0, first);
  const rest = first < 0 ? "" : vkey.slice(first + 1);
  const second = rest.indexOf("+");
  const hash16 = second < 0 ? rest : rest.slice(0, second);
  const key64 = second < 0 ? "" : rest.slice(second + 1);
  if (!/^[0-9a-fA-F]{8}$/.test(hash16)) { throw new NoteError("malformed verifier key"); }
  const key = b64decode(key64);
  if (key === null || !validName(name) || key.length === 0) { throw new NoteError("malformed verifier key"); }
  if (parseInt(hash16, 16) !== await keyHash(name, key)) {
    throw new NoteError("verifier key hash does not match its name and key");
  }
  if (key[0] !== ALG_ED25519) { throw new NoteError("unknown verifier algorithm"); }
  if (key.length !== 33) { throw new NoteError("malformed verifier key"); }
  const raw = key.slice(1);
  const publicKey = await crypto.subtle.importKey("raw", raw, {name: "Ed25519"}, true, ["verify"]);
  return {name: name, hash: parseInt(hash16, 16), key: raw, publicKey: publicKey, vkey: vkey};
}

async function ed25519Verify(publicKey, signature, message) {
  if (signature.length !== 64) { return false; }
  try {
    return await crypto.subtle.verify({name: "Ed25519"}, publicKey, signature, message);
  } catch (e) {
    return false;
  }
}

/** Open a signed note (a string, or its bytes: invalid UTF-8 is refused) against
 * `verifiers` (from parseVerifierKey). Returns {text, sigs: [{name, hash, base64}],
 * unverified: [...]}, as ledger/trust/notes.py open_note. Throws NoteError("malformed
 * note"), NoteError("invalid signature for key NAME+HASH"), NoteError("ambiguous key ..."),
 * or UnverifiedNote when no signature is by a known key. */
export async function openNote(message, verifiers) {
  let msg = message;
  if (typeof msg !== "string") {
    try { msg = new TextDecoder("utf-8", {fatal: true}).decode(message); } catch (e) { throw new NoteError("malformed note"); }
  }
  for (let i = 0; i < msg.length; i++) {
    const c = msg.charCodeAt(i);
    if (c < 0x20 && c !== 0x0a) { throw new NoteError("malformed note"); }
  }
  const split = msg.lastIndexOf("\n\n");
  if (split < 0) { throw new NoteError("malformed note"); }
  const text = msg.slice(0, split + 1), block = msg.slice(split + 2);
  if (!block || !block.endsWith("\n")) { throw new NoteError("malformed note"); }
  const known = new Map();
  for (const v of verifiers) {
    const k = v.name + "\n" + v.hash;
    if (!known.has(k)) { known.set(k, []); }
    known.get(k).push(v);
  }
  const note = {text: text, sigs: [], unverified: []};
  const seen = new Set(), seenUnverified = new Set();
  const textBytes = encoder.encode(text);
  let count = 0;
  for (const line of block.slice(0, -1).split("\n")) {
    if (!line.startsWith(SIG_PREFIX)) { throw new NoteError("malformed note"); }
    const body = line.slice(SIG_PREFIX.length);
    const space = body.indexOf(" ");
    const name = space < 0 ? body : body.slice(0, space);
    const b64 = space < 0 ? "" : body.slice(space + 1);
    const sig = b64decode(b64);
    if (sig === null || !validName(name) || !b64 || sig.length < 5) { throw new NoteError("malformed note"); }
    count++;
    if (count > MAX_SIGNATURES) { throw new NoteError("malformed note"); }
    const hash = uint32(sig);
    const found = known.get(name + "\n" + hash) || [];
    const label = name + "+" + hash.toString(16).padStart(8, "0");
    if (!found.length) {
      if (!seenUnverified.has(body)) {
        seenUnverified.add(body);
        note.unverified.push({name: name, hash: hash, base64: b64});
      }
      continue;
    }
    if (new Set(found.map(function (v) { return hex(v.key); })).size > 1) { throw new NoteError("ambiguous key " + label); }
    if (seen.has(label)) { continue; }
    seen.add(label);
    if (!await ed25519Verify(found[0].publicKey, sig.slice(4), textBytes)) {
      throw new NoteError("invalid signature for key " + label);
    }
    note.sigs.push({name: name, hash: hash, base64: b64});
  }
  if (!note.sigs.length) { throw new UnverifiedNote(note); }
  return note;
}

/** A checkpoint note's text (C2SP tlog-checkpoint) as {origin, size, root (32 bytes),
 * extensions}. Throws NoteError("malformed checkpoint...") as ledger/trust/notes.py. Sizes
 * past 2^53 - 1 are refused (no campaign gets there). */
export function parseCheckpoint(text) {
  if (typeof text !== "string" || !text.endsWith("\n")) { throw new NoteError("malformed checkpoint"); }
  const lines = text.slice(0, -1).split("\n");
  if (lines.length < 3 || !lines[0] || lines.slice(3).some(function (x) { return !x; })) {
    throw new NoteError("malformed checkpoint");
  }
  if (!/^(0|[1-9][0-9]{0,19})$/.test(lines[1])) { throw new NoteError("malformed checkpoint: the size is not a decimal number"); }
  const size = Number(lines[1]);
  if (!Number.isSafeInteger(size)) { throw new NoteError("malformed checkpoint: the size is too large"); }
  const root = b64decode(lines[2]);
  if (root === null) { throw new NoteError("malformed checkpoint: the root is not base64"); }
  if (root.length !== 32) { throw new NoteError("malformed checkpoint: the root is not 32 bytes"); }
  return {origin: lines[0], size: size, root: root, extensions: lines.slice(3)};
}

// --- Merkle proofs (RFC 9162 2.1) ---------------------------------------------------------

export async function leafHash(data) { return sha256(concat(new Uint8Array([0]), data)); }
export async function nodeHash(left, right) { return sha256(concat(new Uint8Array([1]), left, right)); }

function whole(n) { return Number.isSafeInteger(n) && n >= 0; }

/** Check that `leaf` (a leaf hash) is leaf `index` of the tree of `size` leaves whose root is
 * `root` (RFC 9162 2.1.3.2). Throws ProofError saying why not. */
export async function verifyInclusion(index, size, leaf, proof, root) {
  if (!whole(index) || !whole(size) || !(index < size)) { throw new ProofError("leaf " + index + " is not in a tree of " + size + " leaves"); }
  if (leaf.length !== 32 || root.length !== 32) { throw new ProofError("a leaf hash and a root are 32 bytes each"); }
  let fn = BigInt(index), sn = BigInt(size - 1), r = leaf;
  for (const p of proof) {
    if (p.length !== 32) { throw new ProofError("a proof hash is not 32 bytes"); }
    if (sn === 0n) { throw new ProofError("the proof is longer than the tree is deep"); }
    if ((fn & 1n) || fn === sn) {
      r = await nodeHash(p, r);
      if (!(fn & 1n)) { while (fn && !(fn & 1n)) { fn >>= 1n; sn >>= 1n; } }
    } else {
      r = await nodeHash(r, p);
    }
    fn >>= 1n; sn >>= 1n;
  }
  if (sn !== 0n) { throw new ProofError("the proof is shorter than the tree is deep"); }
  if (!equal(r, root)) { throw new ProofError("the proof does not lead to the tree's root: the leaf is not there"); }
}

/** Check that the tree of `old` leaves with root `oldRoot` is a prefix of the tree of `size`
 * leaves with root `newRoot` (RFC 9162 2.1.4.2). Throws ProofError saying why not. */
export async function verifyConsistency(old, size, oldRoot, newRoot, proof) {
  if (!whole(old) || !whole(size) || !(old > 0 && old <= size)) {
    throw new ProofError(old === 0 ? "a consistency proof from the empty tree proves nothing"
      : "a tree of " + old + " leaves cannot be a prefix of one of " + size);
  }
  if (old === size) {
    if (proof.length) { throw new ProofError("trees of one size need an empty proof"); }
    if (!equal(oldRoot, newRoot)) { throw new ProofError("two different trees of " + old + " leaves: history was rewritten"); }
    return;
  }
  if (proof.some(function (p) { return p.length !== 32; }) || oldRoot.length !== 32 || newRoot.length !== 32) {
    throw new ProofError("a proof hash or a root is not 32 bytes");
  }
  if (!proof.length) { throw new ProofError("the proof is empty"); }
  const path = proof.slice();
  let fn = BigInt(old - 1), sn = BigInt(size - 1);
  if ((BigInt(old) & BigInt(old - 1)) === 0n) { path.unshift(oldRoot); }
  while (fn & 1n) { fn >>= 1n; sn >>= 1n; }
  let fr = path[0], sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0n) { throw new ProofError("the proof is longer than the trees are deep"); }
    if ((fn & 1n) || fn === sn) {
      fr = await nodeHash(c, fr);
      sr = await nodeHash(c, sr);
      if (!(fn & 1n)) { while (fn && !(fn & 1n)) { fn >>= 1n; sn >>= 1n; } }
    } else {
      sr = await nodeHash(sr, c);
    }
    fn >>= 1n; sn >>= 1n;
  }
  if (sn !== 0n) { throw new ProofError("the proof is shorter than the trees are deep"); }
  if (!equal(fr, oldRoot)) { throw new ProofError("the proof does not lead to the old root of " + old + " leaves"); }
  if (!equal(sr, newRoot)) {
    throw new ProofError("the proof does not lead to the new root of " + size + " leaves: the tree of " + old +
      " is not a prefix of it (history was rewritten)");
  }
}

// --- cosignatures (C2SP tlog-cosignature/v1) ----------------------------------------------

/** The cosigner key ID: SHA-256(name || 0x0A || 0x04 || public key)[:4], as a number. */
export async function cosignerKeyId(name, publicKey) {
  return keyHash(name, concat(new Uint8Array([ALG_COSIGNATURE]), publicKey));
}

/** The cosigner's verifier key "NAME+KEYID+BASE64(0x04 || public key)". */
export async function cosignerVkey(name, publicKey) {
  const id = await cosignerKeyId(name, publicKey);
  return name + "+" + id.toString(16).padStart(8, "0") + "+" + b64encode(concat(new Uint8Array([ALG_COSIGNATURE]), publicKey));
}

/** The signed message of a cosignature/v1 at `timestamp` (whole seconds since the epoch)
 * over the checkpoint note body `text` (its lines, final newline included). */
export function cosignedMessage(text, timestamp) {
  return encoder.encode("cosignature/v1\ntime " + String(timestamp) + "\n" + text);
}

/** A cosigner's verifier key "NAME+KEYID+BASE64(0x04 || 32-byte key)" as {name, hash,
 * key, publicKey (a CryptoKey), vkey}, as ledger/trust/cosignature.py CosignatureVerifier.
 * Throws NoteError("malformed cosigner key") for any other shape or a key ID that does not
 * match. */
export async function parseCosignerKey(vkey) {
  if (typeof vkey !== "string") { throw new NoteError("malformed cosigner key"); }
  const first = vkey.indexOf("+"), second = first < 0 ? -1 : vkey.indexOf("+", first + 1);
  if (second < 0) { throw new NoteError("malformed cosigner key"); }
  const parts = [vkey.slice(0, first), vkey.slice(first + 1, second), vkey.slice(second + 1)];
  if (!validName(parts[0]) || !/^[0-9a-fA-F]{8}$/.test(parts[1])) {
    throw new NoteError("malformed cosigner key");
  }
  const key = b64decode(parts[2]);
  if (key === null || key.length !== 33 || key[0] !== ALG_COSIGNATURE) { throw new NoteError("malformed cosigner key"); }
  const raw = key.slice(1);
  if (await cosignerKeyId(parts[0], raw) !== parseInt(parts[1], 16)) { throw new NoteError("malformed cosigner key"); }
  const publicKey = await crypto.subtle.importKey("raw", raw, {name: "Ed25519"}, true, ["verify"]);
  return {name: parts[0], hash: parseInt(parts[1], 16), key: raw, publicKey: publicKey, vkey: vkey};
}

function id8(n) { return n.toString(16).padStart(8, "0"); }

/** Check one C2SP tlog-cosignature/v1 line ("— NAME BASE64(KEYID || TIME || SIG)") by the
 * cosigner key `vkey` over the checkpoint `note` (a signed note: its body before the blank
 * line is what is cosigned). Returns the timestamp; throws NoteError with the words of
 * ledger/trust/cosignature.py verify_cosignature (a malformed line, a line by another key,
 * a signature that does not verify over this checkpoint). */
export async function verifyCosignature(vkey, note, line) {
  const verifier = await parseCosignerKey(vkey);
  const split = note.indexOf("\n\n");
  const body = split < 0 ? note : note.slice(0, split + 1);
  parseCheckpoint(body);
  const text = line.endsWith("\n") ? line.slice(0, -1) : line;
  if (!text.startsWith(SIG_PREFIX) || text.includes("\n")) { throw new NoteError("malformed cosignature line: not '\u2014 NAME BASE64'"); }
  const rest = text.slice(SIG_PREFIX.length), space = rest.indexOf(" ");
  const name = space < 0 ? rest : rest.slice(0, space);
  const raw = b64decode(space < 0 ? "" : rest.slice(space + 1));
  if (raw === null) { throw new NoteError("malformed cosignature line: the signature is not base64"); }
  if (!validName(name) || raw.length !== 76) {
    throw new NoteError("malformed cosignature line: not a name and 76 bytes (key ID, time, signature)");
  }
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const keyId = view.getUint32(0), time = view.getBigUint64(4);
  if (time > 0x7fffffffffffffffn) { throw new NoteError("malformed cosignature line: timestamp above 2^63-1"); }
  if (name !== verifier.name || keyId !== verifier.hash) {
    throw new NoteError("cosignature by " + name + "+" + id8(keyId) + ", not by " + verifier.name + "+" + id8(verifier.hash));
  }
  const message = encoder.encode("cosignature/v1\ntime " + time.toString() + "\n" + body);
  if (!await ed25519Verify(verifier.publicKey, raw.slice(12), message)) {
    throw new NoteError("invalid cosignature by " + verifier.name + "+" + id8(verifier.hash) + " for this checkpoint");
  }
  return Number(time);
}

/** The cosignature line "— NAME BASE64(KEYID || u64 TIMESTAMP || ED25519 SIGNATURE)" of
 * `text` by the device key (`privateKey` a CryptoKey, `publicKey` its 32 raw bytes). */
export async function cosign(text, name, privateKey, publicKey, timestamp) {
  if (!validName(name)) { throw new NoteError("malformed cosigner name"); }
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) { throw new NoteError("a cosignature's time is whole seconds since 1970"); }
  const id = await cosignerKeyId(name, publicKey);
  const signature = new Uint8Array(await crypto.subtle.sign({name: "Ed25519"}, privateKey, cosignedMessage(text, timestamp)));
  const head = new Uint8Array(12);
  const view = new DataView(head.buffer);
  view.setUint32(0, id);
  view.setBigUint64(4, BigInt(timestamp));
  return SIG_PREFIX + name + " " + b64encode(concat(head, signature));
}

// --- the visit -----------------------------------------------------------------------------

/** What a phone keeps per campaign (phone-db.js "witness", key "campaign:ID"):
 * {vkey (pinned), origin, note, size, root (base64), at}. The device key is kept under
 * "device": {name, privateKey (non-extractable CryptoKey), publicKey (raw bytes)}. */
export async function deviceKey(db) {
  const kept = await db.get("witness", "device");
  if (kept) { return kept; }
  const pair = await crypto.subtle.generateKey({name: "Ed25519"}, false, ["sign", "verify"]);
  const raw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  const id = hex(crypto.getRandomValues(new Uint8Array(8)));
  const device = {key: "device", name: "campaign-ledger-phone/" + id, privateKey: pair.privateKey, publicKey: raw};
  await db.put("witness", device);
  return device;
}

async function getJson(fetcher, url) {
  const response = await fetcher(url, {credentials: "same-origin", headers: {accept: "application/json"}});
  if (response.status === 404) { return null; }
  if (!response.ok) { throw new Error(url + " answered " + response.status); }
  return response.json();
}

/** One visit of a phone: fetch the newest checkpoint; pin the campaign's key the first
 * time (a changed key is reported, nothing else done); verify the note with it; from the
 * newest checkpoint verified before, fetch a consistency proof and check it; keep the new
 * checkpoint and post this device's cosignature of it.
 *
 * Returns {state, ...}: "none" (no checkpoint yet), "pinned" (first sight at this address:
 * key pinned, checkpoint kept), "consistent" (checked against the size seen before); both
 * with {size, before, cosigned, note (the checkpoint's signed note), sessions and since
 * (the log's age as the server tells it: sessions started, the date of its first entry)}, "key-changed"
 * ({pinned, offered}), "rewritten" ({size: the size seen before, oldNote, newNote,
 * problem}), "bad-note" ({problem}: the server's own note does not verify), or "error"
 * ({problem}: checkpoints kept coming while the phone checked; nothing concluded).
 * `csrf` goes with the cosignature; `fetcher` is window.fetch unless given; `now` gives
 * the cosignature's time in ms (Date.now). */
export async function visit(options) {
  const db = options.db, campaign = options.campaign;
  const fetcher = options.fetcher || fetch.bind(window);
  const now = options.now || Date.now;
  const storeKey = "campaign:" + campaign;
  const seen = await db.get("witness", storeKey);
  // a checkpoint made between the two requests answers with a proof to a larger size: the
  // newest checkpoint is fetched again (three tries), never read as a rewrite
  for (let attempt = 1; ; attempt++) {
    const got = await getJson(fetcher, "/checkpoint");
    if (got === null) { return {state: "none"}; }
    if (seen && seen.vkey !== got.vkey) {
      return {state: "key-changed", pinned: seen.vkey, offered: got.vkey, oldNote: seen.note, newNote: got.note};
    }
    let checkpoint, body;
    try {
      const verifier = await parseVerifierKey(seen ? seen.vkey : got.vkey);
      const note = await openNote(got.note, [verifier]);
      body = note.text;
      checkpoint = parseCheckpoint(body);
      if (checkpoint.origin !== verifier.name) { throw new NoteError("the checkpoint's origin is not the campaign key's name"); }
    } catch (e) {
      if (!(e instanceof NoteError)) { throw e; }
      return {state: "bad-note", problem: e.message, note: got.note};
    }
    if (seen) {
      const rewritten = function (problem) {
        return {state: "rewritten", size: seen.size, problem: problem, oldNote: seen.note, newNote: got.note};
      };
      if (checkpoint.origin !== seen.origin) { return rewritten("the checkpoint names another log"); }
      const step = await continues(fetcher, {size: seen.size, root: b64decode(seen.root)}, checkpoint);
      if (step.moved) {
        if (attempt < 3) { continue; }
        return {state: "error", problem: MOVING};
      }
      if (step.problem) { return rewritten(step.problem); }
    }
    return keep(options, fetcher, db, storeKey, seen, got, checkpoint, body, now);
  }
}

const MOVING = "the campaign's checkpoint kept moving while the phone checked it";

/** Does the server's newest checkpoint (`checkpoint`, parsed from a note already verified)
 * continue one seen before (`seen`: {size, root (32 bytes)})? Fetches the RFC 9162
 * consistency proof from seen.size (GET /proof/consistency) and checks it with
 * verifyConsistency. Returns {ok: true}; {moved: true} when a newer checkpoint was signed
 * meanwhile (the server's proof leads past `checkpoint`: fetch the checkpoint again); or
 * {problem} when it does not continue it (a shorter log, no proof, a proof that fails: the
 * history was rewritten). visit() and checkKeptNote() both ask it. */
export async function continues(fetcher, seen, checkpoint) {
  if (checkpoint.size < seen.size) {
    return {problem: "the log is now " + checkpoint.size + " events long, shorter than the " + seen.size + " you saw"};
  }
  let proof = [];
  if (checkpoint.size > seen.size) {
    const answer = await getJson(fetcher, "/proof/consistency?old=" + seen.size + "&new=" + checkpoint.size);
    if (answer && answer.old === seen.size && typeof answer.new === "number" && answer.new > checkpoint.size) {
      return {moved: true};
    }
    if (answer === null || answer.old !== seen.size || answer.new !== checkpoint.size || !Array.isArray(answer.proof)) {
      return {problem: "the server gave no consistency proof from size " + seen.size + " to " + checkpoint.size};
    }
    for (const p of answer.proof) {
      const bytes = b64decode(p);
      if (bytes === null) { return {problem: "a proof hash is not base64"}; }
      proof.push(bytes);
    }
  }
  try {
    await verifyConsistency(seen.size, checkpoint.size, seen.root, checkpoint.root, proof);
  } catch (e) {
    if (!(e instanceof ProofError)) { throw e; }
    return {problem: e.message};
  }
  return {ok: true};
}

/** A kept note's text read without a key: {text, checkpoint (parsed), signers ["NAME+HASH"]}.
 * Throws NoteError when it is not a signed checkpoint note. */
export async function readKeptNote(note) {
  if (typeof note !== "string" || note.length > 20000) { throw new NoteError("it is not a checkpoint note (too long)"); }
  let opened;
  try {
    await openNote(note, []);
    throw new NoteError("malformed note");  // a note opens with no key only by failing
  } catch (e) {
    if (!(e instanceof UnverifiedNote)) { throw e; }
    opened = e.note;
  }
  const checkpoint = parseCheckpoint(opened.text);
  if (checkpoint.size === 0) { throw new NoteError("a checkpoint of no events proves nothing"); }
  const signers = opened.unverified.map(function (s) { return s.name + "+" + id8(s.hash); });
  return {text: opened.text, checkpoint: checkpoint, signers: signers};
}

/** Check a signed note the player kept (a C2SP tlog-checkpoint note, as the phone offered
 * it for download or `campaign checkpoint` printed it) against the log this server shows
 * now, trusting nothing the server says without checking it: the server's newest
 * checkpoint (GET /checkpoint) must verify with the key it names; the kept note must be of
 * the same origin and verify with that same key (a table that changed its key cannot
 * sign an old note again); and a consistency proof from the note's size to the newest
 * checkpoint (continues()) must lead from the kept root to the new one.
 *
 * Returns {state, ...}: "holds" ({size, now}: the log now continues the note);
 * "rewritten" ({size, root (base64), problem, now, keptNote, newNote}); "key-changed"
 * ({size, signers, offered, keptNote, newNote}); "bad-kept-note" ({size, problem}: a
 * signature by the table's key that does not verify: the file or the key changed);
 * "no-checkpoint" ({size}: the table shows no checkpoint, though the note proves one of
 * that size was signed); "bad-note" ({problem, note}: the server's own checkpoint does not
 * verify); "other-campaign" ({kept, now}: the two origins); "unreadable" ({problem}: the
 * file is not a checkpoint note); or "error" ({problem}). `fetcher` is window.fetch unless
 * given. */
export async function checkKeptNote(options) {
  const fetcher = options.fetcher || fetch.bind(window);
  const text = options.note;
  let kept;
  try {
    kept = await readKeptNote(text);
  } catch (e) {
    if (!(e instanceof NoteError)) { throw e; }
    return {state: "unreadable", problem: e.message};
  }
  const size = kept.checkpoint.size;
  for (let attempt = 1; ; attempt++) {
    const got = await getJson(fetcher, "/checkpoint");
    if (got === null) { return {state: "no-checkpoint", size: size, keptNote: text}; }
    let verifier, now;
    try {
      verifier = await parseVerifierKey(got.vkey);
      now = parseCheckpoint((await openNote(got.note, [verifier])).text);
      if (now.origin !== verifier.name) { throw new NoteError("the checkpoint's origin is not the campaign key's name"); }
    } catch (e) {
      if (!(e instanceof NoteError)) { throw e; }
      return {state: "bad-note", problem: e.message, note: got.note};
    }
    if (kept.checkpoint.origin !== now.origin) {
      return {state: "other-campaign", kept: kept.checkpoint.origin, now: now.origin};
    }
    try {
      await openNote(text, [verifier]);
    } catch (e) {
      if (e instanceof UnverifiedNote) {
        return {state: "key-changed", size: size, signers: kept.signers, offered: got.vkey, keptNote: text, newNote: got.note};
      }
      if (!(e instanceof NoteError)) { throw e; }
      return {state: "bad-kept-note", size: size, problem: e.message};
    }
    const step = await continues(fetcher, {size: size, root: kept.checkpoint.root}, now);
    if (step.moved) {
      if (attempt < 3) { continue; }
      return {state: "error", problem: MOVING};
    }
    if (step.problem) {
      return {state: "rewritten", size: size, root: b64encode(kept.checkpoint.root), problem: step.problem,
        now: now.size, keptNote: text, newNote: got.note};
    }
    return {state: "holds", size: size, now: now.size};
  }
}

async function keep(options, fetcher, db, storeKey, seen, got, checkpoint, body, now) {
  // a checkpoint this device cosigned already is not posted again (each post counts against
  // the device's write limit on the server, as a roll does)
  const already = seen && seen.cosigned === checkpoint.size && seen.note === got.note;
  const kept = {key: storeKey, campaign: options.campaign, vkey: seen ? seen.vkey : got.vkey, origin: checkpoint.origin,
    note: got.note, size: checkpoint.size, root: b64encode(checkpoint.root), at: new Date(now()).toISOString(),
    cosigned: already ? checkpoint.size : null};
  await db.put("witness", kept);
  const result = {state: seen ? "consistent" : "pinned", size: checkpoint.size, before: seen ? seen.size : null, cosigned: already,
    note: got.note, sessions: got.sessions, since: got.since};
  if (options.cosign !== false && !already) {
    const device = await deviceKey(db);
    const line = await cosign(body, device.name, device.privateKey, device.publicKey, Math.floor(now() / 1000));
    const posted = await fetcher("/cosignature", {
      method: "POST", credentials: "same-origin",
      headers: {"content-type": "application/json", "x-csrf-token": options.csrf || ""},
      body: JSON.stringify({size: checkpoint.size, vkey: await cosignerVkey(device.name, device.publicKey), signature: line})
    });
    result.cosigned = posted.status === 204;
    result.cosignature = line;
    if (result.cosigned) {
      kept.cosigned = checkpoint.size;
      await db.put("witness", kept);
    }
  }
  return result;
}
