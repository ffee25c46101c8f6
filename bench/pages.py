"""Benchmark of the web view's pages, in process: how long each page takes to render.

    uv run python bench/pages.py                 # 50 requests a page
    uv run python bench/pages.py --requests 200 --json pages.json

The bundled campaign ``the-world`` (d20-world) is built into a temporary ledger, a GM link
and a player's link are granted, and each page is asked for ``--requests`` times through
Starlette's test client (the whole app: sessions, access, security headers), after one warm
request. The floor is the app's own static stylesheet through the same stack: what a request
costs before the ledger is read. Prints each page's median and p90 in ms and its ratio to
the floor's median. Not a test: docs/performance.md records runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
AT = "2026-03-01T19:00:00.000000Z"

#: (name, who, path): who asks (``gm`` or ``Dana``, the player of Isa) and for what
PAGES = [
    ("floor: /static/site.css", "gm", "/static/site.css"),
    ("GM page /gm", "gm", "/gm"),
    ("log /log (GM)", "gm", "/log"),
    ("log /log (player)", "Dana", "/log"),
    ("sheet /sheet/isa (player)", "Dana", "/sheet/isa"),
    ("roll form /roll/isa (player)", "Dana", "/roll/isa"),
]


def build(db: Path) -> dict[str, str]:
    """The bundled campaign ``the-world`` at ``db``; ``{who: access token}``."""
    from ledger.campaign.aggregate import open_campaign
    from ledger.cli.demo import build as build_campaign
    from ledger.cli.demo import bundled_campaigns
    from ledger.store.opening import open_store
    from ledger.web import access

    build_campaign(bundled_campaigns() / "the-world", db, quiet=True)
    store = open_store(str(db))
    try:
        campaign = open_campaign(store)
        return {
            "gm": access.grant(store, campaign, "gm", (), at=AT, replace=True)[1],
            "Dana": access.grant(store, campaign, "Dana", ("isa",), at=AT, replace=True)[1],
        }
    finally:
        store.close()


def measure(db: Path, tokens: dict[str, str], requests: int) -> dict[str, dict[str, float]]:
    """``{page: {"median_ms", "p90_ms"}}`` over ``requests`` requests each."""
    from starlette.testclient import TestClient

    from ledger.web.app import Server

    server = Server(str(db))
    out: dict[str, dict[str, float]] = {}
    clients: dict[str, Any] = {}
    try:
        for who, token in tokens.items():
            c = TestClient(server.app, base_url="http://testserver", follow_redirects=False)
            c.__enter__()
            answer = c.get(f"/a/{token}")
            if answer.status_code != 200:
                raise SystemExit(f"cannot sign in as {who}: {answer.status_code}")
            clients[who] = c
        for name, who, path in PAGES:
            c = clients[who]
            first = c.get(path)
            if first.status_code != 200:
                raise SystemExit(f"{path} answered {first.status_code} to {who}")
            times = []
            for _ in range(requests):
                start = time.perf_counter()
                c.get(path)
                times.append(time.perf_counter() - start)
            times.sort()
            out[name] = {
                "median_ms": round(statistics.median(times) * 1000, 2),
                "p90_ms": round(times[int(0.9 * (len(times) - 1))] * 1000, 2),
            }
    finally:
        for c in clients.values():
            c.__exit__(None, None, None)
        server.close()
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=50, help="requests a page (default 50)")
    parser.add_argument("--json", type=Path, help="also write the figures here as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "the-world.db"
        found = measure(db, build(db), args.requests)
    floor = found[PAGES[0][0]]["median_ms"]
    print(f"{'page':<32} {'median ms':>10} {'p90 ms':>8} {'× floor':>8}")
    for name, figures in found.items():
        ratio = figures["median_ms"] / floor if floor else float("nan")
        print(f"{name:<32} {figures['median_ms']:>10.2f} {figures['p90_ms']:>8.2f} {ratio:>8.1f}")
    if args.json:
        args.json.write_text(json.dumps({"requests": args.requests, "pages": found}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
