"""The append-only event store on PostgreSQL (psycopg 3): the second
:class:`~ledger.store.base.EventStore` backend, for a service that keeps many campaigns.

Selected by a URL in ``--db``/``CAMPAIGN_DB`` (``postgresql://user@host:5432/dbname``; put
``?options=-csearch_path%3Dname`` in it to use another schema). docs/postgres.md says how to
run it: roles, grants, backups.

The same tables as the SQLite store (:mod:`ledger.store`), with the same migrations by name,
recorded in ``ledger_migrations``: ``events`` (one row per event; ``data`` is the canonical
JSON as ``text``, never ``jsonb``, so every byte the hash covers is kept), ``secrets``,
``snapshots``, ``access`` (the web view's links), ``web_sessions`` and ``web_nonces``
(its signed-in devices and form nonces), ``public_url`` (where the web view is reached). Many campaigns share one database: each row names its campaign, and each
campaign has its own gap-free ``seq`` and hash chain.

How appends stay correct with many writers (the approach of eventsourcing's PostgreSQL
recorder, which takes ``LOCK TABLE ... IN EXCLUSIVE MODE`` so notification ids commit in
order, narrowed to one campaign): a write transaction takes
``pg_advisory_xact_lock`` on the campaign id before its first read of that campaign, so
appends to one campaign are serialised (the head it chains after is the head it read,
every seq is the last plus one, and a later seq never commits before an earlier one), while
appends to different campaigns run in parallel. The lock is released at commit or
rollback. ``lock_timeout`` bounds the wait (30 s, like SQLite's busy timeout). A small
append outside a transaction is optimistic instead, in two round trips (one read; one
statement that takes the lock and writes, refused by the events' primary key when another
writer appended since the read, then read again): :mod:`ledger.store.pgwrite`.

When the server goes away (a restart, a failover, a terminated backend), the store
raises its own errors, never psycopg's (:class:`~ledger.errors.StoreUnavailable`:
nothing written; :class:`~ledger.errors.CommitUnknown`), opens a fresh connection on
its next call (a pool's is checked as it is borrowed: :func:`connection_pool`), and settles
a commit whose answer was lost by looking for what it appended
(:meth:`PostgresStore.transaction`).

Triggers refuse UPDATE, DELETE and TRUNCATE on ``events``; a hosted service should also
grant its application role only INSERT and SELECT on it (docs/postgres.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ledger.chain import COLUMNS, Head
from ledger.errors import StoreError, StoreUnavailable
from ledger.store.base import PagedRows, Row, RowFilter, Statements
from ledger.store.pgconnection import (
    _LOCK,
    _PIPELINE,
    _lost,
    _one_line,
    _quiet,
    _redacted,
    connect_kwargs,
    connection_pool,
)
from ledger.store.pgmigrations import MIGRATION_NAMES, MIGRATIONS
from ledger.store.pgwrite import _VERSIONS, APPENDED, INSERT_ROWS, PgWriter

__all__ = [
    "APPENDED",
    "INSERT_ROWS",
    "MIGRATION_NAMES",
    "_VERSIONS",
    "PgRowQuery",
    "PostgresStore",
    "connect_kwargs",
    "connection_pool",
]

if TYPE_CHECKING:
    import psycopg
    import psycopg_pool


#: The advisory lock key that serialises migrations (any constant both sides agree on).
MIGRATION_LOCK = 0x1ED6E5
#: A stream's version by one backward seek of ``(campaign, stream, version)``:
#: ``max(version)`` read every event of the stream (a sequential scan of the campaign: 13 ms
#: an append at 50,000 events, growing with the log; the append's: ``pgwrite._VERSIONS``).
_STREAM_VERSION = (
    "select version from events where campaign = %s and stream = %s "
    "order by version desc limit 1"
)



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
        columns: tuple[str, ...] | None,
        where: str,
        args: list[Any],
        *,
        after: int,
        upto: int | None,
        descending: bool,
        limit: int | None = None,
    ) -> None:
        self.store = store
        self.campaign = campaign
        self.full = columns is None
        self.columns = COLUMNS if columns is None else columns
        self.limit = limit
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
        left = self.limit  # rows still to give (None: no limit)
        sql = (
            f"select {', '.join(select)} from events where campaign = %s "
            f"and seq > %s and seq <= %s{self.where} order by seq {order} limit %s"
        )
        low, high = self.after, self.upto
        # inside a transaction that holds the campaign's lock nobody else appends to it; a
        # read outside one is capped at the head once it needs more than one page (one
        # statement sees one snapshot; every seq up to a committed head is committed)
        capped = high is not None or self.campaign in store._locked
        if high is None and (self.descending or capped):
            high = store.head(self.campaign).seq
            capped = True
        while (high is None or low < high) and left != 0:
            size = self.PAGE if left is None else min(self.PAGE, left)
            page = store.conn.execute(
                sql, [self.campaign, low, 2**63 - 1 if high is None else high, *self.args, size]
            ).fetchall()
            if left is not None:
                left -= len(page)
            if extra:
                yield from (row[:-1] for row in page)
            else:
                yield from page
            if len(page) < size:
                return
            if self.descending:
                high = page[-1][at] - 1
            else:
                low = page[-1][at]
                if not capped:
                    high = store.head(self.campaign).seq
                    capped = True


class PostgresStore(PgWriter):
    """The append-only store in a PostgreSQL database (an
    :class:`~ledger.store.base.EventStore`; what it shares with SQLite's:
    :class:`~ledger.store.base.SqlEventStore`; its connections and transactions:
    :class:`~ledger.store.pgconnection.PgConnected`).

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
        #: statements owed the server, sent with the transaction's next round trip
        self._owed: list[tuple[str, Any]] = []
        self._begun = self._owes_writes = False
        self._guesses = {}  # what this store last knew of each campaign (pgwrite)
        self._versions = {}  # the versions its appends in a transaction knew (pgwrite)
        #: how many transactions rolled back on this store (caches compare it)
        self.rollbacks = 0
        self.confirmed_after_loss: list[tuple[str, int]] = []
        self._after_commit: list[Callable[[], None]] = []
        if isinstance(target, str):
            self.url = _redacted(target)
            try:
                self._raw = self._connect()
            except psycopg.Error as e:
                raise StoreUnavailable(
                    f"cannot open the database {self.url}: {_one_line(e)} "
                    "(nothing was written; check the URL and that the server runs)"
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
            if _lost(e, self._raw):
                raise StoreUnavailable(
                    f"the connection to the database {self.url} was lost as it was opened "
                    f"({_one_line(e)}): nothing was written; try again"
                ) from None
            raise StoreError(f"cannot prepare the database {self.url}: {_one_line(e)}") from None

    # --- lifecycle ---------------------------------------------------------------------

    def _migrate(self) -> None:
        """Apply the missing migrations in one transaction, under an advisory lock (many
        processes may open a fresh database at once)."""
        if self._applied() == list(MIGRATION_NAMES):
            return
        conn = self.conn.raw
        with _quiet(), conn.transaction():
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

    def lock(self, campaign: str) -> None:
        """Inside a transaction: wait for, then hold until commit, the campaign's write lock
        (``pg_advisory_xact_lock``), sent with the transaction's next statement in the same
        round trip (a statement of its own before it: the next one's snapshot is taken once
        the lock is had). Outside one: nothing to do."""
        if self._in_tx and campaign not in self._locked:
            self._owe(_LOCK, ("campaign-ledger:" + campaign,))  # sent with the next statement
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
        """The version of a stream's last event (0 when the stream is empty). Outside a
        transaction it is read with the campaign's head and frontier in one statement, kept
        as the store's guess of the campaign (:meth:`~ledger.store.pgwrite.PgWriter._guess`):
        an append that follows, with this version expected, needs no read of its own (one
        round trip)."""
        if not self._in_tx and _PIPELINE:
            return self._read_alone(campaign, [stream]).versions[stream]
        self.lock(campaign)
        # one backward seek of (campaign, stream, version); max(version) may read the whole
        # stream when the planner has no statistics yet
        row = self.conn.execute(_STREAM_VERSION, (campaign, stream)).fetchone()
        return int(row[0]) if row else 0

    def _any_of(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        return f"{column} = any(%s)", [list(values)]

    def _query(
        self, campaign: str, columns: tuple[str, ...] | None, where: RowFilter
    ) -> PgRowQuery:
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
            limit=where.limit,
        )

    # --- writing -------------------------------------------------------------------------

    def listen(self) -> None:
        """Listen for appends (:data:`APPENDED`) on this store's own connection (a store
        opened from a URL: a pooled connection would carry the subscription away)."""
        conn = self.conn
        conn.execute(f"listen {APPENDED}")
        self._listening = conn.raw

    def wait_appended(self, campaign: str, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for an append to ``campaign`` committed by anyone
        (after :meth:`listen`): ``True`` as soon as one is, ``False`` when the time is up.

        :raises StoreUnavailable: the connection was lost (listen again on a new store).
        """
        import psycopg

        raw = self.conn.raw
        if raw is not getattr(self, "_listening", None):  # reconnected: subscribe again
            self.listen()
            raw = self.conn.raw
        deadline = time.monotonic() + timeout
        try:
            while (left := deadline - time.monotonic()) > 0:
                for note in raw.notifies(timeout=left, stop_after=1):
                    if note.payload == campaign:
                        return True
        except psycopg.Error as e:
            raise self._error(e, "listen") from e
        return False

    def _insert_id(self, sql: str, args: Sequence[Any]) -> int:
        row = self.conn.execute(sql + " returning id", args).fetchone()
        return int(row[0]) if row else 0
