"""verify runs SQLite's integrity check (Store.integrity).

Seen: one byte in the ``events_type`` index page makes a character vanish from `character
list` or un-retracts a correction, and `verify` passed with the same receipt, while
`pragma integrity_check` reported it.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from ledger.history.verify import verify_store
from ledger.store.sqlite import Store


@pytest.fixture
def ledger(toy_campaign, db_path):
    invoke = toy_campaign
    invoke("session", "start")
    for _ in range(3):
        invoke("roll", "ann", "brawl")
        invoke("record", "hurt", "--character", "bob", "--amount", "1")
    invoke("session", "end")
    conn = sqlite3.connect(db_path)
    conn.execute("pragma wal_checkpoint(truncate)")
    conn.close()
    return invoke


def flip_index_byte(src: str, dst: Path, index: str = "events_type") -> None:
    """Copy the ledger file and change one byte of a key inside ``index``'s page (found
    through ``dbstat``): the rows stay whole, the index no longer matches them."""
    conn = sqlite3.connect(src)
    pages = conn.execute(
        "select pageno from dbstat where name = ? and pagetype = 'leaf'", (index,)
    ).fetchall()
    size = conn.execute("pragma page_size").fetchone()[0]
    conn.close()
    assert pages, "the index has no leaf page"
    shutil.copy(src, dst)  # with its mode, as `cp` copies a ledger
    raw = bytearray(dst.read_bytes())
    start = (pages[0][0] - 1) * size
    page = raw[start : start + size]
    at = page.rfind(b"toy.hurt")  # a type name inside an index entry
    assert at > 0
    raw[start + at + 4] = ord("X")  # "toy.Xurt": that entry now points nowhere sensible
    dst.write_bytes(bytes(raw))


def test_a_sound_file_passes_the_integrity_check(ledger, db_path):
    assert Store(db_path).integrity() == ["ok"]
    assert verify_store(Store(db_path), "toybox").ok


def test_a_flipped_byte_in_an_index_page_fails_verify(ledger, db_path, tmp_path):
    broken = tmp_path / "broken.db"
    flip_index_byte(db_path, broken)
    store = Store(str(broken))
    damage = store.integrity()
    assert damage != ["ok"] and any("events_type" in line for line in damage), damage
    report = verify_store(store, "toybox")
    assert not report.ok and report.bad_seq == 0
    assert "the database file is damaged" in (report.problem or "")
    store.conn.close()
    result = ledger("verify", db=str(broken))
    assert result.exit_code == 1
    assert "verification failed in the database file: the database file is damaged" in (
        result.output
    )
    out = json.loads(ledger("verify", "--json", db=str(broken)).output)
    assert out["ok"] is False and out["bad_seq"] == 0


def test_any_line_but_ok_fails_verify(ledger, db_path, monkeypatch):
    monkeypatch.setattr(
        Store, "integrity", lambda self: ["row 7 missing from index events_stream", "x"]
    )
    report = verify_store(Store(db_path), "toybox")
    assert report.bad_seq == 0 and "'row 7 missing from index events_stream' (and 1 more)" in (
        report.problem or ""
    )
