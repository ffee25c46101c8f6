"""Foundry VTT chat logs (#29): the "Export Chat Log" text file, and ChatMessage JSON.

**The text export** (the chat sidebar's "Export Chat Log" button, ``fvtt-log-<date>.txt``;
Foundry v9 to v13): ``ChatLog#export`` joins each message's ``ChatMessage#export()`` with
``"\\n---------------------------\\n"``. A message is a header line ``[TIME] ALIAS`` (TIME
as ``toLocaleDateString("en-US", {hour, minute, second})`` gives it, ``11/26/2026, 8:15:32
PM``, a narrow no-break space before PM in current browsers), the lines of its content's
text, then one line per roll, ``FORMULA = RESULT = TOTAL`` (``1d20 + 5 = 14 + 5 = 19``).
RESULT shows each term's total, so a term of one die (``1d20``, no keep/drop/reroll
modifier) gives its face; a term of several dice gives only their sum, and its faces are
not in the file. The export says nothing of whispers: every message the GM saw is in it.

**ChatMessage JSON** (v10 to v13): a JSON array of ChatMessage documents (``toObject()``
of ``game.messages``), or a world's ``data/messages.db`` of v10 and earlier (NeDB: one
document per line). Each document's ``rolls`` (``roll`` in v9) holds serialised Rolls
whose Die terms list every face (``results[].result``), so every die is kept. Whispered
(``whisper`` not empty) and blind messages are left out: they are GM-only in Foundry.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from typing import Any

import msgspec

from ledger.exchange.foreign import (
    BadFile,
    ForeignRoll,
    Parsed,
    check_dice,
    check_speaker,
    check_text,
    text_key,
)
from ledger.text import printable

#: What ChatLog#export puts between two messages.
SEPARATOR = "\n---------------------------\n"
HEADER = re.compile(r"^\[(?P<time>[^\]\n]{1,80})\] ?(?P<alias>.*)$")
#: A dice term of a formula: ``1d20``, ``d6``, ``4dF``, with any modifiers and flavor.
DICE_TERM = re.compile(r"^(?P<n>\d*)d(?P<faces>\d+|F)(?P<mods>[a-zA-Z<>=0-9]*)(?:\[[^\]]*\])?$")
OPERATORS = re.compile(r"\s+([-+*/%])\s+")


def parse(data: str, name: str) -> Parsed:
    """Read a Foundry file: JSON (an array of ChatMessage documents, or NeDB lines) when it
    parses as such, else the text export.

    :raises BadFile: the line or message at fault.
    """
    body = data.strip()
    if body.startswith("{") or re.match(r"\[\s*[{\]]", body):
        return parse_json(body, name)
    return parse_text(data, name)


# --- the text export ------------------------------------------------------------------------


def parse_text(data: str, name: str) -> Parsed:
    """Read the "Export Chat Log" text (see the module's doc).

    :raises BadFile: a message that does not start with ``[TIME] SPEAKER`` (its line), a
        speaker or text the ledger refuses.
    """
    out = Parsed()
    if not data.strip():
        raise BadFile(f"{name} is empty: export the chat log from Foundry's chat sidebar")
    line_no = 1
    seen: dict[str, int] = {}
    for block in data.split(SEPARATOR):
        start = line_no
        line_no += block.count("\n") + SEPARATOR.count("\n")
        if not block.strip():
            continue
        lines = block.split("\n")
        match = HEADER.match(lines[0])
        if match is None:
            raise BadFile(
                f"line {start} of {name} is not the start of a Foundry chat message "
                f"('[TIME] SPEAKER' expected, found {printable(lines[0][:60])!r}): is it "
                "Foundry's Export Chat Log?"
            )
        where = f"line {start}"
        out.messages += 1
        speaker = check_speaker(match["alias"], where)
        at = " ".join(match["time"].replace("\u202f", " ").replace("\xa0", " ").split())
        content = [ln.strip() for ln in lines[1:]]
        text = check_text("\n".join(ln for ln in content if ln), where)
        rolls = [(i, r) for i, ln in enumerate(content) if (r := roll_line(ln)) is not None]
        at_rolls = {i for i, _ in rolls}
        label = next(
            (ln for i, ln in enumerate(content) if ln and not _is_number(ln) and i not in at_rolls),
            "",
        )[:120]
        key = text_key(at, speaker, text)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:  # the same words, speaker and second again: the Nth such message
            key = f"{key}@{seen[key]}"
        for j, (i, (formula, result, total)) in enumerate(rolls, start=1):
            out.rolls.append(
                ForeignRoll(
                    tool="foundry",
                    key=key if len(rolls) == 1 else f"{key}#{j}",
                    where=f"line {start + 1 + i}",
                    speaker=speaker,
                    formula=formula,
                    dice=check_dice(faces_of(formula, result), f"line {start + 1 + i}"),
                    total=total,
                    text=text,
                    at=at,
                    label=label,
                )
            )
    return out


def _is_number(text: str) -> bool:
    return re.fullmatch(r"-?\d+(\.\d+)?", text) is not None


def roll_line(line: str) -> tuple[str, str, int] | None:
    """``(formula, result, total)`` of a ``FORMULA = RESULT = TOTAL`` line whose formula
    holds a die, else ``None``."""
    parts = line.split(" = ")
    if len(parts) < 3 or not re.fullmatch(r"-?\d+", parts[-1].strip()):
        return None
    formula = parts[0].strip()
    if not re.search(r"\d*d(\d+|F)", formula):
        return None
    return formula, " = ".join(parts[1:-1]).strip(), int(parts[-1])


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


def parse_json(body: str, name: str) -> Parsed:
    """Read ChatMessage documents: a JSON array, or NeDB lines (one document a line;
    ``$$deleted`` lines skipped).

    :raises BadFile: JSON that does not parse (its line), a document without ``_id`` or
        speaker, a roll whose dice are impossible.
    """
    docs: list[tuple[str, Any]] = []
    if body.startswith("["):
        try:
            items = msgspec.json.decode(body)
        except msgspec.DecodeError as e:
            raise BadFile(f"{name} is not valid JSON ({e})") from None
        docs = [(f"message {i + 1}", d) for i, d in enumerate(items)]
    else:
        for number, line in enumerate(body.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                docs.append((f"line {number}", msgspec.json.decode(line)))
            except msgspec.DecodeError as e:
                raise BadFile(f"line {number} of {name} is not a JSON document ({e})") from None
    latest: dict[Any, tuple[str, dict[str, Any]] | None] = {}  # NeDB: the last line wins
    for i, (where, doc) in enumerate(docs):
        if not isinstance(doc, dict):
            raise BadFile(f"{where} of {name} is not a ChatMessage document (a JSON object)")
        if "$$indexCreated" in doc or "$$indexRemoved" in doc:
            continue
        mid = doc.get("_id")
        key = mid if isinstance(mid, str) and mid else ("#", i)
        latest[key] = None if doc.get("$$deleted") else (where, doc)
    out = Parsed()
    for found in latest.values():
        if found is not None:
            out.messages += 1
            _message(found[1], found[0], out)
    return out


def _message(doc: dict[str, Any], where: str, out: Parsed) -> None:
    mid = doc.get("_id")
    if not isinstance(mid, str) or not mid or len(mid) > 100:
        raise BadFile(f"{where}: a ChatMessage without an _id (16 characters in Foundry)")
    where = f"{where} ({printable(mid[:40])})"
    if doc.get("whisper") or doc.get("blind"):
        out.whispered += 1
        return
    raw = doc.get("rolls")
    if raw is None and doc.get("roll"):
        raw = [doc["roll"]]  # v9: one roll, as a JSON string
    if not isinstance(raw, list):
        raise BadFile(f"{where}: rolls is not a list")
    if not raw:
        return
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
    content = doc.get("content") if isinstance(doc.get("content"), str) else ""
    label = check_text(html_text(flavor or ""), where)[:120]
    text = check_text(html_text(content or ""), where)
    for j, item in enumerate(raw, start=1):
        roll = item
        if isinstance(item, str):
            try:
                roll = msgspec.json.decode(item)
            except msgspec.DecodeError as e:
                raise BadFile(f"{where}: roll {j} is not a serialised Roll ({e})") from None
        if not isinstance(roll, dict) or not isinstance(roll.get("formula"), str):
            raise BadFile(f"{where}: roll {j} is not a serialised Roll (no formula)")
        total = roll.get("total")
        dice: list[tuple[int, int]] = []
        _dice_of(roll, dice, f"{where}: roll {j}")
        formula = roll["formula"]
        out.rolls.append(
            ForeignRoll(
                tool="foundry",
                key=mid if len(raw) == 1 else f"{mid}#{j}",
                where=where,
                speaker=speaker,
                formula=check_text(formula, where)[:500],
                dice=check_dice(dice, f"{where}: roll {j}"),
                total=int(total) if isinstance(total, int | float) else None,
                text=text or f"{formula} = {total}",
                at=at,
                label=label,
            )
        )


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
    parser = _Text()
    parser.feed(fragment)
    parser.close()
    lines = (" ".join(ln.split()) for ln in "".join(parser.parts).split("\n"))
    return "\n".join(ln for ln in lines if ln)
