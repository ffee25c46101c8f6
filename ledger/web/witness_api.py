"""The phones' witness endpoints: the newest signed checkpoint, RFC 9162 proofs against
it, and cosignatures posted back. JSON only; the player's session decides the campaign, as
on every page; a request without a live session gets 403 JSON.

- ``GET /checkpoint`` → 200 ``{"note", "vkey", "size", "root", "sessions", "since"}`` (the
  signed C2SP tlog-checkpoint note, the campaign's verifier key, the tree size, the root in
  base64; and the log's age, for a phone that meets the campaign for the first time: the
  sessions started so far and the UTC date of its first entry, ``YYYY-MM-DD``); 404
  ``{"error"}`` when none is signed yet.
- ``GET /proof/consistency?old=N`` → ``{"old": N, "new": size of the newest checkpoint,
  "proof": [base64]}`` (RFC 9162 2.1.4); 400 for an N that is not 1 to that size.
- ``GET /proof/inclusion?seq=S`` → ``{"seq", "index", "size", "proof": [base64]}`` against
  the newest checkpoint (RFC 9162 2.1.3); 400 for an S it does not hold.
- ``POST /cosignature`` (``application/json``) ``{"size", "vkey", "signature"}`` → 204 once
  it verifies as a C2SP tlog-cosignature/v1 of the kept checkpoint of that size by ``vkey``
  (:func:`ledger.campaign.checkpoints.add_cosignature`); 400 ``{"error"}`` otherwise, nothing
  stored; 403 from another origin, 415 for another content type (a cross-site form cannot
  send JSON); a player's
  device is rate-limited as its rolls are (429 with ``retry-after``).

- ``GET /chronicle`` → ``{"vkey", "entries": [{"seq", "character", "name", "session", "note",
  "hash", "cosigned"}]}``: the chronicle entries this table signed of the characters the
  player's link plays (:func:`ledger.campaign.chronicles.kept_entries`; ``cosigned`` the
  phone key that cosigned it, or ``null``), for the phone to show and cosign. The GM's
  link gets 403: only a player agrees an entry is theirs.
- ``POST /chronicle/cosignature`` (``application/json``) ``{"entry", "vkey",
  "signature"}`` → 204 once it verifies as the phone's cosignature of that entry of one of
  the player's characters (:func:`ledger.campaign.chronicles.cosign_entry`); 400
  ``{"error"}`` otherwise (one line naming the entry), nothing stored; the same origin,
  content type and rate limit as ``POST /cosignature``.

Nothing GM-only leaves: a checkpoint note holds the origin, the size and the root; a proof's
hashes are subtree roots of event hashes, which a player's export already carries (a GM-only
event's stub keeps its hash).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import msgspec
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ledger.web import sessions as sessionsmod
from ledger.web.common import Viewer, run_sync, same_origin

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign
    from ledger.web.app import Server

Endpoint = Callable[[Request], Any]
_NUMBER = re.compile(r"[1-9][0-9]{0,18}")
#: The largest cosignature request body read (a C2SP cosignature and key are under 300 bytes).
MAX_COSIGNATURE_BODY = 4096


def _error(status: int, text: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": text}, status_code=status, headers=headers)


def _b64(h: bytes) -> str:
    return base64.b64encode(h).decode()


def _number(request: Request, name: str) -> int | None:
    text = request.query_params.get(name, "")
    return int(text) if _NUMBER.fullmatch(text) else None


def _viewed(server: Server, view: Callable[[Any, Viewer, Request], Response]) -> Endpoint:
    """A JSON endpoint for a live session (403 JSON without one), run like the pages."""

    def run(request: Request) -> Response:
        viewer = server.viewer(request)
        if viewer is None:
            return _error(403, "open the link your GM gave you first")
        return view(server.campaign(), viewer, request)

    def endpoint(request: Request) -> Response:
        return server.attempt(run, request)  # type: ignore[no-any-return]

    return endpoint


def checkpoint(server: Server) -> Endpoint:
    """``GET /checkpoint``: the newest signed checkpoint and the campaign's verifier key."""

    def view(campaign: Campaign, viewer: Viewer, request: Request) -> Response:
        from ledger.campaign import checkpoints

        made = checkpoints.latest(campaign)
        if made is None:
            return _error(404, "no checkpoint is signed yet: the GM's `session end` signs one")
        body = made.as_dict(checkpoints.recorded_key(campaign) or "")
        body.pop("made_at")
        body["sessions"] = campaign.last_session()
        body["since"] = campaign.record(1).recorded_at[:10]
        return JSONResponse(body)

    return _viewed(server, view)


def consistency(server: Server) -> Endpoint:
    """``GET /proof/consistency?old=N``: from the tree of N events to the newest checkpoint."""

    def view(campaign: Campaign, viewer: Viewer, request: Request) -> Response:
        from ledger.history.tree_proofs import consistency as prove

        latest = campaign.store.latest_checkpoint(campaign.id)
        if latest is None:
            return _error(404, "no checkpoint is signed yet")
        new = int(latest["size"])
        old = _number(request, "old")
        if old is None or old > new:
            return _error(400, f"old must be a whole number from 1 to {new}")
        found = prove(campaign.store, campaign.id, old, new)
        return JSONResponse({"old": old, "new": new, "proof": [_b64(h) for h in found.proof]})

    return _viewed(server, view)


def inclusion(server: Server) -> Endpoint:
    """``GET /proof/inclusion?seq=S``: event S in the newest checkpoint's tree."""

    def view(campaign: Campaign, viewer: Viewer, request: Request) -> Response:
        from ledger.history.tree_proofs import inclusion as prove

        latest = campaign.store.latest_checkpoint(campaign.id)
        if latest is None:
            return _error(404, "no checkpoint is signed yet")
        size = int(latest["size"])
        seq = _number(request, "seq")
        if seq is None or seq > size:
            return _error(400, f"seq must be a whole number from 1 to {size}")
        found = prove(campaign.store, campaign.id, seq, size)
        return JSONResponse({"seq": seq, "index": seq - 1, "size": size,
                             "proof": [_b64(h) for h in found.proof]})  # fmt: skip

    return _viewed(server, view)


def cosignature(server: Server) -> Endpoint:
    """``POST /cosignature``: keep a phone's cosignature once it verifies."""

    def store_it(request: Request, body: bytes) -> Response:
        from ledger.campaign import checkpoints
        from ledger.campaign.clock import now
        from ledger.errors import RuleError

        viewer = server.viewer(request)
        if viewer is None:
            return _error(403, "open the link your GM gave you first")
        campaign = server.campaign()
        if not viewer.as_gm:  # charged for every attempt, as a roll is
            try:
                sessionsmod.spend_write(
                    campaign.store, campaign.id, viewer.session, server.clock(), server.policy
                )
            except sessionsmod.SlowDown as e:
                wait = str(max(1, int(-(-e.wait // 1))))
                return _error(429, str(e), {"retry-after": wait})
        try:
            sent = msgspec.json.decode(body, type=_Cosignature)
        except (msgspec.DecodeError, RecursionError):
            return _error(400, 'send {"size": N, "vkey": "...", "signature": "— name base64"}')
        try:
            checkpoints.add_cosignature(campaign, sent.size, sent.vkey, sent.signature, at=now())
        except RuleError as e:
            return _error(400, str(e))
        return Response(status_code=204)

    return _cosignature_post(server, store_it)



def _cosignature_post(server: Server, store_it: Any) -> Endpoint:
    """A ``POST`` endpoint taking a cosignature from the campaign's own page: same origin
    (403), ``application/json`` (415), at most ``MAX_COSIGNATURE_BODY`` bytes (400), then
    ``store_it(request, body)`` in a worker thread through ``server.attempt``."""

    async def endpoint(request: Request) -> Response:
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if not same_origin(request):
            return _error(403, "post the cosignature from the campaign's own page")
        if kind != "application/json":
            return _error(415, "send the cosignature as application/json")
        body = await request.body()
        if len(body) > MAX_COSIGNATURE_BODY:
            return _error(400, "that is too long to be a cosignature")
        return await run_sync(server.attempt, store_it, request, body)  # type: ignore[no-any-return]

    return endpoint

class _Cosignature(msgspec.Struct, forbid_unknown_fields=True):
    """What ``POST /cosignature`` reads."""

    size: Annotated[int, msgspec.Meta(ge=1, le=2**63 - 1)]
    vkey: Annotated[str, msgspec.Meta(max_length=1000)]
    signature: Annotated[str, msgspec.Meta(max_length=1000)]


def chronicle_entries(server: Server) -> Endpoint:
    """``GET /chronicle``: the entries of the player's characters, for the phone to cosign."""

    def view(campaign: Campaign, viewer: Viewer, request: Request) -> Response:
        from ledger.campaign import checkpoints
        from ledger.campaign.chronicles import kept_entries
        from ledger.web.access import characters_of

        if viewer.as_gm:
            return _error(403, "only a player's phone cosigns their character's chronicle entries")
        mine = characters_of(campaign, viewer.access)
        entries = [
            {"seq": k.seq, "character": k.character, "name": mine[k.character],
             "session": k.session, "note": k.note, "hash": k.hash, "cosigned": k.cosigned}
            for k in kept_entries(campaign, mine)
        ]  # fmt: skip
        return JSONResponse({"vkey": checkpoints.recorded_key(campaign) or "", "entries": entries})

    return _viewed(server, view)


def chronicle_cosignature(server: Server) -> Endpoint:
    """``POST /chronicle/cosignature``: keep a player's phone's cosignature of their
    character's entry once it verifies."""

    def store_it(request: Request, body: bytes) -> Response:
        from ledger.campaign.chronicles import cosign_entry
        from ledger.campaign.clock import now
        from ledger.errors import RuleError
        from ledger.web.access import characters_of

        viewer = server.viewer(request)
        if viewer is None:
            return _error(403, "open the link your GM gave you first")
        if viewer.as_gm:
            return _error(403, "only a player's phone cosigns their character's chronicle entries")
        campaign = server.campaign()
        try:
            sessionsmod.spend_write(
                campaign.store, campaign.id, viewer.session, server.clock(), server.policy
            )
        except sessionsmod.SlowDown as e:
            wait = str(max(1, int(-(-e.wait // 1))))
            return _error(429, str(e), {"retry-after": wait})
        try:
            sent = msgspec.json.decode(body, type=_EntryCosignature)
        except (msgspec.DecodeError, RecursionError):
            return _error(400, 'send {"entry": HASH, "vkey": "...", "signature": "— name base64"}')
        try:
            cosign_entry(
                campaign, sent.entry, sent.vkey, sent.signature,
                characters=characters_of(campaign, viewer.access), actor=viewer.access.who,
                at=now(),
            )  # fmt: skip
        except RuleError as e:
            return _error(400, str(e))
        return Response(status_code=204)

    return _cosignature_post(server, store_it)


class _EntryCosignature(msgspec.Struct, forbid_unknown_fields=True):
    """What ``POST /chronicle/cosignature`` reads."""

    entry: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]
    vkey: Annotated[str, msgspec.Meta(max_length=1000)]
    signature: Annotated[str, msgspec.Meta(max_length=1000)]
