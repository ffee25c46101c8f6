"""The league over HTTP: ``campaign league serve`` (docs/league.md "HTTP API").

- ``GET /``: the league's name and checkpoint key (text).
- ``POST /entries``: a signed chronicle entry (the note, text); 200 with
  ``{"status": "accepted"|"known", "seq"}``, 409 with ``{"status": "refused", "problem",
  "conflict"}`` (the league's entry it conflicts with, when it is a conflict), 400 for a
  body that is not an entry, 413 over :data:`MAX_BODY` bytes.
- ``GET /characters/{passport}``: ``{"head": HASH or null, "entries": [{"table",
  "session", "hash"}]}``; with ``?head=HASH`` also ``"problem"``: ``null`` when a passport
  whose last entry is ``HASH`` is the league's newest for that character, else why not
  (:meth:`~ledger.league.core.League.check_head`).
- ``GET /refused`` (``?table=ORIGIN``): the refused entries kept, each with the entry it
  conflicts with.
- ``GET /checkpoint``: a signed checkpoint of the league's log (C2SP tlog-checkpoint).
- ``GET /proof/consistency?old=N[&new=M]``: ``{"old", "new", "proof"}``, the consistency
  proof (RFC 9162, base64 hashes) from the tree of ``N`` entries to that of ``M`` (default:
  the newest checkpoint's size), so anyone holding an older checkpoint holds the league to it.
- ``GET /tile/...``: the log's tiles (C2SP tlog-tiles, :mod:`ledger.league.tiles`).

Each request runs in a worker thread with a store of its own (pooled on PostgreSQL); the
submissions waiting at once are appended together (:mod:`ledger.league.intake`).
"""

from __future__ import annotations

import datetime
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from ledger.league.core import League, LeagueError
from ledger.league.intake import Intake
from ledger.league.tiles import WIDTH
from ledger.store.opening import StoreSource

#: The largest entry accepted (an entry is under 2 KB; its changed line may run longer).
MAX_BODY = 64 * 1024


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _b64(h: bytes) -> str:
    import base64

    return base64.b64encode(h).decode()


def _whole(request: Request, name: str, default: int | None = None) -> int | None:
    """A query parameter that is a whole number (``default`` when absent, ``None`` when not
    a number)."""
    raw = request.query_params.get(name)
    if raw is None:
        return default
    return int(raw) if raw.isdigit() and len(raw) < 19 else None


def make_app(source: StoreSource, name: str) -> Starlette:
    """The league's ASGI app over the stores ``source`` opens."""

    # the keyring cached, and the submissions waiting at once appended together by the
    # thread whose turn it is, with the connection it holds
    intake = Intake(name)

    def run(fn: Any) -> Any:
        """``fn(league)`` with a store of this thread's (a pooled connection held)."""
        store = source.open()
        with store.connected():
            return fn(intake.league(store))

    async def index(request: Request) -> Response:
        found = await run_in_threadpool(run, lambda lg: lg)
        return PlainTextResponse(f"League {name}\nCheckpoint key: {found.vkey}\n")

    async def entries(request: Request) -> Response:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            return JSONResponse({"status": "refused", "problem": "too large"}, status_code=413)
        body = await request.body()
        if len(body) > MAX_BODY:
            return JSONResponse({"status": "refused", "problem": "too large"}, status_code=413)

        def submit(lg: League) -> Any:
            return intake.submit(lg.store, body.decode("utf-8", "replace"), at=_now())

        try:
            verdict = await run_in_threadpool(run, submit)
        except LeagueError as e:
            return JSONResponse({"status": "refused", "problem": str(e)}, status_code=400)
        return JSONResponse(
            verdict.as_dict(), status_code=409 if verdict.status == "refused" else 200
        )

    async def character(request: Request) -> Response:
        passport = request.path_params["passport"]

        asked = request.query_params.get("head")

        def read(lg: League) -> tuple[Any, str | None]:
            return lg.accepted(passport), lg.check_head(passport, asked) if asked else None

        found, problem = await run_in_threadpool(run, read)
        body: dict[str, Any] = {
            "head": found[-1].hash if found else None,
            "entries": [{"table": e.table, "session": e.session, "hash": e.hash} for e in found],
        }
        if asked:
            body["problem"] = problem  # null: a passport ending at ``asked`` is the newest
        return JSONResponse(body)

    async def refused(request: Request) -> Response:
        table = request.query_params.get("table")
        return JSONResponse(await run_in_threadpool(run, lambda lg: lg.refused(table)))

    async def checkpoint(request: Request) -> Response:
        note = await run_in_threadpool(run, lambda lg: lg.checkpoint())
        return PlainTextResponse(note)

    async def consistency(request: Request) -> Response:
        def prove(lg: League) -> Response:
            newest = lg.store.latest_checkpoint(lg.id)
            top = int(newest["size"]) if newest else 0
            old, new = _whole(request, "old"), _whole(request, "new", top)
            if new is None or not 1 <= new <= lg.store.tree_frontier(lg.id)[0]:
                return JSONResponse({"problem": "new must be a size the league has"}, 400)
            if old is None or not 1 <= old <= new:
                return JSONResponse({"problem": f"old must be a whole number from 1 to {new}"}, 400)
            found = lg.consistency(old, new)
            return JSONResponse({"old": old, "new": new, "proof": [_b64(h) for h in found]})

        return await run_in_threadpool(run, prove)

    async def tiled(request: Request) -> Response:
        from ledger.league.tiles import TileError, decode_index, entries, tile

        parts = request.path_params["rest"].split("/")

        def read(lg: League) -> bytes:
            width = WIDTH
            if len(parts) >= 3 and parts[-2].endswith(".p"):
                if not parts[-1].isdigit():
                    raise TileError("a partial tile's width is a number")
                width = int(parts[-1])
                parts[-2:] = [parts[-2].removesuffix(".p")]
            level, index = parts[0], decode_index(parts[1:])
            size = lg.store.tree_frontier(lg.id)[0]
            if level == "entries":
                return entries(lg.store, lg.id, size, index, width)
            if not level.isdigit() or len(level) > 2:
                raise TileError("a tile's level is a number")
            return tile(lg.store, lg.id, size, int(level), index, width)

        try:
            body = await run_in_threadpool(run, read)
        except TileError as e:
            return PlainTextResponse(f"{e}\n", status_code=404)
        immutable = ".p/" not in request.url.path
        headers = {
            "Cache-Control": "public, max-age=31536000, immutable" if immutable else "no-cache"
        }
        return Response(body, media_type="application/octet-stream", headers=headers)

    return Starlette(routes=[
        Route("/", index),
        Route("/entries", entries, methods=["POST"]),
        Route("/characters/{passport:str}", character),
        Route("/refused", refused),
        Route("/checkpoint", checkpoint),
        Route("/proof/consistency", consistency),
        Route("/tile/{rest:path}", tiled),
    ])  # fmt: skip
