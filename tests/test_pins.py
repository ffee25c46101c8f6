"""Every stored byte of the bundled campaigns is pinned: a refactoring changes none of them.

Each campaign in campaigns/ is built as ``campaign demo`` builds it, with a fixed clock, fixed
session seeds and fixed salts, and its GM export (every envelope field, every payload byte,
every hash) is digested. tests/golden/pins.json holds the digests taken before the third
release's redesign; the redesign moved code, never bytes. Regenerate only after a
deliberate change of stored bytes, with ``UPDATE_GOLDEN=1 uv run pytest tests/test_pins.py``,
and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from freezegun import freeze_time

from ledger.cli import cli
from ledger.cli.demo import build, bundled_campaigns

from .bundled import golden_randomness

PINS = Path(__file__).parent / "golden" / "pins.json"
CAMPAIGNS = sorted(p.name for p in bundled_campaigns().iterdir() if (p / "campaign.toml").exists())


@pytest.fixture
def fixed_randomness(monkeypatch):
    """Session seeds, checkpoint keys, passport ids and payload salts from counters, so
    every build is byte-identical (labelled "pin": not the goldens' builds of
    tests/bundled.py, whose bytes may move with a golden file's review)."""
    golden_randomness(monkeypatch, b"pin")


def pin_of(db: Path) -> dict[str, object]:
    """``{"events", "head", "export_sha256"}`` of the one campaign in ``db`` (GM export: its
    events, then its signed checkpoints)."""
    result = CliRunner().invoke(cli, ["--db", str(db), "--as", "gm", "export"])
    assert result.exit_code == 0, result.output
    lines = result.output.encode().splitlines()
    return {
        "events": sum(1 for x in lines if not x.startswith(b'{"kind"')),
        "head": next(
            json.loads(x)["hash"] for x in reversed(lines) if not x.startswith(b'{"kind"')
        ),
        "export_sha256": hashlib.sha256(b"\n".join(lines)).hexdigest(),
    }


@pytest.mark.parametrize("name", CAMPAIGNS)
def test_bundled_campaign_bytes_are_pinned(name, tmp_path, fixed_randomness):
    with freeze_time("2026-03-01 19:00:00"):
        build(bundled_campaigns() / name, tmp_path / f"{name}.db", quiet=True)
    pin = pin_of(tmp_path / f"{name}.db")
    pins = json.loads(PINS.read_text()) if PINS.exists() else {}
    if os.environ.get("UPDATE_GOLDEN"):
        pins[name] = pin
        PINS.write_text(json.dumps(pins, indent=2, sort_keys=True) + "\n")
    assert name in pins, f"no pin for {name}: run with UPDATE_GOLDEN=1 and say why in the commit"
    assert pin == pins[name]


def test_a_frozen_clock_does_not_reach_pytests_own_timing():
    """``--durations`` reads pytest's clock; under freeze_time it must still run (conftest)."""
    from _pytest import timing

    with freeze_time("2000-01-01"):
        start = timing.Instant()
        assert start.time > 1.7e9  # the real clock, not 2000 (946684800)
