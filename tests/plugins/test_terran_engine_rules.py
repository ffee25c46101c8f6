"""Terran Engine rules beyond the worked examples: sheets, Advancements and Conditions in
rolls, Fast/Slow, Montage pooling, Protected, forks, recovery (seed
003_2aeb47bc6ca82a40.txt; rulings in docs/rulings/terran-engine.md)."""

from __future__ import annotations

from typing import Any

import pytest
from ledger_terran_engine import TerranEngine
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
from ledger_terran_engine.rules import mechanics as m

from ledger import RollRequest, RuleError
from ledger.dice.engine import PhysicalDice
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
    for needle in ("'Wizard' is not an Archetype", "attributes.Strength: expected 0, 1 or 2",
                   "'Luck'", "'Cooking'", "total 2 points", "2 Advancements",
                   "armour: expected one of 'none', 'light', 'heavy', got \"plate\""):
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
    with pytest.raises(RuleError, match="roll it as a Montage"):
        roll(ash, "Strength", [1], pooled=1)


def test_fork_opens_a_new_challenge_from_the_table() -> None:
    ash = opened(make(), "jungle", "Formidable")
    _, ash = roll(ash, "consequence", [6, 2, 1, 3], challenge="jungle", consequence="fork",
                  fork="jaguar")
    jaguar = st.find_challenge(ash, "jaguar")  # 6 + 3 = 9 → Serious
    assert (jaguar.level, jaguar.disposition) == (2, 20)


def test_protected_rolls_the_last_roll_dark_dice() -> None:
    ash = opened(make(advancements=["Protected"]), "bear", "Serious")
    _, ash = roll(ash, "Violence", [1, 2, 3, 5, 4], attribute="Strength", dark=2)  # mixed
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


def test_wound_recovered_heals_one_step_per_week() -> None:
    # "1.3.1": Mortal → Critical after a week of rest with care, Critical → none in a week
    ash = make()
    for _ in range(2):
        ash = apply(ash, HarmTaken(character="ash", effect=9))
    assert ash.wound == "mortal"
    healed = apply(ash, WoundRecovered(character="ash", weeks=2))
    assert (healed.wound, healed.hp) == ("none", 0)  # HP back only after a rested night
    assert apply(ash, WoundRecovered(character="ash", weeks=1)).wound == "critical"
    assert apply(ash, WoundRecovered(character="ash", weeks=6)).wound == "none"
    with pytest.raises(RuleError, match="weeks: 1 or more, not 0"):
        apply(ash, WoundRecovered(character="ash", weeks=0))


def test_the_same_condition_is_refused_twice() -> None:
    # "1.5": a Condition is a permanent transformation; Estranged is "the bond with someone"
    ash = apply(make(), ConditionTaken(character="ash", condition="Kleptomaniac"))
    with pytest.raises(RuleError, match="already has the Condition Kleptomaniac"):
        apply(ash, ConditionTaken(character="ash", condition="kleptomaniac", detail="gold"))
    ash = apply(ash, ConditionTaken(character="ash", condition="Estranged", detail="sister"))
    with pytest.raises(RuleError, match=r"Estranged \(sister\); the same Condition"):
        apply(ash, ConditionTaken(character="ash", condition="Estranged", detail=" Sister"))
    ash = apply(ash, ConditionTaken(character="ash", condition="Estranged", detail="brother"))
    assert st.ego_max(ash) == 2  # Insight 1 + Charisma 1 + 2 − 2 Estranged


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
    with pytest.raises(RuleError, match="say which Attribute Violence is rolled with"):
        roll(make(), "Violence", [1])
    with pytest.raises(RuleError, match="Position is the GM's"):
        roll(make(), "Strength", [1], position=2)


def test_describe_reads_at_a_glance() -> None:
    event, _ = roll(make(), "Violence", [2, 5, 3, 1, 4], attribute="Agility", dark=1)
    line = SYS.describe(event)
    assert line == (
        "ash: Risky Action Violence + Agility, Light dice [2 5 3 1], Dark dice [4] → highest 5: "
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


# --- Effects, consequences and Montages in order --------------------------------------------


def test_an_effect_after_a_failed_roll_is_refused() -> None:
    # "2.1": 1-3 "You fail, and things get worse"; Effects follow a Risky Action that succeeds
    ash = opened(make(weapons={"sword": "1d"}))
    _, ash = roll(ash, "Violence", [1, 2, 3], attribute="Strength", challenge="guard")
    assert ash.last_outcome == "fail"
    with pytest.raises(RuleError, match="latest Risky Action failed"):
        roll(ash, "effect", [5], weapon="sword", challenge="guard")
    _, ash = roll(ash, "Violence", [1, 2, 4], attribute="Strength", challenge="guard")  # 4-5
    event, ash = roll(ash, "effect", [5], weapon="sword", challenge="guard")
    assert st.find_challenge(ash, "guard").disposition == 5  # Dangerous 10 − 5


def test_a_consequence_after_a_six_is_refused() -> None:
    # "2.1": "6 You succeed. With the GM describe what happens": no consequence
    ash = opened(make())
    _, ash = roll(ash, "Violence", [1, 2, 6], attribute="Strength", challenge="guard")
    with pytest.raises(RuleError, match="rolled a 6"):
        roll(ash, "consequence", [4], challenge="guard")
    _, ash = roll(ash, "Violence", [1, 2, 5], attribute="Strength", challenge="guard")
    event, ash = roll(ash, "consequence", [4], challenge="guard")
    assert (event.damage, ash.hp) == (4, 1)  # HP_max 5


def test_a_montage_needs_its_effect_roll_first() -> None:
    # "2.2.2": "rolling the Challenge Effect prior to gathering your Dice Pool. Apply the
    # Complication modifier to your Dice Pool and roll your Risky Action"
    ash = opened(make(), "climb", "Serious")
    with pytest.raises(RuleError, match="rolls the Challenge Effect first"):
        roll(ash, "Exploration", [1, 2, 4, 4], attribute="Agility", montage=True,
             challenge="climb")
    # the Serious 2d shows [3 5]: 5 is a −1d complication; Agility 2 + Exploration 2 − 1 = 3
    first, ash = roll(ash, "consequence", [3, 5], challenge="climb", consequence="complication")
    assert (first.complication, ash.montage_effects) == (1, ["climb"])
    event, ash = roll(ash, "Exploration", [1, 2, 4], attribute="Agility", montage=True,
                      challenge="climb")
    assert (len(event.light), st.find_challenge(ash, "climb").status) == (3, "overcome")
    assert ash.montage_effects == []  # used: a second Montage rolls its Effect again


def test_a_scene_end_forgets_the_latest_roll() -> None:
    ash = opened(make())
    _, ash = roll(ash, "Violence", [1, 2, 3], attribute="Strength", challenge="guard")
    ash = apply(ash, SceneEnded())
    assert ash.last_outcome is None


# --- advancement of an earlier session reads the sheet as that session ended --------------


def test_advancing_an_earlier_session_uses_the_sheet_as_it_ended() -> None:
    # "1.4": "At the end of each session you get one Experience ... If the sum of your dice
    # is equal or higher than the sum of your Ego_max and HP_max you gain an Advancement".
    # Ash ends session 1 with Ego_max 4 + HP_max 5 = 9, then takes Estranged (Ego_max 3) in
    # session 2; advancing session 1 afterwards still needs 9, and Violence 2 needs 6.
    import msgspec
    from ledger_terran_engine.events import AdvancementRolled, ExperienceGained
    from ledger_terran_engine.rules import advancement

    from ledger.codec import Codec, encode_data
    from ledger.events import SessionEnded

    ash = apply(make(), ExperienceGained(character="ash", session=0, amount=5))
    ash = apply(ash, SessionEnded(number=1, seed_reveal="00"))
    ash = apply(ash, ConditionTaken(character="ash", condition="Estranged", detail="sister"))
    assert st.ego_max(ash) + st.hp_max(ash) == 8
    dice = iter([["4", "4"], ["1", "2", "2"]])
    events = advancement.advance(
        SYS.options, {"ash": ash}, 1, [], lambda seed: PhysicalDice(next(dice)),
        {"ash.advance": "2", "ash.develop.Violence": "3"},
    )
    rolled = [e for e in events if type(e).__name__ != "ExperienceGained"]
    assert [(e.threshold, e.total, e.success) for e in rolled] == [(9, 8, False), (6, 5, False)]
    assert all(e.sheet == "session_end" for e in rolled)
    state = ash
    for e in events:
        if e in rolled:
            assert SYS.rederive(state, e, name="Ash") == e  # verify re-derives it the same
        state = apply(state, e)
    # a payload of schema version 1, from an older release, took the sheet when advance ran
    old = {k: v for k, v in msgspec.to_builtins(rolled[0]).items() if k != "sheet"}
    codec = Codec(SYS.event_types, SYS.upcasters)
    upcast = codec.decode(msgspec.json.encode(old), "terran-engine.advancement_rolled")
    assert isinstance(upcast, AdvancementRolled) and upcast.sheet == "current"
    assert SYS.rederive(ash, upcast, name="Ash").threshold == 8
    assert b'"schema_version":2' in encode_data(rolled[0])


# --- the Skill list adapted with the GM -----------------------------------------------------


def test_the_skill_list_is_adapted_or_expanded_with_the_gm() -> None:
    # "1.2.1": "With the GM you can adapt or expand the generic list of Skills provided"
    from ledger_terran_engine.events import SkillAdapted

    ash = apply(make(), SkillAdapted(character="ash", skill="Sailing"))
    ash = apply(ash, SkillAdapted(character="ash", skill="Scouting", replaces="exploration"))
    assert st.skill_list(ash, SYS.options) == (
        "Violence", "Social", "Survival", "Vocational", "Sailing", "Scouting")
    assert ash.skills == {"Violence": 2, "Scouting": 2}  # Exploration's 2 moved
    # Agility 2 + Scouting 2 = 4 Light Dice; a new Skill starts at 0: Agility 2 alone
    event, _ = roll(ash, "Scouting", [1, 2, 3, 4], attribute="Agility")
    assert (event.skill, event.skill_value, len(event.light)) == ("Scouting", 2, 4)
    event, _ = roll(ash, "sailing", [1, 5], attribute="Agility")
    assert (event.skill, event.skill_value) == ("Sailing", 0)
    with pytest.raises(RuleError, match="'Exploration' is not a Skill"):
        roll(ash, "Exploration", [1, 2], attribute="Agility")
    with pytest.raises(RuleError, match="already a Skill"):
        apply(ash, SkillAdapted(character="ash", skill="violence"))
    with pytest.raises(RuleError, match="already a Skill"):
        apply(ash, SkillAdapted(character="ash", skill="Strength"))
    with pytest.raises(RuleError, match="'Cooking' is not a Skill"):
        apply(ash, SkillAdapted(character="ash", skill="Baking", replaces="Cooking"))
    assert "Sailing" in SYS.skills_of(ash)
