"""decision-dice: a level up is an event (ruling DD11; seed 002_735c6d6cd834a641.txt,
"Target Numbers": "This curve and scaling increase rewards choices during character
creation/level up"; "The Rounding Rule": Stress from 3 and 2 is "2.5, which is then rounded
down to 2").

Nimble Jen of The Salt Road (level 2, Wits 3, Grit 2: Stress 2, the book's example) levels up
and raises her Grit to 3 (Stress 3).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ledger_decision_dice import DecisionDice
from ledger_decision_dice.events import LevelledUp

from ledger import RuleError

CAMPAIGN = Path(__file__).resolve().parents[2] / "campaigns" / "the-salt-road"


@pytest.fixture
def salt_road(invoke: Any, frozen: Any) -> Any:
    """Jen and Oskar, Stress = ½ Wits + ½ Grit, session 1 open."""
    assert invoke("new", "salt-road", "--system", "decision-dice",
                  "--option", 'derived={"Stress": ["Wits", "Grit"]}').exit_code == 0
    for sheet in ("jen.toml", "oskar.toml"):
        added = invoke("character", "add", "--sheet", str(CAMPAIGN / "characters" / sheet))
        assert added.exit_code == 0, added.output
    assert invoke("session", "start").exit_code == 0
    return invoke


def sheet(invoke: Any) -> dict[str, Any]:
    return json.loads(invoke("sheet", "jen", "--json").output)


def level_up(invoke: Any, *args: str) -> Any:
    return invoke("record", "levelled-up", "--character", "jen", *args)


def test_a_level_up_raises_the_level_and_the_chosen_stats(salt_road: Any) -> None:
    before = sheet(salt_road)
    assert (before["level"], before["stats"]["Grit"], before["derived"]["Stress"]) == (2, 2, 2)
    out = level_up(salt_road, "--level", "3", "--stats", "Grit=3", "--reason", "the salt flats")
    assert out.exit_code == 0, out.output
    assert "jen levels up to level 3: Grit becomes 3" in out.output
    assert "Grit rose to +3" in out.output and "Reaches level 3" in out.output
    assert "Stress 2 → 3 (½ Wits + ½ Grit, rounded down)" in out.output  # 3/2 + 3/2 = 3
    after = sheet(salt_road)
    assert (after["level"], after["stats"]["Grit"], after["derived"]["Stress"]) == (3, 3, 3)
    # the new Grit is the STAT of the next roll: 2d6 [3 4] + 3 = 10 vs 10, a tie succeeds
    roll = json.loads(salt_road("roll", "jen", "grit", "--target", "10", "--dice", "3,4",
                                "--json").output)
    assert (roll["total"], roll["outcome"]) == (10, "success")
    recap = salt_road("recap", "--session", "1").output
    assert "levels up to level 3" in recap
    assert salt_road("verify").exit_code == 0


def test_retracting_a_level_up_restores_level_stats_and_stress(salt_road: Any) -> None:
    assert level_up(salt_road, "--level", "3", "--stats", "Grit=3").exit_code == 0
    seq = json.loads(salt_road("log", "--json").output)[-1]["seq"]
    assert salt_road("correct", str(seq), "--reason", "she levels up next session").exit_code == 0
    now = sheet(salt_road)
    assert (now["level"], now["stats"]["Grit"], now["derived"]["Stress"]) == (2, 2, 2)
    assert salt_road("verify").exit_code == 0


@pytest.mark.parametrize(("args", "needle"), [
    (("--level", "4"), "reaches level 3, not 4"),
    (("--level", "2"), "reaches level 3, not 2"),
    (("--level", "3", "--stats", "Luck=1"), "Luck"),
    (("--level", "3", "--stats", "Grit=11"), "range from 0 to 10"),
    (("--level", "3", "--stats", "Grit=2"), "already 2"),
    (("--level", "3", "--stats", "Grit:3"), "NAME=VALUE"),
    (("--level", "3", "--stats", "Grit=3", "--stats", "grit=4"), "named twice"),
])
def test_a_level_up_the_rules_refuse_writes_nothing(
    salt_road: Any, args: tuple[str, ...], needle: str
) -> None:
    count = len(json.loads(salt_road("log", "--json").output))
    out = level_up(salt_road, *args)
    assert out.exit_code == 1 and needle in out.output and "Traceback" not in out.output
    assert len(json.loads(salt_road("log", "--json").output)) == count


def test_a_sheet_without_a_level_sets_one_first() -> None:
    system = DecisionDice().configure({})
    state = system.initial_state("bo", "Bo", system.create_sheet({"stats": {"Grit": 1}}))
    with pytest.raises(RuleError, match="no level"):
        system.appliers()[LevelledUp](state, LevelledUp(character="bo", level=2))
