"""decision-dice: properties over many dice faces and modifiers (hypothesis)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st
from ledger_decision_dice import DecisionDice
from ledger_decision_dice.odds import p_success, sum_distribution
from ledger_decision_dice.rules import SUPPLY_ORDER, halved_sum, supply_step

from ledger import RollRequest
from ledger.dice.engine import PhysicalDice

SYSTEM = DecisionDice().configure({})
STATE = SYSTEM.initial_state("jen", "Nimble Jen", SYSTEM.create_sheet({"stats": {"Wits": 3}}))

faces = st.lists(st.integers(1, 6), min_size=3, max_size=3)
small = st.lists(st.integers(-5, 5), max_size=3)


@given(faces, st.booleans(), st.booleans(), small, small, small, st.integers(1, 19))
def test_decision_roll_arithmetic(dice, adv, dis, bonuses, penalties, modifiers, target):
    count = 3 if adv and not dis else 1 if dis and not adv else 2
    params = {"target": str(target), "advantage": adv, "disadvantage": dis,
              "bonus": tuple(bonuses), "penalty": tuple(penalties),
              "modifier": tuple(modifiers)}
    ev = SYSTEM.resolve(STATE, RollRequest(character="jen", name="Nimble Jen", skill="Wits",
                                           params=params),
                        PhysicalDice([str(f) for f in dice[:count]]))
    expected = (sum(dice[:count]) + 3 + sum(max(0, b) for b in bonuses)
                + sum(min(0, p) for p in penalties) + sum(modifiers))
    assert ev.dice == dice[:count]
    assert ev.total == expected
    assert ev.outcome == ("success" if expected >= target else "failure")
    assert ev.margin == expected - target


@given(st.integers(1, 3), st.integers(-10, 25), st.integers(-5, 5))
def test_success_odds_count_the_outcomes(count, target, mod):
    dist = sum_distribution(count)
    assert sum(dist.values()) == 1
    ways = sum(1 for total in _all_totals(count) if total + mod >= target)
    assert p_success(count, target, mod) == Fraction(ways, 6**count)


def _all_totals(count):
    totals = [0]
    for _ in range(count):
        totals = [t + f for t in totals for f in range(1, 7)]
    return totals


@given(st.sampled_from(SUPPLY_ORDER[:-1]), st.integers(1, 12))
def test_supply_die_never_grows_and_steps_one_size(die, face):
    sides = int(die[1:])
    face = min(face, sides)
    after = supply_step(die, face)
    step = SUPPLY_ORDER.index(after) - SUPPLY_ORDER.index(die)
    assert step == (1 if face <= 3 else 0)


@given(st.integers(-20, 20), st.integers(-20, 20))
def test_halved_sum_is_floor_of_the_exact_half_sum(a, b):
    assert halved_sum([a, b]) == (a + b) // 2
