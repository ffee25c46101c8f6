"""Running the web view on a shared network: uvicorn on sockets bound before any link
is issued, a cap on open connections, a deadline for each request, and a Host allowlist.

What a crowded or hostile network does to a plain uvicorn, and what this module does instead:

- **Bind first.** :func:`bind` opens the listening sockets before ``campaign serve`` issues a
  link, so a busy port fails with one line (:class:`BindError`) and nothing issued.
- **A cap on connections, deadlines, one line not a flood**: :mod:`ledger.web.guard`
  (:class:`Guard`, :func:`protocol_class`), which every connection passes through.
- **Host allowlist.** :class:`HostAllowlist` answers only requests whose ``Host`` names an
  address the server printed (or ``--url``'s), a loopback name, or the IP address the
  connection arrived at: a page elsewhere that points its own name at this machine (DNS
  rebinding) is refused.
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import socket
from collections.abc import Callable, Iterable
from typing import Any

import uvicorn

from ledger.web.guard import (
    HEADER_TIMEOUT,
    LOG_EVERY,
    RESOURCE_ERRNOS,
    Guard,
    GuardedConnection,
    GuardedH11Protocol,
    GuardedSocket,
    Slot,
    protocol_class,
)

__all__ = [
    "BACKLOG",
    "FD_RESERVE",
    "HEADER_TIMEOUT",
    "KEEP_ALIVE",
    "LOG_EVERY",
    "LOOPBACK_NAMES",
    "RESOURCE_ERRNOS",
    "BindError",
    "Guard",
    "GuardedConnection",
    "GuardedH11Protocol",
    "GuardedServer",
    "GuardedSocket",
    "HostAllowlist",
    "Slot",
    "StreamEndingServer",
    "bind",
    "connection_limit",
    "host_name",
    "protocol_class",
    "run",
]

#: Seconds an idle keep-alive connection stays open between requests (uvicorn's own timer).
KEEP_ALIVE = 5
#: The listen queue, and the most connections taken from it in one turn of the loop (a
#: burst past the cap is shed or refused in the same turn, so it costs no files).
BACKLOG = 2048
#: Open files kept free of connections: the request threads' database files (about 40
#: threads, three files each on SQLite), the event loop's own, the rest.
FD_RESERVE = 256
#: Host names a request may always give: this machine's loopback.
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


class BindError(Exception):
    """The server cannot listen where asked (a port in use, a privileged port, an address
    not of this machine). The message says what to do."""


class PortInUse(BindError):
    """The port asked for is in use by another program (``port`` is that port)."""

    def __init__(self, message: str, port: int) -> None:
        super().__init__(message)
        self.port = port


# --- binding ---------------------------------------------------------------------------------


def bind(host: str, port: int) -> list[socket.socket]:
    """Listening sockets for ``host`` (every address it resolves to: ``localhost`` gives
    127.0.0.1 and ::1) and ``port`` (``0``: a free one, the same on every address).

    :returns: the sockets, listening; ``sockets[0].getsockname()[1]`` is the port.
    :raises BindError: the port is in use or privileged, or the host is not of this machine.
    """
    try:
        infos = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except socket.gaierror:
        raise BindError(
            f"--host {host!r} is not an address of this machine: use 127.0.0.1, 0.0.0.0 "
            "(every interface) or one of its own addresses"
        ) from None
    sockets: list[socket.socket] = []
    seen: set[tuple[int, Any]] = set()
    try:
        for family, kind, proto, _name, address in infos:
            if (family, address[0]) in seen:
                continue
            seen.add((family, address[0]))
            if sockets:  # port 0: every address on the port the first one got
                address = (address[0], sockets[0].getsockname()[1], *address[2:])
            sock = socket.socket(family, kind, proto)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6 and hasattr(socket, "IPPROTO_IPV6"):
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.listen(BACKLOG)
    except OSError as e:
        for sock in sockets:
            sock.close()
        if e.errno == errno.EADDRINUSE:
            raise PortInUse(_bind_problem(e, host, port), port) from None
        raise BindError(_bind_problem(e, host, port)) from None
    return sockets


def _bind_problem(e: OSError, host: str, port: int) -> str:
    if e.errno == errno.EADDRINUSE:
        return (
            f"port {port} on {host} is in use (another `campaign serve`?): stop that server, "
            "or pick another --port"
        )
    if e.errno == errno.EACCES:
        return f"port {port} needs administrator rights here: pick a --port above 1023"
    if e.errno == errno.EADDRNOTAVAIL:
        return (
            f"{host} is not an address of this machine: use 127.0.0.1, 0.0.0.0 (every "
            "interface) or one of its own addresses"
        )
    return f"cannot listen on {host} port {port}: {e.strerror or e}"


def connection_limit(requested: int) -> int:
    """The connection cap that fits this process: ``requested``, lowered so that
    :data:`FD_RESERVE` and two files a connection fit under the soft open-file limit
    (``ulimit -n``): its own, and one more for a connection shed to make room for it (closed
    on the loop's next turn) or a static file being sent to it. At least 8."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows has no rlimits
        return requested
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return requested
    return max(8, min(requested, (soft - FD_RESERVE) // 2))


# --- the Host allowlist ----------------------------------------------------------------------


def host_name(value: str) -> str | None:
    """The host of a ``Host`` header, lower case, without port, brackets or a final dot
    (``None``: not a host)."""
    value = value.strip()
    if value.startswith("["):
        name, sep, rest = value[1:].partition("]")
        if not sep or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
            return None
    else:
        name, sep, port = value.rpartition(":") if ":" in value else (value, "", "")
        if sep and not port.isdigit():
            return None
    name = name.rstrip(".").lower()
    if not name or any(c in name for c in "/?#@ \\"):
        return None
    return name


def _ip(name: str) -> Any:
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


class HostAllowlist:
    """ASGI middleware: serve a request only when its ``Host`` header names one of
    ``hosts`` (the addresses the server printed, ``--url``'s host), a loopback name
    (:data:`LOOPBACK_NAMES`) or, as an IP address, the address the connection arrived at
    (a phone typing the laptop's address). The port is not compared. Anything else gets a
    400 page and reaches nothing of the app.

    :param app: the ASGI app (lifespan events pass through).
    :param hosts: host names or addresses, as in a URL.
    """

    def __init__(self, app: Any, hosts: Iterable[str]) -> None:
        self.app = app
        names = {host_name(h) for h in hosts}
        self.hosts = frozenset(n for n in names if n) | LOOPBACK_NAMES

    def allows(self, scope: dict[str, Any]) -> bool:
        """Does this request name a host the server answers to?"""
        values = [v for k, v in scope.get("headers", ()) if k == b"host"]
        if len(values) != 1:
            return False
        name = host_name(values[0].decode("latin-1"))
        if name is None:
            return False
        if name in self.hosts:
            return True
        server = scope.get("server") or ("",)
        asked = _ip(name)
        return asked is not None and asked == _ip(str(server[0]))

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket") and not self.allows(scope):
            from ledger.web.app import SecurityHeaders, error_page

            page = error_page(400, "This server answers only at the addresses it printed.")
            await SecurityHeaders(page)(scope, receive, send)
            return
        await self.app(scope, receive, send)


# --- running ---------------------------------------------------------------------------------


def stream_ender(app: Any) -> Callable[[], None] | None:
    """What ends ``app``'s live streams: ``app.state.server.end_streams``
    (:func:`ledger.web.app.create_app`'s app), or ``None`` for an app without them."""
    server = getattr(getattr(app, "state", None), "server", None)
    end = getattr(server, "end_streams", None)
    return end if callable(end) else None


class StreamEndingServer(uvicorn.Server):
    """A ``uvicorn.Server`` that ends the app's live streams (the phones' open logs,
    ``/events``) as it starts to shut down. Without it, Ctrl-C or SIGTERM waits out the
    graceful deadline for every open log, then cancels each stream with a traceback.

    :param config: uvicorn's configuration.
    :param end_streams: what ends the streams (default: :func:`stream_ender` of
        ``config.app``; an app without live streams is served as uvicorn serves it).
    """

    def __init__(
        self, config: uvicorn.Config, *, end_streams: Callable[[], None] | None = None
    ) -> None:
        super().__init__(config)
        self.end_streams = end_streams or stream_ender(config.app)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """End the live streams, then shut down as uvicorn does: the listening sockets
        close before the streams run again, so no phone reconnects to a closing server.
        A connection still open after the graceful deadline (one accepted as the listening
        sockets closed, which uvicorn's shutdown never reached) is closed then, not left
        to the garbage collector once the event loop is gone."""
        if self.end_streams is not None:
            self.end_streams()
        await super().shutdown(sockets=sockets)
        for connection in list(self.server_state.connections):
            connection.transport.abort()
        await asyncio.sleep(0)  # their connection_lost runs


class GuardedServer(StreamEndingServer):
    """A ``uvicorn.Server`` for the web view on a network: the h11 protocol with a
    :class:`Guard` (cap, deadlines), the app behind a :class:`HostAllowlist`, and an event
    loop that hands "out of files" to the guard (:meth:`Guard.loop_exception`) instead of
    printing a traceback per attempt.

    :param app: the ASGI app (:func:`ledger.web.app.create_app`).
    :param hosts: the host names requests may give (:class:`HostAllowlist`).
    :param max_connections: the cap, already fitted by :func:`connection_limit`.
    :param header_timeout: seconds a connection has to send a whole request.
    :param keep_alive: seconds an idle connection stays open between requests.
    """

    def __init__(
        self,
        app: Any,
        *,
        hosts: Iterable[str],
        max_connections: int,
        header_timeout: float = HEADER_TIMEOUT,
        keep_alive: int = KEEP_ALIVE,
    ) -> None:
        self.guard = Guard(max_connections, header_timeout=header_timeout)
        super().__init__(
            uvicorn.Config(
                HostAllowlist(app, hosts),
                http=protocol_class(self.guard),
                ws="none",
                loop="asyncio",
                interface="asgi3",
                lifespan="on",
                log_level="warning",
                server_header=False,
                timeout_keep_alive=keep_alive,
                timeout_graceful_shutdown=1,
                backlog=BACKLOG,
            ),
            end_streams=stream_ender(app),
        )

    def run_on(self, sockets: list[socket.socket]) -> None:
        """Serve on ``sockets`` (from :func:`bind`; each is detached into a
        :class:`GuardedSocket`) until Ctrl-C, SIGTERM or :attr:`should_exit`."""
        self.run(sockets=[GuardedSocket.wrap(sock, self.guard) for sock in sockets])

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """Install the guard's exception handler, then start as uvicorn does."""
        asyncio.get_running_loop().set_exception_handler(self.guard.loop_exception)
        await super().startup(sockets=sockets)


def run(
    app: Any,
    sockets: list[socket.socket],
    *,
    hosts: Iterable[str],
    max_connections: int,
) -> None:
    """Serve ``app`` on ``sockets`` (from :func:`bind`) until Ctrl-C or SIGTERM, as
    ``campaign serve`` does (:class:`GuardedServer`)."""
    GuardedServer(app, hosts=hosts, max_connections=max_connections).run_on(sockets)
