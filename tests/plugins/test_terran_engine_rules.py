"""Terran Engine rules beyond the digest's vectors: sheets, Advancements and Conditions in
rolls, Fast/Slow, Montage pooling, Protected, forks, recovery (seed
003_2aeb47bc6ca82a40.txt; rulings in docs/rulings/terran-engine.md)."""

from __future__ import annotations

from typing import Any

import pytest
from ledger_terran_engine import TerranEngine
from ledger_terran_engine import mechanics as m
from ledger_terran_engine import state as st
from ledger_terran_engine.events import (
    ChallengeOpened,
    ConditionTaken,
    EgoPooled,
    EquipmentChanged,
    HarmTaken,
    Rallied,
    WoundRecovered,
)

from ledger import RollRequest, RuleError
from ledger.dice import PhysicalDice
from ledger.events import SceneEnded

SYS = TerranEngine().configure({})


def make(system: TerranEngine = SYS, **extra: Any) -> st.Character:
    sheet = {
        "archetype": "Outlaw",
        "attributes": {"Strength": 1, "Agility": 2, "Insight": 1, "Charisma": 1},
        "skills": {"Violence": 2, "Exploration": 2},
        **extra,
    }
    return system.initial_state("ash", "Ash Vey", system.create_sheet(sheet))


def apply(state: st.Character, event: Any, system: TerranEngine = SYS) -> st.Character:
    return system.appliers()[type(event)](state, event)


def roll(state: st.Character, what: str, faces: list[int], **params: Any) -> tuple[Any, Any]:
    request = RollRequest(character="ash", name="Ash Vey", skill=what, params=params)
    event = SYS.resolve(state, request, PhysicalDice([str(f) for f in faces]))
    return event, apply(state, event)


def opened(state: st.Character, name: str = "guard", level: str = "Dangerous") -> st.Character:
    return apply(state, ChallengeOpened(character="ash", challenge=name, level=level))


# --- sheets -------------------------------------------------------------------------------


def test_sheet_errors_name_every_broken_rule() -> None:
    with pytest.raises(RuleError) as err:
        SYS.create_sheet({
            "archetype": "Wizard",
            "attributes": {"Strength": 3, "Luck": 1},
            "skills": {"Violence": 2, "Cooking": 1},
            "advancements": ["Tough", "Sniper"],
            "armour": "plate",
        })
    problems = err.value.problems
    joined = " | ".join(problems)
    for needle in ("'Wizard' is not an Archetype", "Strength 3", "'Luck'", "'Cooking'",
                   "total 2 points", "2 Advancements", "armour 'plate'"):
        assert needle in joined
    assert len(problems) == 7


def test_sheet_normalises_names_and_accepts_one_creation_advancement() -> None:
    out = SYS.create_sheet({
        "archetype": "outlaw", "skills": {"violence": 4},
        "advancements": ["sensory acuity: smell"], "weapons": {"knife": "D/2"},
    })
    assert out["archetype"] == "Outlaw" and out["skills"] == {"Violence": 4}
    assert out["advancements"] == ["Sensory acuity: smell"]
    assert out["weapons"] == {"knife": "d/2"}


def test_no_skills_variant_raises_one_attribute() -> None:
    plain = TerranEngine().configure({"attributes_only": True})
    with pytest.raises(RuleError, match="attribute_bonus"):
        plain.create_sheet({"archetype": "Sage"})
    sheet = plain.create_sheet({
        "archetype": "Sage", "attribute_bonus": "insight",
        "attributes": {"Strength": 0, "Agility": 0, "Insight": 2, "Charisma": 1},
    })
    sage = plain.initial_state("sage", "Sage", sheet)
    assert (st.attribute(sage, "Insight"), st.ego_max(sage)) == (3, 6)


# --- dice modifiers -----------------------------------------------------------------------


def test_sniper_adds_a_die_to_attack_and_damage() -> None:
    ash = make(advancements=["Sniper"], weapons={"rifle": "2d"})
    event, _ = roll(ash, "Violence", [1, 2, 3, 4], attribute="Agility", advancement=["Sniper"])
    assert len(event.light) == 4 and "Sniper +1d" in event.modifiers
    event, _ = roll(ash, "effect", [1, 2, 5], weapon="rifle", advancement=["sniper"])
    assert (event.code, event.value) == ("3d", 5)
    plain = make()
    with pytest.raises(RuleError, match="does not have the Advancement Sniper"):
        roll(plain, "Violence", [1], attribute="Agility", advancement=["Sniper"])


def test_obsessive_focus_and_situational_conditions() -> None:
    ash = apply(make(), ConditionTaken(
        character="ash", condition="Obsessive Focus", focus="Exploration",
        neglected=["Violence", "Social", "Survival"],
    ))
    event, _ = roll(ash, "Exploration", [1, 1, 1, 1], attribute="Insight")  # 1 + 2 + 1
    assert len(event.light) == 4
    event, _ = roll(ash, "Violence", [1, 1, 1], attribute="Agility")  # 2 + 2 − 1
    assert len(event.light) == 3 and "Obsessive Focus -1d" in event.modifiers
    with pytest.raises(RuleError, match="has not taken"):
        roll(ash, "Violence", [1], attribute="Strength", condition=["Fear-Driven Vigilance"])
    with pytest.raises(RuleError, match="three other"):
        apply(make(), ConditionTaken(character="ash", condition="Obsessive Focus"))


def test_rally_gives_a_die_until_the_scene_ends() -> None:
    ash = apply(make(), Rallied(character="ash", by="bo"))
    event, ash = roll(ash, "Strength", [1, 2])
    assert "Rallied +1d" in event.modifiers
    ash = apply(ash, SceneEnded())
    event, _ = roll(ash, "Strength", [1])
    assert len(event.light) == 1


def test_rally_curse_and_multi_attack_count_dark_dice() -> None:
    ash = make(legacy_advancements=3, advancements=["Rally", "Curse", "Multi-attack"])
    event, _ = roll(ash, "Violence", [1, 2, 3, 6, 6, 2], attribute="Strength", dark=3,
                    advancement=["Rally", "Curse", "Multi-attack"])
    assert (event.allies_rallied, event.rivals_cursed, event.extra_damage) == (3, 3, 2)


# --- challenges, Fast and Slow, Montage ---------------------------------------------------


def test_effect_overcomes_a_challenge_and_fast_cancels_its_consequence() -> None:
    fast = make(advancements=["Fast"])
    fast = opened(fast, "guard", "Trivial")  # Disposition 5
    _, fast = roll(fast, "Violence", [5, 1, 1], attribute="Strength")  # mixed
    event, fast = roll(fast, "effect", [5], effect="1d", challenge="guard")
    assert st.find_challenge(fast, "guard").status == "overcome"
    with pytest.raises(RuleError, match="Fast"):
        roll(fast, "consequence", [3], challenge="guard")
    # without Fast the consequence of the same exchange still lands (simultaneous)
    slowpoke = opened(make(), "guard", "Trivial")
    _, slowpoke = roll(slowpoke, "Violence", [5, 1, 1], attribute="Strength")
    _, slowpoke = roll(slowpoke, "effect", [5], effect="1d", challenge="guard")
    event, after = roll(slowpoke, "consequence", [6], challenge="guard")
    assert (event.code, event.value, after.hp) == ("d/2", 3, 2)


def test_slow_loses_its_effect_when_the_consequence_takes_it_out() -> None:
    ash = apply(make(), ConditionTaken(character="ash", condition="Slow"))
    ash = opened(ash, "ogre", "Formidable")
    ash = apply(ash, HarmTaken(character="ash", effect=5))  # HP 5 → 0, Critical
    _, ash = roll(ash, "Violence", [4, 1], attribute="Strength")  # 1 + 2 − 1 = 2 dice
    _, ash = roll(ash, "consequence", [1, 2, 2], challenge="ogre")  # Mortal
    assert ash.wound == "mortal"
    with pytest.raises(RuleError, match="Slow"):
        roll(ash, "effect", [4], effect="1d", challenge="ogre")


def test_montage_with_companions_pooling_ego() -> None:
    ash = opened(make(), "swamp", "Serious")  # Ego 4
    _, ash = roll(ash, "consequence", [5, 2], challenge="swamp", consequence="complication")
    event, after = roll(ash, "Exploration", [2, 3, 4, 1, 2], attribute="Agility", dark=2,
                        montage=True, challenge="swamp", pooled=3)
    # 4 − 1d complication = 3 Light; dark [1, 2] ≤ 4 cost 2 each = 4, companions pay 3
    assert (len(event.light), event.ego_cost, event.pooled, event.ego_lost) == (3, 4, 3, 1)
    assert (after.ego, st.find_challenge(after, "swamp").status) == (3, "overcome")
    bo = apply(make(), EgoPooled(character="ash", helped="kit", amount=3))
    assert (bo.ego, bo.ego_lost_session) == (1, 3)
    with pytest.raises(RuleError, match="--montage"):
        roll(ash, "Strength", [1], pooled=1)


def test_fork_opens_a_new_challenge_from_the_table() -> None:
    ash = opened(make(), "jungle", "Formidable")
    _, ash = roll(ash, "consequence", [6, 2, 1, 3], challenge="jungle", consequence="fork",
                  fork="jaguar")
    jaguar = st.find_challenge(ash, "jaguar")  # 6 + 3 = 9 → Serious
    assert (jaguar.level, jaguar.disposition) == (2, 20)


def test_protected_rolls_the_last_roll_dark_dice() -> None:
    ash = opened(make(advancements=["Protected"]), "bear", "Serious")
    _, ash = roll(ash, "Violence", [1, 2, 3, 5, 6], attribute="Strength", dark=2)
    event, after = roll(ash, "consequence", [4, 5, 1, 2], challenge="bear", protected=True)
    assert (event.protected, event.damage, after.hp) == ([1, 2], 2, 4)  # HP 6 with 1 Adv.


def test_d_half_variants() -> None:
    assert [m.effect_value([f], [], m.parse_effect("d/2")) for f in range(1, 7)] == [
        1, 1, 2, 2, 3, 3]
    assert [m.effect_value([f], [], m.parse_effect("d/2"), "floor_min1")
            for f in range(1, 7)] == [1, 1, 1, 2, 2, 3]
    assert m.effect_value([6], [3], m.parse_effect("d/2"), "explode_then_halve") == 5


# --- recovery and equipment ---------------------------------------------------------------


def test_wounds_recover_step_by_step_with_care() -> None:
    ash = make()
    for _ in range(2):
        ash = apply(ash, HarmTaken(character="ash", effect=9))
    assert ash.wound == "mortal"
    with pytest.raises(RuleError, match="care"):
        apply(ash, WoundRecovered(character="ash", care=False))
    ash = apply(ash, WoundRecovered(character="ash"))
    assert (ash.wound, ash.hp) == ("critical", 0)
    ash = apply(ash, WoundRecovered(character="ash"))
    assert (ash.wound, ash.hp) == ("none", 0)
    with pytest.raises(RuleError, match="no Wound"):
        apply(ash, WoundRecovered(character="ash"))


def test_equipment_changes() -> None:
    ash = apply(make(), EquipmentChanged(character="ash", armour="heavy", shield=True,
                                        weapon="axe", code="2d"))
    assert (ash.armour, ash.shield, ash.weapons) == ("heavy", True, {"axe": "2d"})
    assert apply(ash, HarmTaken(character="ash", effect=4)).hp == 4  # 4 − 2 − 1 = 1
    ash = apply(ash, EquipmentChanged(character="ash", weapon="axe", code=""))
    assert ash.weapons == {}


def test_unknown_skill_and_missing_attribute_are_clear() -> None:
    with pytest.raises(RuleError, match="'Cooking' is not a Skill"):
        roll(make(), "Cooking", [1], attribute="Strength")
    with pytest.raises(RuleError, match="--attribute"):
        roll(make(), "Violence", [1])
    with pytest.raises(RuleError, match="--position"):
        roll(make(), "Strength", [1], position=2)


def test_describe_reads_at_a_glance() -> None:
    event, _ = roll(make(), "Violence", [2, 5, 3, 1, 4], attribute="Agility", dark=1)
    line = SYS.describe(event)
    assert line == (
        "ash: Risky Action Violence + Agility, light [2 5 3 1] dark [4] → highest 5: "
        "success with consequences; Ego −1 (4 → 3)"
    )


# --- campaign options ---------------------------------------------------------------------


def test_setting_skill_list_replaces_the_texts() -> None:
    space = TerranEngine().configure({"skills": ["Hacking", "Piloting"]})
    out = space.create_sheet({"archetype": "Sage", "skills": {"hacking": 3, "Piloting": 1}})
    assert out["skills"] == {"Hacking": 3, "Piloting": 1}
    with pytest.raises(RuleError, match="'Violence' is not a Skill; choose one of: Hacking"):
        space.create_sheet({"archetype": "Sage", "skills": {"Violence": 4}})


def test_no_creation_advancement_option() -> None:
    strict = TerranEngine().configure({"creation_advancements": 0})
    with pytest.raises(RuleError, match="at most 0"):
        strict.create_sheet({"archetype": "Sage", "skills": {"Social": 4},
                             "advancements": ["Tough"]})


def test_ego_reset_and_condition_at_zero_options() -> None:
    from ledger.events import SessionStarted

    kind = TerranEngine().configure(
        {"ego_resets_at_session_start": True, "allow_condition_at_zero": True}
    )
    ash = make(kind)
    event, ash = roll(ash, "Strength", [1, 1, 1, 1, 1], dark=4)  # Ego 4 → 0: lost
    ash = kind.appliers()[type(event)](make(kind), event)
    assert (ash.ego, ash.lost) == (0, True)
    ash = apply(ash, ConditionTaken(character="ash", condition="Battle-Scarred"), kind)
    assert (ash.ego, ash.lost) == (4, False)
    ash = st.Character(**{**{f: getattr(ash, f) for f in ash.__struct_fields__}, "ego": 1})
    ash = apply(ash, SessionStarted(number=2, seed_commitment="0" * 64), kind)
    assert ash.ego == 4
    plain = st.Character(**{**{f: getattr(ash, f) for f in ash.__struct_fields__}, "ego": 1})
    assert apply(plain, SessionStarted(number=2, seed_commitment="0" * 64)).ego == 1


def test_complication_over_17_option() -> None:
    assert m.complication_of(18) == 3
    assert m.complication_of(18, over_17=4) == 4
    assert m.complication_of(17, over_17=4) == 3
