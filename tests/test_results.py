"""Re-deriving a recorded roll's result from its inputs and draws (ledger.results)."""

from __future__ import annotations

import msgspec
import pytest

from ledger import DiceError, ReplayDice, RollRequest
from ledger.dice.engine import EngineDice, PhysicalDice
from ledger.rules.results import result_problem
from tests.toy import Improved, Toy, ToyRolled

SYSTEM = Toy().configure({})
STATE = SYSTEM.initial_state("ann", "Ann", {"skills": {"sneak": 2}})


def rolled(faces: str = "3,4", target: int = 9) -> ToyRolled:
    dice = PhysicalDice(faces.split(","))
    event = SYSTEM.resolve(STATE, RollRequest("ann", "Ann", "sneak", {"target": target}), dice)
    dice.finish()
    assert isinstance(event, ToyRolled)
    return event


def test_a_faithful_physical_roll_rederives_to_itself():
    event = rolled()
    assert (event.total, event.outcome) == (9, "success")
    assert result_problem(SYSTEM, STATE, event, name="Ann") is None


def test_a_faithful_engine_roll_rederives_to_itself():
    dice = EngineDice(b"k" * 32, "c", 1, 0, "")
    event = SYSTEM.resolve(STATE, RollRequest("ann", "Ann", "sneak", {"target": 7}), dice)
    assert result_problem(SYSTEM, STATE, event, name="Ann") is None


def test_a_forged_result_is_named_beside_what_the_rules_give():
    # the forger's case: draws say [3, 4] (total 9) but the result says 14, success vs 12
    event = msgspec.structs.replace(rolled(target=12), total=14, outcome="success")
    problem = result_problem(SYSTEM, STATE, event, name="Ann")
    assert problem == (
        "recorded outcome 'success', total 14; the rules give outcome 'failure', total 9 "
        "for its inputs and dice"
    )


def test_faces_that_disagree_with_the_draws_are_found():
    event = msgspec.structs.replace(rolled(), dice=[6, 6])
    assert "dice [6, 6]" in (result_problem(SYSTEM, STATE, event, name="Ann") or "")


def test_draws_of_other_dice_than_the_rules_draw_are_refused():
    event = msgspec.structs.replace(rolled(), draws=[(20, 3), (6, 4)])
    assert result_problem(SYSTEM, STATE, event, name="Ann") == (
        "the rules refuse its recorded inputs and dice: die 1 is recorded as a d20 but the "
        "rules draw a d6 there"
    )


def test_too_many_or_too_few_recorded_draws():
    few = msgspec.structs.replace(rolled(), draws=[(6, 3)])
    many = msgspec.structs.replace(rolled(), draws=[(6, 3), (6, 4), (6, 1)])
    assert "draw more dice than the 1 recorded" in (result_problem(SYSTEM, STATE, few, name="A") or "")
    assert "3 dice are recorded but the rules draw 2" in (
        result_problem(SYSTEM, STATE, many, name="A") or ""
    )


def test_replay_dice_hand_back_the_recorded_fields():
    dice = EngineDice(b"k" * 32, "c", 1, 4, "pick")
    event = SYSTEM.resolve(STATE, RollRequest("ann", "Ann", "sneak", {}), dice)
    replay = ReplayDice(event)
    replay.roll(2, 6)
    replay.finish()
    assert replay.fields() == {
        "source": "engine",
        "draws": list(event.draws),
        "nonce": 4,
        "client_seed": "pick",
    }
    with pytest.raises(DiceError):
        replay.d(6)


def test_a_system_may_override_rederive_for_rolls_resolve_does_not_make():
    event = Improved(
        character="ann", skill="sneak", for_session=1, die=5, improved=False,
        source="engine", draws=[(6, 5)], nonce=0, client_seed="",
    )  # fmt: skip
    assert "improved False" in (result_problem(SYSTEM, STATE, event, name="Ann") or "")
