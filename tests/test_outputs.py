"""Nothing is ever lost: output files never land on a ledger, never half-written;
a refused import removes only the file it built itself."""

from __future__ import annotations

import os
import sqlite3

import pytest
from click.testing import CliRunner

from ledger.cli import cli
from ledger.errors import RuleError

from .test_reliability_fuzz import fingerprint


def checkpoint(path: str) -> None:
    conn = sqlite3.connect(path)
    conn.execute("pragma wal_checkpoint(truncate)")
    conn.close()


def run(db: str, *args: str):
    return CliRunner().invoke(cli, ["--db", db, *args], catch_exceptions=False)


@pytest.fixture
def played(toy_campaign, db_path):
    """The toy campaign with session 1 played and ended; the ledger checkpointed."""
    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0
    assert invoke("roll", "ann", "brawl").exit_code == 0
    assert invoke("session", "end").exit_code == 0
    checkpoint(db_path)
    return db_path


def refused(result, *words: str) -> None:
    assert result.exit_code in (1, 2), result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.output
    assert "unexpected" not in lines[0]
    for word in words:
        assert word in lines[0], lines[0]


def test_export_onto_its_own_ledger_is_refused(played):
    # Seen: `campaign --db a.db export -o a.db` left a.db at 0 bytes
    before = fingerprint(played)
    result = run(played, "--as", "gm", "export", "-o", played)
    refused(result, "the open ledger")
    assert fingerprint(played) == before
    assert run(played, "verify").exit_code == 0


def test_recap_onto_a_ledger_is_refused(played, tmp_path):
    # Seen: `recap --session 1 -o b.db` overwrote the ledger with Markdown and exited 0
    other = str(tmp_path / "b.db")
    assert run(other, "new", "other", "--system", "toy").exit_code == 0
    checkpoint(other)
    mine, theirs = fingerprint(played), fingerprint(other)
    refused(run(played, "recap", "--session", "1", "-o", played), "the open ledger")
    refused(run(played, "recap", "--session", "1", "-o", other), "SQLite database")
    assert (fingerprint(played), fingerprint(other)) == (mine, theirs)


@pytest.mark.parametrize("target", ["wal", "shm", "link", "folder", "other-wal"])
def test_outputs_refuse_side_files_links_and_folders(played, tmp_path, target):
    other = str(tmp_path / "c.db")
    conn = sqlite3.connect(other)
    conn.execute("create table t (x)")
    conn.close()
    link = tmp_path / "alias.txt"
    link.symlink_to(played)
    path = {
        "wal": played + "-wal",
        "shm": played + "-shm",
        "link": str(link),
        "folder": str(tmp_path),
        "other-wal": other + "-wal",
    }[target]
    before = fingerprint(played)
    for args in (
        ["export", "-o", path],
        ["recap", "--session", "1", "-o", path],
        ["recap", "--session", "1", "--format", "html", "-o", path],
    ):
        refused(run(played, *args))
    assert fingerprint(played) == before
    assert not os.path.exists(other + "-wal")


def test_plot_onto_the_ledger_is_refused(played, tmp_path):
    chart = str(tmp_path / "ledger.png")
    os.link(played, chart)  # the ledger under a chart's name
    before = fingerprint(played)
    refused(run(played, "odds", "toy", "--target", "8", "--plot", chart), "the open ledger")
    refused(run(played, "fairness", "--plot", chart), "the open ledger")
    assert fingerprint(played) == before


def test_a_failing_export_leaves_the_old_file_and_no_partial_one(played, tmp_path, monkeypatch):
    from ledger.exchange import ndjson as exchange

    out = tmp_path / "out.ndjson"
    out.write_text("yesterday's export\n")

    def broken(store, campaign, *, as_gm):
        yield b'{"seq":1}\n'
        raise RuleError("the disk is on fire")

    monkeypatch.setattr(exchange, "export_lines", broken)
    refused(run(played, "export", "-o", str(out)), "on fire")
    assert out.read_text() == "yesterday's export\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".campaign")) == []


def test_outputs_replace_the_target_whole(played, tmp_path):
    out = tmp_path / "recap.md"
    out.write_text("old")
    assert run(played, "recap", "--session", "1", "-o", str(out)).exit_code == 0
    assert out.read_text().startswith("# toybox — Session 1")
    assert run(played, "--as", "gm", "export", "-o", str(out)).exit_code == 0
    events = [x for x in out.read_bytes().splitlines() if not x.startswith(b'{"kind"')]
    # session end: ended + downtime.committed, its checkpoint, then Ann's chronicle entry
    assert len(events) == 8 and b'"type":"chronicle.signed"' in events[-1]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".campaign")] == []


def test_refused_import_never_removes_a_ledger_another_command_created(
    played, tmp_path, monkeypatch
):
    # Seen: a refused import deleted a ledger (and its WAL and SHM) that another process
    # created a campaign in meanwhile. Interleaved: `new victim` runs during the import.
    from ledger.exchange import ndjson as exchange

    export = tmp_path / "gm.ndjson"
    assert run(played, "--as", "gm", "export", "-o", str(export)).exit_code == 0
    target = str(tmp_path / "new.db")
    real = exchange.import_lines

    def interleaved(store, lines, **kwargs):
        created = run(target, "new", "victim", "--system", "toy")
        assert created.exit_code == 0 and "Created" in created.output
        real(store, lines, **kwargs)
        raise RuleError("refused after the victim was created")

    monkeypatch.setattr(exchange, "import_lines", interleaved)
    refused(run(target, "import", str(export)), "refused after")
    assert run(target, "character", "list").exit_code == 0  # the victim's ledger is whole
    assert run(target, "--campaign", "victim", "verify").exit_code == 0
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".campaign")] == []


def test_import_into_a_new_file_that_appears_meanwhile_is_refused(played, tmp_path, monkeypatch):
    from ledger.exchange import ndjson as exchange

    export = tmp_path / "gm.ndjson"
    assert run(played, "--as", "gm", "export", "-o", str(export)).exit_code == 0
    target = str(tmp_path / "new.db")
    real = exchange.import_lines

    def interleaved(store, lines, **kwargs):
        assert run(target, "new", "victim", "--system", "toy").exit_code == 0
        return real(store, lines, **kwargs)

    monkeypatch.setattr(exchange, "import_lines", interleaved)
    refused(run(target, "import", str(export)), "created by another command")
    assert run(target, "--campaign", "victim", "verify").exit_code == 0
    assert run(target, "--campaign", "toybox", "log").exit_code == 1  # nothing imported


def test_import_into_a_new_file_builds_it_whole(played, tmp_path):
    export = tmp_path / "gm.ndjson"
    assert run(played, "--as", "gm", "export", "-o", str(export)).exit_code == 0
    target = tmp_path / "restored.db"
    result = run(str(target), "import", str(export))
    assert result.exit_code == 0, result.output
    assert run(str(target), "verify").exit_code == 0
    assert target.stat().st_mode & 0o777 == 0o600  # the GM's alone, as every new ledger
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".campaign")) == []
