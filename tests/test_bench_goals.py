"""bench/goals.py's goal table says "met" exactly where a goal is met (a table that
flatters is worse than none)."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import goals  # noqa: E402


def found(*, store_vs_floor=0.8, vs_es=3.0, replay=0.5, replay_es=15.0, audit=99.9,
          pg_floor=0.8, pg_es=1.0, p99=99.0, missed=0, roll_ms=149.0, ratio=4.9):  # fmt: skip
    return {
        "append": {
            "100000": {
                "store_vs_floor": store_vs_floor,
                "campaign_vs_eventsourcing": vs_es,
                "store_vs_es_aggregate_recorder": 0.3,
            }
        },
        "replay": {"100000": {"ledger_vs_floor": replay, "ledger_vs_eventsourcing": replay_es}},
        "audit": {
            "ledger": {"events": 1_000_007},
            "audit": {
                "in_checkpoint": {"audit_ms_median": 3.0},
                "after": {"audit_ms_median": audit},
            },
            "process": {
                "bytecode": "compiled",
                "in_checkpoint": {"process_ms_median": 180.0, "python_pass_ms_median": 15.0,
                                  "ratio": 12.0},
                "after": {"process_ms_median": 190.0, "python_pass_ms_median": 15.0,
                          "ratio": 12.7},
            },
        },
        "postgres": {
            "hosted": [
                {
                    "writers": 16,
                    "campaigns": 1000,
                    "store_vs_floor": pg_floor,
                    "store_vs_es_aggregate_recorder": pg_es,
                    "floor": {"latency_ms_p99": 10.0},
                    "store.append": {"latency_ms_p99": 12.0},
                }
            ]
        },  # fmt: skip
        "serve": {"clients": 50, "p99_ms": p99, "median_ms": 10.0, "missed": missed},
        "startup": {"roll_ms": roll_ms, "python_pass_ms": 10.0, "ratio": ratio},
    }


def test_every_goal_just_met_is_met():
    rows = goals.table(found())
    assert len(rows) == 11
    assert [met for *_, met in rows if met != "—"] == ["yes"] * 9


def test_context_rows_claim_no_goal():
    rows = {m: (g, v, ok) for m, g, v, ok in goals.table(found())}
    rule_free = next(k for k in rows if k.startswith("`Store.append` vs eventsourcing"))
    assert rows[rule_free] == ("none (context)", "0.3×", "—")
    process = next(k for k in rows if "as a whole process" in k)
    assert rows[process][1].startswith("190 ms, 12.7×")  # the slower roll
    assert rows[process][2] == "—"


def test_each_goal_just_missed_is_missed_alone():
    misses = {
        "store_vs_floor": 0.79, "vs_es": 2.99, "replay": 0.49, "replay_es": 14.9, "audit": 100.0,
        "pg_floor": 0.79, "pg_es": 0.99, "p99": 100.0, "missed": 1, "roll_ms": 150.0, "ratio": 5.0,
    }  # fmt: skip
    for name, value in misses.items():
        rows = goals.table(found(**{name: value}))
        assert [met for *_, met in rows].count("no") == 1, name


def test_the_table_states_the_slower_audit_and_the_floors_p99():
    text = goals.markdown(goals.table(found(audit=42.0)), {"audit by proof": [1.0, 2.5]})
    assert "42.0 ms (median, the slower of two rolls)" in text
    assert "floor's 10 ms" in text
    assert "audit by proof 1.00 → 2.50" in text
    assert "byte-code compiled" in text


def test_the_outside_script_prints_its_figures_beside_goals(tmp_path, capsys):
    """bench/reproduce.py (public API, sqlite3 and eventsourcing only) runs on a tiny
    campaign and prints each of goals.py's figures beside its own."""
    import json

    import reproduce

    given = tmp_path / "goals.json"
    given.write_text(json.dumps(found(store_vs_floor=0.61, replay=0.55)))
    out = tmp_path / "mine.json"
    assert reproduce.main(["--events", "2000", "--no-startup", "--goals", str(given),
                           "--json", str(out)]) == 0  # fmt: skip
    text = capsys.readouterr().out
    assert "| Store.append ÷ raw floor | 0.61 |" in text
    assert "| replay ÷ scan + plain decode | 0.55 |" in text
    mine = json.loads(out.read_text())["reproduce"]
    assert all(v > 0 for k, v in mine.items() if not k.startswith("campaign roll"))
