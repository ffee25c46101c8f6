"""Recap content per rule system, compared with golden files (reviewed by eye once).

Each bundled campaign is built with a fixed clock and fixed session seeds, so its engine
dice and timestamps are the same every run (once per run: tests/bundled.py; each test reads
a copy). Regenerate after a deliberate change with
``UPDATE_GOLDEN=1 uv run pytest tests/test_recap_golden.py`` and read the diff.
"""

import os
from pathlib import Path

import pytest

from ledger.campaign.aggregate import open_campaign
from ledger.history.recap import build_recap, render
from ledger.store.sqlite import Store

from .bundled import NAMES as CAMPAIGNS

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("name", CAMPAIGNS)
@pytest.mark.parametrize("view", ["player", "gm"])
def test_recap_matches_golden(name, view, bundled):
    campaign = open_campaign(Store(str(bundled(name))))
    assert campaign.last_session() >= 1
    for number in range(1, campaign.last_session() + 1):
        text = render(build_recap(campaign, number, as_gm=view == "gm"), "md")
        path = GOLDEN / f"{name}-session-{number}.{view}.md"
        if os.environ.get("UPDATE_GOLDEN"):
            path.write_text(text, encoding="utf-8")
        assert path.exists(), f"no golden file {path.name}: run with UPDATE_GOLDEN=1 and review it"
        assert text == path.read_text(encoding="utf-8")


def test_html_recap_marks_outcomes_in_words_and_shows_dice_once(bundled):
    """Success and failure read apart without colour (a labelled badge and a border style);
    a rule system's line carries its dice, so no second row of dice is drawn; Terran Light
    and Dark dice are named."""
    import re

    world = open_campaign(Store(str(bundled("the-world"))))
    gm = render(build_recap(world, 1, as_gm=True), "html")
    player = render(build_recap(world, 1, as_gm=False), "html")
    assert '<li class="roll success">' in gm and '<li class="roll failure">' in gm
    assert '<span class="verdict">✔ success</span>' in gm
    assert '<span class="verdict">✘ failure</span>' in gm
    assert 'class="die' not in gm  # every d20-world line shows its own dice
    assert "Favor of the Guild −2 (now −1)" in gm and "Favor" not in player
    assert len(re.findall(r'<span class="gm">\[GM\]</span>', gm)) == 2  # the event, the change
    marches = render(
        build_recap(open_campaign(Store(str(bundled("the-drowned-marches")))), 1, as_gm=False), "md"
    )
    assert "Light dice [2 3 1], Dark dice [4]" in marches
