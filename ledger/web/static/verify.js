// Campaign Ledger's in-browser verifier: checks an export (NDJSON, a player's copy or the
// GM's) with nothing but the browser's WebCrypto, trusting nothing from any server.
// It is ledger/history/verify.py's verify_rows(rules=False) and names the first bad seq in
// the words of `campaign verify FILE` (ledger/history/report.py failure_words). It knows no
// event kind: only the seed protocol (campaign.created names the campaign; session.* and
// downtime.* commit and reveal seeds; an entry with "source": "engine" was drawn from one):
//   - seq runs 1, 2, 3, ... without gaps; each prev_hash is the previous hash (64 zeros
//     first); each hash is sha256(prev_hash bytes + canonical envelope), the canonical
//     envelope being the line without "hash", keys sorted, no whitespace (docs/events.md
//     "Events"); a redacted stub is chained through its stored hashes only;
//   - each stream's version runs 1, 2, 3, ... (skipping at most as many as stubs before);
//   - sessions start once each in order, never nested, and close once; each revealed seed
//     hashes to its commitment; downtime seeds likewise (docs/events.md "Engine dice
//     schemes");
//   - every engine roll is drawn before its seed's reveal and, once revealed, has the next
//     nonce and exactly the draws HMAC-SHA256(seed, msg) gives, with rejection sampling;
//   - an optional receipt SEQ:HASH: the log holds that hash at that seq;
//   - the export's checkpoint and cosignature lines, by verify-checkpoints.js (an ES
//     module on witness.js: Ed25519 by WebCrypto): each checkpoint signed by the campaign's
//     key the log records, its root the RFC 6962 root of the first `size` events, each
//     cosignature a C2SP tlog-cosignature/v1 of it. Without that module or Ed25519 the
//     verdict says the checkpoints could not be checked.
// Not checked here, as it needs the rule system (`campaign verify FILE` does it): that each
// event's type is one the core or the campaign's rule system writes, that each payload
// decodes as its type, and that a roll's result (total, band, outcome, ...) is what its rule
// system gives for its inputs and draws. Such an entry is chained and included (its hash is
// checked, and the signed checkpoints cover it), its result left to `campaign verify`, never
// a failure here (docs/trust.md "What each verifier checks").
(function (root) {
  "use strict";
  var ZERO = "0000000000000000000000000000000000000000000000000000000000000000";
  var HEX64 = /^[0-9a-f]{64}$/;
  var SCHEME = "ledger-roll-v1";
  var DOWNTIME = "ledger-downtime-v1";
  var REQUESTED = "ledger-roll-v2";  // a requested roll, drawn with the roller's entropy
  var MAX_SIDES = 1000;
  var encoder = new TextEncoder();

  function Problem(seq, text) { this.seq = seq; this.text = text; }

  // Python's repr of a JSON value, as the CLI's problems quote a stream, a type or a number.
  function repr(v) {
    if (v === undefined || v === null) { return "None"; }
    if (v === true) { return "True"; }
    if (v === false) { return "False"; }
    if (typeof v === "string") {
      var q = v.indexOf("'") >= 0 && v.indexOf('"') < 0 ? '"' : "'";
      var out = q;
      for (var k = 0; k < v.length; k++) {
        var ch = v[k], code = v.charCodeAt(k);
        if (ch === "\\") { out += "\\\\"; }
        else if (ch === q) { out += "\\" + q; }
        else if (ch === "\n") { out += "\\n"; }
        else if (ch === "\r") { out += "\\r"; }
        else if (ch === "\t") { out += "\\t"; }
        else if (code < 0x20 || code === 0x7f) { out += "\\x" + ("0" + code.toString(16)).slice(-2); }
        else { out += ch; }
      }
      return out + q;
    }
    if (typeof v === "number") { return Number.isInteger(v) ? String(v) : JSON.stringify(v); }
    return JSON.stringify(v);
  }

  // The sentence every verifier gives for a log that fails (report.py failure_words).
  function failureWords(seq, problem) {
    if (seq === null || seq === undefined) { return "verification failed: " + problem; }
    return "verification failed " + (seq ? "at seq " + seq : "in the file") + ": " + problem;
  }

  // The span of the top-level "data" value in a line's JSON text (its bytes are hashed as
  // they stand, as msgspec.Raw keeps them).
  function dataSpan(text) {
    var i = 0, n = text.length, found = null;
    function ws() { while (i < n && " \t\r\n".indexOf(text[i]) >= 0) { i++; } }
    function str() {
      var start = i; i++;
      while (i < n && text[i] !== '"') { i += text[i] === "\\" ? 2 : 1; }
      i++;
      return JSON.parse(text.slice(start, i));
    }
    function value() {
      ws();
      var start = i, c = text[i];
      if (c === '"') { str(); return [start, i]; }
      if (c === "{" || c === "[") {
        var depth = 0;
        while (i < n) {
          c = text[i];
          if (c === '"') { str(); continue; }
          if (c === "{" || c === "[") { depth++; }
          if (c === "}" || c === "]") { depth--; if (depth === 0) { i++; break; } }
          i++;
        }
        return [start, i];
      }
      while (i < n && ",}] \t\r\n".indexOf(text[i]) < 0) { i++; }
      return [start, i];
    }
    ws();
    if (text[i] !== "{") { return null; }
    i++;
    for (;;) {
      ws();
      if (text[i] === "}") { break; }
      if (text[i] !== '"') { return null; }
      var key = str();
      ws();
      if (text[i] !== ":") { return null; }
      i++;
      var span = value();
      if (key === "data") { found = span; }
      ws();
      if (text[i] === ",") { i++; continue; }
      if (text[i] === "}") { break; }
      return null;
    }
    return found;
  }

  // Python's json.dumps(..., separators=(",", ":")) of one string (ensure_ascii: every
  // character outside ' '..'~' as \uXXXX, per UTF-16 unit, lower-case hex).
  function pyString(s) {
    var out = '"';
    var short = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"};
    for (var k = 0; k < s.length; k++) {
      var ch = s[k], code = s.charCodeAt(k);
      if (short[ch]) { out += short[ch]; }
      else if (code < 0x20 || code > 0x7e) { out += "\\u" + ("0000" + code.toString(16)).slice(-4); }
      else { out += ch; }
    }
    return out + '"';
  }

  function hexToBytes(hex) {
    var out = new Uint8Array(hex.length / 2);
    for (var k = 0; k < out.length; k++) { out[k] = parseInt(hex.substr(2 * k, 2), 16); }
    return out;
  }
  function bytesToHex(buf) {
    var b = new Uint8Array(buf), s = "";
    for (var k = 0; k < b.length; k++) { s += ("0" + b[k].toString(16)).slice(-2); }
    return s;
  }
  function concat(a, b) {
    var out = new Uint8Array(a.length + b.length);
    out.set(a, 0); out.set(b, a.length);
    return out;
  }
  async function sha256Hex(bytes) { return bytesToHex(await crypto.subtle.digest("SHA-256", bytes)); }

  function canonical(row, rawData) {
    var S = JSON.stringify;  // the same string escapes as msgspec for valid text
    return '{"actor":' + S(row.actor) + ',"campaign":' + S(row.campaign) + ',"data":' + rawData +
      ',"prev_hash":' + S(row.prev_hash) + ',"recorded_at":' + S(row.recorded_at) +
      ',"seq":' + row.seq + ',"session":' + (row.session === null ? "null" : row.session) +
      ',"stream":' + S(row.stream) + ',"type":' + S(row.type) + ',"version":' + row.version +
      ',"visibility":' + S(row.visibility) + "}";
  }

  // The faces one engine roll's seed gives for its recorded dice (docs/events.md).
  async function engineDraws(seed, campaign, session, nonce, clientSeed, draws, scheme, answer) {
    var key = await crypto.subtle.importKey("raw", seed, {name: "HMAC", hash: "SHA-256"}, false, ["sign"]);
    var words = [], block = 0, out = [];
    async function next() {
      if (!words.length) {
        var msg = "[" + pyString(scheme) + "," + pyString(campaign) + "," + session + "," + nonce +
          "," + pyString(clientSeed) + "," +
          (answer ? answer.request + "," + pyString(answer.entropy) + "," : "") + block + "]";
        var view = new DataView(await crypto.subtle.sign("HMAC", key, encoder.encode(msg)));
        for (var k = 0; k < 8; k++) { words.push(view.getUint32(4 * k, false)); }
        block++;
      }
      return words.shift();
    }
    for (var d = 0; d < draws.length; d++) {
      var sides = draws[d][0], limit = 4294967296 - (4294967296 % sides), u;
      do { u = await next(); } while (u >= limit);
      out.push([sides, (u % sides) + 1]);
    }
    return out;
  }

  function isInt(x) { return typeof x === "number" && Number.isInteger(x); }
  function goodDraws(draws) {
    return Array.isArray(draws) && draws.every(function (d) {
      return Array.isArray(d) && d.length === 2 && isInt(d[0]) && isInt(d[1]) &&
        d[0] >= 2 && d[0] <= MAX_SIDES && d[1] >= 1 && d[1] <= d[0];
    });
  }

  function Seed(commitment, seq, stubs) {
    this.commitment = commitment; this.seq = seq; this.stubs = stubs;
    this.rolls = []; this.closedAt = null; this.how = "";
  }

  async function reveal(row, payload, s, what, firstNonce, scheme, report) {
    var hex = payload.seed_reveal;
    if (typeof hex !== "string" || !/^([0-9a-fA-F]{2})*$/.test(hex)) {
      throw new Problem(row.seq, what + "'s seed_reveal is not hex");
    }
    var seed = hexToBytes(hex);
    if (await sha256Hex(seed) !== s.commitment) {
      throw new Problem(row.seq, what + "'s revealed seed does not match its commitment");
    }
    var expected = firstNonce, stubs = s.stubs;
    for (var k = 0; k < s.rolls.length; k++) {
      var r = s.rolls[k], hidden = r.stubs - stubs;
      var wrong = "engine roll of " + what + " (seed revealed at seq " + row.seq + "): ";
      if (!isInt(r.nonce) || r.nonce < expected || r.nonce > expected + hidden) {
        throw new Problem(r.seq, "engine roll has nonce " + (typeof r.nonce === "string" ? r.nonce : repr(r.nonce)) +
          ", expected " + expected +
          (hidden ? " (or up to " + (expected + hidden) + ": " + hidden +
            " GM-only events before it may be hidden rolls)" : ""));
      }
      if (typeof r.clientSeed !== "string") { throw new Problem(r.seq, wrong + "nonce must be an integer and client_seed text"); }
      if (!goodDraws(r.draws)) {
        throw new Problem(r.seq, wrong + "draws must be [sides, value] pairs with 2 <= sides <= " + MAX_SIDES +
          ", 1 <= value <= sides");
      }
      if (r.answer && !(typeof r.answer.entropy === "string" && /^[0-9a-f]{64}$/.test(r.answer.entropy))) {
        throw new Problem(r.seq, wrong + "the roller's entropy is 32 bytes written as 64 lower-case hex digits");
      }
      if (r.answer && !(isInt(r.answer.request) && r.answer.request >= 1)) {
        throw new Problem(r.seq, wrong + "a requested roll names its request's seq");
      }
      var again = await engineDraws(seed, row.campaign, payload.number, r.nonce, r.clientSeed, r.draws,
        r.answer ? REQUESTED : scheme, r.answer);
      for (var d = 0; d < again.length; d++) {
        if (again[d][1] !== r.draws[d][1]) {
          throw new Problem(r.seq, wrong + "die " + (d + 1) + " (d" + r.draws[d][0] + ") shows " + r.draws[d][1] +
            " but the seed gives " + again[d][1]);
        }
      }
      report.engineRolls++;
      expected = r.nonce + 1; stubs = r.stubs;
    }
    s.rolls = [];
  }

  function numberProblem(row, payload) {
    if (!isInt(payload.number)) { throw new Problem(row.seq, row.type + "'s number must be an integer, not " + repr(payload.number)); }
    if (row.session !== payload.number) {
      throw new Problem(row.seq, row.type + " of session " + payload.number + " is filed under session " + repr(row.session));
    }
  }

  async function timeline(row, payload, st, report) {
    var seq = row.seq, type = row.type, area = type.split(".")[0];
    var source = payload.source;
    if (source !== undefined && source !== null && source !== "engine" && source !== "physical") {
      throw new Problem(seq, 'a roll\'s source must be "engine" or "physical", not ' + repr(source));
    }
    if (source !== undefined && source !== null) { report.resultsLeft++; }
    if (type === "campaign.created") {
      if (seq !== 1 || st.system !== null) { throw new Problem(seq, "campaign.created must be the first event, and only once"); }
      st.system = String(payload.system);
      return;
    }
    if (area === "session") {
      numberProblem(row, payload);
      var n = payload.number, s;
      if (type === "session.started") {
        if (st.sessions[n]) { throw new Problem(seq, "session " + n + " starts a second time (first at seq " + st.sessions[n].seq + ")"); }
        if (st.open !== null) { throw new Problem(seq, "session " + n + " starts while session " + st.open + " is still open"); }
        for (var d in st.downtime) {
          if (st.downtime[d].closedAt === null) {
            throw new Problem(seq, "session " + n + " starts while the downtime seed of session " + d +
              " is unrevealed (it is revealed before the next session starts)");
          }
        }
        if (n !== st.last + 1) { throw new Problem(seq, "session " + n + " starts after session " + st.last + ": expected " + (st.last + 1)); }
        if (typeof payload.seed_commitment !== "string") { throw new Problem(seq, "session " + n + "'s seed_commitment is not text"); }
        st.sessions[n] = new Seed(payload.seed_commitment, seq, report.stubs);
        st.open = st.last = n;
        return;
      }
      s = st.sessions[n];
      if (!s || st.open !== n) {
        if (s && s.closedAt !== null) { throw new Problem(seq, "session " + n + " closes a second time (first at seq " + s.closedAt + ")"); }
        throw new Problem(seq, "session " + n + " closes but is not open");
      }
      st.open = null; s.closedAt = seq;
      if (type === "session.abandoned") { s.how = "abandoned"; report.abandonedRolls += s.rolls.length; s.rolls = []; return; }
      s.how = "ended";
      await reveal(row, payload, s, "session " + n, 0, SCHEME, report);
      return;
    }
    if (area === "downtime") {
      numberProblem(row, payload);
      var m = payload.number, dt = st.downtime[m];
      if (type === "downtime.committed") {
        var sess = st.sessions[m];
        if (!sess || sess.closedAt === null) { throw new Problem(seq, "a downtime seed is committed for session " + m + ", which is not closed"); }
        if (dt) { throw new Problem(seq, "the downtime seed of session " + m + " is committed a second time"); }
        if (typeof payload.seed_commitment !== "string") { throw new Problem(seq, "the downtime seed_commitment of session " + m + " is not text"); }
        st.downtime[m] = new Seed(payload.seed_commitment, seq, report.stubs);
        return;
      }
      if (!dt || dt.closedAt !== null) { throw new Problem(seq, type + ": the downtime seed of session " + m + " is not committed and open"); }
      dt.closedAt = seq;
      if (type === "downtime.abandoned") { dt.how = "abandoned"; report.abandonedRolls += dt.rolls.length; dt.rolls = []; return; }
      dt.how = "revealed";
      await reveal(row, payload, dt, "the downtime of session " + m, 1, DOWNTIME, report);
      return;
    }
    if (source !== "engine") { return; }
    var scheme = payload.scheme === undefined ? SCHEME : payload.scheme, seeds;
    if (scheme === SCHEME || scheme === REQUESTED) { seeds = st.sessions; }
    else if (scheme === DOWNTIME) { seeds = st.downtime; }
    else { throw new Problem(seq, "engine roll of unknown scheme " + repr(scheme)); }
    var seed = isInt(row.session) ? seeds[row.session] : undefined;
    if (!seed) {
      throw new Problem(seq, scheme === DOWNTIME ? "downtime engine roll, but no downtime seed of session " + repr(row.session) +
        " was committed" : "engine roll outside a session");
    }
    if (seed.closedAt !== null) {
      throw new Problem(seq, "engine roll drawn after " + (scheme === DOWNTIME ? "the downtime seed of session " + row.session
        : "session " + row.session + "'s seed") + " was " + (seed.how === "abandoned" ? "lost" : "revealed") + " at seq " +
        seed.closedAt + ": no engine roll may come from a revealed seed");
    }
    seed.rolls.push({seq: seq, nonce: payload.nonce, clientSeed: payload.client_seed || "", draws: payload.draws, stubs: report.stubs,
      answer: scheme === REQUESTED ? {request: payload.request, entropy: payload.entropy} : null});
  }

  function envelopeProblem(row) {
    var strings = ["campaign", "stream", "type", "recorded_at", "actor"];
    for (var k = 0; k < strings.length; k++) {
      if (typeof row[strings[k]] !== "string") { return strings[k] + " is not text"; }
    }
    if (!isInt(row.version) || row.version < 0) { return "version is not a whole number"; }
    if (!(row.session === null || (isInt(row.session) && row.session >= 0))) { return "session is not a number"; }
    if (row.visibility !== "public" && row.visibility !== "gm") { return "visibility is neither public nor gm"; }
    return null;
  }

  // Verify an export's text. Returns {ok, badSeq, problem, headSeq, headHash, receipt,
  // events, stubs, engineRolls, unverifiableRolls, abandonedRolls, receiptChecked}.
  async function verifyExport(text, receiptText) {
    var report = {ok: true, badSeq: null, problem: null, headSeq: 0, headHash: ZERO, events: 0,
      stubs: 0, engineRolls: 0, unverifiableRolls: 0, abandonedRolls: 0, receiptChecked: false, resultsLeft: 0,
      campaign: null, checkpointKey: null, checkpoints: [], checkpointsUnchecked: null};
    var receipt = null;
    if (receiptText && receiptText.trim()) {
      var m = /^\s*(\d{1,18})\s*:\s*([0-9a-fA-F]{64})\s*$/.exec(receiptText);
      if (!m) { throw new Error("a receipt is SEQ:HASH, e.g. 42:9f1c… (64 hex digits)"); }
      receipt = {seq: parseInt(m[1], 10), hash: m[2].toLowerCase()};
    }
    var lines = text.split("\n"), prev = ZERO, expected = 1, versions = {}, skipped = 0;
    var st = {sessions: {}, downtime: {}, open: null, last: 0, system: null}, hashes = {};
    var campaign = null, trust = [], order = [];
    try {
      for (var number = 1; number <= lines.length; number++) {
        var line = lines[number - 1];
        if (!line.trim()) { continue; }
        var row;
        try { row = JSON.parse(line); } catch (e) { throw new Problem(null, "line " + number + " is not JSON"); }
        if (row === null || typeof row !== "object" || Array.isArray(row)) { throw new Problem(null, "line " + number + " is not an exported event"); }
        if (row.kind === "checkpoint" || row.kind === "cosignature") { trust.push(row); continue; }  // checked below
        var seq = row.seq;
        if (!isInt(seq) || typeof row.prev_hash !== "string" || !HEX64.test(row.prev_hash) ||
            typeof row.hash !== "string" || !HEX64.test(row.hash) || typeof row.campaign !== "string") {
          throw new Problem(null, "line " + number + " is not an exported event");
        }
        if (campaign === null) { campaign = row.campaign; }
        else if (row.campaign !== campaign) { throw new Problem(null, "the file mixes campaigns: verify one at a time"); }
        if (seq !== expected) { throw new Problem(expected, "seq " + expected + " is missing (found " + seq + " next)"); }
        if (row.prev_hash !== prev) { throw new Problem(seq, "prev_hash does not match the previous event's hash"); }
        var stub = row.redacted === true && (row.data === undefined || row.data === null);
        if (stub) {
          report.stubs++;
        } else {
          if (row.data === undefined || row.data === null) { throw new Problem(seq, "data is missing"); }
          var bad = envelopeProblem(row);
          if (bad) { throw new Problem(null, "line " + number + " is not an exported event: " + bad); }
          var last = versions[row.stream] || 0, hidden = report.stubs - skipped;
          if (row.version < last + 1 || row.version > last + 1 + hidden) {
            throw new Problem(seq, "stream " + repr(row.stream) + " version " + repr(row.version) + " should be " + (last + 1) +
              (hidden ? " (or up to " + (last + 1 + hidden) + ": " + hidden + " GM-only events before it may be on its stream)" : ""));
          }
          skipped += row.version - last - 1;
          versions[row.stream] = row.version;
          var span = dataSpan(line);
          if (!span) { throw new Problem(null, "line " + number + " is not an exported event"); }
          var raw = line.slice(span[0], span[1]);
          var digest = await sha256Hex(concat(hexToBytes(prev), encoder.encode(canonical(row, raw))));
          if (digest !== row.hash) {
            throw new Problem(seq, "hash does not match the event's contents (changed after it was written)");
          }
          var payload = row.data;
          if (payload === null || typeof payload !== "object" || Array.isArray(payload) || typeof payload.type !== "string") {
            throw new Problem(seq, "data is not an event of type " + repr(row.type));
          }
          if (payload.type !== row.type) {
            throw new Problem(seq, "data's type " + repr(payload.type) + " does not match the envelope's type " + repr(row.type));
          }
          if (report.checkpointKey === null) {
            if (row.type === "campaign.created" && payload.checkpoint_key) { report.checkpointKey = String(payload.checkpoint_key); }
            if (row.type === "checkpoint.key" && typeof payload.vkey === "string") { report.checkpointKey = payload.vkey; }
          }
          await timeline(row, payload, st, report);
        }
        prev = row.hash;
        report.headSeq = seq; report.headHash = prev; report.events++;
        hashes[seq] = prev;
        order.push(prev);
        expected++;
      }
      var key;
      for (key in st.sessions) {
        if (st.sessions[key].how === "abandoned") { continue; }
        if (st.sessions[key].closedAt === null) { report.unverifiableRolls += st.sessions[key].rolls.length; }
      }
      for (key in st.downtime) {
        if (st.downtime[key].closedAt === null) { report.unverifiableRolls += st.downtime[key].rolls.length; }
      }
      if (receipt) {
        if (receipt.seq > report.headSeq) {
          throw new Problem(receipt.seq, "the receipt names seq " + receipt.seq + " but the file ends at seq " + report.headSeq + " (events were removed)");
        }
        if (hashes[receipt.seq] !== receipt.hash) {
          throw new Problem(receipt.seq, "the receipt's hash for seq " + receipt.seq + " is " + receipt.hash +
            " but the file holds " + hashes[receipt.seq] + ": the log was changed at or before it");
        }
        report.receiptChecked = true;
      }
      report.campaign = campaign;
      if (trust.length && !order.length) { throw new Problem(null, "the file holds no events"); }
      if (trust.length) { await checkpoints(report, trust, order); }
    } catch (e) {
      if (!(e instanceof Problem)) { throw e; }
      report.ok = false; report.badSeq = e.seq; report.problem = e.text;
    }
    report.receipt = report.headSeq + ":" + report.headHash;
    return report;
  }

  // The export's checkpoint and cosignature lines, checked by verify-checkpoints.js.
  async function checkpoints(report, trust, order) {
    var module = root.LedgerCheckpoints;
    if (!module) {
      report.checkpointsUnchecked = "this page lacks the checkpoint checker (verify-checkpoints.js)";
      return;
    }
    var seen;
    try {
      seen = await module.check({
        campaign: report.campaign, vkey: report.checkpointKey, hashes: order,
        checkpoints: trust.filter(function (t) { return t.kind === "checkpoint"; }),
        cosignatures: trust.filter(function (t) { return t.kind === "cosignature"; })
      });
    } catch (e) {
      if (e && e.name === "NotSupportedError") {
        report.checkpointsUnchecked = "this browser's WebCrypto has no Ed25519 (checkpoint signatures)";
        return;
      }
      throw e;
    }
    if (!seen.ok) { throw new Problem(seen.badSize, seen.problem); }
    report.checkpoints = seen.checked;
  }

  // The verdict in words. A pass says first what was checked and what was not: the chain,
  // the seeds and the engine draws are checked here; a roll's result (total, outcome) is
  // worked out by its rule system, which only `campaign verify FILE` has (docs/events.md
  // "What a script checks, and what needs the rule system").
  function describe(report) {
    if (!report.ok) { return failureWords(report.badSeq, report.problem); }
    var text = "OK: chain, seeds and " + report.engineRolls + " engine roll" +
      (report.engineRolls === 1 ? "" : "s") + " check; results are re-derived by `campaign verify FILE`" +
      " (it needs the rule system: this page cannot check totals and outcomes).\n" +
      report.events + " events" +
      (report.stubs ? " (" + report.stubs + " GM-only, chained through their hashes)" : "") +
      (report.resultsLeft ? "; " + report.resultsLeft + " roll" + (report.resultsLeft === 1 ? "" : "s") +
        " chained and included, " + (report.resultsLeft === 1 ? "its result" : "their results") +
        " checked by `campaign verify`" : "");
    if (report.unverifiableRolls) {
      text += "; " + report.unverifiableRolls + " engine roll" + (report.unverifiableRolls === 1 ? " waits" : "s wait") +
        " for its session's seed to be revealed";
    }
    if (report.abandonedRolls) { text += "; " + report.abandonedRolls + " of abandoned sessions cannot be checked"; }
    if (report.receiptChecked) { text += "; your receipt matches"; }
    var cps = report.checkpoints || [];
    if (cps.length) {
      var names = {};
      cps.forEach(function (c) { c.cosigners.forEach(function (n) { names[n] = 1; }); });
      var cosigners = Object.keys(names).sort();
      text += "; " + cps.length + (cps.length === 1 ? " signed checkpoint holds (size " :
        " signed checkpoints hold (sizes ") +
        cps.map(function (c) { return c.size; }).join(", ") + ")" +
        (cosigners.length ? ", cosigned by " + cosigners.join(", ") : "");
    }
    if (report.checkpointsUnchecked) {
      text += "; the checkpoints could not be checked: " + report.checkpointsUnchecked;
    }
    return text + ".\nReceipt: " + report.receipt;
  }

  root.LedgerVerify = {verifyExport: verifyExport, describe: describe, failureWords: failureWords,
    pyString: pyString, dataSpan: dataSpan, repr: repr};
})(typeof window !== "undefined" ? window : globalThis);
