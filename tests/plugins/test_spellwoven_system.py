"""Spellwoven's rule system: sheets, state, appliers, resolve's refusals, views.

Seed 004_663ae3e4ecc71fd1.txt; rulings S1–S13 of docs/rulings/spellwoven.md.
"""

from __future__ import annotations

import copy

import msgspec
import pytest
from ledger_spellwoven import Spellwoven
from ledger_spellwoven.events import (
    ConditionAdded,
    ConditionRemoved,
    ContestRolled,
    EffortLost,
    EffortSpent,
    SkillChanged,
    Slept,
    TestRolled,
    WeaknessExploited,
)
from ledger_spellwoven.rules import parse_vs
from ledger_spellwoven.rules.mechanics import notation, skill_level, thresholds

from ledger import DiceError, RollRequest, RuleError
from ledger.dice.engine import PhysicalDice
from ledger.events import SceneEnded, SessionEnded

SHEET = {
    "attributes": {"Behest": 2, "Fortitude": 3, "Presence": 2, "Quickness": 3, "Wits": 4},
    "skills": {
        "Sprint": {"rank": 5, "attribute": "Quickness"},
        "Fighting": {"rank": 4, "attribute": "Fortitude"},
        "Lore": {"rank": 4, "attribute": "wits"},
    },
    "specialisations": {"Brawling": {"rank": 6, "skill": "Fighting"}},
    "weaknesses": {"combat": "Hates heights", "social": "Boastful"},
}


def make(options=None, sheet=None):
    system = Spellwoven().configure(options or {})
    state = system.initial_state("jen", "Nimble Jen", system.create_sheet(sheet or SHEET))
    return system, state


def resolve(system, state, skill, faces, **params):
    dice = PhysicalDice([str(f) for f in faces])
    return system.resolve(state, RollRequest("jen", "Nimble Jen", skill, params), dice)


def apply(system, state, event):
    return system.appliers()[type(event)](state, event)


# --- sheets -------------------------------------------------------------------------------


def test_sheet_is_normalised_and_effort_pool_is_fortitude():
    system, state = make()
    assert state.skills["Lore"].attribute == "Wits"  # canonical Attribute name
    assert (state.effort, state.effort_max) == (3, 3)  # ruling S6: Fortitude 3
    assert state.specialisations["Brawling"].skill == "Fighting"


def test_effort_pool_option_and_sheet_override():
    _, state = make({"effort_max": 5})
    assert state.effort_max == 5
    _, state = make({"effort_max": 5}, {**SHEET, "effort_max": 1})
    assert state.effort_max == 1


def test_every_broken_creation_rule_is_named_at_once():
    bad = {
        "attributes": {"Behest": 5, "Fortitude": 0, "Presence": 2, "Quickness": 3},
        "skills": {
            "Sprint": {"rank": 10, "attribute": "Quickness"},
            "Swim": {"rank": 3, "attribute": "Fortitude"},
            "Climb": {"rank": 5, "attribute": "Agility"},
            "Ride": 5,
        },
        "weaknesses": {"combat": "Slow"},
        "colour": "red",
    }
    with pytest.raises(RuleError) as info:
        Spellwoven().configure({}).create_sheet(bad)
    text = str(info.value)
    for piece in (
        "attributes.Behest: expected an integer from 1 to 4, got 5",
        "attributes.Fortitude: expected an integer from 1 to 4, got 0",
        "attributes: missing Wits",
        # "Skills cannot exceed 9"
        "skills.Sprint.rank: a PC's trained rank must be 4 to 9, not 10",
        "skills.Swim.rank: a PC's trained rank must be 4 to 9, not 3",  # trained start at 4
        "skills.Climb.attribute: 'Agility' is not an Attribute",
        "skills.Ride: expected a table of rank, attribute, got 5",
        "weaknesses.social: missing",  # a PC has one Social Weakness
        "colour: not a field of the sheet",
    ):
        assert piece in text, piece
    assert len(info.value.problems) >= 9


def test_npc_ranks_are_unrestricted_and_weaknesses_optional():
    # ruling S3: the housewife's Fighting 2
    sheet = {
        "kind": "npc",
        "attributes": SHEET["attributes"],
        "skills": {"Fighting": {"rank": 2, "attribute": "Fortitude"}},
    }
    system = Spellwoven().configure({})
    assert system.create_sheet(sheet)["skills"]["Fighting"]["rank"] == 2


def test_creation_cap_is_an_option():
    system = Spellwoven().configure({"pc_skill_max": 12})
    sheet = copy.deepcopy(SHEET)
    sheet["skills"]["Sprint"]["rank"] = 12
    assert system.create_sheet(sheet)["skills"]["Sprint"]["rank"] == 12


def test_unknown_option_is_refused():
    with pytest.raises(RuleError, match="bad option"):
        Spellwoven().configure({"effort_pool": 3})


# --- Skill Level and notation ---------------------------------------------------------------


def test_skill_level_is_the_higher_of_skill_and_attribute():
    assert skill_level(4, 3) == 4
    assert skill_level(2, 3) == 3  # "Skill Level or relevant Attribute Level, whichever is higher"
    assert skill_level(None, 2) == 3  # ruling S2 default: max(3, Attribute)
    assert skill_level(None, 4) == 4
    assert skill_level(None, 2, "fixed3") == 3
    assert skill_level(None, 2, "attribute") == 2


def test_sheet_notation_skill_12_reads_4_over_9():
    assert notation("Skill", 12) == "Skill: 12 (4/9)"  # the text's own example
    assert notation("Sprint", 5) == "Sprint: 5"
    assert notation("Skill", 17) == "Skill: 17 (9/9)"
    assert notation("Skill", 19) == "Skill: 19 (2/9/9)"  # our ruling SW1


def test_thresholds_refuse_a_level_below_one():
    assert thresholds(1) == [1, 1]
    with pytest.raises(RuleError, match="1 or more"):
        thresholds(0)


# --- resolve --------------------------------------------------------------------------------


def test_specialisation_uses_its_own_rank_and_the_parents_attribute():
    system, state = make()
    event = resolve(system, state, "brawling", (6, 7, 8))
    assert (event.skill, event.skill_level, event.attribute) == ("Brawling", 6, "Fortitude")
    assert event.successes == 1


def test_untrained_skill_needs_an_attribute_and_rolls_at_max_3_attribute():
    system, state = make()
    with pytest.raises(RuleError, match="no skill 'Swim'.*name the relevant Attribute"):
        resolve(system, state, "Swim", (1, 2, 3))
    event = resolve(system, state, "Swim", (3, 4, 9), attribute="Fortitude")
    assert (event.rank, event.skill_level, event.successes) == (None, 3, 1)
    wits = resolve(system, state, "Wits", (4, 5, 9))  # an Attribute tested on its own
    assert (wits.skill_level, wits.successes) == (4, 1)


def test_gm_named_attribute_overrides_the_linked_one():
    system, state = make()
    # "test your Climb and Quickness"; here Lore with Quickness: S = max(4, 3), Effort +3
    event = resolve(system, state, "Lore", (1, 9, 9), attribute="Quickness", effort=True)
    assert (event.attribute, event.effort_bonus, event.successes) == ("Quickness", 3, 5)


def test_typo_in_skill_suggests_the_closest():
    system, state = make()
    with pytest.raises(RuleError, match="did you mean Sprint"):
        resolve(system, state, "Sprnt", (1, 2, 3))


def test_difficulty_out_of_range_and_conflicts_are_refused():
    system, state = make()
    with pytest.raises(RuleError, match="Daunting"):
        resolve(system, state, "Sprint", (1, 2, 3), difficulty=5)
    with pytest.raises(RuleError, match="not both"):
        resolve(system, state, "Sprint", (1, 2, 3), difficulty=1, target=2)
    with pytest.raises(RuleError, match="1 to 4"):
        resolve(system, state, "Sprint", (1, 2, 3), target=0)
    with pytest.raises(RuleError, match="no difficulty"):
        resolve(system, state, "Sprint", (1, 2, 3, 4, 5, 6), difficulty=1, vs="2")
    with pytest.raises(RuleError, match="neither a number nor a level: 1 Normal"):
        resolve(system, state, "Sprint", (1, 2, 3), difficulty="hard")


def test_default_difficulty_is_normal_and_configurable():
    system, state = make()
    assert resolve(system, state, "Sprint", (5, 9, 9)).difficulty == 1
    system, state = make({"default_difficulty": 2})
    event = resolve(system, state, "Sprint", (5, 9, 9))
    assert (event.difficulty, event.outcome) == (2, "fail")


def test_physical_dice_must_fit_a_d10_and_the_count():
    system, state = make()
    with pytest.raises(DiceError, match="cannot show 11"):
        resolve(system, state, "Sprint", (1, 2, 11))
    with pytest.raises(DiceError, match="too few"):
        resolve(system, state, "Sprint", (1, 2), advantage=True)
    with pytest.raises(DiceError, match="remove the extra"):
        resolve(system, state, "Sprint", (1, 2, 3, 4))
    with pytest.raises(DiceError, match="remove the extra"):
        resolve(system, state, "Sprint", (1,), target=1)  # automatic: no dice at all


def test_weakness_means_advantage_and_cancels_with_disadvantage():
    system, state = make()
    event = resolve(system, state, "Sprint", (10, 1, 2, 3), weakness=True)
    assert (event.mode, event.weakness, event.kept, event.successes) == (
        "advantage",
        True,
        [1, 2, 3],
        4,
    )
    both = resolve(system, state, "Sprint", (10, 1, 2), weakness=True, disadvantage=True)
    assert (both.mode, both.kept, both.successes) == ("normal", None, 3)


def test_pool_by_gm_fiat():
    system, state = make()
    event = resolve(system, state, "Sprint", (1, 2, 3, 4), pool=4)
    assert event.successes == 5
    with pytest.raises(RuleError, match="1 to 10"):
        resolve(system, state, "Sprint", (), pool=0)


def test_contest_opponent_at_advantage_draws_after_the_character():
    system, state = make()
    event = resolve(system, state, "Sprint", (5, 6, 7, 10, 4, 4, 9), vs="Guard:4:weakness")
    assert isinstance(event, ContestRolled)
    assert (event.dice, event.successes) == ([5, 6, 7], 1)
    assert (event.opponent, event.opponent_mode) == ("Guard", "advantage")
    assert (event.opponent_kept, event.opponent_successes) == ([4, 4, 9], 2)
    assert event.outcome == "lose"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("2", ("", 2, "normal")), ("housewife:2", ("housewife", 2, "normal")),
     ("Irate Housewife : 2 : disadvantage", ("Irate Housewife", 2, "disadvantage")),
     (3, ("", 3, "normal"))],
)  # fmt: skip
def test_parse_vs(text, expected):
    opponent = parse_vs(text)
    assert (opponent.name, opponent.level, opponent.mode) == expected


@pytest.mark.parametrize("text", ["", "housewife", "a:b:2", "x:0", "1:2"])
def test_parse_vs_refuses(text):
    with pytest.raises(RuleError, match="write the opponent as") as refused:
        parse_vs(text)
    assert refused.value.param == "vs"  # the CLI words it as --vs, the form by its field


def test_effort_on_automatic_hit_is_refused():
    system, state = make()
    with pytest.raises(RuleError, match="automatic hit"):
        resolve(system, state, "Sprint", (), target=1, effort=True)


# --- appliers -------------------------------------------------------------------------------


def test_effort_spent_twice_on_one_roll_is_refused_by_default():
    system, state = make()
    event = resolve(system, state, "Sprint", (9, 9, 9), effort=True)
    state = apply(system, state, event)
    with pytest.raises(RuleError, match="at most 1 Effort"):
        apply(system, state, EffortSpent(character="jen"))
    system2, state2 = make({"max_effort_per_roll": 2})
    state2 = apply(system2, state2, resolve(system2, state2, "Sprint", (9, 9, 9), effort=True))
    state2 = apply(system2, state2, EffortSpent(character="jen", attribute="wits"))
    assert state2.last_roll.successes == 3 + 4  # Quickness 3, then Wits 4
    assert state2.effort == 1


def test_spending_more_effort_than_the_pool_is_refused():
    system, state = make({"max_effort_per_roll": 5})
    state = msgspec.structs.replace(state, effort=1)
    state = apply(system, state, resolve(system, state, "Sprint", (9, 9, 9), effort=True))
    assert state.effort == 0
    with pytest.raises(RuleError, match="0 Effort left of 3"):
        apply(system, state, EffortSpent(character="jen"))


def test_effort_needs_a_roll_in_the_scene():
    system, state = make()
    with pytest.raises(RuleError, match="no roll"):
        apply(system, state, EffortSpent(character="jen"))
    state = apply(system, state, resolve(system, state, "Sprint", (9, 9, 9)))
    for end in (SceneEnded(), SessionEnded(number=1, seed_reveal="00")):
        cleared = apply(system, state, end)
        assert cleared.last_roll is None
        with pytest.raises(RuleError, match="no roll"):
            apply(system, cleared, EffortSpent(character="jen"))


def test_effort_lost_and_a_nights_sleep():
    system, state = make()
    state = apply(system, state, EffortLost(character="jen", amount=2, reason="the climb"))
    assert state.effort == 1
    with pytest.raises(RuleError, match="has 1 Effort left and cannot lose 5"):
        apply(system, state, EffortLost(character="jen", amount=5))  # ruling SW9: no clamp
    state = apply(system, state, EffortLost(character="jen", amount=1))
    assert state.effort == 0
    with pytest.raises(RuleError, match="1 or more"):
        apply(system, state, EffortLost(character="jen", amount=0))
    assert apply(system, state, Slept(character="jen")).effort == 3


def test_skill_changed_raises_a_skill_past_9_and_adds_new_skills():
    system, state = make()
    state = apply(system, state, SkillChanged(character="jen", skill="sprint", rank=12))
    assert state.skills["Sprint"].rank == 12
    event = resolve(system, state, "Sprint", (4, 5, 10))
    assert event.successes == 3  # 4 doubles at 12, 5 single, 10 never
    state = apply(
        system, state, SkillChanged(character="jen", skill="Swim", rank=4, attribute="Fortitude")
    )
    assert state.skills["Swim"].attribute == "Fortitude"
    with pytest.raises(RuleError, match="give its Attribute"):
        apply(system, state, SkillChanged(character="jen", skill="Ride", rank=4))
    capped, cstate = make({"skill_cap_in_play": 9})
    with pytest.raises(RuleError, match="caps skills at 9"):
        apply(capped, cstate, SkillChanged(character="jen", skill="Sprint", rank=10))


def test_conditions_come_and_go():
    system, state = make()
    state = apply(system, state, ConditionAdded(character="jen", condition="Twisted arm"))
    with pytest.raises(RuleError, match="already"):
        apply(system, state, ConditionAdded(character="jen", condition="twisted arm"))
    state = apply(system, state, ConditionRemoved(character="jen", condition="twisted arm"))
    assert state.conditions == []
    with pytest.raises(RuleError, match="no condition"):
        apply(system, state, ConditionRemoved(character="jen", condition="Twisted arm"))


def test_weakness_exploited_needs_that_weakness():
    system, state = make()
    assert apply(system, state, WeaknessExploited(character="jen", weakness="social")) == state
    npc_sheet = {"kind": "npc", "attributes": SHEET["attributes"]}
    npc_system, npc = make(sheet=npc_sheet)
    with pytest.raises(RuleError, match="no combat Weakness"):
        apply(npc_system, npc, WeaknessExploited(character="jen", weakness="combat"))


def test_a_hand_recorded_roll_that_does_not_add_up_is_refused():
    system, state = make()
    good = resolve(system, state, "Sprint", (1, 9, 10, 3), advantage=True)
    apply(system, state, good)
    for change in (
        {"successes": 4},
        {"dice_successes": 2, "successes": 2},
        {"outcome": "fail"},
        {"kept": [1, 9, 7]},
        {"kept": None},
    ):
        with pytest.raises(RuleError):
            apply(system, state, msgspec.structs.replace(good, **change))
    # at advantage the three are "of your choice": keeping 9, 10, 3 (1 success) is legal,
    # if odd, and is judged on what was kept
    odd = msgspec.structs.replace(good, kept=[9, 10, 3], dice_successes=1, successes=1)
    assert apply(system, state, odd).last_roll.outcome == "pass"


# --- views ----------------------------------------------------------------------------------


def test_describe_lines():
    system, state = make()
    test = resolve(system, state, "Sprint", (6, 6, 10), difficulty=1)
    assert (
        system.describe(test) == "jen — Sprint 5, dice [6 6 10] = 0 successes vs Normal (1): fail"
    )
    contest = resolve(
        system, state, "Sprint", (1, 9, 10, 3, 2, 7, 8), vs="housewife:2", advantage=True
    )
    assert system.describe(contest) == (
        "jen — Sprint 5 at advantage, dice [1 9 10 3] keep [1 9 3] = 3 successes vs housewife "
        "(2), dice [2 7 8] = 1 success: win"
    )
    auto = resolve(system, state, "Sprint", (), target=1)
    assert "automatic hit" in system.describe(auto)
    assert system.describe(Slept(character="jen")) == "jen sleeps the night: Effort refreshed"
    assert system.describe(SkillChanged(character="jen", skill="Sprint", rank=12)) == (
        "jen: Sprint: 12 (4/9)"
    )
    assert system.describe(SceneEnded()) is None


def test_sheet_view_shows_boxes_evasion_and_notation():
    system, state = make()
    state = apply(system, state, SkillChanged(character="jen", skill="Sprint", rank=12))
    view = system.sheet_view(state, as_gm=False)
    assert view["attributes"]["Quickness"] == {"value": 3, "boxes": "■■■□", "difficulty_to_hit": 2}
    assert view["evasion"] == 2  # ruling S9: Quickness − 1
    assert view["skills"]["Sprint"]["notation"] == "Sprint: 12 (4/9)"
    assert view["effort"] == view["effort_max"] == 3
    assert msgspec.json.decode(msgspec.json.encode(view)) == view


def test_advance_is_a_no_op():
    system, state = make()
    assert system.advance({"jen": state}, 1, [], lambda seed: PhysicalDice([]), {}) == []


def test_skills_of_lists_skills_specialisations_and_attributes():
    system, state = make()
    assert {"Sprint", "Brawling", "Quickness"} <= set(system.skills_of(state))


def test_test_rolled_is_a_roll_event_with_every_issue_field():
    system, state = make()
    event = resolve(system, state, "Sprint", (1, 9, 10, 3), advantage=True, effort=True)
    assert isinstance(event, TestRolled)
    data = msgspec.to_builtins(event)
    for field in ("dice", "kept", "successes", "difficulty", "outcome", "effort_spent"):
        assert field in data
    assert (data["kept"], data["effort_spent"], data["successes"]) == ([1, 9, 3], 1, 6)
