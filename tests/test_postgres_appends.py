"""Appends on PostgreSQL: each kind chains its events after the head, whatever the
store knew or guessed; a conflict or a refused write keeps nothing; two writers racing for
one campaign chain one after the other (the lock rides with the head read:
ledger/store/pgwrite.py). How many round trips each kind costs is counted by
bench/budgets.py, not here.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest

from ledger.campaign.aggregate import Campaign, open_campaign
from ledger.errors import ConflictError
from ledger.events import NoteAdded
from ledger.history.verify import verify_store
from ledger.store.base import Pending
from ledger.store.postgres import INSERT_ROWS, PostgresStore

AT = "2026-03-01T19:00:00.000000Z"


def notes(n: int, prefix: str = "n") -> list[Pending]:
    return [Pending(NoteAdded(text=f"{prefix}{i}")) for i in range(n)]


@pytest.fixture
def store(postgres_url):
    s = PostgresStore(postgres_url)
    Campaign.create(s, "c", system="decision-dice", actor="gm", at=AT)
    s.store_append = lambda batch, **kw: s.append(  # type: ignore[attr-defined]
        "c", batch, actor="gm", recorded_at=AT, session=None, **kw
    )
    yield s
    s.close()


def test_a_small_append_chains_after_the_head_and_grows_the_tree(store):
    """The rows, the frontier and the notification are written together (their own
    implicit transaction: ledger/store/pgwrite.py)."""
    written = store.store_append(notes(3))
    assert [e.seq for e in written] == [2, 3, 4]
    assert verify_store(store, "c").ok
    assert store.tree_frontier("c")[0] == 4


def test_an_append_after_reading_the_version_chains_on_what_was_read(store):
    """``stream_version`` reads the head and the frontier with the version; the append that
    follows with that version expected chains on them. So does the next append of the same
    store (it knows the head it wrote)."""
    version = store.stream_version("c", "campaign")
    written = store.store_append(notes(2), expected_versions={"campaign": version})
    assert [e.seq for e in written] == [2, 3]
    written = store.store_append(notes(1), expected_versions={"campaign": 3})
    assert [e.seq for e in written] == [4]
    assert verify_store(store, "c").ok and store.tree_frontier("c")[0] == 4


def test_a_stale_guess_is_refused_and_read_again(postgres_url, store):
    """Another store appends between this store's read and its append: the write chained on
    the old head is refused by the primary key (nothing kept), the head read again, and the
    batch chained after the other store's events; an expected version read before the other
    append is then a conflict."""
    version = store.stream_version("c", "campaign")
    other = PostgresStore(postgres_url)
    theirs = other.append("c", notes(2, "other"), actor="o", recorded_at=AT, session=None)
    written = store.store_append(notes(1))
    assert [e.seq for e in written] == [4]
    assert written[0].prev_hash == theirs[-1].hash
    other.append("c", notes(1, "again"), actor="o", recorded_at=AT, session=None)
    with pytest.raises(ConflictError, match="version 5, not the expected version 4"):
        store.store_append(notes(1), expected_versions={"campaign": version + 3})
    other.close()
    assert store.head("c").seq == 5
    assert verify_store(store, "c").ok and store.tree_frontier("c")[0] == 5


def test_a_guess_ahead_of_a_restored_database_writes_no_gap(postgres_url, store):
    """The database is restored from a backup older than what this store last wrote: its
    guess of the head runs ahead, and no primary key would refuse the seq after it. The
    write checks that the head it chained on is still there, as guessed; it is not, so
    nothing is written, the head is read again and the batch goes right after the restored
    head: no gap, no broken chain."""
    import psycopg

    (kept,) = store.store_append(notes(1))  # seq 2: the backup is taken here
    tables = ("events", "merkle_frontier", "merkle_tiles")
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        for table in tables:
            conn.execute(f"create table backup_{table} as select * from {table}")
    store.store_append(notes(2, "lost"))  # seq 3, 4: the store now guesses head 4
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # the restore
        conn.execute("alter table events disable trigger user")  # the append-only guard
        for table in tables:
            conn.execute(f"delete from {table}")
            conn.execute(f"insert into {table} select * from backup_{table}")
        conn.execute("alter table events enable trigger user")
    written = store.store_append(notes(1, "after"))
    assert [e.seq for e in written] == [3]
    assert written[0].prev_hash == kept.hash
    assert store.head("c").seq == 3
    assert verify_store(store, "c").ok and store.tree_frontier("c")[0] == 3


def test_a_refused_write_leaves_nothing(store):
    """The implicit transaction is all or nothing: the rows are refused (an event no
    check of the store's lets through, here a visibility the table's check refuses), so
    the frontier and the notification before its sync are not kept either."""
    from ledger.errors import StoreError

    bad = Pending(NoteAdded(text="x"), visibility="nobody")  # type: ignore[arg-type]
    with pytest.raises(StoreError, match="refused"):
        store.store_append([bad])
    assert store.head("c").seq == 1
    assert store.tree_frontier("c")[0] == 1
    assert [e.seq for e in store.store_append(notes(1))] == [2]
    assert verify_store(store, "c").ok


def test_a_conflict_names_both_versions_and_writes_nothing(store):
    with pytest.raises(ConflictError, match="7"):
        store.store_append(notes(1), expected_versions={"campaign": 7})
    assert store.head("c").seq == 1


def test_an_append_inside_a_transaction(postgres_url, store):
    """Inside a transaction (read-check-append) the append chains on the head read, at
    the store's own head too; after another store's append it chains after that; a
    transaction that appended and rolled back leaves nothing the store takes as known."""
    fresh = PostgresStore(postgres_url)

    def both(s: PostgresStore, n: int) -> list[Any]:
        with s.transaction():
            head = s.head("c")
            return [head, s.append("c", notes(n), actor="gm", recorded_at=AT, session=None)]

    head, written = both(fresh, 2)
    assert head.seq == 1 and [e.seq for e in written] == [2, 3]
    head, written = both(fresh, 1)  # at its own head
    assert head.seq == 3 and [e.seq for e in written] == [4]
    assert [e.version for e in written] == [4]  # the campaign stream: created, 3 notes
    store.store_append(notes(1, "other"))  # another store appended
    head, written = both(fresh, 1)
    assert head.seq == 5 and [(e.seq, e.version) for e in written] == [(6, 6)]
    with pytest.raises(ZeroDivisionError), fresh.transaction():
        both(fresh, 2)
        1 / 0  # noqa: B018
    head, written = both(fresh, 1)
    assert head.seq == 6 and [(e.seq, e.version) for e in written] == [(7, 7)]
    fresh.close()
    assert verify_store(store, "c").ok


def test_a_large_batch_is_written_whole(store):
    """More than INSERT_ROWS rows (they go by ``COPY``): every one, in order, chained."""
    written = store.store_append(notes(INSERT_ROWS + 1))
    assert [e.seq for e in written] == list(range(2, INSERT_ROWS + 3))
    assert [e.seq for e in store.rows("c")][-1] == INSERT_ROWS + 2
    assert verify_store(store, "c").ok


def test_campaign_append_on_postgresql_sees_other_writers(store):
    """``Campaign.append`` of a note on an open campaign with two characters: the first
    append of a freshly opened campaign, the next (its own head: what it read there kept),
    and one after another writer appended (nothing kept is used: every read made again)."""
    from ledger.errors import NotFound
    from ledger.store.base import Pending

    sheet = {"equipment": [{"name": "rope", "supply": "d6", "note": "x"}], "stats": {"Might": 1}}
    camp = open_campaign(store, "c")
    for name in ("Ana", "Bo"):
        camp.add_character({"name": name, **sheet}, actor="gm", at=AT)
    camp = open_campaign(store, "c")
    with pytest.raises(NotFound, match="did you mean 'c'"):
        open_campaign(store, "cc")
    (first,) = camp.append([NoteAdded(text="cold")], actor="gm", at=AT)
    assert first.seq == 4
    (rec,) = camp.append([NoteAdded(text="x")], actor="gm", at=AT)
    assert rec.seq == 5 and rec.prev_hash == first.hash
    other = store.append(
        "c", [Pending(NoteAdded(text="other"))], actor="o", recorded_at=AT, session=None
    )
    (rec,) = camp.append([NoteAdded(text="y")], actor="gm", at=AT)
    assert rec.seq == 7 and rec.prev_hash == other[0].hash
    assert camp.characters() == {"ana": "Ana", "bo": "Bo"}
    assert verify_store(store, "c").ok


def test_campaign_append_at_a_kept_head_sees_what_changed(store):
    """What ``Campaign.append`` keeps at a head is dropped when its own batch changes it: a
    character added, a session started, a correction, each seen by the next append."""
    from ledger.errors import NotFound, RuleError

    sheet = {"equipment": [{"name": "rope", "supply": "d6", "note": "x"}], "stats": {"Might": 1}}
    camp = open_campaign(store, "c")
    camp.append([NoteAdded(text="warm")], actor="gm", at=AT)
    assert camp.characters() == {} and camp.current_session() is None
    ana = camp.add_character({"name": "Ana", **sheet}, actor="gm", at=AT)
    assert camp.characters() == {"ana": "Ana"}
    with pytest.raises(RuleError, match="already exists"):
        camp.add_character({"name": "Ana", **sheet}, actor="gm", at=AT)
    started = camp.start_session(actor="gm", at=AT)
    (note,) = camp.append([NoteAdded(text="in session")], actor="gm", at=AT)
    assert note.session == camp.current_session() == 1 and started.seq < note.seq
    with pytest.raises(ZeroDivisionError), store.transaction():  # rolled back
        camp.add_character({"name": "Bo", **sheet}, actor="gm", at=AT)
        1 / 0  # noqa: B018
    assert camp.characters() == {"ana": "Ana"}
    assert camp.add_character({"name": "Bo", **sheet}, actor="gm", at=AT).seq == note.seq + 1
    camp.correct(ana.seq, "not in this campaign", actor="gm", at=AT)
    assert camp.characters() == {"bo": "Bo"}
    with pytest.raises(NotFound):
        camp.find_character("ana")
    assert verify_store(store, "c").ok


def test_two_writers_racing_chain_one_after_the_other(postgres_url, store):
    """Writer A holds the campaign's lock with an append not yet committed; writer B waits
    at the lock, then must chain after A's events:

    - B in a transaction sends its lock and its head read in one round trip: the head read
      is a statement after the lock, so its snapshot is taken after A's commit;
    - B appending alone read the head before A committed, then waits at the lock in its
      write: the events' primary key refuses the seq, B reads again and chains after A;
    - B appending alone with an expected version read before A appended: its first read
      (before A's commit) finds the version as expected, its write waits at the lock and is
      refused by the primary key, and its second read finds the conflict.
    """
    import psycopg

    b = PostgresStore(postgres_url, application_name="racer-b")
    results: dict[str, Any] = {}

    def run_b(name: str) -> None:
        def go() -> list[Any]:
            kw: dict[str, Any] = {}
            if name == "expected":
                kw["expected_versions"] = {"campaign": results["b_version"]}
            return b.append("c", notes(2, name), actor="b", recorded_at=AT, session=None, **kw)

        try:
            if name == "in a transaction":
                with b.transaction():
                    seen = b.head("c")
                    results[name] = (seen, go())
            else:
                results[name] = (None, go())
        except Exception as e:  # noqa: BLE001 (handed to the test's thread)
            results[name] = (None, e)

    def b_waits_for_the_lock() -> None:
        with psycopg.connect(postgres_url, autocommit=True) as watcher:
            for _ in range(2000):  # until B waits at the lock (no clock: a bounded poll)
                row = watcher.execute(
                    "select count(*) from pg_locks l join pg_stat_activity a using (pid) "
                    "where a.application_name = 'racer-b' and l.locktype = 'advisory' "
                    "and not l.granted"
                ).fetchone()
                if row and row[0]:
                    return
                threading.Event().wait(0.01)
        raise AssertionError("writer B never waited for the lock")

    for name in ("in a transaction", "alone", "expected"):
        results["b_version"] = b.stream_version("c", "campaign")  # before A appends
        with store.transaction():
            mine = store.store_append(notes(3, f"a-{name}"))
            thread = threading.Thread(target=run_b, args=(name,))
            thread.start()
            b_waits_for_the_lock()
        thread.join(timeout=60)
        assert not thread.is_alive()
        seen, got = results[name]
        if name == "expected":
            assert isinstance(got, ConflictError), got
            continue
        assert not isinstance(got, Exception), got
        if seen is not None:
            assert (seen.seq, seen.hash) == (mine[-1].seq, mine[-1].hash)
        assert [e.seq for e in got] == [mine[-1].seq + 1, mine[-1].seq + 2]
        assert got[0].prev_hash == mine[-1].hash
    b.close()
    assert store.head("c").seq == 1 + 3 + 2 + 3 + 2 + 3
    assert verify_store(store, "c").ok


def test_small_appends_alone_keep_the_tree_and_its_tiles(store):
    """Small appends outside a transaction grow the stored frontier and store each
    complete 256-leaf tile in the same statement as their rows (checked against
    ledger.trust.merkle's RFC 6962 tree of the stored hashes)."""
    from ledger.trust.merkle import leaf_hash, node_hash, root

    for k in range(90):
        store.store_append(notes(3, f"k{k}-"))
    leaves = [leaf_hash(bytes.fromhex(e.hash)) for e in store.rows("c")]
    assert len(leaves) == 271
    assert store.tree_tiles("c", 8, 0, 2) == [root(leaves[:256])]
    size, frontier = store.tree_frontier("c")
    folded = frontier[-1]
    for left in reversed(frontier[:-1]):
        folded = node_hash(left, folded)
    assert (size, folded) == (271, root(leaves))
