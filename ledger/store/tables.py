"""The tables beside the log, as both SQL backends keep them: secrets (unrevealed seeds),
the web view's access links, signed-in devices, form nonces and public URL, and the snapshot
cache (:class:`ledger.store.protocols.SecretStore`, :class:`~ledger.store.protocols.AccessStore`,
:class:`~ledger.store.protocols.SnapshotStore`).

:class:`SqlTables` holds them; :class:`ledger.store.base.SqlEventStore` adds the log itself.
A backend gives the hooks declared here (``conn``, :attr:`SqlTables.MARK`,
:attr:`SqlTables.SQL`, :meth:`SqlTables.transaction`, :meth:`SqlTables._insert_id`).
"""

from __future__ import annotations

import abc
import contextlib
import json
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from ledger.errors import StoreError
from ledger.store.protocols import (
    ACCESS_FIELDS,
    API_TOKEN_FIELDS,
    SECRET_FIELDS,
    WEB_SESSION_FIELDS,
)
from ledger.store.statements import Statements


class SqlTables(abc.ABC):
    """Secrets, access links, web sessions and nonces, and snapshots in SQL (the methods'
    contracts are :class:`~ledger.store.protocols.EventStore`'s), on a DB-API connection
    ``conn`` whose ``execute`` returns a cursor."""

    #: the placeholder of a bound value
    MARK: ClassVar[str]
    #: the shared statements with :attr:`MARK`
    SQL: ClassVar[Statements]

    conn: Any

    # --- backend hooks -------------------------------------------------------------------

    @abc.abstractmethod
    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """The write transaction (see :meth:`EventStore.transaction`)."""

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
    def _insert_id(self, sql: str, args: Sequence[Any]) -> int:
        """Run an ``insert`` of one row; return its new ``id``."""

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
                raise StoreError(
                    f"a backup secret has unknown fields: {', '.join(sorted(unknown))}"
                )
            names = list(row)
            self.conn.execute(
                f"insert into secrets ({', '.join(names)}) "
                f"values ({', '.join([self.MARK] * len(names))})",
                [row[n] for n in names],
            )

    # --- access links (the web view) -------------------------------------------------

    def add_access(
        self,
        campaign: str,
        who: str,
        role: str,
        characters: Sequence[str],
        token_hash: str,
        at: str,
    ) -> int:
        """See :meth:`EventStore.add_access`."""
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

    # --- bearer tokens of the JSON API ----------------------------------------------

    def add_api_token(
        self,
        campaign: str,
        who: str,
        scope: str,
        characters: Sequence[str],
        token_hash: str,
        at: str,
    ) -> int:
        """See :meth:`EventStore.add_api_token`."""
        m = self.MARK
        with self.transaction():
            return self._insert_id(
                "insert into api_tokens (campaign, who, scope, characters, token_hash, "
                f"created_at) values ({m}, {m}, {m}, {m}, {m}, {m})",
                (campaign, who, scope, json.dumps(list(characters)), token_hash, at),
            )

    def api_token_rows(self, campaign: str) -> list[dict[str, Any]]:
        """See :meth:`EventStore.api_token_rows`."""
        rows = self.conn.execute(
            f"select {', '.join(API_TOKEN_FIELDS)} from api_tokens where campaign = {self.MARK} "
            "order by id",
            (campaign,),
        )
        return [dict(zip(API_TOKEN_FIELDS, r, strict=True)) for r in rows]

    def revoke_api_token(self, campaign: str, who: str, at: str) -> int:
        """See :meth:`EventStore.revoke_api_token`."""
        m = self.MARK
        with self.transaction():
            return int(
                self.conn.execute(
                    f"update api_tokens set revoked_at = {m} where campaign = {m} and "
                    f"lower(who) = lower({m}) and revoked_at is null",
                    (at, campaign, who),
                ).rowcount
            )

    # --- web sessions and form nonces (the web view) ----------------------------------

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

    def set_public_url(
        self, campaign: str, url: str, at: str, *, port: int | None = None
    ) -> None:
        """See :meth:`EventStore.set_public_url`."""
        with self.transaction():
            self.conn.execute(self.SQL.set_public_url, (campaign, url, at, port))

    def public_url(self, campaign: str) -> str | None:
        """See :meth:`EventStore.public_url`."""
        row = self.conn.execute(self.SQL.public_url, (campaign,)).fetchone()
        return None if row is None else str(row[0])

    def serve_port(self, campaign: str) -> int | None:
        """See :meth:`EventStore.serve_port`."""
        row = self.conn.execute(self.SQL.serve_port, (campaign,)).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def set_verified(self, campaign: str, seq: int, head_hash: str, at: str) -> None:
        """See :meth:`EventStore.set_verified`."""
        with self.transaction():
            self.conn.execute(self.SQL.set_verified, (campaign, seq, head_hash, at))

    def verified(self, campaign: str) -> tuple[int, str, str] | None:
        """See :meth:`EventStore.verified`."""
        row = self.conn.execute(self.SQL.verified, (campaign,)).fetchone()
        return None if row is None else (int(row[0]), str(row[1]), str(row[2]))

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
