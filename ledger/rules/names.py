"""Finding a name a person typed among a sheet's names (stats, skills, items, conditions).

:func:`name_in` matches ignoring case; :func:`closest_name` is the one to suggest when
nothing matches ("no skill 'Sprnt' (did you mean Sprint?)"); :func:`find_name` is both,
refusing a name that is not there in one sentence. A rule system that words the refusal
otherwise uses the first two.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from ledger.errors import RuleError

__all__ = ["closest_name", "find_name", "name_in"]


def name_in(wanted: str, names: Iterable[str]) -> str | None:
    """The first of ``names`` equal to ``wanted`` ignoring case (``str.casefold``), as the
    sheet spells it; ``None`` when none is. Spaces are not trimmed: strip ``wanted`` first
    where a typed name may carry them."""
    folded = wanted.casefold()
    return next((n for n in names if n.casefold() == folded), None)


def closest_name(wanted: str, names: Iterable[str]) -> str | None:
    """The one of ``names`` closest to ``wanted`` (:func:`difflib.get_close_matches`, ratio
    0.6 or more), first as written, then ignoring case (the sheet's spelling returned);
    ``None`` when none is that close."""
    names = list(names)
    close = difflib.get_close_matches(wanted, names, n=1, cutoff=0.6)
    if close:
        return close[0]
    folded = {n.casefold(): n for n in reversed(names)}  # the first spelling of a name wins
    hit = difflib.get_close_matches(wanted.casefold(), list(folded), n=1)
    return folded[hit[0]] if hit else None


def find_name(wanted: str, names: Iterable[str], what: str) -> str:
    """The one of ``names`` that ``wanted`` names (:func:`name_in`, spaces around ``wanted``
    ignored), as the sheet spells it.

    :param what: what the names are, in the book's words (``"stat"``, ``"equipment"``).
    :raises RuleError: none is: ``no stat named 'Mght' (known: Might, Wits); did you mean
        'Might'?`` (the known names, and the closest one when one is close).
    """
    names = list(names)
    found = name_in(wanted.strip(), names)
    if found is not None:
        return found
    close = closest_name(wanted, names)
    hint = f"; did you mean {close!r}?" if close else ""
    raise RuleError(f"no {what} named {wanted!r} (known: {', '.join(names) or 'none'}){hint}")
