"""The append-only event store on PostgreSQL (psycopg 3): the second
:class:`~ledger.eventstore.EventStore` backend, for a service that keeps many campaigns.

Selected by a URL in ``--db``/``CAMPAIGN_DB`` (``postgresql://user@host:5432/dbname``; put
``?options=-csearch_path%3Dname`` in it to use another schema). docs/postgres.md says how to
run it: roles, grants, backups.

The same tables as the SQLite store (:mod:`ledger.store`), with the same migrations by name,
recorded in ``ledger_migrations``: ``events`` (one row per event; ``data`` is the canonical
JSON as ``text``, never ``jsonb``, so every byte the hash covers is kept), ``secrets``,
``snapshots``, ``access`` (the web view's links, #18). Many campaigns share one database: each row names its campaign, and each
campaign has its own gap-free ``seq`` and hash chain.

How appends stay correct with many writers (the approach of eventsourcing's PostgreSQL
recorder, which takes ``LOCK TABLE ... IN EXCLUSIVE MODE`` so notification ids commit in
order, narrowed to one campaign): a write transaction takes
``pg_advisory_xact_lock`` on the campaign id before its first read of that campaign, so
appends to one campaign are serialised (the head it chains after is the head it read,
every seq is the last plus one, and a later seq never commits before an earlier one), while
appends to different campaigns run in parallel. The lock is released at commit or
rollback. ``lock_timeout`` bounds the wait (30 s, like SQLite's busy timeout).

Triggers refuse UPDATE, DELETE and TRUNCATE on ``events``; a hosted service should also
grant its application role only INSERT and SELECT on it (docs/postgres.md).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .chain import COLUMNS, ZERO_HASH, Head, chain_rows
from .eventstore import (
    ConflictError,
    PagedRows,
    Pending,
    Row,
    StoreError,
    column_names,
    encode_batch,
)

if TYPE_CHECKING:
    import psycopg

_TEXT = 'text collate "C" not null'
MIGRATIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "m001_events",
        (
            f"""
            create table events (
                campaign {_TEXT},
                seq bigint not null,
                stream {_TEXT},
                version bigint not null,
                type {_TEXT},
                data text not null,
                recorded_at {_TEXT},
                actor {_TEXT},
                session bigint,
                visibility text not null check (visibility in ('public', 'gm')),
                prev_hash {_TEXT},
                hash {_TEXT},
                primary key (campaign, seq),
                unique (campaign, stream, version)
            )
            """,
            "create index events_type on events (campaign, type, seq)",
            "create index events_stream on events (campaign, stream, seq)",
            "create index events_session on events (campaign, session)",
            "create index events_created on events (campaign) where seq = 1",
            """
            create function events_append_only() returns trigger language plpgsql as $$
            begin raise exception 'events are append-only'; end $$
            """,
            "create trigger events_no_update before update on events "
            "for each row execute function events_append_only()",
            "create trigger events_no_delete before delete on events "
            "for each row execute function events_append_only()",
            "create trigger events_no_truncate before truncate on events "
            "for each statement execute function events_append_only()",
        ),
    ),
    (
        "m002_secrets_snapshots",
        (
            f"create table secrets (campaign {_TEXT}, session bigint not null, "
            "seed text not null, primary key (campaign, session))",
            f"create table snapshots (campaign {_TEXT}, stream {_TEXT}, seq bigint not null, "
            "as_gm integer not null, state bytea not null, "
            "primary key (campaign, stream, as_gm, seq))",
        ),
    ),
    (
        "m003_snapshot_fingerprints",
        (
            "drop table snapshots",
            f"create table snapshots (campaign {_TEXT}, stream {_TEXT}, seq bigint not null, "
            f"as_gm integer not null, basis {_TEXT}, digest text not null, "
            "state bytea not null, primary key (campaign, stream, as_gm, seq, basis))",
        ),
    ),
    (
        "m004_secret_kinds",
        (
            "alter table secrets add column kind text not null default 'session' "
            "check (kind in ('session', 'downtime'))",
            "alter table secrets drop constraint secrets_pkey",
            "alter table secrets add primary key (campaign, kind, session)",
        ),
    ),
    (
        "m005_read_indexes",
        (
            "create index events_session_seq on events (campaign, session, seq)",
            "drop index events_session",
            "create index events_time on events (campaign, recorded_at, seq)",
        ),
    ),
    (
        # access links of the web view (#18), as ledger.store.m006_access: the token kept only
        # as its sha256; a revoked link keeps its row with revoked_at set
        "m006_access",
        (
            "create table access (id bigint generated always as identity primary key, "
            f"campaign {_TEXT}, who text not null, "
            "role text not null check (role in ('gm', 'player')), "
            "characters text not null default '[]', token_hash text not null unique, "
            "created_at text not null, revoked_at text)",
            "create index access_campaign on access (campaign, id)",
        ),
    ),
)
MIGRATION_NAMES = tuple(name for name, _ in MIGRATIONS)
#: The advisory lock key that serialises migrations (any constant both sides agree on).
MIGRATION_LOCK = 0x1ED6E5
_LOCK = "select pg_advisory_xact_lock(hashtextextended(%s, 0))"
_SECRET_FIELDS = ("campaign", "session", "kind", "seed")
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
    from .eventstore import shown

    return shown(url)


class PgRowQuery(PagedRows):
    """The rows of one :meth:`PostgresStore.rows` read (a
    :class:`~ledger.eventstore.RowStream`), fetched in pages by keyset (``seq > last``).

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
        conn = store.conn
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
            page = conn.execute(
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


class PostgresStore:
    """The append-only store in a PostgreSQL database (an
    :class:`~ledger.eventstore.EventStore`).

    :param target: a ``postgresql://`` URL (a connection of its own is opened), or an open
        ``psycopg.Connection`` (for example one lent by a ``psycopg_pool.ConnectionPool``; it
        is put in autocommit mode and not closed by :meth:`close`).
    :param lock_timeout: seconds a writer waits for a campaign's lock before giving up.
    :raises StoreError: the database cannot be reached or migrated.
    """

    def __init__(self, target: str | psycopg.Connection[Any], *, lock_timeout: int = 30) -> None:
        import psycopg

        self._owned = isinstance(target, str)
        if isinstance(target, str):
            try:
                self.conn: psycopg.Connection[Any] = psycopg.connect(target, autocommit=True)
            except psycopg.Error as e:
                raise StoreError(
                    f"cannot open the database {_redacted(target)}: "
                    f"{' '.join(str(e).split())} (check the URL and that the server runs)"
                ) from None
        else:
            self.conn = target
            self.conn.autocommit = True
        self.url = _redacted(target) if isinstance(target, str) else "(a lent connection)"
        self.lock_timeout = int(lock_timeout)
        if self._owned:  # a lent connection gets it per transaction (set local)
            self.conn.execute(f"set lock_timeout = '{self.lock_timeout}s'")
        self._in_tx = False
        self._locked: set[str] = set()
        self._heads: dict[str, Head] = {}  # heads known inside the current transaction
        #: how many transactions rolled back on this store (caches compare it)
        self.rollbacks = 0
        self._after_commit: list[Callable[[], None]] = []
        try:
            self._migrate()
        except psycopg.Error as e:
            raise StoreError(f"cannot prepare the database {self.url}: {e}") from None

    # --- lifecycle ---------------------------------------------------------------------

    def _migrate(self) -> None:
        """Apply the missing migrations in one transaction, under an advisory lock (many
        processes may open a fresh database at once)."""
        conn = self.conn
        if self._applied() == list(MIGRATION_NAMES):
            return
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
                    conn.execute(sql)
                conn.execute("insert into ledger_migrations (name) values (%s)", (name,))

    def _applied(self) -> list[str]:
        row = self.conn.execute("select to_regclass('ledger_migrations')").fetchone()
        if row is None or row[0] is None:
            return []
        return [
            r[0]
            for r in self.conn.execute(
                "select name from ledger_migrations order by applied_at, name"
            )
        ]

    def migrations(self) -> list[str]:
        """The names of the migrations applied to this database, in order."""
        return self._applied()

    def close(self) -> None:
        """Close the connection (a lent one is left open for its pool)."""
        if self._owned:
            self.conn.close()

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction (nestable: inner ones join the outer). Its first read or write of
        a campaign takes that campaign's advisory lock (:meth:`lock`)."""
        if self._in_tx:
            yield
            return
        self._in_tx = True
        try:
            with self.conn.transaction():
                if not self._owned:
                    self.conn.execute(f"set local lock_timeout = '{self.lock_timeout}s'")
                yield
        except BaseException:
            self.rollbacks += 1
            self._after_commit.clear()
            raise
        finally:
            self._in_tx = False
            self._locked.clear()
            self._heads.clear()
        callbacks, self._after_commit = self._after_commit, []
        for fn in callbacks:
            fn()

    def after_commit(self, fn: Callable[[], None]) -> None:
        """Call ``fn()`` once the outermost transaction commits, outside it (at once when
        no transaction is open); never when it rolls back (as :meth:`ledger.store.Store.after_commit`)."""
        if not self._in_tx:
            fn()
            return
        self._after_commit.append(fn)

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
        row = self.conn.execute(
            "select seq, hash from events where campaign = %s order by seq desc limit 1",
            (campaign,),
        ).fetchone()
        head = Head(row[0], row[1]) if row else Head(0, ZERO_HASH)
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
    ) -> PgRowQuery:
        """Stored rows of a campaign in ``seq`` order, in pages:
        :meth:`ledger.eventstore.EventStore.rows`.

        :raises StoreError: an unknown column name.
        """
        names = COLUMNS if columns is COLUMNS else column_names(columns)
        self.lock(campaign)
        where = ""
        args: list[Any] = []
        if types:
            where += " and type = any(%s)"
            args.append(list(types))
        if stream is not None:
            where += " and stream = %s"
            args.append(stream)
        if streams:
            where += " and stream = any(%s)"
            args.append(list(streams))
        if session is not None:
            where += " and session = %s"
            args.append(session)
        if actor is not None:
            where += " and actor = %s"
            args.append(actor)
        return PgRowQuery(
            self, campaign, names, where, args, after=after, upto=upto, descending=descending
        )

    def last_of_types(self, campaign: str, types: Sequence[str]) -> Row | None:
        """The latest row whose type is one of ``types`` (``None`` if there is none)."""
        self.lock(campaign)
        return self.conn.execute(
            f"select {', '.join(COLUMNS)} from events where campaign = %s "
            "and type = any(%s) order by seq desc limit 1",
            (campaign, list(types)),
        ).fetchone()

    def last_seq_at(self, campaign: str, recorded_at: str) -> int:
        """The last ``seq`` recorded at or before ``recorded_at`` (0 when none)."""
        self.lock(campaign)
        row = self.conn.execute(
            "select seq from events where campaign = %s and recorded_at <= %s "
            "order by recorded_at desc, seq desc limit 1",
            (campaign, recorded_at),
        ).fetchone()
        return int(row[0]) if row else 0

    def seq_of_hash(self, campaign: str, hash_: str) -> int | None:
        """The ``seq`` of the event whose ``hash`` is ``hash_`` (``None``: no such event)."""
        row = self.conn.execute(
            "select seq from events where campaign = %s and hash = %s", (campaign, hash_)
        ).fetchone()
        return int(row[0]) if row else None

    def engine_rolls(
        self, campaign: str, session: int, *, before: int | None = None, scheme: str | None = None
    ) -> int:
        """How many engine rolls session ``session`` holds (before seq ``before``): the next
        engine roll's nonce (DESIGN.md "Dice and verifiable randomness")."""
        self.lock(campaign)
        sql = (
            "select count(*) from events where campaign = %s and session = %s "
            "and (data::jsonb ->> 'source') = 'engine'"
        )
        args: list[Any] = [campaign, session]
        if scheme is not None:
            sql += " and (data::jsonb ->> 'scheme') = %s"
            args.append(scheme)
        if before is not None:
            sql += " and seq < %s"
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
        """Append a whole batch under the campaign's lock, chained after its head; all or
        nothing (:meth:`ledger.eventstore.EventStore.append`).

        :raises ConflictError: a stream is not at its expected version (both named).
        """
        encoded = encode_batch(batch)
        with self.transaction():
            head = self.head(campaign)  # takes the campaign's lock first
            streams = {e[0] for e in encoded} | set(expected_versions or ())
            known = self._versions(campaign, sorted(streams)) if streams else {}
            for stream, expected in (expected_versions or {}).items():
                actual = known.get(stream, 0)
                if actual != expected:
                    raise ConflictError(
                        f"stream {stream!r} is at version {actual}, not the expected "
                        f"version {expected}: reload and try again"
                    )
            rows = chain_rows(
                campaign,
                encoded,
                head,
                actor=actor,
                recorded_at=recorded_at,
                session=session,
                version_of=lambda stream: known.get(stream, 0),
            )
            self._copy(rows)
            if rows:
                self._heads[campaign] = Head(rows[-1][0], rows[-1][11])
        return rows

    def insert_rows(self, rows: Sequence[Sequence[Any]]) -> None:
        """Insert already-chained rows as they are (import, copy), inside :meth:`transaction`.

        :raises StoreError: a row clashes with a stored one (its campaign already has it).
        """
        import psycopg

        for campaign in sorted({str(r[1]) for r in rows}):
            self.lock(campaign)
            self._heads.pop(campaign, None)
        try:
            self._copy(rows)
        except psycopg.errors.IntegrityError as e:
            raise StoreError(
                f"these events clash with stored ones: {e.diag.message_detail or e}"
            ) from None

    def _copy(self, rows: Sequence[Sequence[Any]]) -> None:
        """``COPY events FROM STDIN`` of the rows (one round trip for a whole batch)."""
        with (
            self.conn.cursor() as cur,
            cur.copy(f"copy events ({', '.join(COLUMNS)}) from stdin") as copy,
        ):
            write = copy.write_row
            for row in rows:
                write(row)

    # --- secrets -------------------------------------------------------------------------

    def put_secret(self, campaign: str, session: int, seed: bytes, kind: str = "session") -> None:
        """Keep a seed until it is revealed (``kind``: ``"session"`` or ``"downtime"``)."""
        self.lock(campaign)
        self.conn.execute(
            "insert into secrets (campaign, session, kind, seed) values (%s, %s, %s, %s)",
            (campaign, session, kind, seed.hex()),
        )

    def get_secret(self, campaign: str, session: int, kind: str = "session") -> bytes | None:
        """An unrevealed seed, or ``None``."""
        self.lock(campaign)
        row = self.conn.execute(
            "select seed from secrets where campaign = %s and session = %s and kind = %s",
            (campaign, session, kind),
        ).fetchone()
        return bytes.fromhex(row[0]) if row else None

    def drop_secret(self, campaign: str, session: int, kind: str = "session") -> None:
        """Forget a seed once its reveal is in the log."""
        self.lock(campaign)
        self.conn.execute(
            "delete from secrets where campaign = %s and session = %s and kind = %s",
            (campaign, session, kind),
        )

    def secret_rows(self, campaign: str) -> list[dict[str, Any]]:
        """Every secret of a campaign as ``{"campaign", "session", "kind", "seed"}``."""
        return [
            dict(zip(_SECRET_FIELDS, r, strict=True))
            for r in self.conn.execute(
                f"select {', '.join(_SECRET_FIELDS)} from secrets where campaign = %s "
                "order by kind, session",
                (campaign,),
            )
        ]

    def restore_secrets(self, rows: Sequence[dict[str, Any]]) -> None:
        """Insert secrets rows as :meth:`secret_rows` gives them (inside :meth:`transaction`).

        :raises StoreError: a row naming a field the secrets table does not have.
        """
        for row in rows:
            unknown = set(row) - set(_SECRET_FIELDS)
            if unknown:
                raise StoreError(
                    f"a backup secret has unknown fields: {', '.join(sorted(unknown))}"
                )
            names = list(row)
            self.conn.execute(
                f"insert into secrets ({', '.join(names)}) values ({', '.join(['%s'] * len(names))})",
                [row[n] for n in names],
            )

    # --- access links (the web view, #18) -------------------------------------------------

    def add_access(
        self, campaign: str, who: str, role: str, characters: Sequence[str], token_hash: str, at: str
    ) -> int:
        """Keep a new access link (only its token's hash); returns its id."""
        import json

        with self.transaction():
            row = self.conn.execute(
                "insert into access (campaign, who, role, characters, token_hash, created_at) "
                "values (%s, %s, %s, %s, %s, %s) returning id",
                (campaign, who, role, json.dumps(list(characters)), token_hash, at),
            ).fetchone()
        return int(row[0]) if row else 0

    def access_rows(self, campaign: str) -> list[dict[str, Any]]:
        """Every access link of a campaign, oldest first, as ``{column: value}``."""
        cursor = self.conn.execute(
            "select id, who, role, characters, token_hash, created_at, revoked_at from access "
            "where campaign = %s order by id",
            (campaign,),
        )
        names = [d.name for d in cursor.description or ()]
        return [dict(zip(names, row, strict=True)) for row in cursor]

    def revoke_access(self, campaign: str, who: str, at: str) -> int:
        """Revoke every live link of ``who`` (case-insensitive); returns how many."""
        with self.transaction():
            return self.conn.execute(
                "update access set revoked_at = %s where campaign = %s "
                "and lower(who) = lower(%s) and revoked_at is null",
                (at, campaign, who),
            ).rowcount

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
        """Cache a stream's projected state as of ``seq`` (replaces one of the same seq and
        basis)."""
        self.conn.execute(
            "insert into snapshots (campaign, stream, seq, as_gm, basis, digest, state) "
            "values (%s, %s, %s, %s, %s, %s, %s) on conflict (campaign, stream, as_gm, seq, basis) "
            "do update set digest = excluded.digest, state = excluded.state",
            (campaign, stream, seq, int(as_gm), basis, digest, state),
        )

    def load_snapshot(
        self, campaign: str, stream: str, upto: int, as_gm: bool, *, basis: str, after: int = 0
    ) -> tuple[int, bytes, str] | None:
        """The newest cached ``(seq, state, digest)`` with this ``basis`` and
        ``after <= seq <= upto`` (``None`` when there is none)."""
        row = self.conn.execute(
            "select seq, state, digest from snapshots where campaign = %s and stream = %s "
            "and as_gm = %s and seq <= %s and seq >= %s and basis = %s order by seq desc limit 1",
            (campaign, stream, int(as_gm), upto, after, basis),
        ).fetchone()
        return (int(row[0]), bytes(row[1]), row[2]) if row else None

    def drop_snapshot(self, campaign: str, stream: str, seq: int, as_gm: bool, basis: str) -> None:
        """Delete one cached snapshot."""
        self.conn.execute(
            "delete from snapshots where campaign = %s and stream = %s and seq = %s "
            "and as_gm = %s and basis = %s",
            (campaign, stream, seq, int(as_gm), basis),
        )

    def drop_snapshots(self, campaign: str) -> int:
        """Delete every cached snapshot of a campaign; returns how many there were."""
        with self.transaction():
            cur = self.conn.execute("delete from snapshots where campaign = %s", (campaign,))
            return cur.rowcount

    def snapshot_rows(self, campaign: str) -> Iterator[tuple[str, int, int, str, str, bytes]]:
        """Every cached snapshot: ``(stream, as_gm, seq, basis, digest, state)`` by seq."""
        rows = self.conn.execute(
            "select stream, as_gm, seq, basis, digest, state from snapshots "
            "where campaign = %s order by seq",
            (campaign,),
        ).fetchall()
        return iter([(r[0], r[1], r[2], r[3], r[4], bytes(r[5])) for r in rows])
