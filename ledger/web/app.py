"""The ``campaign serve`` app: Starlette routes over one campaign of a ledger file.

Who sees what (docs/trust.md "A player's view never holds a GM fact"; docs/serve.md):

- Nothing without a session: a request without one gets a login hint (403) and nothing
  else. A capability link ``/a/TOKEN`` (:mod:`ledger.web.access`) is exchanged for a
  session cookie (``HttpOnly``, ``SameSite=Strict``), the session kept in the store, hashed
  (:mod:`ledger.web.sessions`: idle expiry, ``/logout``, a bound per link), so a restart
  logs nobody out; the link is looked up again on every request and every live-stream
  wake-up, so a revoked link stops at once.
- A player's session reads only the player view: the log, sheets, recaps, audits and the
  export go through the same functions as ``campaign ... --as player`` (GM-only events are
  skipped before anything is rendered). The GM's session reads the GM view, GM-only lines
  marked.
- Writes, each through the same code as its ``campaign`` command and recorded with the
  viewer as actor: a player enters physical dice for the characters they play
  (:mod:`ledger.web.roll_form`, the :meth:`ledger.campaign.aggregate.Campaign.roll` of
  ``campaign roll``) and answers the GM's roll requests (:mod:`ledger.web.answers`), at
  most a burst and then a steady rate per device (:class:`SessionPolicy`); a phone cosigns
  the campaign's checkpoints (``/cosignature``, :mod:`ledger.web.witness_api`); the GM also
  rolls engine dice, blind or not, unlimited, and runs the night from the GM's page
  (:mod:`ledger.web.gm`: damage, the rule system's events, roll requests, undo, devices
  signed out and links issued); the JSON API's writes are described in :mod:`ledger.web.api`.
  Each form carries a one-time nonce: a form sent twice is recorded once. Reading a page
  never writes to the log.

Security: every POST checks a CSRF token bound to the session and the ``Origin`` (or
``Referer``) host; request bodies are capped at :data:`MAX_BODY` bytes and form values at
:data:`MAX_VALUE` characters; every response carries a Content-Security-Policy that runs
only the package's own script files; error pages are generic. The live log is server-sent
events with the event's ``seq`` as id; the server notices appends by any process (and
links issued or revoked) by looking at the campaign's head and links every
:data:`POLL_SECONDS` (:class:`Hub`, on SQLite and PostgreSQL alike), and its own writes at
once through the ``event_appended`` listener hook (:class:`Listener`), both in
:mod:`ledger.web.live`. An open stream sends a keep-alive comment every
:data:`KEEPALIVE_SECONDS` counted from when it opened, whatever else happens, so their
timing tells a player nothing about GM-only appends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import weakref
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import datetime
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ledger.errors import CommitUnknown, StoreUnavailable
from ledger.store.opening import StoreSource
from ledger.web import access as accessmod
from ledger.web import sessions as sessionsmod
from ledger.web.common import (
    COOKIE,
    ERROR_TEXT,
    HERE,
    MAX_BODY,
    MAX_UPLOAD,
    UPLOAD_PATHS,
    Viewer,
    environment,
    error_page,
)
from ledger.web.live import POLL_BACKOFF_MAX, POLL_SECONDS, Hub, Listener, mark
from ledger.web.sessions import SessionPolicy

logger = logging.getLogger(__name__)

__all__ = [
    "CSP",
    "DB_WAIT_SECONDS",
    "KEEPALIVE_SECONDS",
    "POLL_BACKOFF_MAX",
    "POLL_SECONDS",
    "SECURITY_HEADERS",
    "STORE_ERROR_TEXT",
    "Hub",
    "Listener",
    "SecurityHeaders",
    "Server",
    "create_app",
    "mark",
    "sheet_css",
]

#: How long a request waits for a working PostgreSQL connection before the 503 page.
DB_WAIT_SECONDS = 5.0
#: seconds :meth:`Server.attempt` waits before each try after the first fails with the
#: database gone: the second try runs at once, the third 0.2 s later
RETRY_PAUSES = (0.0, 0.2)
#: Seconds between an open live stream's keep-alive comments (a fixed cadence from the
#: stream's start: a wake-up that sends nothing does not move the next one).
KEEPALIVE_SECONDS = 15.0
#: The policy of every page: scripts only from the server's own files, nothing inline.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "worker-src 'self'; manifest-src 'self'"
)
SECURITY_HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cache-control": "no-store",
}


def sheet_css(request: Request) -> Response:
    """``/sheet.css``: the sheets' stylesheet, the ``sheet_css`` macro of the sheet template
    ``sheet --format html`` uses (the CSP allows no inline style, so pages link it). It holds
    no campaign data: served without a session, like ``/static``."""
    from ledger.templating import environment as core_environment

    css = str(core_environment().get_template("sheet.html.j2").module.sheet_css())
    return Response(css, media_type="text/css", headers={"cache-control": "no-cache"})


class Server:
    """The state of one running web view: the ledger file, its campaign, the sessions.

    On PostgreSQL the request threads share one pool of connections, each checked as it is
    borrowed (:class:`~ledger.store.base.StoreSource`), and every piece of a request's work
    runs through :meth:`attempt`: tried again on a fresh connection when the database went
    away and nothing was written, else answered with a clear 503 page.

    :param db_path: the ledger: a SQLite file or a ``postgresql://`` URL (as ``--db``).
    :param campaign_id: which campaign (``None``: the only one in the ledger).
    :param poll_interval: seconds between looks for other processes' appends.
    :param application_name: how ``pg_stat_activity`` names the server's PostgreSQL
        connections (unless the URL names them: ``?application_name=...``).
    :param db_wait: seconds a request waits for a working PostgreSQL connection.
    :param policy: sessions' idle expiry, devices per link, write limits
        (:class:`~ledger.web.sessions.SessionPolicy`; its defaults when ``None``).
    :param clock: the current time, an aware UTC ``datetime`` (sessions, write limits,
        nonces); :func:`ledger.web.sessions.utcnow` by default.
    :param monotonic: seconds on a monotonic clock (the live stream's keep-alive cadence);
        :func:`time.monotonic` by default.
    :param keepalive: seconds between an open stream's keep-alive comments.
    :param api_origins: the origins whose pages may call ``/api/v1`` across origins
        (:mod:`ledger.web.cors`, each as :func:`~ledger.web.cors.check_origin` gives it;
        none by default).
    """

    def __init__(
        self,
        db_path: str,
        campaign_id: str | None = None,
        *,
        poll_interval: float = POLL_SECONDS,
        application_name: str = "campaign serve",
        db_wait: float = DB_WAIT_SECONDS,
        policy: SessionPolicy | None = None,
        clock: Callable[[], datetime] | None = None,
        monotonic: Callable[[], float] | None = None,
        keepalive: float = KEEPALIVE_SECONDS,
        api_origins: Sequence[str] = (),
    ) -> None:
        self.db_path = db_path
        self.campaign_id = campaign_id
        self.stores = StoreSource(db_path, application_name=application_name, wait=db_wait)
        self.hub = Hub(db_path, poll_interval, campaign_id, open_store=self.stores.own)
        self.policy = policy or SessionPolicy()
        self.clock: Callable[[], datetime] = clock or sessionsmod.utcnow
        self.monotonic: Callable[[], float] = monotonic or time.monotonic
        self.keepalive = keepalive
        self.api_origins = tuple(api_origins)
        #: the campaign objects this server opened (one per thread): their writes wake the
        #: streams through :class:`Listener`
        self.own_campaigns: weakref.WeakSet[Any] = weakref.WeakSet()
        self._stores: list[Any] = []  # every connection opened, closed when the app stops
        self._local = threading.local()
        self.app = self._build()

    # --- the ledger, one connection per thread ----------------------------------------------

    def campaign(self) -> Any:
        """This thread's :class:`~ledger.campaign.aggregate.Campaign` (its own store: a SQLite
        connection, or one drawing on the server's PostgreSQL pool, used inside
        :meth:`attempt`)."""
        from ledger.campaign.aggregate import open_campaign

        local = self._local
        if getattr(local, "campaign", None) is None:
            store = self.stores.open()
            self._stores.append(store)
            with store.connected():
                local.campaign = open_campaign(store, self.campaign_id)
            self.own_campaigns.add(local.campaign)
        campaign = local.campaign
        campaign.__dict__.pop("_cli_names", None)  # names may have changed since
        return campaign

    def close(self) -> None:
        """Close the connections the request threads opened (when the app stops). A
        PostgreSQL connection closes from any thread; a SQLite one only from its own, so
        those that refuse are left to be closed with their thread's objects."""
        stores, self._stores = self._stores, []
        for store in stores:
            with contextlib.suppress(Exception):
                store.close()
        self.stores.close()

    def end_streams(self) -> None:
        """End every live stream (:meth:`ledger.web.live.Hub.end`), on the event loop, as
        the server starts to shut down (:class:`ledger.web.server.StreamEndingServer`)."""
        self.hub.end()

    def attempt(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` on this thread's campaign with a working connection held
        (:meth:`~ledger.store.base.EventStore.connected`: a pooled one is checked as it is
        borrowed), run again on a fresh connection when the database went away and nothing
        was written (:class:`~ledger.errors.StoreUnavailable`): at once, and after each
        pause of :data:`RETRY_PAUSES` (a server that ends its connections ends them one by
        one, so the pool's next one may be on its way out too). Every request's work goes
        through it; run it in a worker thread (:func:`run_sync`).

        :raises StoreUnavailable: the last try failed too (the app answers 503).
        :raises CommitUnknown: a write whose outcome could not be learned (not retried: it
            may be stored; the app answers 503 with what to do).
        """
        for pause in RETRY_PAUSES:
            try:
                return self._attempt(fn, args)
            except StoreUnavailable as e:
                logger.warning("a request lost the database (%s); trying it again", e)
                time.sleep(pause)
        return self._attempt(fn, args)

    def _attempt(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
        with self.campaign().store.connected():
            return fn(*args)

    # --- sessions ---------------------------------------------------------------------------

    def viewer(self, request: Request) -> Viewer | None:
        """The request's live session, or ``None`` (no cookie, unknown, signed out, idle too
        long, or its link revoked): looked up in the store (:func:`ledger.web.sessions.find`),
        so any server over the same store knows it.

        :raises StoreUnavailable: the session or link could not be looked up (never read as
            revoked: the session stays).
        """
        sid = request.cookies.get(COOKIE, "")
        campaign = self.campaign()
        found = sessionsmod.find(campaign.store, campaign.id, sid, self.clock(), self.policy)
        if found is None:
            return None
        live = accessmod.still_live(campaign.store, campaign.id, found.access_id)
        if live is None:
            return None
        return Viewer(live, sessionsmod.csrf_of(sid), found)

    def gone(self, viewer: Viewer) -> str:
        """Why the viewer may no longer be served: ``"revoked"`` (the link was revoked or
        replaced), ``"ended"`` (the session was signed out or gave way), or ``""`` (still
        live)."""
        campaign = self.campaign()
        store = campaign.store
        if accessmod.still_live(store, campaign.id, viewer.access.id) is None:
            return "revoked"
        if not sessionsmod.still_on(store, campaign.id, viewer.session):
            return "ended"
        return ""

    def still_live(self, viewer: Viewer) -> bool:
        """Are the viewer's link and session still live (not revoked, not signed out)?

        :raises StoreUnavailable: it could not be looked up (not an answer: ask again).
        """
        return not self.gone(viewer)

    # --- the app ----------------------------------------------------------------------------

    def _build(self) -> Starlette:
        from ledger.web import answers, gm, offline, pages, phone, roll_form, witness_api
        from ledger.web.api import app as api

        @contextlib.asynccontextmanager
        async def lifespan(app: Starlette) -> AsyncIterator[None]:
            from ledger.rules.plugins import pm

            self.hub.start(asyncio.get_running_loop())
            listener = Listener(self.hub, self.own_campaigns)
            pm.register(listener)
            try:
                yield
            finally:
                pm.unregister(listener)
                self.hub.stop()
                self.close()

        routes = [
            Route("/", pages.home(self)),
            Route("/a/{token}", pages.link(self)),
            Route("/logout", pages.logout(self), methods=["POST"]),
            Route("/log", pages.log(self)),
            Route("/events", pages.events(self)),
            Route("/sheet/{character}", pages.sheet(self)),
            Route("/sheet/{character}/part", pages.sheet_part(self)),
            Route("/sheet.css", sheet_css),
            Route("/manifest.webmanifest", offline.manifest(self)),  # installable
            Route("/sw.js", offline.service_worker),
            Route("/recap/{number:seq}", pages.recap(self)),
            Route("/audit/{seq:seq}", pages.audit(self)),
            Route("/roll/{character}", roll_form.roll(self), methods=["GET", "POST"]),
            Route("/roll/{character}/preview", roll_form.preview(self)),
            Route("/requests/part", answers.requests_part(self)),
            Route("/answer/{seq:seq}", answers.answer(self), methods=["POST"]),
            Route("/gm", gm.gm_page(self)),  # the GM's page
            Route("/gm/{action}", gm.gm_post(self), methods=["POST"]),
            Route("/export.ndjson", pages.export(self)),
            Route("/verify", pages.verify_page(self)),
            Route("/verifier.html", pages.verifier_download(self)),
            Route("/checkpoint", witness_api.checkpoint(self)),  # the phones' witness
            Route("/proof/consistency", witness_api.consistency(self)),
            Route("/proof/inclusion", witness_api.inclusion(self)),
            Route("/cosignature", witness_api.cosignature(self), methods=["POST"]),
            Route("/chronicle", witness_api.chronicle_entries(self)),  # the phones cosign
            Route(
                "/chronicle/cosignature", witness_api.chronicle_cosignature(self), methods=["POST"]
            ),
            api.mount(self),  # the JSON API
            Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
        ]
        # the phones witness checkpoints (static/phone-witness.js) where the server serves them
        serves = any(getattr(r, "path", "") == "/checkpoint" for r in routes)
        environment().globals["witness"] = phone.witnessed if serves else None
        handlers: dict[Any, Callable[..., Any]] = {
            HTTPException: _http_error,
            StoreUnavailable: _store_error,
            CommitUnknown: _store_error,
            Exception: _server_error,
        }
        app = Starlette(routes=routes, exception_handlers=handlers, lifespan=lifespan)
        app.add_middleware(BodyCap)  # inside SecurityHeaders: a 413 carries them too
        if self.api_origins:  # outside BodyCap, inside SecurityHeaders: a preflight's answer
            from ledger.web.cors import ApiCors  # and a 413 get both

            app.add_middleware(ApiCors, origins=self.api_origins)
        app.add_middleware(SecurityHeaders)
        return app


class SecurityHeaders:
    """ASGI middleware: the CSP and the other security headers on every response (a
    response's own ``content-security-policy`` is kept), and uvicorn's ``server`` header
    left out."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k != b"server"]
                names = {k.lower() for k, _ in headers}
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", CSP.encode()))
                for k, v in SECURITY_HEADERS.items():
                    if k.encode() not in names:
                        headers.append((k.encode(), v.encode()))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class TooLarge(HTTPException):
    """A request body read past :data:`MAX_BODY` bytes (answered 413 by the app's error
    handler: a problem document under ``/api/``, the error page elsewhere)."""

    def __init__(self) -> None:
        super().__init__(413)


class BodyCap:
    """ASGI middleware: request bodies of at most :data:`MAX_BODY` bytes (a passport
    uploaded to the GM's page, :data:`~ledger.web.common.UPLOAD_PATHS`: at most
    :data:`~ledger.web.common.MAX_UPLOAD`). A declared
    ``Content-Length`` over it is answered 413 before the body is read; a body sent without
    one is stopped as soon as it passes the cap (:class:`TooLarge` raised from ``receive``).
    Either way the answer is the app's own (:func:`_http_error`), never a bare text."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap = MAX_UPLOAD if scope.get("path") in UPLOAD_PATHS else MAX_BODY
        declared = Request(scope).headers.get("content-length", "")
        if declared.strip().isdigit() and int(declared) > cap:
            response = await _http_error(Request(scope), TooLarge())
            await response(scope, receive, send)
            return
        total = 0

        async def capped() -> Any:
            nonlocal total
            message = await receive()
            if message["type"] == "http.request":
                total += len(message.get("body", b""))
                if total > cap:
                    raise TooLarge()
            return message

        await self.app(scope, capped, send)


def _api_problem(request: Request, status: int, text: str) -> Response | None:
    """Under ``/api/`` an error is an RFC 9457 problem document, never the HTML page (a path
    no API route matches, a wrong method, an outage): ``None`` elsewhere."""
    if not request.url.path.startswith("/api/"):
        return None
    from ledger.web.api.app import problem

    return problem(status, text)


async def _http_error(request: Request, exc: Exception) -> Response:
    """Starlette's HTTP errors (404, 405, ...) as a generic error page, with the headers
    the error carries (a 405's ``Allow``: the methods the path answers)."""
    status = getattr(exc, "status_code", 500)
    text = ERROR_TEXT.get(status, "Something went wrong.")
    response = _api_problem(request, status, text) or error_page(status, text)
    for name, value in (getattr(exc, "headers", None) or {}).items():
        response.headers[name] = value
    return response


#: What a request is told when the database is out of reach (:class:`StoreUnavailable`: nothing
#: was written) or went away while a write committed (:class:`CommitUnknown`).
STORE_ERROR_TEXT = {
    StoreUnavailable: "The table's database cannot be reached just now, so nothing was saved: "
    "try again in a moment.",
    CommitUnknown: "The database went away while this was being saved, so it may or may not "
    "have been recorded: look at the live log before sending it again.",
}


async def _store_error(request: Request, exc: Exception) -> Response:
    """The database out of reach: a 503 page saying whether anything may have been saved
    (:data:`STORE_ERROR_TEXT`), never the login hint (a link is not revoked by an outage)."""
    text = STORE_ERROR_TEXT[CommitUnknown if isinstance(exc, CommitUnknown) else StoreUnavailable]
    response = _api_problem(request, 503, text) or error_page(503, text)
    response.headers["retry-after"] = "5"
    return response


async def _server_error(request: Request, exc: Exception) -> Response:
    """A generic 500 page (the exception is never shown)."""
    text = "Something went wrong."
    return _api_problem(request, 500, text) or error_page(500, text)


def create_app(db_path: str, campaign_id: str | None = None, **kwargs: Any) -> Starlette:
    """The ASGI app serving ``campaign_id`` of the ledger at ``db_path``
    (:class:`Server` keeps its state; ``app.state.server`` is it)."""
    server = Server(db_path, campaign_id, **kwargs)
    server.app.state.server = server
    return server.app
