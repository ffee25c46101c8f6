"""Spellwoven end to end through the `campaign` CLI (seed 004_663ae3e4ecc71fd1.txt).

Nimble Jen's rooftop escape ("Example: Static Difficulty", "Example: Opposed Roll") with
the book's dice, on a temporary ledger file, the clock frozen.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from freezegun import freeze_time

from ledger.cli import cli

CAMPAIGN = Path(__file__).resolve().parents[2] / "campaigns" / "nimble-jen"


def events(run):
    return json.loads(run("log", "--json").output)


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_jen_misses_the_jump(escape):
    out = json.loads(
        escape("roll", "jen", "Sprint", "--difficulty", "1", "--dice", "6,6,10", "--json").output
    )
    assert out["dice"] == [6, 6, 10]
    assert out["kept"] is None  # only three rolled
    assert (out["successes"], out["difficulty"], out["outcome"]) == (0, 1, "fail")
    assert out["effort_spent"] == 0
    assert (out["character"], out["name"], out["session"]) == ("jen", "Nimble Jen", 1)
    assert out["draws"] == [[10, 6], [10, 6], [10, 10]]


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_jen_slips_past_the_housewife_with_effort(escape):
    out = json.loads(
        escape(
            "roll",
            "Nimble Jen",
            "Manoeuvre",
            "--vs",
            "Irate Housewife:2",
            "--dice",
            "2,7,8,1,2,8",
            "--json",
        ).output
    )
    assert (out["successes"], out["opponent_successes"], out["outcome"]) == (1, 3, "lose")
    spent = escape("record", "effort-spent", "--character", "jen", "--roll", str(out["seq"]))
    assert "spends 1 Effort" in spent.output
    sheet = json.loads(escape("sheet", "jen", "--json").output)
    assert sheet["last_roll"]["successes"] == 4  # one plus three from Quickness
    assert sheet["last_roll"]["outcome"] == "win"
    assert (sheet["effort"], sheet["effort_max"]) == (1, 2)


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_effort_command_records_the_new_result(escape):
    roll = json.loads(
        escape(
            "roll", "jen", "Manoeuvre", "--vs", "housewife:2", "--dice", "2,7,8,1,2,8", "--json"
        ).output
    )
    line = escape("effort", "jen").output
    assert f"jen spends 1 Effort on roll {roll['seq']}: +3 (Quickness) = 4 successes: win" in line
    spent = events(escape)[-1]
    assert spent["type"] == "spellwoven.effort_spent"
    assert (spent["data"]["bonus"], spent["data"]["successes"], spent["data"]["outcome"]) == (
        3,
        4,
        "win",
    )
    again = escape("effort", "jen", ok=False)
    assert again.exit_code == 1 and "at most 1 Effort" in again.output
    escape("scene", "end")
    closed = escape("effort", "jen", ok=False)
    assert closed.exit_code == 1 and "no roll" in closed.output


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_recorded_effort_with_a_wrong_result_is_refused(escape):
    escape("roll", "jen", "Sprint", "--dice", "6,6,10")
    wrong = escape("record", "effort-spent", "--character", "jen", "--outcome", "fail", ok=False)
    assert wrong.exit_code == 1
    assert (
        "recorded outcome fail, but Nimble Jen's latest roll (Sprint, 0 successes) gives pass"
        in wrong.output
    )


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_effort_with_the_roll_and_running_out(escape):
    out = json.loads(
        escape("roll", "jen", "Sprint", "--effort", "--dice", "6,6,10", "--json").output
    )
    assert (out["effort_spent"], out["effort_bonus"], out["successes"], out["outcome"]) == (
        1,
        3,
        3,
        "pass",
    )  # "this would add three successes from Quickness"
    escape("roll", "jen", "Sprint", "--effort", "--dice", "9,9,9")
    before = len(events(escape))
    refused = escape("roll", "jen", "Sprint", "--effort", "--dice", "1,1,1", ok=False)
    assert refused.exit_code == 1
    assert "0 Effort left of 2" in refused.output
    assert len(events(escape)) == before  # nothing written
    escape("record", "slept", "--character", "jen")
    assert json.loads(escape("sheet", "jen", "--json").output)["effort"] == 2


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_a_retracted_roll_gives_its_effort_back(escape):
    out = json.loads(
        escape("roll", "jen", "Sprint", "--effort", "--dice", "6,6,10", "--json").output
    )
    assert json.loads(escape("sheet", "jen", "--json").output)["effort"] == 1
    escape("correct", str(out["seq"]), "--reason", "wrong character rolled")
    assert json.loads(escape("sheet", "jen", "--json").output)["effort"] == 2


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_advantage_records_the_four_dice_and_the_three_kept(escape):
    out = json.loads(
        escape("roll", "jen", "Sprint", "--advantage", "--dice", "1,9,10,3", "--json").output
    )
    assert (out["dice"], out["kept"], out["successes"]) == ([1, 9, 10, 3], [1, 9, 3], 3)
    out = json.loads(
        escape("roll", "jen", "Sprint", "--disadvantage", "--dice", "1,9,10,3", "--json").output
    )
    assert (out["kept"], out["successes"]) == ([9, 10, 3], 1)


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_attribute_difficulty_and_automatic_hit(escape):
    out = json.loads(
        escape("roll", "housewife", "Fighting", "--target", "3", "--dice", "1,2,8", "--json").output
    )
    assert (out["difficulty"], out["successes"], out["outcome"]) == (2, 3, "pass")
    auto = json.loads(escape("roll", "housewife", "Fighting", "--target", "1", "--json").output)
    assert (auto["dice"], auto["draws"], auto["outcome"]) == ([], [], "pass")


@freeze_time("2026-03-01 19:00:00", tick=True)
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--dice", "0,2,3"), "cannot show 0"),
        (("--dice", "1,2"), "this roll uses 3 d10: the dice gave 2 faces, too few"),
        (("--difficulty", "7", "--dice", "1,2,3"), "Daunting"),
        (("--vs", "nobody", "--dice", "1,2,3,4,5,6"), "Skill Level"),
    ],
)
def test_bad_input_is_one_clear_line_and_nothing_written(escape, args, message):
    before = len(events(escape))
    result = escape("roll", "jen", "Sprint", *args, ok=False)
    assert result.exit_code != 0
    assert message in result.output
    assert len(events(escape)) == before


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_unknown_skill_suggests_the_closest(escape):
    result = escape("roll", "jen", "Sprnt", "--dice", "1,2,3", ok=False)
    assert result.exit_code == 1
    assert "did you mean Sprint" in result.output


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_engine_rolls_verify(escape):
    out = json.loads(escape("roll", "jen", "Climb", "--difficulty", "2", "--json").output)
    assert out["source"] == "engine" and len(out["dice"]) == 3
    escape("session", "end")
    assert "OK" in escape("verify").output


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_skill_raised_past_nine_uses_the_10_plus_table(escape):
    escape("record", "skill-changed", "--character", "jen", "--skill", "Sprint", "--rank", "12")
    sheet = json.loads(escape("sheet", "jen", "--json").output)
    assert sheet["skills"]["Sprint"]["notation"] == "Sprint: 12 (4/9)"
    out = json.loads(escape("roll", "jen", "Sprint", "--dice", "1,2,10", "--json").output)
    assert out["successes"] == 4  # V15


def test_bad_sheet_names_every_problem(run, tmp_path):
    run("new", "rooftops", "--system", "spellwoven")
    sheet = tmp_path / "bad.toml"
    sheet.write_text('name = "Bad"\n[attributes]\nBehest = 9\n[skills]\nSwim = { rank = 2 }\n')
    result = run("character", "add", "--sheet", str(sheet), ok=False)
    # three mistakes, each named by its TOML path, on one line; nothing written
    assert result.exit_code == 1
    assert len(result.output.strip().splitlines()) == 1
    assert "attributes.Behest: expected an integer from 1 to 4, got 9" in result.output
    assert "skills.Swim.attribute: missing, expected one of Behest," in result.output
    assert "weaknesses.combat: missing" in result.output
    assert "weaknesses.social: missing" in result.output
    assert "Combat and one Social Weakness" in result.output
    assert "Traceback" not in result.output
    assert json.loads(run("character", "list", "--json").output) == []


def test_a_sheet_whose_weaknesses_are_not_a_table_is_refused_by_path(run, tmp_path):
    run("new", "rooftops", "--system", "spellwoven")
    sheet = tmp_path / "bad.toml"
    sheet.write_text(
        'name = "Bad"\nweaknesses = 1\n[attributes]\nBehest = 1\nFortitude = 2\n'
        'Presence = 2\nQuickness = 3\nWits = 2\n'
    )
    result = run("character", "add", "--sheet", str(sheet), ok=False)
    assert result.exit_code == 1 and len(result.output.strip().splitlines()) == 1
    assert "weaknesses:" in result.output and "unexpected" not in result.output
    assert json.loads(run("character", "list", "--json").output) == []


def test_odds_from_the_command_line(run):
    out = json.loads(
        run("odds", "spellwoven", "--skill", "5", "--difficulty", "2", "--json").output
    )
    assert out["pass"] == "23/40"
    out = json.loads(run("odds", "spellwoven", "--skill", "7", "--disadvantage", "--json").output)
    assert out["at_least"]["4"] == "253/10000"


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_the_example_campaign_builds(tmp_path):
    result = CliRunner().invoke(
        cli, ["demo", str(CAMPAIGN), "--out", str(tmp_path / "out"), "--quiet"]
    )
    assert result.exit_code == 0, result.output
    db = str(tmp_path / "out" / "nimble-jen.db")
    log = json.loads(CliRunner().invoke(cli, ["--db", db, "log", "--json"]).output)
    rolls = [e["data"] for e in log if e["type"].startswith("spellwoven.") and "dice" in e["data"]]
    assert [r["dice"] for r in rolls[:2]] == [[6, 6, 10], [2, 7, 8]]
    assert [r["outcome"] for r in rolls[:2]] == ["fail", "lose"]
    spent = [e["data"] for e in log if e["type"] == "spellwoven.effort_spent"]
    assert [(e["successes"], e["outcome"]) for e in spent] == [(4, "win")]  # Jen dodges out
    sheet = json.loads(CliRunner().invoke(cli, ["--db", db, "sheet", "jen", "--json"]).output)
    assert sheet["effort"] == sheet["effort_max"] == 2  # slept after the escape
    assert sheet["conditions"] == ["Embarrassed"]


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_campaign_options_change_the_rules(run):
    run(
        "new",
        "rooftops",
        "--system",
        "spellwoven",
        "--option",
        "effort_max=4",
        "--option",
        "untrained=attribute",
    )
    run("character", "add", "--sheet", str(CAMPAIGN / "characters" / "jen.toml"))
    sheet = json.loads(run("sheet", "jen", "--json").output)
    assert (sheet["effort"], sheet["effort_max"]) == (4, 4)
    # untrained = attribute: Swim with Fortitude 2 rolls at S 2, so a 3 does not count
    out = json.loads(
        run("roll", "jen", "Swim", "--attribute", "Fortitude", "--dice", "3,4,5", "--json").output
    )
    assert (out["skill_level"], out["successes"], out["outcome"]) == (2, 0, "fail")
    bad = run("new", "other", "--system", "spellwoven", "--option", "untrained=bogus", ok=False)
    assert bad.exit_code != 0 and "untrained" in bad.output


def sheet_of(run, who="jen"):
    return json.loads(run("sheet", who, "--json").output)


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_a_correction_never_refunds_effort_in_silence(escape, tmp_path):
    """#14 "Seen: a spellwoven correction silently refunds Effort" (ruling SW8): retracting
    or re-rolling the roll Jen spent Effort on after seeing it is refused, naming the Effort
    spend it would break, and nothing is written; the spend can be amended to re-judge the
    corrected roll, and then the roll corrected, Effort still spent."""
    roll = json.loads(
        escape(
            "roll", "jen", "Manoeuvre", "--vs", "housewife:2", "--dice", "2,7,8,1,2,8", "--json"
        ).output
    )["seq"]
    spent = json.loads(escape("effort", "jen", "--json").output)["seq"]
    assert sheet_of(escape)["effort"] == 1
    db = next(tmp_path.glob("*.db"))
    before = db.read_bytes()
    retract = escape("correct", str(roll), "--reason", "typo", ok=False)
    assert retract.exit_code == 1
    assert "would break 1 event" in retract.output and f"event {spent}" in retract.output
    assert f"this Effort was spent on roll {roll}" in retract.output
    redo = escape("correct", str(roll), "--dice", "1,7,8,1,2,8", "--reason", "typo", ok=False)
    assert redo.exit_code == 1 and f"event {spent}" in redo.output
    assert f"the Effort on roll {roll} recorded successes 4" in redo.output
    assert db.read_bytes() == before
    assert sheet_of(escape)["effort"] == 1
    # the way through: the spend re-judges the roll it is on, then the roll is corrected
    escape(
        "correct",
        str(spent),
        "--set",
        "successes=null",
        "--set",
        "outcome=null",
        "--set",
        "bonus=null",
        "--reason",
        "re-judge after the dice fix",
    )
    escape("correct", str(roll), "--dice", "1,7,8,1,2,8", "--reason", "typo")
    sheet = sheet_of(escape)
    assert sheet["effort"] == 1
    assert (sheet["last_roll"]["successes"], sheet["last_roll"]["outcome"]) == (5, "win")
    assert escape("verify").exit_code == 0


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_effort_spent_with_the_roll_stays_spent_when_its_dice_are_corrected(escape):
    """An amended roll is resolved again with its inputs, ``--effort`` among them."""
    roll = json.loads(
        escape("roll", "jen", "Sprint", "--effort", "--dice", "6,6,10", "--json").output
    )["seq"]
    assert sheet_of(escape)["effort"] == 1
    escape("correct", str(roll), "--dice", "1,6,10", "--reason", "misread die")
    sheet = sheet_of(escape)
    assert sheet["effort"] == 1
    assert (sheet["last_roll"]["successes"], sheet["last_roll"]["effort_spent"]) == (5, 1)
    typed = escape("correct", str(roll), "--set", "effort_bonus=0", "--reason", "x", ok=False)
    assert typed.exit_code == 1 and "worked out by the rules" in typed.output


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_effort_lost_beyond_what_is_left_is_refused(escape):
    """Ruling SW9: the cost is refused, not cut down to what is left."""
    lost = escape(
        "record",
        "effort-lost",
        "--character",
        "jen",
        "--amount",
        "3",
        "--reason",
        "the climb",
        ok=False,
    )
    assert lost.exit_code == 1 and "has 2 Effort left and cannot lose 3" in lost.output
    escape("record", "effort-lost", "--character", "jen", "--amount", "2", "--reason", "climb")
    assert sheet_of(escape)["effort"] == 0


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_difficulty_takes_the_level_names(escape):
    # "Difficulty levels": "1 success required = Normal difficulty ... 4 successes required
    # = Daunting"; "Example: Static Difficulty": "the jump is of normal difficulty"
    out = json.loads(
        escape(
            "roll", "jen", "Sprint", "--difficulty", "normal", "--dice", "6,6,10", "--json"
        ).output
    )
    assert (out["successes"], out["difficulty"], out["outcome"]) == (0, 1, "fail")
    out = json.loads(
        escape(
            "roll", "jen", "Sprint", "--difficulty", "Very difficult", "--dice", "1,2,3", "--json"
        ).output
    )
    assert (out["successes"], out["difficulty"], out["outcome"]) == (4, 3, "pass")
    odds = json.loads(
        escape("odds", "spellwoven", "--skill", "5", "--difficulty", "daunting", "--json").output
    )
    assert odds == json.loads(
        escape("odds", "spellwoven", "--skill", "5", "--difficulty", "4", "--json").output
    )
    bad = escape("roll", "jen", "Sprint", "--difficulty", "tricky", "--dice", "1,2,3", ok=False)
    assert bad.exit_code == 1 and "neither a number nor a level" in bad.output
    assert "Traceback" not in bad.output
    assert len(events(escape)) == 4 + 2  # created, two characters, session; two rolls


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_a_weakness_used_is_checked_against_the_sheet(escape):
    # "Weaknesses": "If you have a Weakness, and the weakness is used against you, your
    # opponent gets to roll 4d10 and take the three dice rolls that he or she wants"
    jen = json.loads(escape("sheet", "jen", "--json").output)["weaknesses"]
    kind = sorted(jen)[0]
    out = json.loads(
        escape(
            "roll",
            "jen",
            "Manoeuvre",
            "--vs",
            f"guard:4:weakness:{kind}",
            "--dice",
            "2,7,8,1,2,8,9",
            "--json",
        ).output
    )
    assert (out["opponent_mode"], len(out["opponent_dice"])) == ("advantage", 4)
    # the housewife (an NPC) has no Weakness to use against her
    bad = escape(
        "roll",
        "Irate Housewife",
        "Fortitude",
        "--vs",
        "jen:5:weakness",
        "--dice",
        "1,2,3,4,5,6,7",
        ok=False,
    )
    assert bad.exit_code == 1 and "has no Weakness to use against them" in bad.output
    bad = escape(
        "roll", "jen", "Manoeuvre", "--vs", "guard:4:combat", "--dice", "1,2,3,4,5,6", ok=False
    )
    assert bad.exit_code == 1 and "NAME:S:weakness:combat" in bad.output
    assert len(events(escape)) == 4 + 1


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_effort_spent_on_roll_n_goes_to_roll_n(escape):
    # "Example: Opposed Roll": Jen's Manoeuvre 1 success against the housewife's 3; "She
    # spends 1 Effort and adds +3 from Quickness" for 4: a win. Here she rolled again (the
    # jump, 0 successes) before deciding, and spends on the contest, roll N, by its seq.
    contest = json.loads(
        escape(
            "roll",
            "Nimble Jen",
            "Manoeuvre",
            "--vs",
            "Irate Housewife:2",
            "--dice",
            "2,7,8,1,2,8",
            "--json",
        ).output
    )["seq"]
    jump = json.loads(
        escape("roll", "jen", "Sprint", "--difficulty", "1", "--dice", "6,6,10", "--json").output
    )["seq"]
    spent = escape("record", "effort-spent", "--character", "jen", "--roll", str(contest), "--json")
    assert json.loads(spent.output)["roll"] == contest
    sheet = json.loads(escape("sheet", "jen", "--json").output)
    assert sheet["last_roll"]["successes"] == 0  # the jump is untouched
    on = [r for r in sheet["scene_rolls"] if r["seq"] == contest][0]
    assert (on["successes"], on["outcome"], on["effort_spent"]) == (4, "win", 1)
    assert sheet["effort"] == sheet["effort_max"] - 1
    # a roll that cannot take Effort: the housewife's, one of no roll, an automatic hit
    for bad_roll, why in ((1, "not one of Nimble Jen's rolls"), (jump + 99, "not one of")):
        bad = escape(
            "record", "effort-spent", "--character", "jen", "--roll", str(bad_roll), ok=False
        )
        assert bad.exit_code == 1 and why in bad.output
    hit = json.loads(escape("roll", "jen", "Sprint", "--target", "1", "--json").output)["seq"]
    bad = escape("record", "effort-spent", "--character", "jen", "--roll", str(hit), ok=False)
    assert bad.exit_code == 1 and "automatic hit" in bad.output
    escape("scene", "end")
    bad = escape("record", "effort-spent", "--character", "jen", "--roll", str(contest), ok=False)
    assert bad.exit_code == 1 and "no roll in this scene" in bad.output
    assert escape("verify").exit_code == 0


def test_effort_spent_written_before_16_still_goes_to_the_latest_roll():
    # schema version 1: `roll` was a note and the Effort went to the latest roll
    from ledger_spellwoven import Spellwoven

    from ledger.codec import Codec

    system = Spellwoven().configure({})
    codec = Codec(system.event_types, system.upcasters)
    old = b'{"type":"spellwoven.effort_spent","character":"jen","roll":3}'
    event = codec.decode(old, "spellwoven.effort_spent")
    assert (event.roll, event.latest) == (3, True)


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_campaign_effort_takes_the_roll_too(escape):
    contest = json.loads(
        escape(
            "roll",
            "Nimble Jen",
            "Manoeuvre",
            "--vs",
            "Irate Housewife:2",
            "--dice",
            "2,7,8,1,2,8",
            "--json",
        ).output
    )["seq"]
    escape("roll", "jen", "Sprint", "--difficulty", "1", "--dice", "6,6,10")
    out = json.loads(escape("effort", "jen", "--roll", str(contest), "--json").output)
    assert (out["roll"], out["bonus"], out["successes"], out["outcome"]) == (contest, 3, 4, "win")
    assert escape("verify").exit_code == 0


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_opposed_roll_against_the_housewife_on_the_ledger(escape):
    # "Example: Opposed Roll": Jen's Manoeuvre (Rank 6) scores 2, 7, 8: one success; the
    # housewife "rolls against her Fighting Skill of 2" (from her sheet): 1, 2, 8, three
    # successes; Jen spends 1 Effort, +3 from Quickness: four, and slips past
    out = json.loads(
        escape(
            "roll",
            "jen",
            "Manoeuvre",
            "--vs-character",
            "housewife",
            "--vs-skill",
            "Fighting",
            "--dice",
            "2,7,8,1,2,8",
            "--json",
        ).output
    )
    assert (out["vs_character"], out["vs_skill"], out["opponent_skill_level"]) == (
        "housewife",
        "Fighting",
        2,
    )
    assert (out["opponent"], out["successes"], out["opponent_successes"], out["outcome"]) == (
        "Irate Housewife",
        1,
        3,
        "lose",
    )
    spent = json.loads(escape("effort", "jen", "--json").output)
    assert (spent["successes"], spent["outcome"]) == (4, "win")
    # the housewife has no Weakness for Jen to exploit; an unknown skill of hers is refused
    bad = escape(
        "roll",
        "jen",
        "Manoeuvre",
        "--vs-character",
        "housewife",
        "--vs-skill",
        "Fighting",
        "--weakness",
        "--dice",
        "1,2,3,4,1,2,3",
        ok=False,
    )
    assert bad.exit_code == 1 and "no Weakness to exploit" in bad.output
    bad = escape(
        "roll",
        "jen",
        "Manoeuvre",
        "--vs-character",
        "housewife",
        "--vs",
        "housewife:2",
        "--dice",
        "1,2,3,4,5,6",
        ok=False,
    )
    assert bad.exit_code == 1 and "not both" in bad.output
    assert escape("verify").exit_code == 0
