"""Webhooks to the group chat, as both SQL backends keep them: the hooks, each with its
cursor (the last seq delivered), retry state and lease, and a bounded delivery log.

A hook's signing secret is not in these tables: it is a secret of kind ``"webhook"`` (its
hook id in the ``session`` column, :class:`~ledger.store.protocols.SecretStore`; the HMAC
key's bytes), kept with the seeds, so whatever keeps secrets out of a players' copy keeps it
out too. While a secret is being rotated the one it replaces is kept beside it, of kind
``"webhook-previous"``, until the hook's ``rotated_until`` (:meth:`SqlWebhooks.rotate_webhook`).

Times are UTC stamps in the stored form (``YYYY-MM-DDTHH:MM:SS.ffffffZ``), compared as text.
Two deliverers share the work through a lease on the hook's row (:meth:`SqlWebhooks.claim_webhook`,
a conditional ``update``): only the holder moves the cursor, so no entry is posted twice by
two deliverers at once. The delivery logic is :mod:`ledger.exchange.webhooks`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any, ClassVar, Protocol, runtime_checkable

#: The kinds a secret may have from m012: m010's and a hook's signing secret.
SECRET_KINDS_V5 = ("session", "downtime", "checkpoint", "webhook")
#: The kind of a hook's signing secret.
HOOK_SECRET = "webhook"
#: The kind of the secret a hook's rotation replaces, kept until the overlap ends.
PREVIOUS_HOOK_SECRET = "webhook-previous"
#: The kinds a secret may have from m015: m012's and a rotated hook's previous secret.
SECRET_KINDS_V6 = (*SECRET_KINDS_V5, PREVIOUS_HOOK_SECRET)

#: The tables of m012, ``{text}`` standing for the backend's key text type and ``{id}`` for
#: its generated integer key (never reused: a removed hook's id names no later hook).
WEBHOOK_TABLES = (
    "create table webhooks (id {id}, campaign {text}, url text not null, "
    "channel text not null check (channel in ('public', 'gm')), "
    "format text not null check (format in ('json', 'discord')), "
    "created_at text not null, last_seq bigint not null, attempts integer not null default 0, "
    "failing_since text, next_attempt_at text, paused_at text, last_error text, "
    "lease_owner text, lease_until text)",
    "create index webhooks_campaign on webhooks (campaign, id)",
    "create table webhook_deliveries (id {id}, hook_id bigint not null, seq bigint not null, "
    "at text not null, status integer, attempt integer not null, error text)",
    "create index webhook_deliveries_hook on webhook_deliveries (hook_id, id)",
)

#: The fields of a hook, as :meth:`WebhookKeeper.webhooks` gives them (no secret).
WEBHOOK_FIELDS = (
    "id",
    "url",
    "channel",
    "format",
    "created_at",
    "last_seq",
    "attempts",
    "failing_since",
    "next_attempt_at",
    "paused_at",
    "last_error",
    "rotated_until",
)
#: The fields of a delivery log row, as :meth:`WebhookKeeper.webhook_log` gives them.
DELIVERY_FIELDS = ("seq", "at", "status", "attempt", "error")
#: How many delivery log rows each hook keeps (the newest).
LOG_KEEP = 50


@runtime_checkable
class WebhookKeeper(Protocol):
    """Webhooks of a campaign: what ``campaign webhook`` and the deliverer read and write."""

    def add_webhook(
        self,
        campaign: str,
        url: str,
        channel: str,
        format: str,
        secret: bytes,
        at: str,
        cursor: int,
    ) -> int:
        """Keep a new hook (``channel`` ``"public"`` or ``"gm"``, ``format`` ``"json"`` or
        ``"discord"``) whose first entry to deliver is the one after ``cursor`` (the head
        when it was added), and its signing ``secret`` (a secret of kind ``"webhook"``), in
        one transaction; returns its id."""
        ...

    def webhooks(self, campaign: str) -> list[dict[str, Any]]:
        """Every hook of a campaign, oldest first, as :data:`WEBHOOK_FIELDS` (no secret)."""
        ...

    def remove_webhook(self, campaign: str, hook_id: int) -> bool:
        """Forget a hook, its delivery log and its secret; ``False``: no such hook."""
        ...

    def resume_webhook(self, campaign: str, hook_id: int) -> bool:
        """Unpause a hook and forget its failures (the next pass tries it at once);
        ``False``: no such hook."""
        ...

    def rotate_webhook(self, campaign: str, hook_id: int, secret: bytes, until: str) -> bool:
        """Give a hook a new signing ``secret``, in one transaction: the one it had is kept
        as its previous secret (kind ``"webhook-previous"``, replacing any earlier one) and
        the hook's ``rotated_until`` set to ``until`` (a stored UTC stamp: the end of the
        overlap during which both sign). ``False``: no such hook (nothing written)."""
        ...

    def end_webhook_rotation(self, campaign: str, hook_id: int, *, at: str | None = None) -> bool:
        """Forget a hook's previous secret and its ``rotated_until``: always (``at``
        ``None``), or only when the overlap has ended by ``at`` (``rotated_until <= at``,
        so a rotation made meanwhile is kept). ``False``: nothing was being rotated (or not
        ended by ``at``); nothing written."""
        ...

    def claim_webhook(self, hook_id: int, owner: str, at: str, until: str) -> bool:
        """Take (or renew) the hook's lease for ``owner`` until ``until``: ``True`` when no
        one else holds a lease still running at ``at`` and the hook is not paused. A
        conditional ``update``: of two deliverers claiming at once, one wins."""
        ...

    def release_webhook(self, hook_id: int, owner: str) -> None:
        """Give the lease back (when ``owner`` holds it)."""
        ...

    def advance_webhook(
        self, hook_id: int, owner: str, seq: int, *, logged: tuple[str, int] | None = None
    ) -> bool:
        """Move the cursor to ``seq`` (an entry delivered, or skipped: a GM-only entry on a
        public hook) and forget the failures, if ``owner`` still holds the lease;
        ``logged``: ``(at, status)`` of the delivery, kept in the log. ``False``: the lease
        was lost (nothing written)."""
        ...

    def webhook_failed(
        self,
        hook_id: int,
        owner: str,
        seq: int,
        *,
        at: str,
        status: int | None,
        error: str,
        next_attempt_at: str,
        pause: bool,
    ) -> None:
        """Record a failed delivery of ``seq`` (``status``: the HTTP status, ``None``: no
        answer): one more attempt, failing since the first failure, the next attempt not
        before ``next_attempt_at``, paused at ``at`` when ``pause``; logged."""
        ...

    def webhook_log(self, hook_id: int, limit: int = 10) -> list[dict[str, Any]]:
        """The hook's last deliveries, newest first, as :data:`DELIVERY_FIELDS`."""
        ...


class SqlWebhooks:
    """:class:`WebhookKeeper` in SQL, on the connection and transaction of
    :class:`ledger.store.tables.SqlTables` (mixed into :class:`ledger.store.base.SqlEventStore`)."""

    MARK: ClassVar[str]
    conn: Any

    def transaction(self) -> contextlib.AbstractContextManager[None]:  # pragma: no cover
        raise NotImplementedError

    def _insert_id(self, sql: str, args: Sequence[Any]) -> int:  # pragma: no cover
        raise NotImplementedError

    def _sql(self, sql: str) -> str:
        return sql.replace("?", self.MARK)

    def add_webhook(
        self,
        campaign: str,
        url: str,
        channel: str,
        format: str,
        secret: bytes,
        at: str,
        cursor: int,
    ) -> int:
        """See :meth:`WebhookKeeper.add_webhook`."""
        with self.transaction():
            hook_id = self._insert_id(
                self._sql(
                    "insert into webhooks (campaign, url, channel, format, created_at, last_seq) "
                    "values (?, ?, ?, ?, ?, ?)"
                ),
                (campaign, url, channel, format, at, cursor),
            )
            # a secret restored from a backup of another ledger may hold the id already
            self._drop_hook_secrets(campaign, hook_id)
            self._put_hook_secret(campaign, hook_id, HOOK_SECRET, secret)
            return hook_id

    def _drop_hook_secrets(self, campaign: str, hook_id: int, *kinds: str) -> None:
        for kind in kinds or (HOOK_SECRET, PREVIOUS_HOOK_SECRET):
            self.conn.execute(
                self._sql("delete from secrets where campaign = ? and kind = ? and session = ?"),
                (campaign, kind, hook_id),
            )

    def _put_hook_secret(self, campaign: str, hook_id: int, kind: str, secret: bytes) -> None:
        self.conn.execute(
            self._sql("insert into secrets (campaign, session, kind, seed) values (?, ?, ?, ?)"),
            (campaign, hook_id, kind, secret.hex()),
        )

    def webhooks(self, campaign: str) -> list[dict[str, Any]]:
        """See :meth:`WebhookKeeper.webhooks`."""
        rows = self.conn.execute(
            self._sql(
                f"select {', '.join(WEBHOOK_FIELDS)} from webhooks where campaign = ? order by id"
            ),
            (campaign,),
        )
        return [dict(zip(WEBHOOK_FIELDS, r, strict=True)) for r in rows]

    def remove_webhook(self, campaign: str, hook_id: int) -> bool:
        """See :meth:`WebhookKeeper.remove_webhook`."""
        with self.transaction():
            gone = self.conn.execute(
                self._sql("delete from webhooks where campaign = ? and id = ?"), (campaign, hook_id)
            ).rowcount
            if not gone:
                return False
            self.conn.execute(
                self._sql("delete from webhook_deliveries where hook_id = ?"), (hook_id,)
            )
            self._drop_hook_secrets(campaign, hook_id)
            return True

    def rotate_webhook(self, campaign: str, hook_id: int, secret: bytes, until: str) -> bool:
        """See :meth:`WebhookKeeper.rotate_webhook`."""
        with self.transaction():
            found = self.conn.execute(
                self._sql("update webhooks set rotated_until = ? where campaign = ? and id = ?"),
                (until, campaign, hook_id),
            ).rowcount
            if not found:
                return False
            self._drop_hook_secrets(campaign, hook_id, PREVIOUS_HOOK_SECRET)
            self.conn.execute(
                self._sql(
                    "update secrets set kind = ? where campaign = ? and kind = ? and session = ?"
                ),
                (PREVIOUS_HOOK_SECRET, campaign, HOOK_SECRET, hook_id),
            )
            self._put_hook_secret(campaign, hook_id, HOOK_SECRET, secret)
            return True

    def end_webhook_rotation(self, campaign: str, hook_id: int, *, at: str | None = None) -> bool:
        """See :meth:`WebhookKeeper.end_webhook_rotation`."""
        with self.transaction():
            sql = (
                "update webhooks set rotated_until = null where campaign = ? and id = ? "
                "and rotated_until is not null"
            )
            args: tuple[Any, ...] = (campaign, hook_id)
            if at is not None:
                sql, args = sql + " and rotated_until <= ?", (*args, at)
            ended = self.conn.execute(self._sql(sql), args).rowcount
            if ended:
                self._drop_hook_secrets(campaign, hook_id, PREVIOUS_HOOK_SECRET)
            return bool(ended)

    def resume_webhook(self, campaign: str, hook_id: int) -> bool:
        """See :meth:`WebhookKeeper.resume_webhook`."""
        with self.transaction():
            return bool(
                self.conn.execute(
                    self._sql(
                        "update webhooks set paused_at = null, attempts = 0, failing_since = "
                        "null, next_attempt_at = null where campaign = ? and id = ?"
                    ),
                    (campaign, hook_id),
                ).rowcount
            )

    def claim_webhook(self, hook_id: int, owner: str, at: str, until: str) -> bool:
        """See :meth:`WebhookKeeper.claim_webhook`."""
        with self.transaction():
            return (
                self.conn.execute(
                    self._sql(
                        "update webhooks set lease_owner = ?, lease_until = ? where id = ? and "
                        "paused_at is null and (lease_owner is null or lease_owner = ? or "
                        "lease_until < ?)"
                    ),
                    (owner, until, hook_id, owner, at),
                ).rowcount
                == 1
            )

    def release_webhook(self, hook_id: int, owner: str) -> None:
        """See :meth:`WebhookKeeper.release_webhook`."""
        with self.transaction():
            self.conn.execute(
                self._sql(
                    "update webhooks set lease_owner = null, lease_until = null "
                    "where id = ? and lease_owner = ?"
                ),
                (hook_id, owner),
            )

    def advance_webhook(
        self, hook_id: int, owner: str, seq: int, *, logged: tuple[str, int] | None = None
    ) -> bool:
        """See :meth:`WebhookKeeper.advance_webhook`."""
        with self.transaction():
            moved = self.conn.execute(
                self._sql(
                    "update webhooks set last_seq = ?, attempts = 0, failing_since = null, "
                    "next_attempt_at = null, last_error = null "
                    "where id = ? and lease_owner = ? and last_seq < ?"
                ),
                (seq, hook_id, owner, seq),
            ).rowcount
            if moved != 1:
                return False
            if logged is not None:
                self._log(hook_id, seq, logged[0], logged[1], 1, None)
            return True

    def webhook_failed(
        self,
        hook_id: int,
        owner: str,
        seq: int,
        *,
        at: str,
        status: int | None,
        error: str,
        next_attempt_at: str,
        pause: bool,
    ) -> None:
        """See :meth:`WebhookKeeper.webhook_failed`."""
        with self.transaction():
            row = self.conn.execute(
                self._sql("select attempts from webhooks where id = ? and lease_owner = ?"),
                (hook_id, owner),
            ).fetchone()
            if row is None:
                return
            attempt = int(row[0]) + 1
            self.conn.execute(
                self._sql(
                    "update webhooks set attempts = ?, failing_since = coalesce(failing_since, ?), "
                    "next_attempt_at = ?, last_error = ?, paused_at = ? where id = ?"
                ),
                (attempt, at, next_attempt_at, error, at if pause else None, hook_id),
            )
            self._log(hook_id, seq, at, status, attempt, error)

    def _log(
        self, hook_id: int, seq: int, at: str, status: int | None, attempt: int, error: str | None
    ) -> None:
        self.conn.execute(
            self._sql(
                "insert into webhook_deliveries (hook_id, seq, at, status, attempt, error) "
                "values (?, ?, ?, ?, ?, ?)"
            ),
            (hook_id, seq, at, status, attempt, error),
        )
        self.conn.execute(
            self._sql(
                "delete from webhook_deliveries where hook_id = ? and id not in (select id from "
                "webhook_deliveries where hook_id = ? order by id desc limit ?)"
            ),
            (hook_id, hook_id, LOG_KEEP),
        )

    def webhook_log(self, hook_id: int, limit: int = 10) -> list[dict[str, Any]]:
        """See :meth:`WebhookKeeper.webhook_log`."""
        rows = self.conn.execute(
            self._sql(
                f"select {', '.join(DELIVERY_FIELDS)} from webhook_deliveries where hook_id = ? "
                "order by id desc limit ?"
            ),
            (hook_id, limit),
        )
        return [dict(zip(DELIVERY_FIELDS, r, strict=True)) for r in rows]
