"""Spellwoven properties over every roll (seed 004_663ae3e4ecc71fd1.txt), by hypothesis."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st
from ledger_spellwoven.rules.mechanics import count_successes, die_successes, keep, thresholds

faces = st.integers(min_value=1, max_value=10)
levels = st.integers(min_value=1, max_value=30)


@given(st.lists(faces, min_size=4, max_size=4), levels)
def test_advantage_keeps_the_best_three_and_disadvantage_the_three_highest(roll, level):
    best = max(count_successes(c, level) for c in itertools.combinations(roll, 3))
    assert count_successes(keep(roll, level, "advantage"), level) == best
    highest = sorted(roll)[1:]
    assert sorted(keep(roll, level, "disadvantage")) == highest
    plain = count_successes(roll[:3], level)
    assert count_successes(keep(roll, level, "disadvantage"), level) <= best
    assert plain <= best


@given(faces, levels)
def test_a_higher_skill_never_scores_less_and_a_higher_face_never_scores_more(face, level):
    assert die_successes(face, level + 1) >= die_successes(face, level)
    if face < 10:
        assert die_successes(face + 1, level) <= die_successes(face, level)


@given(faces, levels)
def test_one_die_scores_at_most_one_success_per_threshold(face, level):
    assert 0 <= die_successes(face, level) <= len(thresholds(level))
    if face <= min(level, 9):
        assert die_successes(face, level) >= 1  # "equal to or under a Skill value"
