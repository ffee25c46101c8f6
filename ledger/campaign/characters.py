"""A new character: its id and the ``character.created`` event that makes it.

:func:`add_character` checks a sheet (hostile text, the id, the rule system's creation rules)
and hands the event to :meth:`ledger.campaign.aggregate.Campaign.append`, the one writer.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ledger.errors import RuleError
from ledger.events import CharacterCreated, Recorded

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: A campaign's or a character's id: lower-case letters, digits, ``-`` or ``_``, 1 to 64.
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def slug(text: str) -> str:
    """A lower-case id from a name's first word: ``"Julian Hargrave"`` → ``"julian"``,
    ``"Élodie Brun"`` → ``"elodie"`` (accents dropped; ``"character"`` when nothing is left)."""
    import unicodedata

    first = (text.strip().split() or [""])[0]
    ascii_ = unicodedata.normalize("NFKD", first).encode("ascii", "ignore").decode().lower()
    return re.sub(r"[^a-z0-9_-]", "", ascii_)[:64].lstrip("_-") or "character"


def add_character(campaign: Campaign, sheet: dict[str, Any], *, actor: str, at: str) -> Recorded:
    """Validate a sheet with ``campaign``'s rule system and append ``character.created``.

    :raises RuleError: every broken creation rule, a duplicate id, or a name, key or
        text on the sheet with a control or format character (:mod:`ledger.text`).
    """
    from ledger.text import check_sheet

    sheet = dict(sheet)
    name = sheet.pop("name", None)
    if not isinstance(name, str) or not name.strip():
        raise RuleError('the sheet needs a name, e.g. name = "Julian Hargrave"')
    check_sheet({"name": name, **sheet})
    cid = str(sheet.pop("id", None) or slug(name))
    if not ID_PATTERN.match(cid):
        raise RuleError(f"character id {cid!r} must be lower-case letters, digits, - or _")
    player = sheet.pop("player", None)
    normalised = campaign.system.create_sheet(sheet)
    event = CharacterCreated(
        character=cid,
        name=name.strip(),
        sheet=normalised,
        player=str(player) if player else None,
    )
    return campaign.append([event], actor=actor, at=at)[0]


#: The session events (:data:`ledger.campaign.aggregate.SESSION_TYPES`).
_SESSION_TYPES = ("session.started", "session.ended", "session.abandoned")


def read_at_head(campaign: Campaign) -> dict[str, Any]:
    """What :meth:`~ledger.campaign.aggregate.Campaign.characters` (with and without the
    retracted) and :meth:`~ledger.campaign.aggregate.Campaign.current_session` answer at
    the head, from one read of the store (the corrections, the ``character.created`` and
    the session events, through the type index): ``{"characters": {id: name},
    "characters+retracted": {id: name}, "session": number or None}``, the keys of
    :data:`ledger.campaign.reading.MEMO_TYPES` (one round trip, not three).
    """
    from ledger.rules.projection import corrections_from

    corrected: list[tuple[int, Any]] = []
    created: list[tuple[int, CharacterCreated]] = []
    last: tuple[str, bytes | str] | None = None
    codec = campaign.codec
    for seq, type_, data in campaign.store.rows(
        campaign.id,
        types=["correction.recorded", "character.created", *_SESSION_TYPES],
        columns="seq, type, data",
    ):
        if type_ == "correction.recorded":
            corrected.append((seq, codec.decode(data, type_)))
        elif type_ == "character.created":
            ev = codec.decode(data, type_)
            assert isinstance(ev, CharacterCreated)
            created.append((seq, ev))
        else:
            last = (type_, data)
    corrections = corrections_from(corrected)
    every: dict[str, str] = {}
    alive: dict[str, str] = {}
    for seq, ev in created:
        name = corrections.amended.get(seq, {}).get("name", ev.name)
        every[ev.character] = name
        if seq not in corrections.retracted:
            alive[ev.character] = name
    session = None
    if last is not None and last[0] == "session.started":
        import msgspec

        session = int(msgspec.json.decode(last[1])["number"])
    return {"characters": alive, "characters+retracted": every, "session": session}
