"""Terran Engine end to end through the `campaign` CLI (seed 003_2aeb47bc6ca82a40.txt).

A temporary ledger file, the clock frozen; rolls with the worked examples' dice faces, engine
advancement rolls checked by `verify`, and The Drowned Marches built by `demo`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from freezegun import freeze_time

from ledger.cli import cli

CAMPAIGN = Path(__file__).resolve().parents[2] / "campaigns" / "the-drowned-marches"


@pytest.fixture
def marches(run: Any) -> Any:
    """A Terran campaign with Jen, Kit and Bo (unrolled), session 1 open, set up at
    2026-03-01 18:55, before the tests' clocks (a ledger's times never go back)."""
    with freeze_time("2026-03-01 18:55:00", tick=True):
        run("new", "marches", "--system", "terran-engine")
        for who in ("jen", "kit", "bo"):
            run("character", "add", "--sheet", str(CAMPAIGN / "characters" / f"{who}.toml"))
        run("session", "start")
    return run


def sheet(run: Any, who: str) -> dict[str, Any]:
    return json.loads(run("sheet", who, "--json").output)


def count(run: Any) -> int:
    return len(json.loads(run("log", "--json").output))


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_roll_json_has_light_dark_highest_outcome_and_ego_lost(marches: Any) -> None:
    # D3: Kit, Ego 4, Strength 1 + Violence 2 = 3 Light [2 3 1], Dark [2 3] both <= 4
    out = json.loads(marches("roll", "kit", "Violence", "--attribute", "Strength", "--dark", "2",
                             "--dice", "2,3,1,2,3", "--json").output)
    assert (out["light"], out["dark"], out["highest"]) == ([2, 3, 1], [2, 3], 3)
    assert (out["outcome"], out["ego_lost"], out["ego_before"]) == ("fail", 2, 4)
    assert (out["character"], out["name"], out["session"], out["source"]) == (
        "kit", "Kit Ashdown", 1, "physical")
    assert out["draws"] == [[6, 2], [6, 3], [6, 1], [6, 2], [6, 3]]
    assert sheet(marches, "kit")["ego"] == 2


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_creation_rolls_then_risky_actions(marches: Any) -> None:
    refused = marches("roll", "bo", "Social", "--attribute", "Charisma", "--dice", "4", ok=False)
    assert refused.exit_code == 1 and "--creation" in refused.output
    for attribute, faces in (("Strength", "2,3"), ("Agility", "1,5"), ("Insight", "6,2")):
        marches("roll", "bo", attribute, "--creation", "--dice", faces)
    out = json.loads(marches("roll", "bo", "Charisma", "--creation", "--json").output)
    assert out["source"] == "engine" and out["value"] == (0 if out["highest"] <= 3 else
                                                          1 if out["highest"] <= 5 else 2)
    bo = sheet(marches, "bo")
    assert bo["attributes"]["Strength"] == 0 and bo["attributes"]["Insight"] == 2
    assert (bo["hp"], bo["hp_max"]) == (3, 3)  # 0 + 1 + 2
    assert bo["ego_max"] == 2 + 2 + out["value"]


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_bad_input_is_one_clear_line_and_writes_nothing(marches: Any) -> None:
    before = count(marches)
    bad = marches("roll", "kit", "Cooking", "--attribute", "Strength", "--dice", "3", ok=False)
    assert bad.exit_code == 1 and "'Cooking' is not a Skill" in bad.output
    bad = marches("roll", "kit", "Violence", "--attribute", "Strength", "--dice", "3,7,1",
                  ok=False)
    assert bad.exit_code == 1 and "cannot show 7" in bad.output
    bad = marches("roll", "kit", "Violence", "--attribute", "Strength", "--dice", "3", ok=False)
    assert bad.exit_code == 1 and "3 Light then 0 Dark" in bad.output
    bad = marches("record", "attribute-lost", "--character", "kit", "--attribute", "Strength",
                  ok=False)
    assert bad.exit_code == 1 and "owes no Attribute" in bad.output
    assert count(marches) == before


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_harm_wounds_and_recovery_through_record(marches: Any) -> None:
    marches("record", "challenge-opened", "--character", "kit", "--challenge", "wolves",
            "--level", "Dangerous", "--count", "3")
    marches("roll", "kit", "consequence", "--challenge", "wolves", "--dice", "2,6,4")  # 10 − 1
    kit = sheet(marches, "kit")
    assert (kit["hp"], kit["wound"], kit["light_penalty"]) == (0, "critical", 1)
    marches("record", "harm-taken", "--character", "kit", "--effect", "3")
    assert sheet(marches, "kit")["attribute_points_to_lose"] == 1
    marches("record", "attribute-lost", "--character", "kit", "--attribute", "agility")
    kit = sheet(marches, "kit")
    assert (kit["wound"], kit["attributes"]["Agility"], kit["hp_max"]) == ("mortal", 0, 3)


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_advance_gains_experience_rolls_engine_dice_and_is_idempotent(marches: Any) -> None:
    marches("roll", "kit", "Violence", "--attribute", "Strength", "--dark", "2",
            "--dice", "2,3,1,2,3")  # Ego 4 → 2
    marches("roll", "jen", "Survival", "--attribute", "Strength", "--dark", "1", "--dice", "1,2,5,1")
    marches("session", "end")
    dry = json.loads(marches("advance", "--session", "1", "--dry-run", "--json").output)
    assert dry  # shows the Experience, writes nothing
    before = count(marches)
    marches("advance", "--session", "1", "--choice", "kit.advance=1",
            "--choice", "kit.develop.Exploration=1", "--choice", "jen.develop.Social=1")
    log = json.loads(marches("log", "--json").output)
    new = log[before:]
    assert count(marches) > before
    types = [e["type"] for e in new]
    assert types.count("terran-engine.experience_gained") == 3
    gained = {e["data"]["character"]: e["data"]["amount"] for e in new
              if e["type"] == "terran-engine.experience_gained"}
    assert gained == {"kit": 2, "jen": 1, "bo": 0}
    rolls = [e for e in new if e["data"].get("source") == "engine"]
    assert len(rolls) == 3 and all(e["session"] == 1 for e in rolls)
    dev = [e["data"] for e in new if e["type"] == "terran-engine.skill_development_rolled"]
    assert {d["skill"]: d["success"] for d in dev} == {"Exploration": True, "Social": True}
    kit = sheet(marches, "kit")
    assert (kit["experience"], kit["skills"]["Exploration"]) == (0, 1)
    again = len(json.loads(marches("log", "--json").output))
    marches("advance", "--session", "1", "--choice", "kit.advance=1")
    assert count(marches) == again
    assert "OK" in marches("verify").output


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_advance_refuses_to_overspend(marches: Any) -> None:
    marches("session", "end")
    bad = marches("advance", "--session", "1", "--choice", "kit.advance=2", ok=False)
    assert bad.exit_code == 1 and "spends 2 Experience but has 0" in bad.output


def test_odds_json_gives_exact_fractions(run: Any) -> None:
    out = json.loads(run("odds", "terran-engine", "--pool", "4", "--effect", "2d", "--json").output)
    assert out["risky_action"] == {"fail": "1/16", "mixed": "34/81", "success": "671/1296"}
    assert out["effect"]["mean"] == "259/45"


def test_the_drowned_marches_builds(tmp_path: Path) -> None:
    with freeze_time("2026-03-01 19:00:00", tick=True):
        result = CliRunner().invoke(
            cli, ["demo", str(CAMPAIGN), "--out", str(tmp_path / "out"), "--quiet"]
        )
    assert result.exit_code == 0, result.output
    db = str(tmp_path / "out" / "the-drowned-marches.db")
    log = json.loads(CliRunner().invoke(cli, ["--db", db, "log", "--json"]).output)
    advanced = {e["session"] for e in log if e["type"] == "terran-engine.experience_gained"}
    assert advanced == {1, 2}
    jen = json.loads(CliRunner().invoke(cli, ["--db", db, "sheet", "jen", "--json"]).output)
    assert (jen["shield"], jen["ego"], jen["conditions"]) == (
        False, 3, ["Fear-Driven Vigilance (deep water)"])
    assert jen["challenges"] == []


def test_odds_with_campaign_follow_its_options(run: Any) -> None:
    # `odds` follows the campaign's ego_check; 3 Dark Dice at Ego 2 lose the character
    # with 7/27 when compared at once (R7) and 5/36 when Ego drops die by die
    run("new", "seq", "--system", "terran-engine", "--option", "ego_check=sequential")
    plain = json.loads(run("odds", "terran-engine", "--dark", "3", "--ego", "2", "--json").output)
    assert plain["lost"] == "7/27"
    mine = json.loads(run("--campaign", "seq", "odds", "terran-engine", "--dark", "3", "--ego",
                          "2", "--json").output)
    assert (mine["lost"], mine["options"]["ego_check"]) == ("5/36", "sequential")
    given = json.loads(run("odds", "terran-engine", "--dark", "3", "--ego", "2",
                           "--ego-check", "sequential", "--json").output)
    assert given["lost"] == "5/36"


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_an_effect_against_a_character_applies_through_their_armour(marches: Any) -> None:
    # "2.2.1": "Physical harm Effects applied to you impacts your HP [...] The armour you
    # wear modifies the Effect"; "Shield -1". Kit (Strength 1 + Violence 2) rolls 1, 2, 5
    # (4-5: a success with a cost), then his axe (1d) shows 4 against Jen (T24)
    before = sheet(marches, "jen")
    marches("roll", "kit", "Violence", "--attribute", "Strength", "--dice", "1,2,5")
    out = json.loads(marches("roll", "kit", "effect", "--weapon", "axe", "--vs-character",
                             "jen", "--apply", "--dice", "4", "--json").output)
    assert (out["value"], out["vs_character"]) == (4, "jen")
    after = sheet(marches, "jen")
    assert (before["hp"], after["hp"]) == (5, 2)  # HP_max 1 + 2 + 2; 4 − 1 (shield) = 3
    bad = marches("roll", "kit", "effect", "--weapon", "axe", "--vs-character", "jen",
                  "--challenge", "x", "--dice", "4", ok=False)
    assert bad.exit_code == 1
    assert marches("verify").exit_code == 0
