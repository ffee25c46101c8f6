"""The phone's witness JavaScript (ledger/web/static/witness.js) in Debian's Chromium,
checked against the Python reference modules and the published vectors, never only against
itself:

- the Go reference's signed-note vectors (golang.org/x/mod/sumdb/note's tests, as
  tests/test_notes.py uses them): the PeterNeumann and EnochRoot keys and note, opened with
  WebCrypto Ed25519; every mangled key and message the reference refuses is refused;
- checkpoints signed by :mod:`ledger.trust.notes` open and parse in the browser, mangled
  ones do not;
- random trees: every inclusion and consistency proof :mod:`ledger.trust.merkle` makes
  verifies in the browser, and every mangled one (a changed hash, a hash dropped or added,
  another root, another size) fails there exactly when it fails in Python;
- a cosignature made in the browser with a non-extractable Ed25519 device key is a C2SP
  tlog-cosignature/v1 that Python's ``cryptography`` verifies (key ID, timestamp, message).
"""

from __future__ import annotations

import base64
import hashlib
import random
import struct
from pathlib import Path
from typing import Any

import pytest

from ledger.trust import merkle
from ledger.trust.notes import Checkpoint, Signer, sign

from .test_notes import ENOCH_SIG, ENOCH_VKEY, PETER_SIG, PETER_SKEY, PETER_VKEY, TEXT
from .test_web_browser import CHROMIUM
from .webtools import PATIENCE, d20_table, live_server

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Debian's chromium is not installed (apt-get install chromium)",
)


@pytest.fixture(scope="module")
def page(tmp_path_factory, phone_context):
    """A page of a served table (same origin as /static/witness.js), the module loaded as
    ``window.W``."""
    table = d20_table(str(tmp_path_factory.mktemp("witness") / "ledger.db"))
    with live_server(table.db) as base:
        page = phone_context.new_page()
        page.goto(f"{base}/static/site.css")
        page.evaluate("async () => { window.W = await import('/static/witness.js'); }")
        yield page
        page.close()


def js(page: Any, body: str, arg: Any = None) -> Any:
    """Run ``body`` (an async function body; ``W`` is the module, ``arg`` the argument)."""
    return page.evaluate(f"async (arg) => {{ const W = window.W; {body} }}", arg)


#: Opens a note, answering {text, sigs, unverified} or {error: message}.
OPEN = """
  const keys = [];
  for (const k of arg.keys) { keys.push(await W.parseVerifierKey(k)); }
  const message = arg.bytes ? Uint8Array.from(atob(arg.bytes), c => c.charCodeAt(0)) : arg.message;
  try {
    const n = await W.openNote(message, keys);
    return {text: n.text, sigs: n.sigs.map(s => s.name), unverified: n.unverified.map(s => s.name)};
  } catch (e) {
    return {error: e.message, kind: e.constructor.name};
  }
"""


def open_in_browser(page: Any, message: str | bytes, keys: list[str]) -> dict[str, Any]:
    arg: dict[str, Any] = {"keys": keys}
    if isinstance(message, bytes):
        arg["bytes"] = base64.b64encode(message).decode()
    else:
        arg["message"] = message
    return dict(js(page, OPEN, arg))


def test_the_go_reference_note_opens_with_webcrypto(page):
    both = TEXT + "\n" + PETER_SIG + ENOCH_SIG
    assert open_in_browser(page, both, [PETER_VKEY]) == {
        "text": TEXT,
        "sigs": ["PeterNeumann"],
        "unverified": ["EnochRoot"],
    }
    assert open_in_browser(page, both, [PETER_VKEY, ENOCH_VKEY])["sigs"] == [
        "PeterNeumann",
        "EnochRoot",
    ]
    assert open_in_browser(page, both, []) == {
        "error": "note has no verifiable signatures",
        "kind": "UnverifiedNote",
    }
    assert open_in_browser(page, TEXT + "\n" + PETER_SIG, [ENOCH_VKEY, PETER_VKEY, ENOCH_VKEY])[
        "sigs"
    ] == ["PeterNeumann"]
    key = js(page, "const k = await W.parseVerifierKey(arg); return [k.name, k.hash];", PETER_VKEY)
    assert key == ["PeterNeumann", 0xC74F20A3]


def test_the_reference_refusals_of_messages(page):
    assert (
        open_in_browser(page, TEXT + "\n" + PETER_SIG * 101, [PETER_VKEY])["error"]
        == "malformed note"
    )
    forged = TEXT + "\n" + PETER_SIG[:60] + "ABCD" + PETER_SIG[60:]
    assert open_in_browser(page, forged, [PETER_VKEY])["error"] == (
        "invalid signature for key PeterNeumann+c74f20a3"
    )
    bad: list[str | bytes] = [
        TEXT,
        TEXT + "\n",
        TEXT + "\n" + PETER_SIG[:-1],
        "\x01" + TEXT + "\n" + PETER_SIG,
        b"\xff" + (TEXT + "\n" + PETER_SIG).encode(),
        TEXT + "\n" + "— Bad Name " + PETER_SIG.split(" ")[2],
        TEXT + "\n" + PETER_SIG + "Unexpected line.\n",
    ]
    for message in bad:
        assert open_in_browser(page, message, [PETER_VKEY]).get("error") == "malformed note", (
            message
        )
    changed = TEXT.replace("cryptography", "cryptograpHy") + "\n" + PETER_SIG
    assert "invalid signature" in open_in_browser(page, changed, [PETER_VKEY])["error"]


def test_every_mangled_form_of_the_reference_key_is_refused_in_the_browser(page):
    """As the reference's TestNewVerifier (and tests/test_notes.py): every proper
    substring, every byte + 1, a wrong length and an unknown algorithm."""
    b = PETER_VKEY.encode()
    bad = {b[i:j] for i in range(len(b) + 1) for j in range(i + 1, len(b) + 1)} - {b}
    bad |= {b[:i] + bytes([b[i] + 1]) + b[i + 1 :] for i in range(len(b))}
    keys = sorted(k.decode("latin-1") for k in bad) + [
        "PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==",
        "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
    ]
    accepted = js(
        page,
        """const ok = [];
        for (const k of arg) { try { await W.parseVerifierKey(k); ok.push(k); } catch (e) {
          if (e.name !== "NoteError") { ok.push(k + " threw " + e); } } }
        return ok;""",
        keys,
    )
    assert accepted == []


def test_our_checkpoints_open_and_parse_in_the_browser_and_mangled_ones_do_not(page):
    leaves = [merkle.leaf_hash(hashlib.sha256(bytes([i])).digest()) for i in range(13)]
    cp = Checkpoint("campaign-ledger/vault", 13, merkle.root(leaves))
    signer = Signer.generate("campaign-ledger/vault")
    note = sign(cp.text(), signer)
    vkey = signer.verifier.key()
    parse = """
      const k = await W.parseVerifierKey(arg.vkey);
      try {
        const n = await W.openNote(arg.note, [k]);
        const c = W.parseCheckpoint(n.text);
        return {origin: c.origin, size: c.size, root: W.b64encode(c.root), ext: c.extensions};
      } catch (e) { return {error: e.message}; }
    """
    assert js(page, parse, {"vkey": vkey, "note": note}) == {
        "origin": "campaign-ledger/vault",
        "size": 13,
        "root": base64.b64encode(cp.root).decode(),
        "ext": [],
    }
    other = Signer.generate("campaign-ledger/vault")  # the same name, another key
    assert js(page, parse, {"vkey": vkey, "note": sign(cp.text(), other)}) == {
        "error": "note has no verifiable signatures"
    }
    root64 = base64.b64encode(cp.root).decode()
    for text in (
        f"a\n05\n{root64}\n",
        "a\n-1\nAAAA\n",
        "a\n1\nAAAA\n",
        "a\n1\n",
        f"\n1\n{root64}\n",
        f"a\n1\n{root64}\n\n",
        f"a\n99999999999999999999\n{root64}\n",
    ):
        result = js(
            page, parse, {"vkey": vkey, "note": sign(text, signer) if "\n\n" not in text else text}
        )
        assert "error" in result and (
            "checkpoint" in result["error"] or "note" in result["error"]
        ), text
    rewritten = note.replace("\n13\n", "\n14\n")
    assert js(page, parse, {"vkey": vkey, "note": rewritten})["error"].startswith(
        "invalid signature"
    )


def mangled(proof: list[bytes], rng: random.Random) -> list[tuple[str, list[bytes]]]:
    out = []
    if proof:
        i = rng.randrange(len(proof))
        flipped = bytearray(proof[i])
        flipped[rng.randrange(32)] ^= 1 << rng.randrange(8)
        out.append(("a changed hash", [*proof[:i], bytes(flipped), *proof[i + 1 :]]))
        out.append(("a hash dropped", proof[:-1]))
    out.append(("a hash added", [*proof, hashlib.sha256(b"extra").digest()]))
    return out


def b64s(hashes: list[bytes]) -> list[str]:
    return [base64.b64encode(h).decode() for h in hashes]


CHECK = """
  const d = (x) => W.b64decode(x);
  const out = [];
  for (const c of arg) {
    try {
      if (c.kind === "inclusion") {
        await W.verifyInclusion(c.index, c.size, d(c.leaf), c.proof.map(d), d(c.root));
      } else {
        await W.verifyConsistency(c.old, c.size, d(c.oldRoot), d(c.root), c.proof.map(d));
      }
      out.push(null);
    } catch (e) {
      out.push(e.name === "ProofError" ? "refused" : "threw " + e);
    }
  }
  return out;
"""


def test_random_trees_proofs_verify_in_the_browser_exactly_as_in_python(page):
    rng = random.Random(26)
    cases: list[dict[str, Any]] = []
    expected: list[str | None] = []

    def python(case: dict[str, Any]) -> str | None:
        d = base64.b64decode
        try:
            if case["kind"] == "inclusion":
                merkle.verify_inclusion(case["index"], case["size"], d(case["leaf"]),
                                        [d(p) for p in case["proof"]], d(case["root"]))  # fmt: skip
            else:
                merkle.verify_consistency(case["old"], case["size"], d(case["oldRoot"]),
                                          d(case["root"]), [d(p) for p in case["proof"]])  # fmt: skip
        except merkle.ProofError:
            return "refused"
        return None

    for _ in range(60):
        size = rng.choice([1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 33, 64, 100, rng.randint(1, 300)])
        leaves = [merkle.leaf_hash(rng.randbytes(32)) for _ in range(size)]
        top = merkle.root(leaves)
        index = rng.randrange(size)
        proof = merkle.inclusion_proof(index, size, leaves)
        base = {"kind": "inclusion", "index": index, "size": size,
                "leaf": base64.b64encode(leaves[index]).decode(), "root": base64.b64encode(top).decode()}  # fmt: skip
        cases.append({**base, "proof": b64s(proof)})
        for _why, bad in mangled(proof, rng):
            cases.append({**base, "proof": b64s(bad)})
        cases.append({**base, "proof": b64s(proof), "index": (index + 1) % size})
        old = rng.randint(1, size)
        old_root = merkle.root(leaves[:old])
        cproof = merkle.consistency_proof(old, size, leaves)
        cbase = {"kind": "consistency", "old": old, "size": size,
                 "oldRoot": base64.b64encode(old_root).decode(), "root": base64.b64encode(top).decode()}  # fmt: skip
        cases.append({**cbase, "proof": b64s(cproof)})
        for _why, bad in mangled(cproof, rng):
            cases.append({**cbase, "proof": b64s(bad)})
        # a rewritten history: one old leaf changed, the new tree built over it
        forged = list(leaves)
        forged[rng.randrange(old)] = merkle.leaf_hash(b"rewritten".ljust(32, b"!"))
        cases.append({**cbase, "root": base64.b64encode(merkle.root(forged)).decode(),
                      "proof": b64s(merkle.consistency_proof(old, size, forged))})  # fmt: skip
        cases.append({**cbase, "old": 0, "proof": []})
    expected = [python(c) for c in cases]
    assert js(page, CHECK, cases) == expected
    assert expected.count(None) >= 120 and expected.count("refused") >= 120  # both kinds, many


def test_a_browser_cosignature_is_a_c2sp_cosignature_python_verifies(page):
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    leaves = [merkle.leaf_hash(bytes([i]) * 32) for i in range(5)]
    text = Checkpoint("campaign-ledger/vault", 5, merkle.root(leaves)).text()
    made = js(
        page,
        """
        const pair = await crypto.subtle.generateKey({name: "Ed25519"}, false, ["sign", "verify"]);
        const pub = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
        let exported = "refused";
        try { await crypto.subtle.exportKey("pkcs8", pair.privateKey); exported = "exported"; } catch (e) {}
        return {
          line: await W.cosign(arg, "campaign-ledger-phone/abc", pair.privateKey, pub, 1779811200),
          vkey: await W.cosignerVkey("campaign-ledger-phone/abc", pub),
          pub: W.b64encode(pub), exported: exported
        };
        """,
        text,
    )
    assert made["exported"] == "refused"  # the device key never leaves the browser
    public = base64.b64decode(made["pub"])
    name = "campaign-ledger-phone/abc"
    key_id = hashlib.sha256(name.encode() + b"\n\x04" + public).digest()[:4]
    encoded = base64.b64encode(bytes([4]) + public).decode()
    assert made["vkey"] == f"{name}+{key_id.hex()}+{encoded}"
    assert made["line"].startswith(f"— {name} ")
    raw = base64.b64decode(made["line"].split(" ")[2])
    assert raw[:4] == key_id and struct.unpack(">Q", raw[4:12])[0] == 1779811200
    message = b"cosignature/v1\ntime 1779811200\n" + text.encode()
    Ed25519PublicKey.from_public_bytes(public).verify(raw[12:], message)  # raises if not
    with pytest.raises(Exception):  # noqa: B017 - cryptography's InvalidSignature
        Ed25519PublicKey.from_public_bytes(public).verify(
            raw[12:], message.replace(b"\n5\n", b"\n6\n")
        )


class FakeCheckpoints:
    """The HTTP contract of the checkpoint endpoints (GET /checkpoint, GET
    /proof/consistency?old=N, POST /cosignature), answered in the test from a ledger's export
    with ledger.trust.notes and ledger.trust.merkle: the server side the phones talk to,
    until it lands in ledger/web. ``lines`` is the log the server holds now (a GM may
    rewrite it); each cosignature posted is verified here and kept."""

    def __init__(self, lines: list[str], signer: Signer) -> None:
        self.lines = lines
        self.signer = signer
        self.cosignatures: list[dict[str, Any]] = []
        self.notes: dict[int, str] = {}

    def leaves(self) -> list[bytes]:
        import json

        return [merkle.leaf_hash(bytes.fromhex(json.loads(x)["hash"])) for x in self.lines]

    def checkpoint(self) -> dict[str, Any]:
        leaves = self.leaves()
        top = merkle.root(leaves)
        note = sign(Checkpoint(self.signer.name, len(leaves), top).text(), self.signer)
        self.notes[len(leaves)] = note
        return {"note": note, "vkey": self.signer.verifier.key(), "size": len(leaves),
                "root": base64.b64encode(top).decode()}  # fmt: skip

    def handle(self, route: Any) -> None:
        import json
        from urllib.parse import parse_qs, urlsplit

        url = urlsplit(route.request.url)
        if url.path == "/checkpoint":
            route.fulfill(
                status=200, content_type="application/json", body=json.dumps(self.checkpoint())
            )
        elif url.path == "/proof/consistency":
            old = int(parse_qs(url.query)["old"][0])
            leaves = self.leaves()
            proof = merkle.consistency_proof(old, len(leaves), leaves) if old < len(leaves) else []
            body = {"old": old, "new": len(leaves), "proof": b64s(proof)}
            route.fulfill(status=200, content_type="application/json", body=json.dumps(body))
        elif url.path == "/cosignature":
            self.cosignatures.append(json.loads(route.request.post_data or "{}"))
            route.fulfill(status=204, body="")
        else:
            route.continue_()


def verify_cosignature(posted: dict[str, Any], note: str) -> None:
    """A posted cosignature checked as C2SP tlog-cosignature/v1 with ``cryptography``."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    assert set(posted) == {"size", "vkey", "signature"}  # the server forbids other fields
    name, key_id_hex, key64 = posted["vkey"].split("+", 2)
    key = base64.b64decode(key64)
    assert key[0] == 4 and len(key) == 33
    assert hashlib.sha256(name.encode() + b"\n" + key).digest()[:4].hex() == key_id_hex
    dash, signer, b64 = posted["signature"].split(" ")
    assert dash == "—" and signer == name
    raw = base64.b64decode(b64)
    assert raw[:4].hex() == key_id_hex
    stamp = struct.unpack(">Q", raw[4:12])[0]
    body = note[: note.rindex("\n\n") + 1]
    Ed25519PublicKey.from_public_bytes(key[1:]).verify(
        raw[12:], f"cosignature/v1\ntime {stamp}\n".encode() + body.encode()
    )


def test_a_phone_witnesses_the_checkpoints_and_catches_a_rewritten_event(
    phone_browser, tmp_path, monkeypatch
):
    """The issue's end-to-end scene, with the checkpoint endpoints answered by the test (see
    FakeCheckpoints): the phone pins the key and cosigns; the GM plays on and the phone
    checks the consistency proof and cosigns again; the GM rewrites one event (the chain
    recomputed, so the log alone still verifies) and serves it again; the phone shows the
    red banner and offers both notes, and the notes prove the rewrite."""
    import json

    from ledger.web.common import environment

    from .test_web_browser import rechain, signed_in

    table = d20_table(str(tmp_path / "ledger.db"))
    token = table.link("Dana")
    fake = FakeCheckpoints(
        table.ok("export").splitlines(), Signer.generate("campaign-ledger/vault")
    )
    with live_server(table.db) as base:
        monkeypatch.setitem(environment().globals, "witness", lambda campaign: True)
        for path in ("**/checkpoint", "**/proof/consistency*", "**/cosignature"):
            phone_browser.route(path, fake.handle)
        phone, errors = signed_in(phone_browser, base, token)
        phone.wait_for_selector("#witness-status[data-state='pinned']", timeout=PATIENCE)
        first = len(fake.lines)
        assert f"the log at {first} events is kept and cosigned" in phone.inner_text(
            "#witness-status"
        )
        assert len(fake.cosignatures) == 1 and fake.cosignatures[0]["size"] == first
        verify_cosignature(fake.cosignatures[0], fake.notes[first])

        table.ok("roll", "bram", "Brawl", "--time", "--dice", "17")
        table.ok("note", "The vault door groans open.")
        fake.lines = table.ok("export").splitlines()
        phone.goto(f"{base}/log")
        phone.wait_for_selector("#witness-status[data-state='consistent']", timeout=PATIENCE)
        second = len(fake.lines)
        assert (
            f"the log at {second} events continues the {first} it saw before, and cosigned it"
            in (phone.inner_text("#witness-status"))
        )
        verify_cosignature(fake.cosignatures[1], fake.notes[second])
        assert fake.cosignatures[1]["vkey"] == fake.cosignatures[0]["vkey"]  # one device key
        assert phone.locator("#history-banner").is_hidden()
        seen = fake.notes[second]

        # the GM rewrites event 5 (the physical roll: 12 becomes 20), the chain recomputed
        events = [json.loads(x) for x in fake.lines]
        assert events[4]["type"].endswith("roll") or "draws" in events[4]["data"]
        events[4]["data"]["draws"] = [[20, 20]]
        fake.lines = rechain([json.dumps(e) for e in events])
        forged = tmp_path / "forged.ndjson"
        forged.write_text("\n".join(fake.lines) + "\n")
        phone.goto(f"{base}/")
        phone.wait_for_selector("#history-banner[data-state='rewritten']", timeout=PATIENCE)
        banner = phone.inner_text("#history-banner")
        assert f"This campaign's history was rewritten since you saw it at size {second}" in banner
        assert (
            phone.eval_on_selector("#history-banner", "e => getComputedStyle(e).color")
            == "rgb(155, 44, 44)"
        )
        assert len(fake.cosignatures) == 2  # nothing cosigned
        notes = {}
        for link in phone.locator("#history-banner a[download]").all():
            with phone.expect_download() as caught:
                link.click()
            notes[caught.value.suggested_filename] = Path(caught.value.path()).read_text()
        old_note, new_note = notes[f"checkpoint-seen-at-{second}.txt"], notes["checkpoint-now.txt"]
        assert old_note == seen and new_note == fake.notes[second] != seen
        # the evidence: both notes carry the campaign's signature; the new log's first
        # `second` events do not give the root the old note signed
        from ledger.trust.notes import open_note

        old_cp = Checkpoint.parse(open_note(old_note, [fake.signer.verifier]).text)
        new_cp = Checkpoint.parse(open_note(new_note, [fake.signer.verifier]).text)
        assert new_cp.size == second and old_cp.root != new_cp.root
        # a visit after that still remembers what it saw: the banner stays
        phone.goto(f"{base}/log")
        phone.wait_for_selector("#history-banner[data-state='rewritten']", timeout=PATIENCE)

        # a server that changes the campaign's key is flagged too
        fake.signer = Signer.generate("campaign-ledger/vault")
        phone.goto(f"{base}/")
        phone.wait_for_selector("#history-banner[data-state='key-changed']", timeout=PATIENCE)
        assert "signing key changed" in phone.inner_text("#history-banner")
        assert not errors, errors


def test_a_cosignature_by_the_reference_key_matches_python_byte_for_byte(page):
    """Ed25519 is deterministic: the Go reference's PeterNeumann seed, imported into
    WebCrypto, cosigns a checkpoint exactly as ``cryptography`` signs the C2SP
    cosignature/v1 message with it."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    seed = Signer.parse(PETER_SKEY).seed
    leaves = [merkle.leaf_hash(bytes([i]) * 32) for i in range(3)]
    text = Checkpoint("example.com/behind-the-sofa", 3, merkle.root(leaves)).text()
    private = Ed25519PrivateKey.from_private_bytes(seed)
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    stamp = 1679315147
    signature = private.sign(f"cosignature/v1\ntime {stamp}\n".encode() + text.encode())
    key_id = hashlib.sha256(b"PeterNeumann\n\x04" + public).digest()[:4]
    expected = (
        "— PeterNeumann " + base64.b64encode(key_id + struct.pack(">Q", stamp) + signature).decode()
    )
    line = js(
        page,
        """
        const pkcs8 = W.concat(Uint8Array.from([0x30,0x2e,0x02,0x01,0x00,0x30,0x05,0x06,0x03,0x2b,0x65,0x70,
          0x04,0x22,0x04,0x20]), W.b64decode(arg.seed));
        const key = await crypto.subtle.importKey("pkcs8", pkcs8, {name: "Ed25519"}, false, ["sign"]);
        return await W.cosign(arg.text, "PeterNeumann", key, W.b64decode(arg.pub), arg.stamp);
        """,
        {
            "seed": base64.b64encode(seed).decode(),
            "text": text,
            "pub": base64.b64encode(public).decode(),
            "stamp": stamp,
        },
    )
    assert line == expected


VISIT = """
  // a phone's storage in memory, and a server answering from the scripted list in order
  const store = new Map(Object.entries(arg.kept || {}));
  const db = {get: async (s, k) => store.get(k), put: async (s, v) => { store.set(v.key, v); }};
  const answers = arg.answers.slice();
  const asked = [];
  const fetcher = async (url, init) => {
    asked.push(url);
    if (url === "/cosignature") { return new Response(null, {status: 204}); }
    const next = answers.shift();
    return new Response(next === null ? "{}" : JSON.stringify(next), {status: next === null ? 404 : 200});
  };
  const result = await W.visit({db, campaign: "vault", fetcher, now: () => 1779811200000});
  return {state: result.state, size: result.size, problem: result.problem || null, asked,
          kept: store.get("campaign:vault") || null};
"""


def checkpoint_of(signer: Signer, leaves: list[bytes], origin: str | None = None) -> dict[str, Any]:
    top = merkle.root(leaves)
    note = sign(Checkpoint(origin or signer.name, len(leaves), top).text(), signer)
    return {
        "note": note,
        "vkey": signer.verifier.key(),
        "size": len(leaves),
        "root": base64.b64encode(top).decode(),
    }


def test_what_a_visit_concludes_from_what_the_server_answers(page):
    rng = random.Random(9)
    signer = Signer.generate("campaign-ledger/vault")
    leaves = [merkle.leaf_hash(rng.randbytes(32)) for _ in range(40)]
    first = js(page, VISIT, {"answers": [checkpoint_of(signer, leaves[:10])]})
    assert first["state"] == "pinned" and first["kept"]["size"] == 10
    kept = {"campaign:vault": first["kept"]}

    def visit(*answers: Any) -> dict[str, Any]:
        return dict(js(page, VISIT, {"kept": kept, "answers": list(answers)}))

    def proof(old: int, new: int, of: list[bytes] = leaves) -> dict[str, Any]:
        return {"old": old, "new": new, "proof": b64s(merkle.consistency_proof(old, new, of))}

    assert visit(None)["state"] == "none"  # no checkpoint served: nothing concluded
    grown = visit(checkpoint_of(signer, leaves[:25]), proof(10, 25))
    assert grown["state"] == "consistent" and grown["kept"]["size"] == 25
    assert grown["asked"] == ["/checkpoint", "/proof/consistency?old=10&new=25", "/cosignature"]
    # a checkpoint made between the two requests: fetched again, not a rewrite
    raced = visit(
        checkpoint_of(signer, leaves[:25]),
        proof(10, 30),
        checkpoint_of(signer, leaves[:30]),
        proof(10, 30),
    )
    assert raced["state"] == "consistent" and raced["size"] == 30
    same = visit(checkpoint_of(signer, leaves[:10]))  # cosigned at the first visit already
    assert same["state"] == "consistent" and same["asked"] == ["/checkpoint"]
    shorter = visit(checkpoint_of(signer, leaves[:9]))
    assert shorter["state"] == "rewritten" and "shorter than the 10 you saw" in shorter["problem"]
    forged = list(leaves)
    forged[3] = merkle.leaf_hash(b"x" * 32)
    rewritten = visit(checkpoint_of(signer, forged[:20]), proof(10, 20, forged))
    assert rewritten["state"] == "rewritten" and "the old root of 10 leaves" in rewritten["problem"]
    assert rewritten["kept"]["size"] == 10  # the checkpoint it saw is kept, not the new one
    same_size = visit(checkpoint_of(signer, forged[:10]))
    assert (
        same_size["state"] == "rewritten"
        and "two different trees of 10 leaves" in same_size["problem"]
    )
    assert visit(
        checkpoint_of(signer, leaves[:20]), {"old": 10, "new": 20, "proof": ["not base64!"]}
    )["state"] == ("rewritten")
    assert visit(checkpoint_of(signer, leaves[:20]), None)["state"] == "rewritten"  # no proof given
    impostor = Signer.generate("campaign-ledger/vault")
    changed = visit(checkpoint_of(impostor, leaves[:20]))
    assert changed["state"] == "key-changed"
    lying = checkpoint_of(impostor, leaves[:20]) | {"vkey": signer.verifier.key()}
    assert visit(lying)["state"] == "bad-note"  # the pinned key's name, another key's signature
    elsewhere = Signer.generate("campaign-ledger/other")
    assert (
        js(
            page,
            VISIT,
            {"answers": [checkpoint_of(elsewhere, leaves[:5], origin="campaign-ledger/vault")]},
        )["state"]
        == "bad-note"
    )  # signed by a key whose name is not the log's origin


def test_a_players_page_turns_the_witness_on_only_with_a_signed_checkpoint(tmp_path, monkeypatch):
    """``main[data-witness="on"]`` only for a player, where the server serves /checkpoint
    and the campaign has a checkpoint (else the phone's GET would be a 404 in the console)."""
    from ledger.store.sqlite import Store
    from ledger.web import phone
    from ledger.web.common import environment

    from .webtools import client

    table = d20_table(str(tmp_path / "ledger.db"))
    with client(table, "Dana") as dana, client(table, "gm") as gm:
        monkeypatch.setitem(environment().globals, "witness", None)  # no /checkpoint route
        assert 'data-witness="on"' not in dana.get("/").text
        monkeypatch.setitem(environment().globals, "witness", phone.witnessed)
        monkeypatch.setattr(Store, "latest_checkpoint", lambda self, cid: None, raising=False)
        assert 'data-witness="on"' not in dana.get("/").text  # none signed yet
        monkeypatch.setattr(Store, "latest_checkpoint", lambda self, cid: {"size": 5})
        assert 'data-witness="on"' in dana.get("/").text
        assert 'data-witness="on"' in dana.get("/log").text
        assert 'data-witness="on"' not in gm.get("/").text
