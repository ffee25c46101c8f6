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

Each request runs in a worker thread with a store of its own (pooled on PostgreSQL).
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
from ledger.store.opening import StoreSource

#: The largest entry accepted (an entry is under 2 KB; its changed line may run longer).
MAX_BODY = 64 * 1024


def _now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def make_app(source: StoreSource, name: str) -> Starlette:
    """The league's ASGI app over the stores ``source`` opens."""

    def run(fn: Any) -> Any:
        """``fn(league)`` with a store of this thread's (a pooled connection held)."""
        store = source.open()
        with store.connected():
            return fn(League(store, name))

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
            return lg.submit(body.decode("utf-8", "replace"), at=_now())

        try:
            verdict = await run_in_threadpool(run, submit)
        except LeagueError as e:
            return JSONResponse({"status": "refused", "problem": str(e)}, status_code=400)
        return JSONResponse(verdict.as_dict(), status_code=409 if verdict.status == "refused" else 200)

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

    return Starlette(routes=[
        Route("/", index),
        Route("/entries", entries, methods=["POST"]),
        Route("/characters/{passport:str}", character),
        Route("/refused", refused),
        Route("/checkpoint", checkpoint),
    ])  # fmt: skip
