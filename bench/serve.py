"""Benchmark of ``campaign serve``'s live log (#18): many SSE clients while entries are
appended by another process.

    uv run python bench/serve.py                    # 50 clients, 20 entries a second, 15 s
    uv run python bench/serve.py --clients 10 --rate 5 --seconds 5

The server runs in its own process (uvicorn, as ``campaign serve`` runs it), the appender in
another (``Campaign.append`` of one note per entry, as ``campaign note`` does), the clients in
this one (httpx2 streams, each its own session). For every entry and every client: the time
from the append's commit to the client receiving the entry's frame. Prints the median and
p99 over all (client, entry) pairs, and entries missed or repeated (both must be 0). Not a
test: docs/serve.md records a run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

AT = "2026-03-01T19:00:00.000000Z"


def setup(db: str) -> str:
    """A d20-world campaign with one character; returns a GM link token."""
    from ledger.campaign.aggregate import Campaign
    from ledger.store.sqlite import Store
    from ledger.web import access

    store = Store(db)
    camp = Campaign.create(store, "bench", system="d20-world", actor="gm", at=AT)
    token = access.grant(store, camp, "gm", (), at=AT)[1]
    store.conn.close()
    return token


def serve(db: str, port: int) -> None:
    import os

    import uvicorn

    if os.environ.get("SSE_SAMPLER"):  # a stack sampler in the server process (profiling)
        sys.path.insert(0, os.path.dirname(os.environ["SSE_SAMPLER"]))
        __import__("sampler").start(os.environ["SSE_SAMPLER"] + ".out")

    from ledger.web.app import create_app
    from ledger.web.sessions import SessionPolicy

    # every client signs in with the one GM link: allow them all (the default keeps 10
    # devices a link, and the 11th sign-in would end the first one's stream)
    app = create_app(db, policy=SessionPolicy(max_devices=10_000))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="error",
                timeout_graceful_shutdown=1)


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


async def client(base: str, token: str, got: dict[int, float], seen: list[int],
                 connected: list[int]) -> None:
    """One phone: a session, then the live stream; records when each seq arrives."""
    import httpx2

    async with httpx2.AsyncClient(base_url=base, timeout=None) as h:
        await h.get(f"/a/{token}")
        async with h.stream("GET", "/events") as r:
            connected[0] += 1
            async for line in r.aiter_lines():
                if line.startswith("id: "):
                    seq = int(line[4:])
                    got.setdefault(seq, time.time())
                    seen.append(seq)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--rate", type=float, default=20.0, help="entries a second")
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="ledger-serve-bench-"))
    db = str(tmp / "bench.db")
    token = setup(db)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    ctx = multiprocessing.get_context("spawn")
    server = ctx.Process(target=serve, args=(db, port), daemon=True)
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
        tasks = [asyncio.create_task(client(base, token, gots[i], seens[i], connected))
                 for i in range(args.clients)]
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
    delays.sort()
    p99 = delays[min(len(delays) - 1, int(0.99 * len(delays)))]
    print(f"{args.clients} SSE clients, {len(appended)} entries appended at {args.rate:g}/s "
          f"by another process ({sys.platform}, Python {sys.version.split()[0]})")
    print(f"append to receive: median {statistics.median(delays) * 1000:.0f} ms, "
          f"p99 {p99 * 1000:.0f} ms, max {delays[-1] * 1000:.0f} ms "
          f"over {len(delays)} deliveries; missed {missed}, repeated {repeated}")


if __name__ == "__main__":
    main()
