"""Projection: fold a campaign's events through its rule system into character state.

Rules of the fold (docs/events.md "The envelope"; docs/trust.md "A player's view never holds a GM fact"):

- ``character.created`` makes a character's initial state (:meth:`RuleSystem.initial_state`),
  or the state it carries from a verified passport (:func:`created_state`).
- An event on a character's stream goes to that character's applier for its type; an event
  on the ``"campaign"`` stream (scene and session ends, ...) goes to every character, where
  the system has an applier for it. Dispatch is a dict built once per projector.
- Corrections: a ``correction.recorded`` event with ``seq <= upto`` retracts its target (the
  target is skipped) or amends it (the target counts with the amended payload). A
  correction of a correction undoes it.
- A player's view (``as_gm=False``) skips GM-only events entirely, so no state derived
  from them exists in it.

Snapshots cache one character's state at a ``seq``; a snapshot is used only when its
fingerprint matches what is in force now, the corrections whose target is at or before it
included (:mod:`ledger.rules.snapshots`), so deleting snapshots never changes an answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

import msgspec
from msgspec import UNSET

from ledger.codec import Codec
from ledger.errors import RuleError
from ledger.events import (
    CAMPAIGN_STREAM,
    CharacterCreated,
    Corrected,
    Event,
    Recorded,
    StoredEvent,
)
from ledger.rules.system import RuleSystem
from ledger.store.base import COLUMNS, EventStore

#: The seq being applied, in a one-item list (a cell): :meth:`Projector.fold` sets the
#: context once per fold and writes the cell per event (a list store, not a ``ContextVar``
#: set and reset per event); each context (thread, task) has its own cell.
_APPLYING_SEQ: ContextVar[list[int | None] | None] = ContextVar("ledger_applying_seq", default=None)


def applying_seq() -> int | None:
    """The seq of the event an applier is applying, for a rule system whose state names
    earlier events by seq (spellwoven's Effort spent on roll N): set by
    :meth:`Projector.fold` during a replay and by :meth:`ledger.campaign.aggregate.Campaign.validate`
    for a batch about to be appended; ``None`` elsewhere (an applier called by hand).
    Appliers stay pure functions of (state, event, this seq)."""
    cell = _APPLYING_SEQ.get()
    return None if cell is None else cell[0]


class applying:  # noqa: N801 (used as a function: ``with applying(seq):``)
    """Within the block, :func:`applying_seq` is ``seq``.

    A plain class, not a ``@contextmanager`` generator: ``Campaign.append`` enters one per
    event it validates, and a generator's frames cost three times as much.
    """

    __slots__ = ("seq", "token")

    def __init__(self, seq: int | None) -> None:
        self.seq = seq

    def __enter__(self) -> None:
        self.token = _APPLYING_SEQ.set([self.seq])

    def __exit__(self, *exc: object) -> None:
        _APPLYING_SEQ.reset(self.token)


SNAPSHOT_EVERY = 250
#: What :meth:`Projector.fold` reads of an event, in the order it unpacks them
#: (:meth:`ledger.store.rows.RowStream.narrow`). The fast path (no corrections, no
#: upcasters) does not fetch ``type`` (:data:`FAST_FOLD_FIELDS`): four columns of twelve.
FOLD_FIELDS = ("seq", "stream", "type", "data", "visibility")
FAST_FOLD_FIELDS = ("seq", "stream", None, "data", "visibility")


def fold_fields(events: Iterable[StoredEvent]) -> Iterator[tuple[Any, ...]]:
    """Each event's :data:`FOLD_FIELDS`, for a fold handed events rather than a store's
    read it can narrow (``verify`` feeds events one by one; an import, a list)."""
    for e in events:
        yield e.seq, e.stream, e.type, e.data, e.visibility


@dataclass
class Corrections:
    """The corrections in force up to a ``seq``: retracted seqs and amended payloads."""

    retracted: set[int] = field(default_factory=set)
    amended: dict[int, dict[str, Any]] = field(default_factory=dict)
    by_target: dict[int, list[tuple[int, Corrected]]] = field(default_factory=dict)
    latest_target_after: dict[int, int] = field(default_factory=dict)


def load_corrections(
    store: EventStore, campaign: str, codec: Codec, upto: int | None
) -> Corrections:
    """Read every correction of a campaign up to ``upto`` (indexed by type: cheap)."""
    return corrections_from(
        (seq, codec.decode(data, "correction.recorded"))
        for seq, data in store.rows(
            campaign, upto=upto, types=["correction.recorded"], columns="seq, data"
        )
    )


def corrections_from(pairs: Iterable[tuple[int, Event]]) -> Corrections:
    """The corrections in force after ``(seq, Corrected)`` pairs, oldest first."""
    result = Corrections()
    active: dict[int, Corrected] = {}
    for seq, corr in pairs:
        assert isinstance(corr, Corrected)
        result.by_target.setdefault(corr.target, []).append((seq, corr))
        if corr.target in active:
            # a correction of a correction undoes it (and what it did to its companions)
            undone = active.pop(corr.target)
            for target in (undone.target, *companions_of(undone)):
                result.retracted.discard(target)
                result.amended.pop(target, None)
            if corr.action == "retract":
                continue
        active[seq] = corr
        if corr.action == "retract":
            result.retracted.add(corr.target)
            result.amended.pop(corr.target, None)
        else:
            result.amended[corr.target] = corr.data or {}
            result.retracted.discard(corr.target)
        for target, data in companions_of(corr).items():
            if data is None:
                result.retracted.add(target)
                result.amended.pop(target, None)
            else:
                result.amended[target] = data
                result.retracted.discard(target)
    return result


def companions_of(corr: Corrected) -> dict[int, dict[str, Any] | None]:
    """The events a correction corrects with its target (``{}`` when none)."""
    return {} if corr.companions is UNSET else {int(k): v for k, v in corr.companions.items()}


class Projector:
    """Folds one campaign's rows into ``{character id: state}``.

    :param system: the campaign's configured rule system.
    :param codec: the campaign's codec.
    :param appliers: ``system.appliers()`` when the caller already has it (a campaign keeps
        its own: building the table walks every attribute of the system's class, a
        millisecond that a recap's dozen folds paid a dozen times).
    """

    def __init__(
        self,
        system: RuleSystem,
        codec: Codec,
        appliers: dict[type[Event], Callable[[Any, Event], Any]] | None = None,
    ) -> None:
        self.system = system
        self.codec = codec
        self.appliers: dict[type[Event], Callable[[Any, Event], Any]] = (
            system.appliers() if appliers is None else appliers
        )

    def decode_row(self, seq: int, type_: str, data: str, corrections: Corrections) -> Event | None:
        """The payload an event counts with (its ``seq``, ``type`` and stored ``data``):
        ``None`` if retracted, amended data if amended."""
        if seq in corrections.retracted:
            return None
        if seq in corrections.amended:
            return self.codec.amended(type_, corrections.amended[seq])
        return self.codec.decode(data, type_)

    def fold(
        self,
        rows: Iterable[StoredEvent],
        states: dict[str, Any],
        corrections: Corrections,
        *,
        as_gm: bool = True,
        on_step: Callable[[int, dict[str, Any]], None] | None = None,
        strict: bool = True,
        errors: list[tuple[int, str]] | None = None,
        shared: list[tuple[int, Event]] | None = None,
    ) -> dict[str, Any]:
        """Apply stored events to ``states`` (updated in place): a store's full read not yet
        started is narrowed to the fields the fold reads (:data:`FOLD_FIELDS`; four on the
        fast path), any other iterable of :class:`StoredEvent` s is read as it is.

        A campaign-stream event whose class is ``held_by_newcomers`` is also kept, and a
        character created later in the rows is folded through those kept so far when they
        join (:class:`ledger.events.Event`). ``shared`` keeps them across calls that fold
        one log in pieces (``verify`` feeds it row by row); by default each call keeps its
        own, so a fold that should see them reads from the log's start (or from a snapshot
        taken after the character joined).

        Replay never skips an event silently: an event the rules refuse on replay (possible
        only in a log whose corrections were not validated, see
        :meth:`ledger.campaign.aggregate.Campaign.correct`) raises :class:`RuleError` naming its seq
        (``"event 12: ..."``). With ``errors`` (a list) the refusal is added to it as
        ``(seq, problem)`` instead and the event leaves the states unchanged, so a
        correction can name every event it would break.

        :param strict: kept for callers; ``errors`` alone decides whether to collect.
        """
        slow = bool(corrections.retracted or corrections.amended or self.codec.upcasters)
        fields: Iterable[tuple[Any, ...]]
        narrow = getattr(rows, "narrow", None)  # a RowStream not yet read: fetch less
        if narrow is not None and not rows.started and rows.columns == COLUMNS:  # type: ignore[attr-defined]
            # fetch only what the fold reads; type stays None on the fast path
            fields = narrow(FOLD_FIELDS if slow else FAST_FOLD_FIELDS)
        else:
            fields = fold_fields(rows)
        kept: list[tuple[int, Event]] = [] if shared is None else shared
        outer = applying_seq()  # what applying_seq() says between events, as before
        cell: list[int | None] = [outer]
        token = _APPLYING_SEQ.set(cell)
        try:
            self._fold(fields, states, slow, corrections, kept, cell, outer,
                       as_gm=as_gm, on_step=on_step, errors=errors)  # fmt: skip
        finally:
            _APPLYING_SEQ.reset(token)
        return states

    def _fold(
        self,
        fields: Iterable[tuple[Any, ...]],
        states: dict[str, Any],
        slow: bool,
        corrections: Corrections,
        kept: list[tuple[int, Event]],
        cell: list[int | None],
        outer: int | None,
        *,
        as_gm: bool,
        on_step: Callable[[int, dict[str, Any]], None] | None,
        errors: list[tuple[int, str]] | None,
    ) -> None:
        """The loop of :meth:`fold`, inside its context: ``cell[0]`` is the seq of the
        event being applied (:func:`applying_seq`), ``outer`` between events."""
        appliers = self.appliers.get
        system = self.system
        decode = self.codec.raw_decode
        campaign_stream = CAMPAIGN_STREAM
        created = CharacterCreated
        event: Any
        for seq, stream, type_, data, visibility in fields:
            if not as_gm and visibility == "gm":
                continue
            if slow:
                event = self.decode_row(seq, type_, data, corrections)
                if event is None:
                    continue
            elif visibility == "gm":  # a salted GM-only payload: straight to the slow path
                event = self.codec.decode(data, type_)
            else:
                try:
                    event = decode(data)
                except msgspec.ValidationError:  # re-decode for the precise error
                    event = self.codec.decode(data, type_ or msgspec.json.decode(data).get("type"))
            cls = type(event)
            if cls is created:
                try:
                    state = created_state(system, event)
                except RuleError as e:  # a sheet the rules cannot start from (tampered)
                    if errors is None:
                        raise RuleError(f"event {seq}: {e}") from None
                    errors.append((seq, str(e)))
                    if on_step is not None:
                        on_step(seq, states)
                    continue
                for at, fact in kept:  # what the group shares: the newcomer holds it too
                    fn = appliers(type(fact))
                    if fn is None:
                        continue
                    cell[0] = at
                    try:
                        state = fn(state, fact)
                    except RuleError as e:
                        if errors is None:
                            raise RuleError(f"event {at}: {e}") from None
                        errors.append((at, str(e)))
                    finally:
                        cell[0] = outer
                states[event.character] = state
            else:
                if cls.held_by_newcomers and stream == campaign_stream:
                    kept.append((seq, event))
                fn = appliers(cls)
                if fn is not None:
                    cell[0] = seq
                    try:
                        if stream == campaign_stream:
                            after = {c: fn(s, event) for c, s in states.items()}
                            states.update(after)
                        elif stream in states:
                            states[stream] = fn(states[stream], event)
                    except RuleError as e:
                        if errors is None:
                            raise RuleError(f"event {seq}: {e}") from None
                        errors.append((seq, str(e)))
                    finally:
                        cell[0] = outer
            if on_step is not None:
                on_step(seq, states)


def created_state(system: RuleSystem, event: CharacterCreated) -> Any:
    """The state a ``character.created`` starts its character in: the rule system's
    :meth:`~RuleSystem.initial_state` of the sheet, or the ``state`` it carries (a character
    joining from a passport), converted to the system's ``state_type``.

    :raises RuleError: a carried state that is not one of this system's states, or a sheet
        the system cannot start a state from (a key missing, a value of the wrong type).
    """
    if event.state is UNSET:
        try:
            return system.initial_state(event.character, event.name, event.sheet)
        except RuleError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise RuleError(
                f"{event.name}'s sheet is malformed: {type(e).__name__} {e}"
            ) from None
    try:
        return msgspec.convert(event.state, system.state_type)
    except msgspec.ValidationError as e:
        raise RuleError(f"the state {event.name} carries is not a {system.id} state: {e}") from None


def replay_strictly(system: RuleSystem, codec: Codec, events: list[StoredEvent]) -> None:
    """Check that every event of a log is one the rules allow, as it was appended.

    Each event is applied to the states before it (with the corrections then in force);
    after a correction the states are replayed from the start, as the ledger does.

    :raises RuleError: the first event the rules refuse, with its seq.
    """
    projector = Projector(system, codec)
    states: dict[str, Any] = {}
    pairs: list[tuple[int, Event]] = []
    corrections = Corrections()
    shared: list[tuple[int, Event]] = []
    for i, stored in enumerate(events):
        if stored.type == "correction.recorded":
            pairs.append((stored.seq, codec.decode(stored.data, stored.type)))
            corrections = corrections_from(pairs)
            shared = []
            states = projector.fold(events[: i + 1], {}, corrections, shared=shared)
            continue
        projector.fold([stored], states, corrections, strict=True, shared=shared)


def iter_recorded(
    store: EventStore, campaign: str, codec: Codec, *, as_gm: bool = True, **filters: Any
) -> Iterator[Recorded]:
    """Stored events of a campaign as :class:`Recorded`, oldest first (no corrections applied).

    :param filters: :meth:`ledger.store.protocols.EventRecorder.rows`'s, but ``columns``.
    """
    for stored in store.rows(campaign, **filters):
        if not as_gm and stored.visibility == "gm":
            continue
        yield Recorded(stored, codec.decode(stored.data, stored.type))


class GmOnlyEntry(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A GM-only event at its place in a players' view of the log: what a player's export's
    stub carries (seq, campaign, chain hashes) and nothing of its content (no type, stream,
    character, actor, session or time). Players at a table hear the GM roll behind the
    screen; the log says so openly instead of skipping the seq."""

    seq: int
    campaign: str
    prev_hash: str
    hash: str


def iter_log(
    store: EventStore, campaign: str, codec: Codec, *, as_gm: bool, after: int = 0,
    upto: int | None = None,
) -> Iterator[Recorded | GmOnlyEntry]:  # fmt: skip
    """The whole log of ``after < seq <= upto``, oldest first: every event as
    :class:`Recorded`, except that a players' view (``as_gm=False``) has a
    :class:`GmOnlyEntry` in place of each GM-only event (its payload is not even decoded).

    No filter by stream, type, session or actor is offered: a stub shown under one would say
    which character, type or session the GM-only event is of.
    """
    for stored in store.rows(campaign, after=after, upto=upto):
        if not as_gm and stored.visibility == "gm":
            yield GmOnlyEntry(
                seq=stored.seq,
                campaign=stored.campaign,
                prev_hash=stored.prev_hash,
                hash=stored.hash,
            )
            continue
        yield Recorded(stored, codec.decode(stored.data, stored.type))


def encode_state(state: Any) -> bytes:
    """Snapshot bytes of a state (MessagePack)."""
    return msgspec.msgpack.encode(state)


def decode_state(system: RuleSystem, blob: bytes) -> Any:
    """A state back from snapshot bytes."""
    return msgspec.msgpack.decode(blob, type=system.state_type)
