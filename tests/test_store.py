"""What only the SQLite store does (its file, pragmas, triggers, migrations).

What every backend does (chain bytes, versions, all-or-nothing batches, reads, secrets,
snapshots) is tests/test_conformance.py's, which runs each test on SQLite too.
"""

import sqlite3

import msgspec
import pytest

from ledger.store.sqlite import MIGRATION_NAMES, Store
from tests.test_conformance import append, note


@pytest.fixture
def store(tmp_path):
    return Store(str(tmp_path / "s.db"))


def test_wal_and_tables(store):
    assert store.conn.execute("pragma journal_mode").fetchone()[0] == "wal"
    assert {"events", "secrets", "snapshots"} <= set(store.db.table_names())


def test_migrations_run_once(tmp_path):
    path = str(tmp_path / "m.db")
    Store(path)
    Store(path)  # re-opening applies nothing twice
    rows = sqlite3.connect(path).execute("select name from _sqlite_migrations").fetchall()
    assert sorted(r[0] for r in rows) == list(MIGRATION_NAMES)


@pytest.mark.parametrize("sql", ["update events set data = '{}'", "delete from events"])
def test_triggers_refuse_update_and_delete(store, sql):
    append(store, "c", note("a"))
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store.conn.execute(sql)


def test_data_is_canonical_json(store):
    append(store, "c", note("é", "ann"))
    (data,) = store.conn.execute("select data from events").fetchone()
    assert data == '{"character":"ann","text":"é","type":"note.added"}'
    assert msgspec.json.decode(data)["text"] == "é"


def test_synchronous_full(tmp_path):
    store = Store(str(tmp_path / "f.db"), synchronous="FULL")
    assert store.conn.execute("pragma synchronous").fetchone()[0] == 2


def test_verify_reports_progress_every_thousand_events(store):
    from ledger.history.verify import verify_store

    append(store, "c", *[note(str(i)) for i in range(2500)])
    steps = []
    report = verify_store(store, "c", progress=steps.append)
    assert report.ok and report.events == 2500
    assert steps == [1000, 1000]
