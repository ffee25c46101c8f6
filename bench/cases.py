"""The measured cases: Campaign Ledger, the raw SQLite floor and the eventsourcing library.

Every case takes what it needs (a fresh path, prepared batches or rows) and returns the
seconds of the measured part only; setup (building files, encoding rows for the floor) is
outside the clock. :mod:`bench.run` interleaves them in rounds and takes medians.
"""

from __future__ import annotations

import functools
import os
import sqlite3
import time
from collections.abc import Sequence
from typing import Any, Union

import msgspec
import workload

from ledger.campaign import Campaign
from ledger.codec import Codec
from ledger.events import Event, SessionStarted, stream_of
from ledger.store import COLUMNS, Pending, Store

AT = "2026-03-01T20:00:00.000000Z"
ACTOR = "gm"
INSERT = f"insert into events ({', '.join(COLUMNS)}) values ({', '.join('?' * len(COLUMNS))})"

Batch = tuple[int, list[Event], dict[str, int]]  # session, events, expected versions


# --- setup -----------------------------------------------------------------------------------


def new_campaign(path: str, *, synchronous: str = "NORMAL") -> Campaign:
    """A fresh ledger file holding the bench campaign and its six characters."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    store = Store(path, synchronous=synchronous)
    camp = Campaign.create(store, workload.CAMPAIGN, system=workload.SYSTEM, actor=ACTOR, at=AT)
    for sheet in workload.character_sheets():
        camp.add_character(sheet, actor=ACTOR, at=AT)
    return camp


def batches(total: int, *, seed: int = 7) -> list[Batch]:
    """The workload's sessions (:func:`workload.sessions`) with the expected version of
    every stream they touch, for a campaign made by :func:`new_campaign`."""
    versions: dict[str, int] = {s["id"]: 1 for s in workload.character_sheets()}
    versions["campaign"] = 1
    out = []
    for number, events in workload.sessions(total, seed=seed):
        expected = {}
        for e in events:
            stream = stream_of(e)
            expected.setdefault(stream, versions[stream])
            versions[stream] += 1
        out.append((number, events, expected))
    return out


def close(camp: Campaign) -> None:
    camp.store.conn.close()


# --- 1. batched append ---------------------------------------------------------------------


def append_work(store: Any, work: Sequence[Batch]) -> list[tuple[Any, ...]]:
    """``store.append`` (any backend) of every session batch of ``work``, one transaction
    each, with its expected versions: the stored rows."""
    rows: list[tuple[Any, ...]] = []
    for number, events, expected in work:
        rows.extend(
            store.append(
                workload.CAMPAIGN,
                [Pending(e) for e in events],
                actor=ACTOR,
                recorded_at=AT,
                session=number,
                expected_versions=expected,
            )
        )
    return rows


def ledger_store_append(path: str, work: Sequence[Batch]) -> tuple[float, list[tuple[Any, ...]]]:
    """``Store.append`` of every session batch (chain + expected versions), one transaction
    each. Returns the seconds and the stored rows (the floor inserts the same rows)."""
    camp = new_campaign(path)
    t = time.perf_counter()
    rows = append_work(camp.store, work)
    elapsed = time.perf_counter() - t
    close(camp)
    return elapsed, rows


def ledger_campaign_append(path: str, work: Sequence[Batch]) -> float:
    """``Campaign.append``: the rules validate every event against the characters' current
    states (from snapshots), then ``Store.append`` as above."""
    camp = new_campaign(path)
    t = time.perf_counter()
    for number, events, expected in work:
        camp.append(events, actor=ACTOR, at=AT, expected_versions=expected, session=number)
    elapsed = time.perf_counter() - t
    close(camp)
    return elapsed


def floor_schema_path(path: str) -> None:
    """An empty ledger file (the store's own table, indexes and triggers) for the floor."""
    camp = new_campaign(path)
    close(camp)


def floor_append(path: str, rows: Sequence[tuple[Any, ...]], *, skip: int) -> float:
    """The raw floor: ``sqlite3`` ``executemany`` of the same rows (the same msgspec bytes,
    hashes precomputed) into the same table, one transaction, WAL, synchronous=NORMAL."""
    floor_schema_path(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("pragma journal_mode = wal")
    conn.execute("pragma synchronous = NORMAL")
    t = time.perf_counter()
    conn.execute("begin")
    conn.executemany(INSERT, rows[skip:])
    conn.execute("commit")
    elapsed = time.perf_counter() - t
    conn.close()
    return elapsed


def floor_bare_append(path: str, rows: Sequence[tuple[Any, ...]], *, skip: int) -> float:
    """The barest floor: ``(seq, data)`` into a table with no other index, one transaction."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("pragma journal_mode = wal")
    conn.execute("pragma synchronous = NORMAL")
    conn.execute("create table events (seq integer primary key, data text not null)")
    pairs = [(r[0], r[5]) for r in rows[skip:]]
    t = time.perf_counter()
    conn.execute("begin")
    conn.executemany("insert into events values (?, ?)", pairs)
    conn.execute("commit")
    elapsed = time.perf_counter() - t
    conn.close()
    return elapsed


# --- 2. replay -----------------------------------------------------------------------------


def ledger_replay(path: str) -> float:
    """Every character's state at the head, replayed through the d20-world appliers
    (``Campaign.states``: corrections, decode, dispatch, apply). Opening is timed too."""
    from ledger.campaign import open_campaign

    t = time.perf_counter()
    store = Store(path)
    camp = open_campaign(store, workload.CAMPAIGN)
    states = camp.states()
    elapsed = time.perf_counter() - t
    assert len(states) == 6, states.keys()
    store.conn.close()
    return elapsed


def _union_decoder() -> msgspec.json.Decoder[Any]:
    from ledger_d20_world.events import __dict__ as ns

    from ledger.events import CORE_EVENT_TYPES

    plugin = tuple(
        v
        for v in ns.values()
        if isinstance(v, type) and issubclass(v, Event) and v.__struct_config__.tag
    )
    return msgspec.json.Decoder(Union[CORE_EVENT_TYPES + plugin])  # type: ignore[valid-type]  # noqa: UP007


def floor_scan_decode(path: str) -> float:
    """The floor: ``select data ... order by seq`` and a msgspec decode of every payload into
    its typed struct (the same tagged union), nothing applied."""
    decode = _union_decoder().decode
    from ledger.codec import SALT

    t = time.perf_counter()
    conn = sqlite3.connect(path)
    n = 0
    for (data,) in conn.execute(
        "select data from events where campaign = ? order by seq", (workload.CAMPAIGN,)
    ):
        try:
            decode(data)
        except msgspec.ValidationError:  # a GM-only payload carries a salt: drop it
            raw = msgspec.json.decode(data)
            raw.pop(SALT)
            decode(msgspec.json.encode(raw))
        n += 1
    elapsed = time.perf_counter() - t
    conn.close()
    assert n > 0
    return elapsed


def correct_early(path: str, who: str) -> tuple[int, float]:
    """Retract ``who``'s first ``experience_marked`` (an early event) in the ledger at
    ``path`` through ``Campaign.correct`` (validated by a replay): its seq and the seconds."""
    from ledger.campaign import open_campaign

    store = Store(path)
    camp = open_campaign(store, workload.CAMPAIGN)
    (target,) = next(
        iter(
            store.rows(
                workload.CAMPAIGN,
                types=["d20-world.experience_marked"],
                stream=who,
                columns="seq",
            )
        )
    )
    t = time.perf_counter()
    camp.correct(target, "bench: an early correction", actor=ACTOR, at=AT)
    elapsed = time.perf_counter() - t
    store.conn.close()
    return target, elapsed


# --- 3. durable single appends -----------------------------------------------------------


def ledger_durable(path: str, events: Sequence[Event]) -> float:
    """One ``Store.append`` per event (its own BEGIN IMMEDIATE, head, version check, chain)
    with synchronous=FULL."""
    camp = new_campaign(path, synchronous="FULL")
    store = camp.store
    for e in events:  # an open session's seed is kept, as `campaign session start` does
        if isinstance(e, SessionStarted):
            store.put_secret(workload.CAMPAIGN, e.number, workload.session_secret(e.number))
    version = {
        s: store.stream_version(workload.CAMPAIGN, s) for s in {stream_of(e) for e in events}
    }
    t = time.perf_counter()
    for e in events:
        s = stream_of(e)
        store.append(
            workload.CAMPAIGN,
            [Pending(e)],
            actor=ACTOR,
            recorded_at=AT,
            session=1,
            expected_versions={s: version[s]},
        )
        version[s] += 1
    elapsed = time.perf_counter() - t
    close(camp)
    return elapsed


def floor_durable(path: str, rows: Sequence[tuple[Any, ...]]) -> float:
    """The floor: one ``insert`` of a precomputed row per transaction, synchronous=FULL."""
    floor_schema_path(path)
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("pragma journal_mode = wal")
    conn.execute("pragma synchronous = FULL")
    t = time.perf_counter()
    for row in rows:
        conn.execute("begin immediate")
        conn.execute(INSERT, row)
        conn.execute("commit")
    elapsed = time.perf_counter() - t
    conn.close()
    return elapsed


# --- eventsourcing ---------------------------------------------------------------------------


@functools.cache
def _es_classes() -> tuple[type, type]:
    from eventsourcing.application import Application
    from eventsourcing.domain import Aggregate, event

    from ledger.plugins import rule_systems

    system = rule_systems()[workload.SYSTEM].configure({})
    codec = Codec(system.event_types)
    appliers = system.appliers()
    sheets = {s["id"]: s for s in workload.character_sheets()}

    class Character(Aggregate):
        """A d20-world character as an eventsourcing aggregate: each event carries the
        payload as a dict and is applied with the same d20-world applier."""

        @event("Created")
        def __init__(self, character: str) -> None:
            sheet = dict(sheets[character])
            name = sheet.pop("name")
            sheet.pop("id")
            sheet.pop("player", None)
            self.state = system.initial_state(character, name, system.create_sheet(sheet))

        @event("Happened")
        def happened(self, type: str, data: dict[str, Any]) -> None:  # noqa: A002
            ev = codec.convert(type, {"type": type, **data})
            fn = appliers.get(ev.__class__)
            if fn is not None:
                self.state = fn(self.state, ev)

    class Ledger(Application):
        is_snapshotting_enabled = False

    return Character, Ledger


def es_app(path: str) -> Any:
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    _, Ledger = _es_classes()
    return Ledger(
        env={
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": path,
            "SQLITE_LOCK_TIMEOUT": "10",
        }
    )


def es_save_work(app: Any, aggs: dict[str, Any], work: Sequence[Batch]) -> None:
    """eventsourcing's side of an append case: each session's events triggered on their
    characters' aggregates ``aggs`` and saved in one ``app.save`` (campaign-stream events
    have no aggregate and are skipped)."""
    for _number, events, _expected in work:
        touched = {}
        for e in events:
            s = stream_of(e)
            if s == "campaign":
                continue
            data = msgspec.to_builtins(e)
            agg = aggs[s]
            agg.happened(type=data.pop("type"), data=data)
            touched[s] = agg
        app.save(*touched.values())


def es_append(path: str, work: Sequence[Batch]) -> tuple[float, dict[str, Any]]:
    """eventsourcing: one aggregate per character; each session's events are triggered on
    their aggregates (the same d20-world applier runs, as our validation does) and saved in
    one ``app.save`` (its SQLite application recorder, one transaction). Campaign-stream
    events have no aggregate (d20-world has no applier for them) and are skipped."""
    Character, _ = _es_classes()
    app = es_app(path)
    aggs = {s["id"]: Character(character=s["id"]) for s in workload.character_sheets()}
    app.save(*aggs.values())
    t = time.perf_counter()
    es_save_work(app, aggs, work)
    elapsed = time.perf_counter() - t
    ids = {s: a.id for s, a in aggs.items()}
    app.close()
    return elapsed, ids


def es_replay(path: str, ids: dict[str, Any]) -> float:
    """eventsourcing: reconstruct every character aggregate from its stored events."""
    t = time.perf_counter()
    app = es_app_open(path)
    states = {s: app.repository.get(i).state for s, i in ids.items()}
    elapsed = time.perf_counter() - t
    assert len(states) == 6
    app.close()
    return elapsed


def es_app_open(path: str) -> Any:
    _, Ledger = _es_classes()
    return Ledger(
        env={
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": path,
            "SQLITE_LOCK_TIMEOUT": "10",
        }
    )


def es_recorder_append(path: str, rows: Sequence[tuple[Any, ...]], *, skip: int) -> float:
    """eventsourcing's SQLite application recorder alone: ``insert_events`` of StoredEvents
    holding the same msgspec bytes, one call per session of 1,000 (context, not a goal)."""
    from eventsourcing.persistence import StoredEvent
    from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteDatastore

    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    ds = SQLiteDatastore(path, originator_id_type="text")
    rec = SQLiteApplicationRecorder(ds)
    rec.create_table()
    stored = [
        StoredEvent(originator_id=r[2], originator_version=r[3], topic=r[4], state=r[5].encode())
        for r in rows[skip:]
    ]
    t = time.perf_counter()
    for i in range(0, len(stored), workload.SESSION_EVENTS):
        rec.insert_events(stored[i : i + workload.SESSION_EVENTS])
    elapsed = time.perf_counter() - t
    ds.close()
    return elapsed
