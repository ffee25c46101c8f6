"""The phones' witness endpoints: GET /checkpoint, /proof/consistency, /proof/inclusion
and POST /cosignature; attacks first (huge N, a cosignature over another checkpoint, a
replayed one, another origin, a flood)."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest

from ledger.campaign.checkpoints import open_checkpoint
from ledger.store.opening import open_store
from ledger.trust import merkle
from ledger.web.app import Server
from ledger.web.sessions import SessionPolicy
from tests.webtools import Table, client, d20_table


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "vault.db"))


def _leaves(db):
    store = open_store(db)
    try:
        return [merkle.leaf_hash(bytes.fromhex(h)) for (h,) in store.rows("vault", columns=["hash"])]
    finally:
        store.close()


def _post(c, body, **headers):
    return c.post("/cosignature", content=json.dumps(body) if not isinstance(body, bytes) else body,
                  headers={"origin": "http://testserver", "content-type": "application/json", **headers})  # fmt: skip


def test_no_checkpoint_yet_is_404_json(table):
    with client(table, "Dana", server=Server(table.db)) as c:
        r = c.get("/checkpoint")
        assert r.status_code == 404 and "no checkpoint" in r.json()["error"]
        assert c.get("/proof/consistency?old=1").status_code == 404


def test_checkpoint_and_proofs_verify_with_the_spec_algorithms(table):
    table.ok("roll", "bram", "Brawl", "--time", "--blind")  # a GM-only roll in the tree
    table.ok("session", "end")
    with client(table, "Dana") as c:
        first = c.get("/checkpoint").json()
        assert set(first) == {"note", "vkey", "size", "root", "sessions", "since"}
        created = json.loads(table.ok("export").splitlines()[0])
        assert first["sessions"] == 1 and first["since"] == created["recorded_at"][:10]
        cp = open_checkpoint(first["note"], first["vkey"])
        assert cp.size == first["size"] == 8 and base64.b64encode(cp.root).decode() == first["root"]
        # the checkpoint covers the log up to session end; the chronicle entries follow it
        assert cp.root == merkle.root(_leaves(table.db)[: cp.size])
    table.ok("note", "the vault opens")
    table.ok("checkpoint")
    with client(table, "Dana") as c:
        new = c.get("/checkpoint").json()
        n = new["size"]
        assert n == len(_leaves(table.db)) > 8  # the chronicle entries and the note
        got = c.get("/proof/consistency?old=8").json()
        assert got["old"] == 8 and got["new"] == n
        proof = [base64.b64decode(h) for h in got["proof"]]
        merkle.verify_consistency(8, n, cp.root, base64.b64decode(new["root"]), proof)
        inc = c.get("/proof/inclusion?seq=6").json()
        assert inc["index"] == 5 and inc["size"] == n
        leaves = _leaves(table.db)
        merkle.verify_inclusion(5, n, leaves[5], [base64.b64decode(h) for h in inc["proof"]],
                                base64.b64decode(new["root"]))  # fmt: skip
        for bad in ("0", "-1", str(n + 1), "x", "1e3", "99999999999999999999999999", "", "%2B5"):
            r = c.get(f"/proof/consistency?old={bad}")
            assert r.status_code == 400 and f"from 1 to {n}" in r.json()["error"], bad
            r = c.get(f"/proof/inclusion?seq={bad}")
            assert r.status_code == 400, bad


def test_a_gm_only_entry_leaks_nothing_through_the_witness(table):
    table.ok("note", "the key is a forgery", "--blind")
    table.ok("checkpoint")
    with client(table, "Dana") as c:
        bodies = [c.get(p).text for p in ("/checkpoint", "/proof/inclusion?seq=3",
                                          "/proof/consistency?old=2", "/proof/inclusion?seq=6")]  # fmt: skip
    for body in bodies:
        assert "forgery" not in body and "note.added" not in body


def test_without_a_session_nothing_is_served(table):
    table.ok("checkpoint")
    server = Server(table.db)
    with client(table, server=server) as c:
        for path in ("/checkpoint", "/proof/consistency?old=1", "/proof/inclusion?seq=1"):
            r = c.get(path)
            assert r.status_code == 403 and "error" in r.json()
        assert _post(c, {"size": 5, "vkey": "x", "signature": "y"}).status_code == 403


def test_bad_cosignature_requests_are_refused_and_store_nothing(table):
    table.ok("checkpoint")
    with client(table, "Dana") as c:
        size = c.get("/checkpoint").json()["size"]
        assert _post(c, {"size": size}, **{"content-type": "text/plain"}).status_code == 415
        assert _post(c, {"size": size, "vkey": "v", "signature": "s"},
                     origin="https://evil.example").status_code == 403  # fmt: skip
        for body in (b"not json", b"[]", b'{"size": "5", "vkey": "a", "signature": "b"}',
                     b'{"size": 0, "vkey": "a", "signature": "b"}',
                     b'{"size": 99999999999999999999999, "vkey": "a", "signature": "b"}',
                     b'{"size": 5, "vkey": "a", "signature": "b", "extra": 1}',
                     json.dumps({"size": size, "vkey": "a" * 5000, "signature": "b"}).encode()):  # fmt: skip
            assert _post(c, body).status_code == 400, body
        r = _post(c, {"size": size + 1, "vkey": "a", "signature": "b"})
        assert r.status_code == 400 and "no checkpoint of size" in r.json()["error"]
    store = open_store(table.db)
    assert store.cosignatures("vault") == []
    store.close()


def test_a_flood_of_cosignatures_is_rate_limited(table):
    table.ok("checkpoint")
    server = Server(table.db, policy=SessionPolicy(burst=3, refill_seconds=60))
    with client(table, "Dana", server=server) as c:
        codes = [_post(c, {"size": 1, "vkey": "a", "signature": "b"}).status_code for _ in range(5)]
    assert codes[:3] == [400, 400, 400] and codes[3:] == [429, 429]


# --- cosignatures that verify (C2SP tlog-cosignature/v1, ledger.trust.cosignature) --------


def _cosign(name: str, seed: bytes, note: str, timestamp: int) -> tuple[str, str]:
    """``(verifier key, signature line)`` of a C2SP tlog-cosignature/v1 by an Ed25519 key,
    written from the spec (key ID = SHA-256(name ‖ 0x0A ‖ 0x04 ‖ key)[:4]; signature =
    8-byte big-endian time ‖ Ed25519 over "cosignature/v1\\ntime T\\n" ‖ checkpoint body)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    key = Ed25519PrivateKey.from_private_bytes(seed)
    public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    key_id = hashlib.sha256(name.encode() + b"\n\x04" + public).digest()[:4]
    body = note[: note.index("\n\n") + 1]
    message = f"cosignature/v1\ntime {timestamp}\n".encode() + body.encode()
    sig = key.sign(message)
    encoded = base64.b64encode(bytes([4]) + public).decode()
    vkey = f"{name}+{key_id.hex()}+{encoded}"
    line = f"— {name} {base64.b64encode(key_id + timestamp.to_bytes(8, 'big') + sig).decode()}"
    return vkey, line


def test_a_phones_cosignature_is_kept_once_and_exported(table):
    pytest.importorskip("ledger.trust.cosignature")
    table.ok("checkpoint")
    table.ok("note", "later")
    table.ok("checkpoint")
    with client(table, "Dana") as c:
        note = c.get("/checkpoint").json()
        vkey, line = _cosign("dana-phone", b"\x11" * 32, note["note"], 1_772_000_000)
        assert _post(c, {"size": note["size"], "vkey": vkey, "signature": line}).status_code == 204
        # a replay is accepted and kept once; over another checkpoint it is refused
        assert _post(c, {"size": note["size"], "vkey": vkey, "signature": line}).status_code == 204
        r = _post(c, {"size": note["size"] - 1, "vkey": vkey, "signature": line})
        assert r.status_code == 400 and "does not verify" in r.json()["error"]
        other_vkey, _ = _cosign("mallory", b"\x12" * 32, note["note"], 1_772_000_000)
        r = _post(c, {"size": note["size"], "vkey": other_vkey, "signature": line})
        assert r.status_code == 400
    store = open_store(table.db)
    (kept,) = store.cosignatures("vault")
    store.close()
    assert kept["cosigner"] == "dana-phone" and kept["size"] == note["size"]
    export = table.ok("export")
    assert '"kind":"cosignature"' in export
    path = Table(table.db)
    out = json.loads(path.ok("verify", "--json"))
    assert out["checkpoints"][-1]["cosigners"] == ["dana-phone"]


def test_a_forged_or_moved_cosignature_in_an_export_fails_verify(table, tmp_path):
    pytest.importorskip("ledger.trust.cosignature")
    table.ok("checkpoint")
    table.ok("note", "later")
    table.ok("checkpoint")
    with client(table, "Dana") as c:
        note = c.get("/checkpoint").json()
        vkey, line = _cosign("dana-phone", b"\x11" * 32, note["note"], 1_772_000_000)
        assert _post(c, {"size": note["size"], "vkey": vkey, "signature": line}).status_code == 204
    export = table.ok("export")
    good = tmp_path / "good.ndjson"
    good.write_text(export)
    assert "cosigned by dana-phone" in table.ok("verify", str(good))
    lines = export.splitlines()
    (i,) = [n for n, x in enumerate(lines) if '"kind":"cosignature"' in x]
    co = json.loads(lines[i])
    for change, words in (
        ({"size": co["size"] - 1}, "invalid cosignature"),  # moved onto the older checkpoint
        ({"signature": co["signature"][:-8] + "AAAAAAA="}, "cosignature"),  # forged bytes
        ({"size": 999}, "not kept"),  # a checkpoint the file does not carry
    ):
        bad = tmp_path / "bad.ndjson"
        bad.write_text("\n".join([*lines[:i], json.dumps({**co, **change}), *lines[i + 1:]]) + "\n")
        result = table("verify", str(bad))
        assert result.exit_code == 1 and words in result.output, (change, result.output)


def test_a_backup_carries_the_cosignatures_to_the_restored_ledger(table, tmp_path):
    pytest.importorskip("ledger.trust.cosignature")
    table.ok("checkpoint")
    with client(table, "Dana") as c:
        note = c.get("/checkpoint").json()
        vkey, line = _cosign("dana-phone", b"\x11" * 32, note["note"], 1_772_000_000)
        assert _post(c, {"size": note["size"], "vkey": vkey, "signature": line}).status_code == 204
    backup = tmp_path / "vault.backup"
    table.ok("backup", str(backup))
    restored = Table(str(tmp_path / "restored.db"))
    restored.ok("import", str(backup))
    store = open_store(restored.db)
    try:
        assert [c["signature"] for c in store.cosignatures("vault")] == [line]
        assert [c["size"] for c in store.checkpoints("vault")] == [note["size"]]
    finally:
        store.close()
    assert "cosigned by dana-phone" in restored.ok("verify")
