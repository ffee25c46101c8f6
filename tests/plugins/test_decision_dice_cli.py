"""decision-dice end to end through the `campaign` CLI (tmp ledger, frozen clock)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CAMPAIGN = Path(__file__).resolve().parents[2] / "campaigns" / "the-salt-road"


@pytest.fixture
def salt_road(invoke, frozen):
    """The Salt Road's two characters in a fresh campaign, session 1 open."""
    result = invoke("new", "salt-road", "--system", "decision-dice",
                    "--option", 'derived={"Stress": ["Wits", "Grit"]}')
    assert result.exit_code == 0, result.output
    for sheet in ("jen.toml", "oskar.toml"):
        result = invoke("character", "add", "--sheet", str(CAMPAIGN / "characters" / sheet))
        assert result.exit_code == 0, result.output
    assert invoke("session", "start").exit_code == 0
    return invoke


def roll_json(invoke, *args):
    result = invoke("roll", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def events(invoke):
    result = invoke("log", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    return data if isinstance(data, list) else data["events"]


def test_roll_json_has_dice_total_target_outcome_and_breakdown(salt_road):
    out = roll_json(salt_road, "jen", "agility", "--target", "8", "--dice", "3,4",
                    "--bonus", "-2", "--penalty", "-1", "--modifier", "1")
    assert out["dice"] == [3, 4]
    assert (out["total"], out["target"], out["outcome"], out["margin"]) == (8, 8, "success", 0)
    assert [(m["kind"], m["stated"], m["counted"]) for m in out["modifiers"]] == [
        ("stat", 1, 1), ("bonus", -2, 0), ("penalty", -1, -1), ("modifier", 1, 1)]
    assert out["character"] == "jen" and out["name"] == "Nimble Jen"
    assert out["source"] == "physical" and out["draws"] == [[6, 3], [6, 4]]


def test_rung_names_and_advantage_on_the_command_line(salt_road):
    out = roll_json(salt_road, "jen", "might", "--target", "Strenuous", "--advantage",
                    "--dice", "6,6,6")
    assert (out["decision_dice"], out["total"], out["target"], out["outcome"]) == (
        3, 18, 18, "success")
    out = roll_json(salt_road, "jen", "might", "--target", "2", "--disadvantage", "--dice", "1")
    assert (out["dice"], out["outcome"]) == ([1], "failure")


def test_contest_reroll_rounds_are_recorded(salt_road):
    out = roll_json(salt_road, "jen", "agility", "--opponent", "Bandit captain",
                    "--opponent-modifier", "1", "--dice", "2,5,4,3,6,1,1,1")
    assert [r["total"] for r in out["rounds"]] == [8, 8]
    assert [r["opponent_total"] for r in out["rounds"]] == [8, 3]
    assert (out["winner"], out["outcome"]) == ("jen", "success")


def test_supply_dice_step_down_and_empty_is_refused_with_nothing_written(salt_road):
    out = roll_json(salt_road, "jen", "lockpicks", "--dice", "3")
    assert (out["die"], out["after"]) == ("d4", "empty")
    before = len(events(salt_road))
    result = salt_road("roll", "jen", "lockpicks", "--dice", "2")
    assert result.exit_code == 1
    assert "Empty" in result.output
    result = salt_road("roll", "jen", "agility", "--target", "6", "--supply", "lockpicks",
                       "--dice", "3,3,2")
    assert result.exit_code == 1
    assert len(events(salt_road)) == before
    sheet = json.loads(salt_road("sheet", "jen", "--json").output)
    assert {i["name"]: i["supply"] for i in sheet["equipment"]}["Lockpicks"] == "empty"
    result = salt_road("record", "resupplied", "--character", "jen", "--item", "Lockpicks",
                       "--die", "d4")
    assert result.exit_code == 0, result.output
    out = roll_json(salt_road, "jen", "lockpicks", "--dice", "4")
    assert out["after"] == "d4"


def test_decision_roll_with_supply_steps_the_item(salt_road):
    out = roll_json(salt_road, "oskar", "wits", "--target", "challenging", "--supply",
                    "field medkit", "--dice", "6,3,1")
    assert out["supply"] == {"item": "Field Medkit", "die": "d12", "face": 1, "after": "d10"}
    sheet = json.loads(salt_road("sheet", "oskar", "--json").output)
    assert sheet["equipment"][0]["supply"] == "d10"
    assert sheet["derived"] == {"Stress": 2}   # Wits 2, Grit 3: 1 + 1.5 = 2.5 → 2


def test_bad_input_is_refused_with_one_clear_line(salt_road):
    result = salt_road("roll", "jen", "agility", "--target", "8", "--dice", "7,1")
    assert result.exit_code != 0 and "d6" in result.output
    result = salt_road("roll", "jen", "agility", "--target", "impossible", "--dice", "6,6")
    assert result.exit_code == 1 and "--impossible" in result.output
    result = salt_road("roll", "jen", "agilty", "--target", "8", "--dice", "6,6")
    assert result.exit_code == 1 and "Agility" in result.output
    result = salt_road("roll", "jen", "agility", "--target", "hard", "--dice", "6,6")
    assert result.exit_code == 1 and "challenging" in result.output


def test_record_tracker_and_conditions(salt_road):
    result = salt_road("record", "tracker-changed", "--character", "jen", "--tracker",
                       "Rifle ammunition", "--delta", "-15")
    assert result.exit_code == 0, result.output
    result = salt_road("record", "condition-added", "--character", "jen", "--condition",
                       "Cornered", "--kind", "disadvantage", "--rolls", "1")
    assert result.exit_code == 0, result.output
    out = roll_json(salt_road, "jen", "wits", "--target", "4", "--dice", "2")
    assert (out["decision_dice"], out["conditions"], out["total"]) == (1, ["Cornered"], 5)
    sheet = json.loads(salt_road("sheet", "jen", "--json").output)
    assert sheet["trackers"] == {"Rifle ammunition": 45}
    assert sheet["conditions"] == []


def test_engine_roll_is_verifiable(salt_road):
    out = roll_json(salt_road, "jen", "agility", "--target", "8")
    assert out["source"] == "engine" and len(out["dice"]) == 2
    assert out["total"] == sum(out["dice"]) + 1
    assert salt_road("session", "end").exit_code == 0
    result = salt_road("verify")
    assert result.exit_code == 0 and "1 engine roll" in result.output
    result = salt_road("advance", "--session", "1", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["events"] == []


def test_odds_command_gives_exact_fractions(invoke):
    result = invoke("odds", "decision-dice", "--stat", "0", "--target", "8", "--modifier", "1",
                    "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert (data["success"], data["failure"]) == ("7/12", "5/12")
    result = invoke("odds", "decision-dice", "--supply", "d12", "--json")
    assert json.loads(result.output)["rolls_to_empty"] == "40/3"


def test_the_example_campaign_builds(invoke, tmp_path, frozen):
    result = invoke("demo", str(CAMPAIGN), "--out", str(tmp_path / "out"), "--quiet")
    assert result.exit_code == 0, result.output
    db = str(tmp_path / "out" / "the-salt-road.db")
    sheet = json.loads(invoke("sheet", "jen", "--json", db=db).output)
    assert sheet["trackers"] == {"Rifle ammunition": 45}      # the -50 typo was retracted
    assert {i["name"]: i["supply"] for i in sheet["equipment"]} == {
        "Climbing Kit": "d6", "Lockpicks": "d4", "Hunting Rifle": None}
    assert sheet["derived"] == {"Stress": 2, "Vitality": 1}   # E2: 3/2 + 2/2 = 2.5 → 2
    oskar = json.loads(invoke("sheet", "oskar", "--json", db=db).output)
    assert oskar["derived"]["Vitality"] == 2                    # E1: 1/2 + 3/2 = 2
    assert oskar["equipment"][0]["supply"] == "d10"
    assert invoke("verify", db=db).exit_code == 0


def test_contest_against_a_character_uses_their_stat_conditions_and_modifiers(salt_road):
    # "Contested Rolls": "Each character simply rolls their decision dice and adds their
    # applicable modifiers, with the win going to the highest roller". Oskar's Agility 0 and
    # his "Old war wound" (penalty -1 on Agility) come from his sheet: 4 + 4 + 0 - 1 = 7
    # against Jen's 3 + 4 + 1 = 8
    out = roll_json(salt_road, "jen", "agility", "--vs-character", "oskar",
                    "--dice", "3,4,4,4")
    assert (out["total"], out["target"], out["outcome"], out["winner"]) == (
        8, 7, "success", "jen")
    assert (out["vs_character"], out["vs_stat"], out["vs_stat_value"]) == ("oskar", "Agility", 0)
    assert out["vs_conditions"] == ["Old war wound"]
    assert [(m["kind"], m["stated"], m["counted"]) for m in out["vs_modifiers"]] == [
        ("stat", 0, 0), ("penalty", -1, -1)]
    # "Key Terms": a bonus stated negative counts 0; his Grit 3 with --vs-skill
    result = salt_road("record", "condition-added", "--character", "oskar", "--condition",
                       "Shaken resolve", "--kind", "bonus", "--value", "-2", "--stat", "Grit")
    assert result.exit_code == 0, result.output
    out = roll_json(salt_road, "jen", "wits", "--vs-character", "oskar", "--vs-skill", "grit",
                    "--dice", "1,1,2,2")
    assert (out["total"], out["target"], out["outcome"]) == (5, 7, "failure")
    assert out["winner"] == "Brother Oskar"
    assert [(m["kind"], m["stated"], m["counted"]) for m in out["vs_modifiers"]] == [
        ("stat", 3, 3), ("bonus", -2, 0)]
    bad = salt_road("roll", "jen", "wits", "--vs-character", "oskar", "--vs-skill", "luck",
                    "--dice", "1,1,2,2")
    assert bad.exit_code == 1 and "no stat of Brother Oskar named 'luck'" in bad.output
    assert salt_road("verify").exit_code == 0
