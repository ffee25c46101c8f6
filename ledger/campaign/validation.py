"""What the rules and the log's own order refuse, checked before every append.

:func:`check_kinds` (event types of this campaign's system, sessions opened and closed in
order, seeds revealed as committed), :func:`check_contests` (a roll against a character and
its parts written together) and :func:`validate` (every event applied through the rules to
the states it changes). Each raises :class:`~ledger.errors.RuleError` for the first problem;
:meth:`~ledger.campaign.aggregate.Campaign.append` calls them all, so nothing reaches the
store that they refuse.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from msgspec import UNSET

from ledger.campaign import checkpoints, roll_requests, sessions
from ledger.errors import NotFound, RuleError
from ledger.events import (
    CAMPAIGN_STREAM,
    CharacterCreated,
    CheckpointKey,
    ContestOpposed,
    Corrected,
    DowntimeAbandoned,
    DowntimeCommitted,
    DowntimeRevealed,
    Event,
    Roll,
    RollWithdrawn,
    SessionAbandoned,
    SessionEnded,
    SessionStarted,
    event_tag,
    stream_of,
)
from ledger.rules.projection import applying, created_state

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: The events that open and close a session.
SESSION_EVENTS = (SessionStarted, SessionEnded, SessionAbandoned)


#: What :func:`check_kinds` checks of an event of a class, beyond its kind
#: (:func:`_kind`): nothing more, or one of these.
_SESSION, _REVEALED, _COMMITTED, _KEY, _ROLL, _ABANDONED = range(1, 7)


@functools.cache
def _kind(cls: type) -> int:
    """What :func:`check_kinds` checks of an event of class ``cls``: ``0`` (its kind
    alone) or one of ``_SESSION`` ... ``_ABANDONED`` (kept per class, so a batch of
    thousands of events costs one dictionary look-up each)."""
    for kind, classes in (
        (_SESSION, SESSION_EVENTS),
        (_REVEALED, DowntimeRevealed),
        (_COMMITTED, DowntimeCommitted),
        (_KEY, CheckpointKey),
        (_ROLL, (Roll, RollWithdrawn)),
        (_ABANDONED, DowntimeAbandoned),
    ):
        if issubclass(cls, classes):
            return kind
    return 0


def check_kinds(campaign: Campaign, events: Sequence[Event]) -> None:
    """Refuse events of another rule system and session events out of order.

    Sessions start once each, numbered 1, 2, 3, ..., never while one is open, and close
    once (``session.ended`` or ``session.abandoned``) the session that is open.

    :raises RuleError: the first such event (nothing written).
    """
    allowed = campaign.allowed
    classes = list(map(type, events))
    kinds = list(map(_kind, classes))
    marks = [e for e in events if isinstance(e, SESSION_EVENTS)] if _SESSION in kinds else []
    if marks and _REVEALED in kinds:
        raise RuleError("a downtime seed is revealed in a batch of its own")
    if not allowed.issuperset(classes):
        cls = next(c for c in classes if c not in allowed)
        tag = event_tag(cls)
        area = tag.split(".", 1)[0]
        raise RuleError(
            f"{tag} is an event of rule system {area!r}; campaign {campaign.id!r} plays "
            f"{campaign.system.id!r}"
            if area != campaign.system.id
            else f"{tag} is not an event type of {campaign.system.id!r}"
        )
    for i in itertools.compress(range(len(events)), kinds):
        event = events[i]
        if kinds[i] == _ROLL:
            roll_requests.check(campaign, event)  # an answer or withdrawal fits its request
        elif isinstance(event, DowntimeRevealed):
            seed = sessions.downtime_seed(campaign, event.number)  # committed, unrevealed, kept
            if seed.hex() != event.seed_reveal:
                raise RuleError(f"that is not the downtime seed of session {event.number}")
        elif isinstance(event, DowntimeCommitted):
            closes = events[i - 1] if i else None
            if not (
                isinstance(closes, SessionEnded | SessionAbandoned)
                and closes.number == event.number
            ):
                raise RuleError(
                    "downtime.committed is written by `campaign session end` and "
                    "`campaign session abandon`, right after the session it follows closes"
                )
        elif isinstance(event, CheckpointKey):
            checkpoints.check_key_event(campaign, event)  # recorded once, never changed
        elif isinstance(event, DowntimeAbandoned):
            if event.number != sessions.unrevealed_downtime(campaign) or sessions.downtime_kept(
                campaign, event.number
            ):
                raise RuleError(
                    "downtime.abandoned closes a downtime seed this ledger has lost; it is "
                    "written by `campaign session start` and `campaign session abandon`"
                )
    if not marks:
        return
    open_, last = campaign.current_session(), campaign.last_session()
    for event in marks:
        if isinstance(event, SessionStarted):
            if open_ is not None:
                raise RuleError(
                    f"session {open_} is still open: end it with `campaign session end` first"
                )
            if event.number != last + 1:
                raise RuleError(
                    f"the next session is {last + 1}, not {event.number}: sessions start "
                    "once each, in order"
                )
            open_ = last = event.number
        else:
            if event.number != open_:
                raise RuleError(
                    f"session {event.number} is not open"
                    + (f" (session {open_} is)" if open_ is not None else "")
                    + ": a session closes once, and only while open"
                )
            open_ = None



def check_contests(campaign: Campaign, events: Sequence[Event], first_seq: int) -> None:
    """Refuse a ``contest.opposed`` that is not the other side of the roll just before it
    in the same batch (``first_seq``: the seq the batch's first event will take), and a
    roll against a character on the ledger without it.

    :raises RuleError: the first such event (nothing written).
    """
    for i, event in enumerate(events):
        if type(event).part_of_roll:
            roll = campaign.system.follow_up_of(event)
            at = -1 if roll is None else roll - first_seq
            if not (0 <= at < i and isinstance(events[at], Roll)):
                raise RuleError(
                    f"{event_tag(type(event))} is written with the roll it belongs to, by "
                    "`campaign roll` against a character on the ledger, never on its own"
                )
        if isinstance(event, Roll):
            opponent = campaign.system.opponent_of(event)
            if opponent is None:
                continue
            after = events[i + 1] if i + 1 < len(events) else None
            if not (
                isinstance(after, ContestOpposed)
                and after.character == opponent
                and after.roll == first_seq + i
            ):
                raise RuleError(
                    f"a roll against {opponent!r} is recorded with their side of it "
                    "(contest.opposed) right after it: roll it with `campaign roll` against "
                    "a character on the ledger"
                )
        elif isinstance(event, ContestOpposed):
            before = events[i - 1] if i > 0 else None
            if not (
                isinstance(before, Roll)
                and event.roll == first_seq + i - 1
                and stream_of(before) == event.roller
                and campaign.system.opponent_of(before) == event.character
            ):
                raise RuleError(
                    "contest.opposed is written by `campaign roll` against a character on "
                    "the ledger, right after the roll it answers"
                )
            if event.harm is not UNSET:
                harm = events[i + 1] if i + 1 < len(events) else None
                if not (
                    harm is not None
                    and event.harm == first_seq + i + 1
                    and stream_of(harm) in (event.roller, event.character)
                    and not isinstance(harm, (Roll, ContestOpposed))
                ):
                    raise RuleError(
                        "the harm a contest applies is written right after its "
                        "contest.opposed, by `campaign roll` applying it"
                    )



def validate(campaign: Campaign, events: Sequence[Event],
    *,
    cached: dict[str, Any] | None = None,
    first_seq: int | None = None,
) -> dict[str, Any]:
    """Apply ``events`` in order to the current states; raise what the rules refuse.

    :param cached: states known to be at the head (not modified).
    :param first_seq: the seq the first event gets when appended; appliers read each
        event's with :func:`ledger.rules.projection.applying_seq`.
    :returns: the states of the characters touched, after the events.
    """
    appliers = campaign.appliers
    states: dict[str, Any] = dict(cached or {})
    known = campaign.characters()
    for i, event in enumerate(events):
        seq = None if first_seq is None else first_seq + i
        stream = stream_of(event)
        if isinstance(event, CharacterCreated):
            if event.character in known or event.character in states:
                raise RuleError(
                    f"a character with id {event.character!r} already exists; give the sheet another id"
                )
            state = created_state(campaign.system, event)
            for at, fact in held_by_newcomers(campaign):  # what the group shares
                fn = appliers.get(type(fact))
                if fn is not None:
                    with applying(at):
                        state = fn(state, fact)
            states[event.character] = state
            continue
        if isinstance(event, Corrected):
            continue
        fn = appliers.get(type(event))
        if stream == CAMPAIGN_STREAM:
            if fn is None:
                continue
            for cid in known:
                if cid not in states:
                    states[cid] = campaign.state_of(cid)
            with applying(seq):
                for cid in list(states):
                    states[cid] = fn(states[cid], event)
        else:
            if stream not in states:
                if stream not in known:
                    raise NotFound(f"no character {stream!r} in {campaign.id}")
                states[stream] = campaign.state_of(stream)
            if fn is not None:
                with applying(seq):
                    states[stream] = fn(states[stream], event)
    return states



def held_by_newcomers(campaign: Campaign) -> list[tuple[int, Event]]:
    """``[(seq, event)]``: the campaign-stream facts a character who joins now holds
    too (event classes with ``held_by_newcomers``), with the corrections in force; read
    through the type index (none when the system has no such type)."""
    types = [tag for tag, cls in campaign.codec.types.items() if cls.held_by_newcomers]
    if not types:
        return []
    corrections = campaign.corrections()
    projector = campaign.projector()
    out = []
    for stored in campaign.store.rows(campaign.id, types=types, streams=[CAMPAIGN_STREAM]):
        event = projector.decode_row(stored.seq, stored.type, stored.data, corrections)
        if event is not None:
            out.append((stored.seq, event))
    return out
