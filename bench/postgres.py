"""Campaign Ledger on PostgreSQL, side by side with the raw psycopg floor and eventsourcing.

    uv run python bench/postgres.py                 # 20,000 events, hosted load 1,000 campaigns
    uv run python bench/postgres.py --events 100000 --rounds 7
    uv run python bench/postgres.py --url postgresql://postgres@127.0.0.1:5432/test --json out.json

The server is ``--url``, else ``CAMPAIGN_TEST_POSTGRES``, else postgresql://postgres@127.0.0.1:5432/test;
every case works in a schema of its own (``bench_<random>``) and drops it.

1. Append: ``PostgresStore.append`` of the bench workload (sessions of 1,000 d20-world events,
   chain and expected versions included, one transaction each) against the raw floor (psycopg
   ``COPY`` of the same rows, the same bytes and hashes precomputed, into the same table, one
   transaction per session too) and eventsourcing's PostgreSQL aggregate recorder
   (``insert_events`` of the same bytes, one call per session: its per-stream version check,
   no table lock); ``Campaign.append`` (the rules validate every event) against
   eventsourcing's application (aggregates running the same rules, one ``save`` a session).
2. Replay: every character's state through the d20-world rules (``Campaign.states``) against
   the floor's scan + decode (``select visibility, data`` and each payload decoded as the
   fold decodes it) and eventsourcing's repository (each aggregate from its events).
3. Hosted load: 1,000 campaigns in one database; W writer processes each append small
   batches (1-5 notes) to random campaigns at once, the same plan in every case:
   ``Campaign.append`` and ``PostgresStore.append`` (each with the campaign stream's expected
   version, read just before; a conflict is retried), the raw floor (one multi-row ``INSERT``
   an append of the same rows, chained beforehand: no lock, no read) and eventsourcing's
   aggregate recorder (read the stream's last version, insert at the next; retried on its
   ``IntegrityError``). Throughput, p50/p99 append latency; then 0 lost (every acknowledged
   event is there, seq gap-free), 0 duplicated, every campaign verifies. W = 1, 2, 4, 8, 16.

Every side commits with the server's own ``synchronous_commit`` (``on`` by default: each commit
waits for its WAL flush). Every figure is a median over rounds (rotated order, ratios per round), as bench/run.py does.
Nothing here is a test; docs/performance.md records a run.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import random
import statistics
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases  # noqa: E402
import msgspec  # noqa: E402
import psycopg  # noqa: E402
import workload  # noqa: E402
from run import med, rounds, speed  # noqa: E402

from ledger.campaign.aggregate import Campaign, open_campaign  # noqa: E402
from ledger.chain import COLUMNS, Head, chain_rows  # noqa: E402
from ledger.events import NoteAdded  # noqa: E402
from ledger.history.verify import verify_store  # noqa: E402
from ledger.store.base import ConflictError, Pending, encode_batch  # noqa: E402
from ledger.store.postgres import PostgresStore  # noqa: E402

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/test"


# --- schemas ---------------------------------------------------------------------------------


def with_schema(url: str, schema: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"


@contextmanager
def schema(url: str) -> Iterator[tuple[str, str]]:
    """A fresh schema: yields ``(its URL, its name)``; dropped afterwards."""
    name = f"bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"create schema {name}")
    try:
        yield with_schema(url, name), name
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"drop schema {name} cascade")


def new_campaign(url: str) -> Campaign:
    """The bench campaign and its six characters in a fresh store at ``url``."""
    store = PostgresStore(url)
    camp = Campaign.create(
        store, workload.CAMPAIGN, system=workload.SYSTEM, actor=cases.ACTOR, at=cases.AT
    )
    for sheet in workload.character_sheets():
        camp.add_character(sheet, actor=cases.ACTOR, at=cases.AT)
    return camp


# --- 1. append ---------------------------------------------------------------------------------


def ledger_append(url: str, work: Sequence[cases.Batch]) -> tuple[float, list[tuple[Any, ...]]]:
    """``PostgresStore.append`` of every session (chain + expected versions + lock)."""
    with schema(url) as (u, _):
        camp = new_campaign(u)
        t = time.perf_counter()
        stored = cases.appended(camp.store, work)
        elapsed = time.perf_counter() - t
        camp.store.close()
    return elapsed, cases.as_rows(stored)


def copy_text(rows: Sequence[tuple[Any, ...]]) -> bytes:
    """``rows`` in ``COPY ... FROM STDIN`` text format (tab-separated, ``\\N`` for null,
    backslash, tab and line breaks escaped): what ``copy.write_row`` sends, made beforehand."""

    def field(value: Any) -> str:
        if value is None:
            return "\\N"
        text = str(value)
        if "\\" in text or "\t" in text or "\n" in text or "\r" in text:
            text = (
                text.replace("\\", "\\\\")
                .replace("\t", "\\t")
                .replace("\n", "\\n")
                .replace("\r", "\\r")
            )
        return text

    return "".join("\t".join(map(field, row)) + "\n" for row in rows).encode()


def floor_append(url: str, rows: Sequence[tuple[Any, ...]]) -> float:
    """The raw floor: ``COPY`` of the same rows (the same bytes, hashes precomputed, the COPY
    text itself made beforehand: :func:`copy_text`) into the same table (its indexes and
    triggers), one transaction per session of :data:`workload.SESSION_EVENTS` rows, as
    ``PostgresStore.append`` writes (its ``COPY`` formats each row with ``write_row``)."""
    size = workload.SESSION_EVENTS
    buffers = [copy_text(rows[i : i + size]) for i in range(0, len(rows), size)]
    with schema(url) as (u, _):
        PostgresStore(u).close()  # the tables, indexes and triggers
        with psycopg.connect(u, autocommit=True) as conn:
            t = time.perf_counter()
            for buffer in buffers:
                with (
                    conn.transaction(),
                    conn.cursor() as cur,
                    cur.copy(f"copy events ({', '.join(COLUMNS)}) from stdin") as copy,
                ):
                    copy.write(buffer)
            elapsed = time.perf_counter() - t
            (count,) = conn.execute("select count(*) from events").fetchone()  # type: ignore[misc]
    assert count == len(rows), (count, len(rows))
    return elapsed


def es_env(u: str, name: str) -> dict[str, str]:
    info = psycopg.conninfo.conninfo_to_dict(u)
    return {
        "PERSISTENCE_MODULE": "eventsourcing.postgres",
        "POSTGRES_DBNAME": str(info.get("dbname", "test")),
        "POSTGRES_HOST": str(info.get("host", "127.0.0.1")),
        "POSTGRES_PORT": str(info.get("port", "5432")),
        "POSTGRES_USER": str(info.get("user", "postgres")),
        "POSTGRES_PASSWORD": str(info.get("password", "")),
        "POSTGRES_SCHEMA": name,
        "POSTGRES_POOL_SIZE": "1",
    }


def es_factory(u: str, name: str, *, create: bool) -> Any:
    """eventsourcing's PostgreSQL infrastructure in schema ``name`` (text originator ids)."""
    from eventsourcing.postgres import PostgresFactory

    env = es_env(u, name) | {"CREATE_TABLE": "y" if create else "n", "ORIGINATOR_ID_TYPE": "text"}
    return PostgresFactory(env)  # type: ignore[arg-type]


def es_aggregate_recorder_append(url: str, rows: Sequence[tuple[Any, ...]]) -> float:
    """eventsourcing's PostgreSQL aggregate recorder, the rule-free peer of
    ``PostgresStore.append``: ``insert_events`` of the same bytes (``cases.stored_events``),
    one call (one statement, its own transaction) per session. Its primary key
    ``(originator_id, originator_version)`` is its per-stream version check; it takes no
    table lock (its application recorder takes ``LOCK TABLE ... IN EXCLUSIVE MODE`` to
    number notifications)."""
    with schema(url) as (u, name):
        factory = es_factory(u, name, create=True)
        rec = factory.aggregate_recorder()
        stored = cases.stored_events(rows)
        t = time.perf_counter()
        for i in range(0, len(stored), workload.SESSION_EVENTS):
            rec.insert_events(stored[i : i + workload.SESSION_EVENTS])
        elapsed = time.perf_counter() - t
        factory.close()
    return elapsed


def campaign_append(url: str, work: Sequence[cases.Batch]) -> float:
    """``Campaign.append`` of every session on PostgreSQL: the rules validate each event
    against the characters' states, then ``PostgresStore.append`` as above."""
    with schema(url) as (u, _):
        camp = new_campaign(u)
        t = time.perf_counter()
        for number, events, expected in work:
            camp.append(
                events, actor=cases.ACTOR, at=cases.AT, expected_versions=expected, session=number
            )
        elapsed = time.perf_counter() - t
        camp.store.close()
    return elapsed


def es_app(u: str, name: str) -> Any:
    _, Ledger = cases._es_classes()
    return Ledger(env=es_env(u, name))


def es_append(url: str, work: Sequence[cases.Batch]) -> float:
    """eventsourcing's application, the peer of ``Campaign.append`` (both run the rules):
    one aggregate per character (the same d20-world applier runs), one ``save`` a session
    (its application recorder), as bench/cases.py's SQLite case."""
    Character, _ = cases._es_classes()
    with schema(url) as (u, name):
        app = es_app(u, name)
        aggs = {s["id"]: Character(character=s["id"]) for s in workload.character_sheets()}
        app.save(*aggs.values())
        plan = cases.es_plan(work)
        t = time.perf_counter()
        cases.es_save_work(app, aggs, plan)
        elapsed = time.perf_counter() - t
        app.close()
    return elapsed


def bench_append(url: str, n: int, reps: int) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    """1. Batched append: ``PostgresStore.append`` against the ``COPY`` floor and
    eventsourcing's aggregate recorder; ``Campaign.append`` against eventsourcing's
    application. Every side commits with the server's ``synchronous_commit``."""
    print(f"append on PostgreSQL, {n:,} events, {reps} rounds")
    work = cases.batches(n)
    events = sum(len(b[1]) for b in work)
    _, rows = ledger_append(url, work)  # warm-up; the rows the floors insert
    rows = [tuple(r) for r in rows[len(rows) - events :]]
    named: dict[str, Callable[[], float]] = {
        "store.append": lambda: ledger_append(url, work)[0],
        "floor_copy": lambda: floor_append(url, rows),
        "es_aggregate_recorder": lambda: es_aggregate_recorder_append(url, rows),
        "campaign.append": lambda: campaign_append(url, work),
        "eventsourcing": lambda: es_append(url, work),
    }
    res = rounds(reps, named)
    return {
        "events": events,
        "seconds": {k: round(med(res, k), 4) for k in res},
        "events_per_s": {k: round(events / med(res, k)) for k in res},
        "store_vs_floor": round(speed(res, "store.append", "floor_copy"), 3),
        "store_vs_es_aggregate_recorder": round(
            speed(res, "store.append", "es_aggregate_recorder"), 2
        ),
        "campaign_vs_floor": round(speed(res, "campaign.append", "floor_copy"), 3),
        "campaign_vs_eventsourcing": round(speed(res, "campaign.append", "eventsourcing"), 2),
    }, rows


# --- 2. replay ---------------------------------------------------------------------------------


def bench_replay(url: str, n: int, reps: int) -> dict[str, Any]:
    print(f"replay on PostgreSQL, {n:,} events, {reps} rounds")
    work = cases.batches(n)
    cases.floor_decoder()
    with schema(url) as (u, name):
        camp = new_campaign(u)
        cases.append_work(camp.store, work)
        camp.store.close()
        Character, _ = cases._es_classes()
        app = es_app(u, name)
        aggs = {s["id"]: Character(character=s["id"]) for s in workload.character_sheets()}
        for session in cases.es_plan(work):
            for s, payload in session:
                aggs[s].happened(payload=payload)
            app.save(*aggs.values())
        ids = {s: a.id for s, a in aggs.items()}
        app.close()

        def ledger() -> float:
            t = time.perf_counter()
            store = PostgresStore(u)
            states = open_campaign(store, workload.CAMPAIGN).states()
            elapsed = time.perf_counter() - t
            assert len(states) == 6
            store.close()
            return elapsed

        def floor() -> float:
            t = time.perf_counter()
            count = 0
            with psycopg.connect(u) as conn, conn.cursor() as cur:
                cur.execute(
                    "select data from events where campaign = %s order by seq",
                    (workload.CAMPAIGN,),
                )
                while page := cur.fetchmany(5000):
                    count += cases.decode_rows(page)
            elapsed = time.perf_counter() - t
            assert count > n // 2
            return elapsed

        def es() -> float:
            t = time.perf_counter()
            app = es_app(u, name)
            states = {s: app.repository.get(i).state for s, i in ids.items()}
            elapsed = time.perf_counter() - t
            assert len(states) == 6
            app.close()
            return elapsed

        res = rounds(reps, {"ledger": ledger, "floor_scan_decode": floor, "eventsourcing": es})
    return {
        "events": n,
        "seconds": {k: round(med(res, k), 4) for k in res},
        "events_per_s": {k: round(n / med(res, k)) for k in res},
        "ledger_vs_floor": round(speed(res, "ledger", "floor_scan_decode"), 3),
        "ledger_vs_eventsourcing": round(speed(res, "ledger", "eventsourcing"), 2),
    }


# --- 3. hosted load ------------------------------------------------------------------------------

#: The many-writer cases, side by side: ours (with and without the rules), the raw floor and
#: eventsourcing's aggregate recorder.
HOSTED_CASES = ("campaign.append", "store.append", "floor", "es_aggregate_recorder")
#: What a hosted run counts that must be 0 (:func:`hosted_checks`).
HOSTED_PROBLEMS = (
    "lost",
    "duplicated",
    "misplaced",
    "campaigns_failing_verify_or_gapped",
    "streams_gapped",
)
#: Per writer, its appends in order: ``(campaign index, notes)``.
Plan = list[list[tuple[int, int]]]


def hosted_setup(u: str, campaigns: int) -> list[str]:
    """``campaigns`` campaigns (decision-dice, no characters) in one database."""
    store = PostgresStore(u)
    ids = [f"table-{i:04d}" for i in range(campaigns)]
    for cid in ids:
        Campaign.create(store, cid, system="decision-dice", actor="gm", at=cases.AT)
    store.close()
    return ids


def hosted_plan(campaigns: int, writers: int, appends: int) -> Plan:
    """What every writer appends, the same for every case: ``appends`` batches of 1-5 notes,
    each to a random campaign (seeded by the writer's number)."""
    plan = []
    for w in range(writers):
        rng = random.Random(w)
        plan.append([(rng.randrange(campaigns), rng.randint(1, 5)) for _ in range(appends)])
    return plan


def note(writer: int, k: int, i: int) -> NoteAdded:
    """The ``i``-th note of writer ``writer``'s ``k``-th append (its text names all three)."""
    return NoteAdded(text=f"w{writer}:{k}:{i}")


def floor_rows(created: Sequence[tuple[Any, ...]], plan: Plan) -> list[list[list[tuple[Any, ...]]]]:
    """The rows the floor's writers insert, chained as the store would (each campaign's
    appends taken round-robin over the writers): per writer, per append, its rows. Unique
    ``(campaign, seq)`` and ``(campaign, stream, version)``, so no insert conflicts."""
    heads = {r[1]: Head(r[0], r[11]) for r in created}
    versions = {r[1]: r[3] for r in created}
    ids = [r[1] for r in created]
    out: list[list[list[tuple[Any, ...]]]] = [[] for _ in plan]
    for k in range(max(len(p) for p in plan)):
        for w, appends in enumerate(plan):
            if k >= len(appends):
                continue
            ci, count = appends[k]
            cid = ids[ci]
            encoded = encode_batch([Pending(note(w, k, i)) for i in range(count)])
            rows = chain_rows(
                cid,
                encoded,
                heads[cid],
                actor=f"w{w}",
                recorded_at=cases.AT,
                session=None,
                version_of=lambda _stream, cid=cid: versions[cid],  # type: ignore[misc]
            )
            heads[cid] = Head(rows[-1][0], rows[-1][11])
            versions[cid] += count
            out[w].append([tuple(r) for r in rows])
    return out


def hosted_writer(
    kind: str, u: str, name: str, ids: list[str], writer: int, appends: list[tuple[int, int]],
    rows: list[list[tuple[Any, ...]]] | None, go: Any, out: str,
) -> None:  # fmt: skip
    """One writer process of case ``kind`` (:data:`HOSTED_CASES`): its ``appends`` in order.

    - ``campaign.append``: ``Campaign.append`` (the rules) with the campaign stream's
      expected version, read just before (``stream_version``); a conflict is read again and
      retried;
    - ``store.append``: the same through ``PostgresStore.append`` (no rules);
    - ``floor``: one multi-row ``INSERT`` (autocommit: one statement, one transaction) of
      the precomputed ``rows``: no lock, no read, no chain;
    - ``es_aggregate_recorder``: the stream's last version (``select_events(desc=True,
      limit=1)``), then ``insert_events`` of the notes' bytes at the next versions; its
      ``IntegrityError`` (another writer took the version) is read again and retried.

    Writes ``{"events": [[campaign, text, seq]...], "latencies": [...], "conflicts": n}``.
    """
    latencies: list[float] = []
    got: list[list[Any]] = []
    conflicts = 0
    if kind == "floor":
        assert rows is not None
        conn = psycopg.connect(u, autocommit=True)
        head = f"insert into events ({', '.join(COLUMNS)}) values "
        marks = f"({', '.join(['%s'] * len(COLUMNS))})"
        go.wait()
        for batch in rows:
            sql = head + ", ".join([marks] * len(batch))
            args = [v for r in batch for v in r]
            t = time.perf_counter()
            conn.execute(sql, args)
            latencies.append(time.perf_counter() - t)
        conn.close()
    elif kind == "es_aggregate_recorder":
        from eventsourcing.persistence import IntegrityError, StoredEvent

        factory = es_factory(u, name, create=False)
        rec = factory.aggregate_recorder()
        go.wait()
        for k, (ci, count) in enumerate(appends):
            cid = ids[ci]
            states = [codec_encode(note(writer, k, i)) for i in range(count)]
            t = time.perf_counter()
            while True:
                (last,) = rec.select_events(cid, desc=True, limit=1)
                version = last.originator_version
                stored = [
                    StoredEvent(
                        originator_id=cid,
                        originator_version=version + 1 + i,
                        topic="note.added",
                        state=state,
                    )
                    for i, state in enumerate(states)
                ]
                try:
                    rec.insert_events(stored)
                    break
                except IntegrityError:
                    conflicts += 1
            latencies.append(time.perf_counter() - t)
        factory.close()
    else:
        store = PostgresStore(u)
        camps: dict[str, Campaign] = {}
        go.wait()
        for k, (ci, count) in enumerate(appends):
            cid = ids[ci]
            notes = [note(writer, k, i) for i in range(count)]
            t = time.perf_counter()
            while True:
                version = store.stream_version(cid, "campaign")
                try:
                    if kind == "campaign.append":
                        camp = camps.get(cid)
                        if camp is None:
                            camp = camps[cid] = open_campaign(store, cid)
                        seqs = [
                            r.seq
                            for r in camp.append(
                                notes,
                                actor=f"w{writer}",
                                at=cases.AT,
                                expected_versions={"campaign": version},
                            )
                        ]
                    else:
                        seqs = [
                            e.seq
                            for e in store.append(
                                cid,
                                [Pending(e) for e in notes],
                                actor=f"w{writer}",
                                recorded_at=cases.AT,
                                session=None,
                                expected_versions={"campaign": version},
                            )
                        ]
                    break
                except ConflictError:  # another writer got there first
                    conflicts += 1
            latencies.append(time.perf_counter() - t)
            got.extend([cid, e.text, seq] for e, seq in zip(notes, seqs, strict=True))
        store.close()
    Path(out).write_text(
        json.dumps({"events": got, "latencies": latencies, "conflicts": conflicts})
    )


def codec_encode(event: Any) -> bytes:
    """An event's canonical payload bytes, as the store writes them."""
    return encode_batch([Pending(event)])[0][3]


class HostedSetup:
    """The starting state every case of one hosted-load run copies: ``campaigns`` campaigns
    made once by ``Campaign.create`` (their ``campaign.created`` rows, the same bytes in
    every case), and the plan of every writer count."""

    def __init__(self, url: str, campaigns: int) -> None:
        with schema(url) as (u, _):
            hosted_setup(u, campaigns)
            store = PostgresStore(u)
            self.created = [
                msgspec.structs.astuple(e)
                for cid in store.campaign_ids()
                for e in store.rows(cid, upto=1)
            ]
            store.close()
        self.ids = [r[1] for r in self.created]

    def fill(self, kind: str, u: str, name: str) -> None:
        """Give the fresh schema ``name`` the starting state for case ``kind``."""
        if kind == "es_aggregate_recorder":
            factory = es_factory(u, name, create=True)
            rec = factory.aggregate_recorder()
            from eventsourcing.persistence import StoredEvent

            rec.insert_events(  # one stream a campaign: the campaign stream
                [
                    StoredEvent(
                        originator_id=r[1], originator_version=r[3], topic=r[4], state=r[5].encode()
                    )
                    for r in self.created
                ]
            )
            factory.close()
            return
        store = PostgresStore(u)
        with store.transaction():
            store.insert_rows(self.created)
        store.close()


def hosted_run(
    url: str, setup: HostedSetup, kind: str, plan: Plan, rows: Any, tmp: Path
) -> dict[str, Any]:
    """One run of case ``kind``: every writer of ``plan`` in its own process, started at
    once. Returns the wall seconds, latencies and the checks: every acknowledged event is
    in its campaign at the seq its writer was told, seqs gap-free, nothing stored twice,
    every campaign verifies (``campaign.append`` and ``store.append``); the floor's and
    eventsourcing's tables hold every row, each stream's versions gap-free."""
    writers = len(plan)
    with schema(url) as (u, name):
        setup.fill(kind, u, name)
        ctx = multiprocessing.get_context("fork")
        go = ctx.Barrier(writers + 1)  # every writer connected, and this process
        procs = [
            ctx.Process(
                target=hosted_writer,
                args=(
                    kind,
                    u,
                    name,
                    setup.ids,
                    w,
                    plan[w],
                    rows[w] if rows else None,
                    go,
                    str(tmp / f"h{w}.json"),
                ),
            )  # fmt: skip
            for w in range(writers)
        ]
        for p in procs:
            p.start()
        go.wait(timeout=60)  # the writers start when all are connected
        t = time.perf_counter()
        for p in procs:
            p.join()
        wall = time.perf_counter() - t
        assert all(p.exitcode == 0 for p in procs), [p.exitcode for p in procs]
        reports = [json.loads((tmp / f"h{w}.json").read_text()) for w in range(writers)]
        events = sum(count for appends in plan for _, count in appends)
        checks = hosted_checks(kind, u, name, setup, reports, events)
    latencies = sorted(x for r in reports for x in r["latencies"])
    return {
        "seconds": wall,
        "events": events,
        "latency_ms_p50": 1000 * statistics.median(latencies),
        "latency_ms_p99": 1000 * latencies[int(0.99 * (len(latencies) - 1))],
        "conflicts_retried": sum(r["conflicts"] for r in reports),
        **checks,
    }


def hosted_checks(
    kind: str, u: str, name: str, setup: HostedSetup, reports: list[dict[str, Any]], events: int
) -> dict[str, int]:
    """What one hosted run left, counted: see :func:`hosted_run`."""
    if kind == "floor" or kind == "es_aggregate_recorder":
        table = "events" if kind == "floor" else "stored_events"
        stream = "campaign" if kind == "floor" else "originator_id"
        version = "version" if kind == "floor" else "originator_version"
        with psycopg.connect(u) as conn:
            ((count, gapped),) = conn.execute(
                f"select sum(n), count(*) filter (where n <> top) from (select {stream}, "
                f"count(*) as n, max({version}) as top from {table} group by {stream}) s"
            ).fetchall()
        return {"lost": events + len(setup.ids) - int(count), "streams_gapped": int(gapped)}
    told = {(c, x): s for r in reports for c, x, s in r["events"]}
    store = PostgresStore(u)
    stored: Counter[tuple[str, str]] = Counter()
    misplaced = bad = 0
    for cid in setup.ids:
        rows = list(store.rows(cid, columns=["seq", "data"]))
        if [r[0] for r in rows] != list(range(1, len(rows) + 1)):
            bad += 1
        for seq, data in rows[1:]:
            key = (cid, msgspec.json.decode(data)["text"])
            stored[key] += 1
            if told.get(key) != seq:
                misplaced += 1
        if not verify_store(store, cid).ok:
            bad += 1
    store.close()
    return {
        "lost": sum(1 for key in told if key not in stored) + events - len(told),
        "duplicated": sum(n - 1 for n in stored.values() if n > 1),
        "misplaced": misplaced,
        "campaigns_failing_verify_or_gapped": bad,
    }


def hosted_for(
    url: str, setup: HostedSetup, writers: int, appends: int, tmp: Path, reps: int
) -> dict[str, Any]:
    """Every case of :data:`HOSTED_CASES` with ``writers`` writers of ``appends`` appends,
    once a round (rotated order), ``reps`` rounds: medians and per-round ratios."""
    campaigns = len(setup.ids)
    print(f"hosted load: {campaigns:,} campaigns, {writers} writers x {appends} appends")
    plan = hosted_plan(campaigns, writers, appends)
    rows = floor_rows(setup.created, plan)
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in HOSTED_CASES}

    def case(kind: str) -> Callable[[], float]:
        def run() -> float:
            found = hosted_run(url, setup, kind, plan, rows if kind == "floor" else None, tmp)
            runs[kind].append(found)
            return float(found["seconds"])

        return run

    res = rounds(reps, {k: case(k) for k in HOSTED_CASES})
    events = runs["floor"][0]["events"]
    result: dict[str, Any] = {
        "writers": writers,
        "campaigns": campaigns,
        "appends": writers * appends,
        "events": events,
    }
    for kind in HOSTED_CASES:
        found = runs[kind]
        counted = [k for k in found[0] if k not in ("seconds", "events") and "latency" not in k]
        result[kind] = {
            "events_per_s": round(events / med(res, kind)),
            "appends_per_s": round(writers * appends / med(res, kind)),
            "latency_ms_p50": round(statistics.median(f["latency_ms_p50"] for f in found), 2),
            "latency_ms_p99": round(statistics.median(f["latency_ms_p99"] for f in found), 2),
            **{k: sum(f[k] for f in found) for k in counted},  # over every round
        }
    result["store_vs_floor"] = round(speed(res, "store.append", "floor"), 3)
    result["campaign_vs_floor"] = round(speed(res, "campaign.append", "floor"), 3)
    result["store_vs_es_aggregate_recorder"] = round(
        speed(res, "store.append", "es_aggregate_recorder"), 2
    )
    result["campaign_vs_store"] = round(speed(res, "campaign.append", "store.append"), 3)
    print("  " + json.dumps(result))
    return result


def bench_hosted(
    url: str, campaigns: int, appends: int, tmp: Path, counts: Sequence[int], reps: int
) -> list[dict[str, Any]]:
    """3. Hosted load: :func:`hosted_for` each writer count in ``counts``."""
    print(f"hosted load: setting up {campaigns:,} campaigns")
    setup = HostedSetup(url, campaigns)
    return [hosted_for(url, setup, writers, appends, tmp, reps) for writers in counts]


def main(argv: list[str] | None = None) -> int:
    import tempfile

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", default=os.environ.get("CAMPAIGN_TEST_POSTGRES") or DEFAULT_URL)
    parser.add_argument("--events", type=int, default=20_000, help="events for append and replay")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--campaigns", type=int, default=1000)
    parser.add_argument("--appends", type=int, default=200, help="appends per writer (hosted load)")
    parser.add_argument("--writers", default="1,2,4,8,16", help="writer counts (hosted load)")
    parser.add_argument("--hosted-rounds", type=int, default=3, help="rounds per writer count")
    parser.add_argument("--only", choices=["append", "replay", "hosted"], action="append")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    only = set(args.only or ["append", "replay", "hosted"])
    with psycopg.connect(args.url) as conn:
        server = conn.execute("select version()").fetchone()[0]  # type: ignore[index]
        durability = {  # every side commits with these (none of them sets its own)
            setting: conn.execute(f"show {setting}").fetchone()[0]  # type: ignore[index]
            for setting in ("synchronous_commit", "fsync", "wal_sync_method")
        }
    results: dict[str, Any] = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "psycopg": psycopg.__version__,
            "server": server,
            "durability_every_side": durability,
            "load_average_at_start": os.getloadavg(),
        }
    }
    if "append" in only:
        results["append"], _ = bench_append(args.url, args.events, args.rounds)
        print(json.dumps(results["append"], indent=1))
    if "replay" in only:
        results["replay"] = bench_replay(args.url, args.events, args.rounds)
        print(json.dumps(results["replay"], indent=1))
    if "hosted" in only:
        with tempfile.TemporaryDirectory() as tmp:
            counts = [int(w) for w in args.writers.split(",")]
            results["hosted"] = bench_hosted(
                args.url, args.campaigns, args.appends, Path(tmp), counts, args.hosted_rounds
            )
    results["machine"]["load_average_at_end"] = os.getloadavg()
    print(json.dumps(results, indent=1))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
