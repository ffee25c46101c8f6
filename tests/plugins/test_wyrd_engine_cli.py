"""The Wyrd Engine end to end through the ``campaign`` CLI (click's CliRunner, frozen clock).

The contract of the ledger-core issue: ``new --system wyrd-engine``, ``character add``,
``session start|end``, ``roll ... --json``, ``record``, ``sheet --json``, ``log --json``,
``verify``, ``odds wyrd-engine``, ``demo``. Answers are the book's (000_60e07241544698f0.txt).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from freezegun import freeze_time

cli_module = pytest.importorskip("ledger.cli")
cli = cli_module.cli

CAMPAIGN = Path(__file__).resolve().parents[2] / "campaigns" / "grand-casebook"


def run(db: Path, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)


def ok(db: Path, *args: str) -> Result:
    result = run(db, *args)
    assert result.exit_code == 0, result.output
    return result


def as_json(db: Path, *args: str) -> Any:
    return json.loads(ok(db, *args, "--json").stdout)


def log_length(db: Path) -> int:
    return len(as_json(db, "log"))


@pytest.fixture
def casebook(tmp_path: Path) -> Path:
    db = tmp_path / "casebook.db"
    with freeze_time("2026-03-01 19:00:00"):
        ok(db, "new", "casebook", "--system", "wyrd-engine")
        for stem in ("julian", "felix", "josephine"):
            ok(db, "character", "add", "--sheet", str(CAMPAIGN / "characters" / f"{stem}.toml"))
        ok(db, "session", "start")
    return db


@freeze_time("2026-03-01 19:05:00")
def test_roll_julian_investigate_with_the_books_dice(casebook: Path) -> None:
    out = as_json(casebook, "roll", "Julian", "investigate", "--dr", "good", "--dice", "++-0")
    assert out["character"] == "julian" and out["source"] == "physical"
    assert (out["skill"], out["dice"], out["total"]) == ("Investigate", [1, 1, -1, 0], 4)
    assert (out["dr"], out["margin"], out["outcome"]) == (2, 2, "success")
    assert isinstance(out["seq"], int)


@freeze_time("2026-03-01 19:05:00")
def test_roll_with_trait_and_comma_faces(casebook: Path) -> None:
    out = as_json(casebook, "roll", "felix", "Crafts", "--dr", "Great", "--trait",
                  "Master Tinkerer", "--dice", "+,0,0,0")  # fmt: skip
    assert (out["total"], out["margin"], out["outcome"]) == (6, 3, "success_with_style")


@freeze_time("2026-03-01 19:05:00")
def test_bad_rolls_write_nothing(casebook: Path) -> None:
    before = log_length(casebook)
    for args in (
        ["roll", "julian", "investigate", "--dr", "good", "--dice", "++-7"],
        ["roll", "julian", "investigate", "--dr", "good", "--dice", "++-"],
        ["roll", "julian", "investigat", "--dr", "good"],
        ["roll", "julian", "investigate", "--dr", "hard"],
        ["roll", "julian", "investigate", "--dr", "good", "--trait", "Master Tinkerer"],
    ):
        result = run(casebook, *args)
        assert result.exit_code in (1, 2), (args, result.output)
    assert log_length(casebook) == before


@freeze_time("2026-03-01 19:10:00")
def test_example_wound_through_record_and_sheet(casebook: Path) -> None:
    ok(casebook, "record", "damage-taken", "--character", "josephine", "--amount", "5")
    ok(casebook, "record", "damage-taken", "--character", "Josephine Langley", "--amount", "2",
       "--affected-skills", "Athletics", "--affected-skills", "Fight")  # fmt: skip
    sheet = as_json(casebook, "sheet", "josephine")
    assert sheet["stress"]["marked"] == 5
    assert sheet["wounds"]["moderate"]["absorbed"] == 2
    assert sheet["penalties"] == {"Athletics": -2, "Fight": -2}
    out = as_json(casebook, "roll", "josephine", "athletics", "--dr", "fair", "--dice", "0000")
    assert (out["total"], out["outcome"]) == (-2, "failure")


@freeze_time("2026-03-01 19:10:00")
def test_scene_end_clears_stress(casebook: Path) -> None:
    ok(casebook, "record", "damage-taken", "--character", "felix", "--amount", "3")
    assert as_json(casebook, "sheet", "felix")["stress"]["marked"] == 3
    ok(casebook, "scene", "end")
    assert as_json(casebook, "sheet", "felix")["stress"]["marked"] == 0


def test_odds_lists_the_ladder(tmp_path: Path) -> None:
    out = as_json(tmp_path / "x.db", "odds", "wyrd-engine", "--skill", "0")
    rows = {row["name"]: row["success"] for row in out["ladder"]}
    assert rows["Basic"] == "50/81" and rows["Challenging"] == "31/81"
    assert rows["Impossible"] == "0/1" and len(rows) == 10


@freeze_time("2026-03-01 19:00:00")
def test_grand_casebook_demo_builds_and_verifies(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["demo", str(CAMPAIGN), "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "Julian Hargrave" in result.output
    db = tmp_path / "grand-casebook.db"
    log = as_json(db, "log")
    types = [entry["type"] for entry in log]
    # session end, then a chronicle entry for each of the six who played
    assert types[0] == "campaign.created"
    assert types[-8:] == ["session.ended", "downtime.committed"] + ["chronicle.signed"] * 6
    assert types.count("character.created") == 6
    created = {e["stream"] for e in log if e["type"] == "character.created"}
    assert {e["stream"] for e in log[-6:]} == created
    assert "correction.recorded" in types
    felix = as_json(db, "sheet", "felix")
    assert felix["stress"]["marked"] == 0
    josephine = as_json(db, "sheet", "josephine")
    assert josephine["wounds"]["moderate"]["affects"] == ["Athletics", "Fight"]
    cornelius = as_json(db, "sheet", "cornelius")
    assert cornelius["used_this_session"] == []  # session end reset the grappling hook
    ok(db, "verify")


@freeze_time("2026-03-01 19:20:00")
def test_damage_shortcut_shows_the_sheet(casebook: Path) -> None:
    out = as_json(casebook, "damage", "felix", "7")
    assert out["sheet"]["stress"]["marked"] == 5
    assert out["sheet"]["wounds"]["moderate"]["absorbed"] == 2
    assert out["sheet"]["capacity_remaining"] == 4


@freeze_time("2026-03-01 19:20:00")
def test_correction_amends_damage_and_as_of_keeps_the_past(casebook: Path) -> None:
    hit = as_json(casebook, "record", "damage-taken", "--character", "felix", "--amount", "6")
    assert as_json(casebook, "sheet", "felix")["wounds"]["mild"] is not None
    ok(casebook, "correct", str(hit["seq"]), "--reason", "it was a graze", "--set", "amount=2")
    now = as_json(casebook, "sheet", "felix")
    assert now["stress"]["marked"] == 2 and now["wounds"]["mild"] is None
    past = as_json(casebook, "sheet", "felix", "--as-of", str(hit["seq"]))
    assert past["stress"]["marked"] == 5 and past["wounds"]["mild"]["absorbed"] == 1


@freeze_time("2026-03-01 19:20:00")
def test_once_per_session_is_refused_twice(casebook: Path) -> None:
    args = ["record", "trait-ability-used", "--character", "felix", "--trait", "unstable prototype"]
    ok(casebook, *args)
    before = log_length(casebook)
    result = run(casebook, *args)
    assert result.exit_code == 1
    assert "already used Unstable Prototype this session" in result.output
    assert log_length(casebook) == before


@freeze_time("2026-03-01 19:20:00")
def test_contest_by_full_name_with_both_sides_faces(casebook: Path) -> None:
    out = as_json(casebook, "roll", "JULIAN HARGRAVE", "provoke", "--vs", "1",
                  "--opponent", "pickpocket", "--dice", "++00 -000")  # fmt: skip
    assert (out["total"], out["opposition_total"], out["margin"]) == (3, 0, 3)
    assert out["outcome"] == "success_with_style" and out["dr"] is None
    assert out["opposition_dice"] == [-1, 0, 0, 0]


@freeze_time("2026-03-01 19:20:00")
def test_engine_roll_verifies_after_session_end(casebook: Path) -> None:
    out = as_json(casebook, "roll", "julian", "investigate", "--dr", "good",
                  "--client-seed", "fog")  # fmt: skip
    assert out["source"] == "engine" and len(out["dice"]) == 4
    assert out["total"] == sum(out["dice"]) + 3
    ok(casebook, "session", "end")
    assert "1 engine roll" in ok(casebook, "verify").output


@freeze_time("2026-03-01 18:00:00")
def test_campaign_options_three_boxes_two_to_one(tmp_path: Path) -> None:
    db = tmp_path / "tinker.db"
    ok(db, "new", "tinker", "--system", "wyrd-engine", "--option", "stress_boxes=3",
       "--option", "damage_ratio=2")  # fmt: skip
    ok(db, "character", "add", "--sheet", str(CAMPAIGN / "characters" / "cornelius.toml"))
    out = as_json(db, "damage", "cornelius", "8")  # 4 units: 3 boxes + Mild
    assert out["sheet"]["stress"] == {"marked": 3, "boxes": 3, "track": "[x][x][x]"}
    assert out["sheet"]["wounds"]["mild"]["absorbed"] == 1
    bad = run(tmp_path / "bad.db", "new", "x", "--system", "wyrd-engine",
              "--option", "damage_ratio=5")  # fmt: skip
    assert bad.exit_code == 1 and "damage_ratio is 1, 2 or 3" in bad.output
