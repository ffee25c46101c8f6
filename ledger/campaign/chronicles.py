"""Chronicles: each character's signed record of the sessions they played at this table.

At ``session end`` (after its checkpoint is signed) every character who played gets a
chronicle entry (:mod:`ledger.trust.chronicle`, docs/league.md "Chronicle entry") signed with
the campaign's checkpoint key and kept in the log as a ``chronicle.signed`` event.

Which events an entry holds (:func:`select`): the public events, up to the checkpoint, that
fold into the character's state as a player sees it: every event on the character's stream
(its ``character.created`` first), the campaign-stream events the rule system applies to
characters once the character exists (a scene's end, time passing), those the group shares
that a newcomer holds (``held_by_newcomers``) even from before, and the corrections of any of
these. An entry holds those after the previous entry's checkpoint; a GM-only event is never
one of them. The state an entry names (:func:`replay`) is the rule system's fold of exactly
these events, so whoever holds them re-derives it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.codec import Codec
from ledger.envelope import StoredEvent
from ledger.errors import RuleError
from ledger.events import (
    CAMPAIGN_STREAM,
    CharacterCreated,
    CharacterJoined,
    ChronicleCosigned,
    ChronicleSigned,
    Corrected,
    Event,
    Recorded,
    event_tag,
)
from ledger.rules.projection import Projector, companions_of, corrections_from, created_state
from ledger.rules.system import RuleSystem
from ledger.trust import chronicle
from ledger.trust.chronicle import Entry
from ledger.trust.notes import sign

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: Event types on a character's stream that no entry holds: the entries themselves, the
#: phones' cosignatures of them, and the join that names a passport (the
#: ``character.created`` before it holds the state).
NOT_CHRONICLED = frozenset({"chronicle.signed", "chronicle.cosigned", "character.joined"})


@dataclass(frozen=True)
class Kinds:
    """What :func:`select` needs of a rule system: the tags of the events it applies, and
    of the campaign-stream events a newcomer holds."""

    applied: frozenset[str]
    held: frozenset[str]

    @classmethod
    def of(cls, system: RuleSystem, codec: Codec) -> Kinds:
        """The kinds of ``system`` (its appliers) and ``codec`` (its event types)."""
        return cls(
            applied=frozenset(event_tag(c) for c in system.appliers()),
            held=frozenset(t for t, c in codec.types.items() if c.held_by_newcomers),
        )


def select(
    rows: Iterable[StoredEvent], character: str, kinds: Kinds, codec: Codec
) -> list[StoredEvent]:
    """The events that fold into ``character``'s players' view, in seq order (the module
    docstring says which). GM-only events are skipped."""
    picked: list[StoredEvent] = []
    seqs: set[int] = set()
    created = False
    for e in rows:
        if e.visibility != "public":
            continue
        if e.stream == character:
            if e.type in NOT_CHRONICLED:
                continue
            created = created or e.type == "character.created"
        elif e.stream != CAMPAIGN_STREAM:
            continue
        elif e.type == "correction.recorded":
            corr = codec.decode(e.data, e.type)
            assert isinstance(corr, Corrected)
            if not ({corr.target, *companions_of(corr)} & seqs):
                continue
        elif not (e.type in kinds.held or (created and e.type in kinds.applied)):
            continue
        picked.append(e)
        seqs.add(e.seq)
    return picked if created else []


class Replay:
    """A character's state folded from chronicled events, fed entry by entry.

    :meth:`feed` folds the next events onto the state so far; a correction among them
    folds everything fed again with the corrections then in force, as the ledger does.
    """

    def __init__(self, system: RuleSystem, codec: Codec, character: str) -> None:
        self.projector = Projector(system, codec)
        self.codec = codec
        self.character = character
        self.events: list[StoredEvent] = []
        self.pairs: list[tuple[int, Event]] = []
        self.states: dict[str, Any] = {}
        self.shared: list[tuple[int, Event]] = []

    def feed(self, events: Sequence[StoredEvent]) -> Any:
        """Fold ``events`` (seq order, after those fed before); the state after, or
        ``None`` when the character does not exist (yet).

        :raises RuleError: an event the rules refuse (``"event N: ..."``).
        """
        self.events.extend(events)
        fresh = [
            (e.seq, self.codec.decode(e.data, e.type))
            for e in events
            if e.type == "correction.recorded"
        ]
        if fresh:
            self.pairs.extend(fresh)
            self.states, self.shared = {}, []
            self.projector.fold(
                self.events, self.states, corrections_from(self.pairs), as_gm=False,
                shared=self.shared,
            )  # fmt: skip
        else:
            self.projector.fold(
                events, self.states, corrections_from(self.pairs), as_gm=False, shared=self.shared
            )
        return self.states.get(self.character)


def replay(system: RuleSystem, codec: Codec, events: Sequence[StoredEvent], character: str) -> Any:
    """``character``'s state folded from ``events`` alone (players' view), or ``None``."""
    return Replay(system, codec, character).feed(events)


def options_of(system: RuleSystem) -> dict[str, Any]:
    """A configured system's campaign options, every default filled (as an entry names
    them): two tables that play the same options name the same dict."""
    return dict(msgspec.to_builtins(system.options))


@dataclass(frozen=True)
class Prior:
    """Where a character's chronicle at this table stands before an entry: the passport
    id, the previous entry's hash and the checkpoint size it rested on (0: none here)."""

    passport: str
    previous: str
    size: int


def priors(rows: Iterable[StoredEvent], codec: Codec) -> dict[str, Prior]:
    """Each character's :class:`Prior` after ``rows``: its last ``chronicle.signed``, else
    its ``character.joined`` (the passport's head), else none."""
    out: dict[str, Prior] = {}
    for e in rows:
        if e.type == "chronicle.signed":
            signed = codec.decode(e.data, e.type)
            assert isinstance(signed, ChronicleSigned)
            text = signed.note[: signed.note.rfind("\n\n") + 1]
            out[e.stream] = Prior(signed.passport, chronicle.entry_hash(text), signed.checkpoint)
        elif e.type == "character.joined":
            joined = codec.decode(e.data, e.type)
            assert isinstance(joined, CharacterJoined)
            out[e.stream] = Prior(joined.passport, joined.head, 0)
    return out


def build_entry(
    campaign: Campaign, rows: Sequence[StoredEvent], character: str, *,
    size: int, root: bytes, session: int, prior: Prior | None, kinds: Kinds,
) -> Entry | None:  # fmt: skip
    """The entry of ``character`` at the checkpoint of ``size`` events (``rows``: the log's
    events 1 to ``size``), or ``None`` when no public event of theirs is of ``session``
    (they did not play). It holds every chronicled event since ``prior``'s checkpoint
    (downtime between sessions included).

    Deterministic given the log: ``campaign verify`` builds each kept entry again and
    compares it byte for byte. A first entry gets a new passport id (``prior`` None).
    """
    system, codec = campaign.system, campaign.codec
    picked = select(rows, character, kinds, codec)
    since = prior.size if prior else 0
    new = [e for e in picked if e.seq > since]
    if not any(e.stream == character and e.session == session for e in new):
        return None  # nothing of theirs in the session: they did not play
    after = replay(system, codec, picked, character)
    if after is None:
        return None  # retracted
    if since:
        before = replay(system, codec, [e for e in picked if e.seq <= since], character)
    else:
        created = codec.decode(picked_created(picked, character).data, "character.created")
        assert isinstance(created, CharacterCreated)
        before = None if created.state is msgspec.UNSET else created_state(system, created)
    name = campaign.characters(include_retracted=True).get(character, character)
    return Entry(
        passport=prior.passport if prior else chronicle.new_passport_id(),
        character=character,
        name=name,
        table=checkpoint_origin(campaign),
        checkpoint=(size, root),
        session=session,
        system=system.id,
        options=options_of(system),
        events=(len(new), chronicle.events_digest([(e.seq, e.hash) for e in new])),
        state=chronicle.state_hash(after),
        previous=prior.previous if prior else chronicle.NO_PREVIOUS,
        changed=tuple(system.describe_changes(before, after, as_gm=False)),
    )


def picked_created(picked: Sequence[StoredEvent], character: str) -> StoredEvent:
    """The ``character.created`` among a character's chronicled events."""
    for e in picked:
        if e.type == "character.created" and e.stream == character:
            return e
    raise RuleError(f"{character} has no character.created among its events")


def checkpoint_origin(campaign: Campaign) -> str:
    """The table's origin (the checkpoints' first line and the key's name)."""
    from ledger.campaign.checkpoints import origin

    return origin(campaign.id)


def sign_chronicles(
    campaign: Campaign, *, size: int, root: bytes, session: int, actor: str, at: str
) -> list[Recorded]:
    """Sign and append the entries of every character who played since their last entry,
    resting on the checkpoint of ``size`` events just signed (call inside ``session end``'s
    transaction). ``[]`` when nobody played.

    :raises RuleError: the key is not kept here (:func:`ledger.campaign.checkpoints.signer_of`).
    """
    from ledger.campaign.checkpoints import signer_of

    rows = list(campaign.store.rows(campaign.id, upto=size))
    kinds = Kinds.of(campaign.system, campaign.codec)
    before = priors(rows, campaign.codec)
    events: list[Event] = []
    signer = None
    for character in campaign.characters():
        entry = build_entry(
            campaign, rows, character, size=size, root=root, session=session,
            prior=before.get(character), kinds=kinds,
        )  # fmt: skip
        if entry is None:
            continue
        signer = signer or signer_of(campaign, actor=actor, at=at)
        events.append(
            ChronicleSigned(
                character=character, passport=entry.passport, session=session,
                checkpoint=size, note=sign(entry.text(), signer),
            )  # fmt: skip
        )
    if not events:
        return []
    return campaign.append(events, actor=actor, at=at, session=session)


@dataclass(frozen=True)
class Kept:
    """One chronicle entry this table signed, as a player's phone is shown it.

    :ivar seq: the ``chronicle.signed`` event's seq. :ivar text: the entry's note text.
    :ivar note: the signed note. :ivar hash: the entry's hash (hex).
    :ivar cosigned: the phone key (``NAME+KEYID+BASE64``) that cosigned it, or ``None``;
        ``signature``: its cosignature line (``""`` when not cosigned).
    """

    seq: int
    character: str
    session: int
    note: str
    text: str
    hash: str
    cosigned: str | None
    signature: str = ""


def kept_entries(campaign: Campaign, characters: Iterable[str]) -> list[Kept]:
    """The entries signed here of ``characters`` (ids), oldest first, each with the phone
    key that cosigned it (``None``: not cosigned)."""
    wanted = set(characters)
    cosigned: dict[str, tuple[str, str]] = {}
    signed_rows: list[tuple[int, ChronicleSigned]] = []
    for row in campaign.store.rows(campaign.id, types=["chronicle.signed", "chronicle.cosigned"]):
        event = campaign.codec.decode(row.data, row.type)
        if isinstance(event, ChronicleCosigned):
            cosigned.setdefault(event.entry, (event.vkey, event.signature))
        elif isinstance(event, ChronicleSigned):
            signed_rows.append((row.seq, event))
    out: list[Kept] = []
    for seq, signed in signed_rows:
        if signed.character not in wanted:
            continue
        text = signed.note[: signed.note.rfind("\n\n") + 1]
        digest = chronicle.entry_hash(text)
        vkey, line = cosigned.get(digest, (None, ""))
        out.append(
            Kept(seq, signed.character, signed.session, signed.note, text, digest, vkey, line)
        )
    return out


#: The longest phone key or cosignature line read (each is under 200 characters).
MAX_COSIGNATURE_TEXT = 1000


def cosign_entry(
    campaign: Campaign, entry: str, vkey: str, signature: str, *,
    characters: Iterable[str], actor: str, at: str,
) -> Recorded:  # fmt: skip
    """Keep a player's phone's cosignature of their character's entry (the player agrees
    it is theirs) as a ``chronicle.cosigned`` event on the character's stream.

    :param entry: the entry's hash (hex), as :func:`kept_entries` gives it.
    :param vkey: the phone's cosigner key; ``signature``: its cosignature line of the
        entry's note text (:func:`ledger.trust.chronicle.verify_cosignature`).
    :param characters: the ids the phone's player plays: only their entries are theirs
        to cosign.
    :raises RuleError: no such entry of the player's characters, an entry already
        cosigned, or a cosignature that does not verify over it (one line naming the
        entry); nothing is written.
    """
    if len(vkey) > MAX_COSIGNATURE_TEXT or len(signature) > MAX_COSIGNATURE_TEXT:
        raise RuleError("a cosignature or key that long is not one")
    found = [k for k in kept_entries(campaign, characters) if k.hash == entry]
    if not found:
        raise RuleError("no chronicle entry of your characters has that hash")
    kept = found[0]
    who = f"the chronicle entry of {kept.character} for session {kept.session}"
    if kept.cosigned is not None:
        raise RuleError(f"{who} is already cosigned by {chronicle.cosignature_name(kept.cosigned)}")
    line = signature.rstrip("\n")
    try:
        chronicle.verify_cosignature(vkey, kept.text, line)
    except chronicle.EntryError as e:
        raise RuleError(f"{who}: the cosignature does not verify ({e})") from None
    (recorded,) = campaign.append(
        [ChronicleCosigned(character=kept.character, entry=kept.hash, session=kept.session,
                           vkey=vkey, signature=line)],
        actor=actor, at=at,
    )  # fmt: skip
    return recorded
