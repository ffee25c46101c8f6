"""A campaign: one log in a store, bound to its rule system. What the CLI calls.

Every write goes through :meth:`Campaign.append`: inside one ``BEGIN IMMEDIATE``
transaction it projects the affected characters to the head, applies each new event through
the rule system (an impossible event raises :class:`ledger.RuleError`), then chains and
inserts the whole batch. Nothing is written when anything fails.
"""

from __future__ import annotations

import datetime
import difflib
import re
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec
from msgspec import UNSET

from . import dice as dicemod
from .chain import instant
from .codec import Codec
from .events import (
    CAMPAIGN_STREAM,
    CampaignCreated,
    CharacterCreated,
    ContestOpposed,
    Corrected,
    DowntimeAbandoned,
    DowntimeCommitted,
    DowntimeRevealed,
    Event,
    Recorded,
    Roll,
    SceneEnded,
    SceneStarted,
    SessionAbandoned,
    SessionEnded,
    SessionStarted,
    event_tag,
    stream_of,
)
from .eventstore import COLUMNS, EventStore, Pending
from .plugins import notify_appended, rule_system, rule_systems
from .projection import (
    SNAPSHOT_EVERY,
    Corrections,
    Projector,
    applying,
    decode_state,
    encode_state,
    iter_recorded,
    load_corrections,
    to_recorded,
)
from .rulesystem import Opponent, RollRequest, RuleError, RuleSystem

ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
#: The events that open and close a session.
SESSION_TYPES = ("session.started", "session.ended", "session.abandoned")
SESSION_EVENTS = (SessionStarted, SessionEnded, SessionAbandoned)
#: The events that commit and close a downtime seed (#13).
DOWNTIME_TYPES = ("downtime.committed", "downtime.revealed", "downtime.abandoned")


class NotFound(RuleError):
    """A campaign, character or event that does not exist (with suggestions)."""


class AutomaticResult(RuleError):
    """A roll the rules settle without dice (:meth:`RuleSystem.automatic`), refused because
    it was not accepted up front (``Campaign.roll(..., automatic_ok=False)``); nothing
    was written. ``str()`` is the rule system's sentence."""


def slug(text: str) -> str:
    """A lower-case id from a name's first word: ``"Julian Hargrave"`` → ``"julian"``,
    ``"Élodie Brun"`` → ``"elodie"`` (accents dropped; ``"character"`` when nothing is left)."""
    import unicodedata

    first = (text.strip().split() or [""])[0]
    ascii_ = unicodedata.normalize("NFKD", first).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9_-]", "", ascii_)[:64].lstrip("_-") or "character"


def blind_client_seed() -> str:
    """A blind engine roll's client seed: ``"blind:"`` + 32 random hex digits (a secret kept
    in the roll's GM-only payload; BRIEF spec 2)."""
    import secrets

    return "blind:" + secrets.token_hex(16)


#: A clock behind the ledger's head by less than this is not worth a warning (two machines'
#: clocks differ by milliseconds); its appends are stamped with the head's time all the same.
CLOCK_SLACK = datetime.timedelta(seconds=1)


def clock_warning(behind: datetime.timedelta) -> str:
    """What to tell the person whose clock is ``behind`` the ledger's last ``recorded_at``
    (:attr:`Campaign.clock_behind`): ``"the clock is 90 minutes behind the ledger: ..."``."""
    seconds = int(behind.total_seconds())
    if seconds < 120:
        amount = f"{seconds} second{'s' if seconds != 1 else ''}"
    elif seconds < 120 * 60:
        amount = f"{seconds // 60} minutes"
    elif seconds < 48 * 3600:
        amount = f"{seconds // 3600} hours"
    else:
        amount = f"{seconds // 86400} days"
    return (
        f"the clock is {amount} behind the ledger: what you record is stamped with the "
        "ledger's last time instead, so its times never go backwards (set this computer's "
        "date and time)"
    )


def open_campaign(store: EventStore, campaign: str | None = None) -> Campaign:
    """The named campaign, or the only one in the file.

    :raises NotFound: no campaign, several and none named, or an unknown name.
    """
    found = store.campaigns()
    ids = [c for c, _ in found]
    if campaign is None:
        if not ids:
            raise NotFound(
                "this ledger has no campaign yet: create one with `campaign new NAME --system ID`"
            )
        if len(ids) > 1:
            raise NotFound(
                f"this ledger holds several campaigns ({', '.join(ids)}): choose one with --campaign"
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


def load_system(system_id: str, options: dict[str, Any] | None = None) -> RuleSystem:
    """The installed rule system ``system_id`` configured with ``options``.

    :raises NotFound: no such system installed (names the installed ones).
    :raises RuleError: bad options.
    """
    system = rule_system(system_id)
    if system is None:
        systems = rule_systems()
        raise NotFound(
            f"no rule system {system_id!r} is installed (installed: {', '.join(sorted(systems)) or 'none'}); "
            "see `campaign systems`"
        )
    return system.configure(options)


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
        self._allowed = frozenset(self.codec.types.values())
        self._cache = {}

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
        from .text import check_name

        if title is not None:
            check_name(title, "the campaign title")
        if not ID_PATTERN.match(campaign_id):
            raise RuleError(
                f"campaign name {campaign_id!r} must be lower-case letters, digits, - or _ (e.g. grand-casebook)"
            )
        bound = load_system(system, options)
        created = CampaignCreated(
            id=campaign_id,
            title=title or campaign_id,
            system=system,
            options=msgspec.to_builtins(bound.options),
        )
        with store.transaction():
            if store.head(campaign_id).seq:
                raise RuleError(f"campaign {campaign_id!r} already exists in this ledger")
            rows = store.append(
                campaign_id, [Pending(created)], actor=actor, recorded_at=at, session=None
            )
            campaign = cls(store, created)
            campaign._report([to_recorded(rows[0], created)])
        return campaign

    def _report(self, records: list[Recorded]) -> None:
        """Hand ``records`` to the ``event_appended`` listeners once the transaction that
        wrote them commits (never if it rolls back; :meth:`ledger.store.Store.after_commit`)."""
        self.store.after_commit(lambda: notify_appended(self, records))

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
        row = self.store.last_of_types(self.id, [*SESSION_TYPES])
        if row is None or row[4] != "session.started":  # ended or abandoned
            return None
        return int(msgspec.json.decode(row[5])["number"])

    def last_session(self) -> int:
        """The number of the last session started (0 when none)."""
        row = self.store.last_of_types(self.id, ["session.started"])
        return int(msgspec.json.decode(row[5])["number"]) if row else 0

    def resolve_as_of(self, as_of: str | None) -> int:
        """A ``seq`` from ``SEQ``, ``session:N`` (its end, or now if open) or an ISO time.

        :raises RuleError: a bad value, naming the accepted forms.
        """
        head = self.store.head(self.id).seq
        if as_of is None:
            return head
        text = as_of.strip()
        if text.isdigit() and len(text) <= 18:
            return min(int(text), head)
        if text.startswith("session:") and text[8:].isdigit() and len(text) <= 26:
            number = int(text[8:])
            closed = ["session.ended", "session.abandoned"]
            for seq, data in self.store.rows(  # the session's own rows (events_session_seq)
                self.id, session=number, types=closed, columns="seq, data"
            ):
                if msgspec.json.decode(data)["number"] == number:
                    return int(seq)
            if number == self.current_session():
                return head
            raise NotFound(f"session {number} has not been played in {self.id}")
        try:
            import datetime

            moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            raise RuleError(
                f"--as-of {as_of!r}: give a seq (120), a session (session:3) or an ISO time (2026-03-01T21:00)"
            ) from None
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=datetime.UTC)
        try:
            stamp = moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        except OverflowError:  # e.g. 9999-12-31T23:59:59-14:00 is after the year 9999 in UTC
            raise RuleError(
                f"--as-of {as_of!r} is outside the years 1 to 9999 in UTC: give an earlier time"
            ) from None
        return self.store.last_seq_at(self.id, stamp)

    def projector(self) -> Projector:
        """A fresh projector for this campaign (sharing the campaign's applier table)."""
        return Projector(self.system, self.codec, self.appliers)

    def corrections(self, upto: int | None = None) -> Corrections:
        """The corrections in force up to ``upto``."""
        return load_corrections(self.store, self.id, self.codec, upto)

    def states(self, *, upto: int | None = None, as_gm: bool = True) -> dict[str, Any]:
        """Every character's state as of ``upto`` (default: head), by full replay."""
        corrections = self.corrections(upto)
        return self.projector().fold(
            self.store.rows(self.id, upto=upto), {}, corrections, as_gm=as_gm
        )

    def state_of(
        self,
        character: str,
        *,
        upto: int | None = None,
        as_gm: bool = True,
        save_snapshots: bool = True,
    ) -> Any:
        """One character's state as of ``upto``, from the newest snapshot whose fingerprint
        matches (:mod:`ledger.snapshots`; any other is ignored and rebuilt on the way).

        :raises NotFound: the character did not exist at ``upto``.
        """
        from . import snapshots

        head = self.store.head(self.id).seq
        upto = head if upto is None else min(upto, head)
        corrections = self.corrections(upto)
        basis = snapshots.Basis(self.fingerprint(), corrections)
        states: dict[str, Any] = {}
        start = 0
        snap = snapshots.load(
            self.store, self.id, character, upto, as_gm, basis,
            lambda blob: decode_state(self.system, blob),
        )  # fmt: skip
        if snap is not None:
            start = snap.seq
            states[character] = snap.state
        pending: list[tuple[int, bytes]] = []
        counter = [0]
        last = [0]

        def on_step(seq: int, st: dict[str, Any]) -> None:
            counter[0] += 1
            last[0] = seq
            if counter[0] % SNAPSHOT_EVERY == 0 and character in st:
                pending.append((seq, encode_state(st[character])))

        rows = self.store.rows(
            self.id, after=start, upto=upto, streams=[character, CAMPAIGN_STREAM]
        )
        projector = self.projector()
        states = projector.fold(
            rows, states, corrections, as_gm=as_gm, on_step=on_step if save_snapshots else None
        )
        if character not in states:
            raise NotFound(f"character {character!r} did not exist at seq {upto}")
        if save_snapshots and counter[0] % SNAPSHOT_EVERY >= max(1, SNAPSHOT_EVERY // 5):
            # where this read ended, so the next read of this moment (the next roll's, a
            # recap's) folds a few events, not up to SNAPSHOT_EVERY again (#19)
            pending.append((last[0], encode_state(states[character])))
        if pending:
            with self.store.transaction():
                for seq, blob in pending:
                    at = basis.at(seq)
                    self.store.save_snapshot(
                        self.id, character, seq, as_gm, blob,
                        basis=at, digest=snapshots.digest(at, blob),
                    )  # fmt: skip
        return states[character]

    _fingerprint: dict[str, Any] | None = None

    def fingerprint(self) -> dict[str, Any]:
        """What this campaign's snapshots depend on (:func:`ledger.snapshots.system_fingerprint`),
        computed once per object."""
        if self._fingerprint is None:
            from .snapshots import system_fingerprint

            self._fingerprint = system_fingerprint(self.system, self.codec)
        return self._fingerprint

    # --- writing -------------------------------------------------------------------------

    def append(
        self,
        events: Sequence[Event],
        *,
        actor: str,
        at: str,
        visibility: str | None = None,
        expected_versions: dict[str, int] | None = None,
        session: int | None = None,
    ) -> list[Recorded]:
        """Validate ``events`` against the rules and append them as one batch.

        :param session: the envelope's session (default: the open session, if any).

        :param visibility: ``"gm"`` records every event GM-only, in the form the rule system
            gives it (:meth:`~ledger.rulesystem.RuleSystem.blind_form`); ``None``: each
            event class's own visibility.

        :raises RuleError: an event the rules refuse (nothing written).
        :raises ledger.store.ConflictError: a stale expected version (nothing written).
        """
        if visibility == "gm":
            events = [self.system.blind_form(e) for e in events]
        with self.store.transaction():
            self.check_kinds(events)
            head = self.store.head(self.id)
            self.check_contests(events, head.seq + 1)
            if self._cache_head != (head.hash, self.store.rollbacks):
                # another writer appended, or a transaction rolled back: start again
                self._cache, self._cache_head = {}, None
            states = self.validate(events, cached=self._cache, first_seq=head.seq + 1)
            rows = self._append_rows(
                [Pending(e, visibility) for e in events],
                actor=actor,
                at=at,
                session=session if session is not None else self.current_session(),
                expected_versions=expected_versions,
            )
            if any(isinstance(e, Corrected) for e in events):
                self._cache, self._cache_head = {}, None  # history changed: replay next time
            else:
                self._cache.update(states)
                self._cache_head = (rows[-1][11] if rows else head.hash, self.store.rollbacks)
            records = [to_recorded(r, e) for r, e in zip(rows, events, strict=True)]
            self._report(records)
        return records

    def _append_rows(
        self,
        batch: list[Pending],
        *,
        actor: str,
        at: str,
        session: int | None,
        expected_versions: dict[str, int] | None = None,
    ) -> list[tuple[Any, ...]]:
        """:meth:`EventStore.append` of ``batch`` stamped ``at``, noting in
        :attr:`clock_behind` how far ``at`` was behind the head when the store stamped the
        batch with the head's time instead (``recorded_at`` never decreases)."""
        rows = self.store.append(
            self.id,
            batch,
            actor=actor,
            recorded_at=at,
            session=session,
            expected_versions=expected_versions,
        )
        if rows and rows[0][6] != at:
            stored, given = instant(rows[0][6]), instant(at)
            if stored is not None and given is not None and stored - given >= CLOCK_SLACK:
                gap = stored - given
                if self.clock_behind is None or gap > self.clock_behind:
                    self.clock_behind = gap
        return rows

    #: How far behind the ledger's head the clock of this object's appends was, at most
    #: (``None``: never, or by less than :data:`CLOCK_SLACK`). Such an append is stamped
    #: with the head's ``recorded_at`` (:func:`ledger.chain.not_before`); the CLI warns
    #: once (:func:`clock_warning`).
    clock_behind: datetime.timedelta | None = None

    def head_state(self, character: str) -> Any:
        """``character``'s state at the head (GM view), kept for the next append's
        validation: a roll folds its character once, not once to resolve and again to
        validate (#19). Refreshed when the head moved or a transaction rolled back.

        :raises NotFound: no such character.
        """
        key = (self.store.head(self.id).hash, self.store.rollbacks)
        if self._cache_head != key:
            self._cache, self._cache_head = {}, key
        if character not in self._cache:
            self._cache[character] = self.state_of(character)
        return self._cache[character]

    # states at the head after this object's own last append (GM view), so a long-lived
    # writer validates a batch without replaying. Keyed by the head's hash (not its seq:
    # another writer may append a different event at the same seq after a rollback) and
    # the store's rollback count, so it is dropped when the head moved or a write rolled back
    _cache: dict[str, Any] = {}
    _cache_head: tuple[str, int] | None = None

    def check_kinds(self, events: Sequence[Event]) -> None:
        """Refuse events of another rule system and session events out of order (#13).

        Sessions start once each, numbered 1, 2, 3, ..., never while one is open, and close
        once (``session.ended`` or ``session.abandoned``) the session that is open.

        :raises RuleError: the first such event (nothing written).
        """
        allowed = self._allowed
        sessions = [e for e in events if isinstance(e, SESSION_EVENTS)]
        if sessions and any(isinstance(e, DowntimeRevealed) for e in events):
            raise RuleError("a downtime seed is revealed in a batch of its own")
        for event in events:
            if type(event) not in allowed:
                tag = event_tag(type(event))
                area = tag.split(".", 1)[0]
                raise RuleError(
                    f"{tag} is an event of rule system {area!r}; campaign {self.id!r} plays "
                    f"{self.system.id!r}"
                    if area != self.system.id
                    else f"{tag} is not an event type of {self.system.id!r}"
                )
        for event in events:
            if isinstance(event, DowntimeRevealed):
                seed = self.downtime_seed(event.number)  # committed, unrevealed, kept
                if seed.hex() != event.seed_reveal:
                    raise RuleError(f"that is not the downtime seed of session {event.number}")
            elif isinstance(event, DowntimeCommitted | DowntimeAbandoned):
                raise RuleError(
                    f"{event_tag(type(event))} is written by `campaign session end` and "
                    "`campaign session abandon` only"
                )
        if not sessions:
            return
        open_, last = self.current_session(), self.last_session()
        for event in sessions:
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

    def check_contests(self, events: Sequence[Event], first_seq: int) -> None:
        """Refuse a ``contest.opposed`` that is not the other side of the roll just before it
        in the same batch (``first_seq``: the seq the batch's first event will take), and a
        roll against a character on the ledger without it (#16).

        :raises RuleError: the first such event (nothing written).
        """
        for i, event in enumerate(events):
            if type(event).part_of_roll:
                roll = self.system.follow_up_of(event)
                at = -1 if roll is None else roll - first_seq
                if not (0 <= at < i and isinstance(events[at], Roll)):
                    raise RuleError(
                        f"{event_tag(type(event))} is written with the roll it belongs to, by "
                        "`campaign roll` (e.g. `--vs-character ... --vs-effort`), never on its own"
                    )
            if isinstance(event, Roll):
                opponent = self.system.opponent_of(event)
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
                        "(contest.opposed) right after it: use `campaign roll ... "
                        "--vs-character`"
                    )
            elif isinstance(event, ContestOpposed):
                before = events[i - 1] if i > 0 else None
                if not (
                    isinstance(before, Roll)
                    and event.roll == first_seq + i - 1
                    and stream_of(before) == event.roller
                    and self.system.opponent_of(before) == event.character
                ):
                    raise RuleError(
                        "contest.opposed is written by `campaign roll ... --vs-character`, "
                        "right after the roll it answers"
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
                            "the harm a contest applies (--apply) is written right after its "
                            "contest.opposed, by `campaign roll ... --apply`"
                        )

    def validate(
        self,
        events: Sequence[Event],
        *,
        cached: dict[str, Any] | None = None,
        first_seq: int | None = None,
    ) -> dict[str, Any]:
        """Apply ``events`` in order to the current states; raise what the rules refuse.

        :param cached: states known to be at the head (not modified).
        :param first_seq: the seq the first event gets when appended; appliers read each
            event's with :func:`ledger.projection.applying_seq`.
        :returns: the states of the characters touched, after the events.
        """
        appliers = self.appliers
        states: dict[str, Any] = dict(cached or {})
        known = self.characters()
        for i, event in enumerate(events):
            seq = None if first_seq is None else first_seq + i
            stream = stream_of(event)
            if isinstance(event, CharacterCreated):
                if event.character in known or event.character in states:
                    raise RuleError(
                        f"a character with id {event.character!r} already exists; give the sheet another id"
                    )
                state = self.system.initial_state(event.character, event.name, event.sheet)
                for at, fact in self.held_by_newcomers():  # what the group shares
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
                        states[cid] = self.state_of(cid)
                with applying(seq):
                    for cid in list(states):
                        states[cid] = fn(states[cid], event)
            else:
                if stream not in states:
                    if stream not in known:
                        raise NotFound(f"no character {stream!r} in {self.id}")
                    states[stream] = self.state_of(stream)
                if fn is not None:
                    with applying(seq):
                        states[stream] = fn(states[stream], event)
        return states

    def held_by_newcomers(self) -> list[tuple[int, Event]]:
        """``[(seq, event)]``: the campaign-stream facts a character who joins now holds
        too (event classes with ``held_by_newcomers``), with the corrections in force; read
        through the type index (none when the system has no such type)."""
        types = [tag for tag, cls in self.codec.types.items() if cls.held_by_newcomers]
        if not types:
            return []
        corrections = self.corrections()
        projector = self.projector()
        out = []
        for row in self.store.rows(self.id, types=types, streams=[CAMPAIGN_STREAM]):
            event = projector.decode_row(row, corrections)
            if event is not None:
                out.append((row[0], event))
        return out

    def add_character(self, sheet: dict[str, Any], *, actor: str, at: str) -> Recorded:
        """Validate a sheet with the rule system and append ``character.created``.

        :raises RuleError: every broken creation rule, a duplicate id, or a name, key or
            text on the sheet with a control or format character (:mod:`ledger.text`).
        """
        from .text import check_sheet

        sheet = dict(sheet)
        name = sheet.pop("name", None)
        if not isinstance(name, str) or not name.strip():
            raise RuleError('the sheet needs a name, e.g. name = "Julian Hargrave"')
        check_sheet({"name": name, **sheet})
        cid = str(sheet.pop("id", None) or slug(name))
        if not ID_PATTERN.match(cid):
            raise RuleError(f"character id {cid!r} must be lower-case letters, digits, - or _")
        player = sheet.pop("player", None)
        normalised = self.system.create_sheet(sheet)
        event = CharacterCreated(
            character=cid,
            name=name.strip(),
            sheet=normalised,
            player=str(player) if player else None,
        )
        return self.append([event], actor=actor, at=at)[0]

    def start_session(self, *, actor: str, at: str) -> Recorded:
        """Open the next session: draw and keep its seed, publish the commitment.

        An unrevealed downtime seed (the last session's, when no ``advance`` drew from it) is
        revealed first, in the same transaction: ``downtime.revealed`` (filed under the
        session it follows), then ``session.started``. A downtime seed this ledger does not
        keep (imported from an export) is closed by ``downtime.abandoned`` instead: nothing
        was drawn from it, since every draw reveals it.

        :raises RuleError: a session is already open; the downtime seed to reveal does not
            match its commitment (names ``campaign session abandon``).
        """
        with self.store.transaction():
            open_ = self.current_session()
            if open_ is not None:
                raise RuleError(
                    f"session {open_} is still open: end it with `campaign session end` first"
                )
            records: list[Recorded] = []
            pending = self.unrevealed_downtime()
            if pending is not None:
                close: Event
                if self.store.get_secret(self.id, pending, "downtime") is None:
                    close = DowntimeAbandoned(  # e.g. a ledger imported from an export
                        number=pending,
                        reason="its seed is not kept in this ledger; nothing was drawn from it",
                    )
                else:
                    downtime = self.downtime_seed(pending)  # checked against its commitment
                    close = DowntimeRevealed(number=pending, seed_reveal=downtime.hex())
                closed = self._append_rows([Pending(close)], actor=actor, at=at, session=pending)
                records.append(to_recorded(closed[0], close))
                self.store.drop_secret(self.id, pending, "downtime")
            number = self.last_session() + 1
            seed = dicemod.new_seed()
            self.store.put_secret(self.id, number, seed)
            event = SessionStarted(number=number, seed_commitment=dicemod.commitment(seed))
            rows = self._append_rows([Pending(event)], actor=actor, at=at, session=number)
            records.append(to_recorded(rows[0], event))
            self._report(records)
        return records[-1]

    def end_session(self, *, actor: str, at: str) -> Recorded:
        """Close the open session: reveal its seed and commit the downtime seed, in one batch
        (``session.ended``, ``downtime.committed``; BRIEF spec 1, #13).

        :returns: the ``session.ended`` record (the batch's head is one seq later).
        :raises RuleError: no session is open; its seed is missing or does not match.
        """
        with self.store.transaction():
            number = self.current_session()
            if number is None:
                raise RuleError("no session is open: start one with `campaign session start`")
            seed = self.session_seed(number)
            downtime = dicemod.new_seed()
            events: list[Event] = [
                SessionEnded(number=number, seed_reveal=seed.hex()),
                DowntimeCommitted(number=number, seed_commitment=dicemod.commitment(downtime)),
            ]
            self.validate(events)
            rows = self._append_rows(
                [Pending(e) for e in events], actor=actor, at=at, session=number
            )
            self.store.drop_secret(self.id, number)
            self.store.put_secret(self.id, number, downtime, "downtime")
            records = [to_recorded(r, e) for r, e in zip(rows, events, strict=True)]
            self._report(records)
        return records[0]

    def abandon_session(self, reason: str, *, actor: str, at: str) -> Recorded:
        """Close the open session whose seed is lost: ``session.abandoned``, and commit a
        downtime seed as ``session end`` does. With no session open, close an unrevealed
        downtime whose seed is lost instead: ``downtime.abandoned``.

        :raises RuleError: no reason, nothing to abandon, or the seed is still kept and
            matches its commitment (then end the session normally, revealing it).
        """
        if not reason.strip():
            raise RuleError('say why the session is abandoned: --reason "..."')
        with self.store.transaction():
            number = self.current_session()
            if number is None:
                return self._abandon_downtime(reason, actor=actor, at=at)
            kept = self.store.get_secret(self.id, number)
            if kept is not None and dicemod.commitment(kept) == self._commitment(number)[1]:
                raise RuleError(
                    f"the seed of session {number} is still kept: end the session normally "
                    "with `campaign session end` (it reveals the seed, so its rolls verify)"
                )
            downtime = dicemod.new_seed()
            events: list[Event] = [
                SessionAbandoned(number=number, reason=reason.strip()),
                DowntimeCommitted(number=number, seed_commitment=dicemod.commitment(downtime)),
            ]
            self.validate(events)
            rows = self._append_rows(
                [Pending(e) for e in events], actor=actor, at=at, session=number
            )
            if kept is not None:  # a seed that does not match its commitment is no seed
                self.store.drop_secret(self.id, number)
            self.store.put_secret(self.id, number, downtime, "downtime")
            records = [to_recorded(r, e) for r, e in zip(rows, events, strict=True)]
            self._report(records)
        return records[0]

    def _abandon_downtime(self, reason: str, *, actor: str, at: str) -> Recorded:
        number = self.unrevealed_downtime()
        if number is None:
            raise RuleError("no session is open: there is nothing to abandon")
        kept = self.store.get_secret(self.id, number, "downtime")
        if kept is not None and dicemod.commitment(kept) == self._downtime(number)[1]:
            raise RuleError(
                "no session is open, and the downtime seed is kept: there is nothing to abandon"
            )
        event = DowntimeAbandoned(number=number, reason=reason.strip())
        rows = self._append_rows([Pending(event)], actor=actor, at=at, session=number)
        if kept is not None:
            self.store.drop_secret(self.id, number, "downtime")
        record = to_recorded(rows[0], event)
        self._report([record])
        return record

    def _downtime(self, number: int) -> tuple[int, str, int | None]:
        """``(seq, seed_commitment, seq closing it or None)`` of the downtime after session
        ``number``. :raises NotFound: no downtime seed was committed at its end."""
        found: tuple[int, str, int | None] | None = None
        for seq, type_, data in self.store.rows(
            self.id, types=[*DOWNTIME_TYPES], columns="seq, type, data"
        ):
            payload = msgspec.json.decode(data)
            if payload.get("number") != number:
                continue
            if type_ == "downtime.committed":
                found = (int(seq), str(payload.get("seed_commitment")), None)
            elif found is not None:
                found = (found[0], found[1], int(seq))
        if found is None:
            raise NotFound(
                f"no downtime seed was committed at the end of session {number}: sessions "
                "ended before downtime seeds existed (or never ended) have none"
            )
        return found

    def unrevealed_downtime(self) -> int | None:
        """The session whose downtime seed is committed and not yet revealed (or ``None``)."""
        row = self.store.last_of_types(self.id, [*DOWNTIME_TYPES])
        if row is None or row[4] != "downtime.committed":
            return None
        return int(msgspec.json.decode(row[5])["number"])

    def downtime_seed(self, number: int) -> bytes:
        """The downtime seed committed at session ``number``'s end, checked against its
        commitment before any draw or reveal (#13).

        :raises RuleError: never committed, already revealed (no engine roll may draw from
            a revealed seed), missing from the secrets table, or not matching.
        """
        seq, commitment, closed = self._downtime(number)
        if closed is not None:
            raise RuleError(
                f"the downtime seed of session {number} was revealed at seq {closed}: no engine "
                "roll may draw from a revealed seed (advancement dice are drawn before the "
                "next session starts)"
            )
        seed = self.store.get_secret(self.id, number, "downtime")
        return _checked_seed(
            seed, commitment, f"the downtime seed of session {number}", seq, "close it"
        )

    def _commitment(self, number: int) -> tuple[int, str]:
        """``(seq, seed_commitment)`` of session ``number``'s ``session.started``.

        :raises NotFound: the session was never started."""
        for seq, data in self.store.rows(
            self.id, session=number, types=["session.started"], columns="seq, data"
        ):
            payload = msgspec.json.decode(data)
            if payload.get("number") == number:
                return int(seq), str(payload.get("seed_commitment"))
        raise NotFound(f"session {number} has not been started in {self.id}")

    def session_seed(self, number: int) -> bytes:
        """Session ``number``'s kept seed, checked against its commitment before any draw or
        reveal (#13: a replaced seed would give rolls that never verify).

        :raises RuleError: the seed is missing from the secrets table, or its sha256 is not
            the session's ``seed_commitment`` (both name ``campaign session abandon``).
        """
        seed = self.store.get_secret(self.id, number)
        seq, commitment = self._commitment(number)
        return _checked_seed(
            seed, commitment, f"the seed of session {number}", seq, "close the session"
        )

    def scene(self, which: str, title: str, *, actor: str, at: str) -> Recorded:
        """Append ``scene.started`` or ``scene.ended`` (``which`` is ``"start"``/``"end"``)."""
        event: Event = SceneStarted(title=title) if which == "start" else SceneEnded(title=title)
        return self.append([event], actor=actor, at=at)[0]

    def session_receipt(self, closed: Recorded) -> str:
        """The one receipt of a session's end, ``"SEQ:HASH"``: the last event of the batch
        that closed session ``closed`` (its ``session.ended`` or ``session.abandoned``
        record), i.e. the ``downtime.committed`` written with it, or the closing event
        itself in a log from before downtime seeds. ``session end`` and the recaps print
        this one (:func:`ledger.verify.receipt_of`).
        """
        from .verify import receipt_of

        number = getattr(closed.data, "number", None)
        for follow in self.records(after=closed.seq, upto=closed.seq + 1):
            if follow.type == "downtime.committed" and follow.data.number == number:  # type: ignore[attr-defined]
                return receipt_of(follow.seq, follow.hash)
        return receipt_of(closed.seq, closed.hash)

    def engine_dice(self, client_seed: str = "") -> dicemod.EngineDice:
        """An engine dice source for the next roll of the open session.

        Call inside a write transaction so the nonce cannot be taken twice.

        :raises RuleError: no session open (engine rolls need a committed seed).
        """
        number = self.current_session()
        if number is None:
            raise RuleError(
                "engine rolls need an open session (its seed is committed at start): "
                "run `campaign session start`, or enter physical dice with --dice"
            )
        seed = self.session_seed(number)
        nonce = self.store.engine_rolls(self.id, number)
        return dicemod.EngineDice(seed, self.id, number, nonce, client_seed)

    def roll(
        self,
        character: str,
        skill: str | None,
        params: dict[str, Any],
        *,
        faces: str | None,
        client_seed: str = "",
        blind: bool = False,
        automatic_ok: bool = True,
        opponent: str | None = None,
        opponent_skill: str | None = None,
        apply: bool = False,
        actor: str,
        at: str,
    ) -> Recorded:
        """Resolve and append one roll (engine dice unless ``faces`` are given).

        :param automatic_ok: write a result the rules give without rolling
            (:meth:`RuleSystem.automatic`); ``False`` refuses it with
            :class:`AutomaticResult`, so the caller can show it and ask first.
        :param opponent: a character on the ledger (id or name) opposing the roll
            (``--vs-character``, #16). The rules resolve it with both characters' current
            states (:class:`~ledger.rulesystem.Opponent`); the batch is the roll, then
            ``contest.opposed`` on the opponent's stream, both streams checked at the
            versions their states were read at. Systems with ``contests = False`` refuse it.
        :param opponent_skill: the skill the opponent opposes with (``--vs-skill``).
        :param apply: a hit's harm goes on the character hit in the same batch
            (``--apply``): :meth:`RuleSystem.harm_of` gives who and how much, the system's
            ``harm_event`` the event.

        The rule system's :meth:`~ledger.rulesystem.RuleSystem.follow_ups` of the roll end
        the batch. The records of the whole batch are kept in :attr:`batch` (the roll is
        returned).

        A GM-only (``blind``) engine roll draws with a secret client seed,
        ``"blind:" + secrets.token_hex(16)``, kept in its GM-only payload: a player who learns
        the session seed still cannot recompute its faces, while the GM's export verifies it
        (BRIEF spec 2, #13). It takes the session's next nonce like any engine roll.

        :raises RuleError: the rules refuse the roll; ``client_seed`` on a blind roll.
        :raises AutomaticResult: an automatic result with ``automatic_ok`` false.
        :raises DiceError: bad faces.
        """
        with self.store.transaction():
            cid = self.find_character(character)
            state = self.head_state(cid)
            names = self.characters()
            versions = {cid: self.store.stream_version(self.id, cid)}
            opp = self._opponent(cid, names, opponent, opponent_skill, apply)
            if opp is not None:
                versions[opp.character] = self.store.stream_version(self.id, opp.character)
            request = RollRequest(cid, names[cid], skill, params, opp)
            source: dicemod.DiceSource
            if faces is not None:
                if client_seed:
                    raise RuleError(
                        "--client-seed is for engine rolls; physical dice (--dice) take none"
                    )
                source = dicemod.PhysicalDice(dicemod.parse_faces(faces))
            else:
                if blind and client_seed:
                    raise RuleError(
                        "--client-seed is for public rolls: a blind roll draws with a secret "
                        "client seed of its own, so players cannot recompute it"
                    )
                source = self.engine_dice(blind_client_seed() if blind else client_seed)
            try:
                event = self.system.resolve(state, request, source)
            except dicemod.DiceError as e:
                if not isinstance(source, dicemod.PhysicalDice) or not source.ran_short:
                    raise
                needed = dicemod.dice_needed(
                    lambda dice: self.system.resolve(state, request, dice), source.faces
                )
                if needed is None:
                    raise
                raise dicemod.DiceError(f"this roll uses {needed}: {e}") from None
            source.finish()
            if not automatic_ok:
                automatic = self.system.automatic(event)
                if automatic:
                    raise AutomaticResult(automatic)
            if (
                faces is None
                and not blind
                and getattr(type(event), "visibility", "public") == "gm"
            ):  # a GM-only roll type: drawn again, blind (the first draws are never shown)
                source = self.engine_dice(blind_client_seed())
                event = self.system.resolve(state, request, source)
                source.finish()
            if not isinstance(event, Roll):
                raise TypeError(
                    f"{self.system.id}.resolve returned {type(event).__name__}, not a Roll"
                )
            events: list[Event] = [event]
            head = self.store.head(self.id).seq
            if opp is not None:
                if self.system.opponent_of(event) != opp.character:
                    raise TypeError(
                        f"{self.system.id}.resolve was given an opponent on the ledger but "
                        "its roll does not name them (vs_character)"
                    )
                harm = self._harm(cid, state, opp, event) if apply else []
                link = ContestOpposed(character=opp.character, roller=cid, roll=head + 1)
                if harm:
                    link = msgspec.structs.replace(link, harm=head + 3)
                events += [link, *harm]
            # what the roll does beyond its streams (a shared objective's or Challenge's count)
            events.extend(self.system.follow_ups(state, event, seq=head + 1))
            self.batch = self.append(
                events,
                actor=actor,
                at=at,
                visibility="gm" if blind else None,
                expected_versions=versions,
            )
            return self.batch[0]

    #: the records of the last :meth:`roll`'s batch (the roll, then its opponent's side and
    #: any harm applied)
    batch: list[Recorded] = []

    def _opponent(
        self,
        cid: str,
        names: dict[str, str],
        opponent: str | None,
        skill: str | None,
        apply: bool,
    ) -> Opponent | None:
        """The :class:`Opponent` of a roll by ``cid`` (``None`` without ``opponent``).

        :raises RuleError: the system cannot take one, the roller opposes themself,
            ``--vs-skill`` or ``--apply`` without ``--vs-character``.
        """
        if opponent is None:
            if skill is not None:
                raise RuleError(
                    "--vs-skill is the skill of the opponent named with --vs-character: "
                    "give both, or neither"
                )
            if apply:
                raise RuleError(
                    "--apply puts a hit's harm on a character on the ledger: name them "
                    "with --vs-character (or record it with `campaign damage`)"
                )
            return None
        if not self.system.contests:
            raise RuleError(
                f"{self.system.name} does not yet resolve a roll against a character on the "
                "ledger: give the opposition as a number (see `campaign roll --help`)"
            )
        oid = self.find_character(opponent)
        if oid == cid:
            raise RuleError(
                f"{names[cid]} cannot oppose their own roll: name another character "
                "with --vs-character"
            )
        if skill is not None and not skill.strip():
            raise RuleError("--vs-skill needs a skill name, e.g. --vs-skill Athletics")
        return Opponent(oid, skill.strip() if skill else None, names[oid], self.state_of(oid))

    def _harm(self, cid: str, state: Any, opp: Opponent, event: Roll) -> list[Event]:
        """The harm ``event`` (a roll by ``cid`` in ``state``) deals (``--apply``): ``[]``
        for a miss, else the rule system's harm event for the character hit
        (``harm_event(state, character, amount)``, or its ``<id>.damage_taken`` with
        ``character`` and ``amount``).

        :raises RuleError: the roll cannot harm (not an attack), or the system records
            harm otherwise.
        """
        harm = self.system.harm_of(event)
        if harm is None:
            raise RuleError(
                "--apply is for an attack or a defence: this roll deals no harm "
                "(roll with --attack or --defend, or leave --apply out)"
            )
        target, amount = harm
        if amount <= 0:
            return []
        if target not in (cid, opp.character):
            raise TypeError(f"{self.system.id}.harm_of names {target!r}, not in the contest")
        target_state = opp.state if target == opp.character else state
        return [self.harm_event(target_state, target, amount)]

    def harm_event(self, state: Any, character: str, amount: int) -> Event:
        """The event recording ``amount`` (≥ 1) harm to ``character`` in ``state``
        (:meth:`RuleSystem.harm_event`).

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
        """Retract (no ``data``/``faces``) or amend event ``seq``, validated like a new event.

        :param data: ``{field: value}`` to amend (the rest of the payload in force is kept).
            An amended roll is resolved again (:mod:`ledger.corrections`).
        :param faces: a roll's corrected physical faces (``--dice`` text).
        :raises RuleError: no reason, an unknown seq, an event that cannot be corrected that
            way (session events, a retracted event, an amended correction), a field that
            cannot be amended (a roll's randomness or derived results), data the rules
            refuse, or a corrected history in which the rules refuse events (every one
            named); nothing is written.
        """
        from . import corrections as corr

        if not reason.strip():
            raise RuleError('a correction needs a reason: --reason "..."')
        amend = data is not None or faces is not None
        with self.store.transaction():
            target = self.record(seq)
            corrections = self.corrections()
            before = self.record(seq - 1) if seq > 1 else None
            problem = corr.refusal(target, "amend" if amend else "retract", corrections, before)
            if type(target.data).part_of_roll:
                rolled = self.system.follow_up_of(target.data)
                problem = (
                    f"event {seq} came with roll {rolled} (it is part of it): correct roll "
                    f"{rolled} instead (retracting it retracts this too)"
                )
            if problem:
                raise RuleError(problem)
            if amend:
                current = corr.in_force(self, target, corrections)
                data = corr.amended_payload(
                    self,
                    target,
                    current,
                    data or {},
                    faces,
                    lambda: self.state_before(target, corrections),
                )
                data = self.codec.stamped(target.type, data)  # its schema version, if > 1
            amended = self.codec.amended(target.type, data) if data is not None else None
            companions = corr.roll_companions(self, target, amended, corrections)
            event = Corrected(
                target=seq,
                action="amend" if amend else "retract",
                reason=reason.strip(),
                data=data,
            )
            if companions:
                event = msgspec.structs.replace(event, companions=companions)
            head = self.store.head(self.id).seq
            broken = corr.broken_by(self, target, event, head + 1)
            if broken:
                raise RuleError(corr.broken_sentence(self, seq, broken))
            # a correction is as secret as what it corrects (an amended GM-only value stays hidden)
            return self.append([event], actor=actor, at=at, visibility=target.visibility)[0]

    def state_before(
        self, target: Recorded, corrections: Corrections, stream: str | None = None
    ) -> Any:
        """The state of ``target``'s character (or of ``stream``, e.g. a contest's
        opponent) just before it, with ``corrections``.

        :raises NotFound: the character did not exist then.
        """
        stream = stream or target.stream
        states = self.projector().fold(
            self.store.rows(self.id, upto=target.seq - 1, streams=[stream, CAMPAIGN_STREAM]),
            {},
            corrections,
        )
        if stream not in states:
            raise NotFound(f"character {stream!r} did not exist before event {target.seq}")
        return states[stream]

    def rows(self, **filters: Any) -> Iterator[tuple[Any, ...]]:
        """Raw stored rows (tuples in :data:`ledger.store.COLUMNS` order)."""
        return self.store.rows(self.id, **filters)


def _checked_seed(seed: bytes | None, commitment: str, whose: str, seq: int, close: str) -> bytes:
    """``seed`` when its sha256 is ``commitment`` (made at ``seq``).

    :raises RuleError: the seed is missing (``None``) or does not match; the message names
        ``whose`` seed, a GM backup and ``campaign session abandon`` (``close`` says what it
        closes).
    """
    fix = (
        "restore it from a GM backup (`campaign import BACKUP` into a new file) or "
        f'{close} without it: `campaign session abandon --reason "..."`'
    )
    if seed is None:
        raise RuleError(f"{whose} is missing from the secrets table: {fix}")
    if dicemod.commitment(seed) != commitment:
        raise RuleError(
            f"{whose} in the secrets table does not match its commitment (seq {seq}): the "
            f"table was changed, and nothing drawn from it would verify; {fix}"
        )
    return seed


__all__ = ["COLUMNS", "Campaign", "NotFound", "clock_warning", "open_campaign", "slug"]
