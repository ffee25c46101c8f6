"""What the web view's pages share with the server: templates, the session cookie, the viewer of a
request, form reading and CSRF checks, error pages and redirects.

Kept apart from :mod:`ledger.web.app` (the server and its routes) so that the pages
(:mod:`ledger.web.pages`) and the in-browser verifier use them without importing the server
that imports them (a page names the server, :class:`ledger.web.app.Server`, in annotations
only: an import made for type checking).
"""

from __future__ import annotations

import functools
import hmac
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

import msgspec
from starlette.concurrency import run_in_threadpool
from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from ledger.web import access as accessmod
from ledger.web import sessions as sessionsmod
from ledger.web.sessions import Session

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign
    from ledger.web.app import Server


HERE = Path(__file__).resolve().parent


class SeqConvertor(Convertor[int]):
    """A path's seq or session number (``{seq:seq}``): 1 to 18 digits, so a number SQLite's
    64-bit integers cannot hold (``/audit/9223372036854775808``) matches no route and is a
    404, never an overflow inside a query (found by schemathesis)."""

    regex = "[0-9]{1,18}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


register_url_convertor("seq", SeqConvertor())


COOKIE = "ledger_session"


#: The largest request body accepted (bytes): a roll form is a few hundred.
MAX_BODY = 16 * 1024


#: The largest passport file the GM's page takes (bytes; ``POST /gm/join`` only): a
#: character's 200 sessions fit with room to spare.
MAX_UPLOAD = 16 * 1024 * 1024
#: The paths whose bodies may be as large as :data:`MAX_UPLOAD`.
UPLOAD_PATHS = frozenset({"/gm/join"})

#: The longest form value accepted (characters).
MAX_VALUE = 1000


#: How long a browser keeps the session cookie (400 days, browsers' longest); the server
#: ends the session itself when it is idle (:attr:`SessionPolicy.idle_seconds`).
COOKIE_MAX_AGE = 400 * 24 * 3600


#: Log entries a page shows at most (the newest; the live stream adds to them).
PAGE_ENTRIES = 1000


@functools.cache
def environment() -> Any:
    """The web view's jinja2 environment: its own templates, then the package's (the recap
    is rendered by :mod:`ledger.history.recap`'s template). Autoescaping is on; every string goes
    through :func:`ledger.text.printable` (no invisible character reaches a page)."""
    import jinja2

    from ledger.text import printable

    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(
            [jinja2.PackageLoader("ledger.web", "templates"), jinja2.PackageLoader("ledger")]
        ),
        autoescape=True,
        finalize=lambda v: printable(v) if type(v) is str else v,  # Markup passes as it is
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["my_characters"] = my_characters  # the header's character switcher
    return env


def my_characters(campaign: Campaign, viewer: Viewer) -> dict[str, str]:
    """``{character id: name}`` the viewer plays (:func:`ledger.web.access.characters_of`),
    for the header's character switcher; none for the GM, who plays no one."""
    if viewer.as_gm:
        return {}
    return accessmod.characters_of(campaign, viewer.access)


def render(template: str, **context: Any) -> str:
    """A template of the web view rendered with ``context``."""
    return str(environment().get_template(template).render(**context))


@dataclass(frozen=True)
class Viewer:
    """Who a request comes from: a live access link, its session (in the store) and the
    session's CSRF token."""

    access: accessmod.Access
    csrf: str
    session: Session

    @property
    def as_gm(self) -> bool:
        """The GM's view?"""
        return self.access.is_gm


class FormError(Exception):
    """A form that cannot be read (too large, too many fields, not a form)."""


ERROR_TEXT = {
    400: "That request could not be read.",
    403: "Open the link your GM gave you to see this table.",
    404: "There is nothing here.",
    405: "That is not something this page does.",
    413: "That request is too large.",
}


COOKIE_OPTIONS: dict[str, Any] = {"httponly": True, "samesite": "strict", "path": "/"}


#: The HTTP status of each reason a roll or an answer is refused
#: (:data:`ledger.errors.Reason`); any other is 422.
REFUSED_STATUS = {"missing": 404, "closed": 409, "conflict": 409}


def error_page(status: int, text: str, *, login: bool = False) -> HTMLResponse:
    """A generic error page: its status and one sentence, nothing about the campaign
    (``login``: with how to get in)."""
    return HTMLResponse(render("error.html.j2", text=text, login=login), status_code=status)


def login_hint() -> HTMLResponse:
    """What a request without a live session gets: how to get in, nothing else."""
    return error_page(403, ERROR_TEXT[403], login=True)


async def read_form(request: Request) -> dict[str, str]:
    """An ``application/x-www-form-urlencoded`` body of at most :data:`MAX_BODY` bytes and
    40 fields, each value at most :data:`MAX_VALUE` characters; a repeated field keeps its
    last value.

    :raises FormError: anything else.
    """
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise FormError("send the form as the page does")
    declared = request.headers.get("content-length", "0")
    if not declared.isdigit() or int(declared) > MAX_BODY:
        raise FormError("the form is too large")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise FormError("the form is too large")
    try:
        pairs = parse_qsl(
            body.decode("utf-8"), keep_blank_values=True, max_num_fields=40, strict_parsing=False
        )
    except (UnicodeDecodeError, ValueError):
        raise FormError("the form could not be read") from None
    out: dict[str, str] = {}
    for key, value in pairs:
        if len(value) > MAX_VALUE or len(key) > 100:
            raise FormError(f"a value is longer than {MAX_VALUE} characters")
        out[key] = value
    return out


def same_origin(request: Request) -> bool:
    """Does the request come from this site's own pages? Its ``Origin`` (or, without one,
    its ``Referer``) must name the host the request was sent to."""
    host = request.headers.get("host", "")
    claimed = request.headers.get("origin") or request.headers.get("referer") or ""
    if not claimed or claimed == "null" or not host:
        return False
    return urlsplit(claimed).netloc.lower() == host.lower()


def check_csrf(request: Request, viewer: Viewer, form: dict[str, str]) -> bool:
    """Is this POST from the viewer's own page: same origin and the session's CSRF token
    (compared in constant time)?"""
    token = form.get("csrf", "")
    return same_origin(request) and hmac.compare_digest(token.encode(), viewer.csrf.encode())


def new_session(server: Server, access: accessmod.Access, request: Request) -> str:
    """A new session for a live link, kept in the store (:func:`ledger.web.sessions.sign_in`:
    a random 256-bit id, stored as its sha256, labelled with the device the request's
    ``User-Agent`` names); returns the id for the cookie."""
    campaign = server.campaign()
    device = sessionsmod.device_label(request.headers.get("user-agent", ""))
    sid, _ = sessionsmod.sign_in(
        campaign.store, campaign.id, access.id, device, server.clock(), server.policy
    )
    return sid


def check_device_write(server: Server, viewer: Viewer, form: dict[str, str]) -> None:
    """Before any work on a device's write (a roll, an answer): the form's one-time nonce
    unused and, for a player, the device's write allowance not spent
    (:func:`ledger.web.sessions.check_nonce`, :func:`~ledger.web.sessions.check_write`). The
    write checks both again in its own transaction (:func:`device_write`).

    :raises FormUsed: the form was sent already. :raises SlowDown: past the write limit.
    """
    campaign = server.campaign()
    sessionsmod.check_nonce(campaign.store, viewer.session, form.get("nonce", ""))
    if not viewer.as_gm:
        sessionsmod.check_write(
            campaign.store, campaign.id, viewer.session, server.clock(), server.policy
        )


def device_write(server: Server, viewer: Viewer, form: dict[str, str]) -> Any:
    """What a device's write does inside its own transaction, as a callable (the ``also`` of
    :mod:`ledger.campaign.entering`): use the form's nonce and, for a player, spend one
    write of the device's allowance, so the nonce, the allowance and the write are all or
    nothing (a refused write costs nothing)."""
    campaign = server.campaign()
    store, moment = campaign.store, server.clock()

    def also() -> None:
        sessionsmod.use_nonce(store, viewer.session, form.get("nonce", ""), moment)
        if not viewer.as_gm:
            sessionsmod.spend_write(store, campaign.id, viewer.session, moment, server.policy)

    return also


def redirect(url: str) -> Response:
    """A 303 to a path of this site."""
    return RedirectResponse(url, status_code=303)


def json_script(value: Any) -> str:
    """A value as JSON for a ``data-`` attribute (escaped by the template)."""
    return msgspec.json.encode(value).decode()


run_sync = run_in_threadpool
