"""The ``EventStore`` protocol: everything ``ledger/`` needs from storage (DESIGN.md "Store").

Two backends implement it: :class:`ledger.store.Store` (one SQLite file, the embedded
default) and :class:`ledger.pgstore.PostgresStore` (a PostgreSQL database, many campaigns in
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

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from .chain import COLUMNS, ZERO_HASH, Encoded, Head
from .codec import encode_data, salted
from .events import Event, event_tag, stream_of

__all__ = [
    "COLUMNS",
    "ZERO_HASH",
    "ConflictError",
    "EventStore",
    "Head",
    "Pending",
    "Row",
    "RowStream",
    "StoreError",
    "column_names",
    "encode_batch",
    "is_url",
    "open_store",
    "shown",
]

#: A stored row: a tuple in :data:`COLUMNS` order (or in the order of the columns asked for).
Row = tuple[Any, ...]


class ConflictError(Exception):
    """An expected stream version is stale: someone else appended first. Nothing written."""


class StoreError(Exception):
    """The store refuses a write or cannot be used (unknown campaign, bad batch, a database
    that cannot be reached). Nothing written."""


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

    def _fetch(self, select: list[str]) -> Iterator[Row]:
        raise NotImplementedError  # each backend's query class defines it

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


@runtime_checkable
class EventStore(Protocol):
    """What ``ledger/`` needs from storage. Implemented by :class:`ledger.store.Store`
    (SQLite) and :class:`ledger.pgstore.PostgresStore` (PostgreSQL).

    Writes happen inside :meth:`transaction` (``append`` and ``drop_snapshots`` open their
    own when called outside one). Errors: :class:`ConflictError` (stale expected version),
    :class:`StoreError` (refused write, unusable database); nothing is written when either
    is raised.
    """

    #: how many transactions rolled back on this store (caches keyed by the head compare it)
    rollbacks: int

    # --- lifecycle ---------------------------------------------------------------------

    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """One write transaction, all or nothing (nestable: inner ones join the outer).

        Inside it, the first read or write of a campaign takes that campaign's write lock
        until the transaction ends, so what is read is what the append chains after.
        """
        ...

    def after_commit(self, fn: Callable[[], None]) -> None:
        """Call ``fn()`` once the outermost transaction commits (at once outside one); never
        when it rolls back. The ``event_appended`` hook is called this way."""
        ...

    def migrations(self) -> list[str]:
        """The names of the schema migrations applied to this database, in order (opening a
        store applies the missing ones)."""
        ...

    def integrity(self) -> list[str]:
        """``["ok"]`` when the database is sound, else one line per problem found (a damaged
        page or index; a missing append-only trigger). ``verify`` reports it at seq 0."""
        ...

    def close(self) -> None:
        """Close the connection (further calls fail)."""
        ...

    # --- reading -----------------------------------------------------------------------

    def campaigns(self) -> list[tuple[str, str]]:
        """``(campaign id, data of its campaign.created event)`` for every campaign, by id."""
        ...

    def campaign_ids(self) -> list[str]:
        """Every campaign id with events, sorted."""
        ...

    def head(self, campaign: str) -> Head:
        """The campaign's head (``Head(0, ZERO_HASH)`` when it has no events)."""
        ...

    def stream_version(self, campaign: str, stream: str) -> int:
        """The version of a stream's last event (0 when the stream is empty)."""
        ...

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
        """Stored rows of a campaign in ``seq`` order (newest first with ``descending``),
        streamed in pages (never all in memory).

        :param after: only ``seq > after``. :param upto: only ``seq <= upto``.
        :param types: only these ``type`` tags. :param stream: only this stream.
        :param streams: only these streams. :param session: only this envelope session.
        :param actor: only events this actor recorded.
        :param columns: the columns of each row (names from :data:`COLUMNS`).
        :raises StoreError: an unknown column name.
        """
        ...

    def last_of_types(self, campaign: str, types: Sequence[str]) -> Row | None:
        """The latest full row whose type is one of ``types`` (``None`` if there is none)."""
        ...

    def last_seq_at(self, campaign: str, recorded_at: str) -> int:
        """The ``seq`` of the event recorded latest at or before ``recorded_at`` (a UTC
        stamp in the stored form ``YYYY-MM-DDTHH:MM:SS.ffffffZ``; ties: the highest seq; 0
        when none), found by one index seek (``events_time``).

        While ``recorded_at`` never decreases along ``seq`` (the CLI stamps each batch with
        the clock) this is the highest seq recorded at or before the time. After a clock
        that ran backwards it is the last event of the time order, not of the log order.
        """
        ...

    def seq_of_hash(self, campaign: str, hash_: str) -> int | None:
        """The ``seq`` of the event whose ``hash`` is ``hash_`` (``None``: no such event)."""
        ...

    def engine_rolls(
        self, campaign: str, session: int, *, before: int | None = None, scheme: str | None = None
    ) -> int:
        """How many engine rolls session ``session`` holds (before seq ``before``, if given):
        the next engine roll's nonce (DESIGN.md "Dice and verifiable randomness").

        :param scheme: count only rolls of this scheme.
        """
        ...

    # --- writing -----------------------------------------------------------------------

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
        """Append a whole batch, chained after the campaign's head (:mod:`ledger.chain`);
        all or nothing.

        :param expected_versions: ``{stream: version}`` each stream must be at before the
            batch (optimistic concurrency); omit a stream to append unconditionally.
        :returns: the stored rows (tuples in :data:`COLUMNS` order).
        :raises ConflictError: a stream is not at its expected version (both named).
        """
        ...

    def insert_rows(self, rows: Sequence[Sequence[Any]]) -> None:
        """Insert already-chained rows as they are (import, copy). Call inside
        :meth:`transaction`; the caller has checked the chain."""
        ...

    # --- secrets -----------------------------------------------------------------------

    def put_secret(self, campaign: str, session: int, seed: bytes, kind: str = "session") -> None:
        """Keep a seed until it is revealed (``kind``: ``"session"`` or ``"downtime"``)."""
        ...

    def get_secret(self, campaign: str, session: int, kind: str = "session") -> bytes | None:
        """An unrevealed seed, or ``None``."""
        ...

    def drop_secret(self, campaign: str, session: int, kind: str = "session") -> None:
        """Forget a seed once its reveal is in the log."""
        ...

    def secret_rows(self, campaign: str) -> list[dict[str, Any]]:
        """Every secret of a campaign as ``{"campaign", "session", "kind", "seed" (hex)}``."""
        ...

    def restore_secrets(self, rows: Sequence[dict[str, Any]]) -> None:
        """Insert secrets rows as :meth:`secret_rows` gives them (inside :meth:`transaction`).

        :raises StoreError: a row naming an unknown field.
        """
        ...

    # --- access links (the web view, #18) ----------------------------------------------

    def add_access(
        self, campaign: str, who: str, role: str, characters: Sequence[str], token_hash: str, at: str
    ) -> int:
        """Keep a new access link of the web view: only its token's sha256 (``role``
        ``"gm"`` or ``"player"``, ``characters`` ids granted by name); returns its id."""
        ...

    def access_rows(self, campaign: str) -> list[dict[str, Any]]:
        """Every access link of a campaign, oldest first: ``{"id", "who", "role",
        "characters" (JSON list), "token_hash", "created_at", "revoked_at" (None: live)}``."""
        ...

    def revoke_access(self, campaign: str, who: str, at: str) -> int:
        """Revoke every live link of ``who`` (case-insensitive) at ``at``; returns how many."""
        ...

    # --- snapshots ---------------------------------------------------------------------

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
        """Cache a stream's projected state as of ``seq`` with its fingerprint (replaces one
        of the same seq and basis)."""
        ...

    def load_snapshot(
        self, campaign: str, stream: str, upto: int, as_gm: bool, *, basis: str, after: int = 0
    ) -> tuple[int, bytes, str] | None:
        """The newest cached ``(seq, state, digest)`` with this ``basis`` and
        ``after <= seq <= upto`` (``None`` when there is none)."""
        ...

    def drop_snapshot(self, campaign: str, stream: str, seq: int, as_gm: bool, basis: str) -> None:
        """Delete one cached snapshot (inside :meth:`transaction`)."""
        ...

    def drop_snapshots(self, campaign: str) -> int:
        """Delete every cached snapshot of a campaign; returns how many there were."""
        ...

    def snapshot_rows(self, campaign: str) -> Iterator[tuple[str, int, int, str, str, bytes]]:
        """Every cached snapshot: ``(stream, as_gm, seq, basis, digest, state)`` by seq."""
        ...


def is_url(target: str) -> bool:
    """Does ``--db`` name a PostgreSQL database (``postgresql://`` or ``postgres://``)?"""
    return target.startswith(("postgresql://", "postgres://"))


def shown(target: str) -> str:
    """``--db`` as it may be shown: a URL's password replaced by ``***``."""
    import re

    return re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", target) if is_url(target) else target


def open_store(target: str, *, synchronous: str = "NORMAL") -> EventStore:
    """The store ``--db``/``CAMPAIGN_DB`` names: a ``postgresql://`` URL opens
    :class:`ledger.pgstore.PostgresStore`, anything else a SQLite file (:class:`ledger.store.Store`).

    :param synchronous: the SQLite ``synchronous`` pragma (PostgreSQL commits are durable).
    :raises StoreError: the database cannot be reached or used.
    """
    if is_url(target):
        from .pgstore import PostgresStore

        return PostgresStore(target)
    from .store import Store

    return Store(target, synchronous=synchronous)
