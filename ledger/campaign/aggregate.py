"""A campaign: one log in a store, bound to its rule system. What the CLI calls.

Every write goes through :meth:`Campaign.append`: inside one ``BEGIN IMMEDIATE``
transaction it projects the affected characters to the head, applies each new event through
the rule system (an impossible event raises :class:`ledger.RuleError`), then chains and
inserts the whole batch. Nothing is written when anything fails.
"""

from __future__ import annotations

import contextlib
import datetime
import difflib
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec

from ledger.campaign import characters, encounter_checks, rolling, sessions, timeline, validation
from ledger.campaign.characters import ID_PATTERN, slug
from ledger.campaign.clock import CLOCK_SLACK, clock_warning
from ledger.campaign.listeners import notify_appended
from ledger.campaign.reading import StateReader, resolve_as_of
from ledger.campaign.rolling import AutomaticResult, RollBatch
from ledger.chain import Head, instant
from ledger.codec import Codec
from ledger.errors import NotFound, RuleError
from ledger.events import (
    CampaignCreated,
    CharacterCreated,
    Corrected,
    Event,
    Recorded,
    SceneEnded,
    SceneStarted,
    SessionAbandoned,
    SessionEnded,
    SessionStarted,
    StoredEvent,
    Visibility,
)
from ledger.rules.plugins import load_system
from ledger.rules.projection import (
    Corrections,
    Projector,
    iter_recorded,
)
from ledger.store.base import COLUMNS, EventStore, Pending

#: The events that open and close a session.
SESSION_TYPES = ("session.started", "session.ended", "session.abandoned")
SESSION_EVENTS = (SessionStarted, SessionEnded, SessionAbandoned)
#: The events that commit and close a downtime seed.
DOWNTIME_TYPES = ("downtime.committed", "downtime.revealed", "downtime.abandoned")


def open_campaign(store: EventStore, campaign: str | None = None) -> Campaign:
    """The named campaign, or the only one in the file.

    :raises NotFound: no campaign, several and none named, or an unknown name.
    """
    if campaign is not None:  # its first event alone, not every campaign's
        for first in store.rows(campaign, upto=1, limit=1):
            if first.type == "campaign.created":
                return Campaign(store, msgspec.json.decode(first.data, type=CampaignCreated))
    found = store.campaigns()
    ids = [c for c, _ in found]
    if campaign is None:
        if not ids:
            raise NotFound(
                "this ledger has no campaign yet: create one with `campaign new NAME`, naming its "
                "rule system",
                param="system",
            )
        if len(ids) > 1:
            raise NotFound(
                f"this ledger holds several campaigns ({', '.join(ids)}): choose one",
                param="campaign",
            )
        campaign = ids[0]
    for cid, data in found:
        if cid == campaign:
            created = msgspec.json.decode(data, type=CampaignCreated)
            return Campaign(store, created)
    hint = difflib.get_close_matches(campaign, ids, n=1)
    raise NotFound(
        f"no campaign {campaign!r} in this ledger"
        + (f"; did you mean {hint[0]!r}?" if hint else f" (it holds: {', '.join(ids) or 'none'})")
    )


class Campaign:
    """One campaign's log and rules.

    :param store: the store holding the log.
    :param created: the campaign's ``campaign.created`` payload.
    """

    def __init__(self, store: EventStore, created: CampaignCreated) -> None:
        self.store = store
        self.id = created.id
        self.created = created
        self.system = load_system(created.system, created.options)
        self.codec = Codec(self.system.event_types, self.system.upcasters)
        self.appliers = self.system.appliers()
        self.allowed = frozenset(self.codec.types.values())
        self.reader = StateReader(self)

    # --- creation ------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        store: EventStore,
        campaign_id: str,
        *,
        system: str,
        title: str | None = None,
        options: dict[str, Any] | None = None,
        actor: str,
        at: str,
    ) -> Campaign:
        """Start a new campaign log with its ``campaign.created`` event.

        :raises RuleError: a bad id or title (control characters), an existing campaign, an
            unknown system or option.
        """
        from ledger.text import check_name

        if title is not None:
            check_name(title, "the campaign title")
        if not ID_PATTERN.match(campaign_id):
            raise RuleError(
                f"campaign name {campaign_id!r} must be lower-case letters, digits, - or _ (e.g. grand-casebook)"
            )
        from ledger.campaign import checkpoints

        bound = load_system(system, options)
        signer = checkpoints.new_signer(campaign_id)  # the checkpoint key
        created = CampaignCreated(
            id=campaign_id,
            title=title or campaign_id,
            system=system,
            options=msgspec.to_builtins(bound.options),
            checkpoint_key=signer.verifier.key(),
        )
        with store.transaction():
            if store.head(campaign_id).seq:
                raise RuleError(f"campaign {campaign_id!r} already exists in this ledger")
            campaign = cls(store, created)
            campaign.append([created], actor=actor, at=at, session=None)
            checkpoints.keep_key(store, campaign_id, signer)
        return campaign

    def _report(self, records: list[Recorded]) -> None:
        """Hand ``records`` to the ``event_appended`` listeners once the transaction that
        wrote them commits (never if it rolls back; :meth:`ledger.store.sqlite.Store.after_commit`);
        inside :meth:`one_write`, with the write's other records."""
        if self._one_write is not None:
            self._one_write.extend(records)
        else:
            self.store.after_commit(lambda: notify_appended(self, records))

    _one_write: list[Recorded] | None = None

    @contextlib.contextmanager
    def one_write(self) -> Iterator[None]:
        """Several appends that listeners hear of as one write (``session start``: the
        downtime seed's reveal, then the new session, each its own batch)."""
        if self._one_write is not None:
            yield
            return
        self._one_write = []
        try:
            yield
            records = self._one_write
        finally:
            self._one_write = None
        if records:
            self._report(records)

    # --- reading -------------------------------------------------------------------------

    def records(self, *, as_gm: bool = True, **filters: Any) -> Iterator[Recorded]:
        """Stored events (corrections not applied), oldest first; filters as EventStore.rows."""
        return iter_recorded(self.store, self.id, self.codec, as_gm=as_gm, **filters)

    def record(self, seq: int) -> Recorded:
        """One stored event by ``seq``. :raises NotFound: no such seq."""
        for rec in self.records(after=seq - 1, upto=seq):
            return rec
        head = self.store.head(self.id).seq
        raise NotFound(f"no event {seq} in campaign {self.id!r} (its log runs 1 to {head})")

    def characters(self, *, include_retracted: bool = False) -> dict[str, str]:
        """``{character id: name}`` in creation order, corrections honoured.

        A retracted ``character.created`` removes the character (unless
        ``include_retracted``); an amended one counts with its amended name.
        """
        key = "characters+retracted" if include_retracted else "characters"
        return dict(self.reader.memo(key, lambda: self._characters(include_retracted)))

    def _characters(self, include_retracted: bool) -> dict[str, str]:
        """:meth:`characters`, read from the store."""
        corrections = self.corrections()
        out: dict[str, str] = {}
        for seq, data in self.store.rows(self.id, types=["character.created"], columns="seq, data"):
            if seq in corrections.retracted and not include_retracted:
                continue
            ev = self.codec.decode(data, "character.created")
            assert isinstance(ev, CharacterCreated)
            out[ev.character] = corrections.amended.get(seq, {}).get("name", ev.name)
        return out

    def find_character(self, text: str) -> str:
        """A character id from an id, a full name or a first name (case-insensitive).

        :raises NotFound: no match (suggests the closest names).
        """
        chars = self.characters()
        key = text.strip().lower()
        for cid, name in chars.items():
            if key in (cid, name.lower()):
                return cid
        firsts = [cid for cid, name in chars.items() if name.lower().split()[:1] == [key]]
        if len(firsts) == 1:
            return firsts[0]
        choices = list(chars) + [n.lower() for n in chars.values()]
        hint = difflib.get_close_matches(key, choices, n=1, cutoff=0.5)
        raise NotFound(
            f"no character {text!r} in {self.id}"
            + (
                f"; did you mean {hint[0]!r}?"
                if hint
                else f" (characters: {', '.join(chars) or 'none'})"
            )
        )

    def current_session(self) -> int | None:
        """The open session's number, or ``None`` between sessions."""
        return self.reader.memo("session", self._current_session)

    def _current_session(self) -> int | None:
        """:meth:`current_session`, read from the store."""
        last = self.store.last_of_types(self.id, [*SESSION_TYPES])
        if last is None or last.type != "session.started":  # ended or abandoned
            return None
        return int(msgspec.json.decode(last.data)["number"])

    def last_session(self) -> int:
        """The number of the last session started (0 when none)."""
        last = self.store.last_of_types(self.id, ["session.started"])
        return int(msgspec.json.decode(last.data)["number"]) if last else 0

    def resolve_as_of(self, as_of: str | None) -> int:
        """A ``seq`` from ``SEQ``, ``session:N`` (its end, or now if open) or an ISO time
        (:func:`ledger.campaign.reading.resolve_as_of`).

        :raises RuleError: a bad value, naming the accepted forms.
        """
        return resolve_as_of(self, as_of)

    # --- state (ledger.campaign.reading) -----------------------------------------------------

    def projector(self) -> Projector:
        """A fresh projector for this campaign (sharing the campaign's applier table)."""
        return self.reader.projector()

    def corrections(self, upto: int | None = None) -> Corrections:
        """The corrections in force up to ``upto``."""
        return self.reader.corrections(upto)

    def states(self, *, upto: int | None = None, as_gm: bool = True) -> dict[str, Any]:
        """Every character's state as of ``upto`` (default: head), by full replay."""
        return self.reader.states(upto=upto, as_gm=as_gm)

    def state_of(
        self, character: str, *, upto: int | None = None, as_gm: bool = True,
        save_snapshots: bool = True,
    ) -> Any:  # fmt: skip
        """One character's state as of ``upto`` (:meth:`StateReader.state_of`).

        :raises NotFound: the character did not exist at ``upto``."""
        return self.reader.state_of(
            character, upto=upto, as_gm=as_gm, save_snapshots=save_snapshots
        )

    def state_before(
        self, target: Recorded, corrections: Corrections, stream: str | None = None
    ) -> Any:
        """The state of ``target``'s character (or ``stream``'s) just before it.

        :raises NotFound: the character did not exist then."""
        return self.reader.state_before(target, corrections, stream)

    def fingerprint(self) -> dict[str, Any]:
        """What this campaign's snapshots depend on, computed once per object."""
        return self.reader.fingerprint()

    # --- sessions (ledger.campaign.sessions) and rolls (ledger.campaign.rolling) -----------

    def start_session(self, *, actor: str, at: str) -> Recorded:
        """Open the next session (:func:`ledger.campaign.sessions.start_session`)."""
        return sessions.start_session(self, actor=actor, at=at)

    def end_session(self, *, actor: str, at: str) -> Recorded:
        """Close the open session (:func:`ledger.campaign.sessions.end_session`)."""
        return sessions.end_session(self, actor=actor, at=at)

    def abandon_session(self, reason: str, *, actor: str, at: str) -> Recorded:
        """Close a session whose seed is lost (:func:`ledger.campaign.sessions.abandon_session`)."""
        return sessions.abandon_session(self, reason, actor=actor, at=at)

    def downtime_seed(self, number: int) -> bytes:
        """The checked downtime seed of session ``number`` (:func:`~ledger.campaign.sessions.downtime_seed`)."""
        return sessions.downtime_seed(self, number)

    def request_roll(
        self, character: str, skill: str | None, params: dict[str, Any], **kw: Any
    ) -> Recorded:
        """Ask for a roll (:func:`ledger.campaign.roll_requests.request_roll`)."""
        from ledger.campaign.roll_requests import request_roll

        return request_roll(self, character, skill, params, **kw)

    def withdraw_request(self, seq: int, reason: str, *, actor: str, at: str) -> Recorded:
        """Withdraw an open roll request (:func:`ledger.campaign.roll_requests.withdraw`)."""
        from ledger.campaign.roll_requests import withdraw

        return withdraw(self, seq, reason, actor=actor, at=at)

    def roll(self, character: str, skill: str | None, params: dict[str, Any], **kw: Any) -> RollBatch:
        """Resolve and append one roll with its parts (:func:`ledger.campaign.rolling.roll`)."""
        return rolling.roll(self, character, skill, params, **kw)

    # --- writing -------------------------------------------------------------------------

    def append(
        self,
        events: Sequence[Event],
        *,
        actor: str,
        at: str,
        visibility: Visibility | None = None,
        expected_versions: dict[str, int] | None = None,
        session: int | None = None,
    ) -> list[Recorded]:
        """Validate ``events`` against the rules and append them as one batch.

        :param session: the envelope's session (default: the open session, if any).

        :param visibility: ``"gm"`` records every event GM-only, in the form the rule system
            gives it (:meth:`~ledger.rules.system.RuleSystem.blind_form`); ``None``: each
            event class's own visibility.

        The only door to the store: sessions, rolls, corrections and every other write
        build a batch and hand it here. Inside one transaction it checks the event types and
        session order (:func:`~ledger.campaign.validation.check_kinds`), a roll's parts
        (:func:`~ledger.campaign.validation.check_contests`) and the rules
        (:func:`~ledger.campaign.validation.validate`), then chains and inserts the batch.

        :raises RuleError: an event the rules refuse (nothing written).
        :raises ledger.errors.ConflictError: a stale expected version (nothing written).
        """
        if visibility == "gm":
            events = [self.system.blind_form(e) for e in events]
        with self.store.transaction():
            head = self.store.head(self.id)  # first: the reads below are of this head
            with self.reader.at_head(head):  # what was read at this head is kept
                return self._append_at(
                    events, head, actor, at, visibility, expected_versions, session
                )

    def _append_at(
        self, events: Sequence[Event], head: Head, actor: str, at: str,
        visibility: Visibility | None, expected_versions: dict[str, int] | None,
        session: int | None,
    ) -> list[Recorded]:  # fmt: skip
        """:meth:`append`'s checks and write, inside its transaction at ``head``."""
        self.reader.prefetch(lambda: characters.read_at_head(self))
        validation.check_kinds(self, events)
        timeline.check(self, events)  # a span of time with what the rules give
        validation.check_contests(self, events, head.seq + 1)
        encounter_checks.check(self, events, head.seq + 1)  # turn order, actions counted
        cached = self.reader.cached(head.hash)  # {} when another writer appended
        states = validation.validate(self, events, cached=cached, first_seq=head.seq + 1)
        written = self.store.append(
            self.id,
            [Pending(e, visibility) for e in events],
            actor=actor,
            recorded_at=at,
            session=session if session is not None else self.current_session(),
            expected_versions=expected_versions,
        )
        self._note_clock(written, at)
        self.reader.moved(written)
        if any(isinstance(e, Corrected) for e in events):
            self.reader.forget()  # history changed: replay next time
        else:
            self.reader.keep(states, written[-1].hash if written else head.hash)
        records = [Recorded(s, e) for s, e in zip(written, events, strict=True)]
        self._report(records)
        return records

    #: How far behind the ledger's head the clock of this object's appends was, at most
    #: (``None``: never, or by less than :data:`CLOCK_SLACK`). Such an append is stamped
    #: with the head's ``recorded_at`` by the store (:func:`ledger.chain.not_before`); the
    #: CLI warns once (:func:`clock_warning`).
    clock_behind: datetime.timedelta | None = None

    def _note_clock(self, written: Sequence[StoredEvent], at: str) -> None:
        """Note in :attr:`clock_behind` how far ``at`` was behind the head when the store
        stamped the batch with the head's time instead (``recorded_at`` never decreases)."""
        if not written or written[0].recorded_at == at:
            return
        stored, given = instant(written[0].recorded_at), instant(at)
        if stored is not None and given is not None and stored - given >= CLOCK_SLACK:
            gap = stored - given
            if self.clock_behind is None or gap > self.clock_behind:
                self.clock_behind = gap

    def add_character(self, sheet: dict[str, Any], *, actor: str, at: str) -> Recorded:
        """Validate a sheet with the rule system and append ``character.created``
        (:func:`ledger.campaign.characters.add_character`).

        :raises RuleError: every broken creation rule, a duplicate id, or a name, key or
            text on the sheet with a control or format character (:mod:`ledger.text`).
        """
        return characters.add_character(self, sheet, actor=actor, at=at)

    def scene(self, which: str, title: str, *, actor: str, at: str) -> Recorded:
        """Append ``scene.started`` or ``scene.ended`` (``which`` is ``"start"``/``"end"``)."""
        event: Event = SceneStarted(title=title) if which == "start" else SceneEnded(title=title)
        return self.append([event], actor=actor, at=at)[0]

    def harm_event(self, state: Any, character: str, amount: int) -> Event:
        """The event recording ``amount`` (≥ 1) harm to ``character`` in ``state``
        (:meth:`ledger.rules.system.RuleSystem.harm_event`).

        :raises RuleError: the system records harm otherwise.
        """
        return self.system.harm_event(state, character, amount)

    def correct(
        self,
        seq: int,
        reason: str,
        *,
        data: dict[str, Any] | None = None,
        faces: str | None = None,
        actor: str,
        at: str,
    ) -> Recorded:
        """Retract (no ``data``/``faces``) or amend event ``seq``, validated like a new event
        (:func:`ledger.campaign.corrections.correct`).

        :raises RuleError: the correction is refused (nothing is written)."""
        from ledger.campaign.corrections import correct

        return correct(self, seq, reason, data=data, faces=faces, actor=actor, at=at)

    def rows(self, **filters: Any) -> Iterator[Any]:
        """The campaign's stored events (:meth:`ledger.store.protocols.EventRecorder.rows`:
        :class:`StoredEvent` s, or tuples of the ``columns`` asked for)."""
        return iter(self.store.rows(self.id, **filters))


__all__ = [
    "CLOCK_SLACK",
    "COLUMNS",
    "ID_PATTERN",
    "AutomaticResult",
    "Campaign",
    "NotFound",
    "RollBatch",
    "clock_warning",
    "load_system",
    "open_campaign",
    "slug",
]
