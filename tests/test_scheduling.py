"""How the suite's tests are spread over pytest-xdist's workers (tests/conftest.py): a test
file to one worker (the journeys by journey and look), the longest files first."""

from __future__ import annotations

import json

from .conftest import GROUP_TIMES, GUESSED_SECONDS, longest_first, xdist_group_of


def test_a_file_is_one_group_and_the_journeys_split_by_journey_and_look():
    assert xdist_group_of("tests/test_cli.py::test_roll[3]") == "tests/test_cli.py"
    journey = "tests/test_web_journeys.py::test_j7_dana_rolls_lockpicking_14_from_her_phone_and_the_gm_sees_it[390x844-dark]"
    assert xdist_group_of(journey) == "tests/test_web_journeys.py::j7-390x844-dark"


def test_the_longest_groups_go_first_and_an_unmeasured_one_is_guessed_by_its_tests():
    groups = {"a.py": 300, "b.py": 2, "c.py": 10, "new.py": 1000}
    seconds = {"a.py": 4.0, "b.py": 30.0, "c.py": 12.5}
    # new.py is unmeasured: 1000 tests at GUESSED_SECONDS each
    assert 1000 * GUESSED_SECONDS == 50.0
    assert longest_first(groups, seconds) == ["new.py", "b.py", "c.py", "a.py"]
    assert longest_first({"x.py": 1, "y.py": 1}, {}) == ["x.py", "y.py"]  # ties keep order


def test_the_kept_times_name_groups_the_suite_has():
    """tests/group_times.json, as `--save-group-times` wrote it, names groups by
    :func:`xdist_group_of` (a renamed file falls back to a guess, so this only checks the
    shape and that most names still stand)."""
    kept = json.loads(GROUP_TIMES.read_text())
    assert kept and all(isinstance(v, (int, float)) and v >= 0 for v in kept.values())
    root = GROUP_TIMES.parent.parent
    present = [g for g in kept if (root / g.split("::", 1)[0]).exists()]
    assert len(present) >= 0.9 * len(kept), sorted(set(kept) - set(present))
