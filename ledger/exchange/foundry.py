"""Foundry VTT chat logs: the "Export Chat Log" text file, ChatMessage JSON, a world's
``messages.db``.

**The text export** (the chat sidebar's "Export Chat Log" button, ``fvtt-log-<date>.txt``;
Foundry v9 to v13): ``ChatLog#export`` joins each message's ``ChatMessage#export()`` with
``"\\n---------------------------\\n"``. A message is a header line ``[TIME] ALIAS`` (TIME
as ``toLocaleDateString("en-US", {hour, minute, second})`` gives it, ``11/26/2026, 8:15:32
PM``, a narrow no-break space before PM in current browsers), the lines of its content's
text, then one line per roll, ``FORMULA = RESULT = TOTAL`` (``1d20 + 5 = 14 + 5 = 19``).
RESULT shows each term's total, which must give TOTAL; a term of one die (``1d20``, no
keep/drop/reroll modifier) gives its face; a term of several dice gives only their sum,
and its faces are not in the file. The export says nothing of whispers: every message the
GM saw is in it.

**ChatMessage JSON** (v9 to v13): a JSON array of ChatMessage documents (``toObject()``
of ``game.messages``), or a world's ``data/messages.db`` of v9 and v10 (NeDB: one
document per line, read line by line). Each document's ``rolls`` (``roll`` in v9, absent
from a message that is not a roll) holds serialised Rolls whose Die terms list every face
(``results[].result``, ``active`` false for a die not kept), so every die is kept, and
the kept dice, operators and numbers must give the roll's ``total``. An inline roll in the
content (``[[/r 1d20+4]]``, rendered as ``a.inline-roll.inline-result`` with the Roll's
JSON in ``data-roll``) is a roll of the message too. Whispered (``whisper`` not empty) and
blind messages are recorded GM-only. v11 and later keep a world's messages in LevelDB,
which this module does not read: export those from the browser (docs/imports.md).
"""

from __future__ import annotations

import html
import itertools
import re
import urllib.parse
from collections.abc import Iterator
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Any

import msgspec

from ledger.exchange.foreign import (
    BadFile,
    ForeignMessage,
    ForeignRoll,
    Parsed,
    check_dice,
    check_speaker,
    check_text,
    check_total,
    text_chunks,
    text_key,
    text_lines,
    whole_total,
)
from ledger.text import printable

#: The line ChatLog#export puts between two messages.
SEPARATOR_LINE = "-" * 27
HEADER = re.compile(r"^\[(?P<time>[^\]\n]{1,80})\] ?(?P<alias>.*)$")
#: A dice term of a formula: ``1d20``, ``d6``, ``4dF``, with any modifiers and flavor.
DICE_TERM = re.compile(r"^(?P<n>\d*)d(?P<faces>\d+|F)(?P<mods>[a-zA-Z<>=0-9]*)(?:\[[^\]]*\])?$")
OPERATORS = re.compile(r"\s+([-+*/%])\s+")
#: What a formula of the text export is made of (dice terms, numbers, operators, flavor).
FORMULA = re.compile(
    r"(?:\d*d(?:\d+|F)[a-zA-Z<>=0-9]*|\d+(?:\.\d+)?|\[[^\]]*\]|[-+*/%()\s])+"
)
NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
#: An inline roll's element in a message's content, and its serialised Roll.
INLINE_TAG = re.compile(r"<a\b[^>]*\binline-result\b[^>]*>", re.IGNORECASE)
DATA_ROLL = re.compile(r"""\bdata-roll\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE)
JS_ESCAPE = re.compile(r"%u([0-9a-fA-F]{4})")


def parse(file: Any, name: str) -> Parsed:
    """Read a Foundry file from an open binary file, as it streams: a JSON array of
    ChatMessage documents, NeDB lines (``messages.db``), else the text export.

    :raises BadFile: a file that is none of these (its first line), not UTF-8, over the
        size limit, or a JSON array that does not parse (a cut one too: nothing of it is
        imported). A message the ledger refuses is accounted for as refused.
    """
    chunks = text_chunks(file, name)
    first = ""
    for chunk in chunks:
        first += chunk
        if first.strip():
            break
    body = first.lstrip()
    stream = itertools.chain([first], chunks)
    if re.match(r"\[\s*[{\]]", body) or body == "[":
        return parse_array("".join(stream), name)
    if body.startswith("{"):
        return parse_nedb(text_lines(stream), name)
    return parse_text(text_lines(stream), name)


# --- the text export ------------------------------------------------------------------------


def _blocks(lines: Iterator[str]) -> Iterator[tuple[int, list[str]]]:
    """``(first line number, lines)`` of each message of the text export."""
    block: list[str] = []
    start = number = 1
    for number, line in enumerate(lines, start=1):
        if line == SEPARATOR_LINE:
            yield start, block
            block, start = [], number + 1
        else:
            block.append(line)
    yield start, block


def parse_text(lines: Iterator[str], name: str) -> Parsed:
    """Read the "Export Chat Log" text (see the module's doc), message by message.

    :raises BadFile: a file whose first message does not start with ``[TIME] SPEAKER``
        (not the text export). A later message without its header, or with a speaker,
        text or roll the ledger refuses, is accounted for as refused.
    """
    out = Parsed()
    seen: dict[str, int] = {}
    for start, block in _blocks(lines):
        if not any(ln.strip() for ln in block):
            continue
        match = HEADER.match(block[0])
        where = f"line {start}"
        if match is None:
            found = f"('[TIME] SPEAKER' expected, found {printable(block[0][:60])!r})"
            if not out.messages:
                raise BadFile(
                    f"line {start} of {name} is not the start of a Foundry chat message "
                    f"{found}: is it Foundry's Export Chat Log?"
                )
            out.refuse("", where, f"not the start of a Foundry chat message {found}: a message cut or edited?")
            continue
        try:
            out.messages.append(_text_message(match, block, start, seen))
        except BadFile as e:
            reason = str(e)
            out.refuse("", where, reason.split(": ", 1)[1] if reason.startswith("line ") else reason)
    if not out.messages:
        raise BadFile(f"{name} is empty: export the chat log from Foundry's chat sidebar")
    return out


def _text_message(match: re.Match[str], block: list[str], start: int, seen: dict[str, int]) -> ForeignMessage:
    where = f"line {start}"
    speaker = check_speaker(match["alias"], where)
    at = " ".join(match["time"].replace("\u202f", " ").replace("\xa0", " ").split())
    content = [ln.strip() for ln in block[1:]]
    text = check_text("\n".join(ln for ln in content if ln), where)
    rolls = []
    for i, ln in enumerate(content):
        found = roll_line(ln, f"line {start + 1 + i}")
        if found is not None:
            rolls.append((i, found))
    at_rolls = {i for i, _ in rolls}
    label = next(
        (ln for i, ln in enumerate(content) if ln and not _is_number(ln) and i not in at_rolls),
        "",
    )[:120]
    key = text_key(at, speaker, text)
    seen[key] = seen.get(key, 0) + 1
    if seen[key] > 1:  # the same words, speaker and second again: the Nth such message
        key = f"{key}@{seen[key]}"
    message = ForeignMessage("", where)
    for j, (i, (formula, result, total)) in enumerate(rolls, start=1):
        line = f"line {start + 1 + i}"
        message.rolls.append(
            ForeignRoll(
                tool="foundry",
                key=key if len(rolls) == 1 else f"{key}#{j}",
                where=line,
                speaker=speaker,
                formula=formula,
                dice=check_dice(faces_of(formula, result), line),
                total=total,
                text=text,
                at=at,
                label=label,
            )
        )
    return message


def _is_number(text: str) -> bool:
    return NUMBER.fullmatch(text) is not None


def roll_line(line: str, where: str = "") -> tuple[str, str, int] | None:
    """``(formula, result, total)`` of a ``FORMULA = RESULT = TOTAL`` line whose formula
    holds a die, else ``None`` (a line of text).

    :raises BadFile: a roll line whose RESULT does not give its TOTAL, whose numbers do
        not match its formula's, whose TOTAL is not a whole number, or that is cut short
        (``1d20 + 4 = 7 +``).
    """
    parts = line.split(" = ")
    formula = parts[0].strip()
    if not re.search(r"\d*d(\d+|F)", formula) or FORMULA.fullmatch(formula) is None:
        return None
    if len(parts) < 3 or not _is_number(parts[-1].strip()):
        if len(parts) >= 2:
            raise BadFile(f"{where}: the roll {printable(line[:80])!r} is cut short or malformed")
        return None
    result = " = ".join(parts[1:-1]).strip()
    total = whole_total(parts[-1].strip(), where)
    terms, shown = OPERATORS.split(formula), OPERATORS.split(result)
    if len(terms) == len(shown):
        for term, value in zip(terms, shown, strict=True):
            if _is_number(term.strip()) and term.strip() != value.strip():
                raise BadFile(f"{where}: the formula says {term.strip()} where the result shows {printable(value.strip()[:20])}")
    check_total(result, total, where)
    return formula, result, total


def faces_of(formula: str, result: str) -> list[tuple[int, int]]:
    """The faces the text export shows: where the formula's and the result's terms line
    up, each term of one die with no modifier gives ``(sides, face)``; a Fate die
    (``dF``, −1/0/+1) is kept as a d3 (1, 2, 3). Others give nothing (their sum only)."""
    terms = OPERATORS.split(formula.strip())
    shown = OPERATORS.split(result.strip())
    if len(terms) != len(shown):
        return []
    out = []
    for term, value in zip(terms, shown, strict=True):
        m = DICE_TERM.match(term.strip())
        if m is None or m["n"] not in ("", "1") or m["mods"] or not _is_number(value.strip()):
            continue
        face = int(float(value))
        if m["faces"] == "F":
            out.append((3, face + 2))
        else:
            out.append((int(m["faces"]), face))
    return out


# --- ChatMessage JSON -----------------------------------------------------------------------


def parse_array(body: str, name: str) -> Parsed:
    """Read a JSON array of ChatMessage documents (the browser console's export).

    :raises BadFile: JSON that does not parse (cut short, or not JSON).
    """
    try:
        items = msgspec.json.decode(body)
    except msgspec.DecodeError as e:
        raise BadFile(f"{name} is not valid JSON ({e}): cut short? export it again") from None
    if not isinstance(items, list):
        raise BadFile(f"{name} is not a JSON array of ChatMessage documents")
    out = Parsed()
    for i, doc in enumerate(items):
        out.messages.append(message(doc, f"message {i + 1}"))
    return out


def parse_nedb(lines: Iterator[str], name: str) -> Parsed:
    """Read a world's ``data/messages.db`` (NeDB), line by line: a document's last line
    wins, ``$$deleted`` lines remove it, index lines are skipped. A line that is not a JSON
    document (a file cut inside its last line) is accounted for as refused.

    :raises BadFile: no document at all.
    """
    latest: dict[Any, ForeignMessage | None] = {}
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            doc = msgspec.json.decode(line)
        except msgspec.DecodeError as e:
            latest[("#", number)] = ForeignMessage("", where, refused=f"not a JSON document ({e}): cut short?")
            continue
        if isinstance(doc, dict) and ("$$indexCreated" in doc or "$$indexRemoved" in doc):
            continue
        mid = doc.get("_id") if isinstance(doc, dict) else None
        key = mid if isinstance(mid, str) and mid else ("#", number)
        if isinstance(doc, dict) and doc.get("$$deleted"):
            latest.pop(key, None)
            continue
        latest[key] = message(doc, where)
    out = Parsed([m for m in latest.values() if m is not None])
    if not out.messages and not latest:
        raise BadFile(f"{name} holds no ChatMessage document")
    return out


def message(doc: Any, where: str) -> ForeignMessage:
    """One ChatMessage document as a :class:`ForeignMessage`: its rolls, none (not a roll),
    or the reason it is refused."""
    if not isinstance(doc, dict):
        return ForeignMessage("", where, refused="not a ChatMessage document (a JSON object)")
    mid = doc.get("_id")
    if not isinstance(mid, str) or not mid or len(mid) > 100:
        return ForeignMessage("", where, refused="a ChatMessage without an _id (16 characters in Foundry)")
    source = printable(mid)
    where = f"{where} ({printable(mid[:40])})"
    try:
        return ForeignMessage(source, where, _rolls(doc, mid, where))
    except BadFile as e:
        reason = str(e)
        return ForeignMessage(source, where, refused=reason[len(where):].lstrip(",: ") if reason.startswith(where) else reason)


def _rolls(doc: dict[str, Any], mid: str, where: str) -> list[ForeignRoll]:
    raw = doc.get("rolls")
    if raw is None:
        raw = [doc["roll"]] if doc.get("roll") else []  # v9: one roll, as a JSON string
    if not isinstance(raw, list):
        raise BadFile(f"{where}: its rolls are not a list")
    content = doc.get("content") if isinstance(doc.get("content"), str) else ""
    inline = _inline_rolls(content or "", where)
    if not raw and not inline:
        return []
    hidden = bool(doc.get("whisper")) or bool(doc.get("blind"))
    speaker_doc = doc.get("speaker") or {}
    alias = speaker_doc.get("alias") if isinstance(speaker_doc, dict) else None
    speaker = check_speaker(alias if isinstance(alias, str) else "", where)
    stamp = doc.get("timestamp")
    at = (
        datetime.fromtimestamp(stamp / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        if isinstance(stamp, int | float) and 0 <= stamp < 2**46
        else ""
    )
    flavor = doc.get("flavor") if isinstance(doc.get("flavor"), str) else ""
    label = check_text(html_text(flavor or ""), where)[:120]
    text = check_text(html_text(content or ""), where)
    out = []
    items = [(mid if len(raw) == 1 else f"{mid}#{j}", f"{where}: roll {j}", item) for j, item in enumerate(raw, start=1)]
    items += [(f"{mid}#inline-{k}", f"{where}: inline roll {k}", item) for k, item in enumerate(inline, start=1)]
    for key, at_roll, item in items:
        roll = item
        if isinstance(item, str):
            try:
                roll = msgspec.json.decode(item)
            except msgspec.DecodeError as e:
                raise BadFile(f"{at_roll} is not a serialised Roll ({e})") from None
        if not isinstance(roll, dict) or not isinstance(roll.get("formula"), str):
            raise BadFile(f"{at_roll} is not a serialised Roll (no formula)")
        total = whole_total(roll.get("total"), at_roll)
        dice: list[tuple[int, int]] = []
        _dice_of(roll, dice, at_roll)
        check_total(_arithmetic(roll, at_roll), total, at_roll)
        formula = roll["formula"]
        out.append(
            ForeignRoll(
                tool="foundry",
                key=key,
                where=where,
                speaker=speaker,
                formula=check_text(formula, where)[:500],
                dice=check_dice(dice, at_roll),
                total=total,
                text=text or f"{formula} = {total}",
                at=at,
                label=label,
                gm_only=hidden,
            )
        )
    return out


def _inline_rolls(content: str, where: str) -> list[str]:
    """The serialised Rolls of the inline rolls in a message's HTML content."""
    if "inline-result" not in content:
        return []
    found = []
    for tag in INLINE_TAG.findall(content):
        attr = DATA_ROLL.search(tag)
        if attr is None:
            raise BadFile(f"{where}: an inline roll without its data-roll")
        value = html.unescape(attr[1] if attr[1] is not None else attr[2])
        value = JS_ESCAPE.sub(lambda m: chr(int(m[1], 16)), value)  # escape()'s %uXXXX
        found.append(urllib.parse.unquote(value))
    return found


def _arithmetic(roll: Any, where: str, depth: int = 0) -> str:
    """A serialised Roll's terms as arithmetic, each dice term its kept dice's sum (the
    way Foundry totals a Roll): ``"19 + - 3"``.

    :raises BadFile: a term whose value the file does not give (a function of dice).
    """
    if depth > 20:
        raise BadFile(f"{where}: dice nested more than 20 deep")
    if isinstance(roll, str):
        try:
            roll = msgspec.json.decode(roll)
        except msgspec.DecodeError:
            raise BadFile(f"{where}: a term is not a serialised Roll") from None
    terms = roll.get("terms") if isinstance(roll, dict) else None
    if not isinstance(terms, list) or not terms:
        raise BadFile(f"{where}: a roll without its terms")
    parts = []
    for term in terms:
        if not isinstance(term, dict):
            raise BadFile(f"{where}: a term that is not an object")
        kind = term.get("class")
        if kind == "OperatorTerm" and term.get("operator") in ("+", "-", "*", "/", "%"):
            parts.append(term["operator"])
        elif kind == "NumericTerm" and isinstance(term.get("number"), int | float) and not isinstance(term.get("number"), bool):
            parts.append(repr(term["number"]))
        elif isinstance(term.get("results"), list) and kind in ("Die", "FateDie", "Coin", "PoolTerm", None):
            parts.append(_kept(term["results"], where))
        elif kind == "ParentheticalTerm" and isinstance(term.get("roll"), dict | str):
            parts.append(f"({_arithmetic(term['roll'], where, depth + 1)})")
        else:
            raise BadFile(
                f"{where}: cannot check its total: a {printable(str(kind)[:40])} term "
                f"({printable(str(term.get('term') or term.get('formula') or '')[:40])})"
            )
    return " ".join(parts)


def _kept(results: list[Any], where: str) -> str:
    total: int | float = 0
    for r in results:
        if not isinstance(r, dict):
            raise BadFile(f"{where}: a die result that is not an object")
        if r.get("active", True) is False or r.get("discarded"):
            continue
        value = r.get("count", r.get("result"))
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise BadFile(f"{where}: a die result that is not a number")
        total += value
    return repr(total)


def _dice_of(node: Any, out: list[tuple[int, int]], where: str, depth: int = 0) -> None:
    """Every die result in a serialised Roll, in order (Die, FateDie, Coin; inside pools and
    parenthetical terms too)."""
    if depth > 20:
        raise BadFile(f"{where}: dice nested more than 20 deep")
    if isinstance(node, str) and node.startswith("{"):
        try:
            node = msgspec.json.decode(node)
        except msgspec.DecodeError:
            return
    if isinstance(node, list):
        for item in node:
            _dice_of(item, out, where, depth + 1)
        return
    if not isinstance(node, dict):
        return
    faces, results = node.get("faces"), node.get("results")
    if isinstance(results, list) and (isinstance(faces, int) or node.get("class") == "FateDie"):
        fate = node.get("class") == "FateDie"
        for r in results:
            value = r.get("result") if isinstance(r, dict) else None
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise BadFile(f"{where}: a die result that is not a number")
            out.append((3, int(value) + 2) if fate else (int(faces), int(value)))  # type: ignore[arg-type]
        return
    for key in ("terms", "rolls", "roll", "dice"):
        if key in node:
            _dice_of(node[key], out, where, depth + 1)


class _Text(HTMLParser):
    """Text of an HTML fragment, a newline after each block element."""

    BLOCKS = frozenset({"div", "p", "br", "li", "h1", "h2", "h3", "h4", "h5", "tr", "section"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        if tag == "br":
            self.parts.append("\n")


def html_text(fragment: str) -> str:
    """The text of an HTML fragment: blocks on their own lines, spaces collapsed."""
    if "<" not in fragment and "&" not in fragment:  # plain text (a roll's "17"): no parser
        lines = (" ".join(ln.split()) for ln in fragment.split("\n"))
        return "\n".join(ln for ln in lines if ln)
    parser = _Text()
    parser.feed(fragment)
    parser.close()
    lines = (" ".join(ln.split()) for ln in "".join(parser.parts).split("\n"))
    return "\n".join(ln for ln in lines if ln)
