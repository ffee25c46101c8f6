"""A league served over HTTP for the tests: ``campaign league serve``'s app on a free
loopback port in a thread."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator

from .webtools import free_port


@contextlib.contextmanager
def league_server(db: str, name: str) -> Iterator[str]:
    """League ``name`` on ledger ``db`` (a SQLite file or a PostgreSQL URL) served on a
    free loopback port; yields its base URL."""
    import uvicorn

    from ledger.league.server import make_app
    from ledger.store.opening import StoreSource

    port = free_port()
    config = uvicorn.Config(
        make_app(StoreSource(db), name), host="127.0.0.1", port=port, log_level="warning",
        timeout_graceful_shutdown=1,
    )  # fmt: skip
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(1000):
        if server.started:
            break
        time.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
