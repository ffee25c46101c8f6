"""What each of the ``events`` table's seven indexes costs the raw floor's insert.

    uv run python bench/indexes.py                       # 20,000 events, 5 rounds
    uv run python bench/indexes.py --events 100000 --json indexes.json

The floor of the batched append (:func:`cases.floor_append`, multi-row ``INSERT``s of the
store's rows, one transaction a session, the store's settings) into the store's own
``events`` table, once with all seven indexes, once without each of them, and once with
none (the table alone, its append-only triggers kept). Each round inserts every variant
once, the order rotated; the figures are medians over the rounds (at least five) of each
variant's time against the seven's in the same round, with the load average. Nothing here
is a test; docs/performance.md says which reads need which index.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases  # noqa: E402

#: The seven indexes: the two the table's constraints make and the five the store creates.
CONSTRAINTS = {
    "primary key (campaign, seq)": "primary key (campaign, seq)",
    "unique (campaign, stream, version)": "unique (campaign, stream, version)",
}


def schema(path: str) -> tuple[str, dict[str, str], list[str]]:
    """The store's ``events`` table, its named indexes and its triggers, as SQL."""
    cases.floor_schema_path(path)
    conn = sqlite3.connect(path)
    found = conn.execute(
        "select type, name, sql from sqlite_master where tbl_name = 'events' and sql is not null"
    ).fetchall()
    conn.close()
    table = next(sql for kind, _, sql in found if kind == "table")
    indexes = {name: sql for kind, name, sql in found if kind == "index"}
    triggers = [sql for kind, _, sql in found if kind == "trigger"]
    return table, indexes, triggers


def variant(path: str, table: str, indexes: dict[str, str], triggers: list[str],
            without: set[str]) -> None:  # fmt: skip
    """A fresh file with the ``events`` table and every index and trigger but ``without``."""
    for suffix in ("", "-wal", "-shm"):
        Path(path + suffix).unlink(missing_ok=True)
    sql = table
    for name, clause in CONSTRAINTS.items():
        if name in without:
            sql = re.sub(r",\s*" + re.escape(clause), "", sql)
    conn = sqlite3.connect(path)
    conn.execute(sql)
    for name, index in indexes.items():
        if name not in without:
            conn.execute(index)
    for trigger in triggers:
        conn.execute(trigger)
    conn.commit()
    conn.close()


def insert(path: str, plan: list[list[tuple[str, Any]]]) -> float:
    """Seconds to insert ``plan`` (per session: statements and parameters) into ``path``."""
    conn = cases.raw_connection(path)
    t = time.perf_counter()
    for statements in plan:
        conn.execute("begin immediate")
        for sql, args in statements:
            conn.execute(sql, args)
        conn.execute("commit")
    took = time.perf_counter() - t
    conn.close()
    return took


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rounds = max(args.rounds, 5)
    load = [round(os.getloadavg()[0], 2)]
    with tempfile.TemporaryDirectory(prefix="ledger-indexes-") as work:
        tmp = Path(work)
        _, rows = cases.ledger_store_append(str(tmp / "rows.db"), cases.batches(args.events))
        table, indexes, triggers = schema(str(tmp / "schema.db"))
        names = [*CONSTRAINTS, *indexes]
        assert len(names) == 7, names
        variants = {"all seven": set(), **{f"without {n}": {n} for n in names},
                    "none": set(names)}  # fmt: skip
        plan = cases._floor_plan(rows, "multirow")
        times: dict[str, list[float]] = {k: [] for k in variants}
        order = list(variants)
        for r in range(rounds):
            for name in order[r % len(order) :] + order[: r % len(order)]:
                path = str(tmp / "v.db")
                variant(path, table, indexes, triggers, variants[name])
                times[name].append(insert(path, plan))
            print(f"  round {r + 1}/{rounds} (load {os.getloadavg()[0]:.2f})", flush=True)
    load.append(round(os.getloadavg()[0], 2))
    events = len(rows)
    out = {
        "events": events,
        "rounds": rounds,
        "load_average": load,
        "events_per_s": {k: round(events / statistics.median(v)) for k, v in times.items()},
        "share_of_all_seven": {
            k: round(statistics.median(t / a for t, a in zip(v, times["all seven"], strict=True)), 3)
            for k, v in times.items()
        },
    }
    print(f"{events:,} events, {rounds} rounds, load average {load[0]} → {load[1]}")
    print("| indexes | events/s | time ÷ all seven's |\n|---|---:|---:|")
    for k in variants:
        print(f"| {k} | {out['events_per_s'][k]:,} | {out['share_of_all_seven'][k]:.3f} |")
    if args.json:
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
