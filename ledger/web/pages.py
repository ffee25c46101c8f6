"""The routes of ``campaign serve``, one factory per page: each takes the
:class:`ledger.web.app.Server` and returns the Starlette endpoint. Most pages are a
function of the campaign, the viewer and the request made into such a factory by
:func:`viewed` (the login hint for a request without a live session); the link exchange,
the live stream and the roll form are written out.

Every read goes through the player-view functions the CLI uses (``records(as_gm=False)``,
``state_of(..., as_gm=False)``, ``build_recap(..., as_gm=False)``, ``audit(...,
as_gm=False)``, ``export_lines(..., as_gm=False)``) unless the viewer is the GM.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response, StreamingResponse

from ledger.errors import StoreUnavailable
from ledger.events import SessionAbandoned, SessionEnded, SessionStarted
from ledger.web import access as accessmod
from ledger.web import sessions as sessionsmod
from ledger.web.common import (
    COOKIE,
    COOKIE_MAX_AGE,
    COOKIE_OPTIONS,
    FormError,
    Viewer,
    check_csrf,
    error_page,
    login_hint,
    new_session,
    read_form,
    render,
    run_sync,
)
from ledger.web.logview import entry as entry  # importable from here, as in an earlier release
from ledger.web.logview import entry_html as entry_html
from ledger.web.logview import log_entries as log_entries  # api/app.py imports it here
from ledger.web.logview import log_page
from ledger.web.logview import stub_entry as stub_entry

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign
    from ledger.web.app import Server

Endpoint = Callable[[Request], Any]
#: A page as :func:`viewed` takes it: ``(campaign, viewer, request) -> response``.
View = Callable[[Any, Viewer, Request], Response]


def _not_found() -> Response:
    return error_page(404, "There is nothing here.")


def page(viewer: Viewer, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """A page of the site, rendered for ``viewer``."""
    return HTMLResponse(render(template, viewer=viewer, **context), status_code=status)


def viewed(view: View) -> Callable[[Server], Endpoint]:
    """A page for a live session: ``view(campaign, viewer, request)`` made into a route's
    factory (``factory(server) -> endpoint``).

    The endpoint looks the session up (:meth:`Server.viewer`: a revoked link has none); a
    request without a live one gets :func:`login_hint` and ``view`` is not called. ``view``
    gets this thread's campaign (:meth:`Server.campaign`) and must read it in the viewer's
    view (``as_gm=viewer.as_gm``). The endpoint is synchronous: Starlette runs it in its
    thread pool, like :func:`run_sync`; it runs through :meth:`Server.attempt` (once more on
    a fresh connection when the database went away); an exception becomes the generic 500
    page, a database out of reach the 503 one.
    """

    @functools.wraps(view)
    def factory(server: Server) -> Endpoint:
        def run(request: Request) -> Response:
            viewer = server.viewer(request)
            if viewer is None:
                return login_hint()
            return view(server.campaign(), viewer, request)

        def endpoint(request: Request) -> Response:
            return server.attempt(run, request)

        return endpoint

    return factory


# --- reading helpers -------------------------------------------------------------------------


def sessions_of(campaign: Campaign) -> list[dict[str, Any]]:
    """Every session: ``number``, ``started``, ``closed`` (``None`` while open), ``how``."""
    out: dict[int, dict[str, Any]] = {}
    for rec in campaign.records(
        as_gm=False, types=["session.started", "session.ended", "session.abandoned"]
    ):
        assert isinstance(rec.data, SessionStarted | SessionEnded | SessionAbandoned)
        number = rec.data.number
        if rec.type == "session.started":
            out[number] = {"number": number, "started": rec.recorded_at, "closed": None, "how": ""}
        elif number in out:
            out[number]["closed"] = rec.recorded_at
            out[number]["how"] = "ended" if rec.type == "session.ended" else "abandoned"
    return list(out.values())


def _character(campaign: Campaign, viewer: Viewer, text: str) -> str | None:
    """The character id ``text`` names if the viewer may see it, else ``None``."""
    visible = accessmod.visible_characters(campaign, as_gm=viewer.as_gm)
    return text if text in visible else None


# --- pages -----------------------------------------------------------------------------------


@viewed
def home(campaign: Campaign, viewer: Viewer, request: Request) -> Response:
    """``/``: the campaign: characters (who plays whom), sessions, links."""
    names = accessmod.visible_characters(campaign, as_gm=viewer.as_gm)
    players: dict[str, str] = {}
    for player, chars in accessmod.players_of(campaign, as_gm=viewer.as_gm).items():
        for name in chars:
            players[name] = player
    mine = accessmod.characters_of(campaign, viewer.access)
    return page(
        viewer,
        "home.html.j2",
        campaign=campaign,
        characters=[
            {"id": cid, "name": name, "player": players.get(name), "mine": cid in mine}
            for cid, name in names.items()
        ],
        sessions=sessions_of(campaign),
        open_session=campaign.current_session(),
    )


def link(server: Server) -> Endpoint:
    """``/a/TOKEN``: a capability link exchanged for a session cookie (the session kept in
    the store, :func:`ledger.web.sessions.sign_in`), then on to ``/``."""

    def run(request: Request) -> Response:
        campaign = server.campaign()
        found = accessmod.find(campaign.store, campaign.id, request.path_params["token"])
        if found is None:
            return login_hint()
        sid = new_session(server, found, request)
        response = HTMLResponse(render("linked.html.j2", who=found.who))
        response.set_cookie(
            COOKIE,
            sid,
            max_age=COOKIE_MAX_AGE,
            secure=request.url.scheme == "https",
            **COOKIE_OPTIONS,
        )
        return response

    def endpoint(request: Request) -> Response:
        return server.attempt(run, request)

    return endpoint


#: What ``/logout`` says.
SIGNED_OUT = "You are signed out on this device. Open your link again to come back."


def logout(server: Server) -> Endpoint:
    """``POST /logout``: end this device's session (CSRF-checked like every form); the
    cookie is cleared and the session lets nobody in any more, on any server over the
    store. Open live streams of the session end at their next look."""

    async def endpoint(request: Request) -> Response:
        viewer = await run_sync(server.attempt, server.viewer, request)
        if viewer is None:
            return login_hint()
        try:
            form = await read_form(request)
        except FormError as e:
            return error_page(413, f"{e}.")
        if not check_csrf(request, viewer, form):
            return error_page(403, "This form did not come from this page: reload it.")

        def end() -> None:
            campaign = server.campaign()
            sessionsmod.sign_out(campaign.store, viewer.session, server.clock())

        await run_sync(server.attempt, end)
        response = error_page(200, SIGNED_OUT)
        response.delete_cookie(COOKIE, secure=request.url.scheme == "https", **COOKIE_OPTIONS)
        return response

    return endpoint


#: ``/log``: the live log (:func:`ledger.web.logview.log_page`).
log = viewed(log_page)


def _start_after(request: Request, head: int) -> int:
    text = request.headers.get("last-event-id") or request.query_params.get("after") or ""
    text = text.strip()
    if text.isdigit() and len(text) <= 18:
        return min(int(text), head)
    return head


#: The longest pause (seconds) of a live stream between looks while the ledger is out of
#: reach (it starts at half a second and doubles).
STREAM_BACKOFF_MAX = 5.0


def events(server: Server) -> Endpoint:
    """``/events``: server-sent events, one per new log line (``id`` = seq, ``event:
    entry``, ``data`` the line's HTML), from ``Last-Event-ID`` (or ``?after=SEQ``, else the
    head) on. The stream ends with ``event: revoked`` when the link is revoked, ``event:
    ended`` when the session ended (signed out on the device). While the database is out of
    reach the stream stays open (a comment now and then) and looks again, backing off up to
    :data:`STREAM_BACKOFF_MAX`; it goes on from the last entry it sent.

    Keep-alives (``: still here``) go out every :attr:`Server.keepalive` seconds counted from
    the stream's start, on :attr:`Server.monotonic`: a wake-up that sends the player
    nothing does not move the next one, so their timing says nothing about what the player
    cannot see. A GM-only append reaches a player as its stub (:func:`stub_entry`), as the
    table hears the GM roll behind the screen.

    What a wake-up sends is read and rendered once for every stream of the same view
    (:class:`ledger.web.feed.Feed`), and sent as one chunk."""
    from ledger.web.feed import Feed

    feed = Feed(server)

    def head() -> int:
        campaign = server.campaign()
        return int(campaign.store.head(campaign.id).seq)

    async def endpoint(request: Request) -> Response:
        viewer = await run_sync(server.attempt, server.viewer, request)
        if viewer is None:
            return login_hint()
        start = _start_after(request, await run_sync(server.attempt, head))

        async def stream() -> Any:
            after = start
            every = server.keepalive
            next_ping = server.monotonic() + every
            pause = 0.5
            fresh = True  # its link and session looked up in the store, not the shared look
            yield "retry: 1000\n\n"
            while not server.hub.ending:  # the server shutting down ends the stream
                seen = server.hub.generation
                try:
                    gone, out, after = await feed.frames(viewer, after, seen, fresh=fresh)
                except StoreUnavailable:  # not an answer about the link: wait and look again
                    yield ": waiting for the ledger\n\n"
                    await server.hub.wait(seen, pause)
                    pause = min(pause * 2, STREAM_BACKOFF_MAX)
                    continue
                pause = 0.5
                if gone:
                    yield f"event: {gone}\ndata: \n\n"
                    return
                if out:
                    yield "".join(out)
                left = next_ping - server.monotonic()
                fresh = not (left > 0 and await server.hub.wait(seen, left))
                if not fresh:
                    continue  # woken: new lines, perhaps; the next keep-alive stays put
                yield ": still here\n\n"
                next_ping += every
                late = server.monotonic() - next_ping
                if late >= 0:  # fell behind (a busy loop): the next slot of the same grid
                    next_ping += (late // every + 1) * every

        return StreamingResponse(
            stream(),
            media_type="text/event-stream",
            headers={"cache-control": "no-store", "x-accel-buffering": "no"},
        )

    return endpoint


def _sheet_html(campaign: Campaign, cid: str, as_gm: bool) -> str:
    """A character's sheet as an HTML fragment: the sheet the viewer may see
    (:func:`ledger.campaign.viewing.sheet_for`, as ``campaign sheet`` shows it) through the
    sheet template ``sheet --format html`` uses (its ``sheet_fragment`` macro), styled by
    ``/sheet.css`` alone: no ``<style>`` element, which the page's CSP refuses."""
    import msgspec

    from ledger.campaign.viewing import sheet_for
    from ledger.history.passports import before_section
    from ledger.templating import environment as core_environment

    layout = sheet_for(campaign, cid, as_gm=as_gm, save_snapshots=False)
    before = before_section(campaign, cid)  # a character who joined from a passport
    if before is not None:
        layout = msgspec.structs.replace(layout, sections=(*layout.sections, before))
    module = core_environment().get_template("sheet.html.j2").module
    return str(module.sheet_fragment(layout))


@viewed
def sheet(campaign: Campaign, viewer: Viewer, request: Request) -> Response:
    """``/sheet/ID``: one character's sheet, live (it reloads on every new log line)."""
    cid = _character(campaign, viewer, request.path_params["character"])
    if cid is None:
        return _not_found()
    mine = accessmod.characters_of(campaign, viewer.access)
    head = campaign.store.head(campaign.id).seq
    return page(
        viewer,
        "sheet.html.j2",
        campaign=campaign,
        cid=cid,
        name=campaign.characters()[cid],
        body=_sheet_html(campaign, cid, viewer.as_gm),
        mine=cid in mine,
        head=head,
    )


@viewed
def sheet_part(campaign: Campaign, viewer: Viewer, request: Request) -> Response:
    """``/sheet/ID/part``: the sheet's body alone (what the live page swaps in)."""
    cid = _character(campaign, viewer, request.path_params["character"])
    if cid is None:
        return _not_found()
    return HTMLResponse(_sheet_html(campaign, cid, viewer.as_gm))


@viewed
def recap(campaign: Campaign, viewer: Viewer, request: Request) -> Response:
    """``/recap/N``: session N's recap (the recap's own page, :mod:`ledger.history.recap`)."""
    import secrets

    from ledger.campaign.aggregate import NotFound
    from ledger.history.recap import build_recap
    from ledger.history.recap import render as render_recap

    try:
        data = build_recap(campaign, request.path_params["number"], as_gm=viewer.as_gm)
    except NotFound:
        return _not_found()
    html = render_recap(data, "html")
    nonce = secrets.token_urlsafe(16)
    html = html.replace("<style>", f'<style nonce="{nonce}">', 1)
    html = html.replace(
        "<main>",
        '<main><nav class="back" aria-label="Campaign"><a href="/">Campaign</a>'
        ' <a href="/log">Live log</a></nav>',
        1,
    )
    csp = (
        f"default-src 'none'; script-src 'self'; style-src 'self' 'nonce-{nonce}'; "
        "img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    )
    return HTMLResponse(html, headers={"content-security-policy": csp})


@viewed
def audit(campaign: Campaign, viewer: Viewer, request: Request) -> Response:
    """``/audit/SEQ``: everything about one event and its verdict (``campaign audit``)."""
    from ledger.errors import RuleError
    from ledger.history.audit import audit as run_audit

    seq = request.path_params["seq"]
    head = campaign.store.head(campaign.id).seq
    if not 1 <= seq <= head:
        return _not_found()
    try:
        result = run_audit(campaign, seq, as_gm=viewer.as_gm)
    except RuleError:  # a GM-only event, to a player: as if there were nothing
        return _not_found()
    data = result.pop("data")
    from ledger.web.facts import audit_facts

    said = audit_facts(campaign, result, data)
    return page(viewer, "audit.html.j2", campaign=campaign, a=result, said=said)


@viewed
def export(campaign: Campaign, viewer: Viewer, request: Request) -> Response:
    """``/export.ndjson``: the campaign's export in the viewer's view (a player's has stubs
    for GM-only events, as ``campaign export`` does)."""
    from ledger.exchange.ndjson import export_lines

    body = b"".join(export_lines(campaign.store, campaign.id, as_gm=viewer.as_gm))
    return Response(
        body,
        media_type="application/x-ndjson",
        headers={"content-disposition": 'attachment; filename="export.ndjson"'},
    )


@viewed
def verify_page(campaign: Campaign, viewer: Viewer, request: Request) -> Response:
    """``/verify``: the in-browser verifier (checks an export with WebCrypto only)."""
    return page(viewer, "verify.html.j2", campaign=campaign)


@viewed
def verifier_download(campaign: Campaign, viewer: Viewer, request: Request) -> Response:
    """``/verifier.html``: the verifier as one self-contained file to keep and open offline."""
    from ledger.web.verifier import verifier_html

    return Response(
        verifier_html(),
        media_type="text/html; charset=utf-8",
        headers={
            "content-disposition": 'attachment; filename="ledger-verifier.html"',
            "content-security-policy": "sandbox",
        },
    )


# --- writing: physical dice from a phone ---------------------------------------------------
