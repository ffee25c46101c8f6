"""The performance goals, each measured beside its floor and its peer, in one run.

    uv run python bench/goals.py                  # 100,000 events; audit on 1,000,000 (~25 min)
    uv run python bench/goals.py --quick          # 20,000 events; audit on 100,000 (~6 min)
    uv run python bench/goals.py --json goals.json --markdown goals.md
    uv run python bench/goals.py --skip postgres,serve   # parts left out

One part after another, on this machine: the batched append and the replay with their raw
floors and eventsourcing's peers (:mod:`run`'s cases 1 and 2, in this process), ``audit SEQ``
by proof on a valid ledger (:mod:`audit`), 50 SSE clients while another process appends
(:mod:`serve`), a one-shot ``campaign roll`` process alternated with ``python -c pass``
(every timed process with byte-code compiled, as an installed package has it: :mod:`procs`),
and
last (its 16 writer processes load the machine for a while after) the hosted load on
PostgreSQL: 1,000 campaigns, 16 writers, with its floor and eventsourcing's aggregate
recorder (:mod:`postgres`, ``--only hosted``). Then the goal table:
each goal, the figure measured (a median over the rounds of per-round ratios where there is
a floor or a peer), met or not, and the load average before and after each part. Nothing
here is a test; docs/performance.md records runs and says what each floor is.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import procs  # noqa: E402
import run  # noqa: E402

POSTGRES = os.environ.get("CAMPAIGN_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")


def load() -> float:
    """The one-minute load average."""
    return round(os.getloadavg()[0], 2)


def part(name: str, loads: dict[str, list[float]], fn: Callable[[], Any]) -> Any:
    """Run one part, noting the load average before and after it."""
    print(f"== {name} (load average {load()})", flush=True)
    before = load()
    found = fn()
    loads[name] = [before, load()]
    return found


def sub(script: str, *args: str, out: Path) -> dict[str, Any]:
    """Run ``bench/SCRIPT`` with ``args`` and ``--json out``; its JSON."""
    subprocess.run(
        [sys.executable, str(HERE / script), *args, "--json", str(out)], check=True, env=procs.env()
    )
    found: dict[str, Any] = json.loads(out.read_text())
    return found


def startup(tmp: Path, rounds: int) -> dict[str, Any]:
    """A one-shot ``campaign roll`` (a d20-world check with physical dice, appended) and
    ``python -c pass``, alternated ``rounds`` times: the medians and their ratio."""
    roll, env = run.roll_setup(tmp / "roll.db")  # byte-code compiled: procs.env
    python = [sys.executable, "-c", "pass"]

    def timed(cmd: list[str]) -> float:
        return procs.timed(cmd, env)

    timed(roll), timed(python)  # warm the page cache and the byte-code
    rolls, passes = [], []
    for _ in range(rounds):
        rolls.append(timed(roll))
        passes.append(timed(python))
    return {
        "roll_ms": round(statistics.median(rolls) * 1000, 1),
        "python_pass_ms": round(statistics.median(passes) * 1000, 1),
        "ratio": round(statistics.median(r / p for r, p in zip(rolls, passes, strict=True)), 2),
    }


def table(found: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """``(measure, goal, measured, met)`` for every goal a part measured."""
    rows: list[tuple[str, str, str, str]] = []

    def add(measure: str, goal: str, shown: str, met: bool | None) -> None:
        rows.append((measure, goal, shown, "—" if met is None else "yes" if met else "no"))

    for n, a in found.get("append", {}).items():
        add(f"batched append vs fair raw floor ({int(n):,} events)", "≥ 0.8×",
            f"{a['store_vs_floor']:g}×", a["store_vs_floor"] >= 0.8)  # fmt: skip
        if "store_vs_es_aggregate_recorder" in a:
            add(f"`Store.append` vs eventsourcing's aggregate recorder, both rule-free ({int(n):,})",
                "none (context)", f"{a['store_vs_es_aggregate_recorder']:g}×", None)  # fmt: skip
        if "campaign_vs_eventsourcing" in a:
            add(f"`Campaign.append` vs eventsourcing, SQLite ({int(n):,})", "≥ 3×",
                f"{a['campaign_vs_eventsourcing']:g}×", a["campaign_vs_eventsourcing"] >= 3)  # fmt: skip
    for n, r in found.get("replay", {}).items():
        add(f"replay through the rules vs scan + plain msgspec decode ({int(n):,})", "≥ 0.5×",
            f"{r['ledger_vs_floor']:g}×", r["ledger_vs_floor"] >= 0.5)  # fmt: skip
        if "ledger_vs_eventsourcing" in r:
            add(f"replay vs eventsourcing ({int(n):,})", "≥ 15×",
                f"{r['ledger_vs_eventsourcing']:g}×", r["ledger_vs_eventsourcing"] >= 15)  # fmt: skip
    if "audit" in found:
        a = found["audit"]
        worst = max(v["audit_ms_median"] for v in a["audit"].values())
        add(f"`audit SEQ` by proof, in process ({a['ledger']['events']:,} events)", "< 100 ms",
            f"{worst:.1f} ms (median, the slower of two rolls)", worst < 100)  # fmt: skip
        if "process" in a:
            slow = max((v for k, v in a["process"].items() if k != "bytecode"),
                       key=lambda v: v["process_ms_median"])  # fmt: skip
            add("`campaign audit SEQ` as a whole process (the slower roll)", "none (context)",
                f"{slow['process_ms_median']:.0f} ms, {slow['ratio']:g}× `python -c pass` "
                f"({slow['python_pass_ms_median']:.1f} ms)", None)  # fmt: skip
    for h in found.get("postgres", {}).get("hosted", []):
        floor, store = h["floor"], h["store.append"]
        add(f"PostgreSQL append, {h['campaigns']:,} campaigns × {h['writers']} writers, vs floor",
            "≥ 0.8×", f"{h['store_vs_floor']:g}× (p99 {store['latency_ms_p99']:.0f} ms; "
            f"floor's {floor['latency_ms_p99']:.0f} ms)", h["store_vs_floor"] >= 0.8)  # fmt: skip
        add("… vs eventsourcing's aggregate recorder", "≥ 1×",
            f"{h['store_vs_es_aggregate_recorder']:g}×", h["store_vs_es_aggregate_recorder"] >= 1)  # fmt: skip
    if "serve" in found:
        s = found["serve"]
        add(f"append → {s['clients']} SSE clients, another process writing", "p99 < 100 ms, 0 missed",
            f"p99 {s['p99_ms']:.0f} ms (median {s['median_ms']:.0f}), {s['missed']} missed",
            s["p99_ms"] < 100 and s["missed"] == 0)  # fmt: skip
    if "startup" in found:
        s = found["startup"]
        add("one-shot `campaign roll` process vs `python -c pass`", "< 150 ms and < 5×",
            f"{s['roll_ms']:.0f} ms, {s['ratio']:g}× ({s['python_pass_ms']:.1f} ms)",
            s["roll_ms"] < 150 and s["ratio"] < 5)  # fmt: skip
    return rows


def markdown(rows: list[tuple[str, str, str, str]], loads: dict[str, list[float]]) -> str:
    """The goal table and the load averages, as Markdown."""
    lines = ["| measure | goal | measured | met? |", "|---|---|---|---|"]
    lines += [f"| {m} | {g} | {v} | {ok} |" for m, g, v, ok in rows]
    lines.append("")
    lines.append(f"Whole processes: {procs.BYTECODE}.")
    lines.append("")
    lines.append(
        "Load average (1 minute) before → after each part: "
        + "; ".join(f"{k} {a:.2f} → {b:.2f}" for k, (a, b) in loads.items())
        + "."
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20,000 events; audit on 100,000")
    parser.add_argument("--events", type=int, help="events for append and replay (100,000)")
    parser.add_argument("--audit-events", type=int, help="events of the audited ledger (1M)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds per part (at least 5)")
    parser.add_argument(
        "--skip", default="", help="parts left out: append,audit,postgres,serve,startup"
    )
    parser.add_argument("--json", type=Path, help="also write every figure to this JSON file")
    parser.add_argument("--markdown", type=Path, help="also write the goal table here")
    args = parser.parse_args(argv)
    skip = {s.strip() for s in args.skip.split(",") if s.strip()}
    unknown = skip - {"append", "audit", "postgres", "serve", "startup"}
    if unknown:
        parser.error(f"no such part: {', '.join(sorted(unknown))}")
    events = args.events or (20_000 if args.quick else 100_000)
    audit_events = args.audit_events or (100_000 if args.quick else 1_000_000)
    rounds = max(args.rounds, 5)
    tmp = Path(tempfile.mkdtemp(prefix="ledger-goals-", dir=os.environ.get("BENCH_DIR")))
    found: dict[str, Any] = {"machine": run.machine(), "events": events, "rounds": rounds}
    print(f"compiling byte-code for the timed processes (load average {load()})", flush=True)
    procs.compiled_env()
    found["bytecode"] = procs.BYTECODE
    loads: dict[str, list[float]] = {}
    started = time.perf_counter()
    try:
        if "append" not in skip:

            def append_and_replay() -> None:
                out, db = run.bench_append(tmp, events, rounds, peers=True)
                es_ids = out.pop("_es_ids", None)
                found["append"] = {str(events): out}
                found["replay"] = {str(events): run.bench_replay(tmp, events, rounds, db, es_ids)}

            part("append and replay", loads, append_and_replay)
        if "audit" not in skip:
            found["audit"] = part("audit by proof", loads, lambda: sub(
                "audit.py", "--events", str(audit_events), "--rounds", str(rounds), "--process",
                out=tmp / "audit.json"))  # fmt: skip
        if "serve" not in skip:
            found["serve"] = part("live log", loads, lambda: sub(
                "serve.py", "--clients", "50", "--rate", "5", "--seconds", "6" if args.quick else "20",
                out=tmp / "serve.json"))  # fmt: skip
        if "startup" not in skip:
            found["startup"] = part("start-up", loads, lambda: startup(tmp, 21))
        if "postgres" not in skip:
            appends = 50 if args.quick else 200
            found["postgres"] = part("PostgreSQL hosted load", loads, lambda: sub(
                "postgres.py", "--url", POSTGRES, "--only", "hosted", "--campaigns", "1000",
                "--writers", "16", "--appends", str(appends),
                "--hosted-rounds", str(3 if args.quick else rounds), out=tmp / "pg.json"))  # fmt: skip
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    found["loads"] = loads
    found["machine"]["load_average_at_end"] = os.getloadavg()
    found["wall_seconds"] = round(time.perf_counter() - started, 1)
    rows = table(found)
    found["goals"] = [
        dict(zip(("measure", "goal", "measured", "met"), r, strict=True)) for r in rows
    ]
    text = markdown(rows, loads)
    print()
    print(text)
    if args.json:
        args.json.write_text(json.dumps(found, indent=2) + "\n")
    if args.markdown:
        args.markdown.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
