"""Checkpoints in exports and in `verify`: the forger's moves first. A GM who rewrites
history after a player kept a checkpoint note is caught by `verify FILE --receipt NOTE_FILE`,
which names the size; so is a truncated log, a forged note and another campaign's note."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import msgspec
import pytest

from ledger.trust.notes import Checkpoint, Signer, sign


@pytest.fixture
def played(toy_campaign, tmp_path):
    """The toy campaign with a checkpoint of 3 events, a session (its end: a checkpoint of 7
    events, then Ann's chronicle entry), the note of 7 the player kept, and two events after
    it."""
    invoke = toy_campaign
    for args in (["checkpoint"], ["session", "start"], ["roll", "ann", "brawl"]):
        assert invoke(*args).exit_code == 0, args
    ended = json.loads(invoke("session", "end", "--json").output)  # then Ann's chronicle entry
    assert ended["checkpoint"].split("\n")[1] == "7"
    (tmp_path / "note.txt").write_text(ended["checkpoint"])
    for args in (["note", "after the checkpoint"], ["note", "and another"]):
        assert invoke(*args).exit_code == 0
    return invoke


def _export(invoke, tmp_path, *, who="player"):
    out = tmp_path / f"{who}.ndjson"
    assert invoke("--as", who, "export", "-o", str(out)).exit_code == 0
    return out


def _rechain(lines):
    """The lines with every hash recomputed (what a GM rewriting the log would do)."""
    prev, out = "0" * 64, []
    for line in lines:
        event = msgspec.json.decode(line)
        event["prev_hash"] = prev
        body = {k: v for k, v in event.items() if k != "hash"}
        event["hash"] = hashlib.sha256(
            bytes.fromhex(prev) + msgspec.json.encode(body, order="sorted")
        ).hexdigest()
        prev = event["hash"]
        out.append(msgspec.json.encode(event))
    return out


def _events(path):
    return [x for x in path.read_bytes().splitlines() if x.strip() and not x.startswith(b'{"kind"')]


def _rewritten(path, tmp_path, seq, old, new, *, keep_trust=False):
    lines = _events(path)
    lines[seq - 1] = lines[seq - 1].replace(old.encode(), new.encode())
    trust = [x for x in path.read_bytes().splitlines() if x.startswith(b'{"kind"')]
    out = tmp_path / "rewritten.ndjson"
    out.write_bytes(b"\n".join(_rechain(lines) + (trust if keep_trust else [])) + b"\n")
    return out


def test_exports_carry_every_checkpoint_and_verify_them(played, tmp_path):
    for who in ("player", "gm"):
        path = _export(played, tmp_path, who=who)
        kinds = [json.loads(x).get("kind") for x in path.read_bytes().splitlines()]
        assert kinds[-2:] == ["checkpoint", "checkpoint"] and kinds.count(None) == 10
        out = json.loads(played("verify", str(path), "--json").output)
        assert out["ok"] and [c["size"] for c in out["checkpoints"]] == [3, 7]
        result = played("verify", str(path), "--receipt", str(tmp_path / "note.txt"))
        assert result.exit_code == 0 and "note.txt holds" in result.output
    assert "2 signed checkpoints hold (sizes 3, 7)" in played("verify").output


def test_a_rewrite_after_the_note_is_caught_naming_the_size(played, tmp_path):
    # the forger rewrites Ann's name at seq 2 and every hash after it
    path = _rewritten(_export(played, tmp_path, who="gm"), tmp_path, 2, "Ann Vance", "Ann Vanse")
    assert played("verify", str(path)).exit_code == 0  # the chain alone cannot tell
    result = played("verify", str(path), "--receipt", str(tmp_path / "note.txt"))
    assert result.exit_code == 1
    assert "rewritten after the checkpoint of size 7" in result.output
    out = json.loads(
        played("verify", str(path), "--receipt", str(tmp_path / "note.txt"), "--json").output
    )
    assert out["ok"] is False and out["bad_seq"] == 7
    # keeping the old checkpoint lines in the file gives it away without any note
    kept = _rewritten(
        _export(played, tmp_path, who="gm"), tmp_path, 2, "Ann Vance", "Ann Vanse", keep_trust=True
    )
    result = played("verify", str(kept))
    assert result.exit_code == 1 and "checkpoint of size 3" in result.output


def test_a_rewrite_after_the_note_is_refused_on_import(played, tmp_path):
    kept = _rewritten(
        _export(played, tmp_path, who="gm"),
        tmp_path,
        9,
        "after the checkpoint",
        "nothing",
        keep_trust=True,
    )
    assert played("verify", str(kept)).exit_code == 0  # a rewrite after size 7 breaks no checkpoint
    forged = _rewritten(
        _export(played, tmp_path, who="gm"), tmp_path, 2, "Ann Vance", "Ann Vanse", keep_trust=True
    )
    result = played("import", str(forged), db=str(tmp_path / "copy.db"))
    assert result.exit_code == 1 and "checkpoints do not hold" in result.output
    assert not (tmp_path / "copy.db").exists()


def test_a_truncated_log_is_caught(played, tmp_path):
    path = _export(played, tmp_path)
    short = tmp_path / "short.ndjson"
    short.write_bytes(b"\n".join(_events(path)[:5]) + b"\n")
    result = played("verify", str(short), "--receipt", str(tmp_path / "note.txt"))
    assert result.exit_code == 1
    assert "covers 7 events but the log holds only 5: the log was truncated" in result.output


def test_a_forged_note_and_another_campaigns_note_are_refused(played, tmp_path):
    path = _export(played, tmp_path)
    text = (tmp_path / "note.txt").read_text()
    body = text[: text.index("\n\n") + 1]
    forged = tmp_path / "forged.txt"
    forged.write_text(sign(body, Signer("campaign-ledger/toybox", b"\x05" * 32)))
    result = played("verify", str(path), "--receipt", str(forged))
    assert result.exit_code == 1 and "not signed by this campaign's key" in result.output
    other = tmp_path / "other.txt"
    cp = Checkpoint.parse(body)
    other.write_text(sign(Checkpoint("campaign-ledger/other", cp.size, cp.root).text(),
                          Signer("campaign-ledger/other", b"\x06" * 32)))  # fmt: skip
    result = played("verify", str(path), "--receipt", str(other))
    assert result.exit_code == 1 and "not signed by this campaign's key" in result.output
    junk = tmp_path / "junk.txt"
    junk.write_bytes(b"\xff\xfe not a note")
    result = played("verify", str(path), "--receipt", str(junk))
    assert result.exit_code == 2 and "not a checkpoint note" in result.output
    assert played("verify", str(path), "--receipt", "3:" + "0" * 16).exit_code == 1  # old form


def test_an_old_export_without_checkpoints_verifies_and_imports(played, tmp_path):
    path = _export(played, tmp_path, who="gm")
    old = tmp_path / "old.ndjson"
    old.write_bytes(b"\n".join(_events(path)) + b"\n")
    assert played("verify", str(old)).exit_code == 0
    result = played("import", str(old), db=str(tmp_path / "copy.db"))
    assert result.exit_code == 0, result.output
    (tmp_path / "again").mkdir()
    copy = str(tmp_path / "copy.db")
    again = _export(lambda *a: played(*a, db=copy), tmp_path / "again", who="gm")
    assert _events(again) == _events(old)  # every event imported, byte for byte


def test_a_tampered_stored_checkpoint_fails_verify(played, db_path):
    conn = sqlite3.connect(db_path)
    conn.execute(
        "update checkpoints set note = replace(note, char(10) || '7' || char(10), char(10) || '6' || char(10)) where size = 7"
    )
    conn.commit()
    conn.close()
    result = played("verify")
    assert result.exit_code == 1 and "checkpoint of size 7" in result.output


def test_a_huge_receipt_file_is_refused(played, tmp_path):
    big = tmp_path / "big.txt"
    big.write_text("x\n\n" * 20_000)
    result = played("verify", "--receipt", str(big))
    assert result.exit_code == 2 and "not a checkpoint note" in result.output


def test_a_file_that_fails_as_a_whole_is_named_as_the_file(played, tmp_path):
    """A failure at no one seq (a kept note, and a file with no events to hold it) is "in
    the file": an export is no database file."""
    empty = tmp_path / "empty.ndjson"
    empty.write_text("")
    result = played("verify", str(empty), "--receipt", str(tmp_path / "note.txt"))
    assert result.exit_code == 1
    assert "verification failed in the file: the file holds no events" in result.output
    assert "database file" not in result.output
