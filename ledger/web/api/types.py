"""The bodies of the JSON API, as msgspec types: every response and request body is
one of these, and ``/api/v1/openapi.json`` is generated from them
(:func:`msgspec.json.schema_components`), never written by hand."""

from __future__ import annotations

from typing import Any

import msgspec

from ledger.rules import sheets

#: The largest whole number a query parameter takes (18 digits; a seq never comes near it).
MAX_QUERY_INT = 10**18 - 1
#: The most log entries one page holds (a larger ``limit`` is refused, 422).
MAX_LIMIT = 500
#: The entries a page holds when ``limit`` is not given.
DEFAULT_LIMIT = 100

class Problem(msgspec.Struct, kw_only=True):
    """An error, as RFC 9457 problem details (``application/problem+json``): ``title`` the
    HTTP reason, ``detail`` the same words the CLI would print; ``field``, when the refusal
    is about one member of the body, its JSON pointer (RFC 6901: ``"/params/time"``,
    ``"/dice"``), else left out."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str
    field: str | msgspec.UnsetType = msgspec.UNSET


class CampaignInfo(msgspec.Struct, kw_only=True):
    """The campaign: its id, name, rule system and head (the last ``seq`` the caller's view
    counts; GM-only events included, as stubs in a player's log)."""

    id: str
    name: str
    system: str
    head: int
    scope: str
    who: str


class Character(msgspec.Struct, kw_only=True):
    """A character the caller may see; ``mine``: the caller may roll for it."""

    id: str
    name: str
    mine: bool


class SheetLayout(sheets.Sheet, frozen=True, kw_only=True):
    """A sheet as people read it (:class:`ledger.rules.sheets.Sheet`): a ``title``, a
    ``subtitle``, ``sections`` of items (``line``, ``track``, ``table``, each told by its
    ``type``; ``gm_only`` on a GM-only one) and ``as_gm``, whose sheet it is."""


class Sheet(msgspec.Struct, kw_only=True):
    """A character's sheet in the caller's view, at the head or ``as_of`` a seq: ``view``,
    the rule system's fields as ``sheet --json`` gives them, and ``layout``, the sheet as
    ``campaign sheet`` and the web view show it (sections of labelled lines, tracks and
    tables in the book's words; a player's holds no GM-only item, the GM's marks them
    ``gm_only``)."""

    character: str
    as_of: int
    view: dict[str, Any]
    layout: SheetLayout


class LogEntry(msgspec.Struct, kw_only=True):
    """One log line: ``stub`` for a GM-only event in a player's view (nothing but its seq
    and chain hashes, as a player's export shows it); ``hash`` the event's chain hash and
    ``prev_hash`` the one before it (64 hex digits each; the ``hash`` a webhook delivery
    carries, and the export's)."""

    seq: int
    text: str
    hash: str
    prev_hash: str
    stub: bool = False
    gm: bool = False
    mark: str = ""
    entered: str | None = None
    roll: bool = False
    session: int | None = None


class LogPage(msgspec.Struct, kw_only=True):
    """A page of the log: ``entries`` with ``since < seq <= upto``; ``next`` the ``since``
    of the following page (``None``: this page reaches the head)."""

    entries: list[LogEntry]
    head: int
    next: int | None


#: One roll option's value in a body's ``params``: a switch ``true``/``false``, a number, a
#: word, or several values of an option given more than once (a list, or text separated by
#: commas). The served document states each option's own type, range and choices.
ParamValue = str | int | bool | list[str | int]


class RollIn(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A roll of physical dice for a character: ``dice`` the faces as ``campaign roll
    --dice`` takes them (``"3,5"``, ``"++-0"``), ``skill``, the system's roll options by
    name (``params``, as the web form's fields), ``auto`` to record an automatic result."""

    character: str
    dice: str
    skill: str | None = None
    params: dict[str, ParamValue] = {}
    auto: bool = False


class RollOut(msgspec.Struct, kw_only=True):
    """A recorded roll: its ``seq`` and the log line."""

    seq: int
    text: str


class Checkpoint(msgspec.Struct, kw_only=True):
    """The newest signed checkpoint (``GET /checkpoint``'s body)."""

    note: str
    size: int
    key: str
    root: str | None = None


class OpenRequest(msgspec.Struct, kw_only=True):
    """An open roll request addressed to the caller (``GET /requests``): answer it with
    ``POST /answer/{seq}``."""

    seq: int
    character: str
    name: str
    skill: str | None
    words: str


class AnswerIn(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """An answer to a roll request: ``entropy`` (the caller's 32 random bytes as 64 hex
    digits: the dice are drawn from the session's committed seed and them, scheme
    ``ledger-roll-v2``) or ``dice`` (the faces of physical dice), not both."""

    entropy: str | None = None
    dice: str | None = None


class Proof(msgspec.Struct, kw_only=True):
    """A Merkle proof (RFC 9162) to the newest checkpoint, hashes in base64: consistency
    from ``old`` to ``new`` events, or inclusion of event ``seq`` (leaf ``index``) in a tree
    of ``size``."""

    proof: list[str]
    old: int | None = None
    new: int | None = None
    seq: int | None = None
    index: int | None = None
    size: int | None = None


class RequestIn(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A roll request (GM only, as ``campaign request``): ``character`` asked to roll
    ``skill`` with the system's roll options ``params``; ``asked`` names the player to
    answer (default: the one who plays the character)."""

    character: str
    skill: str | None = None
    params: dict[str, ParamValue] = {}
    asked: str | None = None
