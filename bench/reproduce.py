"""bench/goals.py's append, replay and start-up ratios, measured again from the outside.

    uv run python bench/reproduce.py --events 20000 --goals goals.json   # beside a goals run
    uv run python bench/reproduce.py --events 100000 --rounds 7

Nothing of goals.py, run.py or cases.py is used: only the public Python API
(``ledger.store.sqlite.Store``, ``Campaign``, ``open_campaign``), the ``campaign`` command,
``sqlite3``, ``msgspec`` and ``eventsourcing``, on the same generated campaign
(``bench/workload.py``: the input, not the measurement). Each side is written here from
its own description in docs/performance.md:

- **append**: ``Store.append`` of each 1,000-event session (one transaction each, expected
  versions), and ``Campaign.append`` of the same; the raw floor inserts the very rows the
  store wrote (read back with ``sqlite3``) into a fresh ledger's ``events`` table, one
  ``BEGIN IMMEDIATE`` a session, the store's connection settings, the faster in each round
  of ``executemany`` and one multi-row ``INSERT`` of the session's rows;
  eventsourcing's aggregate recorder inserts the same bytes (rule-free), and its
  application applies the same d20-world appliers to our payloads (rules).
- **replay**: ``open_campaign(...).states()`` against ``select data`` decoded by one plain
  msgspec union decoder, and against eventsourcing's repository.
- **start-up**: a ``campaign roll`` process against ``python -c pass``, byte-code compiled.

Each round runs every case once, the order rotated; figures are medians of per-round
ratios over at least five rounds, with the load average. With ``--goals FILE`` (the JSON of
``bench/goals.py --json FILE``) each of goals.py's figures is printed beside this one's.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Union

import msgspec

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import workload  # noqa: E402  (the generated campaign: the input only)

from ledger.campaign.aggregate import Campaign, load_system, open_campaign  # noqa: E402
from ledger.events import stream_of  # noqa: E402
from ledger.store.sqlite import Pending, Store  # noqa: E402

AT = "2026-03-01T20:00:00.000000Z"


def fresh(path: Path) -> Campaign:
    """A new ledger at ``path`` with the bench campaign and its six characters."""
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    camp = Campaign.create(Store(str(path)), workload.CAMPAIGN, system=workload.SYSTEM,
                           actor="gm", at=AT)  # fmt: skip
    for sheet in workload.character_sheets():
        camp.add_character(sheet, actor="gm", at=AT)
    return camp


def sessions(total: int) -> list[tuple[int, list[Any], dict[str, int]]]:
    """The workload's sessions with the expected version of each stream they touch."""
    version = {s["id"]: 1 for s in workload.character_sheets()} | {"campaign": 1}
    out = []
    for number, events in workload.sessions(total, seed=7):
        expected: dict[str, int] = {}
        for e in events:
            expected.setdefault(stream_of(e), version[stream_of(e)])
            version[stream_of(e)] += 1
        out.append((number, events, expected))
    return out


class Bench:
    """Every case on one generated campaign, each returning the seconds of its clock."""

    def __init__(self, tmp: Path, total: int) -> None:
        self.tmp = tmp
        self.work = sessions(total)
        self.ledger = tmp / "ledger.db"
        self.store_append()  # the ledger the replays read, and the rows the floors insert
        conn = sqlite3.connect(self.ledger)
        names = [r[1] for r in conn.execute("pragma table_info(events)")]
        self.columns = ", ".join(names)
        self.rows = conn.execute(
            f"select {self.columns} from events where seq > 7 order by seq"
        ).fetchall()
        conn.close()
        self.insert = f"insert into events ({self.columns}) values ({', '.join('?' * len(names))})"
        self.es = EventSourcing(tmp, self.work)

    def store_append(self) -> float:
        camp = fresh(self.ledger)
        t = time.perf_counter()
        for number, events, expected in self.work:
            camp.store.append(workload.CAMPAIGN, [Pending(e) for e in events], actor="gm",
                              recorded_at=AT, session=number, expected_versions=expected)  # fmt: skip
        took = time.perf_counter() - t
        camp.store.close()
        return took

    def campaign_append(self) -> float:
        camp = fresh(self.tmp / "campaign.db")
        t = time.perf_counter()
        for number, events, expected in self.work:
            camp.append(events, actor="gm", at=AT, expected_versions=expected, session=number)
        took = time.perf_counter() - t
        camp.store.close()
        return took

    def floor(self, *, multirow: bool) -> float:
        """The raw insert of the store's rows, one ``BEGIN IMMEDIATE`` a session: by
        ``executemany`` of a one-row ``INSERT``, or (``multirow``) as one statement of all
        of a session's rows with their values flattened before the clock."""
        path = self.tmp / "floor.db"
        fresh(path).store.close()  # the store's own table, indexes and triggers
        conn = sqlite3.connect(path, isolation_level=None)
        for pragma in ("recursive_triggers = on", "journal_mode = wal", "synchronous = normal",
                       f"mmap_size = {1 << 30}"):  # fmt: skip
            conn.execute(f"pragma {pragma}")
        size = workload.SESSION_EVENTS
        batches = [self.rows[i : i + size] for i in range(0, len(self.rows), size)]
        head, marks = self.insert.split(" values ")
        many = [(head + " values " + ", ".join([marks] * len(b)), [v for r in b for v in r])
                for b in batches]  # fmt: skip
        t = time.perf_counter()
        for batch, (sql, values) in zip(batches, many, strict=True):
            conn.execute("begin immediate")
            if multirow:
                conn.execute(sql, values)
            else:
                conn.executemany(self.insert, batch)
            conn.execute("commit")
        took = time.perf_counter() - t
        conn.close()
        return took

    def replay(self) -> float:
        t = time.perf_counter()
        store = Store(str(self.ledger))
        states = open_campaign(store, workload.CAMPAIGN).states()
        took = time.perf_counter() - t
        assert len(states) == 6
        store.close()
        return took

    def scan_decode(self) -> float:
        decode = plain_decoder().decode
        t = time.perf_counter()
        conn = sqlite3.connect(self.ledger)
        conn.execute(f"pragma mmap_size = {1 << 30}")
        for (data,) in conn.execute("select data from events order by seq"):
            decode(data)
        took = time.perf_counter() - t
        conn.close()
        return took


def plain_decoder() -> msgspec.json.Decoder[Any]:
    """One msgspec decoder of the union of the campaign's event types (each with the
    optional ``salt`` of a GM-only payload and the ``schema_version`` a payload of a later
    version of its type carries), tagged by ``type``."""
    from ledger.events import CORE_EVENT_TYPES

    types = {*CORE_EVENT_TYPES, *load_system(workload.SYSTEM).event_types}
    salted = [
        msgspec.defstruct(
            cls.__name__,
            [("salt", str | None, None), ("schema_version", int, 1)],
            bases=(cls,),
            tag=cls.__struct_config__.tag,
            frozen=True,
            kw_only=True,
        )  # fmt: skip
        for cls in types
    ]
    return msgspec.json.Decoder(Union[tuple(salted)])  # noqa: UP007


class EventSourcing:
    """eventsourcing's side: its aggregate recorder (rule-free) and an application whose
    aggregates apply the d20-world appliers to our payloads (a ``Transcoding`` per payload
    class carries them through its JSON transcoder). SQLite, WAL, ``synchronous=NORMAL``
    on every connection it opens (the store's setting; its own default is ``FULL``)."""

    def __init__(self, tmp: Path, work: list[tuple[int, list[Any], dict[str, int]]]) -> None:
        from eventsourcing import sqlite as es_sqlite
        from eventsourcing.application import Application
        from eventsourcing.domain import Aggregate, event
        from eventsourcing.persistence import Transcoding

        from ledger.rules.plugins import rule_systems

        make = es_sqlite.SQLiteConnectionPool._create_connection
        if not getattr(make, "normal", False):

            def normal(pool: Any) -> Any:
                conn = make(pool)
                conn._sqlite_conn.execute("pragma synchronous = normal")
                return conn

            normal.normal = True  # type: ignore[attr-defined]
            es_sqlite.SQLiteConnectionPool._create_connection = normal  # type: ignore[method-assign,assignment]
        system = rule_systems()[workload.SYSTEM].configure({})
        appliers = system.appliers()
        sheets = {s["id"]: s for s in workload.character_sheets()}

        class Hero(Aggregate):
            @event("Made")
            def __init__(self, who: str) -> None:
                sheet = {k: v for k, v in sheets[who].items() if k not in ("id", "name", "player")}
                self.state = system.initial_state(who, sheets[who]["name"],
                                                  system.create_sheet(sheet))  # fmt: skip

            @event("Did")
            def did(self, payload: Any) -> None:
                fn = appliers.get(type(payload))
                if fn is not None:
                    self.state = fn(self.state, payload)

        def carrying(cls: type) -> Transcoding:
            class Carry(Transcoding):
                type = cls
                name = str(cls.__struct_config__.tag)  # type: ignore[attr-defined]

                def encode(self, obj: Any) -> Any:
                    return msgspec.to_builtins(obj)

                def decode(self, data: Any) -> Any:
                    return msgspec.convert(data, cls)

            return Carry()

        class App(Application):
            is_snapshotting_enabled = False

            def register_transcodings(self, transcoder: Any) -> None:
                super().register_transcodings(transcoder)
                for cls in system.event_types:
                    transcoder.register(carrying(cls))

        self.tmp, self.Hero, self.App = tmp, Hero, App
        self.plan = [[(stream_of(e), e) for e in events if stream_of(e) != "campaign"]
                     for _n, events, _v in work]  # fmt: skip
        self.ids: dict[str, Any] = {}

    def app(self, path: Path, *, new: bool) -> Any:
        if new:
            for suffix in ("", "-wal", "-shm"):
                Path(str(path) + suffix).unlink(missing_ok=True)
        return self.App(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite",
                             "SQLITE_DBNAME": str(path), "SQLITE_LOCK_TIMEOUT": "10"})  # fmt: skip

    def application(self) -> float:
        app = self.app(self.tmp / "es.db", new=True)
        heroes = {s["id"]: self.Hero(who=s["id"]) for s in workload.character_sheets()}
        app.save(*heroes.values())
        t = time.perf_counter()
        for session in self.plan:
            touched = {}
            for who, payload in session:
                heroes[who].did(payload=payload)
                touched[who] = heroes[who]
            app.save(*touched.values())
        took = time.perf_counter() - t
        self.ids = {k: h.id for k, h in heroes.items()}
        app.close()
        return took

    def repository(self) -> float:
        if not self.ids:
            self.application()
        t = time.perf_counter()
        app = self.app(self.tmp / "es.db", new=False)
        states = [app.repository.get(i).state for i in self.ids.values()]
        took = time.perf_counter() - t
        assert len(states) == 6
        app.close()
        return took

    def recorder(self, rows: list[tuple[Any, ...]], columns: str) -> float:
        from eventsourcing.persistence import StoredEvent
        from eventsourcing.sqlite import SQLiteAggregateRecorder, SQLiteDatastore

        path = self.tmp / "recorder.db"
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        at = {name.strip(): i for i, name in enumerate(columns.split(","))}
        stored = [StoredEvent(originator_id=r[at["stream"]], originator_version=r[at["version"]],
                              topic=r[at["type"]], state=r[at["data"]].encode()) for r in rows]  # fmt: skip
        datastore = SQLiteDatastore(str(path), originator_id_type="text")
        recorder = SQLiteAggregateRecorder(datastore)
        recorder.create_table()
        size = workload.SESSION_EVENTS
        t = time.perf_counter()
        for i in range(0, len(stored), size):
            recorder.insert_events(stored[i : i + size])
        took = time.perf_counter() - t
        datastore.close()
        return took


def startup(tmp: Path, rounds: int) -> dict[str, float]:
    """``campaign roll`` (a d20-world check with physical dice, appended) against
    ``python -c pass``, byte-code compiled, alternated: medians and the median ratio."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["CAMPAIGN_DB"] = str(tmp / "roll.db")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(HERE.parent / "ledger"),
                    str(HERE.parent / "plugins"), str(Path(msgspec.__file__).parent.parent)],
                   env=env, stdout=subprocess.DEVNULL, check=False)  # fmt: skip
    exe = str(Path(sys.executable).with_name("campaign"))
    for args in (["new", "vault", "--system", "d20-world"],
                 ["character", "add", "--sheet", str(workload.SHEETS / "isa.toml")],
                 ["session", "start"]):  # fmt: skip
        subprocess.run([exe, *args], env=env, check=True, stdout=subprocess.DEVNULL)

    def run(cmd: list[str]) -> float:
        t = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - t

    roll = [exe, "roll", "isa", "Lockpicking", "--time", "--dice", "16"]
    python = [sys.executable, "-c", "pass"]
    run(roll), run(python)
    rolls, passes = [], []
    for _ in range(max(rounds, 5) * 3):
        rolls.append(run(roll))
        passes.append(run(python))
    return {"roll_ms": round(1000 * statistics.median(rolls), 1),
            "python_pass_ms": round(1000 * statistics.median(passes), 1),
            "ratio": round(statistics.median(r / p for r, p in zip(rolls, passes, strict=True)), 2)}  # fmt: skip


def rounds(n: int, cases: dict[str, Callable[[], float]]) -> dict[str, list[float]]:
    """Every case once a round, the order rotated: seconds per case per round."""
    times: dict[str, list[float]] = {k: [] for k in cases}
    names = list(cases)
    for r in range(n):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            times[name].append(cases[name]())
        print(f"  round {r + 1}/{n} (load {os.getloadavg()[0]:.2f}): "
              + ", ".join(f"{k} {v[-1]:.3f}s" for k, v in times.items()), flush=True)  # fmt: skip
    return times


def ratio(times: dict[str, list[float]], ours: str, theirs: str) -> float:
    """Median over rounds of time(theirs) / time(ours): how many times as fast ours is."""
    return round(
        statistics.median(t / o for o, t in zip(times[ours], times[theirs], strict=True)), 3
    )


def goals_figures(found: dict[str, Any]) -> dict[str, float]:
    """The same figures from a ``bench/goals.py --json`` file (``nan`` where it has none)."""
    a: dict[str, Any] = next(iter(found.get("append", {}).values()), {})
    r: dict[str, Any] = next(iter(found.get("replay", {}).values()), {})
    s: dict[str, Any] = found.get("startup", {})
    return {
        "Store.append ÷ raw floor": a.get("store_vs_floor", float("nan")),
        "Store.append ÷ eventsourcing's aggregate recorder": a.get("store_vs_es_aggregate_recorder", float("nan")),
        "Campaign.append ÷ eventsourcing's application": a.get("campaign_vs_eventsourcing", float("nan")),
        "replay ÷ scan + plain decode": r.get("ledger_vs_floor", float("nan")),
        "replay ÷ eventsourcing's repository": r.get("ledger_vs_eventsourcing", float("nan")),
        "campaign roll ÷ python -c pass (times as long)": s.get("ratio", float("nan")),
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=20_000, help="events (20,000)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (at least 5)")
    parser.add_argument("--goals", type=Path, help="a bench/goals.py --json file to print beside")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--no-startup", action="store_true", help="leave out the roll process")
    args = parser.parse_args(argv)
    n = max(args.rounds, 5)
    loads = [round(os.getloadavg()[0], 2)]
    with tempfile.TemporaryDirectory(prefix="ledger-reproduce-") as work:
        tmp = Path(work)
        bench = Bench(tmp, args.events)
        es = bench.es
        print(f"append, {len(bench.rows):,} events, {n} rounds")
        append = rounds(n, {
            "store": bench.store_append, "campaign": bench.campaign_append,
            "executemany": lambda: bench.floor(multirow=False),
            "multirow": lambda: bench.floor(multirow=True),
            "recorder": lambda: es.recorder(bench.rows, bench.columns),
            "application": es.application,
        })  # fmt: skip
        print(f"replay, {n} rounds")
        replay = rounds(n, {"replay": bench.replay, "scan": bench.scan_decode,
                            "repository": es.repository})  # fmt: skip
        nan = float("nan")
        start = {"roll_ms": nan, "python_pass_ms": nan, "ratio": nan}
        if not args.no_startup:
            print("start-up")
            start = startup(tmp, n)
    loads.append(round(os.getloadavg()[0], 2))
    append["floor"] = [
        min(a, b) for a, b in zip(append["executemany"], append["multirow"], strict=True)
    ]  # the faster in each round
    mine = {
        "Store.append ÷ raw floor": ratio(append, "store", "floor"),
        "Store.append ÷ eventsourcing's aggregate recorder": ratio(append, "store", "recorder"),
        "Campaign.append ÷ eventsourcing's application": ratio(append, "campaign", "application"),
        "replay ÷ scan + plain decode": ratio(replay, "replay", "scan"),
        "replay ÷ eventsourcing's repository": ratio(replay, "replay", "repository"),
        "campaign roll ÷ python -c pass (times as long)": start["ratio"],
    }
    theirs = goals_figures(json.loads(args.goals.read_text())) if args.goals else {}
    print(f"\n{len(bench.rows):,} events, {n} rounds, load average {loads[0]} → {loads[1]}; "
          f"campaign roll {start['roll_ms']} ms, python -c pass {start['python_pass_ms']} ms")  # fmt: skip
    print("| figure | bench/goals.py | bench/reproduce.py |\n|---|---:|---:|")
    for k, v in mine.items():
        print(f"| {k} | {theirs.get(k, float('nan')):g} | {v:g} |")
    if args.json:
        args.json.write_text(json.dumps({"events": len(bench.rows), "rounds": n, "load_average": loads,
                                         "reproduce": mine, "goals": theirs, "startup": start}, indent=2) + "\n")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
