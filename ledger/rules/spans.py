"""Spans of in-fiction time: ``campaign time pass DURATION`` reads them, sheets say them.

A duration is one or more amounts with a unit, ``90m``, ``8h``, ``3d``, ``2w``, ``1d12h``
(also spelt out: ``8 hours``, ``3 days``, ``a week``), or one of the named spans a rule
system gives in its book's words (:attr:`ledger.RuleSystem.time_spans`: ``"a night's
sleep"``, ``"a week of rest"``). Everything is counted in minutes: the campaign's clock is
its own, never the laptop's.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ledger.errors import RuleError

if TYPE_CHECKING:
    from ledger.dice.engine import DiceSource
    from ledger.events import Event, TimePassed
    from ledger.rules.system import RuleSystem

#: What a rule system's ``time_passed`` may take as ``dice``: ``dice(client_seed)`` gives
#: one engine dice source per roll, drawn from the open session's committed seed at its next
#: nonce (docs/plugin-hooks.md "Time that rolls").
TimeDice = Callable[[str], "DiceSource"]

MINUTE = 1
HOUR = 60
DAY = 24 * HOUR
WEEK = 7 * DAY

#: The longest span one ``time pass`` takes (ten years): a typo such as ``99999w`` is refused.
LONGEST = 10 * 365 * DAY

_UNITS = {
    "m": MINUTE, "min": MINUTE, "mins": MINUTE, "minute": MINUTE, "minutes": MINUTE,
    "h": HOUR, "hr": HOUR, "hrs": HOUR, "hour": HOUR, "hours": HOUR,
    "d": DAY, "day": DAY, "days": DAY,
    "w": WEEK, "wk": WEEK, "week": WEEK, "weeks": WEEK,
}  # fmt: skip
_PART = re.compile(r"(\d{1,7}|an?|one)\s*([a-z]+)")
_SPACE = re.compile(r"[\s,]+")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "`": "'"})

#: How the accepted forms are named in a refusal.
FORMS = "90m, 8h, 3d, 2w or 1d12h (minutes, hours, days, weeks)"


def span_key(text: str) -> str:
    """A span as compared and stored: lower case, one space, straight apostrophes
    (``"A Night’s  Sleep"`` → ``"a night's sleep"``)."""
    return _SPACE.sub(" ", text.translate(_APOSTROPHES).strip().lower())


def parse_duration(
    text: str, named: Mapping[str, tuple[int, bool]] | None = None
) -> tuple[int, bool]:
    """``(minutes, rest)`` of a duration or a named span.

    :param text: ``"8h"``, ``"1d 12h"``, ``"3 days"``, ``"a week"``, or a key of ``named``
        (case, spaces and curly apostrophes do not matter).
    :param named: ``{words: (minutes, rest)}``: the rule system's named spans; ``rest`` is
        ``True`` when the characters rest through it.
    :returns: the minutes (1 to :data:`LONGEST`) and whether it is a rest (``False`` for a
        plain duration).
    :raises RuleError: one line naming the accepted forms (and the named spans).

    >>> parse_duration("1d12h")
    (2160, False)
    >>> parse_duration("A night’s sleep", {"a night's sleep": (480, True)})
    (480, True)
    """
    spans = {span_key(k): v for k, v in (named or {}).items()}
    key = span_key(text)
    if key in spans:
        return spans[key]
    total, pos, compact = 0, 0, key.replace(" ", "")
    for part in _PART.finditer(key):
        if key[pos : part.start()].strip():
            break
        amount, unit = part.groups()
        if unit not in _UNITS:
            break
        total += (1 if not amount.isdigit() else int(amount)) * _UNITS[unit]
        pos = part.end()
    else:
        pos = pos if key[pos:].strip() == "" else -1
    if key and compact and pos == len(key) and total >= 1:
        if total > LONGEST:
            raise RuleError(
                f"{text.strip()!r} is longer than ten years: pass time in smaller steps"
            )
        return total, False
    names = "; or " + ", ".join(f'"{k}"' for k in (named or {})) if named else ""
    raise RuleError(f"{text.strip()!r} is not a duration: give {FORMS}{names}")


def span_words(minutes: int) -> str:
    """A span as a person says it: ``"2 h"``, ``"45 min"``, ``"3 days"``, ``"1 week 2 days"``,
    ``"1 day 6 h"``; ``"no time"`` for 0 or less.

    >>> span_words(120), span_words(4320), span_words(9 * 24 * 60), span_words(90)
    ('2 h', '3 days', '1 week 2 days', '1 h 30 min')
    """
    if minutes <= 0:
        return "no time"
    parts = []
    weeks, rest = divmod(minutes, WEEK)
    days, rest = divmod(rest, DAY)
    hours, mins = divmod(rest, HOUR)
    if weeks:
        parts.append(f"{weeks} week{'s' if weeks != 1 else ''}")
    if days:
        parts.append(f"{days} day{'s' if days != 1 else ''}")
    if hours and not weeks:
        parts.append(f"{hours} h")
    if mins and not (weeks or days):
        parts.append(f"{mins} min")
    return " ".join(parts) or f"{minutes} min"


#: The events whose ``consequences`` follow them in their batch, corrected only with them:
#: a span of time, and what ends with an encounter's turn.
SPAN_HEADS = frozenset(
    {"time.passed", "encounter.turn", "encounter.hidden_turn", "encounter.ended"}
)


def span_correction_problem(
    seq: int, correction: Any, companions: dict[int, Any], span: range
) -> str | None:
    """What is wrong with correction ``seq`` of a ``time.passed`` whose consequences stand
    at the seqs ``span``, given the events it also corrects (``companions``: seq to its
    replacement, ``None`` for a retraction); ``None`` when it retracts only them (a
    span's consequences are corrected only with it)."""
    if correction.action == "retract" and all(
        s in span and v is None for s, v in companions.items()
    ):
        return None
    return (
        f"correction {seq} also corrects event(s) {sorted(companions)}, which are not "
        f"the consequences of event {correction.target}"
    )


def consequence_seqs(seq: int, event: Any) -> range:
    """The seqs of the consequences written right after the ``time.passed`` ``event`` at
    ``seq`` (its ``consequences`` count)."""
    return range(seq + 1, seq + 1 + int(event.consequences))


def takes_dice(system: RuleSystem) -> bool:
    """Whether ``system.time_passed`` takes a ``dice`` parameter (it may roll)."""
    return "dice" in inspect.signature(system.time_passed).parameters


def time_consequences(
    system: RuleSystem, states: dict[str, Any], span: TimePassed, dice: TimeDice
) -> list[Event]:
    """What ``span`` implies by ``system``'s rules: :meth:`ledger.RuleSystem.time_passed`
    asked with ``states``, and with ``dice`` when it takes a ``dice`` parameter.

    Every engine dice source the rules take must come back as one roll event, in the
    order drawn (each is a committed draw at the session's next nonce, re-checked by
    ``campaign verify``).

    :raises RuleError: the rules refuse, ``dice`` refuses (no open session), or the rules
        drew dice they did not return as rolls in the order drawn.
    """
    if not takes_dice(system):
        return list(system.time_passed(states, span))
    drawn: list[int] = []

    def recorded(client_seed: str) -> DiceSource:
        source = dice(client_seed)
        drawn.append(int(getattr(source, "nonce", -1)))
        return source

    ask: Callable[..., list[Event]] = system.time_passed  # an override that adds ``dice``
    events = list(ask(states, span, dice=recorded))
    returned = [
        getattr(e, "nonce", None)
        for e in events
        if getattr(e, "source", None) == "engine" and hasattr(e, "draws")
    ]
    if returned != drawn:
        raise RuleError(
            f"{system.name}'s time_passed drew {len(drawn)} engine roll(s) but returned "
            f"{len(returned)} in another order: return one roll event per dice(...) call, "
            "in the order drawn"
        )
    return events
