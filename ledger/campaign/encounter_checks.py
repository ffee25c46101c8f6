"""What :meth:`ledger.campaign.aggregate.Campaign.append` checks of encounter events:
a start as ``encounter start`` writes it (:func:`check_start`), turns in the order, and
actions within the rule text's count (:func:`check`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.campaign.encounters import (
    ENCOUNTER_EVENTS,
    NONE_RUNNING,
    NoEncounter,
    Running,
    actions_spent,
    cost_of,
    running,
    turn_end,
)
from ledger.errors import NotFound, RuleError
from ledger.events import (
    EncounterAction,
    EncounterEnded,
    EncounterHiddenJoined,
    EncounterHiddenTurn,
    EncounterStarted,
    EncounterTurn,
    Event,
    Participant,
    Roll,
    stream_of,
)
from ledger.rules.turns import Turns

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign
    from ledger.rules.system import RuleSystem


def check(campaign: Campaign, events: Sequence[Event], first_seq: int) -> None:
    """Refuse encounter events out of order, and actions past the text's count.

    An ``encounter.started`` comes first in a batch of its own, with its hidden
    participants and first turn, while no encounter runs; a turn is the next in the
    order; an action, a turn or an end belongs to the encounter running; the actions a
    character spends in a round (``encounter.action`` and events that cost actions) stay
    within :attr:`ledger.RuleSystem.actions_per_round`.

    :param first_seq: the seq the batch's first event will take.
    :raises RuleError: naming the command that writes it right (nothing written).
    """
    system = campaign.system
    types = set(map(type, events))
    counted = _counted(type(system))
    if not any(map(_of_encounter, types)) and not _costly(system, events, types, counted):
        return
    state = running(campaign)
    if events and isinstance(events[0], EncounterStarted):
        check_start(campaign, events, first_seq, state)
        return
    spent: dict[str, int] | None = None
    skip = 0
    for i, event in enumerate(events):
        if skip:
            skip -= 1
            continue
        if isinstance(event, EncounterStarted | EncounterHiddenJoined):
            raise RuleError(
                f"{type(event).__struct_config__.tag} is written by `campaign encounter start`, "
                "first in a batch of its own"
            )
        mine = _of_encounter(type(event))
        if not mine and not (_may_cost(type(event), counted) and system.actions_of(event)):
            continue
        if state is None:
            if mine:
                raise NoEncounter(NONE_RUNNING)
            continue  # actions outside an encounter are not counted
        if mine and getattr(event, "encounter", None) != state.seq:
            raise RuleError(
                f"that belongs to encounter {getattr(event, 'encounter', '?')}, not to the one "
                f"running (event {state.seq})"
            )
        if isinstance(event, EncounterTurn | EncounterHiddenTurn | EncounterEnded):
            skip = _consequences(campaign, state, events, i)
        if isinstance(event, EncounterTurn | EncounterHiddenTurn):
            state = _turned(state, event)
            spent = None
        elif isinstance(event, EncounterEnded):
            if event.round != state.round:
                raise RuleError(f"the encounter is in round {state.round}, not {event.round}")
            state = None
        else:
            if spent is None:
                spent = actions_spent(campaign, state)
            _spend(campaign, state, event, spent)


@functools.cache
def _of_encounter(cls: type) -> bool:
    """Whether events of class ``cls`` are encounter events (kept per class)."""
    return issubclass(cls, ENCOUNTER_EVENTS)


@functools.cache
def _counted(system_class: type[Turns]) -> tuple[type, ...] | None:
    """The event classes whose actions a rule system of class ``system_class`` may count:
    ``()`` when it leaves :meth:`ledger.RuleSystem.actions_of` at its default (no event
    costs any), its :attr:`~ledger.rules.turns.Turns.action_events` when it names them,
    ``None`` (any class) when it does not."""
    if system_class.actions_of is Turns.actions_of:
        return ()
    return system_class.action_events


@functools.cache
def _may_cost(cls: type, counted: tuple[type, ...] | None) -> bool:
    """Whether a non-encounter event of class ``cls`` may cost counted actions."""
    return not _of_encounter(cls) and (counted is None or issubclass(cls, counted))


def _costly(
    system: RuleSystem[Any, Any], events: Sequence[Event], types: set[type],
    counted: tuple[type, ...] | None,
) -> bool:  # fmt: skip
    """Whether any of ``events`` (of the classes ``types``), other than encounter events,
    spends actions the system counts (:meth:`ledger.RuleSystem.actions_of`; ``counted``:
    :func:`_counted`). Only events of a class that may cost any are asked: the check is
    free for a batch with none."""
    if counted == () or not any(_may_cost(t, counted) for t in types):
        return False
    return any(_may_cost(type(e), counted) and system.actions_of(e) for e in events)


def _consequences(campaign: Campaign, state: Running, events: Sequence[Event], i: int) -> int:
    """Check that the events after the turn or end ``events[i]`` are what ends with the
    turn by the rules (:func:`~ledger.campaign.encounters.turn_end`); their count."""
    head = events[i]
    count = int(getattr(head, "consequences", 0))
    given = list(events[i + 1 : i + 1 + count])
    expected = turn_end(campaign, state)[0] if i == 0 else []
    if len(given) != count or [msgspec.to_builtins(e) for e in expected] != [
        msgspec.to_builtins(e) for e in given
    ]:
        raise RuleError(
            "these are not what the rules end with the turn: use `campaign encounter next` "
            "(or `end`), which asks them"
        )
    return count


def _turned(state: Running, event: EncounterTurn | EncounterHiddenTurn) -> Running:
    """``state`` after the turn ``event``, which must be the next in the order."""
    at, round_ = state.following()
    seat = state.order[at]
    hidden = isinstance(event, EncounterHiddenTurn)
    if (event.turn, event.round, hidden) != (seat.name, round_, seat.hidden):
        raise RuleError(
            f"the next turn is {seat.name}'s (round {round_}): use `campaign encounter next`"
        )
    return replace(state, current=at, round=round_)


def _spend(campaign: Campaign, state: Running, event: Event, spent: dict[str, int]) -> None:
    """Count ``event``'s actions into ``spent``; refuse a count past the text's."""
    who = stream_of(event)
    seat = state.seat(who)
    cost = cost_of(campaign, event, state.seq)
    if isinstance(event, EncounterAction):
        if seat is None or seat.character != who:
            raise RuleError(
                f"{who} is not in this encounter (it has: "
                f"{', '.join(s.name for s in state.order if not s.hidden)})"
            )
        if event.actions < 1:
            raise RuleError(f"an action costs 1 or more actions, not {event.actions}")
    if seat is None or seat.character != who:
        return
    limit = campaign.system.actions_per_round
    used = spent.get(who, 0)
    if limit is not None and used + cost > limit:
        if used >= limit:
            raise RuleError(
                f"{seat.name} has used {used} of {limit} actions this round: "
                "`campaign encounter next` moves to the next turn"
            )
        raise RuleError(
            f"{seat.name} has {limit - used} of {limit} actions left this round, not {cost}: "
            "spend fewer, or `campaign encounter next` moves to the next turn"
        )
    spent[who] = used + cost


def initiative_problem(campaign: Campaign, seat: Participant) -> str | None:
    """What is wrong with a participant's ``how`` and ``initiative``, or ``None``."""
    if seat.how == "gm":
        return (
            None
            if seat.initiative is None and seat.roll is None
            else (f"{seat.name} is in the GM's order: no initiative or roll")
        )
    if seat.initiative is None:
        return f"{seat.name}'s initiative was {seat.how}: give the number"
    if seat.how == "recorded":
        return None if seat.roll is None else f"{seat.name}'s initiative was recorded, not rolled"
    if seat.roll is None:
        return f"{seat.name}'s initiative was rolled: name the roll's seq"
    try:
        rec = campaign.record(seat.roll)
    except NotFound:
        return f"there is no roll {seat.roll} for {seat.name}'s initiative"
    if (
        not isinstance(rec.data, Roll)
        or rec.stream != seat.character
        or rec.seq in campaign.corrections().retracted
    ):
        return f"event {seat.roll} is not {seat.name}'s initiative roll"
    given = campaign.system.initiative_of(rec.data)
    if given != seat.initiative:
        return (
            f"{seat.name}'s initiative roll (event {seat.roll}) gives {given}, "
            f"not {seat.initiative}"
        )
    return None


def already(now: Running) -> str:
    return (
        f"an encounter is already running (event {now.seq}, round {now.round}): "
        "`campaign encounter end` ends it first"
    )


def check_start(
    campaign: Campaign, events: Sequence[Event], first_seq: int, now: Running | None
) -> None:
    """Refuse an ``encounter.started`` batch that ``encounter start`` would not write: one
    while another runs, names twice or unknown, initiative that is not what its roll gives,
    an order that is not highest first, or other events in the batch.

    :raises RuleError: the first problem (nothing written).
    """
    if now is not None:
        raise RuleError(already(now))
    started = events[0]
    assert isinstance(started, EncounterStarted)
    from ledger.text import check_name

    check_name(started.title, "the encounter's title")
    joins = [e for e in events[1:-1] if isinstance(e, EncounterHiddenJoined)]
    last = events[-1] if len(events) > 1 else None
    if len(joins) != len(events) - 2 or not isinstance(last, EncounterTurn | EncounterHiddenTurn):
        raise RuleError(
            "encounter.started is written by `campaign encounter start`, with its hidden "
            "participants and first turn in the same batch"
        )
    order = list(started.participants)
    hidden: set[str] = set()
    for join in joins:
        if join.encounter != first_seq or not 0 <= join.position <= len(order):
            raise RuleError("encounter.hidden_joined names another encounter or no place in it")
        order.insert(join.position, join.participant)
        hidden.add(join.participant.name)
    if not order:
        raise RuleError("an encounter needs participants: `campaign encounter start NAME...`")
    known = campaign.characters()
    seen: set[str] = set()
    for p in order:
        check_name(p.name, "a participant's name")
        if not p.name.strip() or p.name.casefold() in seen:
            raise RuleError(f"{p.name!r} is listed twice or empty: each takes one place")
        seen.add(p.name.casefold())
        if p.character is not None and p.character not in known:
            raise NotFound(f"no character {p.character!r} in {campaign.id}")
        problem = initiative_problem(campaign, p)
        if problem:
            raise RuleError(problem)
    numbers = [p.initiative for p in order]
    if any(n is not None for n in numbers):
        if any(n is None for n in numbers):
            raise RuleError("give every participant an initiative or none")
        if numbers != sorted(numbers, key=lambda n: -(n or 0)):
            raise RuleError("the order is highest initiative first")
    lead = order[0]
    if (
        last.encounter != first_seq
        or last.round != 1
        or last.turn != lead.name
        or isinstance(last, EncounterHiddenTurn) != (lead.name in hidden)
    ):
        raise RuleError(f"the first turn is {lead.name}'s, in round 1")
