"""A ledger file holds the open session's seed and the campaign's signing key: it, its
``-wal`` and its ``-shm`` are readable by their owner only, whatever the umask, as backups
are; a ledger file someone else may read gets a one-line warning naming it and the fix."""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from ledger.cli import cli
from ledger.store.sqlite import Store

SHEETS = Path(__file__).resolve().parent.parent / "campaigns" / "the-world" / "characters"


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: str | Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def run(db: str, *args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, ["--db", db, *args])
    return r.exit_code, r.stdout, r.stderr


@pytest.mark.parametrize("mask", [0o022, 0o000, 0o002])
def test_a_new_ledger_its_wal_and_shm_are_its_owners_alone(tmp_path, mask):
    """Under a permissive umask: the file ``campaign new`` makes, and the ``-wal`` and
    ``-shm`` SQLite makes beside it while a session of writes holds it open."""
    db = str(tmp_path / "vault.db")
    with umask(mask):
        code, out, err = run(db, "new", "vault", "--system", "d20-world")
        assert code == 0 and err == "", err
        assert mode(db) == 0o600
        store = Store(db)  # open: SQLite's -wal and -shm are there while it is
        try:
            code, _, err = run(db, "character", "add", "--sheet", str(SHEETS / "isa.toml"))
            assert code == 0 and err == ""
            store.conn.execute("select count(*) from events").fetchone()
            for suffix in ("-wal", "-shm"):
                assert os.path.exists(db + suffix), suffix
                assert mode(db + suffix) == 0o600, suffix
        finally:
            store.close()
        assert mode(db) == 0o600


@pytest.mark.parametrize("mask", [0o022, 0o000])
def test_a_store_opened_on_no_file_makes_it_private(tmp_path, mask):
    """The store itself (as ``serve``, ``copy`` and scripts open it), not only the CLI."""
    db = str(tmp_path / "fresh.db")
    with umask(mask):
        store = Store(db)
        try:
            store.conn.execute("create table if not exists t (x)")
            store.conn.execute("insert into t values (1)")
            for name in (db, db + "-wal", db + "-shm"):
                assert mode(name) == 0o600, name
        finally:
            store.close()


def test_a_copy_into_a_new_file_and_a_backup_are_private(tmp_path):
    db = str(tmp_path / "vault.db")
    with umask(0o022):
        assert run(db, "new", "vault", "--system", "d20-world")[0] == 0
        copied = str(tmp_path / "copy.db")
        code, out, err = run(db, "copy", db, copied)
        assert code == 0, out + err
        assert mode(copied) == 0o600
        backup = str(tmp_path / "backup.db")
        assert run(db, "backup", backup)[0] == 0
        assert mode(backup) == 0o600


@pytest.mark.parametrize("loose", [0o644, 0o660, 0o604])
def test_an_existing_looser_ledger_gets_one_line_naming_it_and_the_fix(tmp_path, loose):
    db = str(tmp_path / "vault.db")
    assert run(db, "new", "vault", "--system", "d20-world")[0] == 0
    os.chmod(db, loose)
    code, out, err = run(db, "log")
    assert code == 0 and "Campaign 'vault' created" in out
    assert err.count("\n") == 1, err
    assert err.startswith(f"Warning: {db} (mode {loose:03o}) is open to other users")
    assert f"run `chmod 600 {db}`" in err
    assert mode(db) == loose, "the warning changes nothing: the owner decides"
    os.chmod(db, 0o600)
    assert run(db, "log")[2] == ""  # fixed: no warning


def test_a_looser_wal_left_beside_the_ledger_is_named_too(tmp_path):
    db = str(tmp_path / "vault.db")
    assert run(db, "new", "vault", "--system", "d20-world")[0] == 0
    holder = Store(db)  # keeps the -wal and -shm in place
    try:
        holder.conn.execute("select count(*) from events").fetchone()
        os.chmod(db + "-wal", 0o644)
        code, _, err = run(db, "log")
        assert code == 0 and err.count("\n") == 1
        assert f"{db}-wal (mode 644)" in err and f"chmod 600 {db}-wal" in err
        assert f"{db} (mode" not in err
    finally:
        holder.close()
