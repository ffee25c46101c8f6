"""The marks a rule system puts on its methods, and the dispatch tables built from them.

:func:`applies` marks a method as the applier of some event types, :func:`describes` as their
words; :func:`marked` collects the marked methods of a system into ``{event class: bound
method}``, once per system (:meth:`ledger.rules.system.RuleSystem.appliers` and
:meth:`~ledger.rules.system.RuleSystem.describers`). Import them from :mod:`ledger`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.events import Event


def _mark(
    attr: str, event_types: tuple[type[Event], ...]
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def mark(fn: Callable[..., Any]) -> Callable[..., Any]:
        setattr(fn, attr, event_types)
        return fn

    return mark


def describes(*event_types: type[Event]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a method ``(self, event) -> str | None`` as the words for ``event_types``: one
    line a person reads at a glance (``log``, recaps, the web view), ``"<character>: ..."``
    for a character's event (the core puts the character's name in its place).

    :meth:`ledger.rules.system.RuleSystem.describe` dispatches on the event's class through these marks.
    """
    return _mark("__ledger_describes__", event_types)


def applies(*event_types: type[Event]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a method ``(self, state, event) -> state`` as the applier for ``event_types``.

    The method must be pure: return a new state (``msgspec.structs.replace``), never mutate,
    and raise :class:`ledger.errors.RuleError` when the event is impossible for the state (the engine then
    refuses to append it).
    """

    return _mark("__ledger_applies__", event_types)


def marked(system: object, attr: str) -> dict[type[Event], Callable[..., Any]]:
    """``{event class: bound method}`` of the methods marked ``attr`` (subclasses win)."""
    table: dict[type[Event], Callable[..., Any]] = {}
    for klass in reversed(type(system).__mro__):
        for value in vars(klass).values():
            for et in getattr(value, attr, ()):
                table[et] = getattr(system, value.__name__)
    return table
