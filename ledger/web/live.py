"""The live log's wake-ups: :class:`Hub` notices when the campaign changes and wakes
every open stream of ``campaign serve``.

Appends by any process, and access links issued or revoked, are noticed by looking at
:func:`mark`: on SQLite as soon as ``PRAGMA data_version`` (asked every
:data:`WAKE_SECONDS`) says another connection committed, and every :data:`POLL_SECONDS`
in any case; on PostgreSQL as soon as an append's ``pg_notify`` arrives (the watcher's
connection ``LISTEN``s: :data:`ledger.store.postgres.APPENDED`), and every
:data:`POLL_SECONDS` in any case. The server's own
writes wake the streams at once through the ``event_appended`` listener (:class:`Listener`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Container
from typing import TYPE_CHECKING, Any, cast

from ledger.errors import StoreError
from ledger.rules.hookspecs import hookimpl

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign
    from ledger.store.protocols import EventStore

#: the server's logger, as before the split (``ledger.web.app``)
logger = logging.getLogger("ledger.web.app")

#: How often the server looks for appends by other processes (seconds).
POLL_SECONDS = 0.2
#: How often the watcher asks SQLite whether anyone else committed (``PRAGMA data_version``,
#: a read of one counter in shared memory, no query of the campaign): seconds. A change
#: makes it look at :func:`mark` at once instead of at the next :data:`POLL_SECONDS`.
WAKE_SECONDS = 0.01
#: The longest pause (seconds) between the watcher's looks while the ledger is out of reach
#: (it starts again at :data:`POLL_SECONDS` and doubles).
POLL_BACKOFF_MAX = 5.0


def mark(store: EventStore, campaign_id: str) -> tuple[Any, ...]:
    """What the live streams depend on, in one comparable value: the campaign's head (seq
    and hash) and every access link's id and revocation. It changes when anyone, in any
    process, appends to the campaign or issues or revokes a link; asked of the store alone
    (:class:`~ledger.store.base.EventStore`), so it works on SQLite and PostgreSQL alike."""
    head = store.head(campaign_id)
    links = tuple((r["id"], r["revoked_at"]) for r in store.access_rows(campaign_id))
    return head.seq, head.hash, links


class Hub:
    """Wakes every live stream when the campaign changes.

    A thread looks at :func:`mark` on its own store connection every :data:`POLL_SECONDS`
    (another process's append, ``campaign access revoke``); the server's own writes wake it
    at once through the ``event_appended`` listener (:class:`Listener`). When a look fails
    (the database went away), the thread logs it, closes its store and looks again on a new
    one, waiting twice as long each time up to :data:`POLL_BACKOFF_MAX`; it never stops
    until :meth:`stop`.

    :param target: the ledger (a SQLite file or a ``postgresql://`` URL, as ``--db``).
    :param campaign_id: the campaign watched (``None``: the only one).
    :param open_store: opens the watcher's store (default: ``open_store(target)``).
    """

    def __init__(
        self,
        target: str,
        interval: float = POLL_SECONDS,
        campaign_id: str | None = None,
        open_store: Callable[[], Any] | None = None,
    ) -> None:
        self.target = target
        self.open_store = open_store
        self.campaign_id = campaign_id
        self.interval = interval
        self.generation = 0
        #: set by :meth:`end`: the server is shutting down, and every live stream ends
        self.ending = False
        self._waiters: set[asyncio.Future[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        #: called in the watcher's thread, with its store and the campaign id, when it saw a
        #: change: what it returns (not ``None``) is given to :attr:`offer` on the event
        #: loop with the generation it woke (the live streams' shared look,
        #: :class:`ledger.web.feed.Feed`); it must not raise
        self.prepare: Callable[[Any, str], Any] | None = None
        self.offer: Callable[[int, Any], None] | None = None

    def _open(self) -> tuple[Any, str]:
        from ledger.campaign.aggregate import open_campaign
        from ledger.store.opening import open_store

        store = self.open_store() if self.open_store else open_store(self.target)
        if self.campaign_id is None:
            try:
                self.campaign_id = open_campaign(store).id
            except BaseException:
                store.close()
                raise
        return store, self.campaign_id

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start polling (called when the app starts; an app served again streams again)."""
        self._loop = loop
        self.ending = False
        self._stop.clear()
        # the first look is taken here, before the app serves a request: a commit made
        # while the thread was still starting would otherwise become its baseline, and
        # the streams open by then would never hear of it
        store, campaign_id = self._open()
        try:
            first = mark(store, campaign_id)
        finally:
            store.close()
        self._thread = threading.Thread(
            target=self._poll, args=(first,), name="ledger-poll", daemon=True
        )
        self._thread.start()

    def end(self) -> None:
        """End every live stream: each returns at its next look, woken now (call it on the
        event loop, as the server starts to shut down). A graceful shutdown then waits for
        no open log, and a phone's EventSource asks again (``retry: 1000``) until the
        server is back."""
        self.ending = True
        self._bump()

    def stop(self) -> None:
        """Stop polling and release every waiting stream."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self._bump()

    def _poll(self, last: tuple[Any, ...]) -> None:
        store: EventStore | None = (
            None  # this thread's own connection, opened again after a failure
        )
        listening = False  # PostgreSQL: LISTEN on that connection (:meth:`_listen`)
        delay, failures = min(WAKE_SECONDS, self.interval), 0  # the first look opens it
        try:
            while not self._stop.wait(0 if listening else delay):
                try:
                    if store is None:
                        store, campaign_id = self._open()
                        listening = self._listen(store)
                    on_sqlite = isinstance(getattr(store, "conn", None), sqlite3.Connection)
                    delay = min(WAKE_SECONDS, self.interval) if on_sqlite else self.interval
                    if listening and failures == 0:
                        # PostgreSQL: sleep until an append's notification, or the interval
                        # (a link issued or revoked, a notification missed while away)
                        cast(Any, store).wait_appended(campaign_id, self.interval)  # _listen saw it
                    elif failures == 0 and not self._changed(store):
                        continue
                    now = mark(store, campaign_id)
                except Exception as e:  # the watcher must outlive any one failed look
                    failures += 1
                    delay = min(self.interval * 2**failures, max(POLL_BACKOFF_MAX, self.interval))
                    logger.warning(
                        "the live log cannot look at the ledger (%s: %s); looking again in %.1f s",
                        type(e).__name__,
                        " ".join(str(e).split()),
                        delay,
                        exc_info=not isinstance(e, StoreError),
                    )
                    if store is not None:
                        with contextlib.suppress(Exception):
                            store.close()
                        store = None
                    listening = False
                    continue
                if failures:
                    logger.warning("the live log reaches the ledger again")
                    failures = 0
                    self._looked = time.monotonic()
                if now != last:
                    since = self.generation  # a wake-up meanwhile makes the look too old
                    self.wake(self.prepare(store, campaign_id) if self.prepare else None, since)
                    last = now
        finally:
            if store is not None:
                store.close()

    _version: int | None = None
    _looked = 0.0

    @staticmethod
    def _listen(store: EventStore) -> bool:
        """Subscribe ``store``'s connection to appends where the store can (PostgreSQL's
        ``LISTEN``: :meth:`~ledger.store.postgres.PostgresStore.wait_appended`)."""
        listen = getattr(store, "listen", None)
        if listen is None or not callable(getattr(store, "wait_appended", None)):
            return False
        listen()
        return True

    def _changed(self, store: EventStore) -> bool:
        """Should the watcher look at :func:`mark` now? On SQLite, when ``PRAGMA
        data_version`` moved (another connection committed) or :attr:`interval` passed
        since the last look; otherwise (PostgreSQL) at every wake-up."""
        conn = getattr(store, "conn", None)
        if not isinstance(conn, sqlite3.Connection):
            return True
        version = conn.execute("PRAGMA data_version").fetchone()[0]
        clock = time.monotonic()
        if version != self._version or clock - self._looked >= self.interval:
            self._version, self._looked = version, clock
            return True
        return False

    def wake(self, prepared: Any = None, since: int = -1) -> None:
        """Wake every stream (from any thread). ``prepared`` (not ``None``), read while the
        generation was ``since``, is given to :attr:`offer` with the new generation before
        any stream wakes, unless another wake-up came in between (it may be older than that
        one's change)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self._bump, prepared, since)

    def _bump(self, prepared: Any = None, since: int = -1) -> None:
        if prepared is not None and self.offer is not None and since == self.generation:
            self.offer(self.generation + 1, prepared)
        self.generation += 1
        waiters, self._waiters = self._waiters, set()
        for future in waiters:
            if not future.done():
                future.set_result(None)

    async def wait(self, seen: int, timeout: float) -> bool:
        """Wait until the generation passes ``seen`` (``True``) or ``timeout`` seconds
        pass (``False``)."""
        if self.generation != seen:
            return True
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.add(future)
        try:
            await asyncio.wait_for(future, timeout)
        except TimeoutError:
            return False
        finally:
            self._waiters.discard(future)
        return True


class Listener:
    """The server's ``event_appended`` listener (ledger/hookspecs.py): a write through
    one of the server's own campaign objects (a roll entered on the web) wakes the live
    streams as soon as it commits, without waiting for the hub's next look. Registered with
    the plugin manager while the app runs.

    :param hub: the hub to wake.
    :param own: the server's own campaign objects (a weak set: a write through any other
        campaign object is the hub's to notice).
    """

    def __init__(self, hub: Hub, own: Container[Any]) -> None:
        self.hub = hub
        self.own = own

    @hookimpl
    def event_appended(self, campaign: Campaign, events: list[Any]) -> None:
        """Wake the streams when the write was this server's."""
        if campaign in self.own:
            self.hub.wake()
