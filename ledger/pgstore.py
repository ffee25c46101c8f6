"""The append-only event store on PostgreSQL (psycopg 3): the second
:class:`~ledger.eventstore.EventStore` backend, for a service that keeps many campaigns.

Selected by a URL in ``--db``/``CAMPAIGN_DB`` (``postgresql://user@host:5432/dbname``; put
``?options=-csearch_path%3Dname`` in it to use another schema). docs/postgres.md says how to
run it: roles, grants, backups.

The same tables as the SQLite store (:mod:`ledger.store`), with the same migrations by name,
recorded in ``ledger_migrations``: ``events`` (one row per event; ``data`` is the canonical
JSON as ``text``, never ``jsonb``, so every byte the hash covers is kept), ``secrets``,
``snapshots``, ``access`` (the web view's links, #18), ``public_url`` (where the web view is
reached, #24). Many campaigns share one database: each row names its campaign, and each
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

from .chain import COLUMNS, Encoded, Head
from .eventstore import PagedRows, Row, RowFilter, SqlEventStore, Statements, StoreError

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
    (
        # where players reach the web view (#24), as ledger.store.m009_public_url
        "m009_public_url",
        (
            f"create table public_url (campaign {_TEXT} primary key, url text not null, "
            "set_at text not null)",
        ),
    ),
)
MIGRATION_NAMES = tuple(name for name, _ in MIGRATIONS)
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


class PostgresStore(SqlEventStore):
    """The append-only store in a PostgreSQL database (an
    :class:`~ledger.eventstore.EventStore`; what it shares with SQLite's:
    :class:`~ledger.eventstore.SqlEventStore`).

    :param target: a ``postgresql://`` URL (a connection of its own is opened), or an open
        ``psycopg.Connection`` (for example one lent by a ``psycopg_pool.ConnectionPool``; it
        is put in autocommit mode and not closed by :meth:`close`).
    :param lock_timeout: seconds a writer waits for a campaign's lock before giving up.
    :raises StoreError: the database cannot be reached or migrated.
    """

    MARK = "%s"
    SQL = Statements().marked(MARK)
    JSON_FIELD = "(data::jsonb ->> '{0}')"

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
        self._committed()

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
            self._heads[campaign] = Head(rows[-1][0], rows[-1][11])

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

    def _insert_id(self, sql: str, args: Sequence[Any]) -> int:
        row = self.conn.execute(sql + " returning id", args).fetchone()
        return int(row[0]) if row else 0
