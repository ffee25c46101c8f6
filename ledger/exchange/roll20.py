"""Roll20's Chat Archive, saved as a web page (#29).

Roll20 scripts cannot make HTTP requests; what a table keeps is the game's Chat Archive
page (``https://app.roll20.net/campaigns/chatarchive/ID``, "Save page as…", HTML only).
Its ``div.content`` holds one ``div.message`` per chat message, in order, each with a
``data-messageid`` (``-M5KELlQVMhq7p0h926d``). A message starts with ``span.tstamp``
(``April 19, 2020 6:39PM``) and ``span.by`` (``Nate:``) unless the one before was the same
speaker's, when Roll20 leaves both out: they carry over.

- ``div.message.rollresult`` is a ``/roll``: ``div.formula`` (``rolling 2d20kh1+2``), a
  ``div.diceroll.dN`` per die (``.dropped`` for a die not kept) with its face in
  ``div.didroll``, and the total in ``div.rolled``.
- ``span.inlinerollresult`` is an inline roll (``[[1d20+3]]``, a sheet's roll template):
  its total is its text, its ``title`` (``original-title`` once the tooltip has shown) is
  ``Rolling 1d20+0[STR] = (<span class="basicdiceroll">12</span>)+0``, one
  ``basicdiceroll`` per die; the dice's sizes come from the formula, in order.
- ``div.message.whisper`` and ``.private`` (``/w``, ``/gmroll``) are GM-only or private in
  Roll20: left out.

Parsed with the standard library's HTML parser (no scripts run, no URL fetched).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

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

VOID = frozenset({"img", "br", "hr", "input", "meta", "link", "area", "base", "col", "wbr", "source"})
#: Deepest nesting read (a saved page is a few dozen deep).
MAX_DEPTH = 400
#: The longest message id read (Roll20's are 20 characters).
MAX_ID = 100
FORMULA_DICE = re.compile(r"(\d*)d(\d+|F)", re.IGNORECASE)


@dataclass
class Node:
    """An element of the page: tag, attributes, children (elements and text, in order)."""

    tag: str
    attrs: dict[str, str]
    children: list[Node | str] = field(default_factory=list)
    line: int = 0

    @property
    def classes(self) -> set[str]:
        """The element's class names."""
        return set(self.attrs.get("class", "").split())

    def text(self) -> str:
        """Its text, spaces collapsed."""
        return " ".join("".join(self._texts()).split())

    def _texts(self) -> list[str]:
        out: list[str] = []
        for c in self.children:
            out.extend([c, " "] if isinstance(c, str) else [*c._texts(), " "])
        return out

    def find_all(self, cls: str, *, within_message: bool = True) -> list[Node]:
        """Descendants with class ``cls``, in document order (not inside a nested message)."""
        out: list[Node] = []
        for c in self.children:
            if isinstance(c, Node):
                if within_message and "message" in c.classes:
                    continue
                if cls in c.classes:
                    out.append(c)
                out.extend(c.find_all(cls, within_message=within_message))
        return out

    def first(self, cls: str) -> Node | None:
        """The first descendant with class ``cls``."""
        found = self.find_all(cls)
        return found[0] if found else None


class _Tree(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs}, line=self.getpos()[0])
        self.stack[-1].children.append(node)
        if tag not in VOID:
            if len(self.stack) > MAX_DEPTH:
                raise BadFile(f"line {node.line}: elements nested more than {MAX_DEPTH} deep")
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, {k: v or "" for k, v in attrs}, line=self.getpos()[0]))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def tree(html: str) -> Node:
    """The page as a tree of :class:`Node`."""
    parser = _Tree()
    parser.feed(html)
    parser.close()
    return parser.root


def _messages(node: Node) -> list[Node]:
    out: list[Node] = []
    for c in node.children:
        if isinstance(c, Node):
            if c.tag == "div" and "message" in c.classes:
                out.append(c)
            out.extend(_messages(c))
    return out


def parse(html: str, name: str) -> Parsed:
    """Read a saved Chat Archive page (see the module's doc).

    :raises BadFile: no ``div.message`` at all (not a Chat Archive page), a roll whose total
        or a die that is not a number, a message with no speaker and none before it, a
        speaker or text the ledger refuses; naming the message (its id and line).
    """
    messages = _messages(tree(html))
    if not messages:
        raise BadFile(
            f"{name} holds no Roll20 chat message (div.message): save the game's Chat "
            "Archive page as HTML and give that file"
        )
    out = Parsed()
    speaker, stamp = "", ""
    for number, msg in enumerate(messages, start=1):
        mid = msg.attrs.get("data-messageid", "")
        where = f"message {printable(mid[:40])} (line {msg.line})" if mid else f"div.message {number} (line {msg.line})"
        if len(mid) > MAX_ID:
            raise BadFile(f"div.message {number} (line {msg.line}): its data-messageid is "
                          f"{len(mid):,} characters long (Roll20's are 20)")  # fmt: skip
        by, ts = msg.first("by"), msg.first("tstamp")
        if ts is not None:
            stamp = ts.text()
        out.messages += 1
        if msg.classes & {"whisper", "private"}:  # its "(To GM):" carries over to nothing
            out.whispered += 1
            continue
        if by is not None:
            speaker = by.text().removesuffix(":").strip()
        is_roll = "rollresult" in msg.classes
        inline = msg.find_all("inlinerollresult")
        if not is_roll and not inline:
            continue
        if not speaker:
            raise BadFile(f"{where}: no speaker (span.by) here or before it")
        who = check_speaker(speaker, where)
        text = check_text(_message_text(msg), where)
        label_node = msg.first("sheet-label") or msg.first("sheet-header")
        label = label_node.text()[:120] if label_node is not None else ""
        key = mid or text_key(stamp, who, text)
        if is_roll:
            out.rolls.append(_roll(msg, key, where, who, text, stamp))
        for j, span in enumerate(inline, start=1):
            out.rolls.append(
                _inline(span, f"{key}#{j}", f"{where}, inline roll {j}", who, text, stamp, label)
            )
    return out


def _message_text(msg: Node) -> str:
    parts = []
    for c in msg.children:
        if isinstance(c, Node) and c.classes & {"by", "tstamp", "avatar", "spacer"}:
            continue
        parts.append(c if isinstance(c, str) else c.text())
    return " ".join(" ".join(parts).split())


def _number(text: str, what: str, where: str) -> int:
    value = text.strip()
    if not re.fullmatch(r"-?\d+", value):
        raise BadFile(f"{where}: {what} {printable(value[:40])!r} is not a whole number")
    return int(value)


def _roll(msg: Node, key: str, where: str, speaker: str, text: str, stamp: str) -> ForeignRoll:
    formulas = [f for f in msg.find_all("formula") if "formattedformula" not in f.classes]
    if not formulas:
        raise BadFile(f"{where}: a roll result without its formula (div.formula)")
    formula = formulas[0].text()
    formula = formula[len("rolling ") :] if formula.lower().startswith("rolling ") else formula
    rolled = msg.first("rolled")
    if rolled is None:
        raise BadFile(f"{where}: a roll result without its total (div.rolled)")
    total = _number(rolled.text(), "the total", where)
    dice = []
    for die in msg.find_all("diceroll"):
        size = next((c[1:] for c in die.classes if re.fullmatch(r"d(\d+|F)", c, re.IGNORECASE)), None)
        face = die.first("didroll")
        if size is None or face is None:
            raise BadFile(f"{where}: a die (div.diceroll) without its size (dN) or face (div.didroll)")
        if size.upper() == "F":
            shown = face.text()
            fate = {"+": 3, "0": 2, "-": 1, "−": 1, "1": 3, "-1": 1}
            if shown not in fate:
                raise BadFile(f"{where}: a Fate die showing {printable(shown[:20])!r}")
            dice.append((3, fate[shown]))
        else:
            dice.append((int(size), _number(face.text(), "a die's face", where)))
    return ForeignRoll(
        tool="roll20", key=key, where=where, speaker=speaker, formula=check_text(formula, where)[:500],
        dice=check_dice(dice, where), total=total, text=text, at=stamp,
    )  # fmt: skip


def _inline(
    span: Node, key: str, where: str, speaker: str, text: str, stamp: str, label: str
) -> ForeignRoll:
    title = span.attrs.get("title") or span.attrs.get("original-title") or ""
    total = _number(span.text(), "the inline roll's total", where)
    shown = tree(title)
    said = shown.text()
    formula = said
    if "Rolling " in said:
        formula = said.split("Rolling ", 1)[1]
    formula = formula.split(" = ", 1)[0].strip()
    faces = [_number(n.text(), "a die's face", where) for n in shown.find_all("basicdiceroll")]
    sizes: list[int] = []
    for count, sides in FORMULA_DICE.findall(formula):
        sizes.extend([3 if sides.upper() == "F" else int(sides)] * int(count or 1))
        if len(sizes) > 1000:
            break
    dice = list(zip(sizes, faces, strict=True)) if len(sizes) == len(faces) else []
    return ForeignRoll(
        tool="roll20", key=key, where=where, speaker=speaker,
        formula=check_text(formula or "?", where)[:500], dice=check_dice(dice, where),
        total=total, text=f"{text} [{said}]" if said else text, at=stamp, label=label,
    )  # fmt: skip
