"""Shared fixtures: a temporary ledger file, the toy rule system, a toy campaign."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from ledger.cli import cli
from ledger.plugins import pm, rule_systems

from .toy import ToyPlugin

AT = "2026-03-01T19:00:00.000000Z"


@pytest.fixture
def toy_system():
    """Registers the toy rule system for one test, and unregisters it after."""
    plugin = ToyPlugin()
    pm.register(plugin, name="toy")
    rule_systems.cache_clear()
    try:
        yield
    finally:
        pm.unregister(name="toy")
        rule_systems.cache_clear()


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "ledger.db")


@pytest.fixture
def invoke(db_path):
    """Run `campaign --db <tmp> ARGS...`; returns the click Result."""
    runner = CliRunner()

    def run(*args, db=None, input=None):
        return runner.invoke(
            cli, ["--db", db or db_path, *args], input=input, catch_exceptions=False
        )

    return run


@pytest.fixture
def toy_campaign(toy_system, invoke, tmp_path, frozen):
    """A toy campaign with two characters: ann (brawl 2) and bob (sneak 1)."""
    assert invoke("new", "toybox", "--system", "toy").exit_code == 0
    for name, skills in (("Ann Vance", "brawl = 2"), ("Bob Marsh", "sneak = 1")):
        sheet = tmp_path / f"{name.split()[0]}.toml"
        sheet.write_text(f'name = "{name}"\n[skills]\n{skills}\n')
        result = invoke("character", "add", "--sheet", str(sheet))
        assert result.exit_code == 0, result.output
    return invoke


@pytest.fixture
def frozen():
    """The clock stopped at 2026-03-01 19:00 UTC (ticking, so times still increase)."""
    from freezegun import freeze_time

    with freeze_time("2026-03-01 19:00:00", tick=True) as clock:
        yield clock
