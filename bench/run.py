"""Campaign Ledger benchmarks, side by side with the raw SQLite floor and eventsourcing.

    uv run python bench/run.py            # 100,000 and 1,000,000 events (about 10 minutes)
    uv run python bench/run.py --quick    # 20,000 events, a minute or two
    uv run python bench/run.py --full     # also eventsourcing and Campaign.append at 1,000,000
    uv run python bench/run.py --sizes 20000,100000 --rounds 5   # smaller ledgers
    uv run python bench/run.py --correction-only 300000   # only the sheet after a correction
    uv run python bench/audit.py --events 1000000 --cold --before   # only audit by proof (case 10)

Every figure is a ratio measured in the same run: each round runs every case once (in a
rotated order), and the table gives medians over the rounds (at least five) of the per-round
ratios. Nothing here is a test; see docs/performance.md for the goals and a recorded run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases  # noqa: E402
import workload  # noqa: E402
from procs import env as compiled_env  # noqa: E402

Results = dict[str, list[float]]
AT = "2026-03-01T21:00:00.000000Z"


def rounds(n: int, named: dict[str, Callable[[], float]]) -> Results:
    """Run every case once per round, rotating the order; seconds per case per round."""
    out: Results = {k: [] for k in named}
    names = list(named)
    for r in range(n):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            out[name].append(named[name]())
        print(f"  round {r + 1}/{n}: " + ", ".join(f"{k} {out[k][-1]:.3f}s" for k in names))
    return out


def speed(res: Results, ours: str, theirs: str) -> float:
    """How many times as fast ``ours`` is as ``theirs``: the median over rounds of
    ``time(theirs) / time(ours)`` (0.5 means half the speed)."""
    return statistics.median(t / o for o, t in zip(res[ours], res[theirs], strict=True))


def med(res: Results, name: str) -> float:
    return statistics.median(res[name])


def with_fastest(res: Results, name: str, of: list[str]) -> str:
    """Add ``name`` to ``res``: in each round the fastest of the cases ``of``. Returns the
    case fastest in most rounds."""
    winners = []
    for times in zip(*(res[k] for k in of), strict=True):
        winners.append(of[times.index(min(times))])
    res[name] = [min(times) for times in zip(*(res[k] for k in of), strict=True)]
    return Counter(winners).most_common(1)[0][0]


def bench_append(tmp: Path, n: int, reps: int, *, peers: bool) -> tuple[dict[str, Any], Path]:
    """1. Batched append: Store.append and Campaign.append against the raw floor (the fastest
    of the :data:`cases.FLOOR_METHODS` in each round) and their eventsourcing peers
    (Store.append: its aggregate recorder; Campaign.append: its application)."""
    print(f"append, {n:,} events, {reps} rounds")
    work = cases.batches(n)
    events = sum(len(b[1]) for b in work)
    ledger_db = tmp / f"ledger-{n}.db"
    _, rows = cases.ledger_store_append(str(ledger_db), work)  # warm-up; rows for the floors
    # the floors and recorders get exactly the workload's rows (not the setup's)
    rows = [tuple(r) for r in rows[len(rows) - events :]]
    floors = [f"floor_{m}" for m in cases.FLOOR_METHODS]

    def floor(method: str) -> Callable[[], float]:
        return lambda: cases.floor_append(str(tmp / "floor.db"), rows, method=method)

    named: dict[str, Callable[[], float]] = {
        "store.append": lambda: cases.ledger_store_append(str(ledger_db), work)[0],
        **{f"floor_{m}": floor(m) for m in cases.FLOOR_METHODS},
        "floor_bare": lambda: cases.floor_bare_append(str(tmp / "bare.db"), rows),
        "es_aggregate_recorder": lambda: cases.es_aggregate_recorder_append(
            str(tmp / "er.db"), rows
        ),
    }
    es_ids: dict[str, Any] = {}
    if peers:

        def es() -> float:
            t, ids = cases.es_append(str(tmp / f"es-{n}.db"), work)
            es_ids.update(ids)
            return t

        named["campaign.append"] = lambda: cases.ledger_campaign_append(str(tmp / "c.db"), work)
        named["eventsourcing"] = es
    res = rounds(reps, named)
    fastest = with_fastest(res, "floor", floors)
    out: dict[str, Any] = {
        "events": events,
        "payload_bytes_mean": round(sum(len(r[5]) for r in rows) / len(rows), 1),
        "seconds": {k: round(med(res, k), 4) for k in res},
        "events_per_s": {k: round(events / med(res, k)) for k in res},
        "floor_fastest_in_most_rounds": fastest,
        "store_vs_floor": round(speed(res, "store.append", "floor"), 3),
        "store_vs_bare_floor": round(speed(res, "store.append", "floor_bare"), 3),
        "store_vs_es_aggregate_recorder": round(
            speed(res, "store.append", "es_aggregate_recorder"), 2
        ),
    }
    if peers:
        out["campaign_vs_floor"] = round(speed(res, "campaign.append", "floor"), 3)
        out["campaign_vs_eventsourcing"] = round(speed(res, "campaign.append", "eventsourcing"), 2)
        out["campaign_vs_store"] = round(speed(res, "campaign.append", "store.append"), 3)
        out["_es_ids"] = {k: str(v) for k, v in es_ids.items()}
    return out, ledger_db


def bench_replay(
    tmp: Path, n: int, reps: int, ledger_db: Path, es_ids: dict[str, str] | None
) -> dict[str, Any]:
    """2. Replay every character through the rules, against scan + decode and eventsourcing."""
    print(f"replay, {n:,} events, {reps} rounds")
    named: dict[str, Callable[[], float]] = {
        "ledger": lambda: cases.ledger_replay(str(ledger_db)),
        "floor_scan_decode": lambda: cases.floor_scan_decode(str(ledger_db)),
    }
    if es_ids:
        import uuid

        ids = {k: uuid.UUID(v) for k, v in es_ids.items()}
        named["eventsourcing"] = lambda: cases.es_replay(str(tmp / f"es-{n}.db"), ids)
    res = rounds(reps, named)
    events = sqlite3.connect(ledger_db).execute("select count(*) from events").fetchone()[0]
    out: dict[str, Any] = {
        "events": events,
        "seconds": {k: round(med(res, k), 4) for k in res},
        "events_per_s": {k: round(events / med(res, k)) for k in res},
        "ledger_vs_floor": round(speed(res, "ledger", "floor_scan_decode"), 3),
    }
    if es_ids:
        out["ledger_vs_eventsourcing"] = round(speed(res, "ledger", "eventsourcing"), 2)
    return out


def bench_durable(tmp: Path, count: int, reps: int) -> dict[str, Any]:
    """3. Single appends, one transaction each, synchronous=FULL."""
    print(f"durable single appends, {count} events, {reps} rounds")
    work = cases.batches(count)
    events = [e for _, evs, _ in work for e in evs][:count]
    _, rows = cases.ledger_store_append(str(tmp / "d-rows.db"), work)
    rows = [tuple(r) for r in rows[-sum(len(b[1]) for b in work) :]][:count]
    res = rounds(
        reps,
        {
            "store.append FULL": lambda: cases.ledger_durable(str(tmp / "d.db"), events),
            "floor FULL": lambda: cases.floor_durable(str(tmp / "df.db"), rows),
        },
    )
    return {
        "events": count,
        "ms_per_append": {k: round(1000 * med(res, k) / count, 3) for k in res},
        "store_vs_floor": round(speed(res, "store.append FULL", "floor FULL"), 3),
    }


def campaign_exe() -> str:
    exe = Path(sys.executable).with_name("campaign")
    return str(exe) if exe.exists() else shutil.which("campaign") or "campaign"


def bench_as_of(ledger_db: Path, queries: int, reps: int) -> dict[str, Any]:
    """4. A sheet as of a random seq: in-process (open, resolve, state_of, view) and the whole
    ``campaign sheet --as-of`` process, after snapshots exist."""
    from ledger.campaign.aggregate import open_campaign
    from ledger.store.sqlite import Store

    print(f"sheet --as-of on {ledger_db.name}, {queries} queries x {reps} rounds")
    store = Store(str(ledger_db))
    camp = open_campaign(store, workload.CAMPAIGN)
    head = store.head(workload.CAMPAIGN).seq
    t = time.perf_counter()
    for sheet in workload.character_sheets():
        camp.state_of(sheet["id"])  # one full replay each; saves snapshots on the way
    prime = time.perf_counter() - t
    snapshots = store.conn.execute("select count(*) from snapshots").fetchone()[0]
    store.conn.close()
    rng = random.Random(3)
    chars = [s["id"] for s in workload.character_sheets()]
    in_proc: list[float] = []
    procs: list[float] = []
    exe = campaign_exe()
    for _ in range(reps):
        for _ in range(queries):
            who, upto = rng.choice(chars), rng.randint(head // 10, head)
            t = time.perf_counter()
            store = Store(str(ledger_db))
            camp = open_campaign(store, workload.CAMPAIGN)
            seq = camp.resolve_as_of(str(upto))
            camp.system.sheet_view(camp.state_of(who, upto=seq), as_gm=True)
            in_proc.append(time.perf_counter() - t)
            store.conn.close()
        for _ in range(3):
            who, upto = rng.choice(chars), rng.randint(head // 10, head)
            t = time.perf_counter()
            subprocess.run(
                [exe, "--db", str(ledger_db), "sheet", who, "--as-of", str(upto), "--json"],
                check=True,
                stdout=subprocess.DEVNULL,
                env=compiled_env(),
            )
            procs.append(time.perf_counter() - t)
    return {
        "events": head,
        "snapshots": snapshots,
        "prime_seconds": round(prime, 2),
        "in_process_ms_median": round(1000 * statistics.median(in_proc), 2),
        "in_process_ms_p90": round(1000 * sorted(in_proc)[int(0.9 * len(in_proc))], 2),
        "cli_process_ms_median": round(1000 * statistics.median(procs), 1),
    }


def bench_correction(tmp: Path, n: int, reads: int) -> dict[str, Any]:
    """7. A sheet at the head after a correction of an early event (issue 14: snapshots
    before the correction stay usable, the rest are rebuilt by the first replay).

    Builds an ``n``-event ledger, reads one character's sheet once (a full replay that saves
    snapshots), then ``reads`` times; retracts that character's first ``experience_marked``
    (an early event), then reads the sheet once and ``reads`` times again. Each read opens
    the store and the campaign, as a ``campaign sheet`` process does.
    """
    from ledger.campaign.aggregate import open_campaign
    from ledger.store.sqlite import Store

    print(f"sheet after an early correction, {n:,} events, {reads} reads before and after")
    db = tmp / f"correction-{n}.db"
    cases.ledger_store_append(str(db), cases.batches(n))
    who = "isa"

    def sheet_ms() -> float:
        t = time.perf_counter()
        store = Store(str(db))
        camp = open_campaign(store, workload.CAMPAIGN)
        camp.system.sheet_view(camp.state_of(who), as_gm=True)
        elapsed = time.perf_counter() - t
        store.conn.close()
        return 1000 * elapsed

    prime = sheet_ms()
    before = [sheet_ms() for _ in range(reads)]
    target, took = cases.correct_early(str(db), who)
    correct_ms = 1000 * took
    first = sheet_ms()
    after = [sheet_ms() for _ in range(reads)]
    head = sqlite3.connect(db).execute("select max(seq) from events").fetchone()[0]
    return {
        "events": head,
        "corrected_seq": target,
        "first_read_ms": round(prime, 1),
        "before_ms_median": round(statistics.median(before), 2),
        "correct_ms": round(correct_ms, 1),
        "first_read_after_ms": round(first, 1),
        "after_ms_median": round(statistics.median(after), 2),
        "after_ms_max": round(max(after), 2),
    }


def bench_checkpoint(ledger_db: Path, reps: int) -> dict[str, Any]:
    """9. A checkpoint at the bench ledger's size, in process: read the stored Merkle
    frontier, compute the root, sign the C2SP note with the campaign's Ed25519 key and keep it
    (:func:`ledger.campaign.checkpoints.make_checkpoint`). The kept checkpoint of that size
    is removed between rounds (untimed) so each round signs; an inclusion and a consistency
    proof against it are timed too (O(log n) reads of the stored tree)."""
    from ledger.campaign import checkpoints
    from ledger.campaign.aggregate import open_campaign
    from ledger.history import tree_proofs
    from ledger.store.sqlite import Store

    store = Store(str(ledger_db))
    camp = open_campaign(store, workload.CAMPAIGN)
    head = store.head(camp.id).seq
    print(f"checkpoint at {head:,} events, {reps} rounds")
    made_ms, proof_ms = [], []
    for i in range(reps):
        store.conn.execute("delete from checkpoints where campaign = ?", (camp.id,))
        t = time.perf_counter()
        made = checkpoints.make_checkpoint(camp, actor=cases.ACTOR, at=cases.AT)
        made_ms.append(1000 * (time.perf_counter() - t))
        assert made.new and made.size == head
        t = time.perf_counter()
        tree_proofs.inclusion(store, camp.id, 1 + (i * 7919) % head, head)
        tree_proofs.consistency(store, camp.id, max(1, head // 3 + i), head)
        proof_ms.append(1000 * (time.perf_counter() - t))
    store.close()
    return {
        "events": head,
        "checkpoint_ms_median": round(statistics.median(made_ms), 2),
        "checkpoint_ms_max": round(max(made_ms), 2),
        "two_proofs_ms_median": round(statistics.median(proof_ms), 2),
    }


def roll_setup(db: Path) -> tuple[list[str], dict[str, str]]:
    """A d20-world campaign at ``db`` with Isa and a session started, made by the
    ``campaign`` command: the one-shot roll (a check with physical dice, appended) to time
    on it, and the environment naming it (byte-code compiled: :func:`procs.env`)."""
    exe = campaign_exe()
    env = compiled_env(CAMPAIGN_DB=str(db))
    for args in (
        ["new", "vault", "--system", "d20-world"],
        ["character", "add", "--sheet", str(workload.SHEETS / "isa.toml")],
        ["session", "start"],
    ):
        subprocess.run([exe, *args], check=True, env=env, stdout=subprocess.DEVNULL)
    return [exe, "roll", "isa", "Lockpicking", "--time", "--dice", "16"], env


def bench_cli(tmp: Path, reps: int, per_round: int) -> dict[str, Any]:
    """5. ``campaign roll`` start to exit against ``python -c "import sqlite3"``."""
    print(f"campaign roll process, {reps} rounds x {per_round}")
    roll, env = roll_setup(tmp / "cli.db")
    floor = [sys.executable, "-c", "import sqlite3"]

    def timed(cmd: list[str]) -> float:
        t = time.perf_counter()
        subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL)
        return time.perf_counter() - t

    res = rounds(
        reps,
        {
            "campaign roll": lambda: statistics.median(timed(roll) for _ in range(per_round)),
            "python -c import sqlite3": lambda: statistics.median(
                timed(floor) for _ in range(per_round)
            ),
        },
    )
    return {
        "ms": {k: round(1000 * med(res, k), 1) for k in res},
        "roll_over_python": round(1 / speed(res, "campaign roll", "python -c import sqlite3"), 2),
    }


def bench_shell(tmp: Path, reps: int, entries: int, process_ms: float) -> dict[str, Any]:
    """6. One ``campaign play`` entry (``roll isa Lockpicking --time --dice 16``) against
    the same command as a process (``process_ms``, from :func:`bench_cli`): the table
    shell's goal is every entry answered in under 50 ms."""
    import contextlib
    import io

    from ledger.cli import App
    from ledger.cli.play import TableShell

    print(f"campaign play entries, {reps} rounds x {entries}")
    db = tmp / "shell.db"
    sheet = workload.SHEETS / "isa.toml"
    app = App(str(db), None, None, "gm")
    shell = TableShell(app)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for line in ("new vault --system d20-world", f"character add --sheet {sheet}",
                     "session start"):  # fmt: skip
            assert shell.run_line(line) == 0, line
    times: list[float] = []
    medians = []
    for _ in range(reps):
        this_round = []
        for _ in range(entries):
            out.seek(0)
            out.truncate()
            t = time.perf_counter()
            with contextlib.redirect_stdout(out):
                code = shell.run_line("roll isa Lockpicking --time --dice 16")
            this_round.append(time.perf_counter() - t)
            assert code == 0, out.getvalue()
        times += this_round
        medians.append(statistics.median(this_round))
        print(f"  round {len(medians)}/{reps}: median {1000 * medians[-1]:.2f} ms")
    app.close()
    times.sort()
    median_ms = 1000 * statistics.median(medians)
    return {
        "entry_ms_median": round(median_ms, 2),
        "entry_ms_p90": round(1000 * times[int(0.9 * len(times))], 2),
        "entry_ms_max": round(1000 * times[-1], 2),
        "process_ms_median": process_ms,
        "process_over_entry": round(process_ms / median_ms, 1),
    }


RSS_CHILD = """
import sys, threading, time
sys.path.insert(0, {here!r})
from ledger.campaign.aggregate import open_campaign
from ledger.store.sqlite import Store


def status():  # KiB of this process's memory: {{"RssAnon": .., "RssFile": .., "VmHWM": ..}}
    out = {{}}
    for line in open("/proc/self/status"):
        key = line.split(":", 1)[0]
        if key in ("RssAnon", "RssFile", "VmHWM"):
            out[key] = int(line.split()[1])
    return out


def mapped(path):  # KiB of the ledger file resident through its memory mapping
    rss, inside = 0, False
    for line in open("/proc/self/smaps"):
        first = line.split(None, 1)[0]
        if "-" in first and not first.endswith(":"):  # a mapping's header line
            inside = line.rstrip().endswith(path)
        elif inside and first == "Rss:":
            rss += int(line.split()[1])
    return rss


peak = [0]
done = threading.Event()


def sample():  # the peak of private memory: RssAnon every 2 ms
    while not done.is_set():
        peak[0] = max(peak[0], status()["RssAnon"])
        time.sleep(0.002)


store = Store({db!r})
camp = open_campaign(store, "bench")
before = status()
sampler = threading.Thread(target=sample)
sampler.start()
states = camp.states()
done.set()
sampler.join()
after = status()
print(before["RssAnon"], max(peak[0], after["RssAnon"]), after["RssFile"], mapped({db!r}),
      after["VmHWM"], len(states))
"""


def bench_rss(ledger_db: Path) -> dict[str, Any]:
    """6. Memory of a fresh process replaying the whole campaign, private and mapped apart:
    the peak of ``RssAnon`` (private memory: Python objects, SQLite's page cache; sampled
    every 2 ms during the replay), the ledger file's pages resident through its memory
    mapping after the replay (``/proc/self/smaps``: shared, clean and reclaimable page
    cache, not the process's own), and ``VmHWM`` (the peak of both and of every other
    mapped file: libraries) for context."""
    print(f"memory of a replay of {ledger_db.name}")
    code = RSS_CHILD.format(here=str(HERE), db=str(ledger_db.resolve()))
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    before, peak, rss_file, mapped, hwm, _ = (int(x) for x in out.stdout.split())
    return {
        "private_rss_anon_peak_mb": round(peak / 1024, 1),
        "private_rss_anon_before_replay_mb": round(before / 1024, 1),
        "ledger_file_mapped_mb": round(mapped / 1024, 1),
        "rss_file_mb": round(rss_file / 1024, 1),
        "vm_hwm_mb": round(hwm / 1024, 1),
        "ledger_file_mb": round(ledger_db.stat().st_size / 2**20, 1),
    }


class _Undo(Exception):
    """Raised inside a transaction to roll back a measured write."""


def bench_reads(ledger_db: Path, reps: int, small_db: Path | None = None) -> dict[str, Any]:
    """8. Every read path of issue 19 on the big ledger, after snapshots exist: in process
    (open, read, render nothing) and as a whole ``campaign`` process; and one ``roll`` (in a
    transaction rolled back, so the ledger is unchanged) on the big ledger and a small one."""
    from ledger.campaign.aggregate import SESSION_TYPES, open_campaign
    from ledger.history.advancement import preview
    from ledger.history.audit import audit
    from ledger.history.recap import build_recap
    from ledger.store.sqlite import Store

    print(f"reads on {ledger_db.name}, {reps} rounds")
    store = Store(str(ledger_db))
    camp = open_campaign(store, workload.CAMPAIGN)
    head = store.head(workload.CAMPAIGN).seq
    last = camp.last_session()
    chars = [s["id"] for s in workload.character_sheets()]
    t = time.perf_counter()
    for who in chars:  # snapshots in both views, as the reads before these would leave
        for as_gm in (True, False):
            camp.state_of(who, as_gm=as_gm)
    prime = time.perf_counter() - t
    mid = last // 2
    stamp = next(iter(camp.records(session=mid))).recorded_at
    roll_seq = next(r.seq for r in camp.records(session=mid) if r.type.endswith("check_rolled"))
    store.conn.close()

    def opened() -> Any:
        return open_campaign(Store(str(ledger_db)), workload.CAMPAIGN)

    def timed(read: Callable[[Any], Any]) -> Callable[[], float]:
        def run() -> float:
            c = opened()
            t = time.perf_counter()
            read(c)
            took = time.perf_counter() - t
            c.store.close()
            return took

        return run

    def roll_on(db: Path) -> Callable[[], float]:
        def run() -> float:
            c = open_campaign(Store(str(db)), workload.CAMPAIGN)
            t = time.perf_counter()
            try:
                with c.store.transaction():
                    c.roll("isa", "Lockpicking", {"time": True}, faces="16", actor="gm", at=AT)
                    raise _Undo
            except _Undo:
                pass
            took = time.perf_counter() - t
            c.store.close()
            return took

        return run

    named: dict[str, Callable[[], float]] = {
        "sheet --as-of session:N": timed(
            lambda c: c.state_of("isa", upto=c.resolve_as_of(f"session:{mid}"))
        ),
        "sheet --as-of TIME": timed(lambda c: c.state_of("isa", upto=c.resolve_as_of(stamp))),
        "session list": timed(lambda c: list(c.records(types=[*SESSION_TYPES]))),
        "log --session N": timed(lambda c: list(c.records(as_gm=False, session=mid))),
        "log --character (its last 1,000)": timed(
            lambda c: list(c.records(as_gm=False, stream="isa", after=head - 6000))
        ),
        "recap --session N": timed(lambda c: build_recap(c, mid, as_gm=False)),
        "advance --dry-run": timed(lambda c: preview(c, mid, {})),
        "roll (big ledger)": roll_on(ledger_db),
    }
    if small_db is not None:
        named["roll (small ledger)"] = roll_on(small_db)
    res = rounds(reps, named)
    exe = campaign_exe()
    procs: dict[str, float] = {}
    commands = {
        "sheet --as-of session:N": ["sheet", "isa", "--as-of", f"session:{mid}", "--json"],
        "log --session N": ["log", "--session", str(mid), "--json"],
        "recap --session N": ["recap", "--session", str(mid), "--format", "md"],
        "session list": ["session", "list", "--json"],
        "advance --dry-run": ["advance", "--session", str(mid), "--dry-run", "--json"],
    }
    for label, args in commands.items():
        times = []
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run(
                [exe, "--db", str(ledger_db), *args],
                check=True,
                stdout=subprocess.DEVNULL,
                env=compiled_env(),
            )
            times.append(time.perf_counter() - t)
        procs[label] = round(1000 * statistics.median(times), 1)
    # this ledger has no signed checkpoint, so audit by proof chains from the first event to
    # the roll (O(seq) hashes, no replay); case 10 (bench/audit.py) measures it on a ledger
    # signed at every session end, as `campaign session end` signs
    t = time.perf_counter()
    c = opened()
    audit(c, roll_seq, as_gm=False)
    c.store.conn.close()
    audit_ms = round(1000 * (time.perf_counter() - t), 1)
    out: dict[str, Any] = {
        "events": head,
        "sessions": last,
        "prime_seconds": round(prime, 1),
        "in_process_ms_median": {k: round(1000 * med(res, k), 2) for k in res},
        "process_ms_median": procs,
        "audit_at_mid_campaign_ms": audit_ms,  # no checkpoint: see above
    }
    if small_db is not None:
        big_small = 1 / speed(res, "roll (big ledger)", "roll (small ledger)")
        out["roll_big_over_small"] = round(big_small, 2)
    return out


def bench_audit(tmp: Path, n: int, reps: int) -> dict[str, Any]:
    """10. ``audit SEQ`` by proof on a ledger of ``n`` events signed at every session
    end but the last two (:mod:`audit`): a roll inside the newest checkpoint and one after
    it, after the snapshots are primed."""
    import audit

    db = tmp / f"audit-{n}.db"
    print(f"audit by proof, {n:,} events, {reps} rounds")
    out: dict[str, Any] = {"ledger": audit.build(str(db), n)}
    seqs = audit.rolls(str(db))
    out["prime_seconds"] = round(audit.prime(str(db)), 1)
    out["audit"] = audit.measure(str(db), seqs, max(reps, 3))
    out["checked"] = {k: audit.checked(str(db), s) for k, s in seqs.items()}
    return out


def machine() -> dict[str, Any]:
    import msgspec

    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        from importlib.metadata import version

        import eventsourcing  # noqa: F401

        es = version("eventsourcing")
    except Exception:  # pragma: no cover
        es = "absent"
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gb": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "msgspec": msgspec.__version__,
        "eventsourcing": es,
        "load_average_at_start": os.getloadavg(),
        "durability": {
            "store.append, campaign.append, floors": "WAL, synchronous=NORMAL",
            "eventsourcing (application, aggregate recorder)": (
                f"WAL, synchronous={cases.ES_SQLITE_SYNCHRONOUS} (set by the bench; "
                "its own default is SQLite's, FULL here)"
            ),
            "durable single appends (case 3), both sides": "WAL, synchronous=FULL",
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="20,000 events only, small counts")
    parser.add_argument("--full", action="store_true", help="peers at 1,000,000 events too (long)")
    parser.add_argument(
        "--sizes",
        help="comma-separated event counts for cases 1 and 2 (default 100000,1000000; "
        "--quick: 20000); the others run on the last",
    )
    parser.add_argument("--rounds", type=int, default=5, help="rounds per case (default 5)")
    parser.add_argument("--json", type=Path, help="also write the results to this JSON file")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep the files")
    parser.add_argument(
        "--correction-only",
        type=int,
        metavar="EVENTS",
        help="only case 7 (sheet after an early correction) on a ledger of EVENTS events",
    )
    parser.add_argument(
        "--reads-only",
        type=Path,
        metavar="LEDGER",
        help="only case 8 (every read path) on an existing bench ledger (bench/workload.py)",
    )
    parser.add_argument(
        "--checkpoint-only",
        type=int,
        metavar="EVENTS",
        help="only case 9 (a checkpoint, and two proofs) on a new ledger of EVENTS events",
    )
    parser.add_argument(
        "--append-only",
        type=int,
        metavar="EVENTS",
        help="only case 1 (batched append, no peers) at EVENTS events",
    )
    args = parser.parse_args(argv)
    if args.checkpoint_only or args.append_only:
        with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as work:
            if args.checkpoint_only:
                db = Path(work) / "checkpoint.db"
                cases.ledger_store_append(str(db), cases.batches(args.checkpoint_only))
                found = bench_checkpoint(db, max(args.rounds, 5))
            else:
                found = bench_append(Path(work), args.append_only, max(args.rounds, 5), peers=False)[0]
        print(json.dumps(found, indent=2))
        if args.json:
            args.json.write_text(json.dumps(found, indent=2) + "\n")
        return 0
    if args.reads_only:
        with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as work:
            small = Path(work) / "small.db"
            cases.ledger_store_append(str(small), cases.batches(1_000))
            found = bench_reads(args.reads_only, max(args.rounds, 5), small)
        print(json.dumps(found, indent=2))
        if args.json:
            args.json.write_text(json.dumps(found, indent=2) + "\n")
        return 0
    if args.correction_only:
        with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as work:
            found = bench_correction(Path(work), args.correction_only, max(args.rounds, 5) * 4)
        print(json.dumps(found, indent=2))
        if args.json:
            args.json.write_text(json.dumps(found, indent=2) + "\n")
        return 0
    reps = max(args.rounds, 1)
    sizes = [20_000] if args.quick else [100_000, 1_000_000]
    if args.sizes:
        sizes = [int(x) for x in args.sizes.split(",")]
    tmp = args.keep or Path(
        tempfile.mkdtemp(prefix="ledger-bench-", dir=os.environ.get("BENCH_DIR"))
    )
    tmp.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    report: dict[str, Any] = {"machine": machine(), "rounds": reps, "append": {}, "replay": {}}
    try:
        last_db = None
        for n in sizes:
            peers = n <= 100_000 or args.full
            out, db = bench_append(tmp, n, reps, peers=peers)
            es_ids = out.pop("_es_ids", None)
            report["append"][str(n)] = out
            report["replay"][str(n)] = bench_replay(tmp, n, reps, db, es_ids)
            last_db = db
        assert last_db is not None
        report["durable"] = bench_durable(tmp, 50 if args.quick else 200, reps)
        report["as_of"] = bench_as_of(last_db, 10 if args.quick else 20, reps)
        small = tmp / "small.db"
        cases.ledger_store_append(str(small), cases.batches(1_000))
        report["reads"] = bench_reads(last_db, reps, small)
        report["checkpoint"] = bench_checkpoint(last_db, reps)
        report["correction"] = bench_correction(tmp, 20_000 if args.quick else 300_000, 4 * reps)
        report["cli"] = bench_cli(tmp, reps, 3)
        report["shell"] = bench_shell(
            tmp, reps, 50 if args.quick else 200, report["cli"]["ms"]["campaign roll"]
        )
        report["rss"] = bench_rss(last_db)
        report["audit"] = bench_audit(tmp, sizes[-1], reps)
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    report["machine"]["load_average_at_end"] = os.getloadavg()
    report["wall_seconds"] = round(time.perf_counter() - started, 1)
    report["peak_rss_of_bench_mb"] = round(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    )
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
