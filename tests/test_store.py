import hashlib
import sqlite3

import msgspec
import pytest

from ledger.events import NoteAdded
from ledger.store import MIGRATION_NAMES, ZERO_HASH, ConflictError, Pending, Store, chain_hash

AT = "2026-03-01T19:00:00.000000Z"


@pytest.fixture
def store(tmp_path):
    return Store(str(tmp_path / "s.db"))


def note(text, character=None):
    return Pending(NoteAdded(text=text, character=character))


def append(store, campaign, *items, **kw):
    return store.append(campaign, list(items), actor="gm", recorded_at=AT, session=None, **kw)


def test_wal_and_tables(store):
    assert store.conn.execute("pragma journal_mode").fetchone()[0] == "wal"
    assert {"events", "secrets", "snapshots"} <= set(store.db.table_names())


def test_migrations_run_once(tmp_path):
    path = str(tmp_path / "m.db")
    Store(path)
    Store(path)  # re-opening applies nothing twice
    rows = sqlite3.connect(path).execute("select name from _sqlite_migrations").fetchall()
    assert sorted(r[0] for r in rows) == list(MIGRATION_NAMES)


def test_chain_links_and_hashes(store):
    rows = append(store, "c", note("a"), note("b", "ann"))
    (s1, *_, prev1, h1), (s2, *_, prev2, h2) = rows
    assert (s1, s2) == (1, 2)
    assert prev1 == ZERO_HASH and prev2 == h1
    canonical = (
        b'{"actor":"gm","campaign":"c","data":{"character":null,"text":"a","type":"note.added"},'
        b'"prev_hash":"' + ZERO_HASH.encode() + b'","recorded_at":"' + AT.encode() + b'","seq":1,'
        b'"session":null,"stream":"campaign","type":"note.added","version":1,"visibility":"public"}'
    )
    assert h1 == hashlib.sha256(bytes.fromhex(ZERO_HASH) + canonical).hexdigest()
    assert h1 == chain_hash(ZERO_HASH, canonical)


def test_stream_versions_and_campaigns_are_separate(store):
    append(store, "c", note("a"), note("b", "ann"), note("c", "ann"))
    rows = append(store, "d", note("x"))
    assert rows[0][0] == 1 and rows[0][10] == ZERO_HASH  # own seq and chain
    assert store.stream_version("c", "ann") == 2
    assert store.stream_version("c", "campaign") == 1
    assert store.head("c").seq == 3


@pytest.mark.parametrize("sql", ["update events set data = '{}'", "delete from events"])
def test_triggers_refuse_update_and_delete(store, sql):
    append(store, "c", note("a"))
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        store.conn.execute(sql)


def test_expected_version_conflict_names_both_and_writes_nothing(store):
    append(store, "c", note("a", "ann"))
    with pytest.raises(ConflictError, match="version 1, not the expected version 0"):
        append(store, "c", note("b", "ann"), expected_versions={"ann": 0})
    assert store.head("c").seq == 1
    append(store, "c", note("b", "ann"), expected_versions={"ann": 1})
    assert store.head("c").seq == 2


def test_batch_is_all_or_nothing(store):
    append(store, "c", note("a"))

    class Boom(NoteAdded, frozen=True, kw_only=True, tag="boom.added"):
        bad: object = object()

    with pytest.raises(TypeError):
        append(store, "c", note("b"), Pending(Boom(text="x")))
    assert store.head("c").seq == 1
    assert [r[0] for r in store.rows("c")] == [1]


def test_rows_filters(store):
    append(store, "c", note("a"), note("b", "ann"), note("c", "bob"), note("d", "ann"))
    assert [r[0] for r in store.rows("c", stream="ann")] == [2, 4]
    assert [r[0] for r in store.rows("c", after=1, upto=3)] == [2, 3]
    assert [r[0] for r in store.rows("c", streams=["bob", "campaign"])] == [1, 3]


def test_data_is_canonical_json(store):
    append(store, "c", note("é", "ann"))
    (data,) = store.conn.execute("select data from events").fetchone()
    assert data == '{"character":"ann","text":"é","type":"note.added"}'
    assert msgspec.json.decode(data)["text"] == "é"


def test_secrets_and_snapshots(store):
    store.put_secret("c", 1, b"\x01" * 32)
    assert store.get_secret("c", 1) == b"\x01" * 32
    store.drop_secret("c", 1)
    assert store.get_secret("c", 1) is None
    store.save_snapshot("c", "ann", 10, True, b"s10", basis="b", digest="d10")
    store.save_snapshot("c", "ann", 20, True, b"s20", basis="b", digest="d20")
    store.save_snapshot("c", "ann", 12, True, b"x12", basis="other", digest="x")
    assert store.load_snapshot("c", "ann", 15, True, basis="b") == (10, b"s10", "d10")
    assert store.load_snapshot("c", "ann", 15, True, basis="b", after=11) is None
    assert store.load_snapshot("c", "ann", 15, False, basis="b") is None
    store.drop_snapshot("c", "ann", 10, True, "b")
    assert store.load_snapshot("c", "ann", 15, True, basis="b") is None
    assert store.drop_snapshots("c") == 2


def test_synchronous_full(tmp_path):
    store = Store(str(tmp_path / "f.db"), synchronous="FULL")
    assert store.conn.execute("pragma synchronous").fetchone()[0] == 2


def test_verify_reports_progress_every_thousand_events(store):
    from ledger.verify import verify_store

    append(store, "c", *[note(str(i)) for i in range(2500)])
    steps = []
    report = verify_store(store, "c", progress=steps.append)
    assert report.ok and report.events == 2500
    assert steps == [1000, 1000]
