"""bench/compare.py: before and after a change in one run (docs/performance.md "Before
and after a change").

The measuring itself is a bench, never a timed test; these check what the table is made of
(medians, same-round ratios, floors) and that bad input is refused in one line, with worked
numbers.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import compare  # noqa: E402


def test_the_table_pairs_rounds_and_divides_by_each_sides_floor():
    # three rounds; the machine was twice as busy in round 2, on both sides and their floors
    samples = {
        "before": {"store.append": [(600.0, 300.0), (1200.0, 600.0), (630.0, 300.0)]},
        "after": {"store.append": [(450.0, 300.0), (900.0, 600.0), (480.0, 320.0)]},
    }
    (row,) = compare.table(samples)
    assert row["figure"] == "store.append"
    assert row["before_ms"] == 630.0  # median of 600, 1200, 630
    assert row["after_ms"] == 480.0
    # per round: 450/600 = 0.75, 900/1200 = 0.75, 480/630 = 0.762; median 0.75
    assert row["after_over_before"] == pytest.approx(0.75)
    # per round: 2.0, 2.0, 2.1 before; 1.5, 1.5, 1.5 after
    assert row["before_over_floor"] == pytest.approx(2.0)
    assert row["after_over_floor"] == pytest.approx(1.5)


def test_a_figure_without_a_floor_has_no_floor_ratio_and_one_side_only_is_left_out():
    samples = {
        "before": {"recap": [(80.0, None)] * 5, "gone": [(1.0, None)] * 5},
        "after": {"recap": [(88.0, None)] * 5},
    }
    (row,) = compare.table(samples)
    assert (row["figure"], row["after_over_before"]) == ("recap", pytest.approx(1.1))
    assert row["before_over_floor"] is None and row["after_over_floor"] is None


def test_figures_read_a_run_py_result_in_milliseconds():
    found = {
        "seconds": {"store.append": 0.445, "campaign.append": 0.76, "floor": 0.289},
        "events_per_s": {"store.append": 44944},
    }  # no eventsourcing figure: left out, not zero
    got = compare.figures("append", found, {"events": 20_000})
    assert got == {
        "store.append, 20,000 events": (pytest.approx(445.0), pytest.approx(289.0)),
        "campaign.append, 20,000 events": (pytest.approx(760.0), pytest.approx(289.0)),
    }
    shell = compare.figures("shell", {"entry_ms_median": 3.34}, {"events": 20_000})
    assert shell == {"campaign play entry": (3.34, None)}


def test_the_markdown_says_what_was_compared_when_and_under_what_load():
    rows = [
        {
            "figure": "replay every character, 20,000 events",
            "before_ms": 197.04,
            "after_ms": 146.2,
            "after_over_before": 0.52,
            "before_over_floor": 2.171,
            "after_over_floor": 2.169,
        }
    ]
    header = {
        "before": "773235c",
        "after": "b23b7d5",
        "date": "2026-11-26",
        "cpu": "AMD EPYC",
        "cores": 2,
        "rounds": 5,
        "events": 20_000,
        "load_start": "2.82 1.80 1.17",
        "load_end": "4.77 4.79 2.86",
        "wall_seconds": 414.2,
    }
    text = compare.markdown(rows, header)
    assert "load average 2.82 1.80 1.17 at the start, 4.77 4.79 2.86 at the end" in text
    assert "| replay every character, 20,000 events | 197 | 146 | 0.52 | 2.17 | 2.17 |" in text


def test_fewer_than_five_rounds_are_refused(capsys):
    with pytest.raises(SystemExit) as exit_:
        compare.main(["HEAD", "--quick", "--rounds", "3"])
    assert exit_.value.code == 2
    assert "--rounds must be 5 or more" in capsys.readouterr().err


def test_a_ref_that_is_no_commit_is_refused_before_anything_is_checked_out(capsys):
    with pytest.raises(SystemExit) as exit_:
        compare.main(["no-such-ref-xyz", "--quick"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "'no-such-ref-xyz' is not a commit of this repository" in err
    assert "Traceback" not in err
