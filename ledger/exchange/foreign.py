"""Rolls from other tools' chat logs: what the parsers give, and their import.

:mod:`ledger.exchange.foundry` and :mod:`ledger.exchange.roll20` read a file, streaming,
into :class:`ForeignMessage` values, each holding its :class:`ForeignRoll` values or the
reason it is refused; :func:`import_rolls` maps each speaker to a character and appends the
new rolls as ``roll.imported`` events, all in one batch through
:meth:`~ledger.campaign.aggregate.Campaign.append` (the one writer), or nothing. A roll
already imported (same tool and key) is left out, so importing the same file again adds
nothing. :func:`report` accounts for every message of the file: imported, already
imported, not a roll, or refused with its reason. A roll whose dice and modifiers do not
give its total, or whose total is not a whole number, is refused (:func:`check_total`),
never stored altered. docs/imports.md describes the formats and the versions they were
written against.
"""

from __future__ import annotations

import codecs
import difflib
import functools
import hashlib
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
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
    :ivar total: the roll's total, checked against its dice and modifiers.
    :ivar gm_only: whispered, blind or private in the tool: recorded GM-only.
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
    gm_only: bool = False


@dataclass
class ForeignMessage:
    """One chat message of the file, as read.

    :ivar source: the message's id in the tool (Roll20's ``data-messageid``, Foundry's
        ``_id``), else ``""`` (Foundry's text export has none).
    :ivar where: where it is in the file (``"line 12"``, ``"message -M5K… (line 40)"``).
    :ivar rolls: its rolls, in order; empty for a message that is not a roll.
    :ivar refused: why the message is refused (its rolls are then empty), else ``""``.
    """

    source: str
    where: str
    rolls: list[ForeignRoll] = field(default_factory=list)
    refused: str = ""


@dataclass
class Parsed:
    """What a parser found: every message of the file, in file order.

    :ivar messages: each chat message read, a refused one too.
    """

    messages: list[ForeignMessage] = field(default_factory=list)

    @property
    def rolls(self) -> list[ForeignRoll]:
        """The rolls of every message not refused, in file order."""
        return [r for m in self.messages for r in m.rolls]

    def refuse(self, source: str, where: str, reason: str) -> None:
        """Account for a message refused as a whole, with its reason."""
        self.messages.append(ForeignMessage(source, where, refused=reason))


def text_key(*parts: str) -> str:
    """``"sha256:<hex>"`` of ``parts`` (joined by NUL): the key of a message with no id."""
    return "sha256:" + hashlib.sha256("\0".join(parts).encode()).hexdigest()


def check_speaker(speaker: str, where: str) -> str:
    """A speaker name, trimmed, refused when empty, too long or holding invisible characters.

    :raises BadFile: naming ``where``.
    """
    name, wrong = _speaker(speaker)
    if wrong:
        raise BadFile(f"{where}: {wrong}")
    return name


@functools.lru_cache(maxsize=4096)
def _speaker(speaker: str) -> tuple[str, str]:
    """``(name, "")`` for a speaker name the ledger takes, else ``("", why not)``: a chat
    log names the same few speakers thousands of times."""
    name = " ".join(speaker.split())
    if not name:
        return "", "the message names no speaker"
    if len(name) > MAX_SPEAKER:
        return "", f"the speaker's name is {len(name):,} characters (at most {MAX_SPEAKER})"
    try:
        check_name(name, "the speaker")
    except RuleError as e:
        return "", str(e)
    return name, ""


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


_TOKENS = re.compile(r"\d+(?:\.\d+)?|\.\d+|[-+*/%()]")
_SPACE = re.compile(r"\s+")


def evaluate(expression: str) -> Fraction:
    """The value of an arithmetic expression of numbers, ``+ - * / %``, parentheses and
    signs, exactly (as a fraction), the way a tool's roll adds its terms.

    :raises ValueError: anything else (a function, a word, a cut expression).
    """
    text = _SPACE.sub("", expression)
    tokens = _TOKENS.findall(text)
    if "".join(tokens) != text:
        raise ValueError(f"cannot read {text[:20]!r}")
    if not tokens:
        raise ValueError("empty")
    if len(tokens) > 10_000:
        raise ValueError("too long")
    at = 0
    end = len(tokens)

    def atom(depth: int) -> int | Fraction:
        nonlocal at
        if depth > 100:
            raise ValueError("nested too deep")
        if at >= end:
            raise ValueError("cut short")
        tok = tokens[at]
        at += 1
        if tok.isdigit():
            return int(tok)
        if tok == "-":
            return -atom(depth + 1)
        if tok == "+":
            return atom(depth + 1)
        if tok == "(":
            value = add(depth + 1)
            if at >= end or tokens[at] != ")":
                raise ValueError("unbalanced parentheses")
            at += 1
            return value
        if tok[0].isdigit() or tok[0] == ".":
            return Fraction(tok)
        raise ValueError(f"unexpected {tok!r}")

    def mul(depth: int) -> int | Fraction:
        nonlocal at
        value = atom(depth)
        while at < end and tokens[at] in ("*", "/", "%"):
            op = tokens[at]
            at += 1
            right = atom(depth)
            if op == "*":
                value *= right
            elif right == 0:
                raise ValueError("division by zero")
            elif op == "/":
                value = Fraction(value) / right
            else:
                value = value - right * int(Fraction(value) / right)  # JavaScript's % keeps the sign
        return value

    def add(depth: int) -> int | Fraction:
        nonlocal at
        value = mul(depth)
        while at < end and tokens[at] in ("+", "-"):
            op = tokens[at]
            at += 1
            right = mul(depth)
            value = value + right if op == "+" else value - right
        return value

    value = add(0)
    if at != end:
        raise ValueError(f"unexpected {tokens[at]!r}")
    return Fraction(value)


def whole_total(total: object, where: str) -> int:
    """A roll's total as the tool wrote it, refused unless a whole number (``11.9`` is
    never stored as 11).

    :raises BadFile: not a number, or not whole, naming ``where``.
    """
    if isinstance(total, bool) or not isinstance(total, int | float | str):
        raise BadFile(f"{where}: the roll has no total")
    text = str(total).strip()
    try:
        value = Fraction(text)
    except (ValueError, ZeroDivisionError):
        raise BadFile(f"{where}: the total {printable(text[:40])!r} is not a number") from None
    if value.denominator != 1:
        raise BadFile(f"{where}: the total {printable(text[:40])} is not a whole number")
    if abs(value) > 10**15:
        raise BadFile(f"{where}: the total {printable(text[:40])} is out of range")
    return int(value)


def check_total(expression: str, total: int, where: str) -> None:
    """Refuse a roll whose dice and modifiers (``expression``, the faces in place of the
    dice: ``"(7)+4"``) do not give its ``total``: a cut or altered file.

    :raises BadFile: the expression cannot be read, or gives another number.
    """
    try:
        value = evaluate(expression)
    except ValueError as e:
        raise BadFile(
            f"{where}: cannot check the total {total} against the dice and modifiers "
            f"{printable(expression[:80])!r} ({e})"
        ) from None
    if value != total:
        shown = str(value) if value.denominator == 1 else f"{float(value):g}"
        raise BadFile(
            f"{where}: the dice and modifiers {printable(expression[:80])!r} give {shown}, "
            f"not the total {total} (a cut or altered file?)"
        )


def text_chunks(file: Any, name: str, size: int = 1 << 16) -> Iterator[str]:
    """The text of an open binary file, UTF-8 (a byte-order mark dropped), in chunks,
    read as it goes; refused past :data:`MAX_FILE` bytes.

    :raises BadFile: not UTF-8 (names the byte offset), or too large.
    """
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    read = 0
    while True:
        data: bytes = file.read(size)
        read += len(data)
        if read > MAX_FILE:
            raise BadFile(f"{name} is larger than {MAX_FILE // (1024 * 1024)} MB: not a chat log")
        try:
            text = decoder.decode(data, final=not data)
        except UnicodeDecodeError as e:
            at = read - len(data) + e.start
            raise BadFile(f"{name} is not UTF-8 text (byte {at:,}): give the file as saved") from None
        if text:
            yield text
        if not data:
            return


def text_lines(chunks: Iterable[str]) -> Iterator[str]:
    """The lines of text given in chunks (:func:`text_chunks`), without their line ends
    (``\\n`` or ``\\r\\n``; no other character ends a line, so a JSON string holding
    U+2028 stays whole); the last line as the file ends it."""
    held: list[str] = []  # the line begun, in pieces (a long line is not copied again and again)
    for chunk in chunks:
        if "\n" not in chunk:
            held.append(chunk)
            continue
        lines = chunk.split("\n")
        lines[0] = "".join([*held, lines[0]])
        held = [lines.pop()]
        for line in lines:
            yield line.removesuffix("\r")
    rest = "".join(held)
    if rest:
        yield rest.removesuffix("\r")


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
    :ivar status: ``{(tool, key): "new" | "already" | "unmapped"}`` of every roll given.
    :ivar gm_only: rolls appended GM-only.
    """

    new: int = 0
    already: int = 0
    unmapped: dict[str, int] = field(default_factory=dict)
    first_seq: int | None = None
    speakers: dict[str, str] = field(default_factory=dict)
    status: dict[tuple[str, str], str] = field(default_factory=dict)
    gm_only: int = 0


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
            f'map each to a character ("{printable(first)}={example}"), or skip the '
            "speakers left unmapped",
            param="map",
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
    :param gm_only: record every roll GM-only (a players' view shows each as a stub); a
        roll whispered, blind or private in the tool (``roll.gm_only``) is GM-only anyway.
    :raises RuleError: an unmapped speaker (see :func:`map_speakers`), or a roll the
        campaign refuses (nothing written).
    """
    result = ImportResult()
    with campaign.store.transaction():
        seen, before = imported_keys(campaign)
        fresh: list[ForeignRoll] = []
        for roll in rolls:
            if (roll.tool, roll.key) in seen:
                result.status.setdefault((roll.tool, roll.key), "already")
                result.already += 1
                continue
            seen.add((roll.tool, roll.key))
            fresh.append(roll)
        speakers = map_speakers(
            campaign, dict.fromkeys(r.speaker for r in fresh), mapping, skip=skip_unmapped,
            before=before,
        )  # fmt: skip
        result.speakers = speakers
        runs: list[tuple[bool, list[RollImported]]] = []  # consecutive rolls of one visibility
        for roll in fresh:
            cid = speakers.get(roll.speaker)
            if cid is None:
                result.unmapped[roll.speaker] = result.unmapped.get(roll.speaker, 0) + 1
                result.status[(roll.tool, roll.key)] = "unmapped"
                continue
            result.status[(roll.tool, roll.key)] = "new"
            hidden = gm_only or roll.gm_only
            result.gm_only += hidden
            if not runs or runs[-1][0] != hidden:
                runs.append((hidden, []))
            runs[-1][1].append(
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
        for hidden, events in runs:
            try:
                written = campaign.append(
                    events, actor=actor, at=at, visibility="gm" if hidden else None
                )
            except NotFound as e:
                raise RuleError(str(e)) from None
            if result.first_seq is None:
                result.first_seq = written[0].seq
            result.new += len(events)
    return result


STATUSES = ("imported", "already imported", "not a roll", "refused")


@dataclass(frozen=True)
class Row:
    """One message of the file in the import's report.

    :ivar status: one of :data:`STATUSES`.
    :ivar source: the message's id in the tool, ``""`` where the file gives none.
    :ivar where: where it is in the file.
    :ivar reason: why it was refused (``""`` otherwise).
    :ivar rolls: how many rolls of it were appended.
    """

    status: str
    source: str
    where: str
    reason: str = ""
    rolls: int = 0


def report(parsed: Parsed, result: ImportResult) -> list[Row]:
    """One :class:`Row` per message of the file, in file order: ``imported`` (a roll of it
    appended), ``already imported`` (every roll of it was), ``not a roll``, or ``refused``
    (the file's reason, or a speaker left out by ``--unmapped skip``)."""
    rows = []
    for m in parsed.messages:
        if m.refused:
            rows.append(Row("refused", m.source, m.where, m.refused))
            continue
        if not m.rolls:
            rows.append(Row("not a roll", m.source, m.where))
            continue
        states = [result.status.get((r.tool, r.key), "already") for r in m.rolls]
        new = states.count("new")
        if new:
            rows.append(Row("imported", m.source, m.where, rolls=new))
        elif "unmapped" in states:
            who = next(r.speaker for r, st in zip(m.rolls, states, strict=True) if st == "unmapped")
            rows.append(Row("refused", m.source, m.where,
                            f"speaker {printable(who)!r} is no character here (--unmapped skip)"))  # fmt: skip
        else:
            rows.append(Row("already imported", m.source, m.where))
    return rows
