"""Events: the immutable facts of a campaign, and the envelope the store wraps them in.

An event's payload is a tagged, frozen, keyword-only ``msgspec.Struct``. Its tag is the
envelope's ``type`` (``"<area>.<past_tense>"``; plugin tags start with the system id, e.g.
``"wyrd-engine.damage_taken"``). The envelope (:class:`ledger.envelope.StoredEvent`) adds
the fields of docs/events.md "The envelope": ``seq``, ``campaign``, ``stream``, ``version``, ``type``,
``data``, ``recorded_at``, ``actor``, ``session``, ``visibility``, ``prev_hash``, ``hash``;
:class:`Recorded` is a stored event with its payload decoded.

Stream rule: an event with a ``character`` field belongs to that character's stream;
every other event belongs to the ``"campaign"`` stream.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import msgspec
from msgspec import UNSET, UnsetType

from ledger.envelope import Envelope as Envelope  # re-exported: the hash-chain input
from ledger.envelope import StoredEvent, Visibility

CAMPAIGN_STREAM = "campaign"
ZERO_HASH = "0" * 64


class Event(
    msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True
):
    """Base of every event payload.

    Subclasses repeat ``frozen=True, kw_only=True`` and give an explicit ``tag``. Class
    variables (not stored):

    - ``visibility``: ``"public"`` (default) or ``"gm"`` for facts only the GM may see.
    - ``schema_version``: bump with an upcaster in :mod:`ledger.codec` when the meaning of a
      stored payload changes (new fields with defaults need no bump).
    - ``part_of_roll``: ``True`` for a follow-up (:meth:`ledger.RuleSystem.follow_ups`) that
      exists only with its roll, such as the Effort an opponent spends on their side of a
      contest: it is written only in its roll's batch and corrected only through the roll.
      ``False`` (default): an event that may also be written or corrected on its own.
    - ``held_by_newcomers``: ``True`` for a campaign-stream fact the whole group shares
      (an objective or a Challenge several characters work on): a character created after
      it is folded through it too, when they join, so every sheet agrees. ``False``
      (default): a campaign-stream event applies to the characters that exist then.
    """

    visibility: ClassVar[Visibility] = "public"
    schema_version: ClassVar[int] = 1
    part_of_roll: ClassVar[bool] = False
    held_by_newcomers: ClassVar[bool] = False


class RollInputs(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What a roll was asked with, as the rules were given it: the default
    :meth:`ledger.rules.system.RuleSystem.request_of` reads it back, so re-derivation
    (``verify``, ``import``, ``audit``) and corrections need no code of the rule system's.

    :ivar skill: the skill (stat, attribute, ...) as named, or ``None``.
    :ivar params: every declared roll option given, by its declared name (``"dr"``), its
        value converted as the rules received it (a switch ``true``; an option given
        several times a list). Never a command-line flag: the same for every front end.
    :ivar vs_character: the id of the character on the ledger opposing the roll, or ``None``.
    :ivar vs_skill: the skill they oppose with, as named, or ``None`` (the rules' default).
    """

    skill: str | None = None
    params: dict[str, Any] = {}
    vs_character: str | None = None
    vs_skill: str | None = None


class Roll(Event, frozen=True, kw_only=True):
    """Base of every roll event (docs/events.md "Engine dice schemes").

    :ivar source: ``"engine"`` (drawn by the ledger from the session's committed seed) or
        ``"physical"`` (faces entered by hand from real dice).
    :ivar draws: every die drawn, in order, as ``[sides, value]`` with ``1 <= value <= sides``.
        A Fudge die is a 3-sided die (1 → −1, 2 → 0, 3 → +1).
    :ivar nonce: engine rolls only: 0-based index of the engine roll within its session.
    :ivar client_seed: engine rolls only: text a player offered (default ``""``).
    :ivar scheme: the randomness scheme, ``"ledger-roll-v1"`` (``"ledger-roll-v2"``: a
        requested roll answered with the roller's entropy).
    :ivar request: a requested roll only: the seq of its ``roll.requested`` (absent, not
        stored, on every other roll, so their bytes are unchanged).
    :ivar entropy: a requested roll only: the 32 bytes the roller's device sent, in hex.
    :ivar inputs: what the roll was asked with (:class:`RollInputs`), recorded for a rule
        system that reads its rolls back through the default ``request_of``; absent, not
        stored, on every other roll (and on every roll recorded before inputs were kept),
        so their bytes are unchanged.
    """

    source: Literal["engine", "physical"]
    draws: list[tuple[int, int]]
    nonce: int | None = None
    client_seed: str | None = None
    scheme: str = "ledger-roll-v1"
    request: int | msgspec.UnsetType = msgspec.UNSET
    entropy: str | msgspec.UnsetType = msgspec.UNSET
    inputs: RollInputs | msgspec.UnsetType = msgspec.UNSET


# --- core events -------------------------------------------------------------------------


class CampaignCreated(Event, frozen=True, kw_only=True, tag="campaign.created"):
    """A new campaign: its id (text), title, rule system id and campaign options."""

    id: str
    title: str
    system: str
    options: dict[str, Any] = {}
    #: the campaign's checkpoint verifier key (C2SP ``NAME+HASH+BASE64``), made at
    #: ``campaign new``; absent ("") in campaigns made before checkpoints, which get theirs
    #: by a ``checkpoint.key`` event at their first checkpoint
    checkpoint_key: str = ""


class CharacterCreated(Event, frozen=True, kw_only=True, tag="character.created"):
    """A character joins the campaign. ``sheet`` is the rule system's validated sheet."""

    character: str
    name: str
    sheet: dict[str, Any]
    player: str | None = None
    #: the state the character starts from instead of the sheet's: a character who joins
    #: from a verified passport (``character.joined`` follows in the same batch) starts
    #: from the state its last chronicle entry proves; absent for every other character
    state: dict[str, Any] | UnsetType = UNSET


class SessionStarted(Event, frozen=True, kw_only=True, tag="session.started"):
    """A session opens; ``seed_commitment`` is sha256(seed) in hex (the seed stays secret)."""

    number: int
    seed_commitment: str


class SessionEnded(Event, frozen=True, kw_only=True, tag="session.ended"):
    """A session closes; ``seed_reveal`` is the session's seed in hex."""

    number: int
    seed_reveal: str


class SessionAbandoned(Event, frozen=True, kw_only=True, tag="session.abandoned"):
    """An open session closed without its seed, which was lost (no backup held it).

    Its engine rolls stay in the log and can never be verified: ``verify`` and ``audit``
    report them "unverifiable (session abandoned)". ``reason`` is the GM's explanation.
    """

    number: int
    reason: str


class DowntimeCommitted(Event, frozen=True, kw_only=True, tag="downtime.committed"):
    """The seed of the downtime after session ``number`` is committed: sha256(seed) in hex.

    Written by ``session end`` with ``session.ended`` in one batch. Advancement and any other
    engine roll between sessions draws from this seed (scheme ``ledger-downtime-v1``), which
    nobody can know before the rolls are made.
    """

    number: int
    seed_commitment: str


class DowntimeRevealed(Event, frozen=True, kw_only=True, tag="downtime.revealed"):
    """The downtime seed after session ``number`` revealed (hex): at the end of the
    ``advance`` batch that drew dice from it, or else at the next ``session start``, before
    its ``session.started``. No engine roll draws from it afterwards."""

    number: int
    seed_reveal: str


class DowntimeAbandoned(Event, frozen=True, kw_only=True, tag="downtime.abandoned"):
    """An unrevealed downtime seed whose seed was lost (``campaign session abandon`` with
    no session open): nothing was drawn from it, and nothing will be."""

    number: int
    reason: str


class SceneStarted(Event, frozen=True, kw_only=True, tag="scene.started"):
    """A scene opens (optional title)."""

    title: str = ""


class SceneEnded(Event, frozen=True, kw_only=True, tag="scene.ended"):
    """A scene closes: rule systems clear what lasts a scene (Wyrd stress, boons, ...)."""

    title: str = ""


class NoteAdded(Event, frozen=True, kw_only=True, tag="note.added"):
    """Free text for the record; ``character`` optional."""

    text: str
    character: str | None = None


class Corrected(Event, frozen=True, kw_only=True, tag="correction.recorded"):
    """A correction of an earlier event (never an edit of it).

    ``action`` is ``"retract"`` (the target no longer counts) or ``"amend"`` (the target
    counts with ``data`` as its payload, same type). The original stays in the log.
    """

    target: int
    action: Literal["retract", "amend"]
    reason: str
    data: dict[str, Any] | None = None
    #: events that are part of the target and follow it (the harm a roll applied with
    #: ``--apply``): ``{"seq": payload it counts with, or None: retracted with it}``
    #: (seqs as text: the canonical bytes sort keys); absent when there are none, so other
    #: corrections keep their bytes
    companions: dict[str, dict[str, Any] | None] | UnsetType = UNSET


class ContestOpposed(Event, frozen=True, kw_only=True, tag="contest.opposed"):
    """The opponent's side of a roll made against a character on the ledger
    (``campaign roll ROLLER SKILL --vs-character OPPONENT``).

    Appended in the same batch as the roll, right after it (and before any harm the roll
    applies with ``--apply``), so one contest touches both streams at once, each checked at
    its expected version. The result lives in the roll alone (re-derived by ``verify`` from
    both characters' states); this event links the opponent's stream to it.

    :ivar character: the opponent (this event's stream).
    :ivar roller: the character who rolled.
    :ivar roll: the roll's ``seq`` (the event just before this one).
    :ivar harm: the ``seq`` of the harm the roll applied (``--apply``), the event right after
        this one; absent when none was applied. That harm is part of the roll: it is
        corrected only through the roll (retracted with it, amended when its result
        changes), and ``verify`` checks it is what the rules give for the roll.
    """

    character: str
    roller: str
    roll: int
    harm: int | UnsetType = UNSET


class RollRequested(Event, frozen=True, kw_only=True, tag="roll.requested"):
    """A roll the GM asks of a player (``campaign request``): its inputs are fixed here,
    and it is answered once, by a roll naming this event's seq in its ``request`` (engine
    dice drawn with the roller's entropy, scheme ``ledger-roll-v2``, or physical dice), or
    withdrawn by ``roll.withdrawn``.

    :ivar character: who rolls (this event's stream).
    :ivar skill: the skill (stat, attribute, ...) as the system names it, or ``None``.
    :ivar params: the roll's options by name, as ``campaign roll`` takes them.
    :ivar asked: the player asked to answer (``None``: the character's player).
    """

    character: str
    skill: str | None = None
    params: dict[str, Any] = {}
    asked: str | None = None


class RollWithdrawn(Event, frozen=True, kw_only=True, tag="roll.withdrawn"):
    """A roll request withdrawn before it was answered (``campaign withdraw``). A
    request answered and then withdrawn cannot be: the answer stands in the log.

    :ivar character: the requested roller (this event's stream).
    :ivar request: the ``roll.requested`` event's seq.
    :ivar reason: why, in the GM's words.
    """

    character: str
    request: int
    reason: str


class CheckpointKey(Event, frozen=True, kw_only=True, tag="checkpoint.key"):
    """The campaign's checkpoint verifier key, for a campaign made before checkpoints
    (a new one names its key in ``campaign.created``): every later checkpoint note is signed
    by it (docs/trust.md).

    :ivar vkey: the C2SP signed-note verifier key ``NAME+HASH+BASE64``, its name the
        checkpoints' origin line (``campaign-ledger/<campaign id>``).
    """

    vkey: str


class TimePassed(Event, frozen=True, kw_only=True, tag="time.passed"):
    """In-fiction time passes (``campaign time pass DURATION``): the campaign's own
    clock, never the laptop's. Written with every event the rule system says the span
    implies (:meth:`ledger.RuleSystem.time_passed`: conditions whose time ran out end,
    wounds heal on the book's schedule, a rest recovers what it recovers), right after it
    in the same batch.

    :ivar minutes: the span, in minutes (1 or more).
    :ivar words: the span as the GM gave it (``"8h"``, ``"a night's sleep"``).
    :ivar rest: the characters rested through it (a named span of rest, or ``--rest``).
    :ivar care: the characters had proper care through it (``--care``), for the books
        whose healing asks for care as well as time.
    :ivar consequences: how many events right after this one, in its batch, the rules
        gave for it; they are part of it: corrected only through it (retracting it
        retracts them), checked on append against what the rules give.
    """

    minutes: int
    words: str
    rest: bool = False
    care: bool = False
    consequences: int = 0


class Participant(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One place in an encounter's order: ``character`` (``None``: a foe without a
    sheet), ``initiative`` (``None``: the GM's order) and ``how`` it was got (``"rolled"``:
    the text's roll at seq ``roll``; ``"recorded"``: a number the GM gave; ``"gm"``)."""

    name: str
    character: str | None = None
    initiative: int | None = None
    how: Literal["rolled", "recorded", "gm"] = "gm"
    roll: int | None = None


class EncounterStarted(Event, frozen=True, kw_only=True, tag="encounter.started"):
    """An encounter begins (``campaign encounter start``): ``participants`` in turn
    order (highest initiative first, ties as the GM listed them; or the GM's order), hidden
    ones apart (``encounter.hidden_joined``); its first turn ends the batch."""

    participants: list[Participant]
    title: str = ""


class EncounterHiddenJoined(Event, frozen=True, kw_only=True, tag="encounter.hidden_joined"):
    """A participant only the GM knows of, GM-only, at ``position`` in the GM's full
    order, in the batch of the ``encounter.started`` at seq ``encounter``."""

    visibility: ClassVar[Visibility] = "gm"
    encounter: int
    participant: Participant
    position: int


class EncounterTurn(Event, frozen=True, kw_only=True, tag="encounter.turn"):
    """Whose turn it is (``turn``, a participant's name) in ``round`` (from 1) of the
    encounter started at seq ``encounter``. ``consequences``: the events right after
    it in its batch that end with the turn that ended (:meth:`ledger.RuleSystem.turn_ended`),
    corrected only with it and checked on append against what the rules give."""

    encounter: int
    round: int
    turn: str
    consequences: int = 0


class EncounterHiddenTurn(EncounterTurn, frozen=True, kw_only=True, tag="encounter.hidden_turn"):
    """A hidden participant's turn (as ``encounter.turn``), GM-only."""

    visibility: ClassVar[Visibility] = "gm"


class EncounterAction(Event, frozen=True, kw_only=True, tag="encounter.action"):
    """``actions`` ``character`` spends in a round, counted by ``actions_per_round``."""

    character: str
    encounter: int
    actions: int = 1
    what: str = ""


class EncounterEnded(Event, frozen=True, kw_only=True, tag="encounter.ended"):
    """The encounter started at seq ``encounter`` ends in ``round``; ``consequences``: a turn's."""

    encounter: int
    round: int
    consequences: int = 0


class RollImported(Event, frozen=True, kw_only=True, tag="roll.imported"):
    """A roll made in another tool, imported from its chat log: never verifiable.

    Written by ``campaign import --from foundry|roll20``, kept as that tool showed it,
    never an engine roll and never verifiable (the ledger saw no dice; it proves only that the entry is unchanged
    since it was imported). Not a :class:`Roll`: no rule system re-derives it, and the
    fairness report counts its dice apart (source ``"imported"``).

    :ivar character: who rolled (this event's stream), the speaker as mapped by ``--map``.
    :ivar tool: ``"foundry"`` or ``"roll20"``.
    :ivar key: the message's id in that tool (Roll20 ``data-messageid``, Foundry ``_id``,
        ``#N`` for its Nth roll), else ``"sha256:"`` and the hash of the message's text;
        ``(tool, key)`` is unique in a campaign, so a re-import adds nothing.
    :ivar speaker: the speaker as the tool named them.
    :ivar formula: the dice expression as the tool wrote it (``"1d20+5"``).
    :ivar dice: each die the tool showed, ``[sides, face]`` (dropped dice too); only the
        dice whose size and face the file gives (Foundry's text export pools a term of
        several dice into one sum, which is kept in ``text`` alone).
    :ivar total: the roll's total as the tool gave it, or ``None``.
    :ivar text: the message's text as the file has it (plain text, trimmed).
    :ivar at: the original time as the file gives it (Foundry JSON: UTC ISO 8601; the text
        exports: the tool's local-time words, e.g. ``"April 19, 2020 6:39PM"``).
    :ivar label: what the roll was for, when the tool says (a sheet template's label,
        Foundry's flavor), else ``""``.
    """

    character: str
    tool: Literal["foundry", "roll20"]
    key: str
    speaker: str
    formula: str
    dice: list[tuple[int, int]] = []
    total: int | None = None
    text: str = ""
    at: str = ""
    label: str = ""


class ChronicleSigned(Event, frozen=True, kw_only=True, tag="chronicle.signed"):
    """A character's chronicle entry, signed at ``session end`` with the campaign's
    checkpoint key (docs/league.md "Chronicle entry").

    :ivar character: whose entry it is (this event's stream).
    :ivar passport: the character's passport id (32 hex digits), the same at every table.
    :ivar session: the session that ended.
    :ivar checkpoint: the size of the checkpoint the entry rests on.
    :ivar note: the entry as a C2SP signed note (its text is the entry).
    """

    character: str
    passport: str
    session: int
    checkpoint: int
    note: str


class ChronicleCosigned(Event, frozen=True, kw_only=True, tag="chronicle.cosigned"):
    """A player's phone cosigned their character's chronicle entry: the player agrees it is
    theirs (docs/league.md "Cosigned entries").

    :ivar character: whose entry it is (this event's stream).
    :ivar entry: the entry's hash (hex SHA-256 of its note text).
    :ivar session: the session the entry is of.
    :ivar vkey: the phone's cosigner key, ``NAME+KEYID+BASE64(0x04 ‖ KEY)``.
    :ivar signature: the cosignature line ``— NAME BASE64(KEY ID ‖ TIMESTAMP ‖ SIGNATURE)``
        over the entry's note text (:func:`ledger.trust.chronicle.verify_cosignature`).
    """

    character: str
    entry: str
    session: int
    vkey: str
    signature: str


class CharacterJoined(Event, frozen=True, kw_only=True, tag="character.joined"):
    """A character carried in from a verified passport (``campaign character add
    --passport``), right after the ``character.created`` that starts them from the
    passport's last state.

    :ivar character: the character's id at this table (this event's stream).
    :ivar passport: the passport id.
    :ivar head: the hash of the passport's last entry (hex).
    :ivar table: the origin of the table that signed that entry.
    :ivar text: the passport as it was verified, byte for byte (``campaign verify``
        checks it again; ``campaign passport export`` carries its entries on).
    """

    character: str
    passport: str
    head: str
    table: str
    text: str


CORE_EVENT_TYPES: tuple[type[Event], ...] = (
    CampaignCreated,
    CharacterCreated,
    SessionStarted,
    SessionEnded,
    SessionAbandoned,
    DowntimeCommitted,
    DowntimeRevealed,
    DowntimeAbandoned,
    SceneStarted,
    SceneEnded,
    NoteAdded,
    Corrected,
    ContestOpposed,
    RollRequested,
    RollWithdrawn,
    CheckpointKey,
    TimePassed,
    EncounterStarted,
    EncounterHiddenJoined,
    EncounterTurn,
    EncounterHiddenTurn,
    EncounterAction,
    EncounterEnded,
    RollImported,
    ChronicleSigned,
    CharacterJoined,
    ChronicleCosigned,
)


def event_tag(cls: type[Event]) -> str:
    """The stored ``type`` string of an event class."""
    tag = cls.__struct_config__.tag
    assert isinstance(tag, str), f"{cls.__name__} has no explicit tag"
    return tag


def stream_of(event: Event) -> str:
    """The stream an event belongs to: its ``character`` field, else ``"campaign"``."""
    character = getattr(event, "character", None)
    return character if isinstance(character, str) and character else CAMPAIGN_STREAM


class Recorded(msgspec.Struct, frozen=True, gc=False):
    """A stored event with its decoded payload: ``stored`` as the store keeps it (the
    envelope, ``data`` as canonical JSON text) and ``data``, the payload it counts with (an
    :class:`Event`; amended by a correction where a read applies corrections).

    The envelope's other fields read through (``rec.seq``, ``rec.stream``, ``rec.type``,
    ``rec.visibility``, ...), so a record reads like the envelope with its ``data`` decoded,
    as plugins have always used it. Built by :func:`ledger.rules.projection.iter_recorded`
    and :meth:`ledger.campaign.aggregate.Campaign.append`.
    """

    stored: StoredEvent
    data: Event

    @property
    def seq(self) -> int:
        """Position in the campaign's log (from 1)."""
        return self.stored.seq

    @property
    def campaign(self) -> str:
        """The campaign id."""
        return self.stored.campaign

    @property
    def stream(self) -> str:
        """The character id, or ``"campaign"``."""
        return self.stored.stream

    @property
    def version(self) -> int:
        """The stream's version after this event."""
        return self.stored.version

    @property
    def type(self) -> str:
        """The payload's tag."""
        return self.stored.type

    @property
    def recorded_at(self) -> str:
        """UTC time of recording (``YYYY-MM-DDTHH:MM:SS.ffffffZ``)."""
        return self.stored.recorded_at

    @property
    def actor(self) -> str:
        """Who recorded it."""
        return self.stored.actor

    @property
    def session(self) -> int | None:
        """The session it was recorded in, or ``None``."""
        return self.stored.session

    @property
    def visibility(self) -> Visibility:
        """``"public"`` or ``"gm"``."""
        return self.stored.visibility

    @property
    def prev_hash(self) -> str:
        """The previous event's hash."""
        return self.stored.prev_hash

    @property
    def hash(self) -> str:
        """This event's hash."""
        return self.stored.hash
