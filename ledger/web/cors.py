"""Cross-origin calls to the JSON API (``campaign serve --api-origin ORIGIN``): a Foundry
module or an Owlbear Rodeo extension calls ``/api/v1`` from its own page.

None by default. For each origin the GM lists, and under ``/api/v1`` only (the pages, the
live log and the phones' witness never answer another origin):

- a preflight (``OPTIONS`` with ``Access-Control-Request-Method``) is answered with the
  methods (:data:`METHODS`) and request headers (:data:`HEADERS`: ``Authorization`` for the
  bearer token, ``Content-Type``) the API takes; one asking for another is refused (400, a
  problem document);
- a response carries ``Access-Control-Allow-Origin`` naming that origin (never ``*``) and
  exposes :data:`EXPOSED`;
- no ``Access-Control-Allow-Credentials``: the API takes bearer tokens, never cookies.

A request from an origin not listed gets no CORS header at all (its preflight falls through
to the API, which takes no ``OPTIONS``: 405), so the browser keeps the page out. Every API
response says ``Vary: Origin`` while origins are listed, so no cache hands one origin's
answer to another. Starlette's :class:`~starlette.middleware.cors.CORSMiddleware` does the
answering.
"""

from __future__ import annotations

import urllib.parse
from collections.abc import Iterable
from typing import Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import Response

#: The path the CORS answers are scoped to.
API_PREFIX = "/api/v1"
#: The methods a listed origin may use.
METHODS = ("GET", "HEAD", "POST")
#: The request headers a listed origin may send (beyond the CORS-safelisted ones).
HEADERS = ("Authorization", "Content-Type")
#: The response headers a listed origin's script may read (beyond the safelisted ones).
EXPOSED = ("ETag", "Retry-After")
#: Seconds a browser may keep a preflight's answer.
MAX_AGE = 600
_DEFAULT_PORTS = {"http": 80, "https": 443}


def check_origin(text: str) -> str:
    """``text`` as an origin the way browsers send it in ``Origin``: ``scheme://host`` or
    ``scheme://host:port``, scheme and host in lower case, the default port dropped (a
    trailing ``/`` is dropped too).

    :raises ValueError: not an http(s) origin (a path, a query, a user, ``*``, ``null``),
        in one line saying what to give instead.
    """
    example = "e.g. https://foundry.example.org or http://localhost:30000"
    if text.strip() == "*":
        raise ValueError(
            "'*' would let every web page call the API: list each origin instead "
            f"(repeat --api-origin), {example}"
        )
    bad = ValueError(
        f"{text[:80]!r} is not an origin: give scheme://host[:port], without a path, {example}"
    )
    if any(ch.isspace() or not ch.isprintable() for ch in text):
        raise bad
    parts = urllib.parse.urlsplit(text)
    try:
        port = parts.port
    except ValueError:
        raise bad from None
    scheme = parts.scheme.lower()
    if (
        scheme not in _DEFAULT_PORTS
        or not parts.hostname
        or parts.path not in ("", "/")
        or parts.query
        or parts.fragment
        or "@" in parts.netloc
    ):
        raise bad
    host = parts.hostname  # lower case
    if ":" in host:
        host = f"[{host}]"
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        host = f"{host}:{port}"
    return f"{scheme}://{host}"


def _in_api(path: str) -> bool:
    return path == API_PREFIX or path.startswith(API_PREFIX + "/")


class _Answering(CORSMiddleware):
    """Starlette's CORS answers, a refused preflight as a problem document."""

    def preflight_response(self, request_headers: Headers) -> Response:
        answer = super().preflight_response(request_headers)
        if answer.status_code == 200:
            return answer
        from ledger.web.api.app import problem

        refused = problem(
            400,
            "this cross-origin request asks for a method or header the API does not take: "
            f"methods {', '.join(METHODS)}; headers {', '.join(HEADERS)}",
        )
        for name, value in answer.headers.items():
            if name.startswith("access-control-") or name == "vary":
                refused.headers[name] = value
        return refused


class ApiCors:
    """ASGI middleware: CORS on ``/api/v1`` for ``origins`` (each as :func:`check_origin`
    gives it), nothing anywhere else; see the module's docs."""

    def __init__(self, app: Any, origins: Iterable[str]) -> None:
        self.app = app
        self.origins = frozenset(origins)
        self.cors = _Answering(
            app,
            allow_origins=sorted(self.origins),
            allow_methods=METHODS,
            allow_headers=HEADERS,
            allow_credentials=False,
            expose_headers=EXPOSED,
            max_age=MAX_AGE,
        )

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not self.origins or not _in_api(scope["path"]):
            await self.app(scope, receive, send)
            return
        if Headers(scope=scope).get("origin") in self.origins:
            await self.cors(scope, receive, send)
            return

        async def vary_origin(message: Any) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                headers = MutableHeaders(scope=message)
                headers.add_vary_header("Origin")
            await send(message)

        await self.app(scope, receive, vary_origin)
