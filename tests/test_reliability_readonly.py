"""A ledger on a read-only medium is read, never refused.

Seen: a ledger in a folder the user cannot write or on a read-only medium (an archived
campaign, a copy on a share) could not even be read: `log` and `verify` failed with "unable
to open database file" (SQLite could not create the `-shm` beside it). Every read now
answers, exactly as on a writable copy, and a write says plainly why it cannot.

The media are tmpfs mounts remounted read-only (:mod:`tests.tmpfs`; root only: as root,
file permissions do not stop writes, a read-only mount does). Three shapes of a WAL-mode
ledger there, each read differently (`ledger.files.connect_readonly`):

- the file alone (the last writer closed it: no `-wal`, no `-shm`): read `immutable=1`;
- the file with `-wal` and `-shm` (copied while a writer had it open): read `mode=ro`, the
  events still in the `-wal` included;
- the file with its `-wal` and no `-shm`: `mode=ro` cannot index the WAL in place and
  `immutable=1` would ignore it (an older log, silently), so the file and its `-wal` are
  read from a private temporary copy, removed afterwards.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile

import pytest

from .test_outputs import checkpoint, refused, run
from .tmpfs import mounts_fixture  # noqa: F401  (the fixture `mounts`)

READS = [
    ["log"],
    ["--as", "gm", "log"],
    ["log", "--json"],
    ["verify"],
    ["sheet", "ann"],
    ["--as", "gm", "sheet", "bob", "--json"],
    ["character", "list"],
    ["session", "list"],
    ["recap", "--session", "1"],
    ["audit", "5"],
    ["fairness"],
    ["--as", "gm", "export"],
]
WRITES = [
    ["note", "hello"],
    ["roll", "ann", "brawl"],
    ["session", "end"],
    ["record", "hurt", "--character", "ann", "--amount", "1"],
    ["undo", "--yes", "--reason", "oops"],
    ["verify", "--drop-snapshots"],
]


@pytest.fixture(autouse=True)
def own_tempdir(tmp_path, monkeypatch):
    """The system's temporary folder is shared with other test processes: scratch copies
    go to a folder of this test's own, so :func:`leftovers` sees only its own."""
    scratch = tmp_path / "system-tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))


@pytest.fixture
def played(toy_campaign, db_path):
    """The toy campaign with session 1 played (engine rolls, GM-only facts) and ended,
    session 2 open; checkpointed, so the file stands alone."""
    invoke = toy_campaign
    for args in (
        ["session", "start"],
        ["roll", "ann", "brawl"],
        ["record", "secret-noted", "--character", "bob", "--value", "7"],
        ["record", "hurt", "--character", "bob", "--amount", "1"],
        ["session", "end"],
        ["session", "start"],
        ["roll", "bob", "sneak"],
    ):
        assert invoke(*args).exit_code == 0, args
    checkpoint(db_path)
    return db_path


def answers(path: str) -> list[tuple[int, str]]:
    return [(r.exit_code, r.output) for r in (run(path, *args) for args in READS)]


def leftovers() -> list[str]:
    return [n for n in os.listdir(tempfile.gettempdir()) if n.startswith("campaign-readonly-")]


def check_reads_and_writes(path: str, expected: list[tuple[int, str]], tmp_path) -> None:
    """Every read answers as on the writable original; every write is refused in one line
    naming the read-only medium; backups and exports to a writable folder work."""
    before = leftovers()
    assert all(code == 0 for code, _ in expected), expected
    assert answers(path) == expected
    backup = tmp_path / "from-readonly.backup"
    result = run(path, "backup", str(backup))
    assert result.exit_code == 0, result.output
    assert run(str(tmp_path / "restored.db"), "import", str(backup)).exit_code == 0
    assert run(str(tmp_path / "restored.db"), "verify").exit_code == 0
    for args in WRITES:
        refused(run(path, *args), "cannot be changed", "mounted read-only", "nothing was written")
    assert leftovers() == before


def test_a_ledger_alone_on_a_read_only_medium_answers_every_read(played, mounts, tmp_path):
    expected = answers(played)
    medium = mounts.readonly_copy("medium", played)
    ledger = str(medium / "ledger.db")
    check_reads_and_writes(ledger, expected, tmp_path)
    assert sorted(os.listdir(medium)) == ["ledger.db"]


def wal_held_open(path: str, *notes: str) -> tuple[sqlite3.Connection, list[str]]:
    """Keep a connection open (so the last writer's close does not checkpoint) while
    ``notes`` are recorded: they sit in ``PATH-wal`` only. Returns it and the three files."""
    conn = sqlite3.connect(path)
    conn.execute("pragma wal_autocheckpoint = 0")
    conn.execute("select count(*) from events").fetchone()
    for text in notes:
        assert run(path, "note", text).exit_code == 0
    assert os.path.getsize(path + "-wal") > 0
    return conn, [path, path + "-wal", path + "-shm"]


@pytest.mark.parametrize("with_shm", [True, False], ids=["wal-and-shm", "wal-without-shm"])
def test_a_ledger_with_its_wal_on_a_read_only_medium_reads_the_wal_too(
    played, mounts, tmp_path, with_shm
):
    conn, files = wal_held_open(played, "only in the WAL", "this one too")
    medium = mounts.readonly_copy("medium", *(files if with_shm else files[:2]))
    conn.close()
    ledger = str(medium / "ledger.db")
    expected = answers(played)  # the original, checkpointed now: every note in the file
    assert "this one too" in expected[0][1]
    check_reads_and_writes(ledger, expected, tmp_path)


def test_immutable_alone_would_have_missed_the_wal(played, mounts):
    # why connect_readonly never reads `immutable=1` when a -wal holds data
    conn, files = wal_held_open(played, "only in the WAL")
    medium = mounts.readonly_copy("medium", *files[:2])
    conn.close()
    uri = f"file:{medium / 'ledger.db'}?mode=ro&immutable=1"
    stale = sqlite3.connect(uri, uri=True)
    try:
        texts = [r[0] for r in stale.execute("select data from events")]
    finally:
        stale.close()
    assert not any("only in the WAL" in t for t in texts)
    assert "only in the WAL" in run(str(medium / "ledger.db"), "log").output


def test_a_new_ledger_on_a_read_only_medium_is_refused(mounts, toy_system, tmp_path):
    medium = mounts.tmpfs("medium", 64)
    mounts.readonly(medium)
    target = str(medium / "new.db")
    refused(run(target, "new", "x", "--system", "toy"), "cannot create a ledger", "read-only")
    export = tmp_path / "e.ndjson"
    export.write_text("")
    refused(run(target, "import", str(export)))
    assert os.listdir(medium) == []


def test_copy_out_of_a_read_only_medium(played, mounts, tmp_path):
    medium = mounts.readonly_copy("medium", played)
    target = str(tmp_path / "copy.db")
    result = run(str(medium / "ledger.db"), "copy", str(medium / "ledger.db"), target)
    assert result.exit_code == 0, result.output
    assert run(target, "verify").exit_code == 0


def test_an_old_ledger_on_a_read_only_medium_says_it_needs_upgrading(played, mounts):
    # a file from before the last migration must be migrated, which writes: say so plainly
    conn = sqlite3.connect(played)
    conn.execute("drop index events_session_marks")
    conn.execute("delete from _sqlite_migrations where name = 'm007_session_marks'")
    conn.commit()
    conn.close()
    checkpoint(played)
    medium = mounts.readonly_copy("medium", played)
    refused(
        run(str(medium / "ledger.db"), "log"),
        "written by an older campaign-ledger",
        "mounted read-only",
        "copy it to a folder you can write",
    )


def test_a_folder_you_cannot_write_is_read_read_only(played, monkeypatch):
    # not root: os.access says the folder cannot be written (as root a mount is needed to
    # make that true; here the permission check is what is played)
    folder = os.path.dirname(os.path.abspath(played))
    real = os.access

    def access(path, mode, *args, **kwargs):
        if mode == os.W_OK and os.path.abspath(path) == folder:
            return False
        return real(path, mode, *args, **kwargs)

    expected = answers(played)
    monkeypatch.setattr(os, "access", access)
    assert answers(played) == expected
    before = os.path.getsize(played)
    refused(
        run(played, "note", "hello"), "cannot be changed", f"you cannot write its folder {folder}"
    )
    assert os.path.getsize(played) == before
