"""Contracts a rule system and a store backend run in their own tests.

The way eventsourcing ships ``ApplicationRecorderTestCase``: subclass, give what the class
asks for, and pytest runs every check on your code. Needs pytest (a test dependency; the
core does not import this module). The store backends' contract, :class:`EventStoreContract`,
lives in :mod:`ledger.testing.store_contract` and is importable from here too.

A rule system's contract, in three lines::

    from ledger.testing import RuleSystemContract

    class TestMySystemContract(RuleSystemContract):
        system = MySystem()
        sheet = {"id": "ann", "name": "Ann", "skills": {"climb": 2}}  # passes create_sheet
        # optional: rolls = ["roll ann climb --target 8 --dice 4,5"]; history = [events]

It plays the system's :attr:`~ledger.RuleSystem.example_roll` (or the ``rolls`` you give, in
the same ``roll CHARACTER SKILL --option value --dice FACES`` form, in order) with the book's
dice, and checks:

- every event type is frozen, keyword-only, documented, tagged ``<id>.<name>``, and names
  the section of the rule text it implements (``sections``);
- the system cites its seed and refuses an unknown option;
- ``resolve`` → ``request_of`` → ``rederive`` gives the same event back, from physical and
  from engine dice;
- appliers are pure: applying an event twice to one state gives equal states and leaves
  the state given unchanged;
- ``blind_form`` of a roll is an event of the system (or a :class:`~ledger.RuleError`);
- verdict words: ``verdict`` of every roll is ``"success"``, ``"mixed"``, ``"failure"`` or
  ``None``, and never ``None`` for a roll that records an ``outcome`` (or ``success``) the
  log would then show without its ✔ ◐ ✘;
- the time hook: ``time_passed`` answers a minute, a night's rest and a month of rest with
  care with the system's own events (or the core's), the same answer twice, without
  changing the states it is handed; where it takes ``dice``, each roll it returns is an
  engine draw in the order drawn that re-derives (``rederive``) like any other roll.
  ``spans`` and ``history`` (a hurt character, say) choose what it is asked.
"""

from __future__ import annotations

import inspect
import shlex
from collections.abc import Sequence
from typing import Any, ClassVar

import msgspec
import pytest

from ledger.dice.engine import EngineDice, PhysicalDice, parse_faces
from ledger.errors import RuleError
from ledger.events import CORE_EVENT_TYPES, Event, Roll, event_tag
from ledger.rules.params import pick_params
from ledger.rules.roll_inputs import RollRequest
from ledger.rules.spans import DAY, HOUR, TimeDice, time_consequences
from ledger.rules.system import RuleSystem
from ledger.rules.wording import VERDICTS
from ledger.testing.store_contract import EventStoreContract  # re-exported


def parse_roll_line(
    system: RuleSystem[Any, Any], line: str
) -> tuple[str | None, str | None, dict[str, Any]]:
    """``(skill, faces, params)`` of a ``roll CHARACTER [SKILL] [--option value]... [--dice
    FACES]`` line (a trailing ``# comment`` is ignored), params converted by the system's
    :attr:`~ledger.RuleSystem.roll_params` as the CLI converts them.

    :raises ValueError: a line that is not a ``roll`` line.
    :raises ledger.rules.params.ParamError: an option the system does not take, or a bad value.
    """
    words = shlex.split(line, comments=True)
    if len(words) < 2 or words[0] != "roll":
        raise ValueError(f"not a roll line: {line!r}")
    own = {p.name: p for p in system.roll_params}
    skill: str | None = None
    faces: str | None = None
    given: dict[str, Any] = {}
    rest = words[2:]
    i = 0
    while i < len(rest):
        word = rest[i]
        if not word.startswith("--"):
            if skill is not None:
                raise ValueError(f"two skills in {line!r}")
            skill, i = word, i + 1
            continue
        name = word[2:].replace("-", "_")
        if name == "dice":
            faces, i = rest[i + 1], i + 2
            continue
        param = own.get(name)
        if param is not None and param.is_flag:
            given[name], i = True, i + 1
            continue
        value = rest[i + 1]
        if param is not None and param.multiple:
            given[name] = (*given.get(name, ()), value)
        else:
            given[name] = value
        i += 2
    return skill, faces, pick_params(system, "roll_params", given)


class RuleSystemContract:
    """Checks every rule system must pass; subclass it as ``Test...`` in a plugin's tests.

    :cvar system: the rule system (configured with its default options by the contract).
    :cvar sheet: a character sheet as ``campaign character add --sheet`` reads it (``id``,
        ``name`` and ``player`` beside what the system's creation rules accept).
    :cvar rolls: the ``roll ...`` lines to check, played in order on one character (each
        with ``--dice`` faces from the book); default: the system's ``example_roll`` alone.
    :cvar history: events of the character applied before each roll (an objective or a
        Challenge the example roll names) and before time passes (a wound to heal).
    :cvar spans: ``(minutes, rest, care)`` of the spans of time ``time_passed`` is asked
        about: a minute, a night's rest, thirty days of rest with care.
    """

    system: ClassVar[RuleSystem[Any, Any]]
    sheet: ClassVar[dict[str, Any]]
    rolls: ClassVar[Sequence[str]] = ()
    history: ClassVar[Sequence[Event]] = ()
    spans: ClassVar[Sequence[tuple[int, bool, bool]]] = (
        (1, False, False),
        (8 * HOUR, True, False),
        (30 * DAY, True, True),
    )

    # -- what the checks share ----------------------------------------------------------

    def configured(self) -> RuleSystem[Any, Any]:
        return self.system.configure({})

    def character(self, system: RuleSystem[Any, Any]) -> tuple[str, str, Any]:
        """``(id, name, initial state)`` of the contract's sheet."""
        given = {k: v for k, v in self.sheet.items() if k not in ("id", "name", "player")}
        cid = str(self.sheet.get("id", "pc"))
        name = str(self.sheet.get("name", cid))
        state = system.initial_state(cid, name, system.create_sheet(given))
        appliers = system.appliers()
        for event in self.history:
            state = appliers[type(event)](state, event)
        return cid, name, state

    def roll_lines(self) -> list[str]:
        """The rolls to check, in order: ``rolls``, else the system's ``example_roll``."""
        return list(self.rolls) or [line for line in [self.system.example_roll] if line]

    def played(
        self, system: RuleSystem[Any, Any], *, engine: bool = False
    ) -> list[tuple[str, Any, Roll]]:
        """``(line, state before, event)`` of each roll line in turn, each roll's event
        applied before the next (the book's faces, or engine dice where ``engine``)."""
        cid, name, state = self.character(system)
        appliers = system.appliers()
        out = []
        for nonce, line in enumerate(self.roll_lines()):
            skill, faces, params = parse_roll_line(system, line)
            if engine or faces is None:
                dice: Any = EngineDice(b"\x07" * 32, campaign="contract", session=1, nonce=nonce)
            else:
                dice = PhysicalDice(parse_faces(faces))
            request = RollRequest(cid, name, skill, params)
            event = system.with_inputs(system.resolve(state, request, dice), request)
            if isinstance(dice, PhysicalDice):
                dice.finish()
            out.append((line, state, event))
            if type(event) in appliers:
                state = appliers[type(event)](state, event)
        return out

    # -- the checks -----------------------------------------------------------------------

    def test_events_are_frozen_keyword_only_documented_and_namespaced(self) -> None:
        system = self.system
        assert system.event_types, f"{system.id} declares no event types"
        for cls in system.event_types:
            assert issubclass(cls, Event), cls
            assert cls.__struct_config__.frozen, f"{cls.__name__} is not frozen"
            params = inspect.signature(cls).parameters.values()
            assert all(p.kind is p.KEYWORD_ONLY for p in params), f"{cls.__name__}: kw_only"
            assert event_tag(cls).startswith(system.id + "."), event_tag(cls)
            assert cls.__doc__, f"{cls.__name__} needs a docstring"
            assert cls not in CORE_EVENT_TYPES

    def test_every_event_type_names_its_rule_section(self) -> None:
        system = self.system
        tags = {event_tag(t) for t in system.event_types}
        missing = sorted(tags - set(system.sections))
        assert not missing, f"no section in {system.id}.sections for {missing}"
        assert set(system.sections) <= tags, set(system.sections) - tags

    def test_cites_its_book_and_refuses_an_unknown_option(self) -> None:
        system = self.system
        assert system.id and system.name and system.source
        assert isinstance(self.configured().options, system.options_type)
        with pytest.raises(RuleError, match="option"):
            system.configure({"no_such_option_anywhere": 1})

    def test_the_example_roll_resolves_with_the_books_dice(self) -> None:
        assert self.system.example_roll, f"{self.system.id} gives no example_roll"
        system = self.configured()
        for line, _, event in self.played(system):
            assert isinstance(event, Roll), line
            assert event.source == "physical" or parse_roll_line(system, line)[1] is None

    @pytest.mark.parametrize("engine", [False, True], ids=["physical", "engine"])
    def test_resolve_request_of_rederive_round_trip(self, engine: bool) -> None:
        system = self.configured()
        name = str(self.sheet.get("name", ""))
        for line, state, event in self.played(system, engine=engine):
            given, read = parse_roll_line(system, line)[0], system.request_of(event).skill
            assert read is None or (given or "").casefold() == read.casefold(), (line, read)
            again = system.rederive(state, event, name=name)
            assert again == event, f"{line}: re-derived {again!r} != recorded {event!r}"

    def test_appliers_are_pure(self) -> None:
        system = self.configured()
        appliers = system.appliers()
        for line, state, event in self.played(system):
            fn = appliers.get(type(event))
            if fn is None:
                continue
            before = msgspec.json.encode(state)
            once, twice = fn(state, event), fn(state, event)
            assert msgspec.json.encode(state) == before, f"{line}: the applier changed its input"
            assert once == twice, f"{line}: the applier gave two answers for one event"

    @staticmethod
    def time_dice() -> TimeDice:
        """Engine dice for ``time_passed``, as the core gives them (a fixed seed here):
        each call the next nonce."""
        nonces = iter(range(10**6))

        def dice(client_seed: str = "") -> EngineDice:
            return EngineDice(
                b"\x09" * 32, campaign="contract", session=1, nonce=next(nonces),
                client_seed=client_seed,
            )  # fmt: skip

        return dice

    def test_time_passing_is_pure_and_gives_the_systems_events(self) -> None:
        """``time_passed`` answers a span with the system's own events (or the core's),
        the same answer twice, without changing the states it is handed; a roll it makes
        with ``dice`` re-derives from its draws."""
        from ledger.events import TimePassed

        system = self.configured()
        cid, name, state = self.character(system)
        appliers = system.appliers()
        for minutes, rest, care in self.spans:
            span = TimePassed(minutes=minutes, words=f"{minutes}m", rest=rest, care=care)
            before = msgspec.json.encode(state)
            once = time_consequences(system, {cid: state}, span, self.time_dice())
            again = time_consequences(system, {cid: state}, span, self.time_dice())
            assert once == again, f"two answers for one span of {minutes} minutes"
            assert msgspec.json.encode(state) == before, "time_passed changed the state"
            now = state
            for event in once:
                assert type(event) in (*system.event_types, *CORE_EVENT_TYPES), event
                if isinstance(event, Roll) and getattr(event, "character", cid) == cid:
                    again_roll = system.rederive(now, event, name=name)
                    assert again_roll == event, f"re-derived {again_roll!r} != {event!r}"
                if type(event) in appliers and getattr(event, "character", cid) == cid:
                    now = appliers[type(event)](now, event)

    def test_verdict_words(self) -> None:
        """Every roll's verdict is one of the log's three words or ``None``; a roll that
        records an outcome the log should mark (✔ ◐ ✘) gets one."""
        system = self.configured()
        words = set(VERDICTS.values())
        for line, _, event in self.played(system):
            verdict = system.verdict(event)
            assert verdict is None or verdict in words, f"{line}: verdict {verdict!r}"
            recorded = getattr(event, "outcome", getattr(event, "success", None))
            assert recorded is None or verdict is not None, (
                f"{line}: outcome {recorded!r} has no verdict (✔ ◐ ✘): override verdict() "
                f"to map it to one of {sorted(words)}"
            )

    def test_blind_form_of_a_roll_is_an_event_of_the_system(self) -> None:
        system = self.configured()
        own = set(system.event_types)
        for line, _, event in self.played(system):
            try:
                hidden = system.blind_form(event)
            except RuleError:
                continue
            assert type(hidden) in own, f"{line}: blind_form gave a {type(hidden).__name__}"


__all__ = ["EventStoreContract", "RuleSystemContract", "parse_roll_line"]
