"""Benchmark of ``campaign serve``'s live log: many SSE clients while entries are
appended by another process.

    uv run python bench/serve.py                    # 50 clients, 20 entries a second, 15 s
    uv run python bench/serve.py --clients 10 --rate 5 --seconds 5
    uv run python bench/serve.py --players 25       # 25 of them on a player's link
    uv run python bench/serve.py --before ../main --rounds 3   # side by side with another tree
    uv run python bench/serve.py --profile /tmp/serve-profile.txt   # where the server's time goes

The server runs in its own process (uvicorn, as ``campaign serve`` runs it), the appender in
another (``Campaign.append`` of one note per entry, as ``campaign note`` does), the clients in
this one (httpx2 streams, each its own session). For every entry and every client: the time
from the append's commit to the client receiving the entry's frame. Prints the median and
p99 over all (client, entry) pairs, and entries missed or repeated (both must be 0), then
per entry the delay of its first and of its last client (medians over the entries: the
wake-up, and the wake-up plus the fan-out to every client), and the load average before and
after. ``--before DIR`` runs the same bench on the ledger of another checkout (``DIR`` first on
``PYTHONPATH``; this tree's bench code and plugins), alternating with this tree, round by
round. ``--profile PATH`` samples the server's threads (:mod:`sampler`). Not a test:
docs/performance.md and docs/serve.md record runs.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

AT = "2026-03-01T19:00:00.000000Z"


def setup(db: str) -> tuple[str, str]:
    """A d20-world campaign with one character; returns a GM link token and a player's."""
    from ledger.campaign.aggregate import Campaign
    from ledger.store.sqlite import Store
    from ledger.web import access

    store = Store(db)
    camp = Campaign.create(store, "bench", system="d20-world", actor="gm", at=AT)
    token = access.grant(store, camp, "gm", (), at=AT)[1]
    player = access.grant(store, camp, "Dana", (), at=AT)[1]
    store.conn.close()
    return token, player


def serve(db: str, port: int, profile: str | None = None) -> None:
    import uvicorn

    if profile:
        import sampler  # bench/sampler.py (this script's folder is on sys.path)

        sampler.start(profile)
        trace_sends(profile + ".sent.json")

    from ledger.web.app import create_app
    from ledger.web.sessions import SessionPolicy

    # every client signs in with the one GM link: allow them all (the default keeps 10
    # devices a link, and the 11th sign-in would end the first one's stream)
    app = create_app(db, policy=SessionPolicy(max_devices=10_000))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="error", timeout_graceful_shutdown=1)


def trace_sends(path: str) -> None:
    """Note when the server's streams first and last got each entry's frame (``--profile``;
    :class:`ledger.web.feed.Feed` trees only): ``{seq: [first, last]}`` (``time.time()``),
    written to ``path`` every second."""
    import threading

    try:
        from ledger.web import feed
    except ImportError:  # a tree older than ledger.web.feed: no trace
        return

    sent: dict[int, list[float]] = {}
    frames = feed.Feed.frames

    async def traced(self: Any, *args: Any, **kwargs: Any) -> Any:
        out = await frames(self, *args, **kwargs)
        now = time.time()
        for f in out[1]:
            sent.setdefault(int(f[4 : f.index("\n")]), [now, now])[1] = now
        return out

    feed.Feed.frames = traced  # type: ignore[method-assign]
    #: the garbage collector's pauses over 5 ms: (seconds, generation, when)
    pauses: list[tuple[float, int, float]] = []
    began = [0.0]

    def collected(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        elif time.perf_counter() - began[0] > 0.005:
            pauses.append((time.perf_counter() - began[0], info["generation"], time.time()))

    gc.callbacks.append(collected)

    def dump() -> None:
        while True:
            time.sleep(1)
            Path(path).write_text(json.dumps({"sent": sent, "gc": pauses}))

    threading.Thread(target=dump, name="bench-trace", daemon=True).start()


def append(db: str, rate: float, seconds: float, out: str, start: float) -> None:
    """Append one note every 1/rate seconds; write {seq: commit time} to ``out``."""
    from ledger.campaign.aggregate import open_campaign
    from ledger.events import NoteAdded
    from ledger.store.sqlite import Store

    camp = open_campaign(Store(db))
    times: dict[int, float] = {}
    while time.time() < start:
        time.sleep(0.001)
    n = int(rate * seconds)
    for i in range(n):
        due = start + i / rate
        while time.time() < due:
            time.sleep(0.0005)
        rec = camp.append([NoteAdded(text=f"entry {i}")], actor="gm", at=AT)[0]
        times[rec.seq] = time.time()
    Path(out).write_text(json.dumps(times))


async def client(
    base: str, token: str, got: dict[int, float], seen: list[int], connected: list[int]
) -> None:
    """One phone: a session, the log page, then the live stream; records when each seq
    arrives."""
    import httpx2

    async with httpx2.AsyncClient(base_url=base, timeout=None) as h:
        await h.get(f"/a/{token}")
        await h.get("/log")  # as a phone opens the page, whose script opens the stream
        async with h.stream("GET", "/events") as r:
            connected[0] += 1
            async for line in r.aiter_lines():
                if line.startswith("id: "):
                    seq = int(line[4:])
                    got.setdefault(seq, time.time())
                    seen.append(seq)


def load() -> str:
    """The 1-minute load average."""
    return f"{os.getloadavg()[0]:.2f}"


def side_by_side(args: argparse.Namespace) -> None:
    """``--before DIR``: this bench on DIR's ledger and on this tree's, alternating."""
    here = str(Path(__file__).resolve().parent.parent)
    flags = [f"--clients={args.clients}", f"--players={args.players}", f"--rate={args.rate}"]
    flags.append(f"--seconds={args.seconds}")
    for n in range(1, args.rounds + 1):
        for side, tree in (("before", args.before), ("after", here)):
            env = {**os.environ, "PYTHONPATH": str(Path(tree).resolve())}
            out = subprocess.run(
                [sys.executable, __file__, *flags], env=env, capture_output=True, text=True,
                check=True,
            ).stdout.strip().splitlines()  # fmt: skip
            print(f"round {n} {side:6} ({tree}): " + " | ".join(out[1:]), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--players", type=int, default=0, help="clients on a player's link")
    parser.add_argument("--rate", type=float, default=20.0, help="entries a second")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--profile", metavar="PATH", help="sample the server's stacks to PATH")
    parser.add_argument("--before", metavar="DIR", help="another checkout, side by side")
    parser.add_argument("--rounds", type=int, default=2, help="rounds of --before")
    parser.add_argument("--json", metavar="PATH", help="also write the figures to PATH")
    args = parser.parse_args()
    if args.before:
        side_by_side(args)
        return
    import ledger

    tree = str(Path(ledger.__file__).resolve().parent.parent)
    loads = [load()]
    tmp = Path(tempfile.mkdtemp(prefix="ledger-serve-bench-"))
    db = str(tmp / "bench.db")
    token, player = setup(db)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ctx = multiprocessing.get_context("spawn")
    server = ctx.Process(target=serve, args=(db, port, args.profile), daemon=True)
    server.start()
    base = f"http://127.0.0.1:{port}"
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            break
        except OSError:
            time.sleep(0.05)
    out = str(tmp / "appended.json")
    lead = 1.0

    async def orchestrate() -> tuple[list[dict[int, float]], list[list[int]]]:
        gots: list[dict[int, float]] = [{} for _ in range(args.clients)]
        seens: list[list[int]] = [[] for _ in range(args.clients)]
        connected = [0]
        links = [player if i < args.players else token for i in range(args.clients)]
        tasks = [
            asyncio.create_task(client(base, links[i], gots[i], seens[i], connected))
            for i in range(args.clients)
        ]
        while connected[0] < args.clients:
            await asyncio.sleep(0.05)
        start = time.time() + lead
        appender = ctx.Process(target=append, args=(db, args.rate, args.seconds, out, start))
        appender.start()
        while appender.is_alive():
            await asyncio.sleep(0.1)
        await asyncio.sleep(2.0)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return gots, seens

    gots, seens = asyncio.run(orchestrate())
    server.terminate()
    appended = {int(k): v for k, v in json.loads(Path(out).read_text()).items()}
    delays, missed, repeated = [], 0, 0
    for got, seen in zip(gots, seens, strict=True):
        repeated += len(seen) - len(set(seen))
        for seq, t in appended.items():
            if seq in got:
                delays.append(got[seq] - t)
            else:
                missed += 1
    loads.append(load())
    firsts, lasts, spans = [], [], []
    for seq, t in appended.items():
        each = [got[seq] - t for got in gots if seq in got]
        if each:
            firsts.append(min(each))
            lasts.append(max(each))
            spans.append((max(each), min(each), seq))
    delays.sort()
    p99 = delays[min(len(delays) - 1, int(0.99 * len(delays)))]
    print(
        f"{args.clients} SSE clients ({args.players} on a player's link), {len(appended)} "
        f"entries appended at {args.rate:g}/s by another process ({sys.platform}, Python "
        f"{sys.version.split()[0]}, ledger of {tree})"
    )
    print(
        f"append to receive: median {statistics.median(delays) * 1000:.0f} ms, "
        f"p99 {p99 * 1000:.0f} ms, max {delays[-1] * 1000:.0f} ms "
        f"over {len(delays)} deliveries; missed {missed}, repeated {repeated}"
    )
    print(
        f"per entry, medians: first client {statistics.median(firsts) * 1000:.0f} ms, "
        f"last client {statistics.median(lasts) * 1000:.0f} ms; "
        f"load average {loads[0]} -> {loads[1]}"
    )
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "clients": args.clients,
                    "players": args.players,
                    "entries": len(appended),
                    "rate": args.rate,
                    "deliveries": len(delays),
                    "median_ms": round(statistics.median(delays) * 1000, 1),
                    "p99_ms": round(p99 * 1000, 1),
                    "max_ms": round(delays[-1] * 1000, 1),
                    "missed": missed,
                    "repeated": repeated,
                    "load_average": [float(loads[0]), float(loads[1])],
                },
                indent=2,
            )
        )
    worst = sorted(spans)[-3:]
    print(
        "slowest entries (first-last client): "
        + ", ".join(f"#{q} {f * 1000:.0f}-{m * 1000:.0f} ms" for m, f, q in worst)
    )
    if args.profile and Path(args.profile + ".sent.json").exists():
        trace = json.loads(Path(args.profile + ".sent.json").read_text())
        sent = {int(k): v for k, v in trace["sent"].items()}
        ready = [sent[q][0] - appended[q] for q in appended if q in sent]
        print(
            f"server: frames ready (first stream) median {statistics.median(ready) * 1000:.0f} ms "
            f"after the commit; the slowest entries' frames first-last stream: "
            + ", ".join(
                f"#{q} {(sent[q][0] - appended[q]) * 1000:.0f}-{(sent[q][1] - appended[q]) * 1000:.0f} ms"
                for _m, _f, q in worst
                if q in sent
            )
        )
        lastly = sorted(sent[q][1] - appended[q] for q in appended if q in sent)
        print(
            f"server: every stream had an entry's frames within a median {statistics.median(lastly) * 1000:.0f} ms "
            f"of its commit, the slowest entry {lastly[-1] * 1000:.0f} ms; "
            f"{sum(x < 0.1 for x in lastly)} of {len(lastly)} entries within 100 ms"
        )
        first = min(appended.values())
        print(
            f"server: {len(trace['gc'])} garbage collections over 5 ms"
            + "".join(
                f"; {took * 1000:.0f} ms (generation {gen}, {at - first:+.1f} s from the first "
                "entry)"
                for took, gen, at in trace["gc"]
            )
        )


if __name__ == "__main__":
    main()
