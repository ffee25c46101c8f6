"""The league at scale, on PostgreSQL (docs/league.md "Measured").

    uv run python bench/league.py --db postgresql://postgres@127.0.0.1:5432/test \\
        --characters 3000 --sessions 20 --json out.json

Five parts, each on a fresh schema of the server ``--db`` names (dropped afterwards):

1. **build**: a league of ``--characters`` × ``--sessions`` accepted entries, each a
   signed chronicle entry of one of 16 member tables, chained per character, appended by
   the store in batches (the bulk load a league migrating its records would do; each
   entry still goes through the store's chain and Merkle tree).
2. **passport**: a table plays one character through ``--passport-sessions`` sessions
   (SQLite), exports the passport, and it is verified in process (median of 5) and joined
   as a process (``campaign character add --passport``, median of 3) at another table.
3. **costs**: one submission's parts in one thread, medians: its check (parse and
   signature), its character's newest entry read, an append of one entry and of sixteen.
4. **submit**: ``--tables`` threads, each with its own connection, submit new entries
   extending built characters' heads for ``--seconds``: submissions per second and latency
   percentiles. Each table signs its entries before the clock starts (a table signs on its
   own machine); each submission is checked as ``league serve`` checks it (signature,
   chain, expected version), the threads sharing one :class:`~ledger.league.intake.Intake`
   as the server's worker threads do (``--alone``: each appends by itself).
5. **races**: ``--races`` times, two threads submit entries extending the same head at
   once; exactly one must be accepted each time.

``--build-seconds`` stops a build that would take too long (the figures say how much was
built); ``--keep FILE`` keeps the built league and ``--reuse FILE`` measures it again
without building (once: its heads move on).

Nothing here is a test; the figures go to docs/league.md with the machine's load average.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from typing import Any

AT = "2026-03-01T19:00:00.000000Z"


def _schema(server: str) -> tuple[str, str]:
    import psycopg

    schema = f"bench_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"create schema {schema}")
    sep = "&" if "?" in server else "?"
    return schema, f"{server}{sep}options=-csearch_path%3D{schema}"


def _drop(server: str, schema: str) -> None:
    import psycopg

    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"drop schema {schema} cascade")


def _entry(signer: Any, passport: str, previous: str, session: int) -> str:
    from ledger.trust import chronicle
    from ledger.trust.notes import sign

    entry = chronicle.Entry(
        passport=passport, character="pc", name="A character", table=signer.name,
        checkpoint=(10 * session, bytes(32)), session=session, system="d20-world",
        options={}, events=(1, "0" * 64), state="1" * 64, previous=previous,
        changed=("Forage +2 xp",),
    )  # fmt: skip
    return sign(entry.text(), signer)


def _hash(note: str) -> str:
    from ledger.trust import chronicle

    return chronicle.entry_hash(note[: note.rfind("\n\n") + 1])


def build(url: str, characters: int, sessions: int, tables: list[Any],
          budget: float | None = None, start: int = 0) -> dict[str, Any]:  # fmt: skip
    """The league ``marches`` with ``characters`` × ``sessions`` entries; the heads. With
    ``budget`` (seconds), it stops at the first batch boundary after that time: the figures
    say how many characters were built whole. With ``start``, the league exists with that
    many characters built, and the rest are added."""
    from ledger.league.core import EntryAccepted, League
    from ledger.store.opening import open_store
    from ledger.store.protocols import Pending
    from ledger.trust import chronicle

    store = open_store(url)
    if start:
        league = League(store, "marches")
    else:
        league = League.init(store, "marches", at=AT)
        for t in tables:
            league.trust(t.verifier.key(), at=AT)
    heads: dict[str, tuple[str, int]] = {}
    t0 = time.perf_counter()
    batch: list[Pending] = []
    done = 0
    for c in range(start, characters):
        pid = f"{c:032x}"
        previous = chronicle.NO_PREVIOUS
        signer = tables[c % len(tables)]
        for s in range(1, sessions + 1):
            note = _entry(signer, pid, previous, s)
            digest = _hash(note)
            batch.append(Pending(EntryAccepted(
                character=pid, table=signer.name, session=s, hash=digest,
                previous=previous, note=note,
            )))  # fmt: skip
            previous = digest
        heads[pid] = (previous, sessions)
        if len(batch) >= 2000:
            store.append(league.id, batch, actor="bench", recorded_at=AT, session=None)
            done += len(batch)
            batch = []
            if done % 100_000 < 2000:
                took = time.perf_counter() - t0
                print(f"  built {done} entries in {took:.0f} s ({done / took:.0f}/s)", flush=True)
            if budget is not None and time.perf_counter() - t0 > budget:
                break
    if batch:
        store.append(league.id, batch, actor="bench", recorded_at=AT, session=None)
        done += len(batch)
    seconds = time.perf_counter() - t0
    size = store.head(league.id).seq
    store.close()
    # a bulk load leaves the planner's statistics behind (autovacuum catches up later):
    # without them a seek by type (the league's own key) scans the log from its end
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("analyze events")
    return {"characters": len(heads), "sessions": sessions, "entries": done,
            "log_size": size, "seconds": round(seconds, 1),
            "entries_per_s": round(done / seconds), "heads": heads}  # fmt: skip


def passport_timings(sessions: int) -> dict[str, Any]:
    """A character played ``sessions`` sessions at one table, then verified at another."""
    from click.testing import CliRunner

    from ledger.cli import cli
    from ledger.history.passports import verify_passport

    tmp = tempfile.mkdtemp(prefix="league-bench-")
    sheets = os.path.join(os.path.dirname(__file__), "..", "campaigns/the-world/characters/")
    runner = CliRunner()

    def run(db: str, *args: str) -> str:
        got = runner.invoke(cli, ["--db", os.path.join(tmp, db), *args])
        assert got.exit_code == 0, got.output
        return got.output

    t0 = time.perf_counter()
    run("mara.db", "new", "mara", "--system", "d20-world")
    run("mara.db", "character", "add", "--sheet", sheets + "isa.toml")
    for s in range(sessions):
        run("mara.db", "session", "start")
        run("mara.db", "roll", "isa", "Forage", "--time", "--dice", str(3 + s % 15))
        run("mara.db", "session", "end")
    played = time.perf_counter() - t0
    path = os.path.join(tmp, "isa.passport")
    run("mara.db", "passport", "export", "isa", "-o", path)
    data = open(path, "rb").read()
    run("oskar.db", "new", "oskar", "--system", "d20-world")
    from ledger.campaign.aggregate import open_campaign
    from ledger.store.sqlite import Store

    campaign = open_campaign(Store(os.path.join(tmp, "oskar.db")))
    system, codec = campaign.system, campaign.codec
    times, cpu = [], []
    for _ in range(5):
        t, c = time.perf_counter(), time.process_time()
        found = verify_passport(data, system, codec)
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    assert len(found.entries) == sessions
    procs, proc_cpu = [], []
    for i in range(3):
        t, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(
            [os.path.join(os.path.dirname(sys.executable), "campaign"), "--db", os.path.join(tmp, "oskar.db"), "character",
             "add", "--passport", path, "--id", f"isa{i}"],
            check=True, capture_output=True,
        )  # fmt: skip
        procs.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc_cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    # the CPU time is the work itself; the wall time adds what the machine's load costs
    return {"entries": sessions, "bytes": len(data), "played_seconds": round(played, 1),
            "verify_ms_median": round(1000 * statistics.median(times), 1),
            "verify_cpu_ms_median": round(1000 * statistics.median(cpu), 1),
            "join_process_cpu_s_median": round(statistics.median(proc_cpu), 2),
            "join_process_s_median": round(statistics.median(procs), 2)}  # fmt: skip


def costs(url: str, heads: dict[str, tuple[str, int]], tables: list[Any],
          count: int = 400) -> dict[str, Any]:  # fmt: skip
    """What one submission costs, in one thread, medians (ms): its check (parse and
    signature: CPU), its character's newest entry read (one index seek), an append of one
    entry, and an append of 16 entries of 16 characters (group commit)."""
    from ledger.league.core import Checked, League
    from ledger.store.opening import open_store

    store = open_store(url)
    league = League(store, "marches")
    pids = list(heads)[-count:]
    read_ms: list[float] = []
    notes: list[str] = []
    for i, pid in enumerate(pids):  # read again: an earlier run may have moved them on
        t = time.perf_counter()
        _, newest = league.newest(pid)
        read_ms.append(1000 * (time.perf_counter() - t))
        assert newest is not None
        notes.append(_entry(tables[i % len(tables)], pid, newest.hash, newest.session + 1))
    check_ms: list[float] = []
    checked: list[Checked] = []
    for note in notes:
        t = time.perf_counter()
        got = league.check(note)
        check_ms.append(1000 * (time.perf_counter() - t))
        assert isinstance(got, Checked), got
        checked.append(got)
    half = len(checked) // 2
    one_ms, sixteen_ms = [], []
    for item in checked[:half]:
        t = time.perf_counter()
        (verdict,) = league.commit([item], at=AT)
        one_ms.append(1000 * (time.perf_counter() - t))
        assert verdict.status == "accepted", verdict
    for k in range(half, len(checked) - 15, 16):
        t = time.perf_counter()
        verdicts = league.commit(checked[k : k + 16], at=AT)
        sixteen_ms.append(1000 * (time.perf_counter() - t))
        assert {v.status for v in verdicts} == {"accepted"}, verdicts
    store.close()

    def med(xs: list[float]) -> float:
        return round(statistics.median(xs), 2)

    return {"check_ms": med(check_ms), "newest_ms": med(read_ms),
            "append_1_ms": med(one_ms), "append_16_ms": med(sixteen_ms)}  # fmt: skip


def submissions(url: str, heads: dict[str, tuple[str, int]], tables: list[Any],
                threads: int, seconds: float, alone: bool = False,
                per_table: int = 1500) -> dict[str, Any]:  # fmt: skip
    """``threads`` tables submitting for ``seconds``: rate and latency percentiles. The
    threads share one :class:`~ledger.league.intake.Intake` (as ``league serve``'s worker
    threads do), or with ``alone`` each appends by itself."""
    from ledger.league.core import League
    from ledger.league.intake import Intake
    from ledger.store.opening import open_store

    intake = Intake("marches", writer=lambda: open_store(url))

    pids = list(heads)
    latencies: list[list[float]] = [[] for _ in range(threads)]
    statuses: list[dict[str, int]] = [{} for _ in range(threads)]
    start = threading.Barrier(threads)
    stop_at = [0.0]

    def table(i: int) -> None:
        store = open_store(url)
        league = League(store, "marches")
        mine = pids[i::threads]
        signer = tables[i % len(tables)]
        # each table signs its entries beforehand (on its own machine, in a league): the
        # next entry of each of its characters, then the one after, up to ``per_table``
        notes: list[str] = []
        chained = {pid: heads[pid] for pid in mine}
        while mine and len(notes) < per_table:
            for pid in mine[: per_table - len(notes)]:
                head, session = chained[pid]
                note = _entry(signer, pid, head, session + 1)
                notes.append(note)
                chained[pid] = (_hash(note), session + 1)
        k = 0
        start.wait()
        if i == 0:
            stop_at[0] = time.perf_counter() + seconds
        while not stop_at[0]:
            time.sleep(0.001)
        while time.perf_counter() < stop_at[0] and k < len(notes):
            note = notes[k]
            t = time.perf_counter()
            verdict = league.submit(note, at=AT) if alone else intake.submit(store, note, at=AT)
            latencies[i].append(time.perf_counter() - t)
            statuses[i][verdict.status] = statuses[i].get(verdict.status, 0) + 1
            k += 1
        store.close()

    t0 = time.perf_counter()
    workers = [threading.Thread(target=table, args=(i,)) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    wall = time.perf_counter() - t0
    if intake.writer is not None:
        intake.writer.close()
    every = sorted(x for lat in latencies for x in lat)
    counted: dict[str, int] = {}
    for s in statuses:
        for k, v in s.items():
            counted[k] = counted.get(k, 0) + v

    def pct(p: float) -> float:
        return round(1000 * every[min(len(every) - 1, int(p * len(every)))], 1)

    return {"threads": threads, "intake": not alone, "submitted": len(every), "statuses": counted,
            "per_s": round(len(every) / min(wall, seconds)), "p50_ms": pct(0.5),
            "p99_ms": pct(0.99), "max_ms": round(1000 * every[-1], 1)}  # fmt: skip


def races(url: str, tables: list[Any], count: int) -> dict[str, Any]:
    """``count`` races of two tables extending one head: how often exactly one won."""
    from ledger.league.core import League
    from ledger.store.opening import open_store
    from ledger.trust import chronicle

    stores = [open_store(url) for _ in range(2)]
    leagues = [League(s, "marches") for s in stores]
    exactly_one = 0
    tag = uuid.uuid4().hex[:6]
    t0 = time.perf_counter()
    for race in range(count):
        pid = f"ff{tag}{race:024x}"  # new characters, whatever ran on this league before
        first = _entry(tables[0], pid, chronicle.NO_PREVIOUS, 1)
        assert leagues[0].submit(first, at=AT).status == "accepted"
        rival = [_entry(tables[i], pid, _hash(first), 2) for i in range(2)]
        verdicts: list[str] = ["", ""]
        barrier = threading.Barrier(2)

        def go(i: int, barrier: Any = barrier, verdicts: list[str] = verdicts,
               rival: list[str] = rival) -> None:  # fmt: skip
            barrier.wait()
            verdicts[i] = leagues[i].submit(rival[i], at=AT).status

        ts = [threading.Thread(target=go, args=(i,)) for i in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        exactly_one += sorted(verdicts) == ["accepted", "refused"]
    for s in stores:
        s.close()
    return {"races": count, "exactly_one_accepted": exactly_one,
            "seconds": round(time.perf_counter() - t0, 1)}  # fmt: skip


def main() -> None:
    """Run the parts asked for and print (and with --json write) the figures."""
    from ledger.trust.notes import Signer

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--db", required=True, help="a PostgreSQL server URL")
    p.add_argument("--characters", type=int, default=3000)
    p.add_argument("--sessions", type=int, default=20)
    p.add_argument("--passport-sessions", type=int, default=200)
    p.add_argument("--tables", type=int, default=16)
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--races", type=int, default=1000)
    p.add_argument(
        "--build-seconds",
        type=float,
        help="stop building after this long (the figures say how much was built)",
    )
    p.add_argument(
        "--alone",
        action="store_true",
        help="submitting threads append each by itself (no shared Intake)",
    )
    p.add_argument("--skip", action="append", default=[], help="a part to skip")
    p.add_argument(
        "--keep",
        help="keep the built league (not dropped) and write what a later run needs to FILE",
    )
    p.add_argument(
        "--reuse",
        help="measure the league a --keep run left (FILE) instead of building one: once, "
        "as its characters' heads move on when it submits",
    )
    p.add_argument("--extend", help="build the rest of the league a --keep run left (FILE)")
    p.add_argument("--json", help="write the figures here")
    args = p.parse_args()
    out: dict[str, Any] = {"load_before": os.getloadavg()}
    if args.extend:  # add the characters a --build-seconds run did not reach
        with open(args.extend) as f:
            kept = json.load(f)
        tables = [Signer(name, bytes.fromhex(seed)) for name, seed in kept["tables"]]
        more = build(kept["url"], args.characters, args.sessions, tables, args.build_seconds,
                     start=len(kept["heads"]))  # fmt: skip
        kept["heads"].update(more.pop("heads"))
        done = kept["build"]["entries"] + more["entries"]
        kept["build"] = {**more, "characters": len(kept["heads"]), "entries": done,
                         "seconds": kept["build"]["seconds"] + more["seconds"],
                         "entries_per_s": round(done / (kept["build"]["seconds"] + more["seconds"]))}  # fmt: skip
        with open(args.extend, "w") as f:
            json.dump(kept, f)
        print("build", kept["build"], flush=True)
        return
    if args.reuse:
        with open(args.reuse) as f:
            kept = json.load(f)
        tables = [Signer(name, bytes.fromhex(seed)) for name, seed in kept["tables"]]
        schema, url, heads = (
            kept["schema"],
            kept["url"],
            {k: tuple(v) for k, v in kept["heads"].items()},
        )
        out["build"] = kept["build"]
    else:
        tables = [Signer.generate(f"campaign-ledger/table{i:02d}") for i in range(16)]
        schema, url = _schema(args.db)
    try:
        if not args.reuse:
            built = build(url, args.characters, args.sessions, tables, args.build_seconds)
            heads = built.pop("heads")
            out["build"] = built
            print("build", built, flush=True)
            if args.keep:
                with open(args.keep, "w") as f:
                    json.dump({"schema": schema, "url": url, "build": built, "heads": heads,
                               "tables": [(t.name, t.seed.hex()) for t in tables]}, f)  # fmt: skip
        if "costs" not in args.skip:
            out["costs"] = costs(url, heads, tables)
            print("costs", out["costs"], flush=True)
        if "submit" not in args.skip:
            out["submit"] = submissions(url, heads, tables, args.tables, args.seconds, args.alone)
            print("submit", out["submit"], flush=True)
        if "races" not in args.skip:
            out["races"] = races(url, tables, args.races)
            print("races", out["races"], flush=True)
    finally:
        if not args.keep:
            _drop(args.db, schema)
    if "passport" not in args.skip:
        out["passport"] = passport_timings(args.passport_sessions)
        print("passport", out["passport"], flush=True)
    out["load_after"] = os.getloadavg()
    print("load", out["load_before"], out["load_after"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
