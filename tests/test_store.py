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


def test_a_new_file_gets_the_schema_the_migrations_build_one_by_one(tmp_path, frozen):
    """A new ledger is made in one step (``create_schema``): the same tables, indexes,
    triggers and their order as applying every migration to an empty file, and every
    migration recorded as applied, now."""
    import sqlite_utils

    from ledger.store.sqlite import get_migrations

    stepwise = sqlite3.connect(tmp_path / "stepwise.db")
    get_migrations().apply(sqlite_utils.Database(stepwise))
    Store(str(tmp_path / "new.db")).close()
    new = sqlite3.connect(tmp_path / "new.db")

    def schema(conn):
        return conn.execute("select type, name, tbl_name, sql from sqlite_master order by rowid")

    assert schema(new).fetchall() == schema(stepwise).fetchall()
    applied = "select id, migration_set, name, applied_at from _sqlite_migrations order by id"
    made = new.execute(applied).fetchall()
    assert [r[:3] for r in made] == [r[:3] for r in stepwise.execute(applied)]
    (at,) = {r[3] for r in made}  # when the file was made, in sqlite-utils' form
    assert at.startswith("2026-03-01 19:00:0") and at.endswith("+00:00")
    assert [r[2] for r in made] == list(MIGRATION_NAMES)


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


@pytest.mark.parametrize("variables", [32766, 999, 30])
def test_a_batch_goes_in_multi_row_inserts_within_sqlites_variable_limit(tmp_path, variables):
    """A batch is inserted 1,000 rows to a statement, fewer where SQLite allows fewer
    parameters (999 before 3.32: 83 rows; 30: 2 rows), the rest in one last statement;
    every event lands once, in order, chained."""
    import sqlite_utils

    from ledger.history.verify import verify_store

    conn = sqlite3.connect(str(tmp_path / "v.db"))
    conn.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, variables)
    store = Store(sqlite_utils.Database(conn))
    statements: list[str] = []
    conn.set_trace_callback(lambda sql: statements.append(sql) if "into events" in sql else None)
    append(store, "c", *[note(str(i)) for i in range(2345)])
    append(store, "c", note("one more"))
    conn.set_trace_callback(None)
    per_statement = min(1000, variables // 12)
    full, rest = divmod(2345, per_statement)
    assert len(statements) == full + (1 if rest else 0) + 1
    texts = [r[0] for r in conn.execute("select json_extract(data, '$.text') from events order by seq")]
    assert texts == [str(i) for i in range(2345)] + ["one more"]
    assert verify_store(store, "c").ok
