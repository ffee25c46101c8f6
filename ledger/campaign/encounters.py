"""Encounters on the ledger: the turn order, the round, whose turn it is, and the
actions spent, folded from the ``encounter.*`` events of the campaign stream.

:func:`running` reads the encounter in progress (as the GM or a player sees it),
:func:`encounter_view` is the plain answer a page or a script shows (order, round, current
turn), and :func:`check` is what :meth:`ledger.campaign.aggregate.Campaign.append` asks of
every batch: an encounter's events follow its order, and actions stay within the rule
text's count (:attr:`ledger.RuleSystem.actions_per_round`). The writers are in
:mod:`ledger.campaign.initiative`.

Hidden participants (a foe only the GM knows of) live in GM-only events
(``encounter.hidden_joined``, ``encounter.hidden_turn``): a players' view is folded
without them, so it never holds their name, place or turns (docs/trust.md "A player's view never holds a GM fact").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ledger.errors import NotFound
from ledger.events import (
    EncounterAction,
    EncounterEnded,
    EncounterHiddenJoined,
    EncounterHiddenTurn,
    EncounterStarted,
    EncounterTurn,
    Event,
    Participant,
    stream_of,
)

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: The core's encounter events, by tag.
ENCOUNTER_TYPES = (
    "encounter.started",
    "encounter.hidden_joined",
    "encounter.turn",
    "encounter.hidden_turn",
    "encounter.action",
    "encounter.ended",
)
ENCOUNTER_EVENTS = (
    EncounterStarted,
    EncounterHiddenJoined,
    EncounterTurn,
    EncounterHiddenTurn,
    EncounterAction,
    EncounterEnded,
)
#: The refusal when no encounter is running.
NONE_RUNNING = "no encounter is running: start one with `campaign encounter start NAME...`"


class NoEncounter(NotFound):
    """No encounter is running (``encounter next``, ``end``, ``act``, ``show``)."""


@dataclass(frozen=True)
class Seat:
    """One participant in the order as a viewer sees it.

    :ivar hidden: GM-only (only the GM's view holds hidden seats).
    """

    name: str
    character: str | None
    initiative: int | None
    how: str
    roll: int | None
    hidden: bool = False


@dataclass(frozen=True)
class Running:
    """The encounter in progress, as one viewer sees it.

    :ivar seq: its ``encounter.started``.
    :ivar order: the turn order (hidden seats in the GM's view only).
    :ivar round: the round, from 1.
    :ivar current: the index in ``order`` of whose turn it is; ``None`` before a first
        turn this viewer may see (a hidden participant acts first).
    :ivar round_seq: the seq of the turn that began the round (actions count from it).
    :ivar turn_seq: the seq of the turn event of the current turn.
    """

    seq: int
    title: str
    order: tuple[Seat, ...]
    round: int
    current: int | None
    round_seq: int
    turn_seq: int = 0

    def seat(self, name: str) -> Seat | None:
        """The seat of ``name`` (a participant's name or character id), or ``None``."""
        key = name.casefold()
        return next(
            (s for s in self.order if key in (s.name.casefold(), (s.character or "").casefold())),
            None,
        )

    def following(self) -> tuple[int, int]:
        """``(index, round)`` of the next turn: the next seat, a new round after the last."""
        at = -1 if self.current is None else self.current
        if at + 1 >= len(self.order):
            return 0, self.round + 1
        return at + 1, self.round


def seat_of(p: Participant, hidden: bool = False) -> Seat:
    """A :class:`Seat` from an event's participant."""
    return Seat(p.name, p.character, p.initiative, p.how, p.roll, hidden)


def latest_started(campaign: Campaign) -> int | None:
    """The seq of the latest ``encounter.started`` in force, or ``None``."""
    retracted = campaign.corrections().retracted
    for seq, _ in campaign.store.rows(
        campaign.id, types=["encounter.started"], descending=True, columns="seq, stream"
    ):
        if seq not in retracted:
            return int(seq)
    return None


def running(campaign: Campaign, *, as_gm: bool = True) -> Running | None:
    """The encounter in progress as the GM (``as_gm``) or a player sees it, or ``None``
    (none started, or the latest one ended). Retracted events do not count."""
    start = latest_started(campaign)
    if start is None:
        return None
    retracted = campaign.corrections().retracted
    order: list[Seat] = []
    state: Running | None = None
    for rec in campaign.records(after=start - 1, types=list(ENCOUNTER_TYPES), as_gm=as_gm):
        data = rec.data
        if rec.seq in retracted or (
            rec.seq != start and getattr(data, "encounter", start) != start
        ):
            continue
        if isinstance(data, EncounterStarted) and rec.seq == start:
            order = [seat_of(p) for p in data.participants]
            state = Running(start, data.title, tuple(order), 1, None, rec.seq)
        elif state is None:
            continue
        elif isinstance(data, EncounterHiddenJoined):
            order.insert(min(data.position, len(order)), seat_of(data.participant, True))
            state = replace(state, order=tuple(order))
        elif isinstance(data, EncounterTurn | EncounterHiddenTurn):
            at = next((i for i, s in enumerate(order) if s.name == data.turn), None)
            began = rec.seq if data.round != state.round or state.current is None else None
            state = replace(
                state,
                round=data.round,
                current=at,
                round_seq=began or state.round_seq,
                turn_seq=rec.seq,
            )
        elif isinstance(data, EncounterEnded):
            return None
    return state


def encounter_view(campaign: Campaign, as_gm: bool) -> dict[str, Any] | None:
    """The encounter in progress as a page shows it, or ``None`` when none is running:
    ``{"seq", "title", "round", "current": name or None, "order": [{"name", "character",
    "initiative", "how", "roll", "hidden", "current", "actions"}], "actions_per_round"}``.

    A players' view (``as_gm=False``) holds no hidden participant, no hidden turn (the
    current turn stays the last one players could see) and nothing derived from them.
    ``actions`` is what the character spent this round (``None`` for a foe without a sheet
    or where the text counts none). Pure: reads, never writes.
    """
    state = running(campaign, as_gm=as_gm)
    if state is None:
        return None
    limit = campaign.system.actions_per_round
    used = actions_spent(campaign, state, as_gm=as_gm) if limit is not None else {}
    order = [
        {
            "name": s.name,
            "character": s.character,
            "initiative": s.initiative,
            "how": s.how,
            "roll": s.roll,
            "hidden": s.hidden,
            "current": i == state.current,
            "actions": used.get(s.character, 0) if limit is not None and s.character else None,
        }
        for i, s in enumerate(state.order)
    ]
    current = state.order[state.current].name if state.current is not None else None
    return {
        "seq": state.seq,
        "title": state.title,
        "round": state.round,
        "current": current,
        "order": order,
        "actions_per_round": limit,
    }


def actions_spent(campaign: Campaign, state: Running, *, as_gm: bool = True) -> dict[str, int]:
    """``{character id: actions spent}`` in the current round of ``state``: its
    ``encounter.action`` events and whatever else costs actions by the rules
    (:meth:`ledger.RuleSystem.actions_of`), corrections honoured."""
    corrections = campaign.corrections()
    seated = {s.character for s in state.order if s.character}
    out: dict[str, int] = {}
    for rec in campaign.records(after=state.round_seq, as_gm=as_gm):
        if rec.seq in corrections.retracted:
            continue
        data = rec.data
        if rec.seq in corrections.amended:
            data = campaign.codec.amended(rec.type, corrections.amended[rec.seq])
        cost = cost_of(campaign, data, state.seq)
        who = stream_of(data)
        if cost and who in seated:
            out[who] = out.get(who, 0) + cost
    return out


def cost_of(campaign: Campaign, event: Event, encounter: int) -> int:
    """The actions ``event`` spends in encounter ``encounter``."""
    if isinstance(event, EncounterAction):
        return event.actions if event.encounter == encounter else 0
    if isinstance(event, ENCOUNTER_EVENTS):
        return 0
    return int(campaign.system.actions_of(event) or 0)


def turn_end(campaign: Campaign, state: Running) -> tuple[list[Event], bool]:
    """What ends with the current turn of ``state`` by the rules
    (:meth:`ledger.RuleSystem.turn_ended` of the character whose turn it is, their state as
    the turn began and now), and whether it is a hidden participant's turn (its batch is
    then GM-only). ``[]`` for a foe without a sheet or before any turn."""
    if state.current is None:
        return [], False
    seat = state.order[state.current]
    if seat.character is None:
        return [], seat.hidden
    began = campaign.state_of(seat.character, upto=state.turn_seq)
    now = campaign.state_of(seat.character)
    return list(campaign.system.turn_ended(seat.character, began, now)), seat.hidden

