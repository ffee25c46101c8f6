"""Spellwoven rolls keep their inputs by option name: a new roll records what it was
asked (``inputs``), the core's default ``request_of`` reads it back, and a roll written
before (schema version 1, no ``inputs``) is upcast on read, its inputs rebuilt from its
fields, while its stored bytes, and so every hash, stay as they were.

The old rolls are those of tests/data/spellwoven-v1 (its README says how they were made).
Seed 004_663ae3e4ecc71fd1.txt ("Test of Skill", "Opposed Roll (Contest of Skill)").
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner
from ledger_spellwoven.events import ContestRolled, TestRolled

from ledger.campaign.aggregate import open_campaign
from ledger.cli import cli
from ledger.store.opening import open_store

HERE = Path(__file__).resolve().parents[1] / "data" / "spellwoven-v1"
CAMPAIGN = "rooftops"


def run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.output


@pytest.fixture
def old(tmp_path) -> str:
    """A copy of the ledger written before rolls kept their inputs (opening may migrate)."""
    copy = tmp_path / "rooftops.db"
    shutil.copyfile(HERE / "rooftops.db", copy)
    copy.chmod(0o600)  # a ledger is the GM's alone (a clone checks the fixture out 644)
    return str(copy)


def rows(db: str) -> list[tuple[Any, ...]]:
    store = open_store(db)
    try:
        return [msgspec.structs.astuple(e) for e in store.rows(CAMPAIGN)]
    finally:
        store.close()


def verified(db: str) -> dict[str, Any]:
    answer = json.loads(run("--db", db, "--as", "gm", "verify", "--json"))
    assert answer["ok"], answer
    return answer


def rolls(db: str) -> dict[int, tuple[Any, Any]]:
    """``{seq: (roll event, the request read back from it)}``, as today's code reads them."""
    store = open_store(db)
    try:
        campaign = open_campaign(store, CAMPAIGN)
        return {
            r.seq: (r.data, campaign.system.request_of(r.data))
            for r in campaign.records()
            if isinstance(r.data, TestRolled | ContestRolled)
        }
    finally:
        store.close()


def test_the_old_ledger_verifies_imports_and_copies_byte_for_byte(old, store_target, tmp_path):
    before = rows(old)
    answer = verified(old)
    assert answer["results_rederived"] == 8 and answer["engine_rolls_verified"] == 1
    assert rows(old) == before  # reading never rewrote a row
    out = run("--db", store_target, "import", str(HERE / "rooftops.gm.ndjson"))
    assert "chain and rolls verified" in out, out
    assert rows(store_target) == before
    assert verified(store_target)["receipt"] == answer["receipt"]
    back = str(tmp_path / "back.db")
    run("copy", store_target, back)
    assert rows(back) == before


def test_an_old_roll_and_a_new_one_read_back_to_the_same_request(old):
    before = rolls(old)
    run("--db", old, "session", "start")
    run("--db", old, "record", "slept", "--character", "jen")  # her Effort back for --effort
    again = (  # the old rolls' requests (the difficulty they met, as its number, given)
        ("Sprint", "--difficulty", "1", "--dice", "6,6,10"),
        ("Climb", "--target", "4", "--effort", "--dice", "1,2,3"),
        ("Sprint", "--weakness", "--disadvantage", "--difficulty", "1", "--dice", "1,9,10"),
        ("Sprint", "--advantage", "--pool", "2", "--difficulty", "1", "--dice", "5,6,7"),
        ("Sprint", "--vs", "guard:4:advantage", "--dice", "1,2,3,4,5,6,7"),
    )
    for args in again:
        run("--db", old, "roll", "jen", *args)
    after = rolls(old)
    new = [after[seq] for seq in sorted(after) if seq not in before]
    assert len(new) == len(again)
    for seq, (event, request) in zip((5, 6, 7, 8, 10), new, strict=True):
        was, read = before[seq]
        assert type(was) is type(event)
        # an old roll always names its Attribute (it cannot tell whether the GM named it,
        # ruling S7): the skill's linked one here, as the new roll works out
        assert read.params.pop("attribute") == event.attribute == was.attribute
        if seq == 10:  # an opponent off the ledger reads back as its fields, any name
            assert read.params.pop("vs") == {"name": "guard", "level": 4, "mode": "advantage"}
            assert request.params.pop("vs") == "guard:4:advantage"
        assert read == request
    # the contest against a character on the ledger who spent Effort
    contest, read = before[11]
    assert contest.inputs.vs_character == "housewife" and contest.inputs.vs_skill == "Fighting"
    assert read.opponent is not None and read.params["vs_effort"] is True
    verified(old)


def test_an_old_roll_is_amended_by_option_name(old):
    # roll 14 (engine): Climb 4, 0 successes against Difficult (2); amended to Normal (1)
    run("--db", old, "correct", "14", "--set", "difficulty=1", "--reason", "an easy roof")
    store = open_store(old)
    try:
        amended = open_campaign(store, CAMPAIGN).corrections().amended[14]
    finally:
        store.close()
    assert amended["inputs"]["params"]["difficulty"] == 1
    assert (amended["difficulty"], amended["outcome"]) == (1, "fail")
    out = run("--db", old, "correct", "14", "--set", "successes=3", "--reason", "x", code=1)
    assert out.count("\n") == 1 and "amend its inputs instead (" in out
    verified(old)
