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
from collections.abc import Iterable, Sequence
from typing import Any, Union

import msgspec
import workload

from ledger.campaign.aggregate import Campaign
from ledger.codec import Codec
from ledger.events import Event, SessionStarted, stream_of
from ledger.store.sqlite import COLUMNS, INSERT_CHUNK, MMAP_BYTES, Pending, Store

AT = "2026-03-01T20:00:00.000000Z"
ACTOR = "gm"
INSERT_HEAD = f"insert into events ({', '.join(COLUMNS)}) values "
ROW_MARKS = f"({', '.join('?' * len(COLUMNS))})"
INSERT = INSERT_HEAD + ROW_MARKS

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
        expected: dict[str, int] = {}
        for e in events:
            stream = stream_of(e)
            expected.setdefault(stream, versions[stream])
            versions[stream] += 1
        out.append((number, events, expected))
    return out


def close(camp: Campaign) -> None:
    camp.store.close()


# --- 1. batched append ---------------------------------------------------------------------


def appended(store: Any, work: Sequence[Batch]) -> list[Any]:
    """``store.append`` (any backend) of every session batch of ``work``, one transaction
    each, with its expected versions: the ``StoredEvent`` s it returns."""
    stored: list[Any] = []
    for number, events, expected in work:
        stored.extend(
            store.append(
                workload.CAMPAIGN,
                [Pending(e) for e in events],
                actor=ACTOR,
                recorded_at=AT,
                session=number,
                expected_versions=expected,
            )
        )
    return stored


def as_rows(stored: Sequence[Any]) -> list[tuple[Any, ...]]:
    """Stored events as tuples in ``COLUMNS`` order, as the floors insert them."""
    return [msgspec.structs.astuple(e) for e in stored]


def append_work(store: Any, work: Sequence[Batch]) -> list[tuple[Any, ...]]:
    """:func:`appended`, then the stored rows (tuples in ``COLUMNS`` order)."""
    return as_rows(appended(store, work))


def ledger_store_append(path: str, work: Sequence[Batch]) -> tuple[float, list[tuple[Any, ...]]]:
    """``Store.append`` of every session batch (chain + expected versions), one transaction
    each. Returns the seconds and the stored rows (the floor inserts the same rows; turning
    the returned events into tuples for it is the bench's work, outside the clock)."""
    camp = new_campaign(path)
    t = time.perf_counter()
    stored = appended(camp.store, work)
    elapsed = time.perf_counter() - t
    close(camp)
    return elapsed, as_rows(stored)


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


def raw_connection(path: str, *, synchronous: str = "NORMAL") -> sqlite3.Connection:
    """A plain ``sqlite3`` connection with the store's own settings (:class:`Store`): WAL,
    ``synchronous``, the memory-mapped reads of ``MMAP_BYTES``, recursive triggers,
    autocommit (transactions begun by hand)."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("pragma recursive_triggers = on")
    conn.execute("pragma journal_mode = wal")
    conn.execute(f"pragma synchronous = {synchronous}")
    conn.execute(f"pragma mmap_size = {MMAP_BYTES}")
    return conn


#: The raw floors of the batched append: how each session's rows go in. (A third, one
#: multi-row ``INSERT`` of the whole session, is the second itself while a session holds
#: no more than ``INSERT_CHUNK`` rows, as the workload's 1,000 do.)
FLOOR_METHODS = {
    "executemany": "sqlite3 executemany of a one-row INSERT",
    "multirow": f"multi-row INSERTs of {INSERT_CHUNK} rows (as Store.append writes)",
}


def _floor_plan(rows: Sequence[tuple[Any, ...]], method: str) -> list[list[tuple[str, Any]]]:
    """Per session, the statements and parameters of ``method`` (built outside the clock)."""
    sessions = [
        rows[i : i + workload.SESSION_EVENTS] for i in range(0, len(rows), workload.SESSION_EVENTS)
    ]
    if method == "executemany":
        return [[(INSERT, list(batch))] for batch in sessions]
    plan = []
    for batch in sessions:
        statements = []
        for i in range(0, len(batch), INSERT_CHUNK):
            part = batch[i : i + INSERT_CHUNK]
            sql = INSERT_HEAD + ", ".join([ROW_MARKS] * len(part))
            statements.append((sql, [v for row in part for v in row]))
        plan.append(statements)
    return plan


def floor_append(path: str, rows: Sequence[tuple[Any, ...]], *, method: str) -> float:
    """A raw floor of the batched append: the same rows (the same msgspec bytes, hashes
    precomputed) into the same table with its indexes and triggers, with the same batching
    as ``Store.append`` (one ``BEGIN IMMEDIATE`` transaction per session of
    :data:`workload.SESSION_EVENTS` rows) and the same settings (:func:`raw_connection`:
    WAL, ``synchronous=NORMAL``). ``method`` is a key of :data:`FLOOR_METHODS`; the bench
    takes the faster of them in each round as the floor."""
    floor_schema_path(path)
    plan = _floor_plan(rows, method)
    conn = raw_connection(path)
    many = method == "executemany"
    t = time.perf_counter()
    for statements in plan:
        conn.execute("begin immediate")
        for sql, args in statements:
            if many:
                conn.executemany(sql, args)
            else:
                conn.execute(sql, args)
        conn.execute("commit")
    elapsed = time.perf_counter() - t
    conn.close()
    return elapsed


def floor_bare_append(path: str, rows: Sequence[tuple[Any, ...]]) -> float:
    """The barest floor (context): ``(seq, data)`` into a table with no other index, one
    transaction per session, ``executemany``, the store's settings."""
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    conn = raw_connection(path)
    conn.execute("create table events (seq integer primary key, data text not null)")
    pairs = [(r[0], r[5]) for r in rows]
    t = time.perf_counter()
    for i in range(0, len(pairs), workload.SESSION_EVENTS):
        conn.execute("begin immediate")
        conn.executemany("insert into events values (?, ?)", pairs[i : i + workload.SESSION_EVENTS])
        conn.execute("commit")
    elapsed = time.perf_counter() - t
    conn.close()
    return elapsed


# --- 2. replay -----------------------------------------------------------------------------


def ledger_replay(path: str) -> float:
    """Every character's state at the head, replayed through the d20-world appliers
    (``Campaign.states``: corrections, decode, dispatch, apply). Opening is timed too."""
    from ledger.campaign.aggregate import open_campaign

    t = time.perf_counter()
    store = Store(path)
    camp = open_campaign(store, workload.CAMPAIGN)
    states = camp.states()
    elapsed = time.perf_counter() - t
    assert len(states) == 6, states.keys()
    store.conn.close()
    return elapsed


@functools.cache
def floor_decoder() -> msgspec.json.Decoder[Any]:
    """The replay floor's decoder: one plain msgspec decoder of the union of the campaign's
    event types (core + d20-world), tagged by ``type``, each with the optional ``salt`` a
    GM-only payload carries and the ``schema_version`` a payload of a later version of its
    type carries, so every row decodes the same way in one call and nothing of
    the ledger's codec runs (no visibility branch, no salt dropped)."""
    from ledger.campaign.aggregate import load_system

    plain = [
        msgspec.defstruct(
            cls.__name__,
            [("salt", str | None, None), ("schema_version", int, 1)],
            bases=(cls,),
            tag=cls.__struct_config__.tag,
            frozen=True,
            kw_only=True,
        )
        for cls in Codec(load_system(workload.SYSTEM).event_types).types.values()
    ]
    return msgspec.json.Decoder(Union[tuple(plain)])  # noqa: UP007


def decode_rows(rows: Iterable[tuple[Any, ...]]) -> int:
    """The replay floor's decode: each row's ``data`` into its typed struct with
    :func:`floor_decoder`; nothing applied. Returns how many rows."""
    decode = floor_decoder().decode
    n = 0
    for (data,) in rows:
        decode(data)
        n += 1
    return n


def floor_scan_decode(path: str) -> float:
    """The replay floor: ``select data ... order by seq`` on a connection with the store's
    settings (memory-mapped reads, :func:`raw_connection`) and :func:`decode_rows`. Opening
    is timed too, as the replay's is."""
    floor_decoder()
    t = time.perf_counter()
    conn = raw_connection(path)
    n = decode_rows(
        conn.execute(
            "select data from events where campaign = ? order by seq",
            (workload.CAMPAIGN,),
        )
    )
    elapsed = time.perf_counter() - t
    conn.close()
    assert n > 0
    return elapsed


def correct_early(path: str, who: str) -> tuple[int, float]:
    """Retract ``who``'s first ``experience_marked`` (an early event) in the ledger at
    ``path`` through ``Campaign.correct`` (validated by a replay): its seq and the seconds."""
    from ledger.campaign.aggregate import open_campaign

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
    """The floor: one ``insert`` of a precomputed row per ``BEGIN IMMEDIATE`` transaction,
    the store's settings with synchronous=FULL."""
    floor_schema_path(path)
    conn = raw_connection(path, synchronous="FULL")
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
    from eventsourcing.persistence import Transcoding

    from ledger.rules.plugins import rule_systems

    system = rule_systems()[workload.SYSTEM].configure({})
    codec = Codec(system.event_types)
    appliers = system.appliers()
    sheets = {s["id"]: s for s in workload.character_sheets()}

    class Character(Aggregate):
        """A d20-world character as an eventsourcing aggregate: each event carries our
        payload struct itself and is applied with the same d20-world applier."""

        @event("Created")
        def __init__(self, character: str) -> None:
            sheet = dict(sheets[character])
            name = sheet.pop("name")
            sheet.pop("id")
            sheet.pop("player", None)
            self.state = system.initial_state(character, name, system.create_sheet(sheet))

        @event("Happened")
        def happened(self, payload: Event) -> None:
            fn = appliers.get(payload.__class__)
            if fn is not None:
                self.state = fn(self.state, payload)

    def transcoding(cls: type[Event]) -> Transcoding:
        tag = str(cls.__struct_config__.tag)

        class PayloadAsDict(Transcoding):
            """Our payload struct in eventsourcing's JSON transcoder, as an application
            with its own value types registers one: out as msgspec's builtins, back in
            by msgspec's ``convert``."""

            type = cls
            name = tag

            def encode(self, obj: Any) -> Any:
                return msgspec.to_builtins(obj)

            def decode(self, data: Any) -> Any:
                return codec.convert(tag, data)

        return PayloadAsDict()

    class Ledger(Application):
        is_snapshotting_enabled = False

        def register_transcodings(self, transcoder: Any) -> None:
            super().register_transcodings(transcoder)
            for cls in system.event_types:
                transcoder.register(transcoding(cls))

    return Character, Ledger


#: SQLite's ``synchronous`` on eventsourcing's connections: the store's default (NORMAL),
#: so both sides of a comparison have the same durability (eventsourcing leaves SQLite's
#: compiled default, FULL in WAL mode here: ``pragma compile_options``).
ES_SQLITE_SYNCHRONOUS = "NORMAL"


@functools.cache
def _es_sqlite_synchronous() -> None:
    """Give every SQLite connection eventsourcing opens :data:`ES_SQLITE_SYNCHRONOUS`."""
    from eventsourcing import sqlite as es_sqlite

    create = es_sqlite.SQLiteConnectionPool._create_connection

    def create_with_synchronous(self: Any) -> Any:
        conn = create(self)
        conn._sqlite_conn.execute(f"pragma synchronous = {ES_SQLITE_SYNCHRONOUS}")
        return conn

    es_sqlite.SQLiteConnectionPool._create_connection = create_with_synchronous  # type: ignore[method-assign]


def _remove(path: str) -> None:
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)


def es_app(path: str) -> Any:
    """A fresh eventsourcing application on a new SQLite file at ``path``."""
    _remove(path)
    return es_app_open(path)


#: eventsourcing's side of the work: per session, ``(character, payload)`` of each event
#: on a character's stream (campaign-stream events have no aggregate).
EsPlan = list[list[tuple[str, Event]]]


def es_plan(work: Sequence[Batch]) -> EsPlan:
    """The events of ``work`` eventsourcing writes, with their aggregates' names (made
    before the clock starts, so its clock holds no bench work)."""
    return [
        [(s, e) for e in events if (s := stream_of(e)) != "campaign"]
        for _number, events, _expected in work
    ]


def es_save_work(app: Any, aggs: dict[str, Any], plan: EsPlan) -> None:
    """eventsourcing's side of an append case: each session's payloads triggered on their
    characters' aggregates ``aggs`` and saved in one ``app.save``."""
    for session in plan:
        touched = {}
        for s, payload in session:
            agg = aggs[s]
            agg.happened(payload=payload)
            touched[s] = agg
        app.save(*touched.values())


def es_append(path: str, work: Sequence[Batch]) -> tuple[float, dict[str, Any]]:
    """eventsourcing's application, the peer of ``Campaign.append`` (both run the rules):
    one aggregate per character; each session's events are triggered on their aggregates
    (the event carries our payload struct; the same d20-world applier runs) and saved in one
    ``app.save`` (its SQLite application recorder, one transaction; its JSON transcoder
    writes the payload through a registered transcoding, :func:`_es_classes`).
    Campaign-stream events (sessions and scenes, 4%) have no aggregate and are not
    written, which favours eventsourcing."""
    Character, _ = _es_classes()
    app = es_app(path)
    aggs = {s["id"]: Character(character=s["id"]) for s in workload.character_sheets()}
    app.save(*aggs.values())
    plan = es_plan(work)
    t = time.perf_counter()
    es_save_work(app, aggs, plan)
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
    """The eventsourcing application on the SQLite file at ``path`` (WAL, its pool of
    connections at :data:`ES_SQLITE_SYNCHRONOUS`)."""
    _es_sqlite_synchronous()
    _, Ledger = _es_classes()
    return Ledger(
        env={
            "PERSISTENCE_MODULE": "eventsourcing.sqlite",
            "SQLITE_DBNAME": path,
            "SQLITE_LOCK_TIMEOUT": "10",
        }
    )


def stored_events(rows: Sequence[tuple[Any, ...]]) -> list[Any]:
    """eventsourcing ``StoredEvent`` s holding the rows' own bytes: originator id = the
    campaign's stream, version = the stream's version, topic = the type, state = the data."""
    from eventsourcing.persistence import StoredEvent

    return [
        StoredEvent(originator_id=r[2], originator_version=r[3], topic=r[4], state=r[5].encode())
        for r in rows
    ]


def es_aggregate_recorder_append(path: str, rows: Sequence[tuple[Any, ...]]) -> float:
    """eventsourcing's SQLite aggregate recorder, the rule-free peer of ``Store.append``:
    ``insert_events`` of the same bytes (:func:`stored_events`), one call (one transaction)
    per session of :data:`workload.SESSION_EVENTS`. Its table's primary key
    ``(originator_id, originator_version)`` is its per-stream version check: a version
    written twice fails the insert. No chain, no head, no other index. WAL and
    :data:`ES_SQLITE_SYNCHRONOUS`."""
    from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteDatastore

    _es_sqlite_synchronous()
    _remove(path)
    ds = SQLiteDatastore(path, originator_id_type="text")
    rec = SQLiteAggregateRecorder(ds)
    rec.create_table()
    stored = stored_events(rows)
    t = time.perf_counter()
    for i in range(0, len(stored), workload.SESSION_EVENTS):
        rec.insert_events(stored[i : i + workload.SESSION_EVENTS])
    elapsed = time.perf_counter() - t
    ds.close()
    return elapsed
