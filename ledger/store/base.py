"""The ``EventStore`` protocol: everything ``ledger/`` needs from storage (DESIGN.md "Store").

Two backends implement it: :class:`ledger.store.sqlite.Store` (one SQLite file, the embedded
default) and :class:`ledger.store.postgres.PostgresStore` (a PostgreSQL database, many campaigns in
one). Nothing outside the store modules writes SQL or touches a connection; the rest of
``ledger/`` calls the methods below and gets plain rows back.

Rows are tuples in :data:`~ledger.chain.COLUMNS` order (``seq, campaign, stream, version,
type, data, recorded_at, actor, session, visibility, prev_hash, hash``; ``data`` is the
payload's canonical JSON as text), or the subset of columns a read names. Every backend
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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

from ledger.chain import COLUMNS, ZERO_HASH, Encoded, Head, chain_rows, not_before
from ledger.codec import encode_data, salted
from ledger.errors import ConflictError, StoreError
from ledger.events import Event, event_tag, stream_of
from ledger.store.protocols import (
    ACCESS_FIELDS,
    SECRET_FIELDS,
    WEB_SESSION_FIELDS,
    AccessStore,
    EventRecorder,
    EventStore,
    SecretStore,
    SnapshotStore,
)
from ledger.store.statements import Statements
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
    "Pending",
    "Row",
    "RowFilter",
    "RowStream",
    "SqlEventStore",
    "Statements",
    "StoreError",
    "column_names",
    "conflicts",
    "encode_batch",
    "is_url",
    "shown",
]

#: A stored row: a tuple in :data:`COLUMNS` order (or in the order of the columns asked for).
Row = tuple[Any, ...]


@dataclass(frozen=True)
class Pending:
    """One event to append, with the envelope fields the caller decides."""

    event: Event
    visibility: str | None = None  # None: the event class's own visibility


_TAGS: dict[type[Event], str] = {}


def encode_batch(batch: Sequence[Pending]) -> list[Encoded]:
    """Each pending event as ``(stream, type, visibility, canonical payload)`` for
    :func:`ledger.chain.chain_rows`; a GM-only payload gets its salt (:func:`~ledger.codec.salted`)."""
    tags = _TAGS
    out: list[Encoded] = []
    for item in batch:
        event = item.event
        cls = type(event)
        type_ = tags.get(cls)
        if type_ is None:
            type_ = tags[cls] = event_tag(cls)
        visibility = item.visibility or cls.visibility
        data = encode_data(event)
        if visibility == "gm":
            data = salted(data)
        out.append((stream_of(event), type_, visibility, data))
    return out


def column_names(columns: Sequence[str] | str) -> tuple[str, ...]:
    """The column names a read asks for: a sequence of names, or one string of names
    separated by commas (``"seq, data"``).

    :raises StoreError: a name that is not one of :data:`COLUMNS`, or no name at all.
    """
    if isinstance(columns, str):
        columns = [c.strip() for c in columns.split(",")]
    names = tuple(columns)
    bad = [c for c in names if c not in COLUMNS]
    if bad or not names:
        raise StoreError(
            f"unknown event columns {bad!r}: choose from {', '.join(COLUMNS)}"
            if bad
            else "name at least one event column"
        )
    return names


@runtime_checkable
class RowStream(Protocol):
    """The rows of one :meth:`EventStore.rows` read, fetched on first iteration, in pages.

    Before iteration starts, :meth:`narrow` may fetch only some fields instead (the
    projection reads four of the twelve).
    """

    #: the column names of each row, in order
    columns: tuple[str, ...]

    @property
    def started(self) -> bool:
        """Has iteration begun (then :meth:`narrow` is refused)?"""
        ...

    def narrow(self, fields: Sequence[str]) -> Iterator[Row]:
        """The same rows, full width (:attr:`columns`), with only ``fields`` fetched and
        every other place ``None``.

        :raises RuntimeError: iteration already began.
        """
        ...

    def __iter__(self) -> Iterator[Row]: ...

    def __next__(self) -> Row: ...


class PagedRows(Iterator[Row]):
    """The part of a :class:`RowStream` both backends share: the query runs on first
    iteration (or :meth:`narrow`), through the backend's ``_fetch(select)``, a generator of
    rows for a list of column names or ``"null"`` placeholders."""

    columns: tuple[str, ...]
    _rows: Iterator[Row] | None = None

    @abc.abstractmethod
    def _fetch(self, select: list[str]) -> Iterator[Row]:
        """The rows for ``select`` (column names or ``"null"``); each backend defines it."""

    @property
    def started(self) -> bool:
        """Has iteration begun (then :meth:`narrow` is refused)?"""
        return self._rows is not None

    def narrow(self, fields: Sequence[str]) -> Iterator[Row]:
        """The same rows, full width, with only ``fields`` fetched (the other places None).

        :raises RuntimeError: iteration already began.
        """
        if self._rows is not None:
            raise RuntimeError("this query is already being read")
        keep = set(column_names(list(fields)))
        self._rows = iter(())
        return self._fetch([c if c in keep else "null" for c in self.columns])

    def __iter__(self) -> Iterator[Row]:
        if self._rows is None:
            self._rows = self._fetch(list(self.columns))
        return self._rows

    def __next__(self) -> Row:
        return next(iter(self))


@dataclass(frozen=True)
class RowFilter:
    """What one :meth:`EventStore.rows` read asks for (its keyword arguments but
    ``columns``)."""

    after: int = 0
    upto: int | None = None
    types: Sequence[str] | None = None
    stream: str | None = None
    streams: Sequence[str] | None = None
    session: int | None = None
    actor: str | None = None
    descending: bool = False


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


class SqlEventStore(abc.ABC, TreeStore):
    """The part of an :class:`EventStore` both SQL backends share: the statements that differ
    only in their placeholder (:class:`Statements`), the filters of a read, an append's
    check-chain-write, secrets, access links and snapshots.

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

    # --- backend hooks -------------------------------------------------------------------

    @abc.abstractmethod
    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """The write transaction (see :meth:`EventStore.transaction`)."""

    @abc.abstractmethod
    def head(self, campaign: str) -> Head:
        """The campaign's head (see :meth:`EventStore.head`)."""

    def lock(self, campaign: str) -> None:
        """Hold the campaign's write lock until the transaction ends (a read or write of a
        campaign calls it first). Nothing to do here: SQLite's ``BEGIN IMMEDIATE`` already
        holds the whole file's; :class:`ledger.store.postgres.PostgresStore` takes an advisory lock."""
        return None

    def _any_of(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """``column`` is one of ``values``: the term and its arguments (SQLite's
        ``in (?, ...)``; PostgreSQL overrides it with ``= any(%s)`` of one array)."""
        return f"{column} in ({', '.join([self.MARK] * len(values))})", list(values)

    @abc.abstractmethod
    def _version_reader(
        self, campaign: str, encoded: Sequence[Encoded], expected: dict[str, int] | None
    ) -> Callable[[str], int]:
        """``fn(stream) -> version`` before an append of ``encoded`` (inside its transaction)."""

    @abc.abstractmethod
    def _write(self, campaign: str, rows: list[Row]) -> None:
        """Store an append's chained rows (inside its transaction)."""

    @abc.abstractmethod
    def _query(self, campaign: str, columns: tuple[str, ...], where: RowFilter) -> RowStream:
        """The :meth:`rows` read of a campaign's events (``columns`` already checked)."""

    @abc.abstractmethod
    def _insert_id(self, sql: str, args: Sequence[Any]) -> int:
        """Run an ``insert`` of one row; return its new ``id``."""

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
        columns: Sequence[str] | str = COLUMNS,
    ) -> RowStream:
        """See :meth:`EventStore.rows`.

        :raises StoreError: an unknown column name.
        """
        names = COLUMNS if columns is COLUMNS else column_names(columns)
        self.lock(campaign)
        where = RowFilter(after, upto, types, stream, streams, session, actor, descending)
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
        return "".join(f" and {term}" for term, _ in terms), [a for _, args in terms for a in args]

    def _read_head(self, campaign: str) -> Head:
        """The campaign's head as stored (``Head(0, ZERO_HASH)`` when it has no events)."""
        row = self.conn.execute(self.SQL.head, (campaign,)).fetchone()
        return Head(row[0], row[1], row[2]) if row else Head(0, ZERO_HASH)

    def last_of_types(self, campaign: str, types: Sequence[str]) -> Row | None:
        """See :meth:`EventStore.last_of_types`."""
        self.lock(campaign)
        term, args = self._any_of("type", types)
        return self.conn.execute(  # type: ignore[no-any-return]
            self.SQL.last_of_types.format(types=term), [campaign, *args]
        ).fetchone()

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
    ) -> list[Row]:
        """See :meth:`EventStore.append`: the head and versions are read inside the
        transaction that writes (its first read of the campaign takes the campaign's lock),
        and a ``recorded_at`` earlier than the head's is replaced by the head's
        (:func:`ledger.chain.not_before`), so two writers whose clocks disagree cannot
        record times out of order either.

        :raises ConflictError: a stream is not at its expected version (both named).
        """
        encoded = encode_batch(batch)
        with self.transaction():
            head = self.head(campaign)
            version_of = self._version_reader(campaign, encoded, expected_versions)
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
            self._grow_tree(campaign, rows)  # the Merkle frontier, in the same transaction
        return rows

    # --- secrets -------------------------------------------------------------------------

    def put_secret(self, campaign: str, session: int, seed: bytes, kind: str = "session") -> None:
        """See :meth:`EventStore.put_secret`."""
        self.lock(campaign)
        self.conn.execute(self.SQL.put_secret, (campaign, session, kind, seed.hex()))

    def get_secret(self, campaign: str, session: int, kind: str = "session") -> bytes | None:
        """See :meth:`EventStore.get_secret`."""
        self.lock(campaign)
        row = self.conn.execute(self.SQL.get_secret, (campaign, session, kind)).fetchone()
        return bytes.fromhex(row[0]) if row else None

    def drop_secret(self, campaign: str, session: int, kind: str = "session") -> None:
        """See :meth:`EventStore.drop_secret`."""
        self.lock(campaign)
        self.conn.execute(self.SQL.drop_secret, (campaign, session, kind))

    def secret_rows(self, campaign: str) -> list[dict[str, Any]]:
        """See :meth:`EventStore.secret_rows` (by kind, then session)."""
        rows = self.conn.execute(self.SQL.secret_rows, (campaign,))
        return [dict(zip(SECRET_FIELDS, r, strict=True)) for r in rows]

    def restore_secrets(self, rows: Sequence[dict[str, Any]]) -> None:
        """See :meth:`EventStore.restore_secrets`.

        :raises StoreError: a row naming a field the secrets table does not have.
        """
        for row in rows:
            unknown = set(row) - set(SECRET_FIELDS)
            if unknown:
                raise StoreError(f"a backup secret has unknown fields: {', '.join(sorted(unknown))}")
            names = list(row)
            self.conn.execute(
                f"insert into secrets ({', '.join(names)}) "
                f"values ({', '.join([self.MARK] * len(names))})",
                [row[n] for n in names],
            )

    # --- access links (the web view, #18) -------------------------------------------------

    def add_access(
        self, campaign: str, who: str, role: str, characters: Sequence[str], token_hash: str, at: str
    ) -> int:
        """See :meth:`EventStore.add_access`."""
        import json

        with self.transaction():
            return self._insert_id(
                self.SQL.add_access,
                (campaign, who, role, json.dumps(list(characters)), token_hash, at),
            )

    def access_rows(self, campaign: str) -> list[dict[str, Any]]:
        """See :meth:`EventStore.access_rows`."""
        rows = self.conn.execute(self.SQL.access_rows, (campaign,))
        return [dict(zip(ACCESS_FIELDS, r, strict=True)) for r in rows]

    def revoke_access(self, campaign: str, who: str, at: str) -> int:
        """See :meth:`EventStore.revoke_access`."""
        with self.transaction():
            count = int(self.conn.execute(self.SQL.revoke_access, (at, campaign, who)).rowcount)
            self.conn.execute(self.SQL.end_revoked_nonces, (campaign,))
            self.conn.execute(self.SQL.end_revoked_sessions, (campaign, campaign))
            return count

    # --- web sessions and form nonces (the web view, #24) ----------------------------------

    def add_web_session(
        self, campaign: str, access_id: int, sid_hash: str, device: str, at: str, tokens: float
    ) -> int:
        """See :meth:`EventStore.add_web_session`."""
        with self.transaction():
            return self._insert_id(
                self.SQL.add_web_session,
                (campaign, access_id, sid_hash, device, at, at, float(tokens), at),
            )

    def web_sessions(self, campaign: str, *, sid_hash: str | None = None) -> list[dict[str, Any]]:
        """See :meth:`EventStore.web_sessions`."""
        sql, args = self.SQL.web_sessions, [campaign]
        if sid_hash is not None:
            sql += f" and sid_hash = {self.MARK}"
            args.append(sid_hash)
        rows = self.conn.execute(sql + " order by id", args)
        return [dict(zip(WEB_SESSION_FIELDS, r, strict=True)) for r in rows]

    def touch_web_session(self, session_id: int, at: str) -> None:
        """See :meth:`EventStore.touch_web_session`."""
        with self.transaction():
            self.conn.execute(self.SQL.touch_web_session, (at, session_id))

    def end_web_session(self, session_id: int, at: str) -> int:
        """See :meth:`EventStore.end_web_session`."""
        with self.transaction():
            return int(self.conn.execute(self.SQL.end_web_session, (at, session_id)).rowcount)

    def spend_web_tokens(
        self, session_id: int, tokens: float, at: str, *, was: tuple[float, str]
    ) -> bool:
        """See :meth:`EventStore.spend_web_tokens` (PostgreSQL: a concurrent update waits
        for the first to commit, then finds the row changed and updates nothing)."""
        with self.transaction():
            cursor = self.conn.execute(
                self.SQL.spend_web_tokens, (float(tokens), at, session_id, float(was[0]), was[1])
            )
            return int(cursor.rowcount) == 1

    def drop_web_sessions(self, campaign: str, ids: Sequence[int]) -> int:
        """See :meth:`EventStore.drop_web_sessions`."""
        if not ids:
            return 0
        with self.transaction():
            term, args = self._any_of("session_id", ids)
            self.conn.execute(f"delete from web_nonces where {term}", args)
            term, args = self._any_of("id", ids)
            return int(
                self.conn.execute(
                    f"delete from web_sessions where campaign = {self.MARK} and {term}",
                    [campaign, *args],
                ).rowcount
            )

    def add_web_nonce(self, session_id: int, nonce_hash: str, at: str, *, keep: int) -> None:
        """See :meth:`EventStore.add_web_nonce`."""
        with self.transaction():
            self.conn.execute(self.SQL.add_web_nonce, (session_id, nonce_hash, at))
            self.conn.execute(self.SQL.prune_web_nonces, (session_id, session_id, keep))

    def use_web_nonce(self, session_id: int, nonce_hash: str, at: str) -> bool:
        """See :meth:`EventStore.use_web_nonce` (one conditional ``update``: of two
        transactions using the same nonce at once, the second waits for the first and then
        finds it used)."""
        with self.transaction():
            cursor = self.conn.execute(self.SQL.use_web_nonce, (at, session_id, nonce_hash))
            return int(cursor.rowcount) == 1

    def web_nonce(self, session_id: int, nonce_hash: str) -> str:
        """See :meth:`EventStore.web_nonce`."""
        row = self.conn.execute(self.SQL.web_nonce, (session_id, nonce_hash)).fetchone()
        if row is None:
            return "unknown"
        return "unused" if row[0] is None else "used"

    def set_public_url(self, campaign: str, url: str, at: str) -> None:
        """See :meth:`EventStore.set_public_url`."""
        with self.transaction():
            self.conn.execute(self.SQL.set_public_url, (campaign, url, at))

    def public_url(self, campaign: str) -> str | None:
        """See :meth:`EventStore.public_url`."""
        row = self.conn.execute(self.SQL.public_url, (campaign,)).fetchone()
        return None if row is None else str(row[0])

    # --- snapshots -----------------------------------------------------------------------

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
        """See :meth:`EventStore.save_snapshot` (:mod:`ledger.rules.snapshots` makes the
        fingerprint)."""
        self.conn.execute(
            self.SQL.save_snapshot, (campaign, stream, seq, int(as_gm), basis, digest, state)
        )

    def load_snapshot(
        self, campaign: str, stream: str, upto: int, as_gm: bool, *, basis: str, after: int = 0
    ) -> tuple[int, bytes, str] | None:
        """See :meth:`EventStore.load_snapshot` (the caller checks the digest)."""
        row = self.conn.execute(
            self.SQL.load_snapshot, (campaign, stream, int(as_gm), upto, after, basis)
        ).fetchone()
        return (int(row[0]), bytes(row[1]), row[2]) if row else None

    def drop_snapshot(self, campaign: str, stream: str, seq: int, as_gm: bool, basis: str) -> None:
        """See :meth:`EventStore.drop_snapshot`."""
        self.conn.execute(self.SQL.drop_snapshot, (campaign, stream, seq, int(as_gm), basis))

    def drop_snapshots(self, campaign: str) -> int:
        """See :meth:`EventStore.drop_snapshots`."""
        with self.transaction():
            return int(self.conn.execute(self.SQL.drop_snapshots, (campaign,)).rowcount)

    def snapshot_rows(self, campaign: str) -> Iterator[tuple[str, int, int, str, str, bytes]]:
        """See :meth:`EventStore.snapshot_rows`."""
        rows = self.conn.execute(self.SQL.snapshot_rows, (campaign,)).fetchall()
        return iter([(r[0], r[1], r[2], r[3], r[4], bytes(r[5])) for r in rows])


def is_url(target: str) -> bool:
    """Does ``--db`` name a PostgreSQL database (``postgresql://`` or ``postgres://``)?"""
    return target.startswith(("postgresql://", "postgres://"))


def shown(target: str) -> str:
    """``--db`` as it may be shown: a URL's password replaced by ``***``."""
    import re

    return re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", target) if is_url(target) else target
