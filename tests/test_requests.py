"""Roll requests answered with the roller's entropy."""

from __future__ import annotations

import hashlib
import json

import msgspec
import pytest

from ledger.campaign.aggregate import open_campaign
from ledger.errors import RuleError
from ledger.store.sqlite import Store
from ledger.testing import refused

ENTROPY = hashlib.sha256(b"from dana's phone").hexdigest()


def js(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_a_request_is_answered_once_with_the_rollers_entropy(toy_campaign, db_path):
    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0
    asked = js(invoke("request", "ann", "brawl", "--player", "Dana", "--json"))
    assert asked["type"] == "roll.requested" and asked["skill"] == "brawl"
    log = invoke("log").output
    assert "Ann Vance — asked to roll brawl, of Dana: waiting for the answer" in log
    answer = js(invoke("roll", "ann", "--answer", str(asked["seq"]), "--entropy", ENTROPY, "--json"))
    assert answer["scheme"] == "ledger-roll-v2"
    assert (answer["request"], answer["entropy"]) == (asked["seq"], ENTROPY)
    again = refused(db_path, "roll", "ann", "--answer", str(asked["seq"]), "--entropy", ENTROPY)
    assert f"was answered at seq {answer['seq']}" in again
    assert "withdrawn" not in refused(db_path, "withdraw", str(asked["seq"]), "--reason", "oops")
    assert invoke("session", "end").exit_code == 0
    verified = js(invoke("verify", "--json"))
    assert verified["ok"] and verified["engine_rolls_verified"] == 1
    audit = js(invoke("audit", str(answer["seq"]), "--json"))
    assert audit["predictable"]["by"] == "roller-entropy" and audit["verdict"] == "verified"


def test_what_an_answer_may_not_do(toy_campaign, db_path):
    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0
    seq = str(js(invoke("request", "ann", "brawl", "--json"))["seq"])
    assert "fixed the roll's skill" in refused(db_path, "roll", "ann", "sneak", "--answer", seq, "--entropy", ENTROPY)
    assert "to answer" in refused(db_path, "roll", "bob", "--answer", seq, "--entropy", ENTROPY)
    assert "roller's entropy" in refused(db_path, "roll", "ann", "--answer", seq)
    assert "64 lower-case hex" in refused(db_path, "roll", "ann", "--answer", seq, "--entropy", "abc")
    assert "neither blind" in refused(db_path, "roll", "ann", "--answer", seq, "--entropy", ENTROPY, "--blind")
    assert "--answer" in refused(db_path, "roll", "ann", "brawl", "--entropy", ENTROPY)
    physical = js(invoke("roll", "ann", "--answer", seq, "--dice", "3,4", "--json"))
    assert physical["source"] == "physical" and physical["request"] == int(seq)


def test_a_request_withdrawn_before_its_answer_cannot_be_answered(toy_campaign, db_path):
    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0
    seq = str(js(invoke("request", "ann", "brawl", "--json"))["seq"])
    gone = js(invoke("withdraw", seq, "--reason", "the door was open after all", "--json"))
    assert gone["type"] == "roll.withdrawn"
    assert "was withdrawn at seq" in refused(db_path, "roll", "ann", "--answer", seq, "--entropy", ENTROPY)
    assert "not a roll request" in refused(db_path, "withdraw", "1", "--reason", "x")


def test_the_store_refuses_a_forged_answer(toy_campaign, db_path):
    """Through the one writer: an engine answer not drawn with entropy, or one answering
    another character's request, is refused before it is written."""
    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0
    seq = js(invoke("request", "ann", "brawl", "--json"))["seq"]
    roll = js(invoke("roll", "ann", "brawl", "--json"))  # an ordinary engine roll
    campaign = open_campaign(Store(db_path))
    event = campaign.record(roll["seq"]).data
    with pytest.raises(RuleError, match="drawn with the roller's entropy"):
        campaign.append([msgspec.structs.replace(event, request=seq)], actor="gm", at="2026-03-01T19:30:00Z")
    bob_event = msgspec.structs.replace(event, character="bob", request=seq, scheme="ledger-roll-v2")
    with pytest.raises(RuleError, match="ann's to answer"):
        campaign.append([bob_event], actor="gm", at="2026-03-01T19:30:00Z")


def test_a_request_the_rules_refuse_is_refused_at_once(toy_campaign, db_path):
    out = refused(db_path, "request", "ann", "no-such-skill")
    assert "skill" in out


def test_the_fairness_report_counts_rolls_by_who_could_have_known_them(toy_campaign, db_path):
    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0
    seq = str(js(invoke("request", "ann", "brawl", "--json"))["seq"])
    js(invoke("roll", "ann", "--answer", seq, "--entropy", ENTROPY, "--json"))
    js(invoke("roll", "ann", "brawl", "--json"))
    js(invoke("roll", "ann", "brawl", "--client-seed", "bob's word", "--json"))
    js(invoke("roll", "ann", "brawl", "--dice", "2,5", "--json"))
    report = js(invoke("fairness", "--json"))
    assert report["predictable"] == {
        "physical": 1, "gm-seed": 1, "client-seed": 1, "roller-entropy": 1,
    }  # fmt: skip
    text = invoke("fairness").output
    assert "the GM could have known it in advance" in text and "nobody could have known" in text
