"""A roll keeps its inputs: for a rule system that writes no ``request_of``, the core records
what each roll was asked (skill, declared options by name, opponent on the ledger) and the
default ``request_of`` reads it back, so ``verify`` re-derives the roll and ``correct``
re-resolves an amended one with no code of the system's. A system that writes its own
``request_of`` records nothing more: its rolls' bytes are unchanged."""

from __future__ import annotations

import json
import sqlite3

import msgspec
import pytest

from ledger import RuleSystem
from ledger.dice.engine import PhysicalDice
from ledger.errors import RuleError
from ledger.events import RollInputs
from ledger.rules.roll_inputs import Opponent, RollRequest

from .toy import Toy, ToyRolled


def payloads(db_path: str, type_: str) -> list[dict]:
    conn = sqlite3.connect(db_path)
    try:
        rows = conn.execute("SELECT seq, data FROM events WHERE type = ? ORDER BY seq", (type_,))
        return [{"seq": seq, **json.loads(data)} for seq, data in rows]
    finally:
        conn.close()


@pytest.fixture
def by_default(monkeypatch):
    """The toy rules as a new system writes them: no ``request_of`` of their own."""
    monkeypatch.setattr(Toy, "request_of", RuleSystem.request_of)


def test_a_roll_records_its_inputs_and_verify_reads_them(by_default, toy_campaign, db_path):
    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0
    result = invoke("roll", "ann", "Brawl", "--target", "9", "--dice", "3,4")
    assert result.exit_code == 0, result.output
    rolled = payloads(db_path, "toy.rolled")[-1]
    # by declared name, the skill as named, no flag anywhere
    assert rolled["inputs"] == {"skill": "Brawl", "params": {"target": 9}}
    assert "--" not in json.dumps(rolled["inputs"])
    verified = invoke("verify", "--json")
    assert verified.exit_code == 0, verified.output
    assert json.loads(verified.output)["results_rederived"] >= 1


def test_an_amended_input_is_resolved_again_by_default(by_default, toy_campaign, db_path):
    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0
    assert invoke("roll", "ann", "brawl", "--target", "10", "--dice", "3,4").exit_code == 0
    seq = payloads(db_path, "toy.rolled")[-1]["seq"]
    assert payloads(db_path, "toy.rolled")[-1]["outcome"] == "failure"  # 3 + 4 + 2 < 10
    amended = json.dumps({"skill": "brawl", "params": {"target": 9}})
    result = invoke("correct", str(seq), "--set", f"inputs={amended}", "--reason", "misheard")
    assert result.exit_code == 0, result.output
    correction = payloads(db_path, "correction.recorded")[-1]["data"]
    assert (correction["target"], correction["outcome"]) == (9, "success")  # 3 + 4 + 2 >= 9
    assert correction["inputs"] == {"skill": "brawl", "params": {"target": 9}}
    assert invoke("verify").exit_code == 0
    # a declared option (or the skill) is amended where the rules read it: the inputs
    result = invoke("correct", str(seq), "--set", "target=10", "--reason", "misheard again")
    assert result.exit_code == 0, result.output
    correction = payloads(db_path, "correction.recorded")[-1]["data"]
    assert (correction["target"], correction["outcome"]) == (10, "failure")
    assert correction["inputs"] == {"skill": "brawl", "params": {"target": 10}}
    assert invoke("verify").exit_code == 0
    # a derived field is still refused, and the message names the options to amend
    out = invoke("correct", str(seq), "--set", "outcome=success", "--reason", "x")
    assert out.exit_code == 1 and "amend its inputs instead (target, skill)" in out.output


def test_a_system_with_its_own_request_of_records_nothing_more(toy_campaign, db_path):
    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0
    assert invoke("roll", "ann", "brawl", "--target", "9", "--dice", "3,4").exit_code == 0
    assert "inputs" not in payloads(db_path, "toy.rolled")[-1]


def test_the_default_request_of_is_the_inverse_of_what_was_recorded(by_default):
    system = Toy()
    state = system.initial_state("ann", "Ann Vance", {"skills": {"brawl": 2}})
    request = RollRequest("ann", "Ann Vance", "brawl", {"target": 9, "unknown": 1},
                          Opponent("bob", skill="sneak"))  # fmt: skip
    event = system.with_inputs(system.resolve(state, request, PhysicalDice(["3", "4"])), request)
    assert event.inputs == RollInputs(skill="brawl", params={"target": 9},
                                      vs_character="bob", vs_skill="sneak")  # fmt: skip
    assert system.opponent_of(event) == "bob"
    read = system.request_of(event)
    assert read == RollRequest("ann", "", "brawl", {"target": 9}, Opponent("bob", skill="sneak"))
    # decoded from its stored bytes, it reads back the same
    stored = msgspec.json.decode(msgspec.json.encode(event), type=ToyRolled)
    assert system.request_of(stored) == read
    without = msgspec.structs.replace(event, inputs=msgspec.UNSET)
    with pytest.raises(RuleError, match="cannot re-derive toy.rolled"):
        system.request_of(without)


def test_an_option_given_several_times_reads_back_as_a_tuple(by_default, monkeypatch):
    from ledger import RollParam

    monkeypatch.setattr(
        Toy,
        "roll_options",
        (RollParam("target", "t", type=int), RollParam("tag", "t", multiple=True)),
    )
    system = Toy()
    state = system.initial_state("ann", "Ann Vance", {"skills": {"brawl": 2}})
    request = RollRequest("ann", "Ann Vance", "brawl", {"tag": ("a", "b")})
    event = system.with_inputs(system.resolve(state, request, PhysicalDice(["3", "4"])), request)
    stored = msgspec.json.decode(msgspec.json.encode(event), type=ToyRolled)
    assert stored.inputs.params == {"tag": ["a", "b"]}
    assert system.request_of(stored).params == {"tag": ("a", "b")}
