"""Passports: a character's chronicle entries from every table, and their verification.

A *passport* (docs/league.md "Passport") is one canonical JSON object::

    {"format": "campaign-ledger-passport/v1", "passport": ID,
     "entries": [{"note": SIGNED ENTRY, "vkey": TABLE KEY, "checkpoint": SIGNED CHECKPOINT,
                  "events": [EXPORT LINE, ...], "proofs": [[BASE64, ...], ...],
                  "cosignature": {"vkey": PHONE KEY, "signature": LINE}}, ...]}

Entries are oldest first, from the character's creation; each carries the events it names
(export lines, as a player's export shows them: never a GM-only one), each event's audit
path to the checkpoint the entry rests on (RFC 9162), and that checkpoint's signed note.
An entry the player's phone cosigned carries the cosignature (absent: not cosigned).

- :func:`export_passport`: a character's passport from this ledger (entries carried in by a
  join first, then this table's).
- :func:`verify_passport`: every signature, hash, inclusion proof, the chain from the
  character's creation, and every state re-derived through this table's rule system.
- :func:`join`: start a character at this table from a verified passport.
- :func:`check_log`: ``campaign verify``'s check of the entries and joins a log keeps.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, Literal

import msgspec

from ledger.campaign.checkpoints import ORIGIN_PREFIX, recorded_key
from ledger.campaign.chronicles import (
    Kinds,
    Prior,
    Replay,
    build_entry,
    kept_entries,
    options_of,
    priors,
    select,
)
from ledger.chain import encode_canonical, hash_of
from ledger.codec import Codec
from ledger.envelope import StoredEvent
from ledger.errors import RuleError
from ledger.events import (
    CAMPAIGN_STREAM,
    CharacterCreated,
    CharacterJoined,
    ChronicleCosigned,
    ChronicleSigned,
    Recorded,
)
from ledger.history import tree_proofs
from ledger.rules.system import RuleSystem
from ledger.trust import chronicle, merkle
from ledger.trust.chronicle import Entry, EntryError
from ledger.trust.notes import Checkpoint, NoteError, Verifier, open_note

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

FORMAT: Literal["campaign-ledger-passport/v1"] = "campaign-ledger-passport/v1"

Int64 = Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)]
Hash = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]
Text = Annotated[str, msgspec.Meta(max_length=1000)]
B64Hash = Annotated[str, msgspec.Meta(max_length=64)]


class PassportEvent(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """One event of an entry: the export line of a public event (``data`` raw)."""

    seq: Int64
    campaign: Text
    stream: Text
    version: Int64
    type: Text
    data: msgspec.Raw
    recorded_at: Text
    actor: Text
    session: Int64 | None
    visibility: Literal["public"]
    prev_hash: Hash
    hash: Hash

    def stored(self) -> StoredEvent:
        """As a stored event (``data`` as text)."""
        return StoredEvent(
            seq=self.seq, campaign=self.campaign, stream=self.stream, version=self.version,
            type=self.type, data=bytes(self.data).decode(), recorded_at=self.recorded_at,
            actor=self.actor, session=self.session, visibility=self.visibility,
            prev_hash=self.prev_hash, hash=self.hash,
        )  # fmt: skip


class Cosignature(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The player's phone's cosignature of an entry: its cosigner key and signature line."""

    vkey: Text
    signature: Text


class PassportEntry(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """One chronicle entry with what it rests on (``cosignature`` absent: not cosigned)."""

    note: str
    vkey: Text
    checkpoint: Text
    events: list[PassportEvent]
    proofs: list[list[B64Hash]]
    cosignature: Cosignature | None = None


class Passport(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A passport file (the module docstring gives its shape)."""

    format: Literal["campaign-ledger-passport/v1"]
    passport: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{32}$")]
    entries: list[PassportEntry]


_decoder = msgspec.json.Decoder(Passport)


class PassportError(RuleError):
    """A passport refused: ``str()`` is one line naming the entry and what is wrong."""


def _event_line(stored: StoredEvent) -> PassportEvent:
    return PassportEvent(
        seq=stored.seq, campaign=stored.campaign, stream=stored.stream,
        version=stored.version, type=stored.type, data=msgspec.Raw(stored.data.encode()),
        recorded_at=stored.recorded_at, actor=stored.actor, session=stored.session,
        visibility="public", prev_hash=stored.prev_hash, hash=stored.hash,
    )  # fmt: skip


def _note_text(note: str) -> str:
    return note[: note.rfind("\n\n") + 1]


def decode(data: bytes) -> Passport:
    """A passport's structure (nothing verified yet).

    :raises PassportError: not JSON of a passport's shape.
    """
    try:
        return _decoder.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError) as e:
        raise PassportError(f"this is not a passport file: {e}") from None


def carried_entries(campaign: Campaign, character: str) -> list[PassportEntry]:
    """The entries ``character`` carried in when they joined this table (``[]`` if
    created here)."""
    for rec in campaign.records(types=["character.joined"], stream=character):
        assert isinstance(rec.data, CharacterJoined)
        return decode(rec.data.text.encode()).entries
    return []


def export_passport(campaign: Campaign, character: str) -> bytes:
    """``character``'s passport (canonical JSON and a newline): the entries they carried
    in, then each entry signed here with its events, their audit paths and the checkpoint.

    :raises NotFound: no such character.
    :raises RuleError: the character has no entry yet.
    """
    cid = campaign.find_character(character)
    store = campaign.store
    rows = list(store.rows(campaign.id))
    kinds = Kinds.of(campaign.system, campaign.codec)
    vkey = recorded_key(campaign) or ""
    entries = list(carried_entries(campaign, cid))
    cosigned = {k.hash: k for k in kept_entries(campaign, [cid]) if k.cosigned}
    passport = ""
    for row in rows:
        if row.type != "chronicle.signed" or row.stream != cid:
            continue
        signed = campaign.codec.decode(row.data, row.type)
        assert isinstance(signed, ChronicleSigned)
        passport = signed.passport
        size = signed.checkpoint
        upto = rows[:size]
        prior = priors(upto, campaign.codec).get(cid)
        since = prior.size if prior else 0
        events = [e for e in select(upto, cid, kinds, campaign.codec) if e.seq > since]
        kept = store.checkpoints(campaign.id, size=size)
        if not kept:
            raise RuleError(f"the checkpoint of size {size} an entry of {cid} rests on is not kept")
        cosign = cosigned.get(chronicle.entry_hash(_note_text(signed.note)))
        entries.append(
            PassportEntry(
                note=signed.note, vkey=vkey, checkpoint=str(kept[0]["note"]),
                events=[_event_line(e) for e in events],
                proofs=[
                    [base64.b64encode(h).decode() for h in tree_proofs.inclusion(store, campaign.id, e.seq, size).proof]
                    for e in events
                ],
                cosignature=(
                    Cosignature(vkey=cosign.cosigned or "", signature=cosign.signature)
                    if cosign
                    else None
                ),
            )  # fmt: skip
        )
    if not passport:
        raise RuleError(
            f"{cid} has no chronicle entry yet: one is signed at `campaign session end` "
            "after a session they play"
        )
    return encode_canonical(Passport(format=FORMAT, passport=passport, entries=entries)) + b"\n"


@dataclass
class Verified:
    """A verified passport: its id, its entries (oldest first), the head entry's hash and
    table, and the character as the last entry leaves them (state as the rule system's
    ``state_type``; name, creation sheet and player from their ``character.created``).
    ``cosigners`` gives, per entry, the phone key that cosigned it (``None``: not
    cosigned)."""

    passport: str
    entries: list[Entry]
    head: str
    table: str
    character: str
    name: str
    sheet: dict[str, Any]
    player: str | None
    state: Any
    hashes: list[str] = field(default_factory=list)
    cosigners: list[str | None] = field(default_factory=list)


def _where(i: int, table: str | None) -> str:
    return f"entry {i}" + (f" (signed by {table})" if table else "")


def verify_passport(data: bytes, system: RuleSystem, codec: Codec) -> Verified:
    """Check a passport from end to end against this table's rule system and options.

    Each entry: its signature by the key it names, its checkpoint signed by that key and
    the one the entry names, each event's hash recomputed and its inclusion proof to that
    checkpoint, the events the ones the entry names, its ``previous`` the hash of the
    entry before (the first entry's: none), the rule system and options this table's, and
    the state it names the rule system's fold of its events (from the character's
    creation, or from the state carried into a table, which must be the one the entry
    before names).

    :raises PassportError: the first problem, in one line naming the entry.
    """
    passport = decode(data)
    if not passport.entries:
        raise PassportError("the passport holds no entry")
    options = options_of(system)
    previous, previous_state = chronicle.NO_PREVIOUS, ""
    replay: Replay | None = None
    segment: tuple[str, str] | None = None  # (table, character) of the entries being folded
    last_size = 0
    entries: list[Entry] = []
    hashes: list[str] = []
    cosigners: list[str | None] = []
    state: Any = None
    created: CharacterCreated | None = None
    keys: dict[str, Verifier] = {}  # each table's key parsed once, not once per entry
    for i, pe in enumerate(passport.entries, 1):
        verifier = keys.get(pe.vkey)
        if verifier is None:
            try:
                verifier = keys[pe.vkey] = Verifier.parse(pe.vkey)
            except NoteError as e:
                raise PassportError(f"{_where(i, None)}: the table's key is malformed ({e})") from None
        where = _where(i, verifier.name)
        try:
            open_note(pe.note, [verifier])
            text = _note_text(pe.note)
            entry = chronicle.parse(text)
        except (NoteError, EntryError) as e:
            raise PassportError(f"{where}: its signature does not verify ({e}): it was edited") from None
        if entry.table != verifier.name:
            raise PassportError(f"{where}: it names the table {entry.table!r}, not its signer's")
        cosigners.append(check_cosignature(pe, text, where))
        if entry.passport != passport.passport:
            raise PassportError(f"{where}: it belongs to passport {entry.passport}, not {passport.passport}")
        if entry.previous != previous:
            raise PassportError(
                f"{where}: the chain is broken: it follows an entry that is not the one before it"
                + (" (the passport does not start at the character's creation)" if i == 1 else "")
            )
        if entry.system != system.id:
            raise PassportError(f"{where}: a {entry.system} character; this table plays {system.id}")
        if entry.options != options:
            raise PassportError(
                f"{where}: played with options {encode_canonical(entry.options).decode()}; this "
                f"table plays {encode_canonical(options).decode()}"
            )
        try:
            open_note(pe.checkpoint, [verifier])
            checkpoint = Checkpoint.parse(_note_text(pe.checkpoint))
        except NoteError as e:
            raise PassportError(f"{where}: its checkpoint does not verify ({e})") from None
        if checkpoint.origin != entry.table or (checkpoint.size, checkpoint.root) != entry.checkpoint:
            raise PassportError(f"{where}: its checkpoint is not the one the entry names")
        held = _checked_events(pe, entry, checkpoint, where)
        joins = [e for e in held if e.type == "character.created"]
        if joins:
            made = codec.decode(joins[0].data, joins[0].type)
            assert isinstance(made, CharacterCreated)
            carried = made.state is not msgspec.UNSET
            if i == 1 and carried:
                raise PassportError(
                    f"{where}: it starts from a carried state, not from the character's "
                    "creation: the passport was cut short"
                )
            if i > 1 and not carried:
                raise PassportError(f"{where}: it creates a new character in the middle of a passport")
            if carried and chronicle.state_hash(msgspec.convert(made.state, system.state_type)) != previous_state:
                raise PassportError(f"{where}: the state it starts from is not the one the entry before names")
            created = created or made
            replay, segment, last_size = Replay(system, codec, entry.character), (entry.table, entry.character), 0
        elif replay is None or segment != (entry.table, entry.character):
            raise PassportError(
                f"{where}: "
                + ("it does not start at the character's creation: the passport was cut short"
                   if replay is None else "it moves to another table without joining it")
            )
        if held and held[0].seq <= last_size:
            raise PassportError(f"{where}: its events are older than the entry before it")
        last_size = checkpoint.size
        try:
            state = replay.feed(held)
        except RuleError as e:
            raise PassportError(f"{where}: the rules refuse its events: {e}") from None
        if state is None or chronicle.state_hash(state) != entry.state:
            raise PassportError(
                f"{where}: the state it names is not what its events give in {system.id}"
            )
        previous, previous_state = chronicle.entry_hash(text), entry.state
        entries.append(entry)
        hashes.append(previous)
    assert created is not None
    head = entries[-1]
    return Verified(
        passport=passport.passport, entries=entries, head=previous, table=head.table,
        character=head.character, name=head.name, sheet=dict(created.sheet),
        player=created.player, state=state, hashes=hashes, cosigners=cosigners,
    )  # fmt: skip


def check_cosignature(pe: PassportEntry, text: str, where: str) -> str | None:
    """The phone key that cosigned an entry (``None``: not cosigned), once its cosignature
    verifies over the entry's note ``text``.

    :raises PassportError: a cosignature that does not verify (forged, by another key
        than it names, or of another entry), naming the entry.
    """
    if pe.cosignature is None:
        return None
    vkey = pe.cosignature.vkey
    try:
        chronicle.verify_cosignature(vkey, text, pe.cosignature.signature)
    except EntryError as e:
        raise PassportError(
            f"{where}: its cosignature by the phone {chronicle.cosignature_name(vkey)[:80]!r} "
            f"does not verify ({e}): it is forged"
        ) from None
    return vkey


def _checked_events(pe: PassportEntry, entry: Entry, checkpoint: Checkpoint, where: str) -> list[StoredEvent]:
    """An entry's events, each hash recomputed and proved in its checkpoint's tree."""
    count, digest = entry.events
    if len(pe.events) != count or len(pe.proofs) != count:
        raise PassportError(f"{where}: it names {count} events but carries {len(pe.events)}")
    campaign_id = entry.table.removeprefix(ORIGIN_PREFIX)
    stored: list[StoredEvent] = []
    last = 0
    for ev, path in zip(pe.events, pe.proofs, strict=True):
        if ev.campaign != campaign_id or ev.stream not in (entry.character, CAMPAIGN_STREAM):
            raise PassportError(f"{where}: event {ev.seq} is not one of {entry.character}'s at that table")
        if ev.seq <= last or ev.seq > checkpoint.size:
            raise PassportError(f"{where}: event {ev.seq} is out of order")
        last = ev.seq
        s = ev.stored()
        try:
            recomputed = hash_of(s)
        except (ValueError, TypeError):
            recomputed = ""
        if recomputed != ev.hash:
            raise PassportError(
                f"{where}: event {ev.seq} does not match its hash: it was changed after the "
                "table signed it"
            )
        try:
            audit = [base64.b64decode(h, validate=True) for h in path]
            merkle.verify_inclusion(
                ev.seq - 1, checkpoint.size, merkle.leaf_hash(bytes.fromhex(ev.hash)), audit,
                checkpoint.root,
            )  # fmt: skip
        except (ValueError, binascii.Error, merkle.ProofError) as e:
            raise PassportError(
                f"{where}: event {ev.seq} is not in the table's log at its checkpoint ({e})"
            ) from None
        stored.append(s)
    if chronicle.events_digest([(e.seq, e.hash) for e in stored]) != digest:
        raise PassportError(f"{where}: its events are not the ones it names")
    return stored


def join(
    campaign: Campaign, data: bytes, *, character: str | None = None, actor: str, at: str,
    newest: Callable[[str, str], str | None] | None = None,
) -> list[Recorded]:
    """Start a character at this table from a verified passport: ``character.created``
    carrying the verified state, then ``character.joined`` naming the passport's head and
    keeping its bytes (one batch).

    :param character: the id here (default: the id at the passport's last table).
    :param newest: in a league, ``newest(passport, head)``: ``None`` when ``head`` is the
        league's newest entry for that passport, else why not (one line); asked after the
        passport verifies, before anything is written.
    :raises PassportError: the passport does not verify, or is not at the league's newest
        entry (one line naming the entry).
    :raises RuleError: the id is taken, or the passport's text is hostile.
    """
    from ledger.text import check_sheet

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise PassportError("this is not a passport file: it is not UTF-8") from None
    found = verify_passport(data, campaign.system, campaign.codec)
    if newest is not None:
        problem = newest(found.passport, found.head)
        if problem is not None:
            raise PassportError(f"{_where(len(found.entries), found.table)}, the passport's last: {problem}")
    check_sheet({"name": found.name, "player": found.player or "", **found.sheet}, "the passport's")
    cid = character or found.character
    return campaign.append(
        [
            CharacterCreated(
                character=cid, name=found.name, sheet=found.sheet, player=found.player,
                state=msgspec.to_builtins(found.state),
            ),
            CharacterJoined(
                character=cid, passport=found.passport, head=found.head, table=found.table,
                text=text,
            ),
        ],
        actor=actor, at=at,
    )  # fmt: skip


@dataclass(frozen=True)
class Before:
    """One entry carried in: the table that signed it, its session, what changed, and the
    phone key that cosigned it (``None``: not cosigned)."""

    table: str
    session: int
    changed: tuple[str, ...]
    cosigned: str | None = None


def before_this_table(campaign: Campaign, character: str) -> list[Before]:
    """The entries ``character`` carried in when they joined (``[]``: created here),
    oldest first: what the log and the sheet show as "before this table"."""
    return _befores(carried_entries(campaign, character))


def _befores(entries: Sequence[PassportEntry]) -> list[Before]:
    out = []
    for pe in entries:
        e = chronicle.parse(_note_text(pe.note))
        out.append(
            Before(e.table, e.session, e.changed, pe.cosignature.vkey if pe.cosignature else None)
        )
    return out


def before_line(passport_text: str) -> str:
    """The history a ``character.joined`` carried in, as the log and the recap show it
    after the join's own words: ``"Before this table: session 1, signed by T: what changed
    (cosigned by the player's phone P); session 2, ..."`` (:func:`before_words` for each
    entry, as the sheet's "Before this table" section shows them). ``""`` when the text is
    not a passport (``campaign verify`` names that)."""
    try:
        carried = _befores(decode(passport_text.encode()).entries)
    except (PassportError, EntryError):
        return ""
    return "Before this table: " + "; ".join(
        f"session {b.session}, signed by {b.table}: {before_words(b)}" for b in carried
    )


def check_log(campaign: Campaign) -> tuple[int, str] | None:
    """``campaign verify``'s check of chronicles: each ``chronicle.signed`` is signed by the
    campaign's key and is the entry its log gives again (built anew, byte for byte), and
    each ``character.joined`` names a passport that verifies, whose head it names and
    whose last state the ``character.created`` before it carries.

    :returns: ``(seq, problem)`` of the first that fails, or ``None``.
    """
    rows = list(campaign.store.rows(campaign.id))
    if not any(
        r.type in ("chronicle.signed", "character.joined", "chronicle.cosigned") for r in rows
    ):
        return None
    kinds = Kinds.of(campaign.system, campaign.codec)
    vkey = recorded_key(campaign)
    signed: dict[str, str] = {}  # each entry's hash: its text (what a cosignature names)
    cosigned: set[str] = set()
    for i, r in enumerate(rows):
        if r.type == "chronicle.signed":
            problem = _check_signed(campaign, rows, r, kinds, vkey)
            entry = campaign.codec.decode(r.data, r.type)
            assert isinstance(entry, ChronicleSigned)
            text = _note_text(entry.note)
            signed[chronicle.entry_hash(text)] = text
        elif r.type == "character.joined":
            problem = _check_joined(campaign, rows, i, r)
        elif r.type == "chronicle.cosigned":
            problem = _check_cosigned(campaign, r, signed, cosigned)
        else:
            continue
        if problem:
            return r.seq, problem
    return None


def _check_signed(campaign: Campaign, rows: Sequence[StoredEvent], r: StoredEvent, kinds: Kinds, vkey: str | None) -> str | None:
    signed = campaign.codec.decode(r.data, r.type)
    assert isinstance(signed, ChronicleSigned)
    who = f"the chronicle entry of {signed.character} for session {signed.session}"
    try:
        open_note(signed.note, [Verifier.parse(vkey or "")])
    except NoteError as e:
        return f"{who} is not signed by the campaign's key ({e})"
    size = signed.checkpoint
    if not 1 <= size < r.seq:
        return f"{who} rests on a checkpoint of {size} events, which is not before it"
    upto = rows[:size]
    root = merkle.root([merkle.leaf_hash(bytes.fromhex(e.hash)) for e in upto])
    prior = priors(upto, campaign.codec).get(signed.character) or Prior(
        signed.passport, chronicle.NO_PREVIOUS, 0
    )
    again = build_entry(
        campaign, upto, signed.character, size=size, root=root, session=signed.session,
        prior=prior, kinds=kinds,
    )  # fmt: skip
    if again is None or again.text() != _note_text(signed.note):
        return f"{who} is not what the log gives: the log or the entry was changed"
    return None


def _check_cosigned(campaign: Campaign, r: StoredEvent, signed: dict[str, str], cosigned: set[str]) -> str | None:
    """A ``chronicle.cosigned``: the entry it names was signed before it on the same
    stream (``signed``: each earlier entry's hash to its text), is cosigned once
    (``cosigned``: the hashes cosigned before it), and the cosignature verifies over that
    entry's text."""
    event = campaign.codec.decode(r.data, r.type)
    assert isinstance(event, ChronicleCosigned)
    who = f"the cosignature of the chronicle entry of {event.character} for session {event.session}"
    text = signed.get(event.entry)
    if text is None or chronicle.parse(text).character != event.character:
        return f"{who} names an entry this log did not sign before it"
    if event.entry in cosigned:
        return f"{who} is a second cosignature of that entry"
    cosigned.add(event.entry)
    try:
        chronicle.verify_cosignature(event.vkey, text, event.signature)
    except EntryError as e:
        return f"{who} does not verify ({e}): it is forged"
    return None


def _check_joined(campaign: Campaign, rows: Sequence[StoredEvent], i: int, r: StoredEvent) -> str | None:
    joined = campaign.codec.decode(r.data, r.type)
    assert isinstance(joined, CharacterJoined)
    try:
        found = verify_passport(joined.text.encode(), campaign.system, campaign.codec)
    except PassportError as e:
        return f"the passport {joined.character} joined with does not verify: {e}"
    made = campaign.codec.decode(rows[i - 1].data, rows[i - 1].type) if i else None
    if (
        not isinstance(made, CharacterCreated)
        or made.character != joined.character
        or made.state is msgspec.UNSET
        or chronicle.state_hash(msgspec.convert(made.state, campaign.system.state_type))
        != chronicle.state_hash(found.state)
    ):
        return f"{joined.character} does not start from the state their passport proves"
    if (found.head, found.table, found.passport) != (joined.head, joined.table, joined.passport):
        return f"{joined.character}'s join does not name their passport's head"
    return None


def before_section(campaign: Campaign, character: str) -> Any:
    """The sheet's "Before this table" section (a :class:`ledger.rules.sheets.Section`):
    one line per entry carried in, with the table that signed it and what changed; ``None``
    for a character created here."""
    from ledger.rules.sheets import Line, Section

    carried = before_this_table(campaign, character)
    if not carried:
        return None
    return Section(
        title="Before this table",
        note="from the passport verified when they joined",
        items=tuple(
            Line(
                label=f"session {b.session}",
                value=f"signed by {b.table}",
                note=before_words(b),
            )
            for b in carried
        ),
    )


def before_words(b: Before) -> str:
    """What one carried entry changed, and whether the player's phone cosigned it: the
    words the sheet, the log and the recap all show."""
    changed = "; ".join(b.changed) or "nothing changed"
    who = chronicle.cosignature_name(b.cosigned) if b.cosigned else None
    return changed + (f" (cosigned by the player's phone {who})" if who else " (not cosigned)")


def cosigned_words(cosignatures: Sequence[Cosignature | None]) -> str:
    """How many of a passport's entries the player's phone cosigned, and by which phone
    keys: ``"2 entries, 1 cosigned by the player's phone (campaign-ledger-phone/…)"``."""
    n = len(cosignatures)
    keys = list(dict.fromkeys(chronicle.cosignature_name(c.vkey) for c in cosignatures if c))
    done = sum(1 for c in cosignatures if c)
    head = f"{n} {'entry' if n == 1 else 'entries'}, "
    if not done:
        return head + "none cosigned by the player's phone"
    return head + f"{done} cosigned by the player's phone ({', '.join(keys)})"
