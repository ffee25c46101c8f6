"""Spellwoven: growth after creation as events (rulings SW11, SW12).

"The housewife does not have any relevant Specialisations (either **Brawling** or
**One-Handed Bludgeon** might have been suitable) so rolls against her Fighting Skill of 2.
She is very lucky and rolls a 1, 2 and 8" (004_663ae3e4ecc71fd1.txt, "Example: Opposed
Roll"): once she has learned Brawling she rolls against it instead.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from freezegun import freeze_time

from ledger.cli import cli

CAMPAIGN = Path(__file__).resolve().parents[2] / "campaigns" / "nimble-jen"
BRAWLING = ("record", "specialisation-learned", "--character", "housewife",
            "--specialisation", "Brawling", "--skill", "Fighting", "--rank", "4")


def specs(run, who="housewife"):
    return json.loads(run("sheet", who, "--json").output)["specialisations"]


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_the_housewife_learns_brawling_and_rolls_it(escape):
    escape(*BRAWLING, "--reason", "lessons from the blacksmith")
    assert specs(escape)["Brawling"]["rank"] == 4
    # Brawling 4 (Fortitude 2): 1, 2, 8 is still 1 = two + 2 = one = three successes; the
    # Skill Level is now 4, not her Fighting 2
    out = json.loads(escape("roll", "jen", "Manoeuvre", "--vs-character", "housewife",
                            "--vs-skill", "Brawling", "--dice", "2,7,8,1,2,8",
                            "--json").output)
    assert (out["vs_skill"], out["opponent_skill_level"], out["opponent_successes"],
            out["outcome"]) == ("Brawling", 4, 3, "lose")
    log = escape("log", "--character", "housewife").output
    assert ("housewife learns the Specialisation Brawling (Fighting): Brawling: 4 "
            "(lessons from the blacksmith)") in log
    assert "Brawling" in escape("sheet", "housewife").output
    recap = escape("recap", "--session", "1").output
    assert "New specialisation Brawling 4" in recap
    assert escape("verify").exit_code == 0


@freeze_time("2026-03-01 19:00:00", tick=True)
@pytest.mark.parametrize("args, message", [
    (("--specialisation", "Brawling", "--skill", "Fighting", "--rank", "4"),
     "already has the specialisation Brawling (4)"),
    (("--specialisation", "brawling", "--skill", "Fighting", "--rank", "5"),
     "already has the specialisation Brawling"),
    (("--specialisation", "Fighting", "--skill", "Fighting", "--rank", "4"),
     "already a skill or an Attribute"),
    (("--specialisation", "Fortitude", "--skill", "Fighting", "--rank", "4"),
     "already a skill or an Attribute"),
    (("--specialisation", "Knife", "--skill", "Fencing", "--rank", "4"),
     "has no skill 'Fencing' to specialise in"),
    (("--specialisation", "Knife", "--skill", "Fighting", "--rank", "0"),
     "a rank must be 1 or more"),
])
def test_what_cannot_be_learned_is_refused(escape, args, message):
    escape(*BRAWLING)
    before = escape.db.read_bytes()
    bad = escape("record", "specialisation-learned", "--character", "housewife", *args,
                 ok=False)
    assert bad.exit_code == 1 and message in bad.output, bad.output
    assert "Traceback" not in bad.output
    assert escape.db.read_bytes() == before


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_the_campaign_cap_in_play_holds(tmp_path):
    db = str(tmp_path / "capped.db")
    runner = CliRunner()
    for args in (("new", "x", "--system", "spellwoven", "--option", "skill_cap_in_play=9"),
                 ("character", "add", "--sheet", str(CAMPAIGN / "characters" / "jen.toml"))):
        assert runner.invoke(cli, ["--db", db, *args]).exit_code == 0
    bad = runner.invoke(cli, ["--db", db, "record", "specialisation-learned", "--character",
                              "jen", "--specialisation", "Roof-running", "--skill", "Sprint",
                              "--rank", "10"])
    assert bad.exit_code == 1 and "caps skills at 9" in bad.output


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_a_retraction_keeps_the_sheet_in_sync(escape):
    learned = json.loads(escape(*BRAWLING, "--json").output)["seq"]
    escape("correct", str(learned), "--reason", "she never took the lessons")
    assert "Brawling" not in specs(escape)
    assert escape("verify").exit_code == 0
    # learned again, rolled against, then retracted: the sheet follows, verify still passes
    again = json.loads(escape(*BRAWLING, "--json").output)["seq"]
    escape("roll", "jen", "Manoeuvre", "--vs-character", "housewife", "--vs-skill",
           "Brawling", "--dice", "2,7,8,1,2,8")
    escape("correct", str(again), "--reason", "x")
    assert "Brawling" not in specs(escape)
    assert escape("verify").exit_code == 0
