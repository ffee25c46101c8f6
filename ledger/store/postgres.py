"""The append-only event store on PostgreSQL (psycopg 3): the second
:class:`~ledger.store.base.EventStore` backend, for a service that keeps many campaigns.

Selected by a URL in ``--db``/``CAMPAIGN_DB`` (``postgresql://user@host:5432/dbname``; put
``?options=-csearch_path%3Dname`` in it to use another schema). docs/postgres.md says how to
run it: roles, grants, backups.

The same tables as the SQLite store (:mod:`ledger.store`), with the same migrations by name,
recorded in ``ledger_migrations``: ``events`` (one row per event; ``data`` is the canonical
JSON as ``text``, never ``jsonb``, so every byte the hash covers is kept), ``secrets``,
``snapshots``, ``access`` (the web view's links, #18), ``web_sessions`` and ``web_nonces``
(its signed-in devices and form nonces, #24), ``public_url`` (where the web view is reached,
#24). Many campaigns share one database: each row names its campaign, and each
campaign has its own gap-free ``seq`` and hash chain.

How appends stay correct with many writers (the approach of eventsourcing's PostgreSQL
recorder, which takes ``LOCK TABLE ... IN EXCLUSIVE MODE`` so notification ids commit in
order, narrowed to one campaign): a write transaction takes
``pg_advisory_xact_lock`` on the campaign id before its first read of that campaign, so
appends to one campaign are serialised (the head it chains after is the head it read,
every seq is the last plus one, and a later seq never commits before an earlier one), while
appends to different campaigns run in parallel. The lock is released at commit or
rollback. ``lock_timeout`` bounds the wait (30 s, like SQLite's busy timeout).

When the server goes away (a restart, a failover, a terminated backend, #24), the store
raises its own errors, never psycopg's (:class:`~ledger.errors.StoreUnavailable`:
nothing written; :class:`~ledger.errors.CommitUnknown`), opens a fresh connection on
its next call (a pool's is checked as it is borrowed: :func:`connection_pool`), and settles
a commit whose answer was lost by looking for what it appended
(:meth:`PostgresStore.transaction`).

Triggers refuse UPDATE, DELETE and TRUNCATE on ``events``; a hosted service should also
grant its application role only INSERT and SELECT on it (docs/postgres.md).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ledger.chain import COLUMNS, Encoded, Head
from ledger.errors import CommitUnknown, StoreError, StoreUnavailable
from ledger.store.base import PagedRows, Row, RowFilter, SqlEventStore, Statements
from ledger.store.pgmigrations import MIGRATION_NAMES, MIGRATIONS

if TYPE_CHECKING:
    import psycopg
    import psycopg_pool


#: The advisory lock key that serialises migrations (any constant both sides agree on).
MIGRATION_LOCK = 0x1ED6E5
_LOCK = "select pg_advisory_xact_lock(hashtextextended(%s, 0))"
#: Each named stream's version by one backward seek of ``(campaign, stream, version)`` per
#: stream. ``max(version) ... group by stream`` read every event of those streams (a
#: sequential scan of the campaign: 13 ms an append at 50,000 events, growing with the log).
_STREAM_VERSION = (
    "select version from events where campaign = %s and stream = %s "
    "order by version desc limit 1"
)
_VERSIONS = (
    "select s.stream, (select e.version from events e where e.campaign = %s "
    "and e.stream = s.stream collate \"C\" order by e.version desc limit 1) "
    "from unnest(%s::text[]) as s(stream)"
)


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
    """A :class:`PostgresStore`'s connection as the shared SQL code uses it: ``execute``
    turns psycopg's errors into the store's own (:meth:`PostgresStore._error`) and notes a
    write inside a transaction; everything else is the psycopg connection's."""

    __slots__ = ("raw", "store")

    def __init__(self, store: PostgresStore, raw: psycopg.Connection[Any]) -> None:
        self.store = store
        self.raw = raw

    def execute(self, query: Any, params: Any = None) -> psycopg.Cursor[Any]:
        import psycopg

        store = self.store
        if store._in_tx and not store._dirty and _writes(query):
            store._dirty = True
        try:
            return self.raw.execute(query, params)
        except psycopg.Error as e:
            raise store._error(e, query) from e

    def __getattr__(self, name: str) -> Any:
        return getattr(self.raw, name)


class PgRowQuery(PagedRows):
    """The rows of one :meth:`PostgresStore.rows` read (a
    :class:`~ledger.store.base.RowStream`), fetched in pages by keyset (``seq > last``).

    A read outside a transaction stops at the head it saw first (every seq up to it is
    committed: appends to a campaign commit in seq order), so it is one consistent log.
    """

    PAGE = 5000

    def __init__(
        self,
        store: PostgresStore,
        campaign: str,
        columns: tuple[str, ...],
        where: str,
        args: list[Any],
        *,
        after: int,
        upto: int | None,
        descending: bool,
    ) -> None:
        self.store = store
        self.campaign = campaign
        self.columns = columns
        self.where = where
        self.args = args
        self.after = after
        self.upto = upto
        self.descending = descending
        self._rows: Iterator[Row] | None = None

    def _fetch(self, select: list[str]) -> Iterator[Row]:
        store = self.store
        if "seq" in select:
            at, extra = select.index("seq"), False
        else:
            at, extra = len(select), True
            select = [*select, "seq"]
        order = "desc" if self.descending else "asc"
        sql = (
            f"select {', '.join(select)} from events where campaign = %s "
            f"and seq > %s and seq <= %s{self.where} order by seq {order} limit {self.PAGE}"
        )
        low, high = self.after, self.upto
        # inside a transaction that holds the campaign's lock nobody else appends to it; a
        # read outside one is capped at the head once it needs more than one page (one
        # statement sees one snapshot; every seq up to a committed head is committed)
        capped = high is not None or self.campaign in store._locked
        if high is None and (self.descending or capped):
            high = store.head(self.campaign).seq
            capped = True
        while high is None or low < high:
            page = store.conn.execute(
                sql, [self.campaign, low, 2**63 - 1 if high is None else high, *self.args]
            ).fetchall()
            if extra:
                yield from (row[:-1] for row in page)
            else:
                yield from page
            if len(page) < self.PAGE:
                return
            if self.descending:
                high = page[-1][at] - 1
            else:
                low = page[-1][at]
                if not capped:
                    high = store.head(self.campaign).seq
                    capped = True


class PostgresStore(SqlEventStore):
    """The append-only store in a PostgreSQL database (an
    :class:`~ledger.store.base.EventStore`; what it shares with SQLite's:
    :class:`~ledger.store.base.SqlEventStore`).

    :param target: one of
        - a ``postgresql://`` URL: a connection of its own is opened, and opened again on
          the next call after the server dropped it;
        - a ``psycopg_pool.ConnectionPool`` (:func:`connection_pool`): the store borrows a
          checked connection for each :meth:`connected` (and each transaction outside one)
          and is used only inside them (a long-running server's way);
        - an open ``psycopg.Connection`` (for example one lent by a pool for one request): it
          is put in autocommit mode and neither replaced nor closed by the store.
    :param lock_timeout: seconds a writer waits for a campaign's lock before giving up.
    :param application_name: how ``pg_stat_activity`` names a connection the store opens
        from a URL (unless the URL names one).
    :raises StoreUnavailable: the database cannot be reached.
    :raises StoreError: the database cannot be migrated.

    Errors: psycopg's become the store's own at this boundary. A connection the server
    closed, terminated or never gave is :class:`~ledger.errors.StoreUnavailable`
    (nothing written: the work may be done again, and the store's next call reconnects); a
    write whose commit got no answer is looked up on a fresh connection
    (:meth:`transaction`) and is either stored, or refused as unavailable, or
    :class:`~ledger.errors.CommitUnknown`; anything else the server refuses is a
    :class:`~ledger.errors.StoreError` (a lock not had within ``lock_timeout``, a
    permission), with psycopg's error as its ``__cause__``.
    """

    MARK = "%s"
    SQL = Statements().marked(MARK)
    JSON_FIELD = "(data::jsonb ->> '{0}')"

    def __init__(
        self,
        target: str | psycopg.Connection[Any] | psycopg_pool.ConnectionPool[Any],
        *,
        lock_timeout: int = 30,
        application_name: str | None = None,
    ) -> None:
        import psycopg

        self.lock_timeout = int(lock_timeout)
        self.application_name = application_name
        self._owned = isinstance(target, str)
        self._url = target if isinstance(target, str) else None
        self._pool: psycopg_pool.ConnectionPool[Any] | None = None
        self._raw: psycopg.Connection[Any] | None = None
        self._in_tx = False
        self._dirty = False  # the open transaction wrote something (not the snapshot cache)
        self._locked: set[str] = set()
        self._heads: dict[str, Head] = {}  # heads known inside the current transaction
        #: the last (seq, hash) the open transaction appended to each campaign
        self._written: dict[str, tuple[int, str]] = {}
        #: how many transactions rolled back on this store (caches compare it)
        self.rollbacks = 0
        self._after_commit: list[Callable[[], None]] = []
        if isinstance(target, str):
            self.url = _redacted(target)
            try:
                self._raw = self._connect()
            except psycopg.Error as e:
                raise StoreUnavailable(
                    f"cannot open the database {self.url}: {_one_line(e)} "
                    "(check the URL and that the server runs)"
                ) from None
        elif isinstance(target, psycopg.Connection):
            self._raw = target
            target.autocommit = True
            self.url = "(a lent connection)"
        else:
            self._pool = target
            conninfo = target.conninfo if isinstance(target.conninfo, str) else ""
            self.url = _redacted(conninfo) if conninfo else "(a pool's connection)"
        try:
            with self.connected():
                self._migrate()
        except psycopg.Error as e:
            raise StoreError(f"cannot prepare the database {self.url}: {_one_line(e)}") from None

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
        if raw is None or raw.closed or raw.broken:
            if not self._in_tx and _writes(query):
                return CommitUnknown(
                    f"the connection to the database {self.url} was lost while a write ran "
                    f"({_one_line(e)}): it may or may not be stored; look before writing it "
                    "again"
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

    # --- lifecycle ---------------------------------------------------------------------

    def _migrate(self) -> None:
        """Apply the missing migrations in one transaction, under an advisory lock (many
        processes may open a fresh database at once)."""
        if self._applied() == list(MIGRATION_NAMES):
            return
        conn = self.conn.raw
        with conn.transaction():
            conn.execute("select pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
            conn.execute(
                "create table if not exists ledger_migrations (name text primary key, "
                "applied_at timestamptz not null default now())"
            )
            done = {r[0] for r in conn.execute("select name from ledger_migrations")}
            for name, statements in MIGRATIONS:
                if name in done:
                    continue
                for sql in statements:
                    sql(conn) if callable(sql) else conn.execute(sql)
                conn.execute("insert into ledger_migrations (name) values (%s)", (name,))

    def _applied(self) -> list[str]:
        conn = self.conn.raw
        row = conn.execute("select to_regclass('ledger_migrations')").fetchone()
        if row is None or row[0] is None:
            return []
        return [
            r[0]
            for r in conn.execute("select name from ledger_migrations order by applied_at, name")
        ]

    def migrations(self) -> list[str]:
        """The names of the migrations applied to this database, in order."""
        import psycopg

        try:
            return self._applied()
        except psycopg.Error as e:
            raise self._error(e) from e

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
            conn = self.conn  # a lost connection is replaced here, before anything is sent
            conn.execute("begin")
            self._in_tx = True
            self._dirty = False
            try:
                try:
                    if not self._owned:  # one of its own has it for the session
                        conn.execute(f"set local lock_timeout = '{self.lock_timeout}s'")
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
                self._in_tx = False
                self._locked.clear()
                self._heads.clear()
                self._written.clear()
            self._committed()

    def _rollback(self) -> None:
        """Roll the open transaction back (on a lost connection the server already has)."""
        import psycopg

        raw = self._raw
        if raw is not None and not raw.closed:
            with contextlib.suppress(psycopg.Error):
                raw.execute("rollback")

    def _commit(self) -> None:
        """Commit the open transaction; on a lost connection, :meth:`_settle` its outcome."""
        import psycopg

        raw = self._raw
        assert raw is not None
        try:
            raw.execute("commit")
        except psycopg.Error as e:
            if raw.closed or raw.broken:
                self._settle(e)
                return
            raise self._error(e, "commit") from e  # refused at commit: rolled back

    def _settle(self, lost: psycopg.Error) -> None:
        """The outcome of a transaction whose ``commit`` got no answer (``lost``).

        Nothing written: it does not matter (:class:`StoreUnavailable`). Events appended:
        on a fresh connection, a transaction takes each campaign's lock (the lost
        transaction held it until it ended, on the server, so what is read after is final)
        and reads the seq the batch ended at: its hash there means committed (returns);
        nothing there or another event there means rolled back (:class:`StoreUnavailable`).
        Other writes, no fresh connection, or a failed look: :class:`CommitUnknown`.
        """
        import psycopg

        reason = _one_line(lost)
        if not self._dirty:
            raise StoreUnavailable(
                f"the connection to the database {self.url} was lost ({reason}): nothing "
                "was written; try again"
            )
        unknown = CommitUnknown(
            f"the connection to the database {self.url} was lost while a write was "
            f"committing ({reason}): it may or may not be stored; look before writing it "
            "again"
        )
        if not self._written or not (self._owned or self._pool is not None):
            raise unknown
        written = sorted(self._written.items())
        self._in_tx = False  # the lost transaction is over: replace its connection
        try:
            raw = self.conn.raw
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
        except (psycopg.Error, StoreError):
            raise unknown from None
        finally:
            self._in_tx = True
        if all(there):
            return
        if any(there):  # one transaction cannot half commit
            raise unknown
        raise StoreUnavailable(
            f"the connection to the database {self.url} was lost before a write committed "
            f"({reason}): it was rolled back, nothing was written; try again"
        )

    def lock(self, campaign: str) -> None:
        """Inside a transaction: wait for, then hold until commit, the campaign's write lock
        (``pg_advisory_xact_lock``). Outside one: nothing to do."""
        if self._in_tx and campaign not in self._locked:
            self.conn.execute(_LOCK, ("campaign-ledger:" + campaign,))
            self._locked.add(campaign)

    def integrity(self) -> list[str]:
        """``["ok"]``, or what is wrong: a missing or disabled append-only trigger (the
        server checks its own pages; ``amcheck`` can check indexes)."""
        found = {
            r[0]: r[1]
            for r in self.conn.execute(
                "select tgname, tgenabled from pg_trigger where tgrelid = 'events'::regclass"
            )
        }
        problems = [
            f"the append-only trigger {name} on events is "
            + ("missing" if name not in found else "disabled")
            + ": restore it (migration m001_events) and check the log against a backup"
            for name in ("events_no_update", "events_no_delete", "events_no_truncate")
            if found.get(name, "D") == "D"
        ]
        return problems or ["ok"]

    # --- reading -------------------------------------------------------------------------

    def campaigns(self) -> list[tuple[str, str]]:
        """``(campaign id, data of its campaign.created event)`` for every campaign."""
        return [
            (r[0], r[1])
            for r in self.conn.execute(
                "select campaign, data from events where seq = 1 "
                "and type = 'campaign.created' order by campaign"
            )
        ]

    def campaign_ids(self) -> list[str]:
        """Every campaign id with events, sorted."""
        return [
            r[0] for r in self.conn.execute("select campaign from events where seq = 1 order by 1")
        ]

    def head(self, campaign: str) -> Head:
        """The campaign's head (``Head(0, ZERO_HASH)`` when it has no events). Inside a
        transaction it is read once (the lock keeps it) and follows this store's appends."""
        self.lock(campaign)
        known = self._heads.get(campaign)
        if known is not None:
            return known
        head = self._read_head(campaign)
        if self._in_tx:
            self._heads[campaign] = head
        return head

    def stream_version(self, campaign: str, stream: str) -> int:
        """The version of a stream's last event (0 when the stream is empty)."""
        self.lock(campaign)
        # one backward seek of (campaign, stream, version); max(version) may read the whole
        # stream when the planner has no statistics yet
        row = self.conn.execute(_STREAM_VERSION, (campaign, stream)).fetchone()
        return int(row[0]) if row else 0

    def _versions(self, campaign: str, streams: Sequence[str]) -> dict[str, int]:
        """``{stream: version}`` of each named stream that has events (one query)."""
        rows = self.conn.execute(_VERSIONS, (campaign, list(streams)))
        return {r[0]: int(r[1]) for r in rows if r[1] is not None}

    def _any_of(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        return f"{column} = any(%s)", [list(values)]

    def _query(self, campaign: str, columns: tuple[str, ...], where: RowFilter) -> PgRowQuery:
        """A :meth:`rows` read, paged by keyset (:class:`PgRowQuery`)."""
        terms, args = self._terms(where)
        return PgRowQuery(
            self,
            campaign,
            columns,
            terms,
            args,
            after=where.after,
            upto=where.upto,
            descending=where.descending,
        )

    # --- writing -------------------------------------------------------------------------

    def _version_reader(
        self, campaign: str, encoded: Sequence[Encoded], expected: dict[str, int] | None
    ) -> Callable[[str], int]:
        """Every stream of the batch or of ``expected`` read at once (:data:`_VERSIONS`:
        one index seek each)."""
        streams = {e[0] for e in encoded} | set(expected or ())
        known = self._versions(campaign, sorted(streams)) if streams else {}
        return lambda stream: known.get(stream, 0)

    def _write(self, campaign: str, rows: list[Row]) -> None:
        self._copy(rows)
        if rows:
            self._heads[campaign] = Head(rows[-1][0], rows[-1][11], rows[-1][6])

    def insert_rows(self, rows: Sequence[Sequence[Any]]) -> None:
        """Insert already-chained rows as they are (import, copy), inside :meth:`transaction`.

        :raises StoreError: a row clashes with a stored one (its campaign already has it).
        """
        for campaign in sorted({str(r[1]) for r in rows}):
            self.lock(campaign)
            self._heads.pop(campaign, None)
        self._copy(rows)
        self._grow_trees(rows)

    def _copy(self, rows: Sequence[Sequence[Any]]) -> None:
        """``COPY events FROM STDIN`` of the rows (one round trip for a whole batch); the
        last (seq, hash) of each campaign is kept, to settle a commit that got no answer."""
        import psycopg

        raw = self.conn.raw
        self._dirty = True
        try:
            with (
                raw.cursor() as cur,
                cur.copy(f"copy events ({', '.join(COLUMNS)}) from stdin") as copy,
            ):
                write = copy.write_row
                for row in rows:
                    write(row)
        except psycopg.errors.IntegrityError as e:
            raise StoreError(
                f"these events clash with stored ones: {e.diag.message_detail or e}"
            ) from None
        except psycopg.Error as e:
            raise self._error(e, "copy") from e
        if self._in_tx:
            for row in rows:
                self._written[str(row[1])] = (int(row[0]), str(row[11]))

    def _insert_id(self, sql: str, args: Sequence[Any]) -> int:
        row = self.conn.execute(sql + " returning id", args).fetchone()
        return int(row[0]) if row else 0
