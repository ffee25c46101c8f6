"""Rolls from other tools' chat logs (#29): what the parsers give, and their import.

:mod:`ledger.exchange.foundry` and :mod:`ledger.exchange.roll20` read a file into
:class:`ForeignRoll` values; :func:`import_rolls` maps each speaker to a character and
appends the new ones as ``roll.imported`` events, all in one batch through
:meth:`~ledger.campaign.aggregate.Campaign.append` (the one writer), or nothing. A roll
already imported (same tool and key) is left out, so importing the same file again adds
nothing. docs/imports.md describes the formats and the versions they were written against.
"""

from __future__ import annotations

import difflib
import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.errors import NotFound, RuleError
from ledger.events import RollImported
from ledger.text import check_name, printable

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: The largest file an import reads, in bytes (a chat log of years is a few MB).
MAX_FILE = 64 * 1024 * 1024
#: The longest text one message may hold, in characters (a spell's description is ~2,000).
MAX_TEXT = 20_000
#: The longest speaker name, in characters.
MAX_SPEAKER = 200
#: The most dice one roll may show.
MAX_DICE = 1_000
#: The largest die a roll may show (the ledger's own limit for physical dice).
MAX_SIDES = 1_000

TOOLS = ("foundry", "roll20")


class BadFile(RuleError):
    """A file that is not what its ``--from`` says, or holds something the ledger refuses:
    one line naming the line or element at fault (exit 1, nothing written)."""


@dataclass(frozen=True)
class ForeignRoll:
    """One roll as another tool's chat log shows it.

    :ivar tool: ``"foundry"`` or ``"roll20"``.
    :ivar key: the message's id in the tool (``#N`` after it for its Nth roll), else
        ``"sha256:"`` and the hash of the message's text (:func:`text_key`).
    :ivar where: where it is in the file, for messages (``"line 12"``, ``"message -M5K…"``).
    :ivar dice: ``(sides, face)`` of each die shown, ``1 <= face <= sides``.
    """

    tool: str
    key: str
    where: str
    speaker: str
    formula: str
    dice: tuple[tuple[int, int], ...] = ()
    total: int | None = None
    text: str = ""
    at: str = ""
    label: str = ""


@dataclass
class Parsed:
    """What a parser found: the rolls (file order) and the messages it left out.

    :ivar whispered: whispered or blind messages left out (GM-only in the tool: an import
        never makes them public).
    :ivar messages: every chat message read.
    """

    rolls: list[ForeignRoll] = field(default_factory=list)
    whispered: int = 0
    messages: int = 0


def text_key(*parts: str) -> str:
    """``"sha256:<hex>"`` of ``parts`` (joined by NUL): the key of a message with no id."""
    return "sha256:" + hashlib.sha256("\0".join(parts).encode()).hexdigest()


def check_speaker(speaker: str, where: str) -> str:
    """A speaker name, trimmed, refused when empty, too long or holding invisible characters.

    :raises BadFile: naming ``where``.
    """
    name = " ".join(speaker.split())
    if not name:
        raise BadFile(f"{where}: the message names no speaker")
    if len(name) > MAX_SPEAKER:
        raise BadFile(f"{where}: the speaker's name is {len(name):,} characters (at most {MAX_SPEAKER})")
    try:
        check_name(name, f"{where}: the speaker")
    except RuleError as e:
        raise BadFile(str(e)) from None
    return name


def check_text(text: str, where: str) -> str:
    """A message's text, refused when longer than :data:`MAX_TEXT` characters (free text
    keeps its newlines; every output shows it through :func:`ledger.text.printable`).

    :raises BadFile: naming ``where``.
    """
    if len(text) > MAX_TEXT:
        raise BadFile(
            f"{where}: the message is {len(text):,} characters long, more than the "
            f"{MAX_TEXT:,} a chat message may hold here"
        )
    if "\0" in text:
        raise BadFile(f"{where}: the message holds a NUL character")
    return text


def check_dice(dice: Sequence[tuple[int, int]], where: str) -> tuple[tuple[int, int], ...]:
    """Dice as ``(sides, face)`` with ``2 <= sides <= MAX_SIDES`` and ``1 <= face <= sides``.

    :raises BadFile: the first die that is not, naming ``where``.
    """
    if len(dice) > MAX_DICE:
        raise BadFile(f"{where}: {len(dice):,} dice in one roll (at most {MAX_DICE:,})")
    for sides, face in dice:
        if not 2 <= sides <= MAX_SIDES or not 1 <= face <= sides:
            raise BadFile(f"{where}: a d{sides} cannot show {face}")
    return tuple(dice)


def read_limited(file: Any, name: str) -> bytes:
    """The bytes of an open binary file, refused over :data:`MAX_FILE`.

    :raises BadFile: too large.
    """
    data: bytes = file.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        raise BadFile(f"{name} is larger than {MAX_FILE // (1024 * 1024)} MB: not a chat log")
    return data


def decode_text(data: bytes, name: str) -> str:
    """UTF-8 text without a byte-order mark, with ``\\n`` line ends.

    :raises BadFile: not UTF-8 (names the byte offset).
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise BadFile(f"{name} is not UTF-8 text (byte {e.start:,}): give the file as saved") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def parse_map(pairs: Iterable[str]) -> dict[str, str]:
    """``--map "Speaker=character"`` values as ``{speaker (case-folded): character}``.

    :raises ValueError: a value without ``=`` or with an empty side (a usage error).
    """
    out: dict[str, str] = {}
    for pair in pairs:
        speaker, eq, character = pair.rpartition("=")
        if not eq or not speaker.strip() or not character.strip():
            raise ValueError(f'--map takes "Speaker=character", not {printable(pair)!r}')
        out[" ".join(speaker.split()).casefold()] = character.strip()
    return out


@dataclass
class ImportResult:
    """What :func:`import_rolls` did.

    :ivar new: rolls appended (``roll.imported`` events).
    :ivar already: rolls of the file already in the campaign (left out).
    :ivar unmapped: rolls of speakers left out by ``--unmapped skip``, by speaker.
    :ivar first_seq: the first appended event's seq (``None`` when nothing was new).
    :ivar speakers: ``{speaker: character id}`` as mapped.
    """

    new: int = 0
    already: int = 0
    unmapped: dict[str, int] = field(default_factory=dict)
    first_seq: int | None = None
    speakers: dict[str, str] = field(default_factory=dict)


def imported_keys(campaign: Campaign) -> tuple[set[tuple[str, str]], dict[str, str]]:
    """``(tool, key)`` of every roll already imported into ``campaign`` (retracted ones too:
    a retracted import stays retracted, and is not imported again), and ``{speaker
    (case-folded): character}`` as the latest import mapped each speaker."""
    keys = set()
    speakers: dict[str, str] = {}
    for (data,) in campaign.rows(types=["roll.imported"], columns="data"):
        payload = msgspec.json.decode(data)
        keys.add((payload["tool"], payload["key"]))
        speakers[str(payload["speaker"]).casefold()] = payload["character"]
    return keys, speakers


def map_speakers(
    campaign: Campaign,
    speakers: Iterable[str],
    mapping: dict[str, str],
    *,
    skip: bool,
    before: dict[str, str] | None = None,
) -> dict[str, str]:
    """``{speaker: character id}`` for each speaker: by ``--map`` (the character by id or
    name, :meth:`~ledger.campaign.aggregate.Campaign.find_character`), else as an earlier
    import mapped them (``before``, when that character is still in the campaign), else a
    character whose id or full name is the speaker's name (case aside).

    :param skip: leave unmapped speakers out of the result instead of refusing.
    :raises NotFound: a ``--map`` naming no character (with the closest names).
    :raises RuleError: an unmapped speaker when not ``skip``, with the closest names and the
        ``--map`` that would take it.
    """
    names = campaign.characters()
    by_name = {n.casefold(): cid for cid, n in names.items()} | {cid.casefold(): cid for cid in names}
    targets = {k: campaign.find_character(v) for k, v in mapping.items()}
    earlier = {k: v for k, v in (before or {}).items() if v in names}
    out: dict[str, str] = {}
    missing: list[str] = []
    for speaker in speakers:
        key = speaker.casefold()
        cid = targets.get(key) or earlier.get(key) or by_name.get(key)
        if cid is not None:
            out[speaker] = cid
        elif speaker not in missing:
            missing.append(speaker)
    if missing and not skip:
        first = missing[0]
        close = difflib.get_close_matches(first, list(names.values()), n=3, cutoff=0.3)
        hint = f" (closest: {', '.join(close)})" if close else ""
        others = f" and {len(missing) - 1} more ({', '.join(missing[1:4])})" if len(missing) > 1 else ""
        example = names.get(next(iter(names), ""), "CHARACTER") if not close else close[0]
        raise RuleError(
            f"speaker {printable(first)!r}{others} is not a character of {campaign.id}{hint}: "
            f'add --map "{printable(first)}={example}" for each, or --unmapped skip'
        )
    return out


def import_rolls(
    campaign: Campaign,
    rolls: Sequence[ForeignRoll],
    *,
    mapping: dict[str, str],
    skip_unmapped: bool,
    actor: str,
    at: str,
    gm_only: bool = False,
) -> ImportResult:
    """Append the rolls not yet imported as ``roll.imported`` events, in file order, in one
    batch (all or nothing).

    :param mapping: :func:`parse_map` of the ``--map`` values.
    :param skip_unmapped: leave out the rolls of speakers no character matches.
    :param gm_only: record every roll GM-only (a players' view shows each as a stub).
    :raises RuleError: an unmapped speaker (see :func:`map_speakers`), or a roll the
        campaign refuses (nothing written).
    """
    result = ImportResult()
    with campaign.store.transaction():
        seen, before = imported_keys(campaign)
        fresh: list[ForeignRoll] = []
        for roll in rolls:
            if (roll.tool, roll.key) in seen:
                result.already += 1
                continue
            seen.add((roll.tool, roll.key))
            fresh.append(roll)
        speakers = map_speakers(
            campaign, dict.fromkeys(r.speaker for r in fresh), mapping, skip=skip_unmapped,
            before=before,
        )  # fmt: skip
        result.speakers = speakers
        events = []
        for roll in fresh:
            cid = speakers.get(roll.speaker)
            if cid is None:
                result.unmapped[roll.speaker] = result.unmapped.get(roll.speaker, 0) + 1
                continue
            events.append(
                RollImported(
                    character=cid,
                    tool="foundry" if roll.tool == "foundry" else "roll20",
                    key=roll.key,
                    speaker=roll.speaker,
                    formula=roll.formula,
                    dice=[(s, f) for s, f in roll.dice],
                    total=roll.total,
                    text=roll.text,
                    at=roll.at,
                    label=roll.label,
                )
            )
        if events:
            try:
                written = campaign.append(
                    events, actor=actor, at=at, visibility="gm" if gm_only else None
                )
            except NotFound as e:
                raise RuleError(str(e)) from None
            result.first_seq = written[0].seq
        result.new = len(events)
    return result
