"""Case 10: ``audit SEQ`` by proof on a valid ledger, in process.

    uv run python bench/audit.py --events 1000000              # about 2 minutes
    uv run python bench/audit.py --events 100000 --before      # and the replaying audit once
    uv run python bench/audit.py --events 20000 --verify --json out.json

The ledger is the bench workload (:mod:`workload`, valid: tests/test_bench_workloads.py)
appended a session at a time with ``Store.append``, a checkpoint signed after every session
but the last two (as ``campaign session end`` signs one), so one roll is inside the newest
checkpoint (mid-campaign) and one after it (the last session). Snapshots are primed as reads
leave them (every character's sheet at the head in both views), then each round opens the
campaign afresh and audits both rolls; the three parts of an audit (the chain from its anchor,
the inclusion proof, the re-derivation) are timed apart in the same round.

``--cold`` adds the audits with no snapshot stored (measured first, before the priming):
the re-derivation then folds the character from the first event. ``--before`` times, once,
what ``audit`` did before it proved by checkpoint, on the same roll: SQLite's integrity
check and the chain and every roll's result from the first event to the roll
(``verify_store`` with the roll as receipt). ``--verify`` times one whole ``verify`` (it also keeps what it proved).
``--process`` times ``campaign audit SEQ`` as a whole process, byte-code compiled
(:mod:`procs`), beside ``python -c pass``.
Nothing here is a test; see docs/performance.md.
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
import workload  # noqa: E402


def build(path: str, events: int) -> dict[str, Any]:
    """The bench ledger of ``events`` at ``path``, a checkpoint signed after each session
    but the last two. Returns the sizes and seconds."""
    from ledger.campaign import checkpoints

    t = time.perf_counter()
    work = cases.batches(events)
    made = time.perf_counter() - t
    camp = cases.new_campaign(path)
    t = time.perf_counter()
    for i, batch in enumerate(work):
        cases.append_work(camp.store, [batch])
        if i < len(work) - 2:
            checkpoints.make_checkpoint(camp, actor=cases.ACTOR, at=cases.AT)
    appended = time.perf_counter() - t
    head = camp.store.head(camp.id).seq
    kept = camp.store.checkpoints(camp.id)
    camp.store.close()
    return {
        "events": head,
        "checkpoints": len(kept),
        "newest_checkpoint": kept[-1]["size"],
        "workload_seconds": round(made, 1),
        "append_and_sign_seconds": round(appended, 1),
    }


def rolls(path: str) -> dict[str, int]:
    """The audited rolls: the first check of the middle session (inside the newest
    checkpoint) and the first check of the last session (after it)."""
    from ledger.store.sqlite import Store

    store = Store(path)
    last = store.head(workload.CAMPAIGN).seq
    newest = store.latest_checkpoint(workload.CAMPAIGN)
    assert newest is not None
    size = int(newest["size"])

    def first_check(after: int) -> int:
        rows = store.rows(
            workload.CAMPAIGN, after=after, types=["d20-world.check_rolled"], limit=1,
            columns="seq",
        )  # fmt: skip
        (seq,) = next(iter(rows))
        return int(seq)

    found = {"in_checkpoint": first_check(size // 2), "after_checkpoint": first_check(size)}
    store.close()
    assert found["after_checkpoint"] <= last
    return found


def prime(path: str) -> float:
    """Snapshots as the reads leave them: every character's sheet at the head, both views."""
    from ledger.campaign.aggregate import open_campaign
    from ledger.store.sqlite import Store

    store = Store(path)
    camp = open_campaign(store, workload.CAMPAIGN)
    t = time.perf_counter()
    for sheet in workload.character_sheets():
        for as_gm in (True, False):
            camp.state_of(sheet["id"], as_gm=as_gm)
    took = time.perf_counter() - t
    store.close()
    return took


def audit_case(path: str, seq: int, parts: dict[str, list[float]] | None = None) -> float:
    """Seconds of ``audit(seq)`` (player's view) on a freshly opened campaign; with
    ``parts``, the chain, the inclusion proof and the re-derivation again, apart."""
    from ledger.campaign.aggregate import open_campaign
    from ledger.history.audit import audit, result_of
    from ledger.history.audit_proof import prove_chain
    from ledger.history.tree_proofs import against_checkpoint
    from ledger.store.sqlite import Store

    store = Store(path)
    camp = open_campaign(store, workload.CAMPAIGN)
    t = time.perf_counter()
    out = audit(camp, seq, as_gm=False)
    took = time.perf_counter() - t
    assert out["verdict"] == "recorded" and out["chain"]["ok"], out["detail"]
    if parts is not None:
        rec = camp.record(seq)
        steps: dict[str, Callable[[], Any]] = {
            "chain": lambda: prove_chain(camp, seq),
            "inclusion": lambda: against_checkpoint(camp, seq, rec.hash),
            "rederive": lambda: result_of(camp, rec, as_gm=False),
        }
        for name, step in steps.items():
            t = time.perf_counter()
            step()
            parts.setdefault(name, []).append(time.perf_counter() - t)
    store.close()
    return took


def ms(values: list[float]) -> float:
    return round(1000 * statistics.median(values), 2)


def measure(path: str, seqs: dict[str, int], reps: int) -> dict[str, Any]:
    """``reps`` rounds; each audits every roll once (order rotated), parts apart."""
    times: dict[str, list[float]] = {k: [] for k in seqs}
    parts: dict[str, dict[str, list[float]]] = {k: {} for k in seqs}
    names = list(seqs)
    for r in range(reps):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            times[name].append(audit_case(path, seqs[name], parts[name]))
        print(
            f"  round {r + 1}/{reps}: "
            + ", ".join(f"{k} {1000 * times[k][-1]:.1f} ms" for k in names)
        )
    return {
        name: {
            "seq": seqs[name],
            "audit_ms_median": ms(times[name]),
            "audit_ms_max": round(1000 * max(times[name]), 2),
            "parts_ms_median": {p: ms(v) for p, v in parts[name].items()},
        }
        for name in names
    }


def checked(path: str, seq: int) -> str:
    """What the audit of ``seq`` says it checked."""
    from ledger.campaign.aggregate import open_campaign
    from ledger.history.audit import audit
    from ledger.store.sqlite import Store

    store = Store(path)
    out = str(audit(open_campaign(store, workload.CAMPAIGN), seq, as_gm=False)["checked"])
    store.close()
    return out


def before(path: str, seq: int) -> float:
    """What ``audit`` cost when it replayed: integrity check, chain and every roll's result from
    the first event to ``seq`` (seconds, once)."""
    from ledger.history.verify import verify_store
    from ledger.store.sqlite import Store

    store = Store(path)
    h = next(iter(store.rows(workload.CAMPAIGN, after=seq - 1, upto=seq))).hash
    t = time.perf_counter()
    report = verify_store(store, workload.CAMPAIGN, receipt=(seq, h))
    took = time.perf_counter() - t
    assert report.ok, report.problem
    store.close()
    return took


def whole_verify(path: str) -> float:
    """One whole ``verify`` (integrity check, chain, every roll, seeds), seconds; keeps what
    it proved as ``campaign verify`` does."""
    from ledger.history.audit_proof import record_verified
    from ledger.history.verify import verify_store
    from ledger.store.sqlite import Store

    store = Store(path)
    t = time.perf_counter()
    report = verify_store(store, workload.CAMPAIGN)
    took = time.perf_counter() - t
    assert report.ok, report.problem
    record_verified(store, workload.CAMPAIGN, report.head_seq, report.head_hash, cases.AT)
    store.close()
    return took


def processes(path: str, seqs: dict[str, int], reps: int) -> dict[str, Any]:
    """``campaign audit SEQ`` as a whole process (start to exit, byte-code compiled:
    :mod:`procs`) for each roll, alternated with ``python -c pass``, ``reps`` rounds: the
    medians and the median of the per-round ratios."""
    import procs
    import run

    environ = procs.env()
    exe = run.campaign_exe()
    python = [sys.executable, "-c", "pass"]
    out: dict[str, Any] = {"bytecode": procs.BYTECODE}
    for name, seq in seqs.items():
        cmd = [exe, "--db", path, "audit", str(seq)]
        procs.timed(cmd, environ), procs.timed(python, environ)  # warm the page cache
        audits, passes = [], []
        for _ in range(reps):
            audits.append(procs.timed(cmd, environ))
            passes.append(procs.timed(python, environ))
        out[name] = {
            "seq": seq,
            "process_ms_median": ms(audits),
            "python_pass_ms_median": ms(passes),
            "ratio": round(statistics.median(a / p for a, p in zip(audits, passes, strict=True)), 2),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--cold", action="store_true", help="also audit with no snapshot stored")
    parser.add_argument("--before", action="store_true", help="also the replaying audit, once")
    parser.add_argument("--verify", action="store_true", help="also one whole verify")
    parser.add_argument(
        "--process", action="store_true", help="also `campaign audit SEQ` as a whole process"
    )
    parser.add_argument("--ledger", type=Path, help="use (or build and keep) this ledger file")
    parser.add_argument("--json", type=Path, help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    report: dict[str, Any] = {"load_average_at_start": os.getloadavg()}
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as work:
        path = str(args.ledger or Path(work) / "audit.db")
        if not os.path.exists(path):
            print(f"building {args.events:,} events")
            report["ledger"] = build(path, args.events)
        seqs = rolls(path)
        if args.cold:
            from ledger.store.sqlite import Store

            store = Store(path)
            store.drop_snapshots(workload.CAMPAIGN)
            store.close()
            print("audit with no snapshot stored")
            report["no_snapshots"] = measure(path, seqs, 3)
        report["prime_seconds"] = round(prime(path), 1)
        print(f"audit, {args.rounds} rounds")
        report["audit"] = measure(path, seqs, max(args.rounds, 3))
        report["checked"] = {k: checked(path, s) for k, s in seqs.items()}
        if args.process:
            print(f"audit as a process, {max(args.rounds, 5)} rounds")
            report["process"] = processes(path, seqs, max(args.rounds, 5))
        if args.before:
            print("the replaying audit, once")
            report["before_28_seconds"] = round(before(path, seqs["in_checkpoint"]), 2)
        if args.verify:
            print("one whole verify")
            report["verify_seconds"] = round(whole_verify(path), 2)
            report["after_verify"] = measure(path, seqs, 3)
            report["checked_after_verify"] = {k: checked(path, s) for k, s in seqs.items()}
    report["load_average_at_end"] = os.getloadavg()
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
