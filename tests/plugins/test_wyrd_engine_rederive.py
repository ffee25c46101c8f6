"""The Wyrd Engine: every roll re-derives from its inputs and draws, and corrections
read their amended inputs back through ``request_of``: the core's default, which reads
what each roll keeps in its ``inputs``.

Seed 000_60e07241544698f0.txt ("Conflict resolution at a glance", "Passive Opposition",
"Active Opposition", "Attacking and Defending").
"""

from __future__ import annotations

import dataclasses
from typing import Any

import hypothesis
import msgspec
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from ledger_wyrd_engine import WyrdEngine
from ledger_wyrd_engine.events import CheckRolled
from ledger_wyrd_engine.state import CASEBOOK_SKILLS, Boon, Boost, Character, Trait, Wound

from ledger import DiceSource, ReplayDice, RollRequest, RuleError
from ledger.dice.engine import EngineDice, PhysicalDice, parse_faces
from ledger.rules.results import result_problem

SYSTEMS = [
    WyrdEngine().configure({}),
    WyrdEngine().configure({"dr_comparison": ">", "minor_cost_margins": [1]}),
]

#: What ``resolve`` derives (never what the roller chose), with a stand-in for ``None``.
RESULTS: dict[str, Any] = {
    "rating": None, "rating_skill": None, "dice": None, "roll": None, "trait_kind": "bonus",
    "trait_bonus": None, "wound_penalty": None, "total": None, "dr_name": "Basic",
    "opposition_dice": [0, 0, 0, 0], "opposition_total": 0, "margin": None, "outcome": None,
    "damage": None,
}  # fmt: skip
TRAITS = (
    Trait(name="Master Tinkerer", kind="bonus", skill="Crafts"),
    Trait(name="A Calculated Risk", kind="substitution", skill="Will", instead_of="Athletics"),
    Trait(name="Speaks with the Dead", kind="permission", skill="Lore"),
    Trait(name="Keen Eye", kind="bonus"),
    Trait(name="Hidden Derringer", kind="ability", once_per="scene"),
)
SKILLS = ("Crafts", "Will", "Athletics", "Lore", "Fight", "Investigate", "Notice")


class DrawnDice(DiceSource):
    """Faces chosen by hypothesis as the rule asks for each die (a physical roll's faces)."""

    source = "physical"

    def __init__(self, data: st.DataObject) -> None:
        super().__init__()
        self.data = data

    def _draw(self, sides: int) -> int:
        return self.data.draw(st.integers(1, sides))


def changed(value: Any, none: Any) -> Any:
    """A different value of the same shape: the forger's edit of one field."""
    if value is None:
        return none
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "x"
    assert isinstance(value, list) and value
    return [-1 if value[0] == 1 else value[0] + 1, *value[1:]]


def forged(event: CheckRolled, field: str) -> CheckRolled:
    """``event`` with one result field changed."""
    new = changed(getattr(event, field), RESULTS[field])
    return msgspec.structs.replace(event, **{field: new})


wounds = st.dictionaries(
    st.sampled_from(["mild", "moderate", "severe"]),
    st.builds(Wound, absorbed=st.just(1),
              affected_skills=st.lists(st.sampled_from(SKILLS), max_size=2).map(tuple)),
)  # fmt: skip
states = st.builds(
    Character,
    id=st.just("felix"),
    name=st.just("Felix Cavendish"),
    skills=st.dictionaries(st.sampled_from(SKILLS), st.integers(-1, 3)),
    traits=st.just(TRAITS),
    wounds=wounds,
    boons=st.lists(st.builds(Boon, name=st.just("Found the key"),
                             skill=st.none() | st.sampled_from(SKILLS)), max_size=1).map(tuple),
    boosts=st.lists(st.builds(Boost, value=st.sampled_from([1, 2])), max_size=2).map(tuple),
)  # fmt: skip
common = {
    "trait": st.sampled_from([t.name.lower() for t in TRAITS] + ["found the key"]),
    "boost": st.sampled_from([1, 2]),
    "teamwork": st.sampled_from([1, 2]),
    "physical": st.booleans(),
}
passive = st.fixed_dictionaries(
    {"dr": st.integers(-4, 7) | st.sampled_from(["good", "Trivial", "+2", "mediocre"])},
    optional=common,
)
opposed = st.fixed_dictionaries(
    {"vs": st.integers(-1, 5)},
    optional={**common, "attack": st.booleans(), "defend": st.booleans(),
              "opponent": st.sampled_from(["thug", "gunman"])},
)  # fmt: skip
requests = st.builds(
    lambda skill, params: RollRequest("felix", "Felix Cavendish", skill, params),
    st.sampled_from([*SKILLS, "stealth", *CASEBOOK_SKILLS[:3]]),
    passive | opposed,
)


def resolved(system: WyrdEngine, state: Character, request: RollRequest, dice: Any) -> Any:
    """The roll ``campaign roll`` records (with its inputs, as the core keeps them)."""
    try:
        return system.with_inputs(system.resolve(state, request, dice), request)
    except RuleError:
        assume(False)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(SYSTEMS), states, requests, st.binary(min_size=32, max_size=32),
       st.integers(0, 99), st.text(max_size=4))  # fmt: skip
def test_engine_rolls_rederive_and_every_forged_result_is_found(
    system, state, request, seed, nonce, client_seed
):
    event = resolved(system, state, request, EngineDice(seed, "casebook", 1, nonce, client_seed))
    hypothesis.event(
        f"{event.mode}, {event.trait_kind}, boost {bool(event.boost)}, "
        f"wounds {bool(event.wound_penalty)}"
    )
    assert result_problem(system, state, event, name="Felix Cavendish") is None
    for field in RESULTS:
        assert result_problem(system, state, forged(event, field), name="Felix Cavendish"), field


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(SYSTEMS), states, requests, st.data())
def test_physical_rolls_rederive_and_every_forged_result_is_found(system, state, request, data):
    drawn = resolved(system, state, request, DrawnDice(data))
    signs = "".join({1: "-", 2: "0", 3: "+"}[value] for _sides, value in drawn.draws)
    event = system.with_inputs(
        system.resolve(state, request, PhysicalDice(parse_faces(signs))), request
    )
    assert event == drawn
    assert result_problem(system, state, event, name="Felix Cavendish") is None
    for field in RESULTS:
        assert result_problem(system, state, forged(event, field), name="Felix Cavendish"), field


# --- corrections: amended inputs are resolved again ------------------------------------

JULIAN = Character(id="julian", name="Julian Hargrave",
                   skills={"Investigate": 3, "Notice": 2, "Rapport": 1, "Provoke": 2})  # fmt: skip


def book_roll(skill: str, faces: str, **params: Any) -> CheckRolled:
    request = RollRequest("julian", "Julian Hargrave", skill, params)
    event = SYSTEMS[0].resolve(JULIAN, request, PhysicalDice(parse_faces(faces)))
    assert isinstance(event, CheckRolled)
    return SYSTEMS[0].with_inputs(event, request)


def amended(event: CheckRolled, skill: str | None = None, **options: Any) -> CheckRolled:
    """``event`` with options amended in its inputs, as ``correct --set NAME=VALUE`` does."""
    inputs = event.inputs
    params = {**inputs.params, **options}
    fixed = msgspec.structs.replace(inputs, skill=skill or inputs.skill, params=params)
    return msgspec.structs.replace(event, inputs=fixed)


def reresolved(event: CheckRolled, **options: Any) -> Any:
    """What the core's ``correct`` does: read the amended inputs back, resolve again."""
    fixed = amended(event, **options)
    request = dataclasses.replace(SYSTEMS[0].request_of(fixed), name="Julian Hargrave")
    again = SYSTEMS[0].resolve(JULIAN, request, ReplayDice(fixed))
    return msgspec.structs.replace(again, inputs=fixed.inputs)


def test_seen_correct_set_dr_recomputes_outcome_and_margin():
    # W4 ("Skills in Action"): Notice +2, [+ − − ·] = −1, total 1 vs Fair (+1): a tie
    event = book_roll("notice", "+--0", dr="fair")
    assert (event.dr, event.dr_name, event.margin, event.outcome) == (1, "Challenging", 0, "tie")
    again = reresolved(event, dr=2)  # `correct SEQ --set dr=2`
    assert (again.dr, again.dr_name, again.margin, again.outcome) == (
        2, "Difficult", -1, "failure")  # fmt: skip
    assert (again.dice, again.total, again.draws) == (event.dice, 1, event.draws)
    assert result_problem(SYSTEMS[0], JULIAN, again, name="Julian Hargrave") is None


def test_amended_skill_boost_and_contest_rating_are_inputs():
    event = book_roll("investigate", "++-0", dr="good")  # W3: 4 vs +2, success
    julian = msgspec.structs.replace(JULIAN, boosts=(Boost(value=1),))
    request = dataclasses.replace(
        SYSTEMS[0].request_of(amended(event, skill="Rapport", boost=1)), name="Julian Hargrave"
    )
    again = SYSTEMS[0].resolve(julian, request, ReplayDice(event))
    assert (again.skill, again.rating, again.boost, again.total, again.outcome) == (
        "Rapport", 1, 1, 3, "success")  # fmt: skip
    opposed = book_roll("provoke", "++00 0000", vs=1, opponent="thief")
    assert (opposed.mode, opposed.margin, opposed.outcome) == ("contest", 3, "success_with_style")
    again = reresolved(opposed, vs=3)
    assert (again.opposition_total, again.margin, again.outcome) == (3, 1, "success")


def test_the_opposition_without_its_dice_is_refused():
    event = book_roll("provoke", "++00 0000", vs=1, attack=True)
    assert (event.mode, event.damage) == ("attack", 3)
    short = msgspec.structs.replace(event, draws=event.draws[:4])
    problem = result_problem(SYSTEMS[0], JULIAN, short, name="Julian Hargrave")
    assert problem and "the rules draw more dice than the 4 recorded" in problem


def test_another_system_of_roll_is_not_rederived():
    from ledger_decision_dice.events import SupplyRolled

    other = SupplyRolled(character="julian", item="Kit", die="d6", dice=[2], total=2,
                         target=4, after="d4", outcome="failure", source="physical",
                         draws=[(6, 2)])  # fmt: skip
    with pytest.raises(RuleError, match="wyrd-engine cannot re-derive"):
        SYSTEMS[0].request_of(other)
