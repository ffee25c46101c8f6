"""What ``Campaign.append``'s own checks cost per event, beside the whole append.

    uv run python bench/checks.py                    # 20,000 events, 7 rounds
    uv run python bench/checks.py --events 100000 --rounds 5 --json checks.json

Appends the bench workload (:mod:`workload`: sessions of 1,000 events, the d20-world rules)
with ``Campaign.append``, as :func:`cases.ledger_campaign_append` does, and times, inside each
append, the checks that run before the rules: the event kinds and the session order
(:func:`ledger.campaign.validation.check_kinds`), the encounter checks
(:func:`ledger.campaign.encounter_checks.check`), the span of time
(:func:`ledger.campaign.timeline.check`) and a roll's parts
(:func:`ledger.campaign.validation.check_contests`). Each is wrapped by a timer around the
call the append makes (a few hundred nanoseconds a batch). Prints, per event, the median
over the rounds of each check and of the whole append, and each check's share of it, with
the load average. Nothing here is a test.

To compare two trees in one run, run this file with each tree's ``ledger`` first on
``PYTHONPATH`` (the file itself uses only the public ``Campaign`` API and the four names
above).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases  # noqa: E402

from ledger.campaign import encounter_checks, timeline, validation  # noqa: E402

#: The checks timed: name → (module, function name).
CHECKS: dict[str, tuple[Any, str]] = {
    "check_kinds": (validation, "check_kinds"),
    "encounter_checks.check": (encounter_checks, "check"),
    "timeline.check": (timeline, "check"),
    "check_contests": (validation, "check_contests"),
}


def timed_round(path: str, work: list[cases.Batch]) -> dict[str, float]:
    """One ``Campaign.append`` of every batch of ``work`` into a fresh ledger: seconds of
    the whole append and of each check inside it."""
    spent = dict.fromkeys(CHECKS, 0.0)
    originals: dict[str, Callable[..., Any]] = {}

    def wrap(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*args, **kw)
            finally:
                spent[name] += time.perf_counter() - t

        return timed

    for name, (module, attr) in CHECKS.items():
        originals[name] = getattr(module, attr)
        setattr(module, attr, wrap(name, originals[name]))
    try:
        total = cases.ledger_campaign_append(path, work)
    finally:
        for name, (module, attr) in CHECKS.items():
            setattr(module, attr, originals[name])
    return {"append": total, **spent}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=20_000, help="events appended (20,000)")
    parser.add_argument("--rounds", type=int, default=7, help="rounds (at least 5)")
    parser.add_argument("--json", type=Path, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    work = cases.batches(args.events)
    events = sum(len(b[1]) for b in work)
    rounds = max(args.rounds, 5)
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="ledger-checks-") as tmp:
        path = str(Path(tmp) / "c.db")
        timed_round(path, work[:2])  # warm-up: imports, the codec, the page cache
        runs = [timed_round(path, work) for _ in range(rounds)]
    us = {k: round(1e6 * statistics.median(r[k] for r in runs) / events, 3) for k in runs[0]}
    share = {
        k: round(statistics.median(r[k] / r["append"] for r in runs), 4) for k in CHECKS
    }
    found = {
        "events": events,
        "rounds": rounds,
        "ledger": str(Path(validation.__file__).resolve().parent.parent),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "us_per_event": us,
        "share_of_append": share,
    }
    print(f"{events:,} events, {rounds} rounds, ledger from {found['ledger']}, "
          f"load average {load_before:.2f} → {os.getloadavg()[0]:.2f}")  # fmt: skip
    print(f"  Campaign.append            {us['append']:8.2f} µs an event")
    for k in CHECKS:
        print(f"  {k:<26} {us[k]:8.3f} µs an event  ({share[k]:.1%} of the append)")
    if args.json:
        args.json.write_text(json.dumps(found, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
