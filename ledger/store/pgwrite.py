"""How :class:`ledger.store.postgres.PostgresStore` appends, in as few round trips as it can.

A small append outside a transaction (at most :data:`INSERT_ROWS` events) is two round
trips at most, optimistic:

1. one statement reads the head, the stored Merkle frontier and every touched stream's
   version (:data:`_READ`: one snapshot, no lock, no transaction of its own to end); the
   expected versions are checked and the batch chained on that head, client-side;
2. one statement (:data:`_WRITE`) takes the campaign's ``pg_advisory_xact_lock``, then
   inserts the rows, upserts the frontier (and any tiles the batch completed) and notifies:
   one statement outside a transaction is one implicit transaction, all or nothing. If
   another writer appended since the read, the events' primary key ``(campaign, seq)``
   refuses the seq (a unique index sees every committed row, whatever the statement's
   snapshot), nothing is kept, and the append reads again and retries (:data:`RETRIES`).
   When the insert succeeds, nothing was appended after the read (it would hold the seq),
   so the head, the versions and the frontier it chained on were the latest. And it writes
   nothing unless the head it chained on is still stored, with the hash it read: a
   database restored from an older backup has lost that head, and no primary key would
   refuse the seq after it (a gap, a broken chain); then too the append reads again. The lock
   keeps it out of a campaign a transaction holds (a read-check-append inside
   :meth:`~ledger.store.pgconnection.PgConnected.transaction`): it waits for that one to
   end. A lent or pooled connection sends its ``lock_timeout`` first, in the same round trip
   and implicit transaction (psycopg's pipeline mode, one sync).

The read of step 1 is skipped when the store has a guess of the campaign: what its last
read outside a transaction (``stream_version`` reads the head and the frontier with the
version, in the same statement) or its last append alone left it knowing
(:meth:`PgWriter._guess`). The primary key checks a guess as it checks a read: a campaign
that moved since refuses the write, and the append reads and retries. So the usual
read-then-append of an application (``stream_version``, then ``append`` with that version
expected) is two round trips in all, and a writer's next append to the same campaign one.
An expected version that differs from the guess is read again before a conflict is told.

Inside a transaction (``Campaign.append``'s read-check-append) the append stays
pessimistic: ``begin`` and the lock are sent with the transaction's first statement, in the
same round trip (in READ COMMITTED each statement takes its snapshot when it starts, so a
read sent after the lock sees the last commit of the writer the lock waited for); the head,
the versions and the frontier are read together; the rows, the notification and the
frontier's upsert go with the next statement or the ``commit``. A batch of more than
:data:`INSERT_ROWS` events goes this way too, by ``COPY`` (which pipeline mode cannot carry).
In an earlier release a small append was eight round trips or more (``begin``, lock, head, versions,
``COPY``'s two, ``pg_notify``, the frontier's read and write, ``commit``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import starmap
from typing import Any, NamedTuple

from ledger.chain import COLUMNS, ZERO_HASH, Encoded, Head, chain_rows, not_before
from ledger.errors import StoreError
from ledger.store.base import Pending, StoredEvent, as_tuples, conflicts, encode_batch
from ledger.store.pgconnection import _LOCK, _PIPELINE, PgConnected, _clash, _quiet
from ledger.store.rows import Row
from ledger.store.tree import Growth, _split, grow

#: The channel every append notifies when it commits, with the campaign's id as payload
#: (``pg_notify``): ``campaign serve``'s live log listens instead of polling.
APPENDED = "ledger_appended"
#: Each named stream's last version, one backward seek of ``(campaign, stream, version)``
#: per stream (``max(version) ... group by stream`` read every event of those streams).
_VERSIONS = (
    "select s.stream, (select e.version from events e where e.campaign = %s "
    "and e.stream = s.stream collate \"C\" order by e.version desc limit 1) "
    "from unnest(%s::text[]) as s(stream)"
)
_FRONTIER = "select size, hashes from merkle_frontier where campaign = %s"
#: An append's reads outside a transaction, in one statement (one snapshot): the head, the
#: stored frontier, then ``{versions}``: :data:`_STREAM` once for each touched stream (one
#: backward index seek each; an ``unnest`` of an array of names cost the server ten times
#: as much, and the client more to send).
_READ = (
    "select h.seq, h.hash, h.recorded_at, f.size, f.hashes{versions} from (values (1)) as one(x) "
    "left join lateral (select seq, hash, recorded_at from events where campaign = %(c)s "
    "order by seq desc limit 1) as h on true left join merkle_frontier f on f.campaign = %(c)s"
)
_STREAM = (
    ", (select version from events where campaign = %(c)s and stream = %(s{i})s "
    "order by version desc limit 1)"
)


def _read(streams: int) -> str:
    """:data:`_READ` for ``streams`` streams (``%(s0)s`` on), made once per count."""
    sql = _READS.get(streams)
    if sql is None:
        sql = _READS[streams] = _READ.format(
            versions="".join(_STREAM.format(i=i) for i in range(streams))
        )
    return sql


_READS: dict[int, str] = {}
#: An append's lock, rows, frontier and notification, in one statement: ``l`` takes the
#: campaign's lock; the rows (``e``), the frontier's upsert (``f``) and the completed tiles
#: (``t``) are each joined with ``l``'s one row, so none is written before the lock is had; a
#: data-modifying ``with`` runs once, whether or not its rows are read. One statement
#: outside a transaction is one implicit transaction: all or nothing.
_WRITE = (
    f"with l as materialized ({_LOCK}), "
    "p as materialized (select 1 from l where %s::bigint = 0 or exists (select 1 from events "
    "where campaign = %s and seq = %s::bigint and hash = %s)), "
    f"e as (insert into events ({', '.join(COLUMNS)}) select v.* from (values {{rows}}) "
    f"as v({', '.join(COLUMNS)}) cross join p returning 1), "
    "f as (insert into merkle_frontier (campaign, size, hashes) select %s, %s::bigint, "
    "%s::bytea from p where exists (select 1 from e) on conflict (campaign) do update set "
    "size = excluded.size, hashes = excluded.hashes){tiles} "
    "select (select count(*) from e), (select pg_notify(%s, %s) from p where exists "
    "(select 1 from e))"
)
#: One event's values in :data:`_WRITE` (typed: a ``values`` list under ``select`` takes
#: no types from the table).
_ROW = "(%s::bigint, %s, %s, %s::bigint, %s, %s, %s, %s, %s::bigint, %s, %s, %s)"
_TILES = (
    ", t as (insert into merkle_tiles (campaign, height, idx, hash) select v.* from "
    "(values {tiles}) as v(campaign, height, idx, hash) cross join p where exists "
    "(select 1 from e) on conflict do nothing)"
)
_TILE_ROW = "(%s, %s::int, %s::bigint, %s::bytea)"
_WRITES: dict[tuple[int, int], str] = {}


def _write_sql(rows: int, tiles: int) -> str:
    """:data:`_WRITE` for ``rows`` events and ``tiles`` completed tiles (made once each)."""
    sql = _WRITES.get((rows, tiles))
    if sql is None:
        more = _TILES.format(tiles=", ".join([_TILE_ROW] * tiles)) if tiles else ""
        sql = _WRITES[rows, tiles] = _WRITE.format(rows=", ".join([_ROW] * rows), tiles=more)
    return sql


#: How many times an append outside a transaction reads again after another writer took
#: the seq it chained at, before it gives up.
RETRIES = 100
_NOTIFY = "select pg_notify(%s, %s)"
#: The most rows an append sends as one multi-row ``INSERT`` (pipelined with the rest); a
#: larger batch goes by ``COPY`` (one statement whatever its size, two round trips).
INSERT_ROWS = 64
_INSERT = f"insert into events ({', '.join(COLUMNS)}) values "
_MARKS = f"({', '.join(['%s'] * len(COLUMNS))})"


class _Guess(NamedTuple):
    """What a store last knew of a campaign outside a transaction: its head, the stored
    frontier (size and compact range) at that head, and the versions of some streams."""

    head: Head
    size: int
    hashes: list[bytes]
    versions: dict[str, int]


#: The most campaigns a store keeps a guess of (then it starts again from none).
GUESSES = 4096


class PgWriter(PgConnected):
    """The append, import and copy of a :class:`~ledger.store.postgres.PostgresStore`."""

    #: ``{campaign: what this store last knew of it}`` (:meth:`_guess`)
    _guesses: dict[str, _Guess]
    #: ``{campaign: ((head seq, head hash, rollbacks), {stream: version})}``: the versions
    #: this store's last append inside a transaction read and wrote (:meth:`_versions_at`)
    _versions: dict[str, tuple[tuple[int, str, int], dict[str, int]]]

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
        """See :meth:`ledger.store.base.EventStore.append`: the same checks and rows as
        :meth:`ledger.store.base.SqlEventStore.append`, in two round trips (this module's
        docstring).

        :raises ConflictError: a stream is not at its expected version (both named; nothing
            written).
        :raises StoreError: the server refused, or the lock was not had in time.
        """
        encoded = encode_batch(batch)
        if not self._in_tx and _PIPELINE and encoded and len(encoded) <= INSERT_ROWS:
            with self.connected():
                for _ in range(RETRIES):
                    written = self._append_alone(
                        campaign, encoded, actor, recorded_at, session, expected_versions
                    )
                    if written is None:  # another writer appended first: read again
                        continue
                    if written:
                        return written
                    break  # [] : a tree behind its log, caught up the long way below
                else:
                    raise StoreError(
                        f"{RETRIES} other writers appended to the campaign {campaign!r} while "
                        "this append was being made: nothing was written; try again"
                    )
        return self._append_encoded(
            campaign, encoded, actor=actor, recorded_at=recorded_at, session=session,
            expected_versions=expected_versions,
        )  # fmt: skip

    def _append_alone(
        self,
        campaign: str,
        encoded: Sequence[Encoded],
        actor: str,
        recorded_at: str,
        session: int | None,
        expected: dict[str, int] | None,
    ) -> list[StoredEvent] | None:
        """One try of a small append outside a transaction, in one round trip or two (this
        module's docstring): the rows; ``None`` when another writer appended first (the
        events' primary key refused the seq: read again and retry); ``[]`` when the stored
        tree is behind the log (to be caught up inside a transaction).

        :raises ConflictError: a stream is not at its expected version (nothing written).
        """
        import psycopg

        streams = sorted({e[0] for e in encoded} | set(expected or ()))
        guess = self._guesses.get(campaign)
        if guess is None or any(s not in guess.versions for s in streams):
            guess = self._read_alone(campaign, streams)
        elif expected and any(guess.versions[s] != v for s, v in expected.items()):
            guess = self._read_alone(campaign, streams)  # a conflict is told on a fresh read
        head, known = guess.head, guess.versions
        conflicts(expected, lambda stream: known.get(stream, 0))
        if guess.size != head.seq:  # a tree behind its log (before m010): the long way
            return []
        rows = chain_rows(
            campaign,
            encoded,
            head,
            actor=actor,
            recorded_at=not_before(recorded_at, head.recorded_at),
            session=session,
            version_of=lambda stream: known.get(stream, 0),
        )
        grown = grow(head.seq, guess.hashes, [str(r[11]) for r in rows])
        statements: list[tuple[str, Any]] = []
        if not self._owned:  # a lent or pooled connection: this transaction's own timeout
            statements.append(("select set_config('lock_timeout', %s, true)",
                               (f"{self.lock_timeout}s",)))  # fmt: skip
        # p: the head chained on is still there, as guessed (a database restored from an
        # older backup has lost it: the guess runs ahead, and no primary key would refuse)
        args: list[Any] = ["campaign-ledger:" + campaign, head.seq, campaign, head.seq, head.hash]
        for row in rows:
            args += row
        args += (campaign, grown.size, b"".join(grown.hashes))
        for height, index, root in grown.tiles:
            args += (campaign, height, index, root)
        args += (APPENDED, campaign)
        statements.append((_write_sql(len(rows), len(grown.tiles)), args))
        raw = self.conn.raw
        self._guesses.pop(campaign, None)  # kept again below once the write is known
        try:
            # one implicit transaction (one sync): all or nothing
            answer = self._pipeline(statements)[-1].fetchone()
            if not answer or not answer[0]:
                return None  # the head it chained on is gone (a restore): read again
        except psycopg.errors.UniqueViolation as e:
            if e.diag.table_name == "events":
                return None  # another writer took the seq: read again
            raise _clash(e) from None
        except psycopg.Error as e:
            if not (raw.closed or raw.broken):
                raise self._error(e, "insert into events") from e
            self._dirty, self._written = True, {campaign: (int(rows[-1][0]), str(rows[-1][11]))}
            try:
                self._settle(e)  # returns when it committed
            finally:
                self._dirty, self._written = False, {}
        last = rows[-1]
        self._guess(campaign, _Guess(
            Head(last[0], last[11], last[6]), grown.size, grown.hashes,
            {**known, **{str(r[2]): int(r[3]) for r in rows}},
        ))  # fmt: skip
        return list(starmap(StoredEvent, rows))

    def _read_alone(self, campaign: str, streams: Sequence[str]) -> _Guess:
        """The campaign's head, stored frontier and the versions of ``streams``, read in
        one statement outside a transaction (:data:`_READ`), and kept as the campaign's
        guess (:meth:`_guess`)."""
        named = {"c": campaign, **{f"s{i}": stream for i, stream in enumerate(streams)}}
        ((seq, hash_, at, size, blob, *versions),) = self._send(
            [(_read(len(streams)), named)]
        )[0].fetchall()
        head = Head(seq, hash_, at) if seq is not None else Head(0, ZERO_HASH)
        known = {s: int(v or 0) for s, v in zip(streams, versions, strict=True)}
        guess = _Guess(head, int(size or 0), _split(blob), known)
        self._guess(campaign, guess)
        return guess

    def _guess(self, campaign: str, guess: _Guess) -> None:
        """Keep ``guess`` as what this store last knew of the campaign (at most
        :data:`GUESSES` campaigns): the next append alone chains on it without reading,
        and the events' primary key refuses it if the campaign moved since."""
        guesses = self._guesses
        if len(guesses) >= GUESSES and campaign not in guesses:
            guesses.clear()
        guesses[campaign] = guess


    def _before_append(
        self, campaign: str, encoded: Sequence[Encoded], expected: dict[str, int] | None
    ) -> tuple[Head, Callable[[str], int], tuple[int, list[bytes]] | None]:
        """The head, ``fn(stream) -> version`` and the stored frontier (``None``: the one
        this store wrote last fits the head) an append chains from, in one round trip with
        what the transaction owes (its ``begin`` and the campaign's lock)."""
        self.lock(campaign)
        head = self._heads.get(campaign)
        streams = sorted({e[0] for e in encoded} | set(expected or ()))
        reads: list[tuple[str, Any]] = []
        if head is None:
            reads.append((self.SQL.head, (campaign,)))
        known = self._versions_at(campaign, head, streams) if head is not None else None
        if streams and known is None:
            reads.append((_VERSIONS, (campaign, streams)))
        read_frontier = head is None or not self._frontier_fits(campaign, head.seq, head.hash)
        if read_frontier and encoded:
            reads.append((_FRONTIER, (campaign,)))
        answers = iter(self._send(reads)) if reads else iter(())
        if head is None:
            row = next(answers).fetchone()
            head = Head(row[0], row[1], row[2]) if row else Head(0, ZERO_HASH)
            self._heads[campaign] = head
        if known is None:
            read = {r[0]: int(r[1]) for r in next(answers) if r[1] is not None} if streams else {}
            known = {s: read.get(s, 0) for s in streams}
            self._keep_versions(campaign, head, known)
        stored = None
        if read_frontier and encoded:
            row = next(answers).fetchone()
            stored = (int(row[0]), _split(row[1])) if row else (0, [])
        return head, lambda stream: known.get(stream, 0), stored

    def _versions_at(
        self, campaign: str, head: Head, streams: Sequence[str]
    ) -> dict[str, int] | None:
        """``{stream: version}`` of ``streams`` at ``head`` (just read under the campaign's
        lock) without reading, when this store knows them at that same head (seq and hash):
        from its guess (:meth:`_guess`) or from what its last append inside a transaction
        read and wrote (:meth:`_keep_versions`, no transaction rolled back since). The log is
        append-only, so the versions at one head cannot change. ``None``: not known."""
        at = (head.seq, head.hash)
        guess = self._guesses.get(campaign)
        if guess is not None and (guess.head.seq, guess.head.hash) == at:
            if all(s in guess.versions for s in streams):
                return {s: guess.versions[s] for s in streams}
        kept = self._versions.get(campaign)
        if kept is not None and kept[0] == (*at, self.rollbacks):
            if all(s in kept[1] for s in streams):
                return {s: kept[1][s] for s in streams}
        return None

    def _keep_versions(self, campaign: str, head: Head, versions: dict[str, int]) -> None:
        """Keep ``versions`` as the campaign's streams' versions at ``head`` (for
        :meth:`_versions_at`; at most :data:`GUESSES` campaigns)."""
        if len(self._versions) >= GUESSES and campaign not in self._versions:
            self._versions.clear()
        self._versions[campaign] = ((head.seq, head.hash, self.rollbacks), versions)

    def _version_reader(
        self, campaign: str, encoded: Sequence[Encoded], expected: dict[str, int] | None
    ) -> Callable[[str], int]:
        """Every stream of the batch or of ``expected`` read at once (:data:`_VERSIONS`)."""
        return self._before_append(campaign, encoded, expected)[1]

    def _write(self, campaign: str, rows: list[Row]) -> None:
        """The rows, sent with the transaction's next round trip (more than
        :data:`INSERT_ROWS`: by ``COPY`` now), and the notification of the append."""
        if not rows:
            return
        self._guesses.pop(campaign, None)
        if len(rows) > INSERT_ROWS:
            self._copy(rows)
        else:
            self._owe(_INSERT + ", ".join([_MARKS] * len(rows)), [v for r in rows for v in r],
                      writes=True)  # fmt: skip
            self._written[campaign] = (int(rows[-1][0]), str(rows[-1][11]))
        self._heads[campaign] = Head(rows[-1][0], rows[-1][11], rows[-1][6])
        # the versions at the new head, for this store's next append: those it knew at
        # the head the rows chain on (seq before the first, its hash), then the rows' own
        kept = self._versions.get(campaign)
        chained_on = (int(rows[0][0]) - 1, str(rows[0][10]), self.rollbacks)
        known = kept[1] if kept is not None and kept[0] == chained_on else {}
        last = rows[-1]
        self._keep_versions(campaign, Head(last[0], last[11], last[6]),
                            {**known, **{str(r[2]): int(r[3]) for r in rows}})  # fmt: skip
        # delivered at commit, to every listener (PostgreSQL folds repeats in one
        # transaction): ``campaign serve``'s live log wakes on it
        self._owe(_NOTIFY, (APPENDED, campaign))

    def _save_growth(self, campaign: str, grown: Growth) -> None:
        """The frontier's upsert and the completed tiles, sent with the transaction's next
        round trip (at once outside a transaction)."""
        if not self._in_tx:
            super()._save_growth(campaign, grown)
            return
        self._owe(
            "insert into merkle_frontier (campaign, size, hashes) values (%s, %s, %s) "
            "on conflict (campaign) do update set size = excluded.size, "
            "hashes = excluded.hashes",
            (campaign, grown.size, b"".join(grown.hashes)),
            writes=True,
        )
        for height, index, root in grown.tiles:
            self._owe(
                "insert into merkle_tiles (campaign, height, idx, hash) "
                "values (%s, %s, %s, %s) on conflict do nothing",
                (campaign, height, index, root),
                writes=True,
            )

    def insert_rows(self, rows: Sequence[StoredEvent] | Sequence[Sequence[Any]]) -> None:
        """Insert already-chained events as they are (import, copy; or rows in
        :data:`COLUMNS` order), inside :meth:`transaction`.

        :raises StoreError: a row clashes with a stored one (its campaign already has it).
        """
        rows = as_tuples(rows)
        for campaign in sorted({str(r[1]) for r in rows}):
            self.lock(campaign)
            self._heads.pop(campaign, None)
            self._guesses.pop(campaign, None)
        self._copy(rows)
        self._grow_trees(rows)

    def _copy(self, rows: Sequence[Sequence[Any]]) -> None:
        """``COPY events FROM STDIN`` of the rows (after what the transaction owes); the
        last (seq, hash) of each campaign is kept, to settle a commit that got no answer."""
        import psycopg

        raw = self.conn.raw
        self._dirty = True
        try:
            with (
                _quiet(),
                raw.cursor() as cur,
                cur.copy(f"copy events ({', '.join(COLUMNS)}) from stdin") as copy,
            ):
                write = copy.write_row
                for row in rows:
                    write(row)
        except psycopg.errors.IntegrityError as e:
            raise _clash(e) from None
        except psycopg.Error as e:
            raise self._error(e, "copy") from e
        if self._in_tx:
            for row in rows:
                self._written[str(row[1])] = (int(row[0]), str(row[11]))
