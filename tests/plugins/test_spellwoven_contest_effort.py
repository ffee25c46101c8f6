"""Spellwoven: the opponent on the ledger spends Effort in a Contest of Skill (ruling
SW10), with the book's numbers (seed 004_663ae3e4ecc71fd1.txt, "Example: Opposed Roll").

"In a **Contest of Skill**, both Characters test their skill" ("Example Contests of Skill"),
and "When you test your Skill you have the option to expend extra **Effort** and add bonus
successes" ("Attributes and Effort"): the housewife may spend Effort on her side as Jen does
on hers. Her point is taken in the roll's batch, on her stream.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from click.testing import CliRunner
from freezegun import freeze_time
from ledger_spellwoven.events import ContestEffortSpent

from ledger import RuleError
from ledger.campaign.aggregate import open_campaign
from ledger.campaign.validation import check_contests
from ledger.cli import cli
from ledger.store.sqlite import Store

CAMPAIGN = Path(__file__).resolve().parents[2] / "campaigns" / "nimble-jen"
# "Catherine rolls 3d10 and scores a 2, 7 and 8" / the housewife "rolls a 1, 2 and 8"
BOOK_DICE = "2,7,8,1,2,8"


def effort(run, who):
    return json.loads(run("sheet", who, "--json").output)["effort"]


def contest(run, *extra, ok=True):
    return run(
        "roll",
        "jen",
        "Manoeuvre",
        "--vs-character",
        "housewife",
        "--vs-skill",
        "Fighting",
        "--dice",
        BOOK_DICE,
        *extra,
        "--json",
        ok=ok,
    )


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_the_housewife_spends_effort_on_her_side(escape):
    # her three successes (1 = two, 2 = one) + Fortitude 2 (Fighting's Attribute) = 5;
    # Jen's one success loses, and her own Effort (+3 Quickness) makes 4: still short
    out = json.loads(contest(escape, "--vs-effort").output)
    assert (out["successes"], out["opponent_successes"], out["outcome"]) == (1, 5, "lose")
    assert (out["vs_effort_spent"], out["vs_attribute"], out["vs_effort_bonus"]) == (
        1,
        "Fortitude",
        2,
    )
    assert (effort(escape, "jen"), effort(escape, "housewife")) == (2, 1)
    log = json.loads(escape("log", "--json").output)
    roll, opposed, spent = log[-3:]
    assert (opposed["type"], opposed["stream"]) == ("contest.opposed", "housewife")
    assert (spent["type"], spent["stream"]) == ("spellwoven.contest_effort_spent", "housewife")
    assert (spent["data"]["roll"], spent["data"]["bonus"]) == (roll["seq"], 2)
    # both logs show it
    jen_log = escape("log", "--character", "jen").output
    assert "3 successes, +2 Effort (Fortitude) = 5: lose" in jen_log
    hers = escape("log", "--character", "housewife").output
    assert f"spends 1 Effort in the Contest of Skill of roll {roll['seq']}" in hers
    after = json.loads(escape("effort", "jen", "--json").output)
    assert (after["successes"], after["outcome"]) == (4, "lose")
    assert escape("verify").exit_code == 0


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_the_recap_and_sheet_show_her_effort(escape):
    contest(escape, "--vs-effort")
    recap = escape("recap", "--session", "1", "--as", "gm").output
    assert "Irate Housewife spent Effort: +2 successes (Fortitude)" in recap
    assert "Effort 2 → 1 (of 2)" in recap
    assert "1" in escape("sheet", "housewife").output


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_refused_when_the_opponent_has_no_effort_left(escape):
    escape(
        "record",
        "effort-lost",
        "--character",
        "housewife",
        "--amount",
        "2",
        "--reason",
        "chased the cat",
    )
    before = escape.db.read_bytes()
    bad = contest(escape, "--vs-effort", ok=False)
    assert bad.exit_code == 1
    assert "Irate Housewife has 0 Effort left of 2 and cannot spend 1" in bad.output
    assert "Traceback" not in bad.output
    assert escape.db.read_bytes() == before


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_retracting_the_roll_gives_both_their_effort_back(escape):
    out = json.loads(contest(escape, "--effort", "--vs-effort").output)
    assert (out["successes"], out["opponent_successes"], out["outcome"]) == (4, 5, "lose")
    assert (effort(escape, "jen"), effort(escape, "housewife")) == (1, 1)
    escape("correct", str(out["seq"]), "--reason", "x")
    assert (effort(escape, "jen"), effort(escape, "housewife")) == (2, 2)
    assert escape("verify").exit_code == 0
    # her side is corrected through the roll, never on its own
    spent = out["seq"] + 2
    alone = escape("correct", str(spent), "--reason", "x", ok=False)
    assert alone.exit_code == 1 and f"came with roll {out['seq']}" in alone.output
    # and the retraction can be undone: both points are spent again
    log = json.loads(escape("log", "--json").output)
    correction = log[-1]["seq"]
    escape("correct", str(correction), "--reason", "it stood")
    assert (effort(escape, "jen"), effort(escape, "housewife")) == (1, 1)
    assert escape("verify").exit_code == 0


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_her_effort_cannot_be_recorded_apart_from_the_roll(escape):
    out = json.loads(contest(escape).output)
    assert "vs_effort_spent" not in out and out["opponent_successes"] == 3
    before = escape.db.read_bytes()
    forged = escape(
        "record",
        "contest-effort-spent",
        "--character",
        "housewife",
        "--roller",
        "jen",
        "--roll",
        str(out["seq"]),
        "--attribute",
        "Fortitude",
        "--bonus",
        "2",
        ok=False,
    )
    assert (
        forged.exit_code == 1
        and "by `campaign roll` against a character on the ledger" in forged.output
    )
    assert escape.db.read_bytes() == before
    assert effort(escape, "housewife") == 2


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_vs_effort_needs_an_opponent_on_the_ledger(escape):
    bad = escape(
        "roll",
        "jen",
        "Manoeuvre",
        "--vs",
        "housewife:2",
        "--vs-effort",
        "--dice",
        BOOK_DICE,
        ok=False,
    )
    assert bad.exit_code == 1 and "name them on the ledger" in bad.output


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_an_export_reimports_and_verifies(escape, tmp_path):
    contest(escape, "--vs-effort")
    escape("session", "end")
    dump = tmp_path / "dump.ndjson"
    dump.write_text(escape("export", "--as", "gm").output)
    runner = CliRunner()
    other = str(tmp_path / "other.db")
    result = runner.invoke(cli, ["--db", other, "import", str(dump)])
    assert result.exit_code == 0, result.output
    sheet = json.loads(runner.invoke(cli, ["--db", other, "sheet", "housewife", "--json"]).output)
    assert sheet["effort"] == 1


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_a_batch_without_her_side_or_with_a_forged_one_is_refused(escape):
    """Through the engine's append (what `import` replays): the roll that says she spent
    Effort must bring exactly her ContestEffortSpent after its contest.opposed."""
    out = json.loads(contest(escape, "--vs-effort").output)
    camp = open_campaign(Store(str(escape.db)))
    roll, opposed, spent = (camp.record(out["seq"] + i).data for i in range(3))
    assert isinstance(spent, ContestEffortSpent)
    seq = out["seq"]
    # her side is never written on its own; what a roll's batch must hold is what the
    # rules give for it, which `import` and `verify` check (the next test)
    with pytest.raises(RuleError, match="never on its own"):
        check_contests(camp, [spent], seq + 2)
    with pytest.raises(RuleError, match="never on its own"):  # naming a seq that is no roll
        check_contests(camp, [roll, opposed, msgspec.structs.replace(spent, roll=seq + 1)], seq)
    check_contests(camp, [roll, opposed, spent], seq)


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_verify_names_a_log_without_her_side_or_with_a_stray_one(escape):
    """What ``verify``/``import`` read (:class:`ledger.results.ResultCheck`): her
    ContestEffortSpent must follow the contest.opposed of the roll that says she spent it,
    and nowhere else."""
    from ledger.rules.results import ResultCheck

    out = json.loads(contest(escape, "--vs-effort").output)
    escape("roll", "jen", "Sprint", "--dice", "1,2,3")
    camp = open_campaign(Store(str(escape.db)))
    rows = list(camp.rows())

    def problems(rows):
        check = ResultCheck(camp.system, camp.codec)
        return [(e.seq, p) for e in rows if (p := check.feed(e))]

    assert problems(rows) == []
    spent = out["seq"] + 2
    dropped = [e for e in rows if e.seq != spent]
    [(at, problem)] = problems(dropped)
    assert at == spent + 1 and problem.startswith(
        f"roll {out['seq']} is followed by spellwoven.contest_effort_spent "
    )
    assert "'bonus': 2} by the rules, but it does not follow it" in problem
    stray = [e for e in rows if e.seq != spent] + [e for e in rows if e.seq == spent]
    assert (
        spent,
        f"event {spent} (spellwoven.contest_effort_spent) is part of roll "
        f"{out['seq']}, but it is not written with it as the rules give it",
    ) in problems(stray)
    # a forged bonus in her side is named with what the rules give
    forged = [
        msgspec.structs.replace(e, data=e.data.replace('"bonus":2', '"bonus":3'))
        if e.seq == spent
        else e
        for e in rows
    ]
    [(at, problem)] = problems(forged)
    assert at == spent and "'bonus': 2} by the rules; event" in problem


@freeze_time("2026-03-01 19:00:00", tick=True)
def test_amending_her_effort_is_refused_but_the_dice_can_be_corrected(escape):
    out = json.loads(contest(escape, "--vs-effort").output)
    bad = escape(
        "correct", str(out["seq"]), "--set", "vs_effort_spent=0", "--reason", "x", ok=False
    )  # worked out from the roll's inputs: the option is named instead
    assert bad.exit_code == 1 and "amend its inputs instead (" in bad.output
    assert " vs_effort, " in bad.output
    bad = escape("correct", str(out["seq"]), "--set", "vs_effort=false", "--reason", "x", ok=False)
    assert bad.exit_code == 1 and "retract it and roll again" in bad.output
    # a misread die of Jen's: 1, 7, 8 is two successes (1 = two), against her 5: lose
    escape("correct", str(out["seq"]), "--dice", "1,7,8,1,2,8", "--reason", "misread")
    sheet = json.loads(escape("sheet", "jen", "--json").output)["last_roll"]
    assert (sheet["successes"], sheet["opponent_successes"], sheet["outcome"]) == (2, 5, "lose")
    assert (effort(escape, "jen"), effort(escape, "housewife")) == (2, 1)
    assert escape("verify").exit_code == 0


def test_the_opponents_effort_names_its_roll_by_the_default_follow_up_of():
    """A ``part_of_roll`` event names its roll in ``roll``, which the core's default reads;
    an event that is not part of a roll is no follow-up, whatever fields it has."""
    from ledger_spellwoven import Spellwoven
    from ledger_spellwoven.events import EffortSpent

    from ledger import RuleSystem

    system = Spellwoven()
    assert type(system).follow_up_of is RuleSystem.follow_up_of
    spent = ContestEffortSpent(character="hw", roller="jen", roll=12, attribute="Wits", bonus=2)
    assert system.follow_up_of(spent) == 12
    assert system.follow_up_of(EffortSpent(character="jen", roll=12)) is None
