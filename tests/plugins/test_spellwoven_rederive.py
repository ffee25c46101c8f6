"""Spellwoven rolls re-derive from their recorded inputs and draws (ledger.results): the
book's worked examples with the book's dice, random states and requests (hypothesis), and a
changed result field is always caught.

Seed 004_663ae3e4ecc71fd1.txt "Example: Static Difficulty", "Example: Opposed Roll",
"Static Difficulty from Attributes", "Advantage & Disadvantage", "Skill level 10+" (the
worked examples V8–V15 and V24 of tests/plugins/test_spellwoven.py); docs/rulings/spellwoven.md
"Re-deriving and correcting rolls". ``verify``, ``import`` and ``audit`` call
:func:`ledger.results.result_problem` for every roll; ``correct`` reads amended inputs back
through the core's default ``request_of``, from the inputs each roll keeps by option name.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as s
from ledger_spellwoven import Spellwoven
from ledger_spellwoven.events import ContestRolled, TestRolled
from ledger_spellwoven.state import Character
from msgspec import UNSET

from ledger import DiceError, ReplayDice, Roll, RollRequest, RuleError
from ledger.codec import Codec, encode_data
from ledger.dice.engine import EngineDice, PhysicalDice
from ledger.events import event_tag
from ledger.rules.results import result_problem

JEN = {  # campaigns/nimble-jen/characters/jen.toml: Quickness 3, Sprint 5, Manoeuvre 6
    "attributes": {"Behest": 1, "Fortitude": 2, "Presence": 2, "Quickness": 3, "Wits": 2},
    "skills": {
        "Sprint": {"rank": 5, "attribute": "Quickness"},
        "Manoeuvre": {"rank": 6, "attribute": "Quickness"},
        "Climb": {"rank": 4, "attribute": "Quickness"},
    },
    "weaknesses": {"combat": "Freezes when cornered", "social": "Cannot resist a dare"},
}


def jen(options: dict[str, Any] | None = None) -> tuple[Spellwoven, Character]:
    system = Spellwoven().configure(options or {})
    return system, system.initial_state("jen", "Nimble Jen", system.create_sheet(JEN))


def roll(
    system: Spellwoven, state: Character, skill: str, faces: list[int], **params: Any
) -> TestRolled | ContestRolled:
    dice = PhysicalDice([str(f) for f in faces])
    request = RollRequest("jen", "Nimble Jen", skill, params)
    event = system.resolve(state, request, dice)
    dice.finish()
    return system.with_inputs(event, request)  # as the core records it: with its inputs


def rederives(system: Spellwoven, state: Character, event: Roll) -> bool:
    """``event`` re-derives to itself, and ``resolve(request_of(e), ReplayDice(e)) == e``."""
    replay = ReplayDice(event)
    again = system.resolve(state, system.request_of(event), replay)
    replay.finish()
    again = msgspec.structs.replace(again, inputs=event.inputs)  # inputs aside
    return again == event and result_problem(system, state, event, name="Nimble Jen") is None


# --- the book's worked examples -----------------------------------------------------------


def test_jen_misses_the_jump_and_would_pass_with_effort():
    """V8 "Example: Static Difficulty": Sprint 5, Normal, 6, 6, 10: no success, fails; the
    same dice with Effort (+3 Quickness) give 3 successes and pass."""
    system, state = jen()
    event = roll(system, state, "Sprint", [6, 6, 10], difficulty=1)
    assert (event.skill_level, event.successes, event.outcome) == (5, 0, "fail")
    assert rederives(system, state, event)
    assert system.request_of(event) == RollRequest("jen", "", "Sprint", {"difficulty": 1})
    spent = roll(system, state, "Sprint", [6, 6, 10], difficulty=1, effort=True)
    assert (spent.effort_bonus, spent.successes, spent.outcome) == (3, 3, "pass")
    assert rederives(system, state, spent)
    assert system.request_of(spent).params["effort"] is True


def test_jen_against_the_housewife_loses_then_wins_with_effort():
    """V9–V11 "Example: Opposed Roll": Manoeuvre 6, 2, 7, 8 = 1 success against the
    housewife's Fighting 2, 1, 2, 8 = 3: lose; with 1 Effort (+3) 4 against 3: win."""
    system, state = jen()
    event = roll(system, state, "Manoeuvre", [2, 7, 8, 1, 2, 8], vs="Irate Housewife:2")
    assert isinstance(event, ContestRolled)
    assert (event.successes, event.opponent_successes, event.outcome) == (1, 3, "lose")
    assert rederives(system, state, event)
    assert system.request_of(event).params["vs"] == "Irate Housewife:2"  # as it was asked
    spent = roll(system, state, "Manoeuvre", [2, 7, 8, 1, 2, 8], vs="housewife:2", effort=True)
    assert (spent.successes, spent.opponent_successes, spent.outcome) == (4, 3, "win")
    assert rederives(system, state, spent)


def test_difficulty_from_the_targets_attribute_and_the_automatic_hit():
    """V12, V13 "Static Difficulty from Attributes": Attribute 4 needs 3 successes; an
    Attribute of 1 is an automatic hit with no dice."""
    system, state = jen()
    event = roll(system, state, "Climb", [1, 2, 3], target=4)
    assert (event.difficulty, event.target_attribute, event.successes) == (3, 4, 4)
    assert rederives(system, state, event)
    auto = roll(system, state, "Climb", [], target=1, weakness=True)
    assert (auto.dice, auto.difficulty, auto.outcome, auto.mode) == ([], 0, "pass", "normal")
    assert rederives(system, state, auto)


def test_advantage_and_disadvantage_keep_the_books_three():
    """V24 "Advantage & Disadvantage": S 5, 1, 9, 10, 3: advantage keeps 1, 9, 3 (3
    successes), disadvantage keeps 9, 10, 3 (1); a Weakness is advantage and cancels with
    disadvantage (ruling S8)."""
    system, state = jen()
    up = roll(system, state, "Sprint", [1, 9, 10, 3], advantage=True)
    assert (up.kept, up.successes) == ([1, 9, 3], 3)
    down = roll(system, state, "Sprint", [1, 9, 10, 3], disadvantage=True)
    assert (down.kept, down.successes) == ([9, 10, 3], 1)
    weak = roll(system, state, "Sprint", [1, 9, 10, 3], weakness=True)
    cancelled = roll(system, state, "Sprint", [1, 9, 10], weakness=True, disadvantage=True)
    assert (weak.mode, cancelled.mode, cancelled.weakness) == ("advantage", "normal", True)
    for event in (up, down, weak, cancelled):
        assert rederives(system, state, event)
    assert system.request_of(cancelled).params == {"weakness": True, "disadvantage": True}


def test_skill_12_pool_untrained_and_a_gm_named_attribute():
    """V15 "Skill level 10+": S 12, 1, 2, 10 = 4 successes; a pool of 2 by GM fiat ("Basic
    Distributions"); an untrained skill with a named Attribute (ruling S2, S7)."""
    system, state = jen()
    state = msgspec.structs.replace(
        state,
        skills={**state.skills, "Climb": msgspec.structs.replace(state.skills["Climb"], rank=12)},
    )
    event = roll(system, state, "Climb", [1, 2, 10])
    assert (event.skill_level, event.successes) == (12, 4)
    pooled = roll(system, state, "Climb", [5, 6, 7], pool=2, advantage=True)
    assert (pooled.pool, pooled.kept) == (2, [5, 6])
    assert system.request_of(pooled).params["pool"] == 2
    untrained = roll(system, state, "Swim", [3, 4, 5], attribute="Wits")
    assert (untrained.rank, untrained.skill_level) == (None, 3)
    named = roll(system, state, "Sprint", [3, 4, 5], attribute="wits")
    assert (named.attribute, named.attribute_value) == ("Wits", 2)
    for e in (event, pooled, untrained, named):
        assert rederives(system, state, e)


def test_an_opponent_name_with_a_colon_round_trips():
    """An opponent as an older contest's inputs are rebuilt (``{"name", "level", "mode"}``)
    reads back whatever its name holds."""
    system, state = jen()
    guard = {"name": "Guard: the tall one", "level": 4, "mode": "advantage"}
    event = roll(system, state, "Sprint", [1, 2, 3, 4, 5, 6, 7], vs=guard)
    assert event.opponent == "Guard: the tall one" and event.opponent_kept == [4, 5, 6]
    assert rederives(system, state, event)
    codec = Codec(Spellwoven.event_types, Spellwoven.upcasters)
    stored = codec.decode(encode_data(event), "spellwoven.contest_rolled")
    assert rederives(system, state, stored)
    with pytest.raises(RuleError, match="1 or more"):
        roll(system, state, "Sprint", [1, 2, 3, 4, 5, 6], vs={"name": "x", "level": 0})


RESULT_FIELDS = {
    "dice": [1, 1, 1],
    "rank": 9,
    "skill_level": 9,
    "attribute_value": 4,
    "kept": [1, 1, 1],
    "dice_successes": 6,
    "effort_bonus": 4,
    "successes": 9,
    "outcome": "pass",
    "opponent_kept": [1, 1, 1],
    "opponent_successes": 6,
}


def test_request_of_reads_no_result_field():
    """#14: result fields are derived; the request read back from a roll ignores them."""
    system, state = jen()
    event = roll(system, state, "Manoeuvre", [2, 7, 8, 1, 2, 8], vs="housewife:2")
    request = system.request_of(event)
    for field, value in RESULT_FIELDS.items():
        changed = msgspec.structs.replace(event, **{field: value})
        assert system.request_of(changed) == request, field
        assert result_problem(system, state, changed, name="Nimble Jen") is not None, field


def read_by_request_of(system: Spellwoven, event: Any) -> set[str]:
    """The fields ``request_of`` reads: what ``correct`` treats as a roll's inputs."""
    read: set[str] = set()
    names = set(event.__struct_fields__)

    class Spy(type(event), frozen=True, kw_only=True):  # type: ignore[misc]
        def __getattribute__(self, name: str) -> Any:
            if name in names:
                read.add(name)
            return super().__getattribute__(name)

    system.request_of(Spy(**{f: getattr(event, f) for f in names}))
    return read


def test_the_inputs_are_the_ones_the_rulings_name():
    """docs/rulings/spellwoven.md "Re-deriving and correcting rolls": a roll is read back
    from its inputs only (the options it was asked, by name); every other field is worked
    out again."""
    system, state = jen()
    test = roll(system, state, "Sprint", [6, 6, 10], difficulty=2)
    assert read_by_request_of(system, test) == {"character", "inputs"}
    assert test.inputs.params == {"difficulty": 2}
    target = roll(system, state, "Sprint", [6, 6, 10], target=3)
    assert target.inputs.params == {"target": 3}
    contest = roll(system, state, "Manoeuvre", [2, 7, 8, 1, 2, 8], vs="housewife:2")
    assert read_by_request_of(system, contest) == {"character", "inputs"}
    assert contest.inputs.params == {"vs": "housewife:2"}


def test_a_pool_is_recorded_only_when_not_three_and_old_pooled_rolls_still_rederive():
    """``pool`` joined the roll events later (ruling SW7): a roll of 3 dice keeps its stored
    bytes; a pooled roll stored without it re-derives from its kept faces; an amended mode
    that its faces do not show is refused, not guessed."""
    codec = Codec(Spellwoven.event_types, Spellwoven.upcasters)
    system, state = jen()
    plain = roll(system, state, "Sprint", [6, 6, 10], difficulty=1)
    assert b"pool" not in encode_data(plain)
    pooled = roll(system, state, "Sprint", [2, 6, 9], pool=2, disadvantage=True)
    stored = encode_data(pooled)
    assert b'"pool":2' in stored
    assert encode_data(codec.decode(stored, "spellwoven.test_rolled")) == stored
    for made in (
        pooled,
        roll(system, state, "Sprint", [1, 2, 3, 4, 5], pool=5),
        roll(
            system,
            state,
            "Sprint",
            [1, 2, 3, 4, 5, 6, 7, 8],
            vs="guard:4:advantage",
            pool=3,
            advantage=True,
        ),
    ):  # stored as then: no pool, no inputs (schema version 1), read through the upcaster
        bytes_then = msgspec.json.encode(msgspec.structs.replace(made, pool=UNSET, inputs=UNSET))
        old = codec.decode(bytes_then, event_tag(type(made)))
        assert "pool" not in old.inputs.params
        assert result_problem(system, state, old, name="Nimble Jen") is None
    forged = msgspec.structs.replace(plain, mode="advantage")  # not what it was asked
    assert "mode" in (result_problem(system, state, forged, name="Nimble Jen") or "")


def test_a_weakness_at_disadvantage_or_an_automatic_hit_with_a_mode_is_refused():
    """Neither is a roll ``resolve`` makes (rulings S8, SW3): the mode is worked out again
    from what the roll was asked, so a recorded one is named."""
    system, state = jen()
    weak = roll(system, state, "Sprint", [1, 9, 10, 3], weakness=True)
    at_disadvantage = msgspec.structs.replace(weak, mode="disadvantage")
    assert "mode" in (result_problem(system, state, at_disadvantage, name="Nimble Jen") or "")
    auto = roll(system, state, "Sprint", [], target=1)
    with_a_mode = msgspec.structs.replace(auto, mode="advantage")
    assert "mode" in (result_problem(system, state, with_a_mode, name="Nimble Jen") or "")


def test_other_roll_types_are_refused():
    class Other(Roll, frozen=True, kw_only=True, tag="spellwoven.test_other"):
        character: str

    with pytest.raises(RuleError, match="cannot re-derive"):
        Spellwoven().request_of(Other(character="jen", source="physical", draws=[(10, 1)]))


def test_a_forged_result_is_named_with_the_recorded_and_the_rules_values():
    """#13: dice [6, 6, 10] turned into a pass with 3 successes is caught, naming both."""
    system, state = jen()
    event = roll(system, state, "Sprint", [6, 6, 10], difficulty=1)
    forged = msgspec.structs.replace(event, dice_successes=3, successes=3, outcome="pass")
    problem = result_problem(system, state, forged, name="Nimble Jen") or ""
    assert "recorded dice_successes 3, outcome 'pass', successes 3" in problem
    assert "the rules give dice_successes 0, outcome 'fail', successes 0" in problem
    faces = msgspec.structs.replace(
        event, dice=[1, 1, 1], dice_successes=6, successes=6, outcome="pass"
    )
    assert "dice" in (result_problem(system, state, faces, name="Nimble Jen") or "")


# --- every roll, by hypothesis ------------------------------------------------------------

ATTRS = ("Behest", "Fortitude", "Presence", "Quickness", "Wits")
SKILLS = ("Sprint", "Climb", "Fighting", "Brawling", "Swim", "wits", "sprint")

options = s.fixed_dictionaries(
    {
        "untrained": s.sampled_from(["max3attr", "fixed3", "attribute"]),
        "max_effort_per_roll": s.integers(1, 2),
        "default_difficulty": s.integers(1, 4),
    }
)


@s.composite
def states(draw: Any) -> tuple[Spellwoven, Character]:
    """A configured system and a random NPC (any rank 1..20): Attributes, skills, a
    specialisation, Effort left."""
    system = Spellwoven().configure(draw(options))
    sheet = {
        "kind": "npc",
        "attributes": {a: draw(s.integers(1, 4)) for a in ATTRS},
        "skills": {
            name: {"rank": draw(s.integers(1, 20)), "attribute": attr}
            for name, attr in (
                ("Sprint", "Quickness"),
                ("Climb", "Quickness"),
                ("Fighting", "Fortitude"),
            )
            if name == "Fighting" or draw(s.booleans())
        },
        "specialisations": {"Brawling": {"rank": draw(s.integers(1, 20)), "skill": "Fighting"}},
    }
    state = system.initial_state("jen", "Jen", system.create_sheet(sheet))
    state = msgspec.structs.replace(state, effort=draw(s.integers(0, state.effort_max)))
    return system, state


@s.composite
def requests(draw: Any) -> RollRequest:
    """A random ``campaign roll``: many are refused by the rules (and skipped)."""
    params: dict[str, Any] = {
        name: True
        for name in ("advantage", "disadvantage", "weakness", "effort")
        if draw(s.integers(0, 2)) == 2
    }
    if draw(s.booleans()):
        params["attribute"] = draw(s.sampled_from([*ATTRS, "quickness"]))
    if draw(s.integers(0, 3)) == 3:
        params["pool"] = draw(s.integers(1, 6))
    kind = draw(s.sampled_from(["test", "difficulty", "target", "vs"]))
    if kind == "difficulty":
        params["difficulty"] = draw(s.integers(0, 5))
    elif kind == "target":
        params["target"] = draw(s.integers(0, 5))
    elif kind == "vs":
        name = draw(s.sampled_from(["", "guard", "the Guard: tall"]))
        level = draw(s.integers(0, 20))
        mode = draw(s.sampled_from(["", "advantage", "disadvantage", "weakness"]))
        if ":" in name:  # as an older contest's inputs are rebuilt
            params["vs"] = {
                "name": name,
                "level": level,
                "mode": {"weakness": "advantage", "": "normal"}.get(mode, mode),
            }
        else:
            params["vs"] = ":".join(p for p in (name, str(level), mode) if p)
    return RollRequest("jen", "Jen", draw(s.sampled_from(SKILLS)), params)


dice_kinds = s.one_of(
    s.tuples(
        s.just("engine"), s.binary(min_size=32, max_size=32), s.integers(0, 50), s.text(max_size=8)
    ),
    s.tuples(s.just("physical"), s.lists(s.integers(1, 10), min_size=14, max_size=14)),
)


def resolved(system: Spellwoven, state: Character, request: RollRequest, kind: Any) -> Any:
    """The roll ``campaign roll`` would record, or ``None`` when the rules refuse it."""
    try:
        engine = system.resolve(state, request, EngineDice(b"\x07" * 32, "c", 1, 1, ""))
        if kind[0] == "engine":
            event = system.resolve(state, request, EngineDice(kind[1], "c", 1, kind[2], kind[3]))
        else:
            dice = PhysicalDice([str(f) for f in kind[1][: len(engine.draws)]])
            event = system.resolve(state, request, dice)
            dice.finish()
        return system.with_inputs(event, request)  # as the core records it
    except RuleError:
        return None


def changed(value: Any, field: str, event: Any) -> Any:
    """A different value of the same kind for one result field."""
    others = {
        "outcome": ["pass", "fail"] if isinstance(event, TestRolled) else ["win", "lose", "draw"],
        "mode": ["normal", "advantage", "disadvantage"],
    }
    if field in others:
        return next(o for o in others[field] if o != value)
    if value is None:
        return [1, 1, 1] if field.endswith("kept") else 3
    if isinstance(value, int):
        return value + 1
    if isinstance(value, list):
        return [*value, 1] if not value else [11 - value[0], *value[1:]]
    raise AssertionError(field)


COMMON_RESULTS = (
    "rank",
    "skill_level",
    "attribute_value",
    "mode",
    "dice",
    "kept",
    "dice_successes",
    "effort_bonus",
    "successes",
    "outcome",
)
TEST_RESULTS = (*COMMON_RESULTS, "difficulty")  # derived only with target_attribute
CONTEST_RESULTS = (*COMMON_RESULTS, "opponent_dice", "opponent_kept", "opponent_successes")


@given(states(), requests(), dice_kinds)
def test_every_resolved_roll_rederives_to_itself_and_any_changed_result_is_caught(
    world: tuple[Spellwoven, Character], request: RollRequest, kind: Any
) -> None:
    system, state = world
    event = resolved(system, state, request, kind)
    if event is None:
        return
    assert rederives(system, state, event)
    if isinstance(event, ContestRolled):
        fields: tuple[str, ...] = CONTEST_RESULTS
    elif event.target_attribute is not None:
        fields = TEST_RESULTS
    else:
        fields = COMMON_RESULTS
    for field in fields:
        forged = msgspec.structs.replace(
            event, **{field: changed(getattr(event, field), field, event)}
        )
        assert result_problem(system, state, forged, name="Jen") is not None, field


@given(states(), requests())
def test_a_roll_the_rules_refuse_is_never_rederived(
    world: tuple[Spellwoven, Character], request: RollRequest
) -> None:
    """A roll made with more Effort than the state before it holds is refused on
    re-derivation, as on append (ruling S6)."""
    system, state = world
    event = resolved(system, state, request, ("engine", b"\x01" * 32, 3, ""))
    if event is None or not event.effort_spent:
        return
    poorer = msgspec.structs.replace(state, effort=0)
    assert "Effort" in (result_problem(system, poorer, event, name="Jen") or "")


def test_replayed_draws_of_another_die_are_refused():
    system, state = jen()
    event = roll(system, state, "Sprint", [6, 6, 10], difficulty=1)
    other = msgspec.structs.replace(event, draws=[(10, 6), (6, 6), (10, 10)])
    with pytest.raises(DiceError):
        system.rederive(state, other, name="Nimble Jen")
