"""Campaign Ledger on PostgreSQL, side by side with the raw psycopg floor and eventsourcing.

    uv run python bench/postgres.py                 # 20,000 events, hosted load 1,000 campaigns
    uv run python bench/postgres.py --events 100000 --rounds 7
    uv run python bench/postgres.py --url postgresql://postgres@127.0.0.1:5432/test --json out.json

The server is ``--url``, else ``CAMPAIGN_TEST_POSTGRES``, else postgresql://postgres@127.0.0.1:5432/test;
every case works in a schema of its own (``bench_<random>``) and drops it.

1. Append: ``PostgresStore.append`` of the bench workload (sessions of 1,000 d20-world events,
   chain and expected versions included, one transaction each) against the raw floor (psycopg
   ``COPY`` of the same rows, the same bytes and hashes precomputed, into the same table, one
   transaction per session too), and eventsourcing's PostgreSQL application recorder
   (``insert_events`` of the same bytes, one call per session; it takes ``LOCK TABLE ... IN
   EXCLUSIVE MODE`` per call) and its full application (aggregates, one ``save`` a session).
2. Replay: every character's state through the d20-world rules (``Campaign.states``) against
   the floor's scan + decode (``select data`` and one msgspec decode each) and eventsourcing's
   repository (each aggregate from its events).
3. Hosted load: 1,000 campaigns in one database; W writer processes each append small
   batches (1-5 notes, ``Campaign.append``: rules, chain, expected version) to random
   campaigns at once. Throughput, p50/p99 append latency; then 0 lost (every acknowledged
   event is there, seq gap-free), 0 duplicated, every campaign verifies. W = 1, 2, 4, 8, 16.

Every figure is a median over rounds (rotated order, ratios per round), as bench/run.py does.
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

from ledger.campaign import Campaign, open_campaign  # noqa: E402
from ledger.chain import COLUMNS  # noqa: E402
from ledger.events import CampaignCreated, NoteAdded  # noqa: E402
from ledger.pgstore import PostgresStore  # noqa: E402
from ledger.verify import verify_store  # noqa: E402

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
        rows = cases.append_work(camp.store, work)
        elapsed = time.perf_counter() - t
        camp.store.close()
    return elapsed, rows


def floor_append(url: str, rows: Sequence[tuple[Any, ...]]) -> float:
    """The raw floor: psycopg ``COPY`` of the same rows into the same table (its indexes and
    triggers), one transaction per session of :data:`workload.SESSION_EVENTS` rows."""
    with schema(url) as (u, _):
        PostgresStore(u).close()  # the tables, indexes and triggers
        with psycopg.connect(u, autocommit=True) as conn:
            t = time.perf_counter()
            for i in range(0, len(rows), workload.SESSION_EVENTS):
                with (
                    conn.transaction(),
                    conn.cursor() as cur,
                    cur.copy(f"copy events ({', '.join(COLUMNS)}) from stdin") as copy,
                ):
                    for row in rows[i : i + workload.SESSION_EVENTS]:
                        copy.write_row(row)
            return time.perf_counter() - t


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


def es_recorder_append(url: str, rows: Sequence[tuple[Any, ...]]) -> float:
    """eventsourcing's PostgreSQL application recorder alone: ``insert_events`` of
    StoredEvents holding the same bytes, one call per session."""
    from eventsourcing.persistence import StoredEvent
    from eventsourcing.postgres import PostgresFactory

    with schema(url) as (u, name):
        factory = PostgresFactory(
            es_env(u, name) | {"CREATE_TABLE": "y", "ORIGINATOR_ID_TYPE": "text"}
        )  # type: ignore[arg-type]
        rec = factory.application_recorder()
        stored = [
            StoredEvent(
                originator_id=r[2], originator_version=r[3], topic=r[4], state=r[5].encode()
            )
            for r in rows
        ]
        t = time.perf_counter()
        for i in range(0, len(stored), workload.SESSION_EVENTS):
            rec.insert_events(stored[i : i + workload.SESSION_EVENTS])
        elapsed = time.perf_counter() - t
        factory.close()
    return elapsed


def es_app(u: str, name: str) -> Any:
    _, Ledger = cases._es_classes()
    return Ledger(env=es_env(u, name))


def es_append(url: str, work: Sequence[cases.Batch]) -> float:
    """eventsourcing's application: one aggregate per character (the same d20-world applier
    runs), one ``save`` a session (as bench/cases.py's SQLite case)."""
    Character, _ = cases._es_classes()
    with schema(url) as (u, name):
        app = es_app(u, name)
        aggs = {s["id"]: Character(character=s["id"]) for s in workload.character_sheets()}
        app.save(*aggs.values())
        t = time.perf_counter()
        cases.es_save_work(app, aggs, work)
        elapsed = time.perf_counter() - t
        app.close()
    return elapsed


def bench_append(url: str, n: int, reps: int) -> tuple[dict[str, Any], list[tuple[Any, ...]]]:
    print(f"append on PostgreSQL, {n:,} events, {reps} rounds")
    work = cases.batches(n)
    events = sum(len(b[1]) for b in work)
    _, rows = ledger_append(url, work)  # warm-up; the rows the floors insert
    rows = [tuple(r) for r in rows[len(rows) - events :]]
    named: dict[str, Callable[[], float]] = {
        "store.append": lambda: ledger_append(url, work)[0],
        "floor_copy": lambda: floor_append(url, rows),
        "es_recorder": lambda: es_recorder_append(url, rows),
        "eventsourcing": lambda: es_append(url, work),
    }
    res = rounds(reps, named)
    return {
        "events": events,
        "seconds": {k: round(med(res, k), 4) for k in res},
        "events_per_s": {k: round(events / med(res, k)) for k in res},
        "store_vs_floor": round(speed(res, "store.append", "floor_copy"), 3),
        "store_vs_es_recorder": round(speed(res, "store.append", "es_recorder"), 2),
        "store_vs_eventsourcing": round(speed(res, "store.append", "eventsourcing"), 2),
    }, rows


# --- 2. replay ---------------------------------------------------------------------------------


def bench_replay(url: str, n: int, reps: int) -> dict[str, Any]:
    print(f"replay on PostgreSQL, {n:,} events, {reps} rounds")
    work = cases.batches(n)
    cases.floor_codec()
    with schema(url) as (u, name):
        camp = new_campaign(u)
        cases.append_work(camp.store, work)
        camp.store.close()
        Character, _ = cases._es_classes()
        app = es_app(u, name)
        aggs = {s["id"]: Character(character=s["id"]) for s in workload.character_sheets()}
        for _number, events, _expected in work:
            for e in events:
                s = cases.stream_of(e)
                if s != "campaign":
                    data = msgspec.to_builtins(e)
                    aggs[s].happened(type=data.pop("type"), data=data)
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
                    "select visibility, data from events where campaign = %s order by seq",
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


def hosted_setup(u: str, campaigns: int) -> list[str]:
    """``campaigns`` campaigns (decision-dice, no characters) in one database."""
    store = PostgresStore(u)
    ids = [f"table-{i:04d}" for i in range(campaigns)]
    for cid in ids:
        Campaign.create(store, cid, system="decision-dice", actor="gm", at=cases.AT)
    store.close()
    return ids


def hosted_writer(u: str, ids: list[str], writer: int, appends: int, go: Any, out: str) -> None:
    """One writer process: ``appends`` batches of 1-5 notes, each to a random campaign, through
    ``Campaign.append`` with the campaign stream's expected version; retries a conflict.
    Writes ``{"events": [[campaign, text, seq]...], "latencies": [...], "conflicts": n}``."""
    rng = random.Random(writer)
    store = PostgresStore(u)
    camps: dict[str, Campaign] = {}
    got: list[list[Any]] = []
    latencies: list[float] = []
    conflicts = 0
    go.wait()
    for k in range(appends):
        cid = rng.choice(ids)
        camp = camps.get(cid)
        if camp is None:
            ((data,),) = list(store.rows(cid, upto=1, columns=["data"]))
            camp = camps[cid] = Campaign(store, msgspec.json.decode(data, type=CampaignCreated))
        texts = [f"w{writer}:{k}:{i}" for i in range(rng.randint(1, 5))]
        t = time.perf_counter()
        while True:
            version = store.stream_version(cid, "campaign")
            try:
                recs = camp.append(
                    [NoteAdded(text=x) for x in texts],
                    actor=f"w{writer}",
                    at=cases.AT,
                    expected_versions={"campaign": version},
                )
                break
            except Exception as e:  # ConflictError: another writer got there first
                if type(e).__name__ != "ConflictError":
                    raise
                conflicts += 1
        latencies.append(time.perf_counter() - t)
        got.extend([cid, x, r.seq] for x, r in zip(texts, recs, strict=True))
    store.close()
    Path(out).write_text(
        json.dumps({"events": got, "latencies": latencies, "conflicts": conflicts})
    )


def hosted_run(url: str, campaigns: int, writers: int, appends: int, tmp: Path) -> dict[str, Any]:
    """One hosted-load run: returns throughput, latencies and the checks."""
    with schema(url) as (u, _):
        ids = hosted_setup(u, campaigns)
        ctx = multiprocessing.get_context("fork")
        go = ctx.Event()
        procs = [
            ctx.Process(
                target=hosted_writer, args=(u, ids, w, appends, go, str(tmp / f"h{w}.json"))
            )
            for w in range(writers)
        ]
        for p in procs:
            p.start()
        time.sleep(1.0)  # every writer connected and waiting
        t = time.perf_counter()
        go.set()
        for p in procs:
            p.join()
        wall = time.perf_counter() - t
        assert all(p.exitcode == 0 for p in procs), [p.exitcode for p in procs]
        reports = [json.loads((tmp / f"h{w}.json").read_text()) for w in range(writers)]
        told = {(c, x): s for r in reports for c, x, s in r["events"]}
        latencies = sorted(x for r in reports for x in r["latencies"])
        store = PostgresStore(u)
        stored: Counter[tuple[str, str]] = Counter()
        lost = duplicated = misplaced = bad = 0
        for cid in ids:
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
        duplicated = sum(n - 1 for n in stored.values() if n > 1)
        lost = sum(1 for key in told if key not in stored)
        events = len(told)
    return {
        "writers": writers,
        "campaigns": campaigns,
        "appends": writers * appends,
        "events": events,
        "seconds": round(wall, 3),
        "events_per_s": round(events / wall),
        "appends_per_s": round(writers * appends / wall),
        "latency_ms_p50": round(1000 * statistics.median(latencies), 2),
        "latency_ms_p99": round(1000 * latencies[int(0.99 * (len(latencies) - 1))], 2),
        "conflicts_retried": sum(r["conflicts"] for r in reports),
        "lost": lost,
        "duplicated": duplicated,
        "misplaced": misplaced,
        "campaigns_failing_verify_or_gapped": bad,
    }


def bench_hosted(
    url: str, campaigns: int, appends: int, tmp: Path, counts: Sequence[int]
) -> list[dict[str, Any]]:
    out = []
    for writers in counts:
        print(f"hosted load: {campaigns:,} campaigns, {writers} writers x {appends} appends")
        result = hosted_run(url, campaigns, writers, appends, tmp)
        print("  " + json.dumps(result))
        out.append(result)
    return out


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
    parser.add_argument("--only", choices=["append", "replay", "hosted"], action="append")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    only = set(args.only or ["append", "replay", "hosted"])
    with psycopg.connect(args.url) as conn:
        server = conn.execute("select version()").fetchone()[0]  # type: ignore[index]
    results: dict[str, Any] = {
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "psycopg": psycopg.__version__,
            "server": server,
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
                args.url, args.campaigns, args.appends, Path(tmp), counts
            )
    results["machine"]["load_average_at_end"] = os.getloadavg()
    print(json.dumps(results, indent=1))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
