"""``campaign copy SRC DST`` between backends: every hash byte-identical, ``verify`` passing
on both sides, refused with nothing written when it cannot be whole."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner

from ledger.cli import cli
from ledger.store.opening import open_store

ROOT = Path(__file__).resolve().parents[1]
SHEETS = ROOT / "campaigns" / "grand-casebook" / "characters"


def run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.output


def build(db: str, name: str = "casebook") -> None:
    """A campaign with an ended session, an open one (its seed a secret) and engine rolls."""
    run("--db", db, "new", name, "--system", "wyrd-engine")
    run("--db", db, "--campaign", name, "character", "add", "--sheet", str(SHEETS / "julian.toml"))
    run("--db", db, "--campaign", name, "session", "start")
    run("--db", db, "--campaign", name, "roll", "julian", "notice", "--dr", "fair")
    run("--db", db, "--campaign", name, "note", "é \u2028 'quoted' \"twice\"", "--blind")
    run("--db", db, "--campaign", name, "session", "end")
    run("--db", db, "--campaign", name, "session", "start")
    run("--db", db, "--campaign", name, "roll", "julian", "investigate", "--dr", "good")


def everything(db: str, campaign: str) -> tuple[list[tuple], list[dict]]:
    store = open_store(db)
    try:
        rows = [msgspec.structs.astuple(e) for e in store.rows(campaign)]
        secrets = sorted(store.secret_rows(campaign), key=lambda r: (r["kind"], r["session"]))
        return rows, secrets
    finally:
        store.close()


def campaign_ids(db: str) -> list[str]:
    store = open_store(db)
    try:
        return store.campaign_ids()
    finally:
        store.close()


def check_same(src: str, dst: str, campaign: str = "casebook") -> None:
    assert everything(src, campaign) == everything(dst, campaign)
    for db in (src, dst):
        out = run("--db", db, "--campaign", campaign, "--as", "gm", "verify")
        assert out.startswith("OK: "), out


def test_sqlite_to_postgres_and_back(tmp_path, postgres_url):
    src = str(tmp_path / "src.db")
    build(src)
    out = run("copy", src, postgres_url)
    # session 1 (its end and Julian's chronicle entry), session 2 open: 11 events
    assert "Copied casebook (11 events and 1 unrevealed seed)" in out and "verified there" in out
    check_same(src, postgres_url)
    back = str(tmp_path / "back.db")
    data = json.loads(run("copy", postgres_url, back, "--json"))
    assert [d["campaign"] for d in data] == ["casebook"] and data[0]["secrets"] == 1
    check_same(postgres_url, back)
    check_same(src, back)
    run("--db", back, "session", "end")  # the copied open session's seed still reveals
    assert run("--db", back, "verify").startswith("OK: ")


def test_several_campaigns_and_only_one(tmp_path, postgres_url):
    src = str(tmp_path / "src.db")
    build(src, "one")
    build(src, "two")
    out = run("--campaign", "two", "copy", src, postgres_url)
    assert "Copied two" in out and "one" not in out
    run("copy", src, postgres_url, code=1)  # "two" is there already: nothing written
    assert campaign_ids(postgres_url) == ["two"]
    run("--campaign", "one", "copy", src, postgres_url)
    check_same(src, postgres_url, "one")
    check_same(src, postgres_url, "two")


def test_sqlite_to_sqlite(tmp_path):
    src, dst = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    build(src)
    run("copy", src, dst)
    check_same(src, dst)


def test_refusals_write_nothing(tmp_path):
    src, dst = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    build(src)
    result = CliRunner().invoke(cli, ["copy", str(tmp_path / "none.db"), dst])
    assert result.exit_code == 1 and "no ledger at" in result.output
    result = CliRunner().invoke(cli, ["copy", src, src])
    assert result.exit_code == 2 and "same ledger" in result.output
    result = CliRunner().invoke(cli, ["--campaign", "nope", "copy", src, dst])
    assert result.exit_code == 1 and "holds no campaign 'nope'" in result.output
    run("copy", src, dst)
    before = everything(dst, "casebook")
    result = CliRunner().invoke(cli, ["copy", src, dst])
    assert result.exit_code == 1 and "already holds a campaign 'casebook'" in result.output
    assert everything(dst, "casebook") == before


def test_a_tampered_source_is_not_copied(tmp_path):
    src, dst = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    build(src)
    conn = sqlite3.connect(src, isolation_level=None)
    conn.execute("drop trigger events_no_update")
    conn.execute("update events set actor = 'mallory' where seq = 3")
    conn.close()
    result = CliRunner().invoke(cli, ["copy", src, dst])
    assert result.exit_code == 1, result.output
    assert "does not verify after the copy (event 3" in result.output
    assert campaign_ids(dst) == []


def test_an_unreachable_database_is_one_line(tmp_path):
    src = str(tmp_path / "a.db")
    build(src)
    result = CliRunner().invoke(cli, ["copy", src, "postgresql://nobody:secret@127.0.0.1:1/none"])
    assert result.exit_code == 1
    assert "cannot open the database postgresql://nobody:***@127.0.0.1:1/none" in result.output
    assert "secret" not in result.output and len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("bad", ["postgresql://", "postgres://x@/"])
def test_malformed_urls_are_refused(tmp_path, bad):
    result = CliRunner().invoke(cli, ["--db", bad, "log"])
    assert result.exit_code == 1 and result.output.startswith("Error: ")
    assert "Traceback" not in result.output
