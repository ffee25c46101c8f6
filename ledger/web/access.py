"""Access links of the web view: capability tokens, one for the GM and one per player.

A token is 128 random bits (``secrets.token_urlsafe(16)``); only its sha256 is stored (the
``access`` table, :meth:`ledger.store.sqlite.Store.add_access`), so a copy of the ledger file holds
no usable link. A presented token is hashed and compared in constant time
(:func:`hmac.compare_digest`) with every live link of the campaign. A revoked link stops at
once: the server looks the link up again on every request and every live-stream wake-up.

Who plays whom: a player's link reaches the characters whose sheet names that player
(``player = "Dana"``, compared case-insensitively) plus those granted by name
(``campaign access add dana --character isa``).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ledger.errors import RuleError

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign
    from ledger.store.protocols import AccessStore, EventStore

#: The name of the GM's link (``campaign access add gm``).
GM = "gm"
MAX_NAME = 64


@dataclass(frozen=True)
class Access:
    """One live access link.

    :ivar id: its row id. :ivar who: the player's name as given (``"gm"`` for the GM).
    :ivar role: ``"gm"`` or ``"player"``. :ivar granted: character ids granted by name.
    """

    id: int
    who: str
    role: str
    granted: tuple[str, ...] = field(default=())
    created_at: str = ""

    @property
    def is_gm(self) -> bool:
        """Does this link see and do everything the GM does?"""
        return self.role == "gm"


def new_token() -> str:
    """A fresh capability token: 128 random bits, URL-safe base64 (22 characters)."""
    return secrets.token_urlsafe(16)


def token_hash(token: str) -> str:
    """The sha256 (hex) of a token: what the ``access`` table keeps."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _access(row: dict[str, Any]) -> Access:
    return Access(
        id=row["id"],
        who=row["who"],
        role=row["role"],
        granted=tuple(json.loads(row["characters"] or "[]")),
        created_at=row["created_at"],
    )


def check_player(name: str) -> str:
    """A player's name as typed, stripped.

    :raises RuleError: empty, longer than 64 characters, or holding an invisible character.
    """
    from ledger.text import check_name

    name = name.strip()
    if not name:
        raise RuleError("give the player's name: `campaign access add Dana` (or `gm`)")
    if len(name) > MAX_NAME:
        raise RuleError(f"a player's name takes at most {MAX_NAME} characters")
    return check_name(name, "the player's name")


class LinkExists(RuleError):
    """``who`` already has a live link and a new one was not asked to replace it.

    :ivar who: the name as the live link spells it.
    """

    def __init__(self, who: str) -> None:
        self.who = who
        super().__init__(
            f"{who} already has a live link: `campaign access add {who} --replace` issues a "
            "new one and stops the old"
        )


def grant(
    store: EventStore,
    campaign: Campaign,
    who: str,
    characters: tuple[str, ...],
    *,
    at: str,
    replace: bool = False,
) -> tuple[Access, str]:
    """Issue a new link for ``who`` (``"gm"`` for the GM). One key per person: with
    ``replace`` the older live links of the same name (compared case-insensitively) are
    revoked in the same transaction; without it, a live one refuses the grant.

    :param characters: names or ids of characters granted by name (players only).
    :returns: ``(access, token)``: the token is shown once and never stored.
    :raises LinkExists: ``who`` has a live link and ``replace`` is false (nothing written).
    :raises RuleError: a bad name, a character granted to the GM's link, or an unknown
        character (:class:`ledger.errors.NotFound`, with suggestions).
    """
    who = check_player(who)
    role = "gm" if who.lower() == GM else "player"
    if role == "gm":
        who = GM
        if characters:
            raise RuleError(
                "the GM's link reaches every character: naming characters is for players",
                param="character",
            )
    ids = tuple(dict.fromkeys(campaign.find_character(c) for c in characters))
    token = new_token()
    with store.transaction():
        if not replace:
            key = who.casefold()
            for row in store.access_rows(campaign.id):
                if row["revoked_at"] is None and row["who"].casefold() == key:
                    raise LinkExists(row["who"])
        store.revoke_access(campaign.id, who, at)
        row_id = store.add_access(campaign.id, who, role, ids, token_hash(token), at)
    return Access(row_id, who, role, ids, at), token


def live(store: AccessStore, campaign_id: str) -> list[Access]:
    """Every live (not revoked) link of a campaign, oldest first."""
    return [_access(r) for r in store.access_rows(campaign_id) if r["revoked_at"] is None]


def find(store: AccessStore, campaign_id: str, token: str) -> Access | None:
    """The live link whose token is ``token`` (``None`` for none). Every live link's hash is
    compared in constant time, so the answer's timing says nothing about the token."""
    if not token or len(token) > 100:
        return None
    presented = token_hash(token)
    found = None
    for row in store.access_rows(campaign_id):
        if hmac.compare_digest(row["token_hash"], presented) and row["revoked_at"] is None:
            found = _access(row)
    return found


def still_live(store: AccessStore, campaign_id: str, access_id: int) -> Access | None:
    """The link ``access_id`` if it is still live (``None`` once revoked)."""
    for row in store.access_rows(campaign_id):
        if row["id"] == access_id and row["revoked_at"] is None:
            return _access(row)
    return None


def visible_characters(campaign: Campaign, *, as_gm: bool) -> dict[str, str]:
    """``{character id: name}`` in the view asked for: a player's leaves out a character
    whose ``character.created`` is GM-only."""
    names = campaign.characters()
    if as_gm:
        return names
    hidden = {
        payload_id(data)
        for _seq, data, visibility in campaign.store.rows(
            campaign.id, types=["character.created"], columns="seq, data, visibility"
        )
        if visibility == "gm"
    }
    return {cid: name for cid, name in names.items() if cid not in hidden}


def payload_id(data: str) -> Any:
    """The ``character`` of a stored ``character.created`` payload."""
    import msgspec

    return msgspec.json.decode(data).get("character")


def characters_of(campaign: Campaign, access: Access) -> dict[str, str]:
    """``{character id: name}`` a link may write for: every character for the GM; for a
    player, those whose sheet names them as ``player`` (case-insensitive) and those granted
    by name."""
    import msgspec

    names = visible_characters(campaign, as_gm=access.is_gm)
    if access.is_gm:
        return names
    mine: dict[str, str] = {}
    key = access.who.casefold()
    for _seq, data in campaign.store.rows(
        campaign.id, types=["character.created"], columns="seq, data"
    ):
        payload = msgspec.json.decode(data)
        cid = payload.get("character")
        player = payload.get("player")
        if cid in names and isinstance(player, str) and player.strip().casefold() == key:
            mine[cid] = names[cid]
    for cid in access.granted:
        if cid in names:
            mine[cid] = names[cid]
    return mine


def players_of(campaign: Campaign, *, as_gm: bool) -> dict[str, list[str]]:
    """``{player name: [character names]}`` as the sheets say (who plays whom)."""
    import msgspec

    names = visible_characters(campaign, as_gm=as_gm)
    out: dict[str, list[str]] = {}
    for _seq, data in campaign.store.rows(
        campaign.id, types=["character.created"], columns="seq, data"
    ):
        payload = msgspec.json.decode(data)
        cid, player = payload.get("character"), payload.get("player")
        if cid in names and isinstance(player, str) and player.strip():
            out.setdefault(player.strip(), []).append(names[cid])
    return out
