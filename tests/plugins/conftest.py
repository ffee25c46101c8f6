"""Fixtures shared by the rule systems' command-line tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from freezegun import freeze_time

from ledger.testing import ok

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
