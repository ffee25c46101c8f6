"""The append-only event store on SQLite (sqlite-utils): the embedded
:class:`~ledger.store.base.EventStore` backend (the chain's bytes come from :mod:`ledger.chain`).

docs/architecture.md: one file may hold several campaigns, each with its own gap-free ``seq``
from 1 and its own hash chain. WAL mode; triggers refuse UPDATE and DELETE on ``events``;
appends run in ``BEGIN IMMEDIATE`` transactions that check expected stream versions, chain
and insert a whole batch, or write nothing.

Tables: ``events`` (one row per event, readable in Datasette: the envelope's columns with
``data`` as JSON), ``secrets`` (unrevealed session seeds), ``snapshots`` (a cache of
projected state), ``access``, ``web_sessions`` and ``web_nonces`` (the web view's links,
signed-in devices and form nonces), ``public_url`` (where the web view is reached),
``_sqlite_migrations``.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any

from ledger.chain import COLUMNS, ZERO_HASH, Encoded, Head, chain_hash
from ledger.store.base import (
    ConflictError,
    PagedRows,
    Pending,
    Row,
    RowFilter,
    SqlEventStore,
    Statements,
    StoredEvent,
    StoreError,
    as_tuples,
)
from ledger.store.sqlite_migrations import (
    _MARKS_TERM,
    MIGRATION_NAMES,
    SESSION_MARKS,
    create_schema,
    get_migrations,
)

__all__ = [
    "COLUMNS",
    "MIGRATION_NAMES",
    "ZERO_HASH",
    "ConflictError",
    "Head",
    "Pending",
    "RowQuery",
    "Store",
    "StoreError",
    "chain_hash",
    "get_migrations",
]

if TYPE_CHECKING:  # sqlite-utils imports numpy when installed: only load it when needed
    import sqlite_utils

#: Rows a single multi-row INSERT carries at most: a session's batch of 1,000 in one
#: statement (12,000 parameters, under SQLite's limit of 32,766 since 3.32). One statement
#: of a whole batch is the fastest raw insert (docs/performance.md): 100-row statements
#: cost a batched append about a quarter more.
INSERT_CHUNK = 1000
_ROW_MARKS = "(" + ", ".join("?" * len(COLUMNS)) + ")"
_INSERT = f"insert into events ({', '.join(COLUMNS)}) values "


@functools.lru_cache(maxsize=64)
def _insert_sql(rows: int) -> str:
    """The multi-row ``INSERT`` of ``rows`` events (1 to :data:`INSERT_CHUNK`)."""
    return _INSERT + ", ".join([_ROW_MARKS] * rows)


def __getattr__(name: str) -> Any:  # ``ledger.store.sqlite.migrations`` stays available, lazily
    if name == "migrations":
        return get_migrations()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _holds_no_table(conn: sqlite3.Connection) -> bool:
    """Is the database of ``conn`` empty: a file just created, no table in it yet?"""
    return conn.execute("select count(*) from sqlite_master").fetchone()[0] == 0


def _migrated(conn: sqlite3.Connection) -> bool:
    """Are all of :data:`MIGRATION_NAMES` recorded as applied (read without sqlite-utils)?"""
    try:
        done = {
            r[0]
            for r in conn.execute(
                "select name from _sqlite_migrations where migration_set = 'ledger'"
            )
        }
    except sqlite3.OperationalError:  # no migrations table yet
        return False
    return done.issuperset(MIGRATION_NAMES)


class RowQuery(PagedRows):
    """The rows of one :meth:`Store.rows` query (an :class:`~ledger.store.base.RowStream`):
    run on first iteration, fetched in pages.

    Iterating it is iterating a generator (no per-row overhead). Before iteration starts,
    :meth:`narrow` may fetch only some fields (the projection reads four of twelve).
    """

    PAGE = 1024

    def __init__(
        self,
        conn: sqlite3.Connection,
        columns: tuple[str, ...] | None,
        tail: str,
        args: list[Any],
    ):
        self.conn = conn
        self.full = columns is None
        self.columns = COLUMNS if columns is None else columns
        self.tail = tail
        self.args = args
        self._rows: Iterator[Row] | None = None

    def _fetch(self, select: list[str]) -> Iterator[Row]:
        cursor = self.conn.execute(f"select {', '.join(select)}{self.tail}", self.args)
        page = self.PAGE
        while batch := cursor.fetchmany(page):
            yield from batch


#: How much of a ledger file SQLite maps into memory for reading (1 GiB: a million events
#: take about 650 MB).
MMAP_BYTES = 1 << 30


class Store(SqlEventStore):
    """The append-only store of one SQLite file: the embedded
    :class:`~ledger.store.base.EventStore` backend (rows and chain from :mod:`ledger.chain`;
    what it shares with PostgreSQL's: :class:`~ledger.store.base.SqlEventStore`).

    :param db: a path or a ``sqlite_utils.Database``. A path is opened with plain
        ``sqlite3``; :attr:`db` wraps the connection in sqlite-utils only when asked for.
        A path this process cannot write (a read-only medium, a folder not its own) is
        opened read-only (:attr:`readonly` says why; how: :func:`ledger.files.connect_readonly`):
        reads answer, snapshots are neither saved nor dropped, and a write raises
        :class:`~ledger.files.ReadOnlyLedger`. A new file, its ``-wal`` and ``-shm`` are
        readable and writable by their owner only, whatever the umask (they hold the open
        session's seed and the signing key: :func:`ledger.store.files.create_private`); an
        existing file open to others is listed in :attr:`loose` for the caller to warn of.
    :param synchronous: SQLite ``synchronous`` pragma: ``"NORMAL"`` (default in WAL mode: a
        power loss may lose the last committed transactions but never corrupts the log) or
        ``"FULL"`` (every commit durable before it returns).
    :raises DiskFull: the disk under the file is full (:class:`ledger.files.DiskFull`, also
        from any later transaction).
    :raises StoreError: a ledger cannot be created at the path (a read-only folder), or an
        old file on a read-only medium would need its migrations.
    """

    MARK = "?"
    SQL = Statements()
    JSON_FIELD = "json_extract(data, '$.{0}')"

    def __init__(self, db: sqlite_utils.Database | str, *, synchronous: str = "NORMAL") -> None:
        self._db: sqlite_utils.Database | None
        #: the file's path (``None`` for a ``sqlite_utils.Database`` given whole)
        self.path: str | None = None
        #: why the file is open read-only (:func:`ledger.files.readonly_reason`), or ``None``
        self.readonly: str | None = None
        self._scratch: str | None = None  # a private copy's folder (ledger.files)
        self._created = False  # this store created the file (ledger.files.create_private)
        #: the ledger's files others than their owner may use, with their modes
        #: (:func:`ledger.store.files.loose_files`), found when the file was opened
        self.loose: list[tuple[str, int]] = []
        if synchronous.upper() not in {"NORMAL", "FULL", "EXTRA"}:
            raise StoreError(f"synchronous must be NORMAL, FULL or EXTRA, not {synchronous!r}")
        if isinstance(db, str):
            self._db = None
            self.path = db
            try:
                self.conn: sqlite3.Connection = self._connect(db)
            except sqlite3.Error as e:
                raise self._translated(e) from None
        else:
            self._db = db
            self.conn = db.conn
        # rows a multi-row INSERT carries: a batch's 1,000, fewer where SQLite was built
        # with a lower variable limit (999 before 3.32)
        limit = self.conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
        self._chunk = max(1, min(INSERT_CHUNK, limit // len(COLUMNS)))
        try:
            self._setup(synchronous)
        except BaseException as e:
            if isinstance(db, str):  # a file this store opened: close it (and free its space)
                self.close()
            if isinstance(e, sqlite3.Error):
                raise self._translated(e) from None
            raise

    def _connect(self, path: str) -> sqlite3.Connection:
        """Open ``path`` for reading and writing, or read-only when it cannot be written
        (:func:`ledger.files.readonly_reason`; how: :func:`ledger.files.connect_readonly`).

        :raises StoreError: a ledger cannot be created there (a read-only folder).
        """
        from ledger.store.files import connect_readonly, loose_files, readonly_reason
        from ledger.store.files import create_private as _create_private

        plain = not (path == ":memory:" or path.startswith("file:"))
        reason = readonly_reason(path) if plain else None
        if reason is None:
            if plain:  # readable by its owner only: it holds the seed and the signing key
                with contextlib.suppress(OSError):  # no folder there: sqlite3 says so below
                    self._created = _create_private(path)
                self.loose = [] if self._created else loose_files(path)
            conn = sqlite3.connect(path)
            conn.execute("pragma recursive_triggers = on")  # as sqlite-utils does
            return conn
        if not os.path.exists(path):
            raise StoreError(f"cannot create a ledger at {path}: {reason}")
        self.readonly = reason
        conn, self._scratch = connect_readonly(path)
        return conn

    def _setup(self, synchronous: str) -> None:
        """The connection's settings, and the migrations a writable file still lacks."""
        self.conn.isolation_level = None  # we issue BEGIN IMMEDIATE ourselves
        self.conn.execute("pragma busy_timeout = 30000")
        if self.readonly is None:
            if self.conn.execute("pragma journal_mode").fetchone()[0] != "wal":
                self.conn.execute("pragma journal_mode = wal")
            self.conn.execute(f"pragma synchronous = {synchronous.upper()}")
            if self._created and self.path is not None:
                from ledger.store.files import make_private

                make_private(self.path)
        # reads through memory-mapped pages: an index's rows scattered over a big file
        # (a session list, a character's log) cost a third of what read() calls do (# bench case 8); writes still go through SQLite's journal
        self.conn.execute(f"pragma mmap_size = {MMAP_BYTES}")
        self._in_tx = False
        self._after_commit: list[Callable[[], None]] = []
        #: how many transactions rolled back on this connection (caches compare it)
        self.rollbacks = 0
        self.confirmed_after_loss: list[tuple[str, int]] = []  # a file's commit is never lost
        if not _migrated(self.conn):
            if self.readonly is not None:
                raise StoreError(
                    f"{self.path} was written by an older campaign-ledger and must be upgraded "
                    f"once, which writes to it, but {self.readonly}: copy it to a folder you "
                    "can write and run any command on the copy"
                )
            with self.transaction():
                if _holds_no_table(self.conn):  # a new file: the whole schema at once
                    import datetime

                    create_schema(self.conn, str(datetime.datetime.now(datetime.UTC)))
                    return
                migrations = get_migrations()
                if migrations.pending(self.db):
                    migrations.apply(self.db)

    def _translated(self, e: BaseException) -> BaseException:
        """The ledger's own error for a SQLite error about this file: :class:`DiskFull`,
        :class:`ReadOnlyLedger`, or ``e`` itself."""
        from ledger.store.files import (
            DiskFull,
            ReadOnlyLedger,
            disk_full,
            is_readonly_error,
            readonly_reason,
        )

        path = self.path or ":memory:"
        if isinstance(e, StoreError):
            return e
        if self.path is not None and self.path != ":memory:" and disk_full(e, self.path):
            return DiskFull(self.path)
        if is_readonly_error(e):
            why = self.readonly or (self.path and readonly_reason(self.path))
            return ReadOnlyLedger(path, why or "SQLite opened it read-only")
        return e

    @property
    def db(self) -> sqlite_utils.Database:
        """The file as a ``sqlite_utils.Database`` (same connection; made on first use)."""
        if self._db is None:
            import sqlite_utils

            self._db = sqlite_utils.Database(self.conn)
        return self._db

    def migrations(self) -> list[str]:
        """The names of the ``ledger`` migrations applied to this file, in order."""
        return [
            r[0]
            for r in self.conn.execute(
                "select name from _sqlite_migrations where migration_set = 'ledger' "
                "order by applied_at, name"
            )
        ]

    def close(self) -> None:
        """Close the file (the last connection's close checkpoints the WAL into it; a
        checkpoint that fails there, on a full disk, leaves the events in the ``-wal``, where
        the next open finds them) and remove a read-only private copy's folder."""
        self.conn.close()
        if self._scratch is not None:
            import shutil

            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    # --- transactions --------------------------------------------------------------------

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """A ``BEGIN IMMEDIATE`` transaction (nestable: inner ones join the outer).

        On a file opened read-only (:attr:`readonly`) it is a read transaction (one
        consistent view for the reads inside it), and a write inside it raises
        :class:`~ledger.files.ReadOnlyLedger`. A full disk raises
        :class:`~ledger.files.DiskFull`. Either way nothing is written.
        """
        if getattr(self, "_in_tx", False):
            yield
            return
        try:
            self.conn.execute("begin" if self.readonly else "begin immediate")
        except sqlite3.Error as e:
            raise self._translated(e) from None
        self._in_tx = True
        try:
            yield
        except BaseException as e:
            self._in_tx = False
            self._after_commit.clear()
            self.rollbacks += 1
            with contextlib.suppress(sqlite3.Error):  # SQLite may have rolled back already
                self.conn.execute("rollback")
            if isinstance(e, sqlite3.Error):
                raise self._translated(e) from None
            raise
        self._in_tx = False
        try:
            self.conn.execute("commit")
        except BaseException as e:
            self._after_commit.clear()
            if isinstance(e, sqlite3.Error):
                self.rollbacks += 1
                if self.conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        self.conn.execute("rollback")
                raise self._translated(e) from None
            raise
        self._committed()

    # --- reading -------------------------------------------------------------------------

    def campaigns(self) -> list[tuple[str, str]]:
        """``(campaign id, data of its campaign.created event)`` for every campaign.

        Walks the distinct campaign ids by index seeks (a recursive skip over the primary
        key), so it costs the same for ten events or ten million.
        """
        return list(
            self.conn.execute(
                "with recursive ids(id) as ("
                " select min(campaign) from events"
                " union all"
                " select (select min(campaign) from events where campaign > ids.id)"
                " from ids where ids.id is not null)"
                " select e.campaign, e.data from ids join events e"
                " on e.campaign = ids.id and e.seq = 1"
                " where e.type = 'campaign.created' order by e.campaign"
            )
        )

    def campaign_ids(self) -> list[str]:
        """Every campaign id with events in this file (index seeks, like :meth:`campaigns`)."""
        return [
            r[0]
            for r in self.conn.execute(
                "with recursive ids(id) as ("
                " select min(campaign) from events"
                " union all"
                " select (select min(campaign) from events where campaign > ids.id)"
                " from ids where ids.id is not null)"
                " select id from ids where id is not null order by id"
            )
        ]

    @contextlib.contextmanager
    def unmapped(self) -> Iterator[None]:
        """Inside, reads go through SQLite's own page cache (a few MB) instead of the memory
        map: a scan of the whole file (``verify``, the integrity check) keeps the process's
        resident memory flat, where the mapped pages of a 1,000,000-event ledger would add
        about 650 MB. The map is restored after."""
        self.conn.execute("pragma mmap_size = 0")
        try:
            yield
        finally:
            self.conn.execute(f"pragma mmap_size = {MMAP_BYTES}")

    def integrity(self) -> list[str]:
        """The lines of SQLite's ``pragma integrity_check``: ``["ok"]`` when the file is
        sound, else what SQLite found damaged (a page, an index entry missing or extra: a
        damaged index can hide events from a query, so ``verify`` reports it)."""
        return [str(r[0]) for r in self.conn.execute("pragma integrity_check")]

    def head(self, campaign: str) -> Head:
        """See :meth:`~ledger.store.base.EventStore.head`."""
        return self._read_head(campaign)

    def stream_version(self, campaign: str, stream: str) -> int:
        """The version of a stream's last event (0 when the stream is empty)."""
        row = self.conn.execute(
            "select max(version) from events where campaign = ? and stream = ?",
            (campaign, stream),
        ).fetchone()
        return row[0] or 0

    def _query(self, campaign: str, columns: tuple[str, ...] | None, where: RowFilter) -> RowQuery:
        """A :meth:`rows` read: one query, fetched in pages (:class:`RowQuery`)."""
        # Without statistics SQLite prefers the primary key for `seq > ? order by seq` and
        # filters a whole campaign; name the index that finds only the rows asked for
        # (a session's rows are found by events_session_seq unasked).
        types, stream, streams = where.types, where.stream, where.streams
        hint = marks = ""
        if where.session is None and types and stream is None and not streams:
            if set(types) <= set(SESSION_MARKS):  # the session list: its own partial index
                hint, marks = " indexed by events_session_marks", f" and {_MARKS_TERM}"
            else:
                hint = " indexed by events_type"
        elif where.session is None and stream is not None and not types:
            hint = " indexed by events_stream"
        sql = f" from events{hint} where campaign = ? and seq > ?{marks}"
        args: list[Any] = [campaign, where.after]
        if where.upto is not None:
            sql += " and seq <= ?"
            args.append(where.upto)
        terms, more = self._terms(where)
        sql += terms + (" order by seq desc" if where.descending else " order by seq")
        if where.limit is not None:
            sql += f" limit {int(where.limit)}"
        return RowQuery(self.conn, columns, sql, args + more)

    # --- writing -------------------------------------------------------------------------

    def _version_reader(
        self, campaign: str, encoded: Sequence[Encoded], expected: dict[str, int] | None
    ) -> Callable[[str], int]:
        """Each stream's version read once, when first asked for (:meth:`stream_version`)."""
        known: dict[str, int] = {}

        def version_of(stream: str) -> int:
            if stream not in known:
                known[stream] = self.stream_version(campaign, stream)
            return known[stream]

        return version_of

    def _write(self, campaign: str, rows: list[Row]) -> None:
        self._insert(rows)

    def insert_rows(self, rows: Sequence[StoredEvent] | Sequence[Sequence[Any]]) -> None:
        """Insert already-chained events (import, copy; or rows in :data:`COLUMNS` order).
        Call inside :meth:`transaction`.

        Rows go in multi-row ``INSERT`` statements of :data:`INSERT_CHUNK` rows (faster than
        ``executemany`` of one-row statements); the rest with ``executemany``. Each
        campaign's Merkle tree grows by them (:mod:`ledger.store.tree`).
        """
        rows = as_tuples(rows)
        self._insert(rows)
        self._grow_trees(rows)

    def _insert(self, rows: Sequence[Sequence[Any]]) -> None:
        conn = self.conn
        k = self._chunk
        flat = chain.from_iterable  # a statement's values in one list, in C
        n = len(rows)
        for i in range(0, n - n % k, k):
            conn.execute(_insert_sql(k), list(flat(rows[i : i + k])))
        rest = n % k
        if rest > 1:
            conn.execute(_insert_sql(rest), list(flat(rows[n - rest :])))
        elif rest:
            conn.execute(_insert_sql(1), rows[-1])

    # --- snapshots: a cache, not kept on a read-only file ----------------------------------

    def save_snapshot(
        self,
        campaign: str,
        stream: str,
        seq: int,
        as_gm: bool,
        state: bytes,
        *,
        basis: str,
        digest: str,
    ) -> None:
        """See :meth:`~ledger.store.base.EventStore.save_snapshot`; nothing on a file opened
        read-only (a snapshot is a cache: going without one changes no answer)."""
        if self.readonly is None:
            super().save_snapshot(campaign, stream, seq, as_gm, state, basis=basis, digest=digest)

    def drop_snapshot(self, campaign: str, stream: str, seq: int, as_gm: bool, basis: str) -> None:
        """See :meth:`~ledger.store.base.EventStore.drop_snapshot`; on a file opened read-only
        the reads skip a bad snapshot without deleting it."""
        if self.readonly is None:
            super().drop_snapshot(campaign, stream, seq, as_gm, basis)

    def _insert_id(self, sql: str, args: Sequence[Any]) -> int:
        return int(self.conn.execute(sql, args).lastrowid or 0)
