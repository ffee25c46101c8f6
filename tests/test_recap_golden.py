"""Recap content per rule system, compared with golden files (reviewed by eye once).

Each bundled campaign is built with a fixed clock and fixed session seeds, so its engine
dice and timestamps are the same every run. Regenerate after a deliberate change with
``UPDATE_GOLDEN=1 uv run pytest tests/test_recap_golden.py`` and read the diff.
"""

import hashlib
import os
import types
from pathlib import Path

import pytest
from freezegun import freeze_time

from ledger.campaign.aggregate import open_campaign
from ledger.cli.demo import build, bundled_campaigns
from ledger.history.recap import build_recap, render
from ledger.store.sqlite import Store

GOLDEN = Path(__file__).parent / "golden"
CAMPAIGNS = sorted(p.name for p in bundled_campaigns().iterdir() if (p / "campaign.toml").exists())


@pytest.fixture
def fixed_seeds(monkeypatch):
    counter = iter(range(1000))
    monkeypatch.setattr(
        "ledger.dice.engine.new_seed", lambda: hashlib.sha256(b"golden %d" % next(counter)).digest()
    )
    keys = iter(range(1000))  # the campaigns' checkpoint keys (#26): in campaign.created
    monkeypatch.setattr(
        "ledger.campaign.checkpoints.new_key_seed",
        lambda: hashlib.sha256(b"golden key %d" % next(keys)).digest(),
    )
    passports = iter(range(1000))  # each character's passport id, in its first chronicle entry
    monkeypatch.setattr(
        "ledger.trust.chronicle.new_passport_id",
        lambda: hashlib.sha256(b"golden passport %d" % next(passports)).hexdigest()[:32],
    )
    salts = iter(range(10**6))
    # only the codec's salts: sqlite-utils takes savepoint names from secrets.token_hex too,
    # so a new migration would shift every salt (and every receipt) after it
    fixed = types.SimpleNamespace(token_hex=lambda n: f"{next(salts):0{2 * n}x}")
    monkeypatch.setattr("ledger.codec.secrets", fixed)


@pytest.mark.parametrize("name", CAMPAIGNS)
@pytest.mark.parametrize("view", ["player", "gm"])
def test_recap_matches_golden(name, view, tmp_path, fixed_seeds):
    with freeze_time("2026-03-01 19:00:00"):
        build(bundled_campaigns() / name, tmp_path / f"{name}.db", quiet=True)
    campaign = open_campaign(Store(str(tmp_path / f"{name}.db")))
    assert campaign.last_session() >= 1
    for number in range(1, campaign.last_session() + 1):
        text = render(build_recap(campaign, number, as_gm=view == "gm"), "md")
        path = GOLDEN / f"{name}-session-{number}.{view}.md"
        if os.environ.get("UPDATE_GOLDEN"):
            path.write_text(text, encoding="utf-8")
        assert path.exists(), f"no golden file {path.name}: run with UPDATE_GOLDEN=1 and review it"
        assert text == path.read_text(encoding="utf-8")


def test_html_recap_marks_outcomes_in_words_and_shows_dice_once(tmp_path, fixed_seeds):
    """Success and failure read apart without colour (a labelled badge and a border style);
    a rule system's line carries its dice, so no second row of dice is drawn; Terran Light
    and Dark dice are named."""
    import re

    with freeze_time("2026-03-01 19:00:00"):
        build(bundled_campaigns() / "the-world", tmp_path / "w.db", quiet=True)
        build(bundled_campaigns() / "the-drowned-marches", tmp_path / "d.db", quiet=True)
    world = open_campaign(Store(str(tmp_path / "w.db")))
    gm = render(build_recap(world, 1, as_gm=True), "html")
    player = render(build_recap(world, 1, as_gm=False), "html")
    assert '<li class="roll success">' in gm and '<li class="roll failure">' in gm
    assert '<span class="verdict">✔ success</span>' in gm
    assert '<span class="verdict">✘ failure</span>' in gm
    assert 'class="die' not in gm  # every d20-world line shows its own dice
    assert "Favor of the Guild −2 (now −1)" in gm and "Favor" not in player
    assert len(re.findall(r'<span class="gm">\[GM\]</span>', gm)) == 2  # the event, the change
    marches = render(build_recap(open_campaign(Store(str(tmp_path / "d.db"))), 1, as_gm=False),
                     "md")
    assert "Light dice [2 3 1], Dark dice [4]" in marches
