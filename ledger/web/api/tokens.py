"""Bearer tokens of the JSON API: ``campaign access add NAME --api --scope SCOPE``.

A token is 256 random bits (``secrets.token_urlsafe(32)``) prefixed ``cl_``; only its sha256
is kept (the ``api_tokens`` table, migration ``m011_api_tokens``), so a copy of the ledger
holds no usable token. A presented token is hashed and compared in constant time with every
token of the campaign, and looked up again on every request, so a revoked token stops at
once.

Scopes (each includes the one before it):

- ``read``: the players' view, exactly what the web view shows a player (GM-only events as
  stubs, GM-only characters absent);
- ``roll``: also enter rolls, and answer roll requests, for the characters the player plays
  (as the web view's roll form: the sheets' ``player`` field and ``--character`` grants);
- ``gm``: the GM's view and writes (only for the name ``gm``).

A token is an :class:`ledger.web.access.Access` to the rest of the web code (``role`` is
``"gm"`` for the ``gm`` scope, else ``"player"``), so every read and write goes through the
same functions as the web view's.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ledger.errors import RuleError
from ledger.web.access import GM, Access, check_player

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign
    from ledger.store.protocols import EventStore

#: The scopes a token may have, narrowest first.
SCOPES = ("read", "roll", "gm")
#: What a token starts with (so a leaked one is recognisable).
PREFIX = "cl_"


@dataclass(frozen=True)
class Token:
    """One API token as stored (never the token itself).

    :ivar access: what it may see and do, as an access link. :ivar scope: ``"read"``,
        ``"roll"`` or ``"gm"``.
    """

    access: Access
    scope: str

    def allows(self, scope: str) -> bool:
        """Does this token's scope include ``scope``?"""
        return SCOPES.index(self.scope) >= SCOPES.index(scope)


def token_hash(token: str) -> str:
    """The sha256 (hex) of a token: what the ``api_tokens`` table keeps."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _token(row: dict[str, Any]) -> Token:
    scope = row["scope"]
    role = "gm" if scope == "gm" else "player"
    granted = tuple(json.loads(row["characters"] or "[]"))
    return Token(Access(row["id"], row["who"], role, granted, row["created_at"]), scope)


def grant(
    store: EventStore,
    campaign: Campaign,
    who: str,
    scope: str,
    characters: tuple[str, ...],
    *,
    at: str,
) -> tuple[Token, str]:
    """Issue a new API token for ``who`` with ``scope``.

    :returns: ``(token, secret)``: the secret is shown once and never stored.
    :raises RuleError: an unknown scope, ``gm`` scope for a player (or a player scope for
        ``gm``), characters granted to the GM, a bad name or an unknown character.
    """
    who = check_player(who)
    if scope not in SCOPES:
        raise RuleError(f"unknown scope {scope!r}: use one of {', '.join(SCOPES)}")
    is_gm = who.casefold() == GM
    if is_gm != (scope == "gm"):
        raise RuleError(
            "the gm scope is for the GM's token only: add the GM's (gm) with the gm scope"
            if not is_gm
            else "the GM's token has the gm scope: add it with the gm scope",
            param="scope",
        )
    if is_gm:
        who = GM
        if characters:
            raise RuleError(
                "the GM's token reaches every character: naming characters is for players",
                param="character",
            )
    ids = tuple(dict.fromkeys(campaign.find_character(c) for c in characters))
    secret = PREFIX + secrets.token_urlsafe(32)
    row_id = store.add_api_token(campaign.id, who, scope, ids, token_hash(secret), at)
    role = "gm" if is_gm else "player"
    return Token(Access(row_id, who, role, ids, at), scope), secret


def live(store: EventStore, campaign_id: str) -> list[Token]:
    """Every live (not revoked) API token of a campaign, oldest first."""
    return [_token(r) for r in store.api_token_rows(campaign_id) if r["revoked_at"] is None]


def find(store: EventStore, campaign_id: str, secret: str) -> Token | None:
    """The live token whose secret is ``secret`` (``None`` for none or revoked). Every
    token's hash is compared in constant time."""
    if not secret or len(secret) > 100:
        return None
    presented = token_hash(secret)
    found = None
    for row in store.api_token_rows(campaign_id):
        if hmac.compare_digest(row["token_hash"], presented) and row["revoked_at"] is None:
            found = _token(row)
    return found
