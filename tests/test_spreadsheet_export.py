"""`campaign export --format sqlite FILE`: a players' copy safe to open in Datasette.

The ledger file holds the seeds in its `secrets` table, which Datasette shows in the clear;
the copy holds the players' view only. The test scans every cell of every table.
"""

from __future__ import annotations

import json
import sqlite3

import pytest


@pytest.fixture
def table(toy_campaign, db_path):
    """Session 1 open: Ann's roll, Bob's blind roll, a GM-only secret (77), a note."""
    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0
    for args in (("ann", "brawl"), ("bob", "sneak", "--blind")):
        assert invoke("roll", *args).exit_code == 0
    assert invoke("record", "secret-noted", "--character", "bob", "--value", "4242").exit_code == 0
    assert invoke("note", "The vault door is ajar").exit_code == 0
    return invoke


def cells(path: str) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        out = []
        tables = [name for (name,) in conn.execute("select name from sqlite_master where type = 'table'")]
        for name in tables:
            for row in conn.execute(f"select * from [{name}]"):
                out.extend(str(v) for v in row if v is not None)
        return out
    finally:
        conn.close()


def gm_facts(db_path: str) -> list[str]:
    """What must never reach the copy: the seeds and keys of `secrets`, every GM-only
    event's payload, type and stream-specific words."""
    conn = sqlite3.connect(db_path)
    try:
        secrets = [v for (v,) in conn.execute("select seed from secrets")]
        gm = [(t, d) for t, d in conn.execute("select type, data from events where visibility = 'gm'")]
    finally:
        conn.close()
    facts = [s.hex() if isinstance(s, bytes) else str(s) for s in secrets]
    facts += [data for _, data in gm]
    facts += [type_ for type_, _ in gm if type_ != "toy.rolled"]  # Ann's roll is public
    return facts


def test_players_copy_holds_no_secret_and_reads_as_the_log(table, db_path, tmp_path):
    out = tmp_path / "casebook-players.db"
    result = table("export", "--format", "sqlite", str(out))
    assert result.exit_code == 0, result.output
    assert "2 GM-only as stubs" in result.output
    facts = gm_facts(db_path)
    assert len(facts) >= 4  # the seed, the blind roll and the secret are there to leak
    everything = "\n".join(cells(str(out)))
    for fact in facts:
        assert fact not in everything
    assert "4242" not in everything and "secret_noted" not in everything
    conn = sqlite3.connect(out)
    try:
        tables = {n for (n,) in conn.execute("select name from sqlite_master where type = 'table'")}
        # events_fts: the full-text index of `text` (its shadow tables hold only the words)
        assert {t for t in tables if not t.startswith("events_fts")} == {
            "campaign", "characters", "events"
        }  # fmt: skip
        conn.row_factory = sqlite3.Row
        rows = [dict(r) for r in conn.execute("select * from events order by seq")]
    finally:
        conn.close()
    stubs = [r for r in rows if r["gm_only"]]
    assert [r["text"] for r in stubs] == ["GM-only entry", "GM-only entry"]
    assert all(r["type"] is None and r["data"] is None and r["stream"] is None for r in stubs)
    note = next(r for r in rows if r["type"] == "note.added")
    assert note["text"] == "Note: The vault door is ajar"
    log = table("log", "--nl").output.splitlines()
    assert [json.loads(x)["text"] for x in log] == [r["text"] for r in rows]  # the same words
    meta = json.loads((tmp_path / "casebook-players.db.metadata.json").read_text())
    columns = meta["databases"]["casebook-players"]["tables"]["events"]["columns"]
    assert "text" in columns and "gm_only" in columns


def test_no_gm_fact_in_any_byte_of_the_file(table, db_path, tmp_path):
    """Not only no cell: no byte of the file (free pages, the full-text index's words and
    its shadow tables) holds a seed, a GM-only payload, or the GM-only canary."""
    out = tmp_path / "players.db"
    assert table("export", "--format", "sqlite", str(out)).exit_code == 0
    raw = out.read_bytes()
    for fact in [*gm_facts(db_path), "4242", "secret_noted", "secret-noted"]:
        assert fact.encode() not in raw, fact
    assert b"vault" in raw  # the scan does see the file's words


def test_datasette_finds_the_full_text_index_and_search_finds_a_log_line(table, tmp_path):
    import sqlite_utils

    out = tmp_path / "players.db"
    assert table("export", "--format", "sqlite", str(out)).exit_code == 0
    conn = sqlite3.connect(out)
    try:
        # Datasette's detect_fts: a virtual FTS table whose content= is the table
        found_fts = conn.execute(
            "select name from sqlite_master where rootpage = 0 and ("
            """sql like '%VIRTUAL TABLE%USING FTS%content="events"%' """
            "or sql like '%VIRTUAL TABLE%USING FTS%content=[events]%' "
            "or (tbl_name = 'events' and sql like '%VIRTUAL TABLE%USING FTS%'))"
        ).fetchall()
        assert found_fts == [("events_fts",)]
        hits = conn.execute(
            "select events.seq, events.text from events join events_fts "
            "on events.rowid = events_fts.rowid where events_fts match ?", ("ajar",)
        ).fetchall()
        assert [t for _, t in hits] == ["Note: The vault door is ajar"]
        documented = (  # docs/imports.md's query
            "select seq, text from events where seq in (select rowid from events_fts where "
            "events_fts match 'vault')"
        )
        assert [t for _, t in conn.execute(documented)] == ["Note: The vault door is ajar"]
        assert conn.execute(
            "select count(*) from events_fts where events_fts match ?", ("4242",)
        ).fetchone() == (0,)  # a GM-only value is not a word of the index
        columns = [r[1] for r in conn.execute("pragma table_info(events)")]
    finally:
        conn.close()
    assert columns[-2:] == ["prev_hash", "hash"]  # the wide hashes last
    assert columns.index("text") < columns.index("data") < columns.index("prev_hash")
    found = list(sqlite_utils.Database(out)["events"].search("vault"))
    assert [r["text"] for r in found] == ["Note: The vault door is ajar"]


def test_gm_view_and_missing_file_are_usage_errors(table, tmp_path):
    assert table("export", "--format", "sqlite").exit_code == 2
    gm = table("--as", "gm", "export", "--format", "sqlite", str(tmp_path / "x.db"))
    assert gm.exit_code == 2 and "players' copy only" in gm.output
    assert not (tmp_path / "x.db").exists()


def test_log_nl_has_the_text_field(table):
    lines = [json.loads(x) for x in table("log", "--nl").output.splitlines()]
    assert lines[-1]["text"] == "Note: The vault door is ajar"
    assert [x["text"] for x in lines if x.get("redacted")] == ["GM-only entry", "GM-only entry"]
    gm = [json.loads(x) for x in table("--as", "gm", "log", "--nl").output.splitlines()]
    assert all(isinstance(x["text"], str) and x["text"] for x in gm)


def test_never_over_the_ledger_or_another_sqlite_file(table, db_path, tmp_path):
    refused = table("export", "--format", "sqlite", db_path)
    assert refused.exit_code == 2 and "is the open ledger" in refused.output
    out = tmp_path / "copy.db"
    assert table("export", "--format", "sqlite", str(out)).exit_code == 0
    again = table("export", "--format", "sqlite", str(out))
    assert again.exit_code == 2 and "FILE" in again.output and "write to another file" in again.output
