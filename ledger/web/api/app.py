"""The JSON API of ``campaign serve``: ``/api/v1``, for scripts and bots.

Every request carries ``Authorization: Bearer TOKEN`` (:mod:`ledger.web.api.tokens`); no
token, an unknown one or a revoked one is 401, a token whose scope does not allow the
endpoint 403. Reads go through the same player-view functions as the web view
(:mod:`ledger.web.pages`): a ``read`` or ``roll`` token sees exactly a player's view, GM-only
events as stubs. Errors are RFC 9457 problem details (``application/problem+json``): the rules' sentence
names an option by its label, and the problem's ``field`` is the JSON pointer of the body
member it is about (``/params/time``, ``/dice``: :func:`ledger.web.api.rolling.pointer`); a
POST body must be ``application/json`` (415). Writes (rolls) by a player's token are limited per token: a burst and then a
steady rate (:class:`ledger.web.sessions.SessionPolicy`'s ``burst`` and ``refill_seconds``).

Endpoints (the OpenAPI 3.1 description is ``GET /api/v1/openapi.json``, generated from the
msgspec types of :mod:`ledger.web.api.types`):

- ``GET /campaign`` (:class:`CampaignInfo`), ``GET /characters`` (list of :class:`Character`)
- ``GET /sheet/{character}?as_of=SEQ`` (:class:`Sheet`)
- ``GET /log?since=SEQ&limit=N`` (:class:`LogPage`, ``limit`` 1 to :data:`MAX_LIMIT`;
  ``ETag``; ``If-None-Match``, compared weakly, → 304)
- ``POST /roll`` (:class:`RollIn` → :class:`RollOut`; scope ``roll``)
- ``GET /export.ndjson``: the export in the caller's view
- ``GET /checkpoint``: the newest signed checkpoint
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route

from ledger.web.api import tokens as tokensmod
from ledger.web.api.types import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    MAX_QUERY_INT,
    AnswerIn,
    CampaignInfo,
    Character,
    Checkpoint,
    LogEntry,
    LogPage,
    OpenRequest,
    Problem,
    Proof,
    RequestIn,
    RollIn,
    RollOut,
    Sheet,
    SheetLayout,
)

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign
    from ledger.web.app import Server


#: The media types a POST body may be sent as (anything else is 415, unread).
JSON_TYPES = ("application/json",)

Handler = Callable[[Any, tokensmod.Token, Request], Response]


class ApiError(Exception):
    """An answer other than 2xx: ``status`` and the ``detail`` of its problem document, the
    ``field`` of the body it is about, as a JSON pointer (``"/params/time"``), if any, and the
    ``headers`` it carries (a 429's ``Retry-After``)."""

    def __init__(
        self, status: int, detail: str, field: str | None = None, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.field = field
        self.headers = headers or {}


def problem(status: int, detail: str, field: str | None = None, **headers: str) -> Response:
    """An RFC 9457 problem details response (``field``: the JSON pointer of the body member
    it is about)."""
    body = Problem(title=HTTPStatus(status).phrase, status=status, detail=detail)
    if field:
        body.field = field
    return Response(
        msgspec.json.encode(body),
        status_code=status,
        media_type="application/problem+json",
        headers=headers,
    )


def ok(body: Any, status: int = 200, **headers: str) -> Response:
    """A JSON response of a msgspec value."""
    return Response(
        msgspec.json.encode(body), status_code=status, media_type="application/json",
        headers=headers,
    )  # fmt: skip


class Bucket:
    """Writes a player's token may make: ``burst`` at once, then one per ``refill``
    seconds, counted in memory per token id (a restart refills it)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._left: dict[int, tuple[float, float]] = {}

    def spend(self, token_id: int, now: float, burst: int, refill: float) -> float:
        """Spend one write; returns 0 when allowed, else the seconds to wait."""
        with self._lock:
            left, at = self._left.get(token_id, (float(burst), now))
            left = min(float(burst), left + max(0.0, now - at) / refill)
            if left < 1:
                return (1 - left) * refill
            self._left[token_id] = (left - 1, now)
            return 0.0


def _bearer(request: Request) -> str:
    header = request.headers.get("authorization", "")
    scheme, _, secret = header.partition(" ")
    return secret.strip() if scheme.lower() == "bearer" else ""


def endpoint(server: Server, scope: str, handler: Handler) -> Callable[[Request], Any]:
    """A route's endpoint: the token looked up (401 without a live one), its scope checked
    (403), then ``handler(campaign, token, request)`` through :meth:`Server.attempt`; an
    :class:`ApiError` becomes its problem document, any other exception a generic 500."""

    def run(request: Request) -> Response:
        campaign = server.campaign()
        secret = _bearer(request)
        if not secret:
            return problem(
                401, "give an API token: Authorization: Bearer TOKEN "
                "(`campaign access add NAME --api` issues one)",
                **{"www-authenticate": 'Bearer realm="campaign"'},
            )  # fmt: skip
        token = tokensmod.find(campaign.store, campaign.id, secret)
        if token is None:
            return problem(
                401, "this API token is unknown or revoked: ask your GM for a new one",
                **{"www-authenticate": 'Bearer realm="campaign", error="invalid_token"'},
            )  # fmt: skip
        if not token.allows(scope):
            return problem(403, f"this API token's scope is {token.scope}; this needs {scope}")
        if request.method == "POST" and not _json_body(request):
            return problem(
                415, "send the body as JSON, with the header Content-Type: application/json"
            )
        try:
            return handler(campaign, token, request)
        except ApiError as e:
            return problem(e.status, e.detail, e.field, **e.headers)

    async def call(request: Request) -> Response:
        from ledger.web.common import run_sync

        if request.method == "POST":  # read here, before the worker thread; the app caps
            # every body at ledger.web.common.MAX_BODY (a larger one is a 413 problem)
            body = await request.body()
            request.state.body = body
        response: Response = await run_sync(server.attempt, run, request)
        return response

    return call


def _json_body(request: Request) -> bool:
    """Is the request's body declared as JSON (``application/json``, any parameters)?"""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    return kind in JSON_TYPES


def _int(
    request: Request, name: str, default: int | None = None, low: int = 0, high: int = MAX_QUERY_INT
) -> int | None:
    """Query parameter ``name`` as a whole number from ``low`` to ``high`` (``default``
    when absent or empty).

    :raises ApiError: 400 for a value that is not a whole number, 422 (naming the parameter
        and its range) for one outside ``low`` to ``high``.
    """
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    digits = raw[1:] if raw[:1] == "-" else raw
    if not digits.isascii() or not digits.isdigit():
        raise ApiError(400, f"{name} must be a whole number from {low} to {high}")
    if len(digits) > 18 or not low <= int(raw) <= high:
        raise ApiError(422, f"{name} must be a whole number from {low} to {high}")
    return int(raw)


def _character(campaign: Campaign, token: tokensmod.Token, text: str) -> str:
    from ledger.web import access as accessmod

    visible = accessmod.visible_characters(campaign, as_gm=token.access.is_gm)
    key = text.strip().casefold()
    for cid, name in visible.items():
        if key in (cid.casefold(), name.casefold()):
            return cid
    raise ApiError(404, f"no character {text!r}: `GET /api/v1/characters` lists them")


# --- the endpoints ---------------------------------------------------------------------------


def campaign_info(campaign: Campaign, token: tokensmod.Token, request: Request) -> Response:
    """``GET /campaign``."""
    created = campaign.created
    return ok(
        CampaignInfo(
            id=campaign.id,
            name=str(getattr(created, "name", campaign.id)),
            system=created.system,
            head=campaign.store.head(campaign.id).seq,
            scope=token.scope,
            who=token.access.who,
        )
    )


def characters(campaign: Campaign, token: tokensmod.Token, request: Request) -> Response:
    """``GET /characters``: those the caller may see, ``mine`` those it may roll for."""
    from ledger.web import access as accessmod

    visible = accessmod.visible_characters(campaign, as_gm=token.access.is_gm)
    mine = accessmod.characters_of(campaign, token.access) if token.allows("roll") else {}
    return ok([Character(id=c, name=n, mine=c in mine) for c, n in visible.items()])


def sheet(campaign: Campaign, token: tokensmod.Token, request: Request) -> Response:
    """``GET /sheet/{character}?as_of=SEQ``: the sheet in the caller's view."""
    from ledger.errors import NotFound

    cid = _character(campaign, token, request.path_params["character"])
    head = campaign.store.head(campaign.id).seq
    upto = _int(request, "as_of", head, low=1, high=head)
    assert upto is not None
    as_gm = token.access.is_gm
    try:
        state = campaign.state_of(cid, upto=upto, as_gm=as_gm, save_snapshots=False)
    except NotFound as e:
        raise ApiError(404, str(e)) from e
    from ledger.campaign.viewing import sheet_for

    view = campaign.system.sheet_view(state, as_gm=as_gm)
    shown = sheet_for(campaign, cid, as_gm=as_gm, upto=upto, save_snapshots=False)
    layout = SheetLayout(**msgspec.structs.asdict(shown))
    return ok(Sheet(character=cid, as_of=upto, view=msgspec.to_builtins(view), layout=layout))


def log(campaign: Campaign, token: tokensmod.Token, request: Request) -> Response:
    """``GET /log?since=SEQ&limit=N``: entries after ``since``, at most ``limit``; the ETag
    names the caller's view and the page, so ``If-None-Match`` answers 304 until it moves."""
    from ledger.web.pages import log_entries

    since = _int(request, "since", 0) or 0
    limit = _int(request, "limit", DEFAULT_LIMIT, low=1, high=MAX_LIMIT) or DEFAULT_LIMIT
    head = campaign.store.head(campaign.id).seq
    upto = min(head, since + limit)
    view = "gm" if token.access.is_gm else "player"
    etag = (
        '"'
        + hashlib.sha256(f"{campaign.id}/{view}/{since}/{upto}/{head}".encode()).hexdigest()[:32]
        + '"'
    )
    if not_modified(request.headers.get("if-none-match", ""), etag):
        return Response(status_code=304, headers={"etag": etag})
    entries = [
        LogEntry(**{k: v for k, v in e.items() if k in LogEntry.__struct_fields__})
        for e in log_entries(campaign, as_gm=token.access.is_gm, after=since, upto=upto)
    ]
    page = LogPage(entries=entries, head=head, next=upto if upto < head else None)
    return ok(page, etag=etag)


def not_modified(if_none_match: str, etag: str) -> bool:
    """Does an ``If-None-Match`` header value match ``etag``? RFC 9110, section 13.1.2:
    ``*`` matches any current representation; otherwise each listed entity tag is compared
    weakly (``W/"x"`` matches ``"x"`` and ``W/"x"``), so a proxy that weakens tags still
    gets its 304."""
    value = if_none_match.strip()
    if value == "*":
        return True

    def opaque(tag: str) -> str:
        tag = tag.strip()
        return tag[2:] if tag[:2] == "W/" else tag

    return opaque(etag) in {opaque(t) for t in value.split(",") if t.strip()}


def export(campaign: Campaign, token: tokensmod.Token, request: Request) -> Response:
    """``GET /export.ndjson``: the export in the caller's view (stubs for a player)."""
    from ledger.exchange.ndjson import export_lines

    body = b"".join(export_lines(campaign.store, campaign.id, as_gm=token.access.is_gm))
    return Response(body, media_type="application/x-ndjson")


def checkpoint(campaign: Campaign, token: tokensmod.Token, request: Request) -> Response:
    """``GET /checkpoint``: the newest signed checkpoint and the verifier key."""
    from ledger.campaign import checkpoints

    made = checkpoints.latest(campaign)
    if made is None:
        raise ApiError(404, "no checkpoint is signed yet: the GM's `session end` signs one")
    body = made.as_dict(checkpoints.recorded_key(campaign) or "")
    return ok(Checkpoint(note=body["note"], size=body["size"], key=body["vkey"], root=body["root"]))


def roll(server: Server) -> Handler:
    """``POST /roll``: physical dice for a character the caller plays, through
    :meth:`Campaign.roll` as the web form's roll (the players' view rehearsed first, so a
    refusal names nothing GM-only)."""
    bucket = Bucket()

    def handler(campaign: Campaign, token: tokensmod.Token, request: Request) -> Response:
        from ledger.web.api.rolling import record_api

        raw = request.state.body
        try:
            body = msgspec.json.decode(raw, type=RollIn)
        except msgspec.DecodeError as e:
            raise ApiError(400, f"the body is not a roll: {e}") from e
        cid = _character(campaign, token, body.character)
        from ledger.web import access as accessmod

        if cid not in accessmod.characters_of(campaign, token.access):
            raise ApiError(403, f"this token does not roll for {body.character}")
        _spend(server, bucket, token)
        rec = _written(record_api, campaign, token.access, cid, body)
        from ledger.web.pages import entry

        return ok(
            RollOut(seq=rec.seq, text=entry(campaign, rec, campaign.corrections())["text"]), 201
        )

    return handler


def requests(campaign: Campaign, token: tokensmod.Token, request: Request) -> Response:
    """``GET /requests``: the open roll requests addressed to the caller (none for the GM,
    who answers at the laptop)."""
    from ledger.web.api.answering import open_for

    found = open_for(campaign, token.access)
    return ok([OpenRequest(seq=r["seq"], character=r["character"], name=r["name"],
                           skill=r["skill"], words=r["words"]) for r in found])  # fmt: skip


def answer(server: Server) -> Handler:
    """``POST /answer/{seq}``: answer a roll request with the caller's entropy or dice."""
    bucket = Bucket()

    def handler(campaign: Campaign, token: tokensmod.Token, request: Request) -> Response:
        from ledger.web.api.answering import answer as record_answer
        from ledger.web.pages import entry

        try:
            body = msgspec.json.decode(request.state.body, type=AnswerIn)
        except msgspec.DecodeError as e:
            raise ApiError(400, f"the body is not an answer: {e}") from e
        _spend(server, bucket, token)
        seq = request.path_params["seq"]
        rec = _written(record_answer, campaign, token.access, seq, body.entropy, body.dice)
        text = entry(campaign, rec, campaign.corrections())["text"]
        return ok(RollOut(seq=rec.seq, text=text), 201)

    return handler


def request_roll(campaign: Campaign, token: tokensmod.Token, request: Request) -> Response:
    """``POST /request`` (scope gm): ask a character's player for a roll, as ``campaign
    request`` (the same :meth:`Campaign.request_roll`)."""
    from ledger.campaign.clock import now
    from ledger.errors import NotFound, RuleError
    from ledger.rules.params import pick_params
    from ledger.web.api.rolling import given_params, pointer
    from ledger.web.pages import entry

    try:
        body = msgspec.json.decode(request.state.body, type=RequestIn)
    except msgspec.DecodeError as e:
        raise ApiError(400, f"the body is not a roll request: {e}") from e
    try:
        given = pick_params(
            campaign.system, "roll_params", given_params(campaign.system, body.params)
        )
        rec = campaign.request_roll(
            body.character, body.skill, given, asked=body.asked, actor=token.access.who, at=now()
        )
    except NotFound as e:
        raise ApiError(404, str(e)) from e
    except RuleError as e:  # about one option: point at it
        raise ApiError(422, str(e), pointer(e, campaign.system)) from e
    text = entry(campaign, rec, campaign.corrections())["text"]
    return ok(RollOut(seq=rec.seq, text=text), 201)


def _written(write: Callable[..., Any], *args: Any) -> Any:
    """``write(*args)``, a :class:`ledger.errors.Refused` as its problem: 404
    ``missing``, 409 ``closed`` or ``conflict``, else 422
    (:data:`ledger.web.common.REFUSED_STATUS`, as the phone's)."""
    from ledger.errors import Refused
    from ledger.web.api.rolling import pointer
    from ledger.web.common import REFUSED_STATUS

    try:
        return write(*args)
    except Refused as e:
        system = getattr(args[0], "system", None) if args else None
        raise ApiError(REFUSED_STATUS.get(e.reason, 422), e.text, pointer(e, system)) from None


def _spend(server: Server, bucket: Bucket, token: tokensmod.Token) -> None:
    if token.access.is_gm:
        return
    p = server.policy
    wait = bucket.spend(token.access.id, server.monotonic(), p.burst, p.refill_seconds)
    if wait:
        seconds = max(1, int(-(-wait // 1)))
        raise ApiError(
            429, f"slow down: wait {seconds} seconds (nothing was written)",
            headers={"retry-after": str(seconds)},
        )  # fmt: skip


def _latest_size(campaign: Campaign) -> int:
    latest = campaign.store.latest_checkpoint(campaign.id)
    if latest is None:
        raise ApiError(404, "no checkpoint is signed yet: the GM's `session end` signs one")
    return int(latest["size"])


def consistency(campaign: Campaign, token: tokensmod.Token, request: Request) -> Response:
    """``GET /proof/consistency?old=N``: from the tree of N events to the newest checkpoint."""
    from ledger.history.tree_proofs import consistency as prove
    from ledger.web.api.answering import b64

    new = _latest_size(campaign)
    old = _int(request, "old", low=1, high=new)
    if old is None:
        raise ApiError(400, f"give old, a whole number from 1 to {new}")
    found = prove(campaign.store, campaign.id, old, new)
    return ok(Proof(old=old, new=new, proof=[b64(h) for h in found.proof]))


def inclusion(campaign: Campaign, token: tokensmod.Token, request: Request) -> Response:
    """``GET /proof/inclusion?seq=S``: event S in the newest checkpoint's tree."""
    from ledger.history.tree_proofs import inclusion as prove
    from ledger.web.api.answering import b64

    size = _latest_size(campaign)
    seq = _int(request, "seq", low=1, high=size)
    if seq is None:
        raise ApiError(400, f"give seq, a whole number from 1 to {size}")
    found = prove(campaign.store, campaign.id, seq, size)
    return ok(Proof(seq=seq, index=seq - 1, size=size, proof=[b64(h) for h in found.proof]))


def mount(server: Server) -> Mount:
    """The ``/api/v1`` mount of the web app's route table."""
    from ledger.web.api.openapi import document

    spec: list[bytes] = []

    def openapi(request: Request) -> Response:
        from ledger.errors import StoreError

        if not spec:  # the campaign's roll options are known once the campaign is open
            try:
                system = server.campaign().system
            except StoreError:  # the database away just now: the options as a plain map
                return Response(msgspec.json.encode(document()), media_type="application/json")
            spec.append(msgspec.json.encode(document(system)))
        return Response(spec[0], media_type="application/json")

    return Mount(
        "/api/v1",
        routes=[
            Route("/openapi.json", openapi),
            Route("/campaign", endpoint(server, "read", campaign_info)),
            Route("/characters", endpoint(server, "read", characters)),
            Route("/sheet/{character}", endpoint(server, "read", sheet)),
            Route("/log", endpoint(server, "read", log)),
            Route("/export.ndjson", endpoint(server, "read", export)),
            Route("/checkpoint", endpoint(server, "read", checkpoint)),
            Route("/roll", endpoint(server, "roll", roll(server)), methods=["POST"]),
            Route("/requests", endpoint(server, "read", requests)),
            Route("/request", endpoint(server, "gm", request_roll), methods=["POST"]),
            Route("/answer/{seq:seq}", endpoint(server, "roll", answer(server)), methods=["POST"]),
            Route("/proof/consistency", endpoint(server, "read", consistency)),
            Route("/proof/inclusion", endpoint(server, "read", inclusion)),
        ],
    )
