"""The ``EventStore`` protocol: everything ``ledger/`` needs from storage (docs/architecture.md).

Two backends implement it: :class:`ledger.store.sqlite.Store` (one SQLite file, the embedded
default) and :class:`ledger.store.postgres.PostgresStore` (a PostgreSQL database, many campaigns in
one). Nothing outside the store modules writes SQL or touches a connection; the rest of
``ledger/`` calls the methods below and gets events back.

An event read whole is a :class:`~ledger.envelope.StoredEvent` (``seq, campaign, stream,
version, type, data, recorded_at, actor, session, visibility, prev_hash, hash`` by name;
``data`` is the payload's canonical JSON as text), built here, in the SQL adapters; a read
that names its columns gives tuples of them in the order asked (:mod:`ledger.store.rows`).
The module layout: :mod:`ledger.store.protocols` (the four protocols, and
:class:`Pending`, an event to append),
:mod:`ledger.store.rows` (row streams and paging), :mod:`ledger.store.tables` (secrets,
access links, web sessions, snapshots), this module (reads and the append), and each
backend's (:mod:`ledger.store.sqlite`; :mod:`ledger.store.postgres` with
:mod:`ledger.store.pgconnection`). Every backend
stores the bytes :mod:`ledger.chain` makes, unchanged, so a campaign copied from one backend
to another keeps every hash (``campaign copy``).

The guarantees every backend gives (the conformance suite, tests/test_conformance.py, checks
them against each):

- Each campaign is its own log: a gap-free ``seq`` from 1 and its own hash chain.
- Append-only: the database itself refuses UPDATE and DELETE of events (triggers).
- :meth:`EventStore.append` writes a whole batch or nothing; a stale expected version raises
  :class:`ConflictError` naming both versions, nothing written.
- Appends to one campaign are serialised (SQLite: ``BEGIN IMMEDIATE``; PostgreSQL: a
  per-campaign ``pg_advisory_xact_lock``), and inside :meth:`EventStore.transaction` every
  read of a campaign sees the latest committed state, so read-check-append is safe. Readers
  never see a later ``seq`` of a campaign before an earlier one.
- Snapshots are a cache (deleting them changes no answer); secrets (unrevealed seeds) are
  never in an event until revealed.
"""

from __future__ import annotations

import abc
import contextlib
from collections.abc import Callable, Sequence
from itertools import starmap
from typing import Any, ClassVar

import msgspec

from ledger.chain import COLUMNS, ZERO_HASH, Encoded, Head, chain_rows, not_before
from ledger.codec import encode_data, new_salt
from ledger.errors import ConflictError, StoreError
from ledger.events import Event, StoredEvent, event_tag, stream_of
from ledger.store.hooks import SqlWebhooks
from ledger.store.protocols import (
    AccessStore,
    EventRecorder,
    EventStore,
    Pending,
    SecretStore,
    SnapshotStore,
)
from ledger.store.rows import PagedRows, Row, RowFilter, RowStream, column_names
from ledger.store.statements import Statements
from ledger.store.tables import SqlTables
from ledger.store.tree import TreeStore

__all__ = [
    "COLUMNS",
    "ZERO_HASH",
    "AccessStore",
    "ConflictError",
    "EventRecorder",
    "EventStore",
    "SecretStore",
    "SnapshotStore",
    "Head",
    "PagedRows",
    "Pending",
    "Row",
    "RowFilter",
    "RowStream",
    "SqlEventStore",
    "SqlTables",
    "StoredEvent",
    "as_tuples",
    "Statements",
    "StoreError",
    "column_names",
    "conflicts",
    "encode_batch",
    "is_url",
    "shown",
]


_TAGS: dict[type[Event], str] = {}


def encode_batch(batch: Sequence[Pending]) -> list[Encoded]:
    """Each pending event as ``(stream, type, visibility, canonical payload)`` for
    :func:`ledger.chain.chain_rows`; a GM-only payload gets its salt (:func:`~ledger.codec.salted`'s bytes, in one pass)."""
    tags = _TAGS
    out: list[Encoded] = []
    for item in batch:
        event = item.event
        cls = type(event)
        type_ = tags.get(cls)
        if type_ is None:
            type_ = tags[cls] = event_tag(cls)
        visibility = item.visibility or cls.visibility
        # a GM-only payload's salt goes in as it is encoded (no decode and re-encode)
        data = encode_data(event, salt=new_salt() if visibility == "gm" else None)
        out.append((stream_of(event), type_, visibility, data))
    return out


def conflicts(expected_versions: dict[str, int] | None, version_of: Callable[[str], int]) -> None:
    """Check each stream's expected version against ``version_of(stream)``.

    :raises ConflictError: the first stream not at its expected version (both named).
    """
    for stream, expected in (expected_versions or {}).items():
        actual = version_of(stream)
        if actual != expected:
            raise ConflictError(
                f"stream {stream!r} is at version {actual}, not the expected "
                f"version {expected}: reload and try again"
            )


class SqlEventStore(SqlTables, SqlWebhooks, TreeStore):
    """The part of an :class:`EventStore` both SQL backends share: the statements that differ
    only in their placeholder (:class:`Statements`), the filters of a read and an append's
    check-chain-write; secrets, access links and snapshots come from
    :class:`~ledger.store.tables.SqlTables`, webhooks from :class:`~ledger.store.hooks.SqlWebhooks`.

    A backend sets :attr:`MARK`, :attr:`SQL` (``Statements().marked(MARK)``) and
    :attr:`JSON_FIELD`, and defines ``conn`` (a DB-API connection with ``execute``),
    :meth:`transaction`, ``head``, ``stream_version``, :meth:`_version_reader`,
    :meth:`_write`, :meth:`_query` and :meth:`_insert_id`; PostgreSQL overrides
    :meth:`lock`. Each method's contract is :class:`EventStore`'s.
    """

    #: the placeholder of a bound value
    MARK: ClassVar[str]
    #: the shared statements with :attr:`MARK`
    SQL: ClassVar[Statements]
    #: a payload field's text, ``{0}`` standing for its name
    JSON_FIELD: ClassVar[str]

    conn: Any
    rollbacks: int
    _in_tx: bool
    _after_commit: list[Callable[[], None]]

    # --- backend hooks (and SqlTables' transaction, lock, _any_of, _insert_id) -----------

    @abc.abstractmethod
    def head(self, campaign: str) -> Head:
        """The campaign's head (see :meth:`EventStore.head`)."""

    @abc.abstractmethod
    def _version_reader(
        self, campaign: str, encoded: Sequence[Encoded], expected: dict[str, int] | None
    ) -> Callable[[str], int]:
        """``fn(stream) -> version`` before an append of ``encoded`` (inside its transaction)."""

    @abc.abstractmethod
    def _write(self, campaign: str, rows: list[Row]) -> None:
        """Store an append's chained rows (inside its transaction)."""

    @abc.abstractmethod
    def _query(
        self, campaign: str, columns: tuple[str, ...] | None, where: RowFilter
    ) -> RowStream[Any]:
        """The :meth:`rows` read of a campaign's events (``columns`` already checked;
        ``None``: a full read, :class:`StoredEvent` s)."""

    # --- transactions --------------------------------------------------------------------

    def connected(self) -> contextlib.AbstractContextManager[None]:
        """See :meth:`EventStore.connected`: nothing to do for a store that keeps its own
        connection (PostgreSQL's pooled store overrides it)."""
        return contextlib.nullcontext()

    def after_commit(self, fn: Callable[[], None]) -> None:
        """Call ``fn()`` once the outermost transaction commits, outside it (at once when
        no transaction is open); never when it rolls back. Callbacks run in the order they
        were given; one that raises stops the rest (``Campaign`` passes callbacks that
        do not raise: :func:`ledger.rules.plugins.notify_appended`)."""
        if not self._in_tx:
            fn()
            return
        self._after_commit.append(fn)

    def _committed(self) -> None:
        """Run the callbacks :meth:`after_commit` kept (the outermost transaction committed)."""
        callbacks, self._after_commit = self._after_commit, []
        for fn in callbacks:
            fn()

    # --- reading -------------------------------------------------------------------------

    def rows(
        self,
        campaign: str,
        *,
        after: int = 0,
        upto: int | None = None,
        types: Sequence[str] | None = None,
        stream: str | None = None,
        streams: Sequence[str] | None = None,
        session: int | None = None,
        actor: str | None = None,
        descending: bool = False,
        version_after: int | None = None,
        version_upto: int | None = None,
        limit: int | None = None,
        columns: Sequence[str] | str | None = None,
    ) -> RowStream[Any]:
        """See :meth:`EventStore.rows`.

        :raises StoreError: an unknown column name, or a negative ``limit``.
        """
        names = None if columns is None else column_names(columns)
        if limit is not None and (type(limit) is not int or limit < 0):
            raise StoreError(f"limit must be a whole number of events, 0 or more, not {limit!r}")
        self.lock(campaign)
        where = RowFilter(
            after, upto, types, stream, streams, session, actor, descending,
            version_after, version_upto, limit,
        )  # fmt: skip
        return self._query(campaign, names, where)

    def _terms(self, where: RowFilter) -> tuple[str, list[Any]]:
        """The ``and ...`` terms of a read's type, stream, session and actor filters, with
        their arguments (the seq range and order are each backend's)."""
        mark = self.MARK
        terms: list[tuple[str, list[Any]]] = []
        if where.types:
            terms.append(self._any_of("type", where.types))
        if where.stream is not None:
            terms.append((f"stream = {mark}", [where.stream]))
        if where.streams:
            terms.append(self._any_of("stream", where.streams))
        if where.session is not None:
            terms.append((f"session = {mark}", [where.session]))
        if where.actor is not None:
            terms.append((f"actor = {mark}", [where.actor]))
        if where.version_after is not None:
            terms.append((f"version > {mark}", [where.version_after]))
        if where.version_upto is not None:
            terms.append((f"version <= {mark}", [where.version_upto]))
        return "".join(f" and {term}" for term, _ in terms), [a for _, args in terms for a in args]

    def _read_head(self, campaign: str) -> Head:
        """The campaign's head as stored (``Head(0, ZERO_HASH)`` when it has no events)."""
        row = self.conn.execute(self.SQL.head, (campaign,)).fetchone()
        return Head(row[0], row[1], row[2]) if row else Head(0, ZERO_HASH)

    def last_of_types(self, campaign: str, types: Sequence[str]) -> StoredEvent | None:
        """See :meth:`EventStore.last_of_types`."""
        self.lock(campaign)
        term, args = self._any_of("type", types)
        row = self.conn.execute(
            self.SQL.last_of_types.format(types=term), [campaign, *args]
        ).fetchone()
        return None if row is None else StoredEvent(*row)

    def last_seq_at(self, campaign: str, recorded_at: str) -> int:
        """See :meth:`EventStore.last_seq_at` (one seek of ``events_time``)."""
        self.lock(campaign)
        row = self.conn.execute(self.SQL.last_seq_at, (campaign, recorded_at)).fetchone()
        return int(row[0]) if row else 0

    def seq_of_hash(self, campaign: str, hash_: str) -> int | None:
        """See :meth:`EventStore.seq_of_hash`."""
        if any(c not in "0123456789abcdef" for c in hash_):  # hex only: no LIKE wildcards
            return None
        row = self.conn.execute(self.SQL.seq_of_hash, (campaign, hash_ + "%")).fetchone()
        return int(row[0]) if row else None

    def engine_rolls(
        self, campaign: str, session: int, *, before: int | None = None, scheme: str | None = None
    ) -> int:
        """See :meth:`EventStore.engine_rolls`."""
        self.lock(campaign)
        field, mark = self.JSON_FIELD, self.MARK
        sql = self.SQL.engine_rolls.format(source=field.format("source"))
        args: list[Any] = [campaign, session]
        if scheme is not None:
            sql += f" and {field.format('scheme')} = {mark}"
            args.append(scheme)
        if before is not None:
            sql += f" and seq < {mark}"
            args.append(before)
        row = self.conn.execute(sql, args).fetchone()
        return int(row[0]) if row else 0

    # --- writing -------------------------------------------------------------------------

    def append(
        self,
        campaign: str,
        batch: Sequence[Pending],
        *,
        actor: str,
        recorded_at: str,
        session: int | None,
        expected_versions: dict[str, int] | None = None,
    ) -> list[StoredEvent]:
        """See :meth:`EventStore.append`: the head and versions are read inside the
        transaction that writes (its first read of the campaign takes the campaign's lock),
        and a ``recorded_at`` earlier than the head's is replaced by the head's
        (:func:`ledger.chain.not_before`), so two writers whose clocks disagree cannot
        record times out of order either.

        :raises ConflictError: a stream is not at its expected version (both named).
        """
        return self._append_encoded(
            campaign, encode_batch(batch), actor=actor, recorded_at=recorded_at,
            session=session, expected_versions=expected_versions,
        )  # fmt: skip

    def _append_encoded(
        self,
        campaign: str,
        encoded: Sequence[Encoded],
        *,
        actor: str,
        recorded_at: str,
        session: int | None,
        expected_versions: dict[str, int] | None,
    ) -> list[StoredEvent]:
        """:meth:`append` of encoded events, in one transaction: read what the batch chains
        from (:meth:`_before_append`), check, chain, write, grow the Merkle frontier.

        :raises ConflictError: a stream is not at its expected version (both named).
        """
        with self.transaction():
            head, version_of, stored = self._before_append(campaign, encoded, expected_versions)
            conflicts(expected_versions, version_of)
            rows = chain_rows(
                campaign,
                encoded,
                head,
                actor=actor,
                recorded_at=not_before(recorded_at, head.recorded_at),
                session=session,
                version_of=version_of,
            )
            self._write(campaign, rows)
            self._grow_tree(campaign, rows, stored)  # the Merkle frontier, same transaction
        return list(starmap(StoredEvent, rows))  # in C

    def _before_append(
        self, campaign: str, encoded: Sequence[Encoded], expected: dict[str, int] | None
    ) -> tuple[Head, Callable[[str], int], tuple[int, list[bytes]] | None]:
        """Inside the append's transaction: the head, ``fn(stream) -> version`` and the stored
        Merkle frontier the batch chains from (``None``: read it when the tree grows). A
        backend may read them in fewer round trips (PostgreSQL: ``pgwrite``)."""
        return self.head(campaign), self._version_reader(campaign, encoded, expected), None


def as_tuples(rows: Sequence[StoredEvent] | Sequence[Sequence[Any]]) -> Sequence[Sequence[Any]]:
    """Events to insert as rows in :data:`COLUMNS` order (rows are kept as they are)."""
    if rows and isinstance(rows[0], StoredEvent):
        astuple = msgspec.structs.astuple
        return [astuple(e) for e in rows]  # type: ignore[arg-type]
    return rows  # type: ignore[return-value]


def is_url(target: str) -> bool:
    """Does ``--db`` name a PostgreSQL database (``postgresql://`` or ``postgres://``)?"""
    return target.startswith(("postgresql://", "postgres://"))


def shown(target: str) -> str:
    """``--db`` as it may be shown: a URL's password replaced by ``***``."""
    import re

    return re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", target) if is_url(target) else target
