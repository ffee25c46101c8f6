"""Every read path reads what it asks for: `--as-of TIME` finds the last event at or before
the time, an older ledger gets the read indexes, and the session list sees every opening and
closing in order. How much work a read does (the index each filter's plan uses, that a read
of one session does no more work when the others grow, a roll's single fold of its
character) is bench/budgets.py's to count; speed itself is measured in bench/ (case
`reads`)."""

from __future__ import annotations

import sqlite3

import pytest

from ledger.events import SceneStarted
from ledger.store.base import Pending
from ledger.store.sqlite import Store

AT = "2026-03-01T19:00:00.000000Z"


@pytest.fixture
def store(tmp_path):
    return Store(str(tmp_path / "ledger.db"))


def _append(store: Store, at: str, n: int = 1) -> None:
    for _ in range(n):
        event = Pending(SceneStarted(title="x"))
        store.append("c", [event], actor="gm", recorded_at=at, session=None)


def test_last_seq_at_gives_the_last_event_at_or_before_the_time(store):
    assert store.last_seq_at("c", AT) == 0
    _append(store, "2026-03-01T19:00:00.000000Z", 3)  # seq 1-3
    _append(store, "2026-03-01T20:00:00.000000Z", 2)  # seq 4-5
    assert store.last_seq_at("c", "2026-03-01T18:59:59.999999Z") == 0
    assert store.last_seq_at("c", "2026-03-01T19:00:00.000000Z") == 3  # ties: the highest seq
    assert store.last_seq_at("c", "2026-03-01T19:59:59.000000Z") == 3
    assert store.last_seq_at("c", "2026-03-01T21:00:00.000000Z") == 5


def test_a_clock_that_ran_backwards_never_shows_what_was_recorded_later(store):
    """seq 3's clock was behind seq 2's: it is stamped with seq 2's time, so as of
    19:45 the log holds seq 1 only, as it did then."""
    _append(store, "2026-03-01T19:00:00.000000Z")
    _append(store, "2026-03-01T20:00:00.000000Z")
    _append(store, "2026-03-01T19:30:00.000000Z")
    assert store.last_seq_at("c", "2026-03-01T19:45:00.000000Z") == 1
    assert store.last_seq_at("c", "2026-03-01T20:30:00.000000Z") == 3


def test_an_older_ledger_gets_the_read_indexes(tmp_path):
    path = tmp_path / "old.db"
    Store(str(path)).conn.close()
    conn = sqlite3.connect(path)
    conn.execute("drop index events_session_seq")
    conn.execute("drop index events_time")
    conn.execute("create index events_session on events (campaign, session)")
    conn.execute("drop index events_session_marks")
    conn.execute(
        "delete from _sqlite_migrations where name in ('m005_read_indexes', 'm007_session_marks')"
    )
    conn.commit()
    conn.close()
    store = Store(str(path))
    names = {r[0] for r in store.conn.execute("select name from sqlite_master where type='index'")}
    assert {"events_session_seq", "events_time", "events_type", "events_stream"} <= names
    assert "events_session_marks" in names
    assert "events_session" not in names


def test_the_session_list_sees_every_opening_and_closing_in_order(store):
    """The sessions' opening and closing events (read from an index of their own, m007:
    bench/budgets.py checks the plan), every one, in seq order, and the same rows as the
    table holds."""
    import hashlib

    from ledger.events import NoteAdded, SessionAbandoned, SessionEnded, SessionStarted

    def started(n: int) -> Pending:
        return Pending(
            SessionStarted(number=n, seed_commitment=hashlib.sha256(b"%d" % n).hexdigest())
        )

    for n in (1, 2):
        closing = (
            SessionEnded(number=n, seed_reveal="00")
            if n == 1
            else SessionAbandoned(number=n, reason="lost")
        )
        batch = [started(n), Pending(NoteAdded(text="x")), Pending(closing)]
        store.append("c", batch, actor="gm", recorded_at=AT, session=n)
    marks = ["session.started", "session.ended", "session.abandoned"]
    got = [(e.seq, e.type) for e in store.rows("c", types=marks)]
    assert got == [(1, "session.started"), (3, "session.ended"), (4, "session.started"),
                   (6, "session.abandoned")]  # fmt: skip
    full = list(store.rows("c", after=3, upto=4))
    assert list(store.rows("c", types=["session.started"], after=3, upto=4)) == full
