"""decision-dice: the rule text's worked examples as test vectors, and the roll paths.

Seed 002_735c6d6cd834a641.txt ("Core Mechanics"); rulings in docs/rulings/decision-dice.md.
Dice faces are the book's (or, for vectors derived from its rules, chosen by hand), entered
through PhysicalDice.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from ledger_decision_dice import DecisionDice
from ledger_decision_dice.events import (
    ConditionAdded,
    ContestRolled,
    DecisionRolled,
    SupplyRolled,
)
from ledger_decision_dice.odds import p_success, sum_distribution
from ledger_decision_dice.rules import (
    counted_modifier,
    decision_dice_count,
    halved_sum,
    round_down,
    supply_step,
)

from ledger import DiceError, RollRequest, RuleError, at_least, mean
from ledger.dice.engine import PhysicalDice
from ledger.rules.results import result_problem

SHEET = {
    "level": 2,
    "stats": {"Agility": 1, "Might": 0, "Wits": 3},
    "equipment": [
        {"name": "Field Medkit", "supply": "d8", "note": "resupply in town"},
        {"name": "Rope"},
        {"name": "Lockpicks", "supply": "d4"},
    ],
    "trackers": {"Rifle ammunition": 60},
}


def make(options: dict[str, Any] | None = None, sheet: dict[str, Any] | None = None):
    system = DecisionDice().configure(options or {})
    state = system.initial_state("jen", "Nimble Jen", system.create_sheet(sheet or SHEET))
    return system, state


def roll(system, state, skill: str, faces: str, **params: Any):
    """Resolve with the book's faces; the event re-derives to itself (verify's check)."""
    request = RollRequest(character="jen", name="Nimble Jen", skill=skill, params=params)
    event = system.with_inputs(
        system.resolve(state, request, PhysicalDice(faces.split())), request
    )  # as the core records it: with its inputs
    assert result_problem(system, state, event, name="Nimble Jen") is None
    return event


def apply(system, state, event):
    return system.appliers()[type(event)](state, event)


def item(state, name: str):
    return next(i for i in state.equipment if i.name == name)


# --- E1, E2, D6: "The Rounding Rule" ---------------------------------------------------------


def test_e1_rounding_rule_3_and_1_make_2_not_1():
    assert halved_sum([3, 1]) == 2
    # rounding each half first (the wrong way) would give 1 + 0
    assert 3 // 2 + 1 // 2 == 1


def test_e2_rounding_rule_3_and_2_make_2():
    assert halved_sum([3, 2]) == 2


def test_d6_negative_end_result_floors_by_default_and_truncates_on_option():
    assert round_down(Fraction(-5, 2)) == -3
    assert round_down(Fraction(-5, 2), "trunc") == -2
    assert round_down(Fraction(5, 2), "trunc") == 2


def test_rounding_rejects_unknown_mode():
    with pytest.raises(RuleError, match="floor"):
        round_down(Fraction(1, 2), "nearest")  # type: ignore[arg-type]


def test_derived_values_follow_the_rounding_rule_on_the_sheet():
    derived = {"Stress": ["Wits", "Agility"], "Vitality": ["Wits", "Might"]}
    system, state = make({"derived": derived})
    view = system.sheet_view(state, as_gm=False)
    assert view["derived"] == {"Stress": 2, "Vitality": 1}  # 3/2+1/2 = 2; 3/2+0 = 1.5 → 1


# --- E3–E6, E16: "Target Numbers" hint and "Max Rolls" ---------------------------------------


def test_e3_two_d6_min_max_mean_and_twelve():
    dist = sum_distribution(2)
    assert (min(dist), max(dist)) == (2, 12)
    assert mean(dist) == 7
    assert dist[12] == Fraction(1, 36)
    assert Fraction(1, 36) < Fraction(3, 100)  # "with less than a 3% chance"


def test_e4_plus_one_twelve_or_higher_is_one_twelfth_not_almost_nine_percent():
    p = p_success(2, 12, 1)
    assert p == Fraction(1, 12)
    assert Fraction(8, 100) < p < Fraction(85, 1000)  # 8.33%: the text's "almost 9%" is loose


def test_e5_eight_or_higher_without_modifiers_is_five_twelfths():
    p = p_success(2, 8, 0)
    assert p == Fraction(5, 12)
    assert Fraction(41, 100) < p < Fraction(42, 100)  # text: 41%


def test_e6_eight_or_higher_with_plus_one_is_seven_twelfths():
    p = p_success(2, 8, 1)
    assert p == Fraction(7, 12)
    assert Fraction(58, 100) < p < Fraction(59, 100)  # text: 58%


def test_e16_strenuous_with_stat_zero_is_out_of_reach_on_2d6():
    assert p_success(2, 18, 0) == 0
    assert p_success(3, 18, 0) == Fraction(1, 216)  # the cap of 12 ignores advantage (X6)


# --- E7, D1, D2, D3: decision rolls ----------------------------------------------------------


def test_d1_e7_tie_with_target_succeeds():
    system, state = make()
    ev = roll(system, state, "Agility", "3 4", target="8")
    assert isinstance(ev, DecisionRolled)
    assert ev.dice == [3, 4]
    assert (ev.total, ev.target, ev.margin, ev.outcome) == (8, 8, 0, "success")
    assert ev.source == "physical"
    assert ev.draws == [(6, 3), (6, 4)]


def test_one_below_target_fails():
    system, state = make()
    ev = roll(system, state, "Agility", "3 3", target="8")
    assert (ev.total, ev.margin, ev.outcome) == (7, -1, "failure")


def test_d2_disadvantage_one_d6_can_fail_target_two():
    system, state = make()
    ev = roll(system, state, "Might", "1", target="2", disadvantage=True)
    assert ev.decision_dice == 1
    assert ev.dice == [1]
    assert (ev.total, ev.outcome) == (1, "failure")


def test_d3_advantage_three_sixes_reach_strenuous():
    system, state = make()
    ev = roll(system, state, "Might", "6 6 6", target="strenuous", advantage=True)
    assert ev.decision_dice == 3
    assert (ev.total, ev.target, ev.outcome) == (18, 18, "success")
    assert ev.difficulty == "Strenuous Task"


# --- E8, E9: "Modifiers" ---------------------------------------------------------------------


def test_e8_negative_bonus_counts_zero():
    assert counted_modifier("bonus", -2) == 0
    system, state = make()
    ev = roll(system, state, "Might", "4 4", target="8", bonus=(-2,))
    assert ev.total == 8
    line = ev.modifiers[1]
    assert (line.kind, line.stated, line.counted) == ("bonus", -2, 0)


def test_e9_positive_penalty_counts_zero():
    assert counted_modifier("penalty", 1) == 0
    system, state = make()
    ev = roll(system, state, "Might", "4 4", target="8", penalty=(1, -2))
    assert [(m.stated, m.counted) for m in ev.modifiers[1:]] == [(1, 0), (-2, -2)]
    assert (ev.modifier_total, ev.total, ev.outcome) == (-2, 6, "failure")


def test_plain_modifiers_count_either_sign():
    assert counted_modifier("modifier", -3) == -3
    system, state = make()
    ev = roll(system, state, "Wits", "2 2", target="8", modifier=(2, -1), bonus=(1,))
    assert ev.modifier_total == 3 + 1 + 2 - 1
    assert ev.total == 9


# --- E10, E11: "Advantage and Disadvantage" --------------------------------------------------


def test_e10_advantage_and_disadvantage_cancel_to_2d6():
    assert decision_dice_count(True, True) == 2
    system, state = make()
    ev = roll(system, state, "Might", "5 5", target="10", advantage=True, disadvantage=True)
    assert ev.decision_dice == 2 and ev.advantage and ev.disadvantage
    assert ev.outcome == "success"


def test_e11_two_advantages_are_still_3d6():
    assert decision_dice_count(2, 0) == 3
    system, state = make()
    state = apply(
        system,
        state,
        ConditionAdded(character="jen", condition="Higher ground", kind="advantage", rolls=1),
    )
    ev = roll(system, state, "Might", "1 2 3", target="6", advantage=True)
    assert ev.decision_dice == 3 and ev.dice == [1, 2, 3]
    with pytest.raises(DiceError):  # a fourth die is never drawn
        roll(system, state, "Might", "1 2 3 4", target="6", advantage=True)


def test_physical_faces_must_be_d6_faces():
    system, state = make()
    with pytest.raises(DiceError, match="d6"):
        roll(system, state, "Might", "7 1", target="6")
    with pytest.raises(DiceError, match="too few"):
        roll(system, state, "Might", "3", target="6")


# --- E12–E15, D5: "Supply Rolls" -------------------------------------------------------------


@pytest.mark.parametrize(
    ("die", "face", "after"),
    [
        ("d8", 3, "d6"),
        ("d8", 4, "d8"),
        ("d4", 3, "empty"),
        ("d12", 12, "d12"),
        ("d12", 1, "d10"),
        ("d10", 3, "d8"),
        ("d6", 2, "d4"),
        ("d4", 4, "d4"),
    ],
)
def test_e12_e13_e14_d5_supply_steps(die, face, after):
    assert supply_step(die, face) == after


def test_e12_supply_roll_on_its_own_steps_d8_to_d6():
    system, state = make()
    ev = roll(system, state, "field medkit", "3")
    assert isinstance(ev, SupplyRolled)
    assert (ev.die, ev.dice, ev.after, ev.outcome) == ("d8", [3], "d6", "failure")
    assert ev.draws == [(8, 3)]
    assert item(apply(system, state, ev), "Field Medkit").supply == "d6"


def test_e13_supply_face_four_keeps_the_die():
    system, state = make()
    ev = roll(system, state, "Field Medkit", "4")
    assert (ev.after, ev.outcome) == ("d8", "success")
    assert item(apply(system, state, ev), "Field Medkit").supply == "d8"


def test_e14_d4_showing_three_becomes_empty():
    system, state = make()
    ev = roll(system, state, "Lockpicks", "3")
    assert item(apply(system, state, ev), "Lockpicks").supply == "empty"


def test_e15_empty_item_refused_where_a_supply_roll_is_required_but_usable_otherwise():
    system, state = make()
    state = apply(system, state, roll(system, state, "Lockpicks", "1"))
    with pytest.raises(RuleError, match="Empty"):
        roll(system, state, "Lockpicks", "2")
    with pytest.raises(RuleError, match="Empty"):
        roll(system, state, "Agility", "4 4", target="8", supply="Lockpicks")
    # the same action without a supply roll is allowed
    ev = roll(system, state, "Agility", "4 4", target="8")
    assert ev.outcome == "success" and ev.supply is None


def test_supply_face_must_fit_the_die():
    system, state = make()
    with pytest.raises(DiceError, match="d4"):
        roll(system, state, "Lockpicks", "5")


def test_supply_roll_after_the_action_steps_down_but_the_action_stands():
    system, state = make()
    ev = roll(system, state, "Wits", "3 2 4", target="challenging", supply="lockpicks")
    assert ev.dice == [3, 2] and ev.draws == [(6, 3), (6, 2), (4, 4)]
    assert ev.supply is not None
    assert (ev.supply.item, ev.supply.die, ev.supply.face, ev.supply.after) == (
        "Lockpicks",
        "d4",
        4,
        "d4",
    )
    assert (ev.total, ev.outcome) == (8, "failure")
    ev = roll(system, state, "Wits", "6 3 1", target="12", supply="lockpicks")
    assert ev.outcome == "success"  # X11: the action stands
    assert ev.supply is not None and ev.supply.after == "empty"
    assert item(apply(system, state, ev), "Lockpicks").supply == "empty"


def test_item_without_a_supply_die_is_not_rolled():
    system, state = make()
    with pytest.raises(RuleError, match="no supply die"):
        roll(system, state, "Agility", "4 4", target="8", supply="Rope")


def test_supply_roll_refuses_decision_parameters():
    system, state = make()
    with pytest.raises(RuleError, match="a supply roll takes no Target number"):
        roll(system, state, "Field Medkit", "4", target="8")


# --- D4: contested rolls ---------------------------------------------------------------------


def test_d4_contest_tie_rerolls_until_a_winner_every_round_recorded():
    system, state = make()
    ev = roll(
        system, state, "Agility", "2 5 4 3 6 1 1 1", opponent="Goblin", opponent_modifier=(1,)
    )
    assert isinstance(ev, ContestRolled)
    assert [(r.dice, r.total, r.opponent_dice, r.opponent_total) for r in ev.rounds] == [
        ([2, 5], 8, [4, 3], 8),
        ([6, 1], 8, [1, 1], 3),
    ]
    assert (ev.winner, ev.outcome, ev.dice, ev.total, ev.target) == ("jen", "success", [6, 1], 8, 3)
    assert len(ev.draws) == 8


def test_contest_loss_and_opponent_advantage():
    system, state = make()
    ev = roll(system, state, "Might", "3 3 2 2 3", opponent="Ogre", opponent_advantage=True)
    assert ev.opponent_decision_dice == 3
    assert (ev.total, ev.target, ev.winner, ev.outcome) == (6, 7, "Ogre", "failure")
    assert len(ev.rounds) == 1


def test_contest_refuses_a_target():
    system, state = make()
    with pytest.raises(RuleError, match="contested roll has no Target number"):
        roll(system, state, "Might", "3 3 2 2", opponent="Ogre", target="8")
    with pytest.raises(RuleError, match="need an Opponent"):
        roll(system, state, "Might", "3 3", target="8", opponent_modifier=(2,))


def test_contest_stops_after_max_rounds():
    system, state = make({"max_contest_rounds": 2})
    with pytest.raises(RuleError, match="tied after 2 rounds"):
        roll(system, state, "Might", "1 1 1 1 2 2 2 2", opponent="Twin")


# --- "Impossible" tasks and target numbers -----------------------------------------------------


def test_impossible_base_target_needs_the_gm_to_allow_it():
    system, state = make()
    with pytest.raises(RuleError, match="Impossible"):
        roll(system, state, "Might", "6 6", target="impossible")
    ev = roll(system, state, "Might", "6 6", target="20", impossible=True)
    assert ev.impossible_task and ev.outcome == "failure"


def test_target_reaching_twenty_through_adjustments_is_not_impossible():
    system, state = make()
    ev = roll(system, state, "Might", "6 6 6", target="strenuous", adjust=(4,), advantage=True)
    assert (ev.base_target, ev.target, ev.impossible_task) == (18, 22, False)
    assert ev.outcome == "failure"


def test_refuse_impossible_option_only_flags():
    system, state = make({"refuse_impossible": False})
    ev = roll(system, state, "Might", "6 6", target="22")
    assert ev.impossible_task and ev.difficulty.startswith("↑")


def test_bad_target_names_the_rungs():
    system, state = make()
    with pytest.raises(RuleError, match="challenging"):
        roll(system, state, "Might", "6 6", target="hard")
    with pytest.raises(RuleError, match="needs a Target number"):
        roll(system, state, "Might", "6 6")
    with pytest.raises(RuleError, match="1 or more"):
        roll(system, state, "Might", "6 6", target="0")


def test_unknown_stat_suggests_the_closest():
    system, state = make()
    with pytest.raises(RuleError, match="Agility"):
        roll(system, state, "agilty", "3 3", target="8")
    with pytest.raises(RuleError, match="name the stat"):
        system.resolve(
            state, RollRequest(character="jen", name="Nimble Jen", skill=None), PhysicalDice([])
        )


# --- the odds of "Target Numbers", exactly (hand values) -----------------------------------------


ONE_D6 = {
    2: Fraction(5, 6),
    3: Fraction(2, 3),
    4: Fraction(1, 2),
    5: Fraction(1, 3),
    6: Fraction(1, 6),
    7: Fraction(0),
}
TWO_D6 = {
    3: Fraction(35, 36),
    4: Fraction(11, 12),
    5: Fraction(5, 6),
    6: Fraction(13, 18),
    7: Fraction(7, 12),
    8: Fraction(5, 12),
    9: Fraction(5, 18),
    10: Fraction(1, 6),
    11: Fraction(1, 12),
    12: Fraction(1, 36),
    13: Fraction(0),
}
THREE_D6 = {
    4: Fraction(215, 216),
    5: Fraction(53, 54),
    6: Fraction(103, 108),
    7: Fraction(49, 54),
    8: Fraction(181, 216),
    9: Fraction(20, 27),
    10: Fraction(5, 8),
    11: Fraction(1, 2),
    12: Fraction(3, 8),
    13: Fraction(7, 27),
    14: Fraction(35, 216),
    15: Fraction(5, 54),
    16: Fraction(5, 108),
    17: Fraction(1, 54),
    18: Fraction(1, 216),
}


@pytest.mark.parametrize(("count", "table"), [(1, ONE_D6), (2, TWO_D6), (3, THREE_D6)])
def test_at_least_tables_match_the_digest(count, table):
    for need, p in table.items():
        assert at_least(sum_distribution(count), need) == p, need


def test_means_per_dice_count():
    assert [mean(sum_distribution(n)) for n in (1, 2, 3)] == [Fraction(7, 2), 7, Fraction(21, 2)]


def test_strenuous_with_modifiers_matches_the_digest():
    assert [p_success(2, 18, m) for m in (5, 6, 7, 8)] == [
        0,
        Fraction(1, 36),
        Fraction(1, 12),
        Fraction(1, 6),
    ]
    assert [p_success(3, 18, m) for m in (0, 3, 4)] == [
        Fraction(1, 216),
        Fraction(5, 54),
        Fraction(35, 216),
    ]
