"""The append-only event store on SQLite (sqlite-utils), with the hash chain.

DESIGN.md "Store": one file may hold several campaigns, each with its own gap-free ``seq``
from 1 and its own hash chain. WAL mode; triggers refuse UPDATE and DELETE on ``events``;
appends run in ``BEGIN IMMEDIATE`` transactions that check expected stream versions, chain
and insert a whole batch, or write nothing.

Tables: ``events`` (one row per event, readable in Datasette: the envelope's columns with
``data`` as JSON), ``secrets`` (unrevealed session seeds), ``snapshots`` (a cache of
projected state), ``_sqlite_migrations``.
"""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec
import sqlite_utils
from sqlite_utils.migrations import Migrations

from .codec import canonical_envelope, encode_data
from .events import Envelope, Event, event_tag, stream_of

migrations = Migrations("ledger")

COLUMNS = (
    "seq",
    "campaign",
    "stream",
    "version",
    "type",
    "data",
    "recorded_at",
    "actor",
    "session",
    "visibility",
    "prev_hash",
    "hash",
)
ZERO_HASH = "0" * 64


@migrations()
def m001_events(db: sqlite_utils.Database) -> None:
    """The events table, its indexes and the append-only triggers."""
    db.execute(
        """
        create table events (
            campaign text not null,
            seq integer not null,
            stream text not null,
            version integer not null,
            type text not null,
            data text not null,
            recorded_at text not null,
            actor text not null,
            session integer,
            visibility text not null check (visibility in ('public', 'gm')),
            prev_hash text not null,
            hash text not null,
            primary key (campaign, seq),
            unique (campaign, stream, version)
        )
        """
    )
    db.execute("create index events_type on events (campaign, type, seq)")
    db.execute("create index events_stream on events (campaign, stream, seq)")
    db.execute("create index events_session on events (campaign, session)")
    for op in ("update", "delete"):
        db.execute(
            f"create trigger events_no_{op} before {op} on events "
            "begin select raise(abort, 'events are append-only'); end"
        )


@migrations()
def m002_secrets_snapshots(db: sqlite_utils.Database) -> None:
    """Secrets (unrevealed seeds) and the snapshot cache."""
    db.execute(
        "create table secrets (campaign text not null, session integer not null, "
        "seed text not null, primary key (campaign, session))"
    )
    db.execute(
        "create table snapshots (campaign text not null, stream text not null, "
        "seq integer not null, as_gm integer not null, state blob not null, "
        "primary key (campaign, stream, as_gm, seq))"
    )


class ConflictError(Exception):
    """An expected stream version is stale: someone else appended first. Nothing written."""


class StoreError(Exception):
    """The store refuses a write (unknown campaign, bad batch). Nothing written."""


@dataclass(frozen=True)
class Pending:
    """One event to append, with the envelope fields the caller decides."""

    event: Event
    visibility: str | None = None  # None: the event class's own visibility


@dataclass(frozen=True)
class Head:
    """A campaign's head: last ``seq`` (0 when empty) and its ``hash``."""

    seq: int
    hash: str


def chain_hash(prev_hash: str, canonical: bytes) -> str:
    """``sha256(bytes.fromhex(prev_hash) + canonical).hexdigest()`` (DESIGN.md "Events")."""
    return hashlib.sha256(bytes.fromhex(prev_hash) + canonical).hexdigest()


class Store:
    """The append-only store of one SQLite file.

    :param db: a path or a ``sqlite_utils.Database``.
    :param synchronous: SQLite ``synchronous`` pragma: ``"NORMAL"`` (default in WAL mode: a
        power loss may lose the last committed transactions but never corrupts the log) or
        ``"FULL"`` (every commit durable before it returns).
    """

    def __init__(self, db: sqlite_utils.Database | str, *, synchronous: str = "NORMAL") -> None:
        if isinstance(db, str):
            db = sqlite_utils.Database(db)
        self.db = db
        self.conn: sqlite3.Connection = db.conn
        self.conn.isolation_level = None  # we issue BEGIN IMMEDIATE ourselves
        self.conn.execute("pragma busy_timeout = 30000")
        if self.conn.execute("pragma journal_mode").fetchone()[0] != "wal":
            self.conn.execute("pragma journal_mode = wal")
        if synchronous.upper() not in {"NORMAL", "FULL", "EXTRA"}:
            raise StoreError(f"synchronous must be NORMAL, FULL or EXTRA, not {synchronous!r}")
        self.conn.execute(f"pragma synchronous = {synchronous.upper()}")
        if migrations.pending(db):
            with self.transaction():
                if migrations.pending(db):
                    migrations.apply(db)
        self._in_tx = False

    # --- transactions --------------------------------------------------------------------

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """A ``BEGIN IMMEDIATE`` transaction (nestable: inner ones join the outer)."""
        if getattr(self, "_in_tx", False):
            yield
            return
        self.conn.execute("begin immediate")
        self._in_tx = True
        try:
            yield
        except BaseException:
            self._in_tx = False
            self.conn.execute("rollback")
            raise
        self._in_tx = False
        self.conn.execute("commit")

    # --- reading -------------------------------------------------------------------------

    def campaigns(self) -> list[tuple[str, str]]:
        """``(campaign id, data of its campaign.created event)`` for every campaign."""
        return list(
            self.conn.execute(
                "select campaign, data from events where seq = 1 and type = 'campaign.created' "
                "order by campaign"
            )
        )

    def head(self, campaign: str) -> Head:
        """The campaign's head (``Head(0, ZERO_HASH)`` when it has no events)."""
        row = self.conn.execute(
            "select seq, hash from events where campaign = ? order by seq desc limit 1",
            (campaign,),
        ).fetchone()
        return Head(row[0], row[1]) if row else Head(0, ZERO_HASH)

    def stream_version(self, campaign: str, stream: str) -> int:
        """The version of a stream's last event (0 when the stream is empty)."""
        row = self.conn.execute(
            "select max(version) from events where campaign = ? and stream = ?",
            (campaign, stream),
        ).fetchone()
        return row[0] or 0

    def rows(
        self,
        campaign: str,
        *,
        after: int = 0,
        upto: int | None = None,
        types: Sequence[str] | None = None,
        stream: str | None = None,
        streams: Sequence[str] | None = None,
        columns: str = ", ".join(COLUMNS),
    ) -> Iterator[tuple[Any, ...]]:
        """Stored rows of a campaign in ``seq`` order, streamed (never all in memory).

        :param after: only ``seq > after``. :param upto: only ``seq <= upto``.
        :param types: only these ``type`` tags. :param stream: only this stream.
        :param streams: only these streams.
        """
        sql = f"select {columns} from events where campaign = ? and seq > ?"
        args: list[Any] = [campaign, after]
        if upto is not None:
            sql += " and seq <= ?"
            args.append(upto)
        if types:
            sql += f" and type in ({', '.join('?' * len(types))})"
            args.extend(types)
        if stream is not None:
            sql += " and stream = ?"
            args.append(stream)
        if streams:
            sql += f" and stream in ({', '.join('?' * len(streams))})"
            args.extend(streams)
        sql += " order by seq"
        cursor = self.conn.execute(sql, args)
        while batch := cursor.fetchmany(1024):
            yield from batch

    def last_of_types(self, campaign: str, types: Sequence[str]) -> tuple[Any, ...] | None:
        """The latest row whose type is one of ``types`` (``None`` if there is none)."""
        return self.conn.execute(
            f"select {', '.join(COLUMNS)} from events where campaign = ? "
            f"and type in ({', '.join('?' * len(types))}) order by seq desc limit 1",
            [campaign, *types],
        ).fetchone()

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
    ) -> list[tuple[Any, ...]]:
        """Append a whole batch, chained after the campaign's head; all or nothing.

        :param expected_versions: ``{stream: version}`` each stream must be at before the
            batch (optimistic concurrency); omit a stream to append unconditionally.
        :returns: the stored rows (tuples in :data:`COLUMNS` order).
        :raises ConflictError: a stream is not at its expected version (both named).
        """
        with self.transaction():
            head = self.head(campaign)
            if expected_versions:
                for stream, expected in expected_versions.items():
                    actual = self.stream_version(campaign, stream)
                    if actual != expected:
                        raise ConflictError(
                            f"stream {stream!r} is at version {actual}, not the expected "
                            f"version {expected}: reload and try again"
                        )
            versions: dict[str, int] = {}
            rows = []
            prev = head.hash
            seq = head.seq
            for item in batch:
                event = item.event
                stream = stream_of(event)
                if stream not in versions:
                    versions[stream] = self.stream_version(campaign, stream)
                versions[stream] += 1
                seq += 1
                data = encode_data(event)
                type_ = event_tag(type(event))
                visibility = item.visibility or type(event).visibility
                row_hash = chain_hash(
                    prev,
                    canonical_envelope(
                        Envelope(
                            seq=seq,
                            campaign=campaign,
                            stream=stream,
                            version=versions[stream],
                            type=type_,
                            data=msgspec.Raw(data),
                            recorded_at=recorded_at,
                            actor=actor,
                            session=session,
                            visibility=visibility,
                            prev_hash=prev,
                        )
                    ),
                )
                rows.append(
                    (
                        seq,
                        campaign,
                        stream,
                        versions[stream],
                        type_,
                        data.decode(),
                        recorded_at,
                        actor,
                        session,
                        visibility,
                        prev,
                        row_hash,
                    )
                )
                prev = row_hash
            self.insert_rows(rows)
        return rows

    def insert_rows(self, rows: Sequence[Sequence[Any]]) -> None:
        """Insert already-chained rows (import). Call inside :meth:`transaction`."""
        self.conn.executemany(
            f"insert into events ({', '.join(COLUMNS)}) values ({', '.join('?' * len(COLUMNS))})",
            rows,
        )

    # --- secrets -------------------------------------------------------------------------

    def put_secret(self, campaign: str, session: int, seed: bytes) -> None:
        """Keep a session's seed until it is revealed."""
        self.conn.execute(
            "insert into secrets (campaign, session, seed) values (?, ?, ?)",
            (campaign, session, seed.hex()),
        )

    def get_secret(self, campaign: str, session: int) -> bytes | None:
        """A session's unrevealed seed, or ``None``."""
        row = self.conn.execute(
            "select seed from secrets where campaign = ? and session = ?", (campaign, session)
        ).fetchone()
        return bytes.fromhex(row[0]) if row else None

    def drop_secret(self, campaign: str, session: int) -> None:
        """Forget a seed once its reveal is in the log."""
        self.conn.execute(
            "delete from secrets where campaign = ? and session = ?", (campaign, session)
        )

    # --- snapshots -----------------------------------------------------------------------

    def save_snapshot(
        self, campaign: str, stream: str, seq: int, as_gm: bool, state: bytes
    ) -> None:
        """Cache a stream's projected state as of ``seq`` (replaces an equal key)."""
        self.conn.execute(
            "insert or replace into snapshots (campaign, stream, seq, as_gm, state) "
            "values (?, ?, ?, ?, ?)",
            (campaign, stream, seq, int(as_gm), state),
        )

    def load_snapshot(
        self, campaign: str, stream: str, upto: int, as_gm: bool
    ) -> tuple[int, bytes] | None:
        """The newest cached ``(seq, state)`` of a stream at or before ``upto``."""
        return self.conn.execute(
            "select seq, state from snapshots where campaign = ? and stream = ? and as_gm = ? "
            "and seq <= ? order by seq desc limit 1",
            (campaign, stream, int(as_gm), upto),
        ).fetchone()
