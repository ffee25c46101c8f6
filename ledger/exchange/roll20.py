"""Roll20's Chat Archive, saved as a web page.

Roll20 scripts cannot make HTTP requests; what a table keeps is the game's Chat Archive
page (``https://app.roll20.net/campaigns/chatarchive/ID``, "Save page as…", HTML only).
Its ``div.content`` holds one ``div.message`` per chat message, in order, each with a
``data-messageid`` (``-M5KELlQVMhq7p0h926d``). A message starts with ``span.tstamp``
(``April 19, 2020 6:39PM``) and ``span.by`` (``Nate:``) unless the one before was the same
speaker's, when Roll20 leaves both out: they carry over.

- ``div.message.rollresult`` is a ``/roll``: ``div.formula`` (``rolling 2d20kh1+2``), a
  ``div.diceroll.dN`` per die (``.dropped`` for a die not kept) with its face in
  ``div.didroll``, and the total in ``div.rolled``. The formatted formula (``(12+9)+2``,
  the dropped dice counted as nothing) must give the total.
- ``span.inlinerollresult`` is an inline roll (``[[1d20+3]]``, a sheet's roll template):
  its total is its text, its ``title`` (``original-title`` once the tooltip has shown) is
  ``Rolling 1d20+0[STR] = (<span class="basicdiceroll">12</span>)+0``, one
  ``basicdiceroll`` per die (``dropped`` among its classes for a die not kept), which must
  give the total; the dice's sizes come from the formula, in order.
- ``div.message.whisper`` (``/w``) and ``.private`` (``/gmroll``) are recorded GM-only. A
  whisper's ``span.by`` reads ``(From Ann):`` in the receiver's archive (Ann spoke) or
  ``(To Ann):`` in the sender's, which does not name the sender: its rolls are refused.
- ``div.message.emote`` (``/em``) has no ``span.by``: its text starts with the speaker's
  name. A speaker named earlier in the file whose name starts the text is the speaker;
  else its rolls are refused (never credited to the speaker before it). ``div.message.desc``
  (``/desc``) has no speaker: its rolls are refused.

Read as it streams with lxml's HTML pull parser (libxml2; no script runs, no URL is
fetched): each message is read when its end tag arrives and then dropped, so a page of
any size holds one message in memory at a time. A message the file ends inside (a page cut
short) is refused.
"""

from __future__ import annotations

import html
import re
from typing import Any

from lxml import etree

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
)
from ledger.text import printable

#: The longest message id read (Roll20's are 20 characters).
MAX_ID = 100
FORMULA_DICE = re.compile(r"(\d*)d(\d+|F)", re.IGNORECASE)
#: A die in an inline roll's tooltip: its classes and face.
TIP_DIE = re.compile(r"""<span\s+class=["']basicdiceroll([^"']*)["']\s*>\s*([^<]*?)\s*</span>""")
TAG = re.compile(r"<[^>]*>")
LABEL = re.compile(r"\[[^\]]*\]")
FATE = {"+": 1, "0": 0, "-": -1, "−": -1, "1": 1, "-1": -1}


def _classes(el: Any) -> set[str]:
    return set((el.get("class") or "").split())


def _text(el: Any) -> str:
    return " ".join("".join(el.itertext()).split())


class _Index:
    """The elements of one message by class name, in document order (one pass)."""

    def __init__(self, el: Any) -> None:
        self.by: dict[str, list[Any]] = {}
        for d in el.iterdescendants(tag=etree.Element):
            names = d.get("class")
            if names:
                for name in names.split():
                    self.by.setdefault(name, []).append(d)

    def all(self, cls: str) -> list[Any]:
        """The elements with class ``cls``."""
        return self.by.get(cls, [])

    def first(self, cls: str) -> Any | None:
        """The first element with class ``cls``."""
        found = self.by.get(cls)
        return found[0] if found else None


def _first(el: Any, cls: str) -> Any | None:
    for d in el.iterdescendants(tag=etree.Element):
        if cls in (d.get("class") or "").split():
            return d
    return None


class _Reader:
    """The state carried from one message to the next: the speaker and time Roll20 left
    out, the speakers named so far (for emotes)."""

    def __init__(self) -> None:
        self.out = Parsed()
        self.speaker = ""
        self.stamp = ""
        self.named: set[str] = set()
        self.number = 0

    def message(self, msg: Any, cut: bool = False) -> None:
        self.number += 1
        mid = msg.get("data-messageid") or ""
        line = msg.sourceline or 0
        shown = mid if mid.isascii() and mid.isprintable() else printable(mid[:40])
        where = (f"message {shown[:40]} (line {line})" if mid
                 else f"div.message {self.number} (line {line})")  # fmt: skip
        if len(mid) > MAX_ID:
            self.out.refuse("", f"div.message {self.number} (line {line})",
                            f"its data-messageid is {len(mid):,} characters long (Roll20's are 20)")  # fmt: skip
            return
        if cut:
            self.out.refuse(mid, where, "the file ends inside this message (cut short): save the page again")
            return
        try:
            rolls = self._rolls(msg, mid, where)
        except BadFile as e:
            reason = str(e)
            self.out.refuse(mid, where, reason[len(where):].lstrip(",: ") if reason.startswith(where) else reason)
            return
        self.out.messages.append(ForeignMessage(mid, where, rolls))

    def _rolls(self, msg: Any, mid: str, where: str) -> list[ForeignRoll]:
        classes = _classes(msg)
        index = _Index(msg)
        by, ts = index.first("by"), index.first("tstamp")
        if ts is not None:
            self.stamp = _text(ts)
        said = "".join(by.itertext()).strip().removesuffix(":").strip() if by is not None else None
        hidden = bool(classes & {"whisper", "private"})
        unknown = ""
        if "whisper" in classes:
            if said is None:
                said = self.speaker
            elif said.startswith("(From ") and said.endswith(")"):
                said = said[len("(From ") : -1]
            elif said.startswith("(To "):
                unknown = "a whisper the archive shows as sent to someone: its sender is not named"
                said = ""
        elif "emote" in classes:
            body = _message_text(msg)
            names = sorted((n for n in self.named if body.startswith(n + " ") or body == n), key=len)
            said = names[-1] if names else ""
            if not said:
                unknown = "an emote whose speaker is not named before it in the file (Roll20 keeps an emote's speaker only in its words)"
        elif "desc" in classes:
            said, unknown = "", "a /desc message has no speaker"
        if said is not None:
            self.speaker = said
            if said and by is not None and "whisper" not in classes:
                self.named.add(" ".join(said.split()))
        is_roll = "rollresult" in classes
        inline = index.all("inlinerollresult")
        if not is_roll and not inline:
            return []
        if unknown:
            raise BadFile(f"{where}: {unknown}")
        if not self.speaker:
            raise BadFile(f"{where}: no speaker (span.by) here or before it")
        who = check_speaker(self.speaker, where)
        text = check_text(_message_text(msg), where)
        label_node = index.first("sheet-label")
        if label_node is None:
            label_node = index.first("sheet-header")
        label = _text(label_node)[:120] if label_node is not None else ""
        key = mid or text_key(self.stamp, who, text)
        out = []
        if is_roll:
            out.append(_roll(index, key, where, who, text, self.stamp, hidden))
        for j, span in enumerate(inline, start=1):
            out.append(
                _inline(span, f"{key}#{j}", f"{where}, inline roll {j}", who, text, self.stamp, label, hidden)
            )
        return out


def parse(file: Any, name: str) -> Parsed:
    """Read a saved Chat Archive page from an open binary file (see the module's doc).

    :raises BadFile: no ``div.message`` at all (not a Chat Archive page), not UTF-8, over
        the size limit. A message the ledger refuses (a total its dice do not give, a total
        or face that is not a whole number, no speaker, a speaker or text the ledger
        refuses, the file ending inside it) is accounted for as refused, with its reason.
    """
    reader = _Reader()
    parser = etree.HTMLPullParser(events=("end",), tag="div", no_network=True, huge_tree=False)

    def drain(cut: bool) -> None:
        for _event, el in parser.read_events():
            names = el.get("class")
            if not names or "message" not in names or "message" not in names.split():
                continue
            reader.message(el, cut)
            parent = el.getparent()
            if parent is not None:
                parent.remove(el)  # read: let it go

    for chunk in text_chunks(file, name):
        parser.feed(chunk)
        drain(False)
    try:
        parser.close()
    except etree.XMLSyntaxError:
        pass
    drain(True)  # ended by the file's end, not by their own end tag
    if not reader.out.messages:
        raise BadFile(
            f"{name} holds no Roll20 chat message (div.message): save the game's Chat "
            "Archive page as HTML and give that file"
        )
    return reader.out


def _message_text(msg: Any) -> str:
    parts = [msg.text or ""]
    for c in msg:
        if isinstance(c.tag, str) and not _classes(c) & {"by", "tstamp", "avatar", "spacer"}:
            parts.append("".join(c.itertext()))
        parts.append(c.tail or "")
    return " ".join(" ".join(parts).split())


def _whole(text: str, what: str, where: str) -> int:
    value = text.strip()
    if not re.fullmatch(r"-?\d+", value):
        raise BadFile(f"{where}: {what} {printable(value[:40])!r} is not a whole number")
    return int(value)


def _shown(el: Any, out: list[str], where: str) -> None:
    """The formatted formula as arithmetic: each die its face, a dropped die nothing."""
    if "diceroll" in _classes(el):
        face = _first(el, "didroll")
        shown = _text(face) if face is not None else ""
        if "dropped" in _classes(el):
            out.append("0")
        elif "dF" in _classes(el) or "df" in _classes(el):
            out.append(str(FATE.get(shown, shown)))
        else:
            out.append(shown)
        out.extend(c.tail or "" for c in el)  # the "+" between two dice
    else:
        out.append(el.text or "")
        for c in el:
            if isinstance(c.tag, str):
                _shown(c, out, where)
            out.append(c.tail or "")


def _roll(
    index: _Index, key: str, where: str, speaker: str, text: str, stamp: str, hidden: bool
) -> ForeignRoll:
    formulas = [f for f in index.all("formula") if "formattedformula" not in _classes(f)]
    if not formulas:
        raise BadFile(f"{where}: a roll result without its formula (div.formula)")
    formula = _text(formulas[0])
    formula = formula[len("rolling ") :] if formula.lower().startswith("rolling ") else formula
    rolled = index.first("rolled")
    if rolled is None:
        raise BadFile(f"{where}: a roll result without its total (div.rolled)")
    total = _whole(_text(rolled), "the total", where)
    dice = []
    for die in index.all("diceroll"):
        size = next((c[1:] for c in _classes(die) if re.fullmatch(r"d(\d+|F)", c, re.IGNORECASE)), None)
        face = _first(die, "didroll")
        if size is None or face is None:
            raise BadFile(f"{where}: a die (div.diceroll) without its size (dN) or face (div.didroll)")
        if size.upper() == "F":
            shown = _text(face)
            if shown not in FATE:
                raise BadFile(f"{where}: a Fate die showing {printable(shown[:20])!r}")
            dice.append((3, FATE[shown] + 2))
        else:
            dice.append((int(size), _whole(_text(face), "a die's face", where)))
    shown_formula = index.first("formattedformula")
    if shown_formula is None:
        raise BadFile(f"{where}: a roll result without its dice (div.formattedformula)")
    parts: list[str] = []
    _shown(shown_formula, parts, where)
    check_total(LABEL.sub("", "".join(parts)), total, where)
    return ForeignRoll(
        tool="roll20", key=key, where=where, speaker=speaker, formula=check_text(formula, where)[:500],
        dice=check_dice(dice, where), total=total, text=text, at=stamp, gm_only=hidden,
    )  # fmt: skip


def _inline(
    span: Any, key: str, where: str, speaker: str, text: str, stamp: str, label: str, hidden: bool
) -> ForeignRoll:
    title = span.get("title") or span.get("original-title") or ""
    total = _whole(_text(span), "the inline roll's total", where)
    said = " ".join(html.unescape(TAG.sub("", title)).split())
    formula = said.split("Rolling ", 1)[1] if "Rolling " in said else said
    formula = formula.split(" = ", 1)[0].strip()
    if " = " not in title:
        raise BadFile(f"{where}: an inline roll without its dice (its title 'Rolling … = …')")
    result = title.split(" = ", 1)[1]
    faces: list[int] = []

    def face(m: re.Match[str]) -> str:
        value = _whole(html.unescape(m[2]), "a die's face", where)
        faces.append(value)
        return "0" if "dropped" in m[1].split() else str(value)

    arithmetic = html.unescape(TAG.sub("", TIP_DIE.sub(face, result)))
    check_total(LABEL.sub("", arithmetic), total, where)
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
        gm_only=hidden,
    )  # fmt: skip
