"""decision-dice rolls keep their inputs by option name: a new roll records what it was
asked (``inputs``) and no command-line flag text, the core's default ``request_of`` reads it
back, and a roll written before (schema version 1: no ``inputs``, option lines with the
source ``"--bonus"``) is upcast on read, its inputs rebuilt from its fields, while its
stored bytes, and so every hash, stay as they were.

The old rolls are those of tests/data/decision-dice-v1 (its README says how they were made).
Seed 002_735c6d6cd834a641.txt ("Decision Rolls", "Contested Rolls", "Supply Rolls").
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner
from ledger_decision_dice.events import ContestRolled, DecisionRolled, SupplyRolled

from ledger.campaign.aggregate import open_campaign
from ledger.cli import cli
from ledger.events import Roll, RollInputs
from ledger.store.opening import open_store

HERE = Path(__file__).resolve().parents[1] / "data" / "decision-dice-v1"
CAMPAIGN = "salt"
ROLLS = (DecisionRolled, ContestRolled, SupplyRolled)


def run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.output


@pytest.fixture
def old(tmp_path) -> str:
    """A copy of the ledger written before rolls kept their inputs (opening may migrate)."""
    copy = tmp_path / "salt-road.db"
    shutil.copyfile(HERE / "salt-road.db", copy)
    copy.chmod(0o600)  # a ledger is the GM's alone (a clone checks the fixture out 644)
    return str(copy)


def everything(db: str) -> tuple[list[tuple[Any, ...]], list[dict[str, Any]]]:
    """Every stored row (all envelope fields, ``data`` as stored) and every secret."""
    store = open_store(db)
    try:
        rows = [msgspec.structs.astuple(e) for e in store.rows(CAMPAIGN)]
        secrets = sorted(store.secret_rows(CAMPAIGN), key=lambda r: (r["kind"], r["session"]))
        return rows, secrets
    finally:
        store.close()


def verified(db: str) -> dict[str, Any]:
    answer = json.loads(run("--db", db, "--as", "gm", "verify", "--json"))
    assert answer["ok"], answer
    return answer


def rolls(db: str) -> dict[int, Any]:
    """``{seq: roll event}`` of the campaign, read (and upcast) as today's code reads them."""
    store = open_store(db)
    try:
        campaign = open_campaign(store, CAMPAIGN)
        return {r.seq: r.data for r in campaign.records() if isinstance(r.data, ROLLS)}
    finally:
        store.close()


def request_of(db: str, event: Roll) -> Any:
    store = open_store(db)
    try:
        return open_campaign(store, CAMPAIGN).system.request_of(event)
    finally:
        store.close()


def test_the_old_ledger_verifies_imports_and_copies_byte_for_byte(old, store_target, tmp_path):
    before = everything(old)
    answer = verified(old)
    assert answer["results_rederived"] == 8 and answer["engine_rolls_verified"] == 1
    assert everything(old) == before  # reading never rewrote a row
    # the export the old code wrote (no secrets) imports into either backend, every row the
    # same, and copies back
    out = run("--db", store_target, "import", str(HERE / "salt-road.gm.ndjson"))
    assert "chain and rolls verified" in out, out
    assert everything(store_target)[0] == before[0]
    assert verified(store_target)["receipt"] == answer["receipt"]
    back = str(tmp_path / "back.db")
    run("copy", store_target, back)
    assert everything(back)[0] == before[0]


def test_an_old_roll_reads_in_the_new_shape(old):
    read = rolls(old)
    bonus = read[5]  # --target 8 --bonus -2 --penalty 1
    assert [(m.origin, m.source, m.kind) for m in bonus.modifiers] == [
        ("stat", "Might", "stat"),
        ("option", "bonus", "bonus"),
        ("option", "penalty", "penalty"),
    ]
    assert bonus.inputs == RollInputs(
        skill="Might", params={"target": "8", "bonus": [-2], "penalty": [1]}
    )
    adjusted = read[6]  # --target challenging --adjust 2 --modifier 1 --advantage
    assert adjusted.inputs.params == {
        "target": "12",  # the rung's number: what the rules read
        "adjust": [2],
        "modifier": [1],
        "advantage": True,
    }
    assert read[7].inputs.params == {"target": "12", "supply": "Climbing Kit"}
    off_ledger = read[8]
    assert off_ledger.inputs == RollInputs(
        skill="Might",
        params={
            "opponent": "Bandit captain",
            "opponent_modifier": [1],
            "opponent_advantage": True,
            "bonus": [1],
        },
    )
    on_ledger = read[9]  # --vs-character oskar --modifier -1 --opponent-modifier 1
    assert on_ledger.inputs == RollInputs(
        skill="Agility", params={"modifier": [-1], "opponent_modifier": [1]}, vs_character="oskar"
    )
    assert [(m.origin, m.source) for m in on_ledger.vs_modifiers] == [
        ("stat", "Agility"),
        ("option", "opponent_modifier"),
        ("condition", "Old war wound"),  # a condition keeps its name
    ]
    assert read[11].inputs == RollInputs(skill="Climbing Kit")
    # the amendment recorded in the old shape reads in the new one too: target 8 became 6
    store = open_store(old)
    try:
        amended = open_campaign(store, CAMPAIGN).corrections().amended[12]
    finally:
        store.close()
    assert amended["base_target"] == 6


def test_an_old_roll_and_a_new_one_read_back_to_the_same_request(old):
    before = rolls(old)
    run("--db", old, "session", "start")
    again = (  # the old rolls' requests (a rung typed as its number, the stat as on the sheet)
        ("Might", "--target", "8", "--bonus", "-2", "--penalty", "1", "--dice", "4,4"),
        ("Agility", "--target", "12", "--adjust", "2", "--modifier", "1", "--advantage",
         "--dice", "2,3,6"),
        ("Wits", "--target", "12", "--supply", "Climbing Kit", "--dice", "4,5,3"),
        ("Might", "--opponent", "Bandit captain", "--opponent-modifier", "1",
         "--opponent-advantage", "--bonus", "1", "--dice", "2,5,4,3,1"),
        ("Agility", "--vs-character", "oskar", "--modifier", "-1", "--opponent-modifier", "1",
         "--dice", "6,1,1,1"),
        ("Climbing Kit", "--dice", "4"),
    )  # fmt: skip
    for args in again:
        run("--db", old, "roll", "jen", *args)
    after = rolls(old)
    new = [after[seq] for seq in sorted(after) if seq not in before]
    old_rolls = [before[seq] for seq in (5, 6, 7, 8, 9, 11)]
    assert len(new) == len(old_rolls)
    for was, now in zip(old_rolls, new, strict=True):
        assert type(was) is type(now)
        assert request_of(old, was) == request_of(old, now)
        assert was.inputs == now.inputs
    verified(old)


def test_a_new_roll_stores_its_inputs_by_name_and_no_flag_text(old):
    run("--db", old, "session", "start")
    run("--db", old, "roll", "jen", "Might", "--target", "8", "--bonus", "2", "--dice", "4,4")
    store = open_store(old)
    try:
        row = list(store.rows(CAMPAIGN))[-1]
    finally:
        store.close()
    payload = json.loads(row.data)
    assert payload["schema_version"] == 2
    assert payload["inputs"] == {"skill": "Might", "params": {"bonus": [2], "target": "8"}}
    assert payload["modifiers"][1] == {
        "origin": "option",
        "source": "bonus",
        "kind": "bonus",
        "stated": 2,
        "counted": 2,
    }
    assert '"--' not in row.data


def test_an_old_roll_is_amended_by_option_name_and_a_worked_out_field_is_refused(old):
    # roll 6: Challenging (12) adjusted by +2 = 14; amended to 10: target 12, 1+1+11 = 13
    run("--db", old, "correct", "6", "--set", "target=10", "--reason", "the wall was lower")
    store = open_store(old)
    try:
        amended = open_campaign(store, CAMPAIGN).corrections().amended[6]
    finally:
        store.close()
    assert amended["inputs"]["params"]["target"] == 10
    assert (amended["base_target"], amended["target"], amended["outcome"]) == (10, 12, "success")
    verified(old)
    rows = len(everything(old)[0])
    out = run("--db", old, "correct", "6", "--set", "base_target=8", "--reason", "x", code=1)
    assert out.count("\n") == 1 and "Traceback" not in out
    assert "base_target of event 6 is worked out by the rules" in out
    assert "amend its inputs instead (" in out and " target, skill)" in out
    assert len(everything(old)[0]) == rows  # nothing written
