"""decision-dice: every roll re-derives from its inputs and draws, and corrections
read their amended inputs back through ``request_of``: the inputs each roll keeps by
option name, read by the core's default ``request_of``.

Seed 002_735c6d6cd834a641.txt ("Decision Rolls", "Contested Rolls", "Supply Rolls").
"""

from __future__ import annotations

import dataclasses
from typing import Any

import hypothesis
import msgspec
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from ledger_decision_dice import DecisionDice
from ledger_decision_dice.events import ContestRolled, DecisionRolled, SupplyRolled
from ledger_decision_dice.rules import SUPPLY_ORDER
from ledger_decision_dice.state import Character, Condition, Item

from ledger import DiceSource, ReplayDice, RollRequest, RuleError, StoredEvent
from ledger.codec import Codec
from ledger.dice.engine import DiceError, EngineDice, PhysicalDice
from ledger.events import CharacterCreated, Corrected, event_tag
from ledger.rules.projection import Corrections, Projector, corrections_from
from ledger.rules.results import result_problem

SYSTEM = DecisionDice().configure({"max_contest_rounds": 4})
STATS = ("Agility", "Might", "Wits")
ITEMS = ("Field Medkit", "Lockpicks", "Climbing Kit", "Rope")

#: Result fields of each roll type: what the rules derive, never what the roller chose.
RESULTS: dict[type, tuple[str, ...]] = {
    DecisionRolled: (
        "stat_value",
        "dice",
        "decision_dice",
        "modifiers",
        "modifier_total",
        "target",
        "difficulty",
        "impossible_task",
        "total",
        "margin",
        "outcome",
        "conditions",
        "supply",
        "advantage",
        "disadvantage",
    ),
    ContestRolled: (
        "stat_value",
        "decision_dice",
        "modifiers",
        "modifier_total",
        "opponent_decision_dice",
        "opponent_modifier_total",
        "rounds",
        "dice",
        "total",
        "target",
        "margin",
        "winner",
        "outcome",
        "conditions",
    ),
    SupplyRolled: ("die", "dice", "total", "target", "after", "outcome"),
}


class DrawnDice(DiceSource):
    """Faces chosen by hypothesis as the rule asks for each die (a physical roll's faces)."""

    source = "physical"

    def __init__(self, data: st.DataObject) -> None:
        super().__init__()
        self.data = data

    def _draw(self, sides: int) -> int:
        return self.data.draw(st.integers(1, sides))


def changed(value: Any) -> Any:
    """A different value of the same shape: the forger's edit of one field."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return {"success": "failure", "failure": "success"}.get(value, value + "x")
    if value is None:
        return {"item": "Rope", "die": "d6", "face": 2, "after": "d4"}
    if isinstance(value, list):
        return [changed(value[0]), *value[1:]] if value else ["Blessed"]
    if isinstance(value, msgspec.Struct):
        first = msgspec.structs.fields(value)[-1].name
        return msgspec.structs.replace(value, **{first: changed(getattr(value, first))})
    raise AssertionError(f"no change for {value!r}")


def forged(event: Any, field: str) -> Any:
    """``event`` with one result field changed (re-decoded, as a stored forgery would be)."""
    data = msgspec.to_builtins(event)
    data[field] = msgspec.to_builtins(changed(getattr(event, field)))
    return msgspec.convert(data, type(event))


conditions = st.lists(
    st.builds(
        Condition,
        name=st.sampled_from(["Blessed", "Bad knee", "Higher ground", "Tired"]),
        kind=st.sampled_from(["bonus", "penalty", "modifier", "advantage", "disadvantage"]),
        value=st.integers(-3, 3),
        stat=st.sampled_from(["", *STATS]),
        rolls_left=st.integers(0, 2),
    ),
    max_size=3,
    unique_by=lambda c: c.name,
)
states = st.builds(
    Character,
    character=st.just("jen"),
    name=st.just("Nimble Jen"),
    stats=st.fixed_dictionaries({s: st.integers(0, 10) for s in STATS}),
    equipment=st.tuples(
        *(
            st.builds(Item, name=st.just(name), supply=st.sampled_from([None, *SUPPLY_ORDER]))
            for name in ITEMS
        )
    ).map(list),  # fmt: skip
    conditions=conditions,
)
mods = st.tuples() | st.lists(st.integers(-4, 4), max_size=2).map(tuple)
flags = {"advantage": st.booleans(), "disadvantage": st.booleans(),
         "bonus": mods, "penalty": mods, "modifier": mods}  # fmt: skip
decision = st.fixed_dictionaries(
    {"target": st.integers(1, 24) | st.sampled_from(["simple", "challenging", "impossible"]),
     **flags},
    optional={"adjust": mods, "impossible": st.booleans(), "supply": st.sampled_from(ITEMS)},
)  # fmt: skip
contest = st.fixed_dictionaries(
    {"opponent": st.sampled_from(["Ogre", "Bandit captain"]), **flags},
    optional={"opponent_modifier": mods, "opponent_advantage": st.booleans(),
              "opponent_disadvantage": st.booleans()},
)  # fmt: skip
requests = st.one_of(
    st.tuples(st.sampled_from([*STATS, "wits"]), decision),
    st.tuples(st.sampled_from(STATS), contest),
    st.tuples(st.sampled_from(ITEMS), st.just({})),
).map(lambda t: RollRequest("jen", "Nimble Jen", t[0], t[1]))


def resolved(state: Character, request: RollRequest, dice: DiceSource) -> Any:
    """The roll as the core records it: resolved, with the inputs it was asked."""
    try:
        return SYSTEM.with_inputs(SYSTEM.resolve(state, request, dice), request)
    except RuleError:
        assume(False)


@settings(max_examples=150, deadline=None)
@given(states, requests, st.binary(min_size=32, max_size=32), st.integers(0, 50),
       st.text(max_size=5))  # fmt: skip
def test_engine_rolls_rederive_and_every_forged_result_is_found(state, request, seed, nonce, cs):
    event = resolved(state, request, EngineDice(seed, "salt-road", 1, nonce, cs))
    hypothesis.event(
        f"{type(event).__name__}, {event.draws.__len__()} dice, "
        f"supply {getattr(event, 'supply', None) is not None}"
    )
    assert SYSTEM.request_of(event).skill is not None
    assert result_problem(SYSTEM, state, event, name="Nimble Jen") is None
    for field in RESULTS[type(event)]:
        assert result_problem(SYSTEM, state, forged(event, field), name="Nimble Jen"), field


@settings(max_examples=150, deadline=None)
@given(states, requests, st.data())
def test_physical_rolls_rederive_and_every_forged_result_is_found(state, request, data):
    drawn = resolved(state, request, DrawnDice(data))
    faces = [str(value) for _sides, value in drawn.draws]
    event = SYSTEM.with_inputs(SYSTEM.resolve(state, request, PhysicalDice(faces)), request)
    assert event == drawn
    assert result_problem(SYSTEM, state, event, name="Nimble Jen") is None
    for field in RESULTS[type(event)]:
        assert result_problem(SYSTEM, state, forged(event, field), name="Nimble Jen"), field


# --- the book's worked examples re-derive to themselves --------------------------------------

STATE = Character(
    character="jen", name="Nimble Jen", stats={"Agility": 1, "Might": 0, "Wits": 3},
    equipment=[Item(name="Field Medkit", supply="d8"), Item(name="Lockpicks", supply="d4")],
)  # fmt: skip


def roll(skill: str, faces: str, **params: Any) -> Any:
    request = RollRequest(character="jen", name="Nimble Jen", skill=skill, params=params)
    event = SYSTEM.with_inputs(SYSTEM.resolve(STATE, request, PhysicalDice(faces.split())), request)
    assert result_problem(SYSTEM, STATE, event, name="Nimble Jen") is None
    return event


def test_a_supply_roll_recorded_by_hand_is_rederived_from_the_item():
    # a stat and an item of the same name: `roll` rolls the stat (ruling DD3), so a supply
    # roll of that item can only be recorded by hand; it is still re-derived from the item
    state = msgspec.structs.replace(STATE, equipment=[Item(name="Wits", supply="d6")])
    event = SupplyRolled(
        character="jen",
        item="Wits",
        die="d6",
        dice=[2],
        total=2,
        target=4,
        after="d4",
        outcome="failure",
        source="physical",
        draws=[(6, 2)],
    )
    assert result_problem(SYSTEM, state, event, name="Nimble Jen") is None
    lying = msgspec.structs.replace(event, after="d6", outcome="success")
    assert "after 'd6'" in (result_problem(SYSTEM, state, lying, name="Nimble Jen") or "")


def test_rederive_refuses_draws_of_another_die_than_the_item_has():
    event = roll("Field Medkit", "3")
    other = msgspec.structs.replace(event, draws=[(12, 3)])
    problem = result_problem(SYSTEM, STATE, other, name="Nimble Jen")
    assert problem and "recorded as a d12 but the rules draw a d8" in problem


# --- corrections: amended inputs are resolved again ------------------------------------


def reresolved(event: Any, **amended: Any) -> Any:
    """What the core's ``correct`` does with ``--set OPTION=VALUE``: the roll options
    amended in its inputs, read back and resolved again."""
    inputs = msgspec.structs.replace(event.inputs, params={**event.inputs.params, **amended})
    fixed = msgspec.structs.replace(event, inputs=inputs)
    request = dataclasses.replace(SYSTEM.request_of(fixed), name="Nimble Jen")
    dice = ReplayDice(fixed)
    again = SYSTEM.resolve(STATE, request, dice)
    dice.finish()
    return again


def test_an_amended_target_recomputes_outcome_and_margin():
    event = roll("Agility", "3 4", target="8")  # D1 / E7: 8 vs 8, a tie succeeds
    assert (event.outcome, event.margin) == ("success", 0)
    again = reresolved(event, target="12")
    assert (again.target, again.difficulty, again.margin, again.outcome) == (
        12, "Challenging Task", -4, "failure")  # fmt: skip
    assert again.dice == [3, 4] and again.draws == event.draws


def test_an_amended_bonus_line_and_adjustment_are_inputs():
    event = roll("Might", "4 4", target="8", bonus=(-2,), penalty=(1,))  # E8 / E9: count 0
    assert event.total == 8
    assert [(m.origin, m.source) for m in event.modifiers] == [
        ("stat", "Might"), ("option", "bonus"), ("option", "penalty")]  # fmt: skip
    again = reresolved(event, bonus=(2,), adjust=(2,))
    assert (again.modifier_total, again.total, again.target, again.outcome) == (
        2, 10, 10, "success")  # fmt: skip


def test_an_amended_contest_opponent_modifier_rerolls_nothing_but_rejudges():
    event = roll("Might", "3 3 2 2 3", opponent="Ogre", opponent_advantage=True)
    assert (event.total, event.target, event.outcome) == (6, 7, "failure")
    with pytest.raises(DiceError):  # without advantage the ogre draws 2 dice, not 3
        reresolved(event, opponent_advantage=False)
    again = reresolved(event, opponent_modifier=(-2,))
    assert (again.target, again.winner, again.outcome) == (5, "jen", "success")


# --- Seen: retracting an early supply roll refuses the later one -----------------------


def fold(events: list[Any], corrections: Corrections) -> dict[str, Any]:
    """Replay ``events`` (seq 1, 2, ...) strictly, as the core replays a correction."""
    rows = [
        StoredEvent(
            seq=seq,
            campaign="c",
            stream="jen",
            version=seq,
            type=event_tag(type(event)),
            data=msgspec.json.encode(event).decode(),
            recorded_at="",
            actor="gm",
            session=None,
            visibility="public",
            prev_hash="",
            hash="",
        )
        for seq, event in enumerate(events, start=1)
    ]
    projector = Projector(SYSTEM, Codec(SYSTEM.event_types, SYSTEM.upcasters))
    return projector.fold(rows, {}, corrections, strict=True)


def test_seen_retracting_an_early_supply_roll_refuses_the_later_supply_step():
    created = CharacterCreated(
        character="jen",
        name="Nimble Jen",
        sheet={"stats": {"Agility": 1}, "equipment": [{"name": "Field Medkit", "supply": "d8"}]},
    )
    early = roll("Field Medkit", "2")  # E12: d8 shows 2 → d6
    state = SYSTEM.appliers()[SupplyRolled](STATE, early)
    late = SYSTEM.resolve(
        state, RollRequest("jen", "Nimble Jen", "Field Medkit", {}), PhysicalDice(["1"])
    )  # d6 shows 1 → d4
    assert (late.die, late.after) == ("d6", "d4")
    events = [created, early, late]
    sheet = fold(events, Corrections())["jen"]
    assert sheet.equipment[0].supply == "d4"
    retract = Corrected(target=2, action="retract", reason="rolled on the wrong kit")
    with pytest.raises(
        RuleError,
        match=r"^event 3: the supply roll used a d6 but 'Field "
        r"Medkit' has a d8 now",
    ):
        fold(events, corrections_from([(4, retract)]))


def test_a_supply_face_the_items_die_cannot_show_is_refused_on_replay():
    # a d8 "showing" 9 would keep its size (9 > 3) and pass the step check: refused (DD5)
    forged_face = SupplyRolled(character="jen", item="Field Medkit", die="d8", dice=[9],
                               total=9, target=4, after="d8", outcome="success",
                               source="physical", draws=[(8, 9)])  # fmt: skip
    with pytest.raises(RuleError, match="a d8 shows 1 to 8, not 9"):
        SYSTEM.appliers()[SupplyRolled](STATE, forged_face)
    with_supply = roll("Wits", "3 2 4", target="challenging", supply="lockpicks")
    assert with_supply.supply is not None
    lying = msgspec.structs.replace(
        with_supply, supply=msgspec.structs.replace(with_supply.supply, face=7)
    )
    with pytest.raises(RuleError, match="a d4 shows 1 to 4, not 7"):
        SYSTEM.appliers()[DecisionRolled](STATE, lying)
