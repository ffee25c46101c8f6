"""Spellwoven: every worked example of the rule text as a test, V1–V25.

Seed 004_663ae3e4ecc71fd1.txt; the expected numbers are the book's (or, for V20, the book's
"Skill level 10+" tables typed in as printed), never our code's output.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import msgspec
import pytest
from ledger_spellwoven import Spellwoven
from ledger_spellwoven.events import ContestRolled, EffortSpent, TestRolled
from ledger_spellwoven.odds import success_distribution
from ledger_spellwoven.rules.mechanics import (
    contest_outcome,
    count_successes,
    die_successes,
    difficulty_from_attribute,
    keep,
    outcome_of_test,
)

from ledger import RollRequest, RuleError
from ledger.dice.engine import PhysicalDice

JEN = {
    "kind": "pc",
    "attributes": {"Behest": 2, "Fortitude": 2, "Presence": 2, "Quickness": 3, "Wits": 2},
    "skills": {
        "Sprint": {"rank": 5, "attribute": "Quickness"},
        "Manoeuvre": {"rank": 6, "attribute": "Quickness"},
        "Climb": {"rank": 4, "attribute": "Quickness"},
    },
    "weaknesses": {"combat": "Runs rather than fights", "social": "Cannot resist a dare"},
}


def jen_state(system: Spellwoven | None = None):
    system = system or Spellwoven().configure({})
    return system, system.initial_state("jen", "Nimble Jen", system.create_sheet(JEN))


def roll(system, state, skill, faces, **params):
    dice = PhysicalDice([str(f) for f in faces])
    event = system.resolve(state, RollRequest("jen", "Nimble Jen", skill, params), dice)
    return event, system.appliers()[type(event)](state, event)


# --- V1–V6: "Overview: The Basic Mechanic", Skill Level 5 --------------------------------


@pytest.mark.parametrize(
    ("faces", "expected"),
    [
        ((1, 1, 2), 5),  # V1: 3 under or equal to 5 and two 1s
        ((3, 3, 5), 3),  # V2
        ((1, 3, 6), 3),  # V3: 2 under or equal to 5 and one 1
        ((2, 3, 7), 2),  # V4
        ((5, 7, 9), 1),  # V5
        ((6, 7, 7), 0),  # V6
    ],
)
def test_v1_to_v6_overview_examples_at_skill_5(faces, expected):
    assert count_successes(faces, 5) == expected


@pytest.mark.parametrize(  # fmt: skip
    ("faces", "expected"),
    [
        ((1, 1, 2), 5),
        ((3, 3, 5), 3),
        ((1, 3, 6), 3),
        ((2, 3, 7), 2),
        ((5, 7, 9), 1),
        ((6, 7, 7), 0),
    ],
)
def test_v1_to_v6_through_resolve_with_the_books_dice(faces, expected):
    system, state = jen_state()
    event, _ = roll(system, state, "Sprint", faces)  # Sprint 5 vs Quickness 3: S = 5
    assert isinstance(event, TestRolled)
    assert event.skill_level == 5
    assert event.dice == list(faces)
    assert event.successes == expected
    assert event.draws == [(10, f) for f in faces]
    assert event.source == "physical"


# --- V7: "Attributes and Effort" ----------------------------------------------------------


def test_v7_effort_adds_the_attribute_to_two_successes():
    system = Spellwoven().configure({})
    sheet = {**JEN, "skills": {"Sprint": {"rank": 5, "attribute": "Quickness"}}}
    state = system.initial_state("jen", "Nimble Jen", system.create_sheet(sheet))
    event, state = roll(system, state, "Sprint", (2, 3, 7), effort=True)  # 2 successes
    assert event.dice_successes == 2
    assert event.effort_bonus == 3  # "a relevant Attribute of three"
    assert event.successes == 5  # "add the three plus two, and obtain five successes"
    assert state.effort == state.effort_max - 1


# --- V8: "Example: Static Difficulty" -----------------------------------------------------


def test_v8_jen_misses_the_jump_and_effort_would_have_made_it():
    system, state = jen_state()
    event, after = roll(system, state, "Sprint", (6, 6, 10), difficulty=1)
    assert event.successes == 0
    assert event.difficulty == 1
    assert event.outcome == "fail"  # "she doesn't make the jump"
    assert after.effort == state.effort  # she declines to spend Effort
    # "Catherine could pass by spending Effort (this would add three successes)"
    spent = system.appliers()[EffortSpent](after, EffortSpent(character="jen"))
    assert spent.last_roll.successes == 3
    assert spent.last_roll.outcome == "pass"
    assert spent.effort == after.effort - 1


# --- V9–V11: "Example: Opposed Roll" ------------------------------------------------------


def test_v9_v10_v11_jen_against_the_housewife():
    system, state = jen_state()
    # V9: Manoeuvre 6 rolls 2, 7, 8 = one success; V10: Fighting 2 rolls 1, 2, 8 = three
    event, after = roll(system, state, "Manoeuvre", (2, 7, 8, 1, 2, 8), vs="housewife:2")
    assert isinstance(event, ContestRolled)
    assert event.skill_level == 6
    assert (event.dice, event.successes) == ([2, 7, 8], 1)
    assert (event.opponent, event.opponent_skill_level) == ("housewife", 2)
    assert (event.opponent_dice, event.opponent_successes) == ([1, 2, 8], 3)
    assert event.outcome == "lose"  # "the housewife blocks Jen's escape"
    # V11: "She spends 1 Effort and adds +3 from Quickness ... four ... beat ... three"
    spent = system.appliers()[EffortSpent](after, EffortSpent(character="jen"))
    assert spent.last_roll.successes == 4
    assert spent.last_roll.outcome == "win"


def test_v11_effort_declared_with_the_contest_roll():
    system, state = jen_state()
    event, _ = roll(system, state, "Manoeuvre", (2, 7, 8, 1, 2, 8), vs="housewife:2", effort=True)
    assert (event.successes, event.opponent_successes, event.outcome) == (4, 3, "win")


def test_v10_housewife_as_an_npc_sheet_with_fighting_2():
    system = Spellwoven().configure({})
    sheet = {
        "kind": "npc",
        "attributes": {"Behest": 1, "Fortitude": 2, "Presence": 2, "Quickness": 1, "Wits": 2},
        "skills": {"Fighting": {"rank": 2, "attribute": "Fortitude"}},
    }
    state = system.initial_state("housewife", "Irate housewife", system.create_sheet(sheet))
    dice = PhysicalDice(["1", "2", "8"])
    event = system.resolve(state, RollRequest("housewife", "Irate housewife", "Fighting", {}), dice)
    assert event.skill_level == 2
    assert event.successes == 3  # "1 = two successes + 2 = one success"


# --- V12–V14: difficulties ----------------------------------------------------------------


def test_v12_attribute_4_needs_three_successes():
    assert difficulty_from_attribute(4) == 3


def test_v13_attribute_1_is_an_automatic_hit_with_no_roll():
    assert difficulty_from_attribute(1) == 0
    system, state = jen_state()
    event, _ = roll(system, state, "Manoeuvre", (), target=1)
    assert event.dice == [] and event.draws == []
    assert (event.difficulty, event.outcome) == (0, "pass")


def test_v12_through_resolve_target_attribute_4():
    system, state = jen_state()
    event, _ = roll(system, state, "Manoeuvre", (1, 5, 9), target=4)  # 2 + 1 + 0 = 3
    assert (event.difficulty, event.successes, event.outcome) == (3, 3, "pass")


def test_v14_two_successes_pass_difficult_and_fail_very_difficult():
    assert outcome_of_test(2, 2) == "pass"
    assert outcome_of_test(2, 3) == "fail"


# --- V15–V20: "Skill level 10+" -----------------------------------------------------------


def test_v15_skill_12_one_two_ten():
    assert count_successes((1, 2, 10), 12) == 4


def test_v16_skill_12_four_five_nine():
    assert count_successes((4, 5, 9), 12) == 4


def test_v17_skill_17_three_tens_is_a_fumble():
    assert count_successes((10, 10, 10), 17) == 0


def test_v18_skill_18_three_ones_triple_each():
    assert count_successes((1, 1, 1), 18) == 9


def test_v19_skill_10_face_two_doubles_face_three_single():
    assert die_successes(2, 10) == 2
    assert die_successes(3, 10) == 1


def _faces_of(text: str) -> set[int]:
    if not text:
        return set()
    low, _, high = text.partition("-")
    return set(range(int(low), int(high or low) + 1))


# The book's tables as printed: Skill Rank → (Two Successes, One Success), then
# (Three Successes, Two Success) from 18.
BOOK_DOUBLES = {
    7: ("1", "2-7"), 8: ("1", "2-8"), 9: ("1", "2-9"), 10: ("1-2", "3-9"), 11: ("1-3", "4-9"),
    12: ("1-4", "5-9"), 13: ("1-5", "6-9"), 14: ("1-6", "7-9"), 15: ("1-7", "8-9"),
    16: ("1-8", "9"), 17: ("1-9", ""),
}  # fmt: skip
BOOK_TRIPLES = {18: ("1", "2-9"), 19: ("1-2", "3-9"), 20: ("1-3", "4-9")}


@pytest.mark.parametrize("rank", sorted(BOOK_DOUBLES))
def test_v20_double_success_table_rows_7_to_17(rank):
    two, one = (_faces_of(t) for t in BOOK_DOUBLES[rank])
    for face in range(1, 11):
        expected = 2 if face in two else 1 if face in one else 0
        assert die_successes(face, rank) == expected, (rank, face)


@pytest.mark.parametrize("rank", sorted(BOOK_TRIPLES))
def test_v20_triple_success_table_rows_18_to_20(rank):
    three, two = (_faces_of(t) for t in BOOK_TRIPLES[rank])
    for face in range(1, 11):
        expected = 3 if face in three else 2 if face in two else 0
        assert die_successes(face, rank) == expected, (rank, face)


@pytest.mark.parametrize("rank", range(1, 7))
def test_v20_base_rule_below_the_table(rank):
    for face in range(1, 11):
        expected = (face <= rank) + (face == 1)
        assert die_successes(face, rank) == expected


@pytest.mark.parametrize("rank", range(1, 31))
def test_a_ten_never_counts(rank):
    assert die_successes(10, rank) == 0


# --- V21–V23: "Example Contests of Skill" -------------------------------------------------

BOOK_CONTESTS = {
    "Two Moderately Skilled Characters": (5, 5, [
        (2, "win", 1), (3, "lose", 4), (3, "win", 0), (2, "draw", 2), (4, "win", 3),
        (2, "win", 0), (2, "lose", 4), (0, "lose", 1), (2, "lose", 3), (0, "lose", 2),
    ]),
    "More Skilled versus Less Skilled": (6, 4, [
        (4, "win", 3), (2, "draw", 2), (3, "win", 2), (0, "draw", 0), (2, "draw", 2),
        (1, "win", 0), (1, "win", 0), (1, "lose", 2), (0, "lose", 1), (2, "draw", 2),
    ]),
    "Very Skilled versus Unskilled": (7, 3, [
        (3, "win", 0), (4, "win", 0), (1, "lose", 2), (1, "win", 0), (5, "win", 1),
        (1, "win", 0), (3, "win", 2), (2, "draw", 2), (0, "draw", 0), (2, "win", 1),
    ]),
}  # fmt: skip
CONTEST_ROWS = [
    (table, skills, row)
    for table, (left, right, rows) in BOOK_CONTESTS.items()
    for skills, row in [((left, right), r) for r in rows]
]


def test_the_three_tables_have_thirty_rows():
    assert len(CONTEST_ROWS) == 30


@pytest.mark.parametrize(("table", "skills", "row"), CONTEST_ROWS)
def test_v21_to_v23_contest_rows(table, skills, row):
    mine, label, theirs = row
    assert contest_outcome(mine, theirs) == label
    mirrored = {"win": "lose", "lose": "win", "draw": "draw"}[label]
    assert contest_outcome(theirs, mine) == mirrored  # the right column's "lose / win"
    # every listed count can be rolled at its Skill Level
    left, right = skills
    assert success_distribution(left).get(mine, 0) > 0
    assert success_distribution(right).get(theirs, 0) > 0


# --- V24: "Advantage & Disadvantage" ------------------------------------------------------


def test_v24_advantage_keeps_one_three_nine():
    kept = keep((1, 9, 10, 3), 5, "advantage")
    assert sorted(kept) == [1, 3, 9]
    assert count_successes(kept, 5) == 3


def test_v24_disadvantage_keeps_the_three_highest():
    kept = keep((1, 9, 10, 3), 5, "disadvantage")
    assert sorted(kept) == [3, 9, 10]
    assert count_successes(kept, 5) == 1


def test_v24_through_resolve():
    system, state = jen_state()
    up, _ = roll(system, state, "Sprint", (1, 9, 10, 3), advantage=True)
    down, _ = roll(system, state, "Sprint", (1, 9, 10, 3), disadvantage=True)
    assert (up.mode, sorted(up.kept), up.successes) == ("advantage", [1, 3, 9], 3)
    assert (down.mode, sorted(down.kept), down.successes) == ("disadvantage", [3, 9, 10], 1)
    assert up.dice == down.dice == [1, 9, 10, 3]


# --- V25: "Troll Dice Code" ---------------------------------------------------------------


def troll_printed(faces, s):
    """The text's Troll program as printed: ``(count S> N) + (count 1= N)``.

    In Troll, ``x > C`` keeps the elements of the collection ``C`` that ``x`` is greater
    than (the value on the left of the comparison is the fixed one), so ``count S> N``
    counts dice strictly **below** ``S``; ``count 1= N`` counts the 1s. With ``S:=4`` this
    is the text's rule for Skill 3, not 4 (ruling S4).
    """
    return sum(1 for x in faces if s > x) + sum(1 for x in faces if x == 1)


def troll_corrected(faces, s):
    """The corrected program ``(count S>= N) + (count 1= N)``: dice equal to or under ``S``
    plus the 1s, the prose rule for Skill Levels 1..9 (ruling S4)."""
    return sum(1 for x in faces if s >= x) + sum(1 for x in faces if x == 1)


def test_v25_the_printed_troll_code_models_skill_3_not_4():
    rolls = list(itertools.product(range(1, 11), repeat=3))
    assert all(troll_printed(r, 4) == count_successes(r, 3) for r in rolls)
    differs = [r for r in rolls if troll_printed(r, 4) != count_successes(r, 4)]
    assert (4, 5, 6) in differs  # a 4 is "equal to or under" 4 but Troll's 4 > 4 is false
    assert len(differs) == 1000 - 9**3  # every roll with at least one 4
    assert all(troll_corrected(r, 4) == count_successes(r, 4) for r in rolls)


def test_v25_printed_code_distribution_is_the_skill_3_distribution():
    # exactly ("Basic Distributions"): S=3 → {0: 343/1000, ..., 6: 1/1000}
    counts = {k: 0 for k in range(7)}
    for r in itertools.product(range(1, 11), repeat=3):
        counts[troll_printed(r, 4)] += 1
    assert {k: Fraction(v, 1000) for k, v in counts.items()} == {
        0: Fraction(343, 1000), 1: Fraction(147, 500), 2: Fraction(231, 1000),
        3: Fraction(23, 250), 4: Fraction(33, 1000), 5: Fraction(3, 500), 6: Fraction(1, 1000),
    }  # fmt: skip


# --- the events survive the log's codec ----------------------------------------------------


def test_roll_events_round_trip_through_msgspec_without_floats():
    system, state = jen_state()
    event, _ = roll(system, state, "Manoeuvre", (2, 7, 8, 1, 2, 8), vs="housewife:2")
    data = msgspec.json.encode(event)

    def leaves(value):
        if isinstance(value, dict):
            for v in value.values():
                yield from leaves(v)
        elif isinstance(value, list):
            for v in value:
                yield from leaves(v)
        else:
            yield value

    assert not any(isinstance(v, float) for v in leaves(msgspec.json.decode(data)))
    assert msgspec.json.decode(data, type=ContestRolled) == event


def test_effort_with_none_left_is_refused():
    system, state = jen_state()
    state = msgspec.structs.replace(state, effort=0)
    with pytest.raises(RuleError, match="0 Effort left"):
        roll(system, state, "Sprint", (2, 3, 7), effort=True)
