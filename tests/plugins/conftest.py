"""Fixtures shared by the rule systems' command-line tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time

from ledger.testing import ok, run_cli

CAMPAIGNS = Path(__file__).resolve().parents[2] / "campaigns"


@pytest.fixture
def world_extra_sheets() -> list[Path]:
    """Sheets added to :func:`world` after Isa and Bram (override in a test module)."""
    return []


@pytest.fixture
def world(tmp_path: Path, world_extra_sheets: list[Path]) -> Path:
    """A d20-world ledger: Isa and Bram of the-world (then ``world_extra_sheets``),
    session 1 open, the clock at 2026-03-01 19:00."""
    db = tmp_path / "world.db"
    with freeze_time("2026-03-01 19:00:00", tick=True):
        ok(db, "new", "world", "--system", "d20-world")
        for stem in ("isa", "bram"):
            sheet = CAMPAIGNS / "the-world" / "characters" / f"{stem}.toml"
            ok(db, "character", "add", "--sheet", str(sheet))
        for sheet in world_extra_sheets:
            ok(db, "character", "add", "--sheet", str(sheet))
        ok(db, "session", "start")
    return db


@pytest.fixture
def run(tmp_path: Path) -> Any:
    """``campaign --db TMP/ledger.db ARGS...`` in process: ``run(*args, ok=True)`` returns
    the ``Result`` and, unless ``ok=False``, asserts exit 0; ``run.db`` is the file's path;
    ``db_path=`` runs against another file."""
    db = tmp_path / "ledger.db"

    def invoke(*args: str, ok: bool = True, db_path: str | Path | None = None) -> Any:
        result = run_cli(db_path or db, *args)
        if ok:
            assert result.exit_code == 0, result.output
        return result

    invoke.db = db  # type: ignore[attr-defined]
    return invoke


@pytest.fixture
def escape(run: Any) -> Any:
    """A spellwoven campaign (nimble-jen's sheets) with Jen and the housewife, session 1
    open, set up at 2026-03-01 18:55 (before the tests' clocks: a ledger's times never go
    back): :func:`run` after the setup."""
    sheets = CAMPAIGNS / "nimble-jen" / "characters"
    with freeze_time("2026-03-01 18:55:00", tick=True):
        run("new", "rooftops", "--system", "spellwoven")
        run("character", "add", "--sheet", str(sheets / "jen.toml"))
        run("character", "add", "--sheet", str(sheets / "housewife.toml"))
        run("session", "start")
    return run
