"""Time consequences that roll: ``time_passed`` draws committed, verifiable engine dice.

The toy system heals a hurt character by a d6 per full week of rest (tests/toy.py,
``Toy.time_passed``). Its dice come from the open session's committed seed at the
session's next nonces, are recorded in the ``toy.healed`` events, and ``campaign verify``
re-checks them once the seed is revealed: a forged time draw is found.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.test_verify_results import forge
from tests.toy import Healed


def _log(invoke: Any) -> list[dict[str, Any]]:
    result = invoke("--as", "gm", "log", "--json")
    assert result.exit_code == 0, result.output
    return list(json.loads(result.output))


@pytest.fixture
def healed(toy_campaign: Any) -> dict[str, Any]:
    """Ann hurt for 6 in session 1, then two weeks of rest (her heal roll), session ended:
    the ``toy.healed`` record as the log gives it."""
    invoke = toy_campaign
    assert invoke("session", "start").exit_code == 0
    assert invoke("roll", "ann", "brawl").exit_code == 0  # engine roll, nonce 0
    assert invoke("record", "hurt", "--character", "ann", "--amount", "6").exit_code == 0
    passed = invoke("time", "pass", "2w", "--rest")
    assert passed.exit_code == 0, passed.output
    assert invoke("session", "end").exit_code == 0
    records = [r for r in _log(invoke) if r["type"] == "toy.healed"]
    assert len(records) == 1  # Bob is not hurt: no roll for him
    return dict(records[0])


def test_a_healing_roll_per_week_is_a_committed_engine_draw(healed, toy_campaign):
    data = healed["data"]
    assert data["character"] == "ann" and data["weeks"] == 2
    assert data["source"] == "engine" and data["client_seed"] == "heal:ann"
    assert data["nonce"] == 1  # after the session's one engine roll
    assert [sides for sides, _ in data["draws"]] == [6, 6]
    assert data["dice"] == [value for _, value in data["draws"]]
    assert data["healed"] == min(sum(data["dice"]), 6)
    sheet = json.loads(toy_campaign("sheet", "ann", "--json").output)
    assert sheet["hp"] == 4 + data["healed"]
    out = json.loads(toy_campaign("verify", "--json").output)
    assert out["ok"] and out["engine_rolls_verified"] == 2, out


def test_verify_catches_a_forged_time_draw(healed, toy_campaign, db_path):
    data = healed["data"]
    (sides, value), second = data["draws"][0], data["draws"][1]
    other = value % 6 + 1  # a face the seed did not give
    dice = [other, second[1]]
    forge(
        db_path, "toybox", healed["seq"],
        draws=[[sides, other], second], dice=dice, healed=min(sum(dice), 6),
    )  # fmt: skip
    result = toy_campaign("verify")
    assert result.exit_code == 1, result.output
    assert f"verification failed at seq {healed['seq']}" in result.output
    assert f"die 1 (d6) shows {other} but the seed gives {value}" in result.output
    assert "Traceback" not in result.output


def test_verify_catches_a_forged_heal_beside_honest_draws(healed, toy_campaign, db_path):
    forge(db_path, "toybox", healed["seq"], healed=healed["data"]["healed"] + 1)
    result = toy_campaign("verify")
    assert result.exit_code == 1
    assert f"verification failed at seq {healed['seq']}: the recorded result does not follow" in (
        result.output
    )


def test_time_that_rolls_needs_an_open_session(toy_campaign):
    invoke = toy_campaign
    assert invoke("record", "hurt", "--character", "ann", "--amount", "3").exit_code == 0
    before = len(_log(invoke))
    result = invoke("time", "pass", "1w", "--rest")
    assert result.exit_code == 1, result.output
    assert "engine dice need an open session" in result.output
    assert len(result.output.strip().splitlines()) == 1 and "Traceback" not in result.output
    assert len(_log(invoke)) == before
    assert invoke("time", "pass", "8h").exit_code == 0  # no roll: no session needed


def test_a_batch_with_invented_draws_is_refused(toy_campaign, db_path):
    """The span's consequences are checked on append by asking the rules again with the
    same session dice: a heal with other faces is not what they give; nothing is written."""
    import msgspec

    from ledger import RuleError
    from ledger.campaign.aggregate import open_campaign
    from ledger.campaign.timeline import plan, span_of
    from ledger.store.sqlite import Store

    invoke = toy_campaign
    invoke("session", "start")
    invoke("record", "hurt", "--character", "ann", "--amount", "6")
    campaign = open_campaign(Store(db_path))
    planned = plan(campaign, span_of(campaign, "1w", rest=True))
    (heal,) = planned.consequences
    assert isinstance(heal, Healed) and heal.nonce == 0
    (sides, value) = heal.draws[0]
    forged = msgspec.structs.replace(
        heal, draws=[(sides, value % 6 + 1)], dice=[value % 6 + 1], healed=value % 6 + 1
    )
    before = len(_log(invoke))
    with pytest.raises(RuleError, match="not the consequences the rules give"):
        campaign.append([planned.span, forged], actor="gm", at="2026-03-01T19:30:00.000000Z")
    assert len(_log(invoke)) == before
    records = campaign.append([planned.span, heal], actor="gm", at="2026-03-01T19:30:00.000000Z")
    assert [r.data for r in records][1] == heal  # the honest plan appends as planned


def test_a_dry_run_draws_nothing(toy_campaign):
    """A dry run plans the heal with placeholder dice and says it rolls when the time
    passes: the GM does not see the real dice before choosing to pass the time."""
    invoke = toy_campaign
    invoke("session", "start")
    invoke("record", "hurt", "--character", "ann", "--amount", "6")
    before = len(_log(invoke))
    dry = invoke("time", "pass", "1w", "--rest", "--dry-run")
    assert dry.exit_code == 0, dry.output
    assert "toy.healed of ann: rolled when the time passes (not in a dry run)" in dry.output
    as_json = json.loads(invoke("time", "pass", "1w", "--rest", "--dry-run", "--json").output)
    assert [c["line"] for c in as_json["consequences"]] == [
        "toy.healed of ann: rolled when the time passes (not in a dry run)"
    ]  # the placeholder faces are shown nowhere
    assert len(_log(invoke)) == before
    wet = invoke("time", "pass", "1w", "--rest", "--json")
    assert wet.exit_code == 0, wet.output
    assert [r["type"] for r in _log(invoke)[before:]] == ["time.passed", "toy.healed"]
