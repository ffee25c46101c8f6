"""Terran Engine: the rule text's worked examples and rules as test vectors.

Seed 003_2aeb47bc6ca82a40.txt. Vectors T1-T16 are table/rule lookups from the text, D1-D20
derived from the rules and rulings; each test uses the book's dice faces through
PhysicalDice and asserts the book's answer.
"""

from __future__ import annotations

from typing import Any

import pytest
from ledger_terran_engine import TerranEngine
from ledger_terran_engine import state as st
from ledger_terran_engine.events import (
    AdvancementRolled,
    AttributeLost,
    ChallengeOpened,
    ConditionTaken,
    HarmTaken,
    RestedNight,
    SkillDevelopmentRolled,
)
from ledger_terran_engine.rules import mechanics as m

from ledger import DiceError, RollRequest, RuleError
from ledger.dice.engine import PhysicalDice
from ledger.rules.results import result_problem

SYS = TerranEngine().configure({})


def make(
    attrs: tuple[int, int, int, int] = (1, 2, 0, 2),
    skills: dict[str, int] | None = None,
    system: TerranEngine = SYS,
    **extra: Any,
) -> st.Character:
    """A character with Strength, Agility, Insight, Charisma = ``attrs``."""
    sheet = {
        "archetype": "Explorer",
        "attributes": dict(zip(m.ATTRIBUTES, attrs, strict=True)),
        "skills": skills if skills is not None else {"Exploration": 2, "Survival": 2},
        **extra,
    }
    return system.initial_state("jen", "Nimble Jen", system.create_sheet(sheet))


def apply(state: st.Character, event: Any, system: TerranEngine = SYS) -> st.Character:
    return system.appliers()[type(event)](state, event)


def roll(
    state: st.Character,
    what: str | None,
    faces: list[int],
    system: TerranEngine = SYS,
    **params: Any,
) -> tuple[Any, st.Character]:
    """Resolve a roll with physical ``faces`` and apply it: (event, new state).

    Every worked example also re-derives to itself from its inputs and draws.
    """
    request = RollRequest(character="jen", name="Nimble Jen", skill=what, params=params)
    event = system.resolve(state, request, PhysicalDice([str(f) for f in faces]))
    event = system.with_inputs(event, request)  # as the core records it
    assert result_problem(system, state, event, name="Nimble Jen") is None
    return event, apply(state, event, system)


def sheet(state: st.Character) -> dict[str, Any]:
    return SYS.sheet_view(state, as_gm=True)


# --- T1-T3: creation ----------------------------------------------------------------------


@pytest.mark.parametrize(("faces", "value"), [([2, 3], 0), ([1, 5], 1), ([6, 2], 2)])
def test_t1_attribute_roll_takes_highest_of_2d6(faces: list[int], value: int) -> None:
    bare = SYS.initial_state(
        "jen",
        "Nimble Jen",
        SYS.create_sheet({"archetype": "Sage", "skills": {"Social": 4}}),
    )
    event, after = roll(bare, "strength", faces, creation=True)
    assert (event.attribute, event.faces, event.highest, event.value) == (
        "Strength",
        faces,
        max(faces),
        value,
    )
    assert st.attribute(after, "Strength") == value
    assert m.attribute_from_faces(faces) == value


def test_t1_creation_roll_once_and_only_then_risky_actions() -> None:
    bare = SYS.initial_state(
        "jen", "Nimble Jen", SYS.create_sheet({"archetype": "Sage", "skills": {"Social": 4}})
    )
    with pytest.raises(RuleError, match="unrolled Attributes"):
        roll(bare, "Social", [4], attribute="Charisma")
    _, after = roll(bare, "Strength", [6, 2], creation=True)
    with pytest.raises(RuleError, match="already set"):
        roll(after, "Strength", [1, 1], creation=True)
    for attr, faces in (("Agility", [4, 1]), ("Insight", [3, 3]), ("Charisma", [6, 6])):
        _, after = roll(after, attr, faces, creation=True)
    # STR 2 + AGI 1 + 2 = 5 HP; INS 0 + CHA 2 + 2 = 4 Ego, both full after creation
    assert (after.hp, st.hp_max(after), after.ego, st.ego_max(after)) == (5, 5, 4, 4)


def test_t1_creation_roll_needs_two_d6() -> None:
    bare = SYS.initial_state(
        "jen", "Nimble Jen", SYS.create_sheet({"archetype": "Sage", "skills": {"Social": 4}})
    )
    with pytest.raises(DiceError):
        roll(bare, "Strength", [7, 2], creation=True)
    with pytest.raises(DiceError):
        roll(bare, "Strength", [3], creation=True)


def test_t2_hp_max_is_strength_plus_agility_plus_2() -> None:
    assert sheet(make((1, 2, 0, 2)))["hp_max"] == 5


def test_t3_ego_max_is_insight_plus_charisma_plus_2() -> None:
    assert sheet(make((1, 2, 0, 2)))["ego_max"] == 4


# --- T4: outcome --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "band"), [(3, "fail"), (4, "mixed"), (5, "mixed"), (6, "success")]
)
def test_t4_highest_die_decides(face: int, band: str) -> None:
    jen = make((1, 2, 0, 2), {"Exploration": 2, "Survival": 2})
    event, _ = roll(jen, "Strength", [face])
    assert (event.light, event.highest, event.outcome) == ([face], face, band)


# --- T5-T7: challenges --------------------------------------------------------------------


def test_t5_serious_challenge() -> None:
    jen = apply(make(), ChallengeOpened(character="jen", challenge="bear", level="Serious"))
    (bear,) = sheet(jen)["challenges"]
    assert (bear["level"], bear["disposition"]) == ("Serious", 20)
    assert str(m.challenge_effect(2)) == "2d"
    event, _ = roll(jen, "consequence", [2, 3], challenge="bear", consequence="none")
    assert (event.code, event.faces, event.value) == ("2d", [2, 3], 3)


def test_t6_fantastical_six() -> None:
    jen = apply(make(), ChallengeOpened(character="jen", challenge="god", level="fantastical:6"))
    assert st.find_challenge(jen, "god").disposition == 60
    event, _ = roll(jen, "consequence", [1, 2, 3, 1, 2, 3], challenge="god", consequence="none")
    assert event.code == "6d"


@pytest.mark.parametrize(("count", "level", "disposition"), [(3, 2, 20), (5, 3, 30), (2, 1, 10)])
def test_t7_gang_up(count: int, level: int, disposition: int) -> None:
    jen = apply(
        make(), ChallengeOpened(character="jen", challenge="thugs", level="Dangerous", count=count)
    )
    thugs = st.find_challenge(jen, "thugs")
    assert (thugs.level, thugs.disposition) == (level, disposition)


# --- T8-T12: effects ----------------------------------------------------------------------


def test_t8_effect_1d() -> None:
    event, _ = roll(make(), "effect", [3], effect="1d")
    assert (event.faces, event.explosions, event.value) == ([3], [], 3)


def test_t9_effect_explodes_while_six() -> None:
    event, _ = roll(make(), "effect", [6, 6, 2], effect="1d")
    assert (event.faces, event.explosions, event.value) == ([6], [6, 2], 14)


def test_t10_only_the_highest_die_counts_and_explodes() -> None:
    event, _ = roll(make(), "effect", [2, 6, 4], effect="2d")
    assert (event.faces, event.explosions, event.value) == ([2, 6], [4], 10)


def test_t11_two_sixes_one_explosion_chain() -> None:
    event, _ = roll(make(), "effect", [6, 6, 1], effect="2d")
    assert (event.explosions, event.value) == ([1], 7)


def test_t12_medium_weapon_two_handed() -> None:
    jen = make(weapons={"sword": "1d"})
    event, _ = roll(jen, "effect", [6, 3], weapon="sword", twohands=True)
    assert (event.code, event.value) == ("1d+1", 10)
    with pytest.raises(RuleError, match="medium weapon"):
        roll(jen, "effect", [6], effect="2d", twohands=True)


# --- T13: complications -------------------------------------------------------------------


@pytest.mark.parametrize(("effect", "dice"), [(5, 1), (7, 2), (13, 3), (3, 0)])
def test_t13_complication_table(effect: int, dice: int) -> None:
    assert m.complication_of(effect) == dice


def test_t13_complication_lands_on_next_related_risky_action() -> None:
    jen = apply(make(), ChallengeOpened(character="jen", challenge="cliff", level="Dangerous"))
    event, jen = roll(jen, "consequence", [5], challenge="cliff", consequence="complication")
    assert event.complication == 1
    # Agility 2 + Exploration 2 = 4, complication −1d → 3 Light Dice, then it is used up
    event, jen = roll(jen, "Exploration", [1, 2, 3], attribute="Agility", challenge="cliff")
    assert (len(event.light), event.complication) == (3, 1)
    event, _ = roll(jen, "Exploration", [1, 2, 3, 4], attribute="Agility", challenge="cliff")
    assert len(event.light) == 4


# --- T14-T15: armour and shield -----------------------------------------------------------


@pytest.mark.parametrize(
    ("armour", "shield", "hp_after"), [("light", False, 3), ("heavy", False, 4), ("heavy", True, 5)]
)
def test_t14_armour_reduces_harm(armour: str, shield: bool, hp_after: int) -> None:
    jen = make(armour=armour, shield=shield)  # HP 5
    assert m.damage_after(3, armour, shield) == 5 - hp_after
    assert apply(jen, HarmTaken(character="jen", effect=3)).hp == hp_after


def test_t15_sacrificed_shield_avoids_the_effect() -> None:
    jen = make(shield=True)
    jen = apply(jen, ChallengeOpened(character="jen", challenge="ogre", level="Serious"))
    event, after = roll(jen, "consequence", [6, 3, 3], challenge="ogre", sacrifice=True)
    assert (event.value, event.damage) == (9, 0)
    assert (after.hp, after.shield) == (5, False)
    with pytest.raises(RuleError, match="no shield"):
        roll(after, "consequence", [1, 1], challenge="ogre", sacrifice=True)


# --- T16: Retire --------------------------------------------------------------------------


def test_t16_retire_halves_advancements_rounded_up() -> None:
    assert m.successor_advancements(5) == 3
    jen = make(legacy_advancements=4, advancements=["Tough", "Sniper", "Fast", "Rally"])
    jen = st.Character(**{**_fields(jen), "experience": 20})
    won = AdvancementRolled(
        character="jen",
        session=1,
        spent=20,
        faces=[6] * 20,
        total=120,
        threshold=17,
        success=True,
        advancement="Retire",
        source="physical",
        draws=[(6, 6)] * 20,
    )
    assert result_problem(SYS, jen, won, name="Nimble Jen") is None
    after = apply(jen, won)
    assert (st.retired(after), after.successor_advancements) == (True, 3)
    with pytest.raises(RuleError, match="retired"):
        roll(after, "Strength", [6])


def _fields(state: st.Character) -> dict[str, Any]:
    return {f: getattr(state, f) for f in state.__struct_fields__}


# --- D1-D7: risky actions -----------------------------------------------------------------


def test_d1_attribute_plus_skill_light_dice() -> None:
    jen = make((1, 1, 0, 1), {"Exploration": 1, "Survival": 3})  # Ego 3
    event, after = roll(jen, "Exploration", [2, 5], attribute="Agility")
    assert (event.light, event.dark, event.outcome, after.ego) == ([2, 5], [], "mixed", 3)


def test_d2_dark_six_above_ego_costs_nothing() -> None:
    jen = make((1, 1, 0, 1), {"Exploration": 1, "Survival": 3})
    event, after = roll(jen, "Exploration", [2, 3, 6], attribute="Agility", dark=1)
    assert (event.dark, event.outcome, event.ego_lost, after.ego) == ([6], "success", 0, 3)


def test_d3_dark_dice_at_or_under_ego_cost_one_each() -> None:
    jen = make((1, 1, 0, 1), {"Exploration": 1, "Survival": 3})
    event, after = roll(jen, "Exploration", [2, 3, 2, 3, 5], attribute="Agility", dark=3)
    assert (event.outcome, event.ego_lost, after.ego, after.lost) == ("mixed", 2, 1, False)
    seq = TerranEngine().configure({"ego_check": "sequential"})
    jen = make((1, 1, 0, 1), {"Exploration": 1, "Survival": 3}, system=seq)
    event, after = roll(jen, "Exploration", [2, 3, 2, 3, 5], seq, attribute="Agility", dark=3)
    assert (event.ego_lost, after.ego) == (1, 2)


def test_d4_zero_dice_fail() -> None:
    jen = make((0, 0, 0, 0), {"Survival": 4})
    event, _ = roll(jen, "Strength", [])
    assert (event.light, event.dark, event.highest, event.outcome) == ([], [], 0, "fail")
    assert event.draws == []


def test_d5_light_dice_clamp_at_four() -> None:
    jen = make((2, 1, 0, 1), {"Violence": 3, "Social": 1})
    event, _ = roll(jen, "Violence", [1, 2, 3, 4], attribute="Strength", position=1)
    assert len(event.light) == 4
    assert "clamped to 4" in event.modifiers
    with pytest.raises(DiceError, match="4 Light then 0 Dark"):
        roll(jen, "Violence", [1, 2, 3, 4, 5], attribute="Strength", position=1)


def test_d6_penalties_clamp_at_zero_dark_dice_still_allowed() -> None:
    jen = make((1, 1, 0, 2), {"Exploration": 0, "Survival": 4}, armour="heavy")
    jen = apply(jen, HarmTaken(character="jen", effect=6))  # 6 − 2 armour = 4 ≥ HP 4
    assert jen.wound == "critical"
    event, _ = roll(jen, "Agility", [5], hindered=True, dark=1)
    assert (event.light, event.dark, event.outcome) == ([], [5], "mixed")
    assert any("Critically Wounded -1d" in x for x in event.modifiers)


def test_d7_montage_dark_die_costs_two() -> None:
    jen = make((1, 2, 0, 2))  # Ego 4
    jen = apply(jen, ChallengeOpened(character="jen", challenge="journey", level="Dangerous"))
    # "2.2.2": "rolling the Challenge Effect prior to gathering your Dice Pool": 1d shows 2,
    # no complication
    _, jen = roll(jen, "consequence", [2], challenge="journey", consequence="complication")
    event, after = roll(
        jen,
        "Exploration",
        [1, 1, 1, 1, 4],
        attribute="Agility",
        dark=1,
        montage=True,
        challenge="journey",
    )
    assert (event.ego_cost, event.ego_lost, after.ego) == (2, 2, 2)
    assert st.find_challenge(after, "journey").status == "overcome"  # 4: mixed


# --- D8-D13: harm and Ego -----------------------------------------------------------------


def test_d8_damage_to_zero_hp_is_critical_overflow_discarded() -> None:
    jen = st.Character(**{**_fields(make()), "hp": 2})
    after = apply(jen, HarmTaken(character="jen", effect=5))
    assert (after.hp, after.wound, after.pending_loss) == (0, "critical", 0)
    assert sheet(after)["light_penalty"] == 1


def test_d9_critical_plus_damage_is_mortal_and_costs_an_attribute() -> None:
    jen = apply(make(), HarmTaken(character="jen", effect=5))
    after = apply(jen, HarmTaken(character="jen", effect=1))
    assert (after.wound, after.pending_loss, sheet(after)["light_penalty"]) == ("mortal", 1, 2)
    with pytest.raises(RuleError, match="choose the Attribute"):
        roll(after, "Strength", [3])
    after = apply(after, AttributeLost(character="jen", attribute="agility"))
    assert (st.attribute(after, "Agility"), after.pending_loss, st.hp_max(after)) == (1, 0, 4)
    event, _ = roll(after, "Agility", [])  # Agility 1 − 2d → 0 Light Dice
    assert event.light == []
    with pytest.raises(RuleError, match="owes no Attribute"):
        apply(after, AttributeLost(character="jen", attribute="Strength"))


def test_d10_mortal_plus_damage_is_death() -> None:
    jen = make()
    for _ in range(3):
        jen = apply(jen, HarmTaken(character="jen", effect=5))
    assert jen.wound == "dead"
    with pytest.raises(RuleError, match="dead"):
        roll(jen, "Strength", [4])


def test_d11_armour_can_leave_a_critical_character_unharmed() -> None:
    jen = apply(make(armour="light"), HarmTaken(character="jen", effect=6))
    assert jen.wound == "critical"
    assert apply(jen, HarmTaken(character="jen", effect=1)).wound == "critical"


def test_d12_ego_zero_is_lost() -> None:
    jen = st.Character(**{**_fields(make()), "ego": 1})
    event, after = roll(jen, "Strength", [2, 1], dark=1)
    assert (event.ego_lost, after.ego, after.lost) == (1, 0, True)
    with pytest.raises(RuleError, match="lost"):
        roll(after, "Strength", [4])
    with pytest.raises(RuleError, match="before"):
        apply(after, ConditionTaken(character="jen", condition="Slow"))


def test_d13_estranged_lowers_ego_max_and_restores_ego() -> None:
    jen = st.Character(**{**_fields(make((1, 2, 0, 2))), "ego": 1})
    after = apply(jen, ConditionTaken(character="jen", condition="estranged", detail="sister"))
    assert (st.ego_max(after), after.ego) == (3, 3)


# --- D14-D18: advancement (pure appliers; the advance hook is tested in *_advance.py) ------


def _spend(state: st.Character, event: Any) -> st.Character:
    state = st.Character(**{**_fields(state), "experience": 5})
    assert result_problem(SYS, state, event, name="Nimble Jen") is None  # re-derives
    return apply(state, event)


def test_d15_advancement_roll_reaches_ego_max_plus_hp_max() -> None:
    jen = make((1, 1, 1, 1))  # HP_max 4, Ego_max 4 → threshold 8
    assert sheet(jen)["advancement_threshold"] == 8
    won = AdvancementRolled(
        character="jen",
        session=1,
        spent=3,
        faces=[2, 3, 4],
        total=9,
        threshold=8,
        success=True,
        advancement="Tough",
        source="physical",
        draws=[(6, 2), (6, 3), (6, 4)],
    )
    after = _spend(jen, won)
    # Tough: +1 for the Advancement and +1 more per Advancement
    assert (after.experience, after.advancements, st.hp_max(after)) == (2, ["Tough"], 6)


def test_d15_advancement_gives_one_hp_max() -> None:
    jen = make((1, 1, 1, 1))
    won = AdvancementRolled(
        character="jen",
        session=1,
        spent=3,
        faces=[2, 3, 4],
        total=9,
        threshold=8,
        success=True,
        advancement="Sniper",
        source="physical",
        draws=[(6, 2), (6, 3), (6, 4)],
    )
    after = _spend(jen, won)
    assert (st.hp_max(after), after.hp) == (5, 5)


def test_d16_failed_advancement_roll_still_spends() -> None:
    jen = make((1, 1, 1, 1))
    lost = AdvancementRolled(
        character="jen",
        session=1,
        spent=3,
        faces=[1, 2, 4],
        total=7,
        threshold=8,
        success=False,
        source="physical",
        draws=[(6, 1), (6, 2), (6, 4)],
    )
    after = _spend(jen, lost)
    assert (after.experience, after.advancements, st.hp_max(after)) == (2, [], 4)


@pytest.mark.parametrize(("face", "rating_after"), [(2, 1), (3, 2)])
def test_d17_skill_development_needs_three_times_rating(face: int, rating_after: int) -> None:
    jen = make(skills={"Violence": 1, "Social": 3})
    assert m.skill_threshold(1) == 3
    event = SkillDevelopmentRolled(
        character="jen",
        session=1,
        skill="Violence",
        spent=1,
        faces=[face],
        total=face,
        threshold=3,
        rating=1,
        success=face >= 3,
        source="physical",
        draws=[(6, face)],
    )
    after = _spend(jen, event)
    assert (after.skills["Violence"], after.experience) == (rating_after, 4)


def test_d18_skill_zero_develops_on_any_die() -> None:
    assert m.skill_threshold(0) == 0
    jen = make(skills={"Violence": 1, "Social": 3})
    event = SkillDevelopmentRolled(
        character="jen",
        session=1,
        skill="Survival",
        spent=1,
        faces=[1],
        total=1,
        threshold=0,
        rating=0,
        success=True,
        source="physical",
        draws=[(6, 1)],
    )
    assert _spend(jen, event).skills["Survival"] == 1


# --- D19-D20 ------------------------------------------------------------------------------


def test_d19_tough_adds_one_hp_max_per_advancement() -> None:
    jen = make((1, 1, 0, 2), legacy_advancements=3, advancements=["Tough", "Sniper", "Fast"])
    assert sheet(jen)["hp_max"] == 1 + 1 + 2 + 3 + 3 == 10


def test_d20_rested_night_heals_only_without_wounds() -> None:
    jen = st.Character(**{**_fields(make()), "hp": 1})
    assert apply(jen, RestedNight(character="jen")).hp == 5
    crit = apply(make(), HarmTaken(character="jen", effect=9))
    assert apply(crit, RestedNight(character="jen")).hp == 0
