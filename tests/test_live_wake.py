"""The live log's hub wakes on a change, not on its next poll: on SQLite it asks
``PRAGMA data_version`` often and looks at the campaign only when another connection
committed (ledger/web/live.py)."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from .webtools import apart, d20_table


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "ledger.db"))


def test_another_process_append_wakes_the_hub_long_before_its_poll_interval(table):
    """The hub's full look is every 60 s here; the CLI's append (another connection) still
    wakes it within a few seconds, through ``PRAGMA data_version``."""
    from ledger.web.live import Hub

    async def scenario() -> tuple[bool, bool]:
        hub = Hub(table.db, interval=60.0)
        hub.start(asyncio.get_running_loop())
        try:
            seen = hub.generation
            quiet = await hub.wait(seen, 0.3)  # nothing committed: nothing wakes
            table.ok("roll", "bram", "Brawl", "--time", "--dice", "17")
            return quiet, await hub.wait(seen, 5.0)
        finally:
            hub.stop()

    assert apart(asyncio.run, scenario()) == (False, True)


def test_a_write_that_changes_nothing_the_streams_show_wakes_nobody(table):
    """``data_version`` moves on any commit (here: a table of no interest); the hub then
    looks at the campaign's mark, finds it unchanged, and wakes no stream."""
    from ledger.web.live import Hub

    async def scenario() -> bool:
        hub = Hub(table.db, interval=60.0)
        hub.start(asyncio.get_running_loop())
        try:
            seen = hub.generation
            other = sqlite3.connect(table.db)
            with other:
                other.execute("CREATE TABLE unrelated (x)")
            other.close()
            return await hub.wait(seen, 0.5)
        finally:
            hub.stop()

    assert apart(asyncio.run, scenario()) is False
