"""bench/budgets.py counts what the tests no longer pin (round trips, query plans, folds,
a read's work, lines) and says, per budget, whether it is within it: the script runs, reports every
budget once, and its exit status agrees with what it printed. Whether the figures are
within budget is the script's to say, not a test's."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import budgets  # noqa: E402


def test_budgets_report_every_budget_and_exit_by_them(tmp_path, capsys):
    out = tmp_path / "budgets.json"
    status = budgets.main(["--no-postgres", "--json", str(out)])
    rows = json.loads(out.read_text())
    assert {r["group"] for r in rows} == {"SQLite query plans", "folds", "reads", "lines"}
    assert len([r for r in rows if r["group"] == "reads"]) == len(budgets.READS)
    assert len([r for r in rows if r["group"] == "SQLite query plans"]) == len(budgets.PLANS) + 1
    assert len([r for r in rows if r["group"] == "lines"]) == 5  # the bundled plugins
    assert status == (0 if all(r["ok"] for r in rows) else 1)
    printed = capsys.readouterr().out
    assert "PostgreSQL round trips: skipped (--no-postgres)" in printed
    assert f"of {len(rows)} within budget" in printed


def test_budgets_count_round_trips_on_postgresql(postgres_server, tmp_path):
    out = tmp_path / "budgets.json"
    budgets.main(["--postgres", postgres_server, "--json", str(out)])
    trips = [r for r in json.loads(out.read_text()) if r["group"] == "PostgreSQL round trips"]
    assert len(trips) == 10 and all(int(r["measured"]) >= 1 for r in trips)


def test_budgets_refuse_both_postgres_flags(capsys):
    with pytest.raises(SystemExit) as exit_:
        budgets.main(["--postgres", "postgresql://x", "--no-postgres"])
    assert exit_.value.code == 2
    assert "exclude each other" in capsys.readouterr().err
