"""d20-world character creation ("Character Creation", seed 001_a3a02f9b7363775f.txt):
every broken rule is named at once, each led by its TOML path."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from ledger_d20_world import D20World

from ledger import RuleError

SYS = D20World().configure({})

GOOD: dict[str, Any] = {
    "traits": [
        {"name": "Wiry", "kind": "body"},
        {"name": "Stubborn", "kind": "personality"},
        {"name": "Hears the dead", "kind": "free"},
    ],
    "bonds": [
        {"name": "the Guild", "kind": "faction"},
        {"name": "Old Maren", "kind": "friend"},
        {"name": "Captain Voss", "kind": "enemy"},
    ],
    "skills": [
        {"name": "Lockpicking", "proficiency": 3, "via_bond": "the Guild"},
        {"name": "Forage", "proficiency": 2},
        {"name": "Sing", "proficiency": 1},
    ],
    "items": [
        {"name": "Guild seal", "for_bond": "the Guild"},
        {"name": "Lantern", "for_bond": "Old Maren"},
        {"name": "Warrant", "for_bond": "Captain Voss"},
        {"name": "Lockpicks", "for_skill": "Lockpicking"},
        {"name": "Knife", "for_skill": "Forage"},
        {"name": "Lute", "for_skill": "Sing"},
        {"name": "Lamp oil", "consumable": True},
    ],
}


def problems(sheet: dict[str, Any]) -> list[str]:
    with pytest.raises(RuleError) as err:
        SYS.create_sheet(sheet)
    return err.value.problems


def test_a_good_sheet_is_normalised_and_validates_again():
    out = SYS.create_sheet(copy.deepcopy(GOOD))
    assert out == SYS.create_sheet(copy.deepcopy(out))
    assert [i["location"] for i in out["items"]] == ["carried"] * 5 + ["bag"] * 2
    state = SYS.initial_state("isa", "Isa", out)
    assert [(s.name, s.origin) for s in state.skills] == [
        ("Lockpicking", "bond"),
        ("Forage", "hardship"),
        ("Sing", "passion"),
    ]
    assert state.jinx == 0 and state.wounds == () and state.conditions == ()


def test_every_broken_rule_is_named():
    bad = copy.deepcopy(GOOD)
    bad["traits"][1]["kind"] = "body"
    bad["bonds"] = bad["bonds"][:2]
    bad["skills"][0]["via_bond"] = "the Watch"
    bad["skills"][2]["proficiency"] = 2
    bad["items"].pop()
    found = problems(bad)
    text = " | ".join(found)
    assert "traits: exactly one must be of kind body (your body), not 2" in text
    assert "traits: exactly one must be of kind personality" in text
    assert "bonds: choose exactly three, not 2" in text
    assert "bonds: exactly one must be a rival or enemy, not 0" in text
    assert "skills[1].via_bond: 'the Watch' is not one of your bonds" in text
    assert (
        "skills: exactly one must be at +2" in text and "skills: exactly one must be at +1" in text
    )
    assert "items: exactly one consumable is needed, not 0" in text
    assert "items[3].for_bond: 'Captain Voss' is not one of your bonds" in text
    assert len(found) >= 8


def test_three_mistakes_are_named_by_their_paths():
    bad = copy.deepcopy(GOOD)
    bad["traits"][0]["kind"] = "mind"
    bad["skills"][1]["proficiency"] = "two"
    bad["items"][3]["damage"] = -1
    found = problems(bad)
    assert found[:3] == [
        "traits[1].kind: expected one of 'body', 'personality', 'free', got \"mind\"",
        'skills[2].proficiency: expected one of 3, 2, 1, got "two"',
        "items[4].damage: expected an integer of 0 or more, got -1",
    ]
    # the rest follow from the entries refused (a kind and a proficiency missing), never
    # from a name: the skill refused still names Forage for its item
    assert not any("Forage" in p for p in found)


def test_favour_in_the_public_sheet_is_refused():
    bad = copy.deepcopy(GOOD)
    bad["bonds"][0]["favor"] = 3
    assert any(p.startswith("bonds[1].favor: favor is The World's secret") for p in problems(bad))


def test_skills_need_plus_three_plus_two_plus_one_and_the_bond():
    bad = copy.deepcopy(GOOD)
    del bad["skills"][0]["via_bond"]
    bad["skills"][1]["proficiency"] = 4
    text = " | ".join(problems(bad))
    assert "skills[1].via_bond: missing, the +3 skill is learned through a bond" in text
    assert "skills[2].proficiency: expected one of 3, 2, 1, got 4" in text


def test_items_one_per_bond_and_skill_and_inventory_limits():
    bad = copy.deepcopy(GOOD)
    bad["items"][1]["for_bond"] = "the Guild"
    bad["items"][4]["bulky"] = True
    bad["items"][5]["bulky"] = True
    text = " | ".join(problems(bad))
    assert "items: one for each of your three bonds (3 given, some twice)" in text
    bad = copy.deepcopy(GOOD)
    bad["items"][4]["bulky"] = True
    bad["items"][5]["bulky"] = True
    assert any("only one bulky" in p for p in problems(bad))
    bad = copy.deepcopy(GOOD)
    bad["bag"] = False
    assert any("7 items carried but only 5 fit" in p for p in problems(bad))


def test_unknown_keys_and_wrong_shapes():
    bad = copy.deepcopy(GOOD)
    bad["stats"] = {}
    bad["traits"] = {"name": "x"}
    text = " | ".join(problems(bad))
    assert "stats: not a field of the sheet (it has bag, bonds, items, skills, traits)" in text
    assert "traits: expected an array, got a table" in text


def test_duplicate_names_refused():
    bad = copy.deepcopy(GOOD)
    bad["traits"][2]["name"] = "wiry"
    assert "traits: names must differ, Wiry, wiry appears more than once" in problems(bad)
