"""What the chronicle, passport and league tests share: a league served over HTTP
(``campaign league serve``'s app on a free loopback port in a thread), a table's command
runner and a one-line refusal (the ``ledgers`` fixture is in conftest.py)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from click.testing import CliRunner, Result

from ledger.cli import cli

from .webtools import serving


def runner(db: Any) -> Callable[..., Result]:
    """``run(*ARGS, ok=True)``: ``campaign --db DB ARGS`` in process; ``ok`` asserts exit 0."""
    invoker = CliRunner()

    def run(*args: str, ok: bool = True) -> Result:
        result = invoker.invoke(cli, ["--db", str(db), *args])
        if ok:
            assert result.exit_code == 0, result.output
        return result

    return run


def one_line(result: Result) -> str:
    """A refusal's line: exit 1, one line, no traceback."""
    assert result.exit_code == 1, result.output
    line = result.output.strip()
    assert "\n" not in line and "Traceback" not in line
    return line


@contextlib.contextmanager
def league_server(db: str, name: str) -> Iterator[str]:
    """League ``name`` on ledger ``db`` (a SQLite file or a PostgreSQL URL) served on a
    free loopback port; yields its base URL."""
    from ledger.league.server import make_app
    from ledger.store.opening import StoreSource

    with serving(make_app(StoreSource(db), name)) as base:
        yield base
