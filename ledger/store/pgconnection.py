"""PostgreSQL's connections, transactions and error translation for
:class:`ledger.store.postgres.PostgresStore`.

- :func:`connect_kwargs` and :func:`connection_pool`: how every connection is made (autocommit,
  ``application_name``; a pool checks each connection as it lends it).
- :class:`PgConnected`: the store's working connection (its own, a pool's or a lent one),
  replaced when the server dropped it outside a transaction; :meth:`PgConnected.transaction`
  (``begin``/``commit`` issued by the store, a commit whose answer was lost settled by
  looking for what it appended); :meth:`PgConnected._error`, where psycopg's errors become
  the store's own (:class:`~ledger.errors.StoreUnavailable`,
  :class:`~ledger.errors.CommitUnknown`, :class:`~ledger.errors.StoreError`).
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import re
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ledger.chain import Head
from ledger.errors import CommitUnknown, StoreError, StoreUnavailable
from ledger.store.base import SqlEventStore

if TYPE_CHECKING:
    import psycopg
    import psycopg_pool

#: How many times a write whose commit got no answer is looked up, each on a fresh
#: connection, before its outcome is called unknown (:meth:`PgConnected._settle`).
SETTLE_TRIES = 5
#: Seconds before the second look (then twice that, and so on).
SETTLE_PAUSE = 0.2

#: Takes a campaign's advisory write lock until the transaction ends.
_LOCK = "select pg_advisory_xact_lock(hashtextextended(%s, 0))"


def _redacted(url: str) -> str:
    """A URL without its password (for error messages)."""
    from ledger.store.base import shown

    return shown(url)


#: The statements that write (a lost connection leaves their outcome unknown), but for the
#: snapshot cache's: whether a cache write happened changes no answer.
_WRITE = re.compile(r"\s*(insert|update|delete|copy)\b(?!\s+(into|from)\s+snapshots\b)", re.I)


def _writes(query: Any) -> bool:
    """Does ``query`` (a statement's text) write something that is not the snapshot cache?"""
    return isinstance(query, str) and _WRITE.match(query) is not None


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def _lost(e: BaseException, raw: psycopg.Connection[Any] | None) -> bool:
    """Did ``e`` (raised by a statement on ``raw``) end the conversation with the server?

    Told by the error's type, never its text: the connection is closed or broken; the
    server said it is going away (``AdminShutdown``, ``CrashShutdown``, ``CannotConnectNow``,
    ``IdleSessionTimeout``, ``DatabaseDropped``) or that the connection failed (SQLSTATE
    class 08); or psycopg itself gave up on it (an ``OperationalError`` or
    ``InterfaceError`` with no SQLSTATE: the server never answered, or a pipeline was left
    waiting for answers that will not come). A connection found lost is closed here, so
    nothing sends on it again (the store's next call replaces it). Anything else is an
    answer of the server's: the statement was refused, and the connection is still good.
    """
    import psycopg
    from psycopg import errors

    lost = (
        raw is None
        or raw.closed
        or raw.broken
        or isinstance(e, _GOING_AWAY)
        or isinstance(e, errors.ConnectionException)
        or (
            isinstance(e, (psycopg.OperationalError, psycopg.InterfaceError))
            and getattr(e, "sqlstate", None) is None
        )
    )
    if lost and raw is not None and not raw.closed:
        with _quiet(), contextlib.suppress(Exception):
            raw.close()
    return lost


def _going_away() -> tuple[type[BaseException], ...]:
    try:
        from psycopg import errors
    except ImportError:  # pragma: no cover (psycopg is installed with the postgres extra)
        return ()
    return (
        errors.AdminShutdown,
        errors.CrashShutdown,
        errors.CannotConnectNow,
        errors.IdleSessionTimeout,
        errors.DatabaseDropped,
    )


#: The server's own word that it is ending the session (SQLSTATE 57P01 to 57P05).
_GOING_AWAY = _going_away()

#: Set while the store talks to psycopg (:func:`_quiet`): the store turns every psycopg
#: error into its own, so psycopg's log lines about the errors it set aside to raise
#: another one (``psycopg`` logger, level WARNING) would only say the same thing twice.
_QUIET: contextvars.ContextVar[bool] = contextvars.ContextVar("ledger_pg_quiet", default=False)


class _StoreSpeaks(logging.Filter):
    """Drops the ``psycopg`` logger's records while the store is handling the call."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not _QUIET.get()


_FILTER = _StoreSpeaks()
logging.getLogger("psycopg").addFilter(_FILTER)


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """psycopg's own log lines silenced for the block (the store speaks for its errors)."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


def connect_kwargs(url: str, application_name: str | None) -> dict[str, Any]:
    """The keyword arguments of every connection a store opens to ``url``: autocommit (the
    store issues ``begin`` and ``commit`` itself) and ``application_name`` (how
    ``pg_stat_activity`` names the connection) unless the URL names one
    (``?application_name=...``)."""
    import psycopg

    kwargs: dict[str, Any] = {"autocommit": True}
    if application_name and "application_name" not in psycopg.conninfo.conninfo_to_dict(url):
        kwargs["application_name"] = application_name
    return kwargs


def connection_pool(
    url: str,
    *,
    application_name: str | None = None,
    min_size: int = 1,
    max_size: int = 10,
    timeout: float = 10.0,
) -> psycopg_pool.ConnectionPool[Any]:
    """An open ``psycopg_pool.ConnectionPool`` of ``url`` for :class:`PostgresStore` (what
    ``campaign serve`` draws on, :class:`ledger.store.base.StoreSource`).

    Every connection is made with :func:`connect_kwargs` and checked by a round trip each
    time the pool hands it out (``ConnectionPool.check_connection``): one the server closed
    or terminated while it sat in the pool is thrown away and replaced before anyone uses
    it; the pool reconnects in the background, backing off, while the server is away.

    :param min_size: connections kept open. :param max_size: at most this many at once.
    :param timeout: seconds a borrower waits for a working connection before giving up
        (the store then raises :class:`~ledger.errors.StoreUnavailable`).
    """
    from psycopg_pool import ConnectionPool

    pool: psycopg_pool.ConnectionPool[Any] = ConnectionPool(
        url,
        kwargs=connect_kwargs(url, application_name),
        min_size=min_size,
        max_size=max_size,
        timeout=timeout,
        check=ConnectionPool.check_connection,
        name="campaign-ledger",
        open=False,
    )
    pool.open()
    return pool


class _Guarded:
    """A :class:`~ledger.store.postgres.PostgresStore`'s connection as the shared SQL code uses it: ``execute``
    turns psycopg's errors into the store's own (:meth:`PgConnected._error`), notes a write
    inside a transaction and sends the statements the transaction owes first, in the same
    round trip (:meth:`PgConnected._send`); ``raw`` (the psycopg connection) and everything
    else are the psycopg connection's, once what is owed has been sent."""

    __slots__ = ("_conn", "store")

    def __init__(self, store: PgConnected, raw: psycopg.Connection[Any]) -> None:
        self.store = store
        self._conn = raw

    def execute(self, query: Any, params: Any = None) -> psycopg.Cursor[Any]:
        import psycopg

        store = self.store
        if store._in_tx and not store._dirty and _writes(query):
            store._dirty = True
        if store._owed:
            return store._send([(query, params)])[0]
        try:
            return self._conn.execute(query, params)
        except psycopg.Error as e:
            _lost(e, self._conn)
            raise store._error(e, query) from e

    @property
    def raw(self) -> psycopg.Connection[Any]:
        """The psycopg connection, once the statements the transaction owes are sent."""
        if self.store._owed:
            self.store._send([])
        return self._conn

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


def _pipeline_supported() -> bool:
    try:
        import psycopg

        return bool(psycopg.Pipeline.is_supported())
    except ImportError:  # pragma: no cover (psycopg is installed with the postgres extra)
        return False


#: whether libpq has pipeline mode (14 or later); without it, owed statements go one by one
_PIPELINE = _pipeline_supported()


def _clash(e: psycopg.Error) -> StoreError:
    """An ``IntegrityError`` of an insert of events, as the store says it."""
    return StoreError(f"these events clash with stored ones: {e.diag.message_detail or e}")


class PgConnected(SqlEventStore):
    """The connection and transaction half of :class:`ledger.store.postgres.PostgresStore`
    (which sets these attributes in its ``__init__``; its docstring says which errors mean
    what)."""

    url: str
    lock_timeout: int
    application_name: str | None
    _owned: bool
    _url: str | None
    _pool: psycopg_pool.ConnectionPool[Any] | None
    _raw: psycopg.Connection[Any] | None
    _dirty: bool  # the open transaction wrote something (not the snapshot cache)
    _locked: set[str]
    _heads: dict[str, Head]  # heads known inside the current transaction
    #: the last (seq, hash) the open transaction appended to each campaign
    _written: dict[str, tuple[int, str]]
    #: statements the open transaction owes the server, sent before its next statement in
    #: the same round trip (``begin``, a campaign's lock, writes that need no answer)
    _owed: list[tuple[str, Any]]
    _begun: bool  # the open transaction's ``begin`` was sent
    #: ``(campaign, seq)`` of every write whose commit got no answer and that was found
    #: stored afterwards (:meth:`_settle`), oldest first: a front end says so
    confirmed_after_loss: list[tuple[str, int]]
    _owes_writes: bool  # something in :attr:`_owed` writes (so a commit is needed)

    # --- round trips -------------------------------------------------------------------

    def _owe(self, query: str, params: Any = None, *, writes: bool = False) -> None:
        """Send ``query`` with the open transaction's next round trip, before whatever is
        sent then (a statement whose answer nobody waits for: the lock, a write)."""
        self._owed.append((query, params))
        if writes:
            self._owes_writes = self._dirty = True

    def _pipeline(self, statements: list[tuple[str, Any]]) -> list[psycopg.Cursor[Any]]:
        """What the transaction owes, then ``statements``, in one round trip (psycopg's
        pipeline mode: one sync): the cursors of ``statements``, their results fetched.
        psycopg's errors are raised as they are (the first failing statement's; the server
        skips the rest)."""
        raw = self.conn._conn
        todo = self._owed + statements
        owed = len(self._owed)
        self._owed, self._owes_writes = [], False
        if todo and todo[0][0] == "begin":
            self._begun = True
        import psycopg

        try:
            with _quiet():
                if not _PIPELINE or len(todo) == 1:  # one statement: no pipeline to set up
                    return [raw.execute(q, p) for q, p in todo][owed:]
                with raw.pipeline():
                    cursors = [raw.execute(q, p) for q, p in todo]
                return cursors[owed:]
        except psycopg.Error as e:
            _lost(e, raw)  # closes a lost connection: what it was doing is settled by looking
            raise

    def _send(self, statements: list[tuple[str, Any]]) -> list[psycopg.Cursor[Any]]:
        """:meth:`_pipeline`, psycopg's errors turned into the store's own: an insert of
        events that clash with stored ones is a :class:`StoreError` saying so, anything else
        as :meth:`_error` says."""
        import psycopg

        todo = self._owed + statements
        try:
            return self._pipeline(statements)
        except psycopg.errors.IntegrityError as e:
            raise _clash(e) from None
        except psycopg.Error as e:
            raise self._error(e, next((q for q, _ in todo if _writes(q)), "select")) from e


    # --- connections ---------------------------------------------------------------------

    def _connect(self) -> psycopg.Connection[Any]:
        """A new connection of the store's URL, with its ``lock_timeout``."""
        import psycopg

        assert self._url is not None
        conn = psycopg.connect(self._url, **connect_kwargs(self._url, self.application_name))
        conn.execute(f"set lock_timeout = '{self.lock_timeout}s'")
        return conn

    @property
    def conn(self) -> Any:
        """The working connection (a :class:`_Guarded` psycopg connection). One the server
        dropped is replaced here, outside a transaction (:meth:`_replace`).

        :raises StoreUnavailable: the connection was lost inside the open transaction, or
            no new one could be had.
        :raises RuntimeError: a pooled store used outside :meth:`connected`.
        """
        raw = self._raw
        if raw is None or raw.closed:
            raw = self._replace()
        return _Guarded(self, raw)

    def _replace(self) -> psycopg.Connection[Any]:
        """A working connection in place of a lost one (``None``: a pooled store between
        :meth:`connected` blocks)."""
        import psycopg

        if self._pool is not None and self._raw is None:
            raise RuntimeError("use a pooled PostgresStore inside `with store.connected():`")
        if self._in_tx:
            raise StoreUnavailable(
                f"the connection to the database {self.url} was lost in the middle of a "
                "transaction: it was rolled back, nothing was written; try again"
            )
        if self._pool is not None:
            lost, self._raw = self._raw, None
            self._pool.putconn(lost)  # a closed connection is thrown away by its pool
            self._raw = self._borrow()
            return self._raw
        if not self._owned:
            raise StoreUnavailable(
                "the lent connection to the database was lost: nothing was written; "
                "try again on a new one"
            )
        try:
            self._raw = self._connect()
        except psycopg.Error as e:
            raise StoreUnavailable(
                f"cannot reach the database {self.url} again: {_one_line(e)} "
                "(nothing was written; try again once it is back)"
            ) from None
        return self._raw

    def _borrow(self) -> psycopg.Connection[Any]:
        """A connection from the pool, checked by it."""
        import psycopg

        assert self._pool is not None
        try:
            return self._pool.getconn()
        except psycopg.Error as e:  # PoolTimeout, PoolClosed
            raise StoreUnavailable(
                f"no working connection to the database {self.url} came within "
                f"{self._pool.timeout:g} s ({_one_line(e)}): nothing was written; try again"
            ) from None

    @contextlib.contextmanager
    def connected(self) -> Iterator[None]:
        """See :meth:`ledger.store.base.EventStore.connected`: a pooled store borrows one
        connection (checked by the pool) for the block and gives it back after (nestable);
        a store with a connection of its own has nothing to do.

        :raises StoreUnavailable: the pool gave no working connection in time.
        """
        if self._pool is None or self._raw is not None:
            yield
            return
        self._raw = self._borrow()
        try:
            yield
        finally:
            raw, self._raw = self._raw, None
            if raw is not None:
                self._pool.putconn(raw)

    def _error(self, e: psycopg.Error, query: Any = None) -> StoreError:
        """psycopg's error ``e`` (raised by ``query``) as the store's own.

        A lost connection is :class:`StoreUnavailable`, except for a write outside a
        transaction (its outcome is unknown: :class:`CommitUnknown`); a lock not had within
        ``lock_timeout`` and anything else the server refuses is a :class:`StoreError`.
        """
        import psycopg

        raw = self._raw
        if _lost(e, raw):
            if not self._in_tx and _writes(query):
                return CommitUnknown(
                    f"the connection to the database {self.url} was lost while a write ran "
                    f"({_one_line(e)}): it may or may not be stored"
                )
            return StoreUnavailable(
                f"the connection to the database {self.url} was lost ({_one_line(e)}): "
                "nothing was written; try again"
            )
        if isinstance(e, psycopg.errors.LockNotAvailable):
            return StoreError(
                f"another writer held the campaign for more than {self.lock_timeout} s: "
                "nothing was written; try again"
            )
        return StoreError(f"the database {self.url} refused: {_one_line(e)}")

    def close(self) -> None:
        """Close the connection (a lent one is left open for its pool; a pooled store's
        borrowed one goes back to its pool)."""
        raw, self._raw = self._raw, None
        if raw is None:
            return
        if self._owned:
            raw.close()
        elif self._pool is not None:
            self._pool.putconn(raw)
        else:
            self._raw = raw  # lent: its owner closes it

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction (nestable: inner ones join the outer). Its first read or write of
        a campaign takes that campaign's advisory lock (:meth:`lock`).

        When the connection is lost, the transaction is over on the server. Lost before
        ``commit`` was sent, it rolled back: :class:`StoreUnavailable`. Lost while
        committing, its outcome is looked up on a fresh connection (:meth:`_settle`): the
        events it appended are there (it committed: the block ends as if nothing went
        wrong) or not (:class:`StoreUnavailable`, nothing written); when that cannot be
        learned, :class:`CommitUnknown`.
        """
        if self._in_tx:
            yield
            return
        with self.connected():
            _ = self.conn  # a lost connection is replaced here, before anything is sent
            self._in_tx = True
            self._dirty = self._begun = self._owes_writes = False
            # sent with the transaction's first statement, in the same round trip
            self._owed = [("begin", None)]
            if not self._owned:  # one of its own has it for the session
                self._owed.append((f"set local lock_timeout = '{self.lock_timeout}s'", None))
            try:
                try:
                    yield
                except BaseException:
                    self._rollback()
                    raise
                self._commit()
            except BaseException:
                self.rollbacks += 1
                self._after_commit.clear()
                raise
            finally:
                self._in_tx = self._begun = self._owes_writes = False
                self._owed = []
                self._locked.clear()
                self._heads.clear()
                self._written.clear()
            self._committed()

    def _rollback(self) -> None:
        """Roll the open transaction back (on a lost connection the server already has)."""
        import psycopg

        self._owed, self._owes_writes = [], False
        raw = self._raw
        if self._begun and raw is not None and not raw.closed:
            with contextlib.suppress(psycopg.Error):
                raw.execute("rollback")

    def _commit(self) -> None:
        """Commit the open transaction, in one round trip with the writes it still owes
        (nothing at all when it sent nothing); on a lost connection, :meth:`_settle` its
        outcome.

        :raises StoreError: an owed write refused (rolled back: nothing written).
        """
        import psycopg

        if not self._begun and not self._owes_writes:  # only a begin or a lock owed
            self._owed = []
            return
        raw = self._raw
        assert raw is not None
        try:
            self._pipeline([("commit", None)])
        except psycopg.Error as e:
            if raw.closed or raw.broken:
                self._settle(e)
                return
            self._begun = True
            self._rollback()  # an owed write refused: the server skipped the commit
            if isinstance(e, psycopg.errors.IntegrityError):
                raise _clash(e) from None
            raise self._error(e, "commit") from e  # refused at commit: rolled back

    def _settle(self, lost: psycopg.Error) -> None:
        """The outcome of a write whose commit got no answer (``lost``): returns when it is
        stored, raises when it is not or when that cannot be learned.

        Nothing written: it does not matter (:class:`StoreUnavailable`). Events appended: on
        a fresh connection, a transaction takes each campaign's lock (the lost transaction
        held it until it ended, on the server, so what is read after is final) and reads
        the seq the batch ended at: the batch's hash there means it committed (returns, and
        the campaign and seq are added to :attr:`confirmed_after_loss`); nothing there or
        another event there means it rolled back (:class:`StoreUnavailable`: nothing
        written, safe to try again). A look whose own connection is lost is tried again on
        another, :data:`SETTLE_TRIES` times in all, :data:`SETTLE_PAUSE` seconds apart.
        Other writes, a lent connection, no fresh connection to be had or a look the server
        refuses: :class:`CommitUnknown`, naming the batch's last seq and hash.
        """
        import psycopg

        reason = _one_line(lost)
        if not self._dirty:
            raise StoreUnavailable(
                f"the connection to the database {self.url} was lost ({reason}): nothing "
                "was written; try again"
            )
        written = sorted(self._written.items())
        campaign, (seq, hash_) = written[-1] if written else (None, (None, None))
        unknown = CommitUnknown(
            f"the connection to the database {self.url} was lost while a write was "
            f"committing ({reason}), and the database could not be asked again: it may "
            "or may not be stored",
            campaign=campaign,
            seq=seq,
            hash=hash_,
        )
        if not written or not (self._owned or self._pool is not None):
            raise unknown
        there: list[bool] | None = None
        was_in_tx, self._in_tx = self._in_tx, False  # the lost one is over: a new connection
        try:
            for attempt in range(SETTLE_TRIES):
                if attempt:
                    time.sleep(SETTLE_PAUSE * attempt)
                try:
                    there = self._look(written)
                    break
                except psycopg.Error as e:
                    if not _lost(e, self._raw):
                        raise unknown from None  # refused (a lock not had in time)
                except StoreUnavailable:  # no new connection just now
                    pass
        finally:
            self._in_tx = was_in_tx
        if there is None or (any(there) and not all(there)):  # one transaction cannot half commit
            raise unknown
        if all(there):
            self.confirmed_after_loss.extend((c, s) for c, (s, _) in written)
            return
        raise StoreUnavailable(
            f"the connection to the database {self.url} was lost before a write committed "
            f"({reason}): it was looked up afterwards and is not stored, nothing was "
            "written; try again"
        )

    def _look(self, written: list[tuple[str, tuple[int, str]]]) -> list[bool]:
        """For each ``(campaign, (seq, hash))``: is that event stored at that seq? Read in one
        transaction on this store's connection (replaced when lost), under each campaign's
        lock (so a write still running on the server is waited for)."""
        import psycopg

        raw = self.conn.raw
        with _quiet():
            raw.execute("begin")
            try:
                raw.execute(f"set local lock_timeout = '{self.lock_timeout}s'")
                there = []
                for campaign, (seq, hash_) in written:
                    raw.execute(_LOCK, ("campaign-ledger:" + campaign,))
                    row = raw.execute(
                        "select hash from events where campaign = %s and seq = %s",
                        (campaign, seq),
                    ).fetchone()
                    there.append(row is not None and row[0] == hash_)
            finally:
                with contextlib.suppress(psycopg.Error):
                    raw.execute("rollback")
        return there
