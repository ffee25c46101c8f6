"""Running the web view on a shared network (#24): uvicorn on sockets bound before any link
is issued, a cap on open connections, a deadline for each request, and a Host allowlist.

What a crowded or hostile network does to a plain uvicorn, and what this module does instead:

- **Bind first.** :func:`bind` opens the listening sockets before ``campaign serve`` issues a
  link, so a busy port fails with one line (:class:`BindError`) and nothing issued.
- **A cap on connections.** Every accepted connection holds a slot of a :class:`Guard`
  (``--max-connections``, lowered to fit the process's open-file limit:
  :func:`connection_limit`). With every slot taken, a newcomer takes the slot of the
  connection that has waited longest without sending a whole request (a half-sent head, an
  idle keep-alive): that one is closed. Only when every connection is busy with a request (a
  live log, a page being sent) is the newcomer refused, closed at once. So 1,100 half-sent
  requests (slowloris) never exhaust the server's files, and a player's page still opens.
- **Deadlines.** A connection must send a whole request (head and body) within
  :data:`HEADER_TIMEOUT` seconds of opening or of its previous response; uvicorn closes one
  idle between requests after ``timeout_keep_alive`` (:data:`KEEP_ALIVE`). uvicorn's h11
  protocol has no header-read timeout of its own: :func:`protocol_class` adds it.
- **One line, not a flood.** Shedding or refusing connections is logged once a minute at most
  (:meth:`Guard.overloaded`), and running out of files (``EMFILE``, which asyncio would
  report with a traceback per attempt) is handled the same way.
- **Host allowlist.** :class:`HostAllowlist` answers only requests whose ``Host`` names an
  address the server printed (or ``--url``'s), a loopback name, or the IP address the
  connection arrived at: a page elsewhere that points its own name at this machine (DNS
  rebinding) is refused.
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import logging
import os
import socket
import time
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a connection may take to send a whole request (head and body), counted from
#: when it opened or its previous response ended.
HEADER_TIMEOUT = 10.0
#: Seconds an idle keep-alive connection stays open between requests (uvicorn's own timer).
KEEP_ALIVE = 5
#: The listen queue, and the most connections taken from it in one turn of the loop (a
#: burst past the cap is shed or refused in the same turn, so it costs no files).
BACKLOG = 2048
#: Open files kept free of connections: the request threads' database files (about 40
#: threads, three files each on SQLite), the event loop's own, the rest.
FD_RESERVE = 256
#: At most one line a minute about shed or refused connections.
LOG_EVERY = 60.0
#: The errors that mean "no file or buffer left" on ``accept()``.
RESOURCE_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
#: Host names a request may always give: this machine's loopback.
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})

log = logging.getLogger("uvicorn.error")


class BindError(Exception):
    """The server cannot listen where asked (a port in use, a privileged port, an address
    not of this machine). The message says what to do."""


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


# --- the guard -------------------------------------------------------------------------------


class Slot:
    """One connection's place under the cap; :meth:`release` gives it back (once)."""

    __slots__ = ("guard", "held")

    def __init__(self, guard: Guard) -> None:
        self.guard = guard
        self.held = True

    def release(self) -> None:
        """Give the place back (again: nothing)."""
        if self.held:
            self.held = False
            self.guard.open -= 1


class Guard:
    """The connections of one server: how many are open, which wait for a request.

    :param limit: the most connections open at once (see :func:`connection_limit`).
    :param header_timeout: seconds a connection has to send a whole request.
    :param clock: monotonic seconds (for the once-a-minute log line).
    """

    def __init__(
        self,
        limit: int,
        *,
        header_timeout: float = HEADER_TIMEOUT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = limit
        self.header_timeout = header_timeout
        self.clock = clock
        #: connections holding a slot (an evicted one gives its slot back before it closes)
        self.open = 0
        #: slots by the connection socket's file number (while the socket is open)
        self.slots: dict[int, Slot] = {}
        #: protocols waiting for a whole request, oldest first (insertion order)
        self.waiting: dict[Any, None] = {}
        #: connections shed (closed to make room) or refused, in all
        self.shed = 0
        self._logged_at: float | None = None

    def admit(self, fd: int) -> bool:
        """Give the connection just accepted (file number ``fd``) a slot: a free one, else
        the slot of the connection waiting longest for a whole request (which is closed).

        :returns: ``False`` when every connection is busy: refuse the newcomer.
        """
        stale = self.slots.pop(fd, None)
        if stale is not None:  # its socket was closed without a word (file numbers are reused)
            stale.release()
        if self.open >= self.limit:
            if not self.waiting:
                self.overloaded()
                return False
            self.evict_oldest()
            self.overloaded()
        self.open += 1
        self.slots[fd] = Slot(self)
        return True

    def evict_oldest(self) -> bool:
        """Close the connection that has waited longest for a whole request (``False``:
        none waits)."""
        if not self.waiting:
            return False
        next(iter(self.waiting)).evict()
        return True

    def out_of_files(self) -> bool:
        """``accept()`` found no file left: close the longest-waiting connection (its file
        is free on the loop's next turn) and log it (once a minute at most).

        :returns: whether one was closed.
        """
        self.overloaded(out_of_files=True)
        return self.evict_oldest()

    def overloaded(self, *, out_of_files: bool = False) -> None:
        """Count a connection shed or refused; log one line about it, at most once every
        :data:`LOG_EVERY` seconds."""
        self.shed += 1
        now = self.clock()
        if self._logged_at is not None and now - self._logged_at < LOG_EVERY:
            return
        if out_of_files:
            what = "no open file left for a new connection (ulimit -n)"
        else:
            what = f"{self.limit} connections open, the cap (--max-connections)"
        log.warning(
            "%s: closing the connections that have not sent a whole request, longest "
            "waiting first, and refusing new ones while all are busy (%d so far; said at "
            "most once a minute)",
            what,
            self.shed,
        )
        self._logged_at = now

    def loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The event loop's exception handler: an ``accept()`` out of files or buffers is
        :meth:`out_of_files` (no traceback); anything else goes to asyncio's default."""
        exc = context.get("exception")
        if isinstance(exc, OSError) and exc.errno in RESOURCE_ERRNOS:
            self.out_of_files()
            return
        loop.default_exception_handler(context)


class GuardedSocket(socket.socket):
    """A listening socket whose ``accept()`` goes through a :class:`Guard`: a connection
    gets a slot or is closed at once; out of files, the longest-waiting connection is shed,
    or (none waiting) the newcomer is accepted on a spare file kept for it and closed. The
    accepted sockets give their slot back when closed (:class:`GuardedConnection`)."""

    guard: Guard
    spare: int | None = None

    @classmethod
    def wrap(cls, sock: socket.socket, guard: Guard) -> GuardedSocket:
        """The same listening socket (``sock`` is detached), guarded by ``guard``."""
        wrapped = cls(sock.family, sock.type, sock.proto, fileno=sock.detach())
        wrapped.guard = guard
        wrapped.spare = _spare_file()
        return wrapped

    def accept(self) -> tuple[socket.socket, Any]:
        """Accept one connection under the cap.

        :raises BlockingIOError: nothing to accept, or out of files with a connection shed
            (asyncio tries again on the loop's next turn).
        :raises ConnectionAbortedError: a newcomer refused (closed at once): every
            connection is busy.
        """
        try:
            fd, address = self._accept()  # type: ignore[attr-defined]
        except OSError as e:
            if e.errno not in RESOURCE_ERRNOS:
                raise
            if self.guard.out_of_files():
                raise BlockingIOError(errno.EAGAIN, "a connection was shed") from None
            if self.spare is None:
                raise  # asyncio pauses accepting for a second (its handler: the guard's)
            os.close(self.spare)  # a file to accept the newcomer on, and close it
            try:
                socket.close(self._accept()[0])  # type: ignore[attr-defined]
            except OSError:
                pass
            finally:
                self.spare = _spare_file()
            raise ConnectionAbortedError(errno.ECONNABORTED, "refused: out of files") from None
        if not self.guard.admit(fd):
            socket.close(fd)
            raise ConnectionAbortedError(errno.ECONNABORTED, "refused: every connection busy")
        conn = GuardedConnection(self.family, self.type, self.proto, fileno=fd)
        conn.guard = self.guard
        return conn, address

    def close(self) -> None:
        """Close the socket and its spare file."""
        if self.spare is not None:
            os.close(self.spare)
            self.spare = None
        super().close()


def _spare_file() -> int | None:
    """A file held open to be given up when no other is left (``None``: none to hold)."""
    try:
        return os.open(os.devnull, os.O_RDONLY)
    except OSError:
        return None


class GuardedConnection(socket.socket):
    """An accepted connection: closing it gives its :class:`Slot` back."""

    guard: Guard

    def close(self) -> None:
        """Close the socket and give its slot back."""
        fd = self.fileno()
        try:
            super().close()
        finally:
            slot = self.guard.slots.pop(fd, None) if fd >= 0 else None
            if slot is not None:
                slot.release()


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a :class:`Guard`'s deadline and bookkeeping: a
    connection waits in :attr:`Guard.waiting` (and may be shed) from when it opens or its
    previous response ends until its request is whole, and is closed when that takes longer
    than :attr:`Guard.header_timeout`. :func:`protocol_class` gives the subclass bound to
    one server's guard."""

    guard: ClassVar[Guard]
    _deadline: asyncio.TimerHandle | None = None
    _slot: Slot | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        self._slot = self.guard.slots.get(sock.fileno()) if sock is not None else None
        self._track()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._track()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._track()

    def connection_lost(self, exc: Exception | None) -> None:
        self._settle()
        super().connection_lost(exc)

    def _track(self) -> None:
        """Wait (with a deadline) while the peer owes a whole request; else settle."""
        if self.transport.is_closing() or self.conn.their_state not in _WAITING_STATES:
            self._settle()
        elif self not in self.guard.waiting:
            self.guard.waiting[self] = None
            self._deadline = self.loop.call_later(self.guard.header_timeout, self._too_slow)

    def _settle(self) -> None:
        self.guard.waiting.pop(self, None)
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        self.guard.waiting.pop(self, None)
        self.transport.abort()

    def evict(self) -> None:
        """Close this connection now to make room; its slot is free at once."""
        self._settle()
        if self._slot is not None:
            self._slot.release()
        self.transport.abort()


#: The states of the peer's side in which it still owes a whole request.
_WAITING_STATES = (h11.IDLE, h11.SEND_BODY)


def protocol_class(guard: Guard) -> type[GuardedH11Protocol]:
    """:class:`GuardedH11Protocol` bound to ``guard`` (uvicorn makes one per connection)."""
    return type("GuardedH11Protocol", (GuardedH11Protocol,), {"guard": guard})


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


class GuardedServer(uvicorn.Server):
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
            )
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
