"""Before and after a change, side by side in one run: the bench's cases on two trees.

    uv run python bench/compare.py 773235c --quick             # REF against this checkout
    uv run python bench/compare.py main --quick --rounds 7     # more rounds, less noise
    uv run python bench/compare.py v0.1 --quick --json out.json --markdown table.md

"Before" is the commit REF, checked out into a temporary git worktree with its own
environment (``uv sync --frozen`` into its own ``.venv``: its ledger, its plugins, its
``campaign`` command); "after" is this checkout, uncommitted changes included, run with its own
``.venv``. Each tree runs its *own* bench code (``bench/run.py`` and ``bench/cases.py`` of that
tree, so a module that moved between the two is found on each side), on the same generated
workload (``bench/workload.py``, seed 7; ``tests/test_pins.py`` pins its bytes).

Honest by construction: the same machine, the same round, every case in its own fresh
process. Each round runs every case once per tree, the cases in an order rotated by the round
and the two trees of a case back to back, which first alternating, so drift in the machine's
load falls on both sides alike. A case that has a raw floor (the fastest raw SQLite way to do
the same work, :mod:`cases`) measures it in the same process right beside the case. The table
gives, per figure, the median over the rounds of each side, the median of the per-round
after/before ratios, and the median of each side's per-round ratio to its floor (time ÷ the
floor's time: 1.00 is the floor's speed). The load average is printed at the start, after
each round and at the end. See docs/performance.md "Before and after a change".
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

#: The case a child process runs: ``CASE`` is a key of :data:`CASES`, the parameters come as
#: JSON; the child imports the bench of the tree it runs in (its cwd) and writes the figures
#: as JSON to ``OUT``. Only functions of ``bench/run.py`` and ``bench/cases.py`` that both trees
#: share are called, each with one round (``run.rounds`` rotated by the round's number).
CHILD = r"""
import contextlib, io, json, sys, tempfile
from pathlib import Path
sys.path.insert(0, "bench")
import cases, run

CASE, PARAMS, OUT, OFFSET = sys.argv[1], json.loads(sys.argv[2]), sys.argv[3], int(sys.argv[4])
n = PARAMS["events"]


def rotated(count, named):  # run.rounds with one round, its order rotated by OFFSET
    names = list(named)
    k = OFFSET % len(names)
    out = {name: [] for name in names}
    for name in names[k:] + names[:k]:
        out[name].append(named[name]())
    return out


run.rounds = rotated
with tempfile.TemporaryDirectory(prefix="ledger-compare-") as work, \
        contextlib.redirect_stdout(io.StringIO()):
    tmp = Path(work)

    def ledger():
        db = tmp / f"ledger-{n}.db"
        cases.ledger_store_append(str(db), cases.batches(n))
        return db

    def small():
        db = tmp / "small.db"
        cases.ledger_store_append(str(db), cases.batches(1000))
        return db

    if CASE == "append":
        found = run.bench_append(tmp, n, 1, peers=True)[0]
        found.pop("_es_ids", None)
    elif CASE == "replay":  # with eventsourcing's peer: its file written outside the clock
        _, es_ids = cases.es_append(str(tmp / f"es-{n}.db"), cases.batches(n))
        found = run.bench_replay(tmp, n, 1, ledger(), {k: str(v) for k, v in es_ids.items()})
    elif CASE == "durable":
        found = run.bench_durable(tmp, PARAMS["durable"], 1)
    elif CASE == "as_of":
        found = run.bench_as_of(ledger(), PARAMS["queries"], 1)
    elif CASE == "reads":
        found = run.bench_reads(ledger(), 1, small())
    elif CASE == "correction":
        found = run.bench_correction(tmp, n, PARAMS["reads"])
    elif CASE == "cli":
        found = run.bench_cli(tmp, 1, 3)
    elif CASE == "shell":
        found = run.bench_shell(tmp, 1, PARAMS["entries"], 0.0)
    else:
        raise SystemExit(f"unknown case {CASE!r}")
Path(OUT).write_text(json.dumps(found))
"""

#: ``{case: [(figure, path to its value, path to its floor's value or None, scale to ms)]}``:
#: the figures each case's result gives (paths into the dict ``bench/run.py`` returns).
CASES: dict[str, list[tuple[str, tuple[str, ...], tuple[str, ...] | None, float]]] = {
    "append": [
        ("store.append, {events} events", ("seconds", "store.append"), ("seconds", "floor"), 1e3),
        ("campaign.append, {events} events", ("seconds", "campaign.append"),
         ("seconds", "floor"), 1e3),
        ("eventsourcing application (peer)", ("seconds", "eventsourcing"), ("seconds", "floor"),
         1e3),
        ("eventsourcing aggregate recorder (peer)", ("seconds", "es_aggregate_recorder"),
         ("seconds", "floor"), 1e3),
    ],
    "replay": [
        ("replay every character, {events} events", ("seconds", "ledger"),
         ("seconds", "floor_scan_decode"), 1e3),
        ("eventsourcing replay (peer)", ("seconds", "eventsourcing"),
         ("seconds", "floor_scan_decode"), 1e3),
    ],
    "durable": [
        ("one durable append (FULL)", ("ms_per_append", "store.append FULL"),
         ("ms_per_append", "floor FULL"), 1.0),
    ],
    "as_of": [
        ("sheet --as-of SEQ, in process", ("in_process_ms_median",), None, 1.0),
        ("sheet --as-of SEQ, process", ("cli_process_ms_median",), None, 1.0),
    ],
    "reads": [
        (f"{label}, in process", ("in_process_ms_median", label), None, 1.0)
        for label in (
            "sheet --as-of session:N",
            "sheet --as-of TIME",
            "session list",
            "log --session N",
            "log --character (its last 1,000)",
            "recap --session N",
            "advance --dry-run",
            "roll (big ledger)",
            "roll (small ledger)",
        )
    ]
    + [
        (f"{label}, process", ("process_ms_median", label), None, 1.0)
        for label in ("sheet --as-of session:N", "log --session N", "recap --session N")
    ]
    + [("audit at mid-campaign", ("audit_at_mid_campaign_ms",), None, 1.0)],
    "correction": [
        ("correct an early event", ("correct_ms",), None, 1.0),
        ("first sheet after it", ("first_read_after_ms",), None, 1.0),
        ("sheet after it (median)", ("after_ms_median",), None, 1.0),
    ],
    "cli": [
        ("campaign roll, process", ("ms", "campaign roll"), ("ms", "python -c import sqlite3"),
         1.0),
    ],
    "shell": [("campaign play entry", ("entry_ms_median",), None, 1.0)],
}  # fmt: skip


def parameters(quick: bool, events: int | None) -> dict[str, int]:
    """The sizes of the cases: ``--quick`` as ``bench/run.py --quick`` (20,000 events, 50
    durable appends, 10 as-of queries, 50 shell entries); otherwise 100,000 events and
    ``run.py``'s larger counts."""
    if quick:
        found = {"events": 20_000, "durable": 50, "queries": 10, "reads": 20, "entries": 50}
    else:
        found = {"events": 100_000, "durable": 200, "queries": 20, "reads": 20, "entries": 200}
    if events:
        found["events"] = events
    return found


def git(*args: str, cwd: Path = ROOT) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout.strip()


@contextlib.contextmanager
def checked_out(ref: str, work: Path) -> Iterator[Path]:
    """``ref`` in a temporary detached worktree under ``work``, with its own environment
    (``uv sync --frozen``, offline first); the worktree is removed afterwards."""
    tree = work / "before"
    git("worktree", "add", "--detach", "--quiet", str(tree), ref)
    try:
        env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
        env.pop("UV_PROJECT_ENVIRONMENT", None)
        for extra in (["--offline"], []):
            done = subprocess.run(
                ["uv", "sync", "--frozen", "--quiet", *extra],
                cwd=tree,
                env=env,
                capture_output=True,
                text=True,
            )
            if done.returncode == 0:
                break
        else:
            raise SystemExit(f"uv sync of {ref} failed:\n{done.stderr.strip()}")
        yield tree
    finally:
        subprocess.run(
            ["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True
        )
        git("worktree", "prune")


def python_of(tree: Path) -> str:
    """The tree's own interpreter (its ``.venv``), so its ``campaign`` command is its own."""
    exe = tree / ".venv" / "bin" / "python"
    if not exe.exists():
        raise SystemExit(f"{tree} has no .venv: run `uv sync` there first")
    return str(exe)


def run_case(tree: Path, case: str, params: dict[str, int], offset: int, work: Path) -> Any:
    """One case in a fresh process of ``tree``'s interpreter: the dict its bench returns."""
    out = work / f"{case}.json"
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["BENCH_DIR"] = str(work)
    done = subprocess.run(
        [python_of(tree), "-c", CHILD, case, json.dumps(params), str(out), str(offset)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise SystemExit(f"case {case} failed in {tree}:\n{tail}")
    return json.loads(out.read_text())


def dig(found: Any, path: tuple[str, ...]) -> float | None:
    for key in path:
        if not isinstance(found, dict) or key not in found:
            return None
        found = found[key]
    return float(found) if isinstance(found, int | float) else None


def figures(case: str, found: Any, params: dict[str, int]) -> dict[str, tuple[float, float | None]]:
    """``{figure: (ms, floor ms or None)}`` of one run of ``case``."""
    out = {}
    for label, path, floor_path, scale in CASES[case]:
        value = dig(found, path)
        if value is None:
            continue
        floor = dig(found, floor_path) if floor_path else None
        out[label.format(events=f"{params['events']:,}")] = (
            value * scale,
            floor * scale if floor is not None else None,
        )
    return out


Samples = dict[str, dict[str, list[tuple[float, float | None]]]]  # side -> figure -> per round


def measure(
    trees: dict[str, Path],
    params: dict[str, int],
    rounds: int,
    work: Path,
    only: list[str] | None = None,
) -> Samples:
    """Every case (or the cases ``only`` names) once per tree per round: cases rotated by
    the round, the two sides of a case back to back, which goes first alternating."""
    samples: Samples = {side: {} for side in trees}
    names = only or list(CASES)
    sides = list(trees)
    for r in range(rounds):
        order = names[r % len(names) :] + names[: r % len(names)]
        started = time.perf_counter()
        for i, case in enumerate(order):
            for side in sides if (r + i) % 2 == 0 else sides[::-1]:
                found = run_case(trees[side], case, params, r, work)
                for label, pair in figures(case, found, params).items():
                    samples[side].setdefault(label, []).append(pair)
        print(
            f"  round {r + 1}/{rounds}: {time.perf_counter() - started:.0f} s, "
            f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}",
            file=sys.stderr,
        )
    return samples


def median_ratio(pairs: list[tuple[float, float]]) -> float | None:
    ratios = [a / b for a, b in pairs if b > 0]
    return statistics.median(ratios) if ratios else None


def table(samples: Samples) -> list[dict[str, Any]]:
    """One row per figure: medians of each side, the median after/before ratio of the same
    rounds, and the median ratio of each side to its floor."""
    rows = []
    for label in samples["before"]:
        before, after = samples["before"][label], samples["after"].get(label, [])
        if not after:
            continue
        row: dict[str, Any] = {
            "figure": label,
            "before_ms": statistics.median(v for v, _ in before),
            "after_ms": statistics.median(v for v, _ in after),
            "after_over_before": median_ratio(
                [(a, b) for (a, _), (b, _) in zip(after, before, strict=False)]
            ),
        }
        for side, runs in (("before", before), ("after", after)):
            with_floor = [(v, f) for v, f in runs if f is not None]
            row[f"{side}_over_floor"] = median_ratio(with_floor) if with_floor else None
        rows.append(row)
    return rows


#: The performance goals (docs/performance.md) read from the figures:
#: ``(name, ours, theirs, goal)``; ``theirs`` is a figure or ``"floor"`` (the floor measured
#: beside ``ours``). Each is the median over the
#: rounds of ``time(theirs) / time(ours)`` (how many times as fast ours is).
GOALS = (
    ("batched append vs fair raw floor", "store.append, {events} events", "floor", 0.8),
    ("Campaign.append vs eventsourcing (SQLite)", "campaign.append, {events} events",
     "eventsourcing application (peer)", 3.0),
    ("replay vs fair scan + decode", "replay every character, {events} events", "floor", 0.5),
    ("replay vs eventsourcing", "replay every character, {events} events",
     "eventsourcing replay (peer)", 15.0),
)  # fmt: skip


def goals(samples: Samples, events: int) -> list[dict[str, Any]]:
    """Each goal of :data:`GOALS` that both sides measured: its per-side median ratio."""
    rows = []
    for name, ours, theirs, goal in GOALS:
        ours = ours.format(events=f"{events:,}")
        row: dict[str, Any] = {"goal": name, "target": goal}
        for side, figs in samples.items():
            mine = figs.get(ours)
            if not mine:
                break
            if theirs == "floor":
                pairs = [(f, v) for v, f in mine if f]
            else:
                other = figs.get(theirs)
                if not other:
                    break
                pairs = [(o, v) for (v, _), (o, _) in zip(mine, other, strict=False)]
            row[side] = median_ratio(pairs)
        else:
            rows.append(row)
    return rows


def number(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "—"
    if digits == 0 or value >= 100:
        return f"{value:,.0f}"
    return f"{value:.{digits}f}"


def markdown(rows: list[dict[str, Any]], header: dict[str, Any]) -> str:
    """The table as Markdown, with what was compared, when, and the load average."""
    lines = [
        f"Before: `{header['before']}`; after: `{header['after']}`. {header['date']}, "
        f"{header['cpu']} ({header['cores']} cores), {header['rounds']} rounds at "
        f"{header['events']:,} events; load average {header['load_start']} at the start, "
        f"{header['load_end']} at the end; {header['wall_seconds']:.0f} s.",
        "",
        "| figure | before (ms) | after (ms) | after ÷ before | before ÷ floor | after ÷ floor |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row['figure']} | {number(row['before_ms'])} | {number(row['after_ms'])} | "
            f"{number(row['after_over_before'])} | {number(row['before_over_floor'])} | "
            f"{number(row['after_over_floor'])} |"
        )
    if header.get("goals"):
        lines += [
            "",
            "| goal (× as fast, median of per-round ratios) | target | before | after |",
            "|---|---:|---:|---:|",
        ]
        for g in header["goals"]:
            lines.append(
                f"| {g['goal']} | ≥ {g['target']}× | {number(g.get('before'))}× | "
                f"{number(g.get('after'))}× |"
            )
    return "\n".join(lines)


def cpu_name() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return "unknown CPU"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("ref", metavar="REF", help="the commit before the change (any git ref)")
    parser.add_argument("--quick", action="store_true", help="bench/run.py --quick's sizes")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, at least 5 (default 5)")
    parser.add_argument("--events", type=int, help="events of the measured ledgers")
    parser.add_argument("--json", type=Path, help="also write the rows and samples here")
    parser.add_argument("--markdown", type=Path, help="also write the table here")
    parser.add_argument(
        "--cases",
        help=f"comma-separated cases to run (default all: {','.join(CASES)})",
    )
    args = parser.parse_args(argv)
    only = [c.strip() for c in args.cases.split(",")] if args.cases else None
    if only and (bad := [c for c in only if c not in CASES]):
        parser.error(f"unknown cases {', '.join(bad)}: choose from {', '.join(CASES)}")
    if args.rounds < 5:
        parser.error("--rounds must be 5 or more: a median of fewer is noise")
    try:
        before = git("rev-parse", "--verify", "--quiet", f"{args.ref}^{{commit}}")
    except subprocess.CalledProcessError:
        parser.error(f"{args.ref!r} is not a commit of this repository (try `git log`)")
    head = git("rev-parse", "--short", "HEAD")
    dirty = " + uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    params = parameters(args.quick, args.events)
    load_start = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"before {before[:7]} ({args.ref}), after {head}{dirty}; load {load_start}",
          file=sys.stderr)  # fmt: skip
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ledger-compare-") as work_dir:
        work = Path(work_dir)
        with checked_out(before, work) as tree:
            samples = measure({"before": tree, "after": ROOT}, params, args.rounds, work, only)
    header = {
        "before": f"{before[:7]} ({args.ref})" if args.ref[:7] != before[:7] else before[:7],
        "after": f"{head}{dirty}",
        "date": datetime.date.today().isoformat(),
        "cpu": cpu_name(),
        "cores": os.cpu_count(),
        "rounds": args.rounds,
        "events": params["events"],
        "load_start": load_start,
        "load_end": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "wall_seconds": time.perf_counter() - started,
    }
    rows = table(samples)
    header["goals"] = goals(samples, params["events"])
    text = markdown(rows, header)
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    if args.json:
        args.json.write_text(
            json.dumps({"header": header, "params": params, "rows": rows, "samples": samples},
                       indent=2) + "\n"
        )  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
