"""Hostile text: names refuse invisible characters; free text is shown safely.

- A *name* (campaign title, character name and id, every key and text value of a character
  sheet: skills, traits, bonds, ...) refuses control and format characters (Unicode
  categories Cc, Cf, Cs, Zl, Zp): newlines, ESC, NUL, the bidirectional overrides and
  isolates (U+202A–U+202E, U+2066–U+2069), zero-width characters. :func:`check_name`.
- *Free text* (notes, correction reasons, scene titles) keeps its newlines, and every text
  output shows it through :func:`printable`: a newline as ``⏎``, any other control or format
  character as a visible escape (``\\x1b``, ``\\u202e``), so a note cannot pose as a second
  log entry or turn the terminal's text around. JSON output stays exact.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from typing import Any

from ledger.errors import RuleError

#: Unicode categories a name refuses (control, format, surrogate, line/paragraph separator).
INVISIBLE = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
NEWLINE_MARK = "⏎"


def _bad(text: str) -> str | None:
    for ch in text:
        if unicodedata.category(ch) in INVISIBLE:
            return ch
    return None


def _escape(ch: str) -> str:
    code = ord(ch)
    return (
        f"\\x{code:02x}"
        if code < 0x100
        else f"\\u{code:04x}"
        if code < 0x10000
        else f"\\U{code:08x}"
    )


def check_name(text: str, what: str) -> str:
    """``text`` unchanged if it is a printable name.

    :param what: what the name is, for the message (``"the character name"``).
    :raises RuleError: a control or format character in it (named with its code point).
    """
    ch = _bad(text)
    if ch is not None:
        name = unicodedata.name(ch, "a control character")
        raise RuleError(
            f"{what} '{printable(text)[:80]}' holds an invisible character "
            f"(U+{ord(ch):04X} {name}): names take printable characters only"
        )
    return text


def check_sheet(sheet: dict[str, Any], where: str = "the sheet's") -> None:
    """Every key and text value of a character sheet is a printable name.

    :param where: the message's start (``"event 7: the sheet's"``).
    :raises RuleError: the first that is not, with its place (``the sheet's skills[0].name``).
    """
    for path, text in _texts(sheet, ""):
        check_name(text, f"{where} {path}")


def _texts(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for k, v in value.items():
            key = str(k)
            yield f"key in {path or 'the top table'}", key
            yield from _texts(v, f"{path}.{printable(key)[:40]}" if path else printable(key)[:40])
    elif isinstance(value, list | tuple):
        for i, v in enumerate(value):
            yield from _texts(v, f"{path}[{i}]")


def printable(text: str) -> str:
    """``text`` for a terminal, a Markdown or an HTML page: one line, nothing invisible.

    ``\\r\\n``, ``\\n`` and ``\\r`` become ``⏎``; every other character of :data:`INVISIBLE`
    becomes its escape (``\\x1b``, ``\\u202e``). Printable text comes back unchanged.
    """
    if _bad(text) is None:
        return text
    out = []
    for ch in text.replace("\r\n", "\n"):
        if ch in "\n\r":
            out.append(NEWLINE_MARK)
        elif unicodedata.category(ch) in INVISIBLE:
            out.append(_escape(ch))
        else:
            out.append(ch)
    return "".join(out)
