"""Helpers for a rule-system plugin's own tests (part of the public API: docs/plugin-guide.md).

::

    from ledger.testing import campaign_cli, roll

    def test_a_worked_example():
        system = MySystem().configure({})
        state = system.initial_state("ann", "Ann", system.create_sheet({...}))
        event = roll(system, state, "climb", "4,5", target=8)  # the book's dice
        assert event.outcome == "success"

    def test_the_cli(tmp_path):
        campaign = campaign_cli(tmp_path / "ledger.db")
        assert campaign("new", "demo", "--system", "my-system").exit_code == 0
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

from ledger.dice.engine import DiceSource, PhysicalDice, parse_faces
from ledger.events import Event, Roll
from ledger.rules.hookspecs import hookimpl
from ledger.rules.roll_inputs import RollRequest
from ledger.rules.system import RuleSystem

if TYPE_CHECKING:
    from click.testing import Result

    from ledger.testing.contracts import EventStoreContract, RuleSystemContract

#: The roll event a system's ``resolve`` returns (``roll`` returns the same type).
RollT = TypeVar("RollT", bound=Roll)
RollT_co = TypeVar("RollT_co", bound=Roll, covariant=True)
#: A system's character state (``apply`` returns the type it is given).
StateT = TypeVar("StateT")


class Resolves(Protocol[RollT_co]):
    """What :func:`roll` needs of a rule system, for its type: ``resolve`` and the type of
    roll event it returns (a :class:`~ledger.RuleSystem` subclass is one)."""

    def resolve(self, state: Any, request: RollRequest, dice: DiceSource) -> RollT_co: ...


def roll(
    system: Resolves[RollT],
    state: Any,
    skill: str | None,
    faces: str | Sequence[str],
    *,
    character: str = "pc",
    name: str = "PC",
    **params: Any,
) -> RollT:
    """Resolve one roll with physical dice, as ``campaign roll ... --dice FACES`` does, and
    check that the recorded event re-derives (``verify`` and ``import`` will replay it).

    Typed for the system's own roll: where ``resolve`` returns ``Rolled``, so does ``roll``
    (``event.total`` type-checks).

    :param system: a configured :class:`~ledger.RuleSystem`.

    :param faces: ``"3,4"`` (``--dice`` text) or a list of face strings, in draw order.
    :param params: the roll's options by name (``target=8``), as :class:`ledger.RollParam`
        values.
    :raises ledger.RuleError: the rules refuse the roll.
    :raises ledger.DiceError: bad faces, too few, or faces left over.
    :raises AssertionError: the event does not re-derive from its inputs and dice (the
        problem is named).
    """
    from ledger.rules.results import result_problem

    if not isinstance(system, RuleSystem):
        raise TypeError(f"roll() takes a RuleSystem, not {type(system).__name__}")
    dice = PhysicalDice(parse_faces(faces) if isinstance(faces, str) else list(faces))
    request = RollRequest(character, name, skill, dict(params))
    # as the core records it: with what it was asked, where the system reads that back
    event = cast(RollT, system.with_inputs(system.resolve(state, request, dice), request))
    dice.finish()
    problem = result_problem(system, state, event, name=name)
    if problem is not None:
        raise AssertionError(f"the roll does not re-derive: {problem}")
    return event


def apply(system: RuleSystem[Any, Any], state: StateT, *events: Event) -> StateT:
    """``state`` after ``events``, through the system's ``@applies`` appliers (an event with
    no applier changes nothing): a state of the type given.

    :raises ledger.RuleError: the rules refuse an event."""
    appliers = system.appliers()
    for event in events:
        fn = appliers.get(type(event))
        if fn is not None:
            state = fn(state, event)
    return state


def campaign_cli(db_path: str | os.PathLike[str]) -> Callable[..., Result]:
    """A function that runs ``campaign --db DB_PATH ARGS...`` in process and returns the
    ``click.testing.Result`` (``exit_code``, ``output``; ``input=`` feeds stdin).
    Exceptions other than the command's own one-line refusals propagate."""
    from click.testing import CliRunner

    from ledger.cli import cli

    runner = CliRunner()

    def run(*args: str, input: str | None = None) -> Result:
        return runner.invoke(
            cli, ["--db", os.fspath(db_path), *args], input=input, catch_exceptions=False
        )

    return run


def run_cli(db_path: str | os.PathLike[str], *args: str, input: str | None = None) -> Result:
    """``campaign --db DB_PATH ARGS...`` run once in process: the ``click.testing.Result``.
    Exceptions other than the command's own one-line refusals propagate."""
    return campaign_cli(db_path)(*args, input=input)


def ok(db_path: str | os.PathLike[str], *args: str, input: str | None = None) -> Result:
    """:func:`run_cli`, which must succeed (exit 0; ``AssertionError`` with its output if
    not): the ``Result``."""
    result = run_cli(db_path, *args, input=input)
    assert result.exit_code == 0, result.output
    return result


def as_json(db_path: str | os.PathLike[str], *args: str) -> Any:
    """The decoded ``--json`` output of a command that must succeed."""
    return json.loads(ok(db_path, *args, "--json").stdout)


def refused(db_path: str | os.PathLike[str], *args: str) -> str:
    """Run a command that must be refused: exit 1 or 2, no traceback, and nothing written
    (the GM's log is as long after it as before). Returns its output, the one line that
    says why, for the test to check its words."""
    before = len(as_json(db_path, "log", "--as", "gm"))
    result = run_cli(db_path, *args)
    assert result.exit_code in (1, 2), result.output
    assert "Traceback" not in result.output
    after = len(as_json(db_path, "log", "--as", "gm"))
    assert after == before, f"a refused command wrote {after - before} event(s)"
    return str(result.output)


@contextlib.contextmanager
def registered(*systems: RuleSystem[Any, Any]) -> Iterator[None]:
    """Register rule systems that are not installed (no entry point) for the ``with``
    block, as a plugin would; they are unregistered after it."""
    from ledger.rules.plugins import pm, rule_systems

    class _Plugin:
        @hookimpl
        def register_rule_systems(self, register: Callable[[RuleSystem[Any, Any]], None]) -> None:
            for system in systems:
                register(system)

    plugin = _Plugin()
    name = f"ledger.testing-{id(plugin)}"
    pm.register(plugin, name=name)
    rule_systems.cache_clear()
    try:
        yield
    finally:
        pm.unregister(name=name)
        rule_systems.cache_clear()


def __getattr__(name: str) -> Any:
    """The contracts (:mod:`ledger.testing.contracts`) load on first use: they need pytest."""
    if name in ("RuleSystemContract", "EventStoreContract"):
        from ledger.testing import contracts

        return getattr(contracts, name)
    raise AttributeError(f"module 'ledger.testing' has no attribute {name!r}")


__all__ = [
    "EventStoreContract",
    "Resolves",
    "RuleSystemContract",
    "apply",
    "as_json",
    "campaign_cli",
    "ok",
    "refused",
    "registered",
    "roll",
    "run_cli",
]
