"""Corrections go through the rules: validated like new events, rolls re-resolved,
sheets re-checked, and replay never skipping an event silently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ledger.campaign.aggregate import open_campaign
from ledger.events import Corrected
from ledger.store.sqlite import Pending, Store

AT = "2026-03-01T19:00:00.000000Z"
ROOT = Path(__file__).resolve().parents[1]


def data(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def snapshot_of(db_path: str) -> list[tuple]:
    """Every stored event row and the head: what "nothing written" compares."""
    store = Store(db_path)
    return list(store.rows("toybox"))


def refused(invoke, db_path, *args: str) -> str:
    """Run a command that must be refused: exit 1, one line, nothing written."""
    before = snapshot_of(db_path)
    result = invoke(*args)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output
    assert snapshot_of(db_path) == before
    return result.output


# --- 1. validated corrections and strict replay -------------------------------------------


def test_a_correction_that_breaks_a_later_event_is_refused_naming_every_one(toy_campaign, db_path):
    invoke = toy_campaign
    invoke("record", "luck-used", "--character", "ann")  # 4
    invoke("record", "luck-used", "--character", "bob")  # 5
    assert invoke("scene", "end").exit_code == 0  # 6: resets luck for everyone
    invoke("record", "luck-used", "--character", "ann")  # 7
    invoke("record", "luck-used", "--character", "bob")  # 8
    out = refused(invoke, db_path, "correct", "6", "--reason", "the scene went on")
    assert "would break 2 events" in out
    assert "event 7 (toy.luck_used: Ann Vance already used luck this scene)" in out
    assert "event 8 (toy.luck_used: Bob Marsh already used luck this scene)" in out
    # retracting the later uses first makes the scene-end retraction sound
    for seq in ("7", "8"):
        assert invoke("correct", seq, "--reason", "same scene").exit_code == 0
    assert invoke("correct", "6", "--reason", "the scene went on").exit_code == 0
    assert data(invoke("sheet", "ann", "--json"))["luck_used"] is True


def test_an_amendment_the_rules_refuse_names_the_amended_event_itself(toy_campaign, db_path):
    invoke = toy_campaign
    invoke("record", "hurt", "--character", "ann", "--amount", "3")  # 4
    out = refused(invoke, db_path, "correct", "4", "--set", "amount=-2", "--reason", "heal")
    assert "event 4 (the amended event itself: damage cannot be negative)" in out
    assert data(invoke("sheet", "ann", "--json"))["hp"] == 7


def test_seen_replay_never_skips_an_event_silently(toy_campaign, db_path):
    """A log whose correction was never validated (written past the rules, as an old
    ledger may hold): reading the sheet is an error naming the event, not a quiet skip."""
    invoke = toy_campaign
    invoke("record", "luck-used", "--character", "ann")  # 4
    invoke("scene", "end")  # 5
    invoke("record", "luck-used", "--character", "ann")  # 6
    store = Store(db_path)
    with store.transaction():
        store.append(
            "toybox",
            [Pending(Corrected(target=5, action="retract", reason="unchecked"))],
            actor="gm",
            recorded_at=AT,
            session=None,
        )
    result = invoke("sheet", "ann")
    assert result.exit_code == 1
    assert "event 6: Ann Vance already used luck this scene" in result.output
    campaign = open_campaign(Store(db_path))
    with pytest.raises(Exception, match="event 6: Ann Vance already used luck"):
        campaign.states()
    result = invoke("verify")  # said OK before
    assert result.exit_code == 1, result.output
    assert "6" in result.output and "already used luck" in result.output


def test_seen_retracting_an_early_supply_roll_is_refused_naming_the_later_one(invoke, frozen):
    salt = ROOT / "campaigns" / "the-salt-road" / "characters"
    assert invoke("new", "salt", "--system", "decision-dice").exit_code == 0
    assert invoke("character", "add", "--sheet", str(salt / "jen.toml")).exit_code == 0
    assert invoke("roll", "jen", "Climbing Kit", "--dice", "2").exit_code == 0  # 3: d8 → d6
    assert invoke("roll", "jen", "Climbing Kit", "--dice", "1").exit_code == 0  # 4: d6 → d4
    result = invoke("correct", "3", "--reason", "wrong kit")
    assert result.exit_code == 1
    assert "event 4 (decision-dice.supply_rolled: the supply roll used a d6" in result.output
    kit = next(i for i in data(invoke("sheet", "jen", "--json"))["equipment"]
               if i["name"] == "Climbing Kit")  # fmt: skip
    assert kit["supply"] == "d4"  # the sheet and the log still agree
    assert len(data(invoke("log", "--json"))) == 4


# --- 2. amending a roll re-resolves it ------------------------------------------------------


def amended(db_path: str, seq: int) -> dict:
    """The payload event ``seq`` counts with now."""
    return open_campaign(Store(db_path)).corrections().amended[seq]


def test_seen_an_amended_input_is_resolved_again(toy_campaign, db_path):
    invoke = toy_campaign
    roll = data(invoke("roll", "ann", "brawl", "--dice", "3,4", "--json"))  # 3+4+2 = 9 vs 7
    assert (roll["total"], roll["outcome"]) == (9, "success")
    assert invoke("correct", "4", "--set", "target=10", "--reason", "harder").exit_code == 0
    now = amended(db_path, 4)
    assert (now["target"], now["total"], now["outcome"]) == (10, 9, "failure")
    original = next(e for e in data(invoke("log", "--json")) if e["seq"] == 4)
    assert original["data"]["outcome"] == "success"  # the original stays in the log


def test_seen_corrected_faces_are_resolved_again(toy_campaign, db_path):
    invoke = toy_campaign
    data(invoke("roll", "ann", "brawl", "--dice", "1,2", "--json"))  # 5 vs 7: failure
    assert invoke("correct", "4", "--dice", "6,5", "--reason", "misread").exit_code == 0
    now = amended(db_path, 4)
    assert (now["dice"], now["draws"], now["total"], now["outcome"]) == (
        [6, 5], [[6, 6], [6, 5]], 13, "success")  # fmt: skip
    out = refused(invoke, db_path, "correct", "4", "--dice", "6,7", "--reason", "x")
    assert "6" in out and "7" in out


@pytest.mark.parametrize(
    ("field", "value"), [("outcome", "success"), ("total", "20"), ("dice", "[6,6]")]
)
def test_seen_a_derived_field_cannot_be_set(toy_campaign, db_path, field, value):
    invoke = toy_campaign
    data(invoke("roll", "ann", "brawl", "--dice", "1,2", "--json"))
    out = refused(invoke, db_path, "correct", "4", "--set", f"{field}={value}", "--reason", "x")
    assert f"{field} of event 4 is worked out by the rules" in out
    assert "amend its inputs instead (skill, target) or its faces (--dice)" in out


@pytest.mark.parametrize(
    "args",
    [
        ("--set", "draws=[[6,6],[6,6]]"),
        ("--set", "nonce=7"),
        ("--set", "client_seed=mine"),
        ("--set", "source=physical"),
        ("--set", "scheme=other"),
        ("--dice", "6,6"),
    ],
)
def test_seen_an_engine_rolls_randomness_is_never_amended(toy_campaign, db_path, args):
    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0
    assert invoke("roll", "ann", "brawl").exit_code == 0  # 5: engine
    out = refused(invoke, db_path, "correct", "5", *args, "--reason", "x")
    assert "event 5 is an engine roll" in out and "retract it and roll again" in out


def test_an_engine_rolls_inputs_may_be_amended_its_draws_stay(toy_campaign, db_path):
    invoke = toy_campaign
    invoke("session", "start")
    roll = data(invoke("roll", "ann", "brawl", "--json"))
    assert invoke("correct", "5", "--set", "target=12", "--reason", "DR").exit_code == 0
    now = amended(db_path, 5)
    assert (now["draws"], now["nonce"], now["target"]) == (roll["draws"], roll["nonce"], 12)
    assert now["outcome"] == ("success" if roll["total"] >= 12 else "failure")
    assert invoke("session", "end").exit_code == 0
    assert invoke("verify").exit_code == 0


def test_a_physical_rolls_source_cannot_become_engine(toy_campaign, db_path):
    invoke = toy_campaign
    invoke("roll", "ann", "brawl", "--dice", "1,2")
    out = refused(invoke, db_path, "correct", "4", "--set", "source=engine", "--reason", "x")
    assert "source cannot be amended" in out


def test_an_event_stays_with_its_character(toy_campaign, db_path):
    invoke = toy_campaign
    invoke("record", "hurt", "--character", "ann", "--amount", "3")
    out = refused(invoke, db_path, "correct", "4", "--set", "character=bob", "--reason", "x")
    assert "retract it and record it again" in out


def test_seen_wyrd_engine_amended_dr_recomputes_outcome_and_margin(invoke, frozen, db_path):
    casebook = ROOT / "campaigns" / "grand-casebook" / "characters"
    assert invoke("new", "cb", "--system", "wyrd-engine").exit_code == 0
    assert invoke("character", "add", "--sheet", str(casebook / "julian.toml")).exit_code == 0
    roll = data(invoke("roll", "julian", "athletics", "--dr", "1", "--dice", "+,0,-,0", "--json"))
    assert (roll["total"], roll["outcome"], roll["margin"]) == (1, "tie", 0)
    assert invoke("correct", "3", "--set", "dr=2", "--reason", "typo").exit_code == 0
    now = open_campaign(Store(db_path)).corrections().amended[3]
    assert (now["dr"], now["dr_name"], now["outcome"], now["margin"]) == (
        2, "Difficult", "failure", -1)  # fmt: skip
    result = invoke("correct", "3", "--set", "dr=1", "--set", "outcome=success", "--reason", "x")
    assert result.exit_code == 1 and "outcome of event 3 is worked out" in result.output


def test_seen_d20_faces_recompute_kept_band_and_experience(invoke, frozen, db_path):
    world = ROOT / "campaigns" / "the-world" / "characters"
    assert invoke("new", "vault", "--system", "d20-world").exit_code == 0
    assert invoke("character", "add", "--sheet", str(world / "isa.toml")).exit_code == 0
    roll = data(invoke("roll", "isa", "Lockpicking", "--time", "--dice", "5", "--json"))
    before = data(invoke("sheet", "isa", "--json"))
    result = invoke("correct", "3", "--set", "dice=[15]", "--reason", "misread")
    assert result.exit_code == 1 and "--dice" in result.output
    result = invoke("correct", "3", "--set", "experience=40", "--set", "outcome=good",
                    "--reason", "x")  # fmt: skip
    assert result.exit_code == 1 and "worked out by the rules" in result.output
    assert data(invoke("sheet", "isa", "--json")) == before
    assert invoke("correct", "3", "--dice", "15", "--reason", "misread").exit_code == 0
    now = open_campaign(Store(db_path)).corrections().amended[3]
    assert (roll["kept"], roll["outcome"], roll["experience"]) == (5, "bad", 2)
    assert (now["draws"], now["dice"], now["kept"], now["total"]) == ([[20, 15]], [15], 15, 18)
    assert (now["outcome"], now["experience"]) == ("good", 0)


def test_seen_a_spellwoven_correction_never_refunds_effort_silently(invoke, frozen, db_path):
    """Amending a roll's Effort is refused while spellwoven cannot re-derive its rolls, or
    (once it can) re-resolved so the successes and outcome follow; never a quiet refund."""
    jen = ROOT / "campaigns" / "nimble-jen" / "characters" / "jen.toml"
    assert invoke("new", "rooftops", "--system", "spellwoven").exit_code == 0
    assert invoke("character", "add", "--sheet", str(jen)).exit_code == 0
    roll = data(invoke("roll", "jen", "Sprint", "--effort", "--dice", "6,6,10", "--json"))
    assert (roll["effort_spent"], roll["successes"], roll["outcome"]) == (1, 3, "pass")
    assert data(invoke("sheet", "jen", "--json"))["effort"] == 1
    result = invoke("correct", "3", "--set", "effort_spent=0", "--reason", "no effort")
    assert result.exit_code == 1 and "amend its inputs instead (" in result.output
    assert " effort, " in result.output  # worked out from the option it was asked: named
    assert data(invoke("sheet", "jen", "--json"))["effort"] == 1
    result = invoke("correct", "3", "--set", "effort=false", "--reason", "no effort")
    if result.exit_code == 1:
        assert "retract it and roll again" in result.output
        assert data(invoke("sheet", "jen", "--json"))["effort"] == 1
    else:
        now = open_campaign(Store(db_path)).corrections().amended[3]
        assert (now["effort_spent"], now["effort_bonus"], now["successes"]) == (0, 0, 0)
        assert now["outcome"] != "pass"
        assert data(invoke("sheet", "jen", "--json"))["effort"] == 2
    result = invoke("correct", "3", "--set", "successes=3", "--set", "effort_spent=0",
                    "--reason", "x")  # fmt: skip
    assert result.exit_code == 1


# --- 3. sheets, characters and corrections of corrections -----------------------------------


def test_seen_an_amended_sheet_passes_the_creation_rules(toy_campaign, db_path):
    invoke = toy_campaign
    out = refused(invoke, db_path, "correct", "2", "--set", 'sheet={"skills": {"brawl": 9}}',
                  "--reason", "stronger")  # fmt: skip
    assert "skill brawl must be 0-3" in out  # what `character add` says
    out = refused(invoke, db_path, "correct", "2", "--set", "name=Ann\x1b[2JX", "--reason", "x")
    assert "invisible character" in out
    assert invoke("correct", "2", "--set", 'sheet={"skills": {"brawl": 3}}',
                  "--reason", "stronger").exit_code == 0  # fmt: skip
    assert data(invoke("sheet", "ann", "--json"))["skills"] == {"brawl": 3}


def test_seen_retracting_a_character_removes_it_everywhere(toy_campaign, db_path):
    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0  # 4
    assert invoke("record", "hurt", "--character", "bob", "--amount", "2").exit_code == 0  # 5
    assert invoke("correct", "3", "--reason", "bob never joined").exit_code == 0
    assert invoke("scene", "end").exit_code == 0  # blocked for ever before
    assert invoke("session", "end").exit_code == 0
    assert invoke("advance", "--session", "1").exit_code == 0
    assert "bob" not in invoke("character", "list").output
    result = invoke("sheet", "bob")
    assert result.exit_code == 1 and "no character 'bob'" in result.output
    assert refused(invoke, db_path, "record", "hurt", "--character", "bob", "--amount", "1")


def test_seen_a_second_retraction_is_refused(toy_campaign, db_path):
    invoke = toy_campaign
    invoke("record", "hurt", "--character", "ann", "--amount", "3")  # 4
    assert invoke("correct", "4", "--reason", "never happened").exit_code == 0  # 5
    out = refused(invoke, db_path, "correct", "4", "--reason", "really never")
    assert "event 4 is already retracted (by event 5)" in out
    out = refused(invoke, db_path, "correct", "4", "--set", "amount=1", "--reason", "x")
    assert "retract correction 5" in out
    # retracting the retraction restores the event
    assert invoke("correct", "5", "--reason", "it did happen").exit_code == 0
    assert data(invoke("sheet", "ann", "--json"))["hp"] == 7


def test_seen_amending_a_correction_is_refused_not_silently_undone(toy_campaign, db_path):
    invoke = toy_campaign
    invoke("record", "hurt", "--character", "ann", "--amount", "3")  # 4
    assert invoke("correct", "4", "--set", "amount=1", "--reason", "graze").exit_code == 0  # 5
    out = refused(invoke, db_path, "correct", "5", "--set", "reason=scratch", "--reason", "x")
    assert "event 5 is a correction and cannot be amended: correct event 4 again" in out
    assert data(invoke("sheet", "ann", "--json"))["hp"] == 9  # the first correction holds
    assert invoke("correct", "4", "--set", "amount=2", "--reason", "bruise").exit_code == 0
    assert data(invoke("sheet", "ann", "--json"))["hp"] == 8


# --- 4. a correction reads as a sentence ------------------------------------------------------


def test_seen_log_shows_an_amended_roll_as_a_sentence_not_a_dict(toy_campaign):
    invoke = toy_campaign
    invoke("roll", "ann", "brawl", "--dice", "3,4")  # 4: 9 vs 7, success
    invoke("correct", "4", "--set", "target=10", "--reason", "typo")  # 5
    line = invoke("log").output.splitlines()[-1]
    assert line == (
        "[5] Correction: event 4 amended by gm (typo): target 7 → 10; now outcome failure"
    )
    assert "{" not in line


def test_log_shows_corrected_faces_retractions_and_undos(toy_campaign):
    invoke = toy_campaign
    invoke("roll", "ann", "brawl", "--dice", "1,2")  # 4: 5 vs 7
    invoke("correct", "4", "--dice", "6,5", "--reason", "misread")  # 5
    invoke("record", "hurt", "--character", "bob", "--amount", "3")  # 6
    invoke("correct", "6", "--set", "amount=1", "--reason", "graze")  # 7
    invoke("correct", "6", "--reason", "never happened")  # 8
    invoke("correct", "8", "--reason", "it did")  # 9
    lines = invoke("log").output.splitlines()[-6:]
    assert lines[1] == (
        "[5] Correction: event 4 amended by gm (misread): faces 1 2 → 6 5; "
        "now dice 6 5, total 13, outcome success"
    )
    assert lines[3] == "[7] Correction: event 6 amended by gm (graze): amount 3 → 1"
    assert lines[4].startswith("[8] Correction: event 6 retracted by gm (never happened); "
                               "it no longer counts (was: ")  # fmt: skip
    assert "amount 1" in lines[4]  # what counted just before: the amended value
    assert lines[5] == (
        "[9] Correction: event 8 retracted by gm (it did): correction 8 of event 6 is undone"
    )


def test_seen_recap_and_audit_show_the_sentence_and_both_results(toy_campaign):
    invoke = toy_campaign
    invoke("session", "start")  # 4
    invoke("roll", "ann", "brawl", "--dice", "3,4")  # 5
    invoke("correct", "5", "--set", "target=10", "--reason", "typo")  # 6
    recap = invoke("recap", "--session", "1").output
    assert "Correction: event 5 amended by gm (typo): target 7 → 10; now outcome failure" in recap
    audit = invoke("audit", "5").output
    assert "correction 6 at " in audit
    assert "event 5 amended by gm (typo): target 7 → 10; now outcome failure" in audit
    assert "original result: " in audit and "success" in audit.split("original result: ")[1]
    corrected = audit.split("corrected result: ")[1].splitlines()[0]
    assert "failure" in corrected and "target 10" in corrected
    out = data(invoke("audit", "5", "--json"))
    assert out["corrections"][0]["sentence"].startswith("event 5 amended by gm (typo)")
    assert "success" in out["original"] and "failure" in out["corrected"]
