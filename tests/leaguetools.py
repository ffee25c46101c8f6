"""A league served over HTTP for the tests: ``campaign league serve``'s app on a free
loopback port in a thread."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from .webtools import serving


@contextlib.contextmanager
def league_server(db: str, name: str) -> Iterator[str]:
    """League ``name`` on ledger ``db`` (a SQLite file or a PostgreSQL URL) served on a
    free loopback port; yields its base URL."""
    from ledger.league.server import make_app
    from ledger.store.opening import StoreSource

    with serving(make_app(StoreSource(db), name)) as base:
        yield base
