"""The guard every connection of the web view passes through: a cap on open
connections, a deadline for each request, and one log line instead of a flood.
:mod:`ledger.web.server` binds the sockets and runs uvicorn with it.

- **A cap on connections.** Every accepted connection holds a slot of a :class:`Guard`
  (``--max-connections``, lowered to fit the process's open-file limit:
  :func:`ledger.web.server.connection_limit`). With every slot taken, a newcomer takes the slot of the
  connection that has waited longest without sending a whole request (a half-sent head, an
  idle keep-alive): that one is closed. Only when every connection is busy with a request (a
  live log, a page being sent) is the newcomer refused, closed at once. So 1,100 half-sent
  requests (slowloris) never exhaust the server's files, and a player's page still opens.
- **Deadlines.** A connection must send a whole request (head and body) within
  :data:`HEADER_TIMEOUT` seconds of opening or of its previous response; uvicorn closes one
  idle between requests after ``timeout_keep_alive`` (:data:`ledger.web.server.KEEP_ALIVE`). uvicorn's h11
  protocol has no header-read timeout of its own: :func:`protocol_class` adds it.
- **One line, not a flood.** Shedding or refusing connections is logged once a minute at most
  (:meth:`Guard.overloaded`), and running out of files (``EMFILE``, which asyncio would
  report with a traceback per attempt) is handled the same way.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import socket
import time
from collections.abc import Callable
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a connection may take to send a whole request (head and body), counted from
#: when it opened or its previous response ended.
HEADER_TIMEOUT = 10.0
#: At most one line a minute about shed or refused connections.
LOG_EVERY = 60.0
#: The errors that mean "no file or buffer left" on ``accept()``.
RESOURCE_ERRNOS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})

log = logging.getLogger("uvicorn.error")


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

    :param limit: the most connections open at once (see :func:`ledger.web.server.connection_limit`).
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
