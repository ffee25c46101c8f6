"""The witness over HTTP (C2SP tlog-witness): ``campaign witness serve``.

Routes (the submission and monitoring prefixes are both the root):

- ``POST /add-checkpoint``: :meth:`ledger.witness.core.Witness.add_checkpoint`. A body
  over :data:`~ledger.witness.core.MAX_BODY` bytes is refused with 413 unread.
- ``GET /<sha256 of the origin, hex>/checkpoint``: the last checkpoint cosigned for it.
- ``GET /``: the witness's name and verifier key, in text, for people setting it up.

Each request's file work (lock, read, fsync, rename) runs in a worker thread, so the event
loop keeps answering. uvicorn is given a cap on concurrent connections and a keep-alive
timeout; behind a club's router that is enough (the table's own web view, ``campaign
serve``, is the part built for hostile networks).
"""

from __future__ import annotations

import socket
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from ledger.witness.core import MAX_BODY, Answer, Witness
from ledger.witness.state import WitnessError

#: Connections served at once; more get 503 from uvicorn.
MAX_CONNECTIONS = 64


def _response(answer: Answer) -> Response:
    # the header set as given: starlette would add "; charset=utf-8" to a text/* media type,
    # and C2SP asks for exactly "text/x.tlog.size" on a 409
    return Response(
        answer.body, status_code=answer.status, headers={"Content-Type": answer.content_type}
    )


async def _body(request: Request) -> bytes | None:
    """The request body, or ``None`` once it passes :data:`MAX_BODY` bytes (read no further)."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        return None
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def make_app(witness: Witness) -> Starlette:
    """The witness's ASGI app."""

    async def add_checkpoint(request: Request) -> Response:
        body = await _body(request)
        if body is None:
            return PlainTextResponse(f"request body over {MAX_BODY} bytes\n", status_code=413)
        try:
            answer = await run_in_threadpool(witness.add_checkpoint, body)
        except WitnessError as e:
            return PlainTextResponse(f"the witness cannot use its state: {e}\n", status_code=500)
        return _response(answer)

    async def checkpoint(request: Request) -> Response:
        answer = await run_in_threadpool(witness.checkpoint, request.path_params["origin"])
        return _response(answer)

    async def home(request: Request) -> Response:
        key = witness.cosigner.verifier.key()
        return PlainTextResponse(
            f"C2SP tlog-witness {witness.cosigner.name}\n"
            f"cosigner key (cosignature/v1): {key}\n"
            "POST /add-checkpoint; GET /<sha256 of origin>/checkpoint\n"
        )

    return Starlette(
        routes=[
            Route("/add-checkpoint", add_checkpoint, methods=["POST"]),
            Route("/{origin:str}/checkpoint", checkpoint, methods=["GET"]),
            Route("/", home, methods=["GET"]),
        ]
    )


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host``:``port`` (``0``: a free port;
    ``sock.getsockname()[1]`` says which).

    :raises WitnessError: the port is in use or not ours to use, or the host is not of this
        machine.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError as e:
        sock.close()
        raise WitnessError(
            f"cannot listen on {host}:{port}: {e.strerror or e} (choose another --port or --host)"
        ) from None
    sock.set_inheritable(True)
    return sock


def server(witness: Witness, **config: Any) -> Any:
    """A uvicorn server of the witness's app (not yet running); ``config`` overrides the
    defaults (no access log, :data:`MAX_CONNECTIONS`, 5 s keep-alive)."""
    import uvicorn

    options: dict[str, Any] = {
        "log_level": "warning",
        "access_log": False,
        "limit_concurrency": MAX_CONNECTIONS,
        "timeout_keep_alive": 5,
        "lifespan": "off",
    }
    options.update(config)
    return uvicorn.Server(uvicorn.Config(make_app(witness), **options))


def serve(witness: Witness, sock: socket.socket) -> None:
    """Serve the witness on a bound socket until interrupted (Ctrl-C)."""
    server(witness).run(sockets=[sock])
