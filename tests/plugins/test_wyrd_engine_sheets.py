"""Wyrd Engine character creation (000_60e07241544698f0.txt, "Character Creation").

The four Grand Casebook characters validate; invalid sheets (two +3 skills, a sum of 9, four
traits) are refused with an error naming every broken rule.
"""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import pytest
from ledger_wyrd_engine import WyrdEngine

from ledger import RuleError

CHARACTERS = Path(__file__).resolve().parents[2] / "campaigns" / "grand-casebook" / "characters"


def sheet(stem: str) -> dict[str, Any]:
    data = tomllib.loads((CHARACTERS / f"{stem}.toml").read_text())
    for key in ("id", "name", "player"):
        data.pop(key, None)
    return data


@pytest.fixture
def wyrd() -> WyrdEngine:
    system = WyrdEngine().configure({})
    assert isinstance(system, WyrdEngine)
    return system


# Book skills (the sidebars "Skills in The Grand Casebook" and the example characters): +3,
# +2, +1 columns.
BOOK_SKILLS = {
    "julian": ("Investigate", ["Notice", "Rapport"], ["Will", "Provoke", "Athletics"]),
    "felix": ("Crafts", ["Investigate", "Resources"], ["Lore", "Will", "Contacts"]),
    "isadora": ("Empathy", ["Investigate", "Lore"], ["Rapport", "Will", "Notice"]),
    "cornelius": ("Deceive", ["Burglary", "Rapport"], ["Athletics", "Stealth", "Notice"]),
}


@pytest.mark.parametrize("stem", sorted(BOOK_SKILLS))
def test_book_characters_are_valid(wyrd: WyrdEngine, stem: str) -> None:
    out = wyrd.create_sheet(sheet(stem))
    great, good, fair = BOOK_SKILLS[stem]
    skills = out["skills"]
    assert skills[great] == 3
    assert sorted(k for k, v in skills.items() if v == 2) == sorted(good)
    assert sorted(k for k, v in skills.items() if v == 1) == sorted(fair)
    assert sum(skills.values()) == 10
    assert len(out["traits"]) == 3 and len(out["gear"]) == 3


def test_book_traits_are_kept(wyrd: WyrdEngine) -> None:
    names = [t["name"] for t in wyrd.create_sheet(sheet("felix"))["traits"]]
    assert names == ["Master Tinkerer", "Unstable Prototype", "A Calculated Risk"]


def test_julian_without_completion_is_refused(wyrd: WyrdEngine) -> None:
    raw = sheet("julian")
    raw.pop("traits")
    raw.pop("gear")
    with pytest.raises(RuleError) as info:
        wyrd.create_sheet(raw)
    assert info.value.problems == [
        "traits: a player character has exactly 3 Traits, not 0",
        "gear: a player character has exactly 3 pieces of gear, not 0",
    ]


def test_two_great_skills_and_a_wrong_sum_are_each_named(wyrd: WyrdEngine) -> None:
    raw = sheet("felix")
    raw["skills"]["Investigate"] = 3  # now two +3, one +2, sum 11
    with pytest.raises(RuleError) as info:
        wyrd.create_sheet(raw)
    problems = info.value.problems
    assert "skills: a character has exactly 1 Great (+3) skill, not 2 (Crafts, Investigate)" in problems
    assert "skills: a character has exactly 2 Good (+2) skills, not 1 (Resources)" in problems
    assert "skills: skill ratings must sum to 10, not 11" in problems
    assert len(problems) == 3


def test_sum_nine_is_refused(wyrd: WyrdEngine) -> None:
    raw = sheet("cornelius")
    raw["skills"]["Notice"] = 0
    with pytest.raises(RuleError) as info:
        wyrd.create_sheet(raw)
    assert info.value.problems == [
        "skills: a character has exactly 3 Fair (+1) skills, not 2 (Athletics, Stealth)",
        "skills: skill ratings must sum to 10, not 9",
    ]


def test_four_traits_are_refused(wyrd: WyrdEngine) -> None:
    raw = sheet("isadora")
    raw["traits"].append({"name": "Unshakable Will", "kind": "ability", "once_per": "session"})
    with pytest.raises(RuleError, match="exactly 3 Traits, not 4"):
        wyrd.create_sheet(raw)


def test_skill_above_great_and_bad_traits_are_all_named(wyrd: WyrdEngine) -> None:
    raw = copy.deepcopy(sheet("julian"))
    raw["skills"]["Investigate"] = 4
    raw["traits"][0] = {"name": "Iron Nerve", "kind": "ability"}
    raw["traits"][1] = {"name": "Keen Eye", "kind": "bonus"}
    raw["gear"][0] = {"name": "Pipe", "kind": "charm"}
    raw["colour"] = "grey"
    with pytest.raises(RuleError) as info:
        wyrd.create_sheet(raw)
    text = str(info.value)
    for fragment in (
        "colour: not a field of the sheet",
        "skills.Investigate: skill Investigate is +4: at creation skills run from +0 to +3",
        "exactly 1 Great (+3) skill, not 0",
        "traits: 'Iron Nerve' is an ability: set once_per",
        "traits: 'Keen Eye' is a bonus trait: name the skill",
        "gear[1].kind: expected one of 'bonus', 'ability', 'permission', 'substitution', "
        'got "charm"',
    ):
        assert fragment in text


def test_skill_names_are_normalised_and_levels_accepted(wyrd: WyrdEngine) -> None:
    raw = sheet("cornelius")
    raw["skills"] = {"deceive": "Expert", "burglary": "Good", "RAPPORT": 2,
                     "athletics": "Novice", "stealth": "+1", "notice": 1}  # fmt: skip
    skills = wyrd.create_sheet(raw)["skills"]
    assert skills == {"Deceive": 3, "Burglary": 2, "Rapport": 2,
                      "Athletics": 1, "Stealth": 1, "Notice": 1}  # fmt: skip


def test_npc_may_break_the_creation_pyramid(wyrd: WyrdEngine) -> None:
    out = wyrd.create_sheet({"npc": True, "skills": {"Fight": 5}})
    assert out["skills"] == {"Fight": 5} and out["traits"] == []


def test_duplicate_trait_names_are_refused(wyrd: WyrdEngine) -> None:
    raw = sheet("felix")
    raw["gear"][0] = dict(raw["traits"][0])
    with pytest.raises(RuleError, match="'Master Tinkerer' is used twice"):
        wyrd.create_sheet(raw)


def test_sheet_view_shows_stress_wounds_and_penalties(wyrd: WyrdEngine) -> None:
    from ledger_wyrd_engine.events import DamageTaken

    state = wyrd.initial_state("felix", "Felix Cavendish", wyrd.create_sheet(sheet("felix")))
    hit = DamageTaken(character="felix", amount=7, affected_skills=["Crafts"])
    state = wyrd.appliers()[DamageTaken](state, hit)
    view = wyrd.sheet_view(state, as_gm=False)
    assert view["stress"] == {"marked": 5, "boxes": 5, "track": "[x][x][x][x][x]"}
    assert view["wounds"]["moderate"]["penalty"] == -2
    assert view["wounds"]["mild"] is None
    assert view["penalties"] == {"Crafts": -2}
    assert view["capacity_remaining"] == 4  # Mild 1 + Severe 3
    assert view["skills"][0] == {"skill": "Crafts", "rating": 3, "level": "Expert/Great (+3)"}
