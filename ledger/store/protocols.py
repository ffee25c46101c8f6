"""The storage protocols: what ``ledger/`` needs from a backend, in four small parts.

- :class:`EventRecorder`: the log itself (transactions, reads, appends).
- :class:`SecretStore`: unrevealed seeds (a session's, a downtime's).
- :class:`SnapshotStore`: cached projected state (deleting it changes no answer).
- :class:`AccessStore`: the web view's links, signed-in devices, form nonces, public URL.

:class:`Pending` is what an append takes: an event and the envelope fields its caller decides.

:class:`EventStore` is all four, as :class:`ledger.store.sqlite.Store` and
:class:`ledger.store.postgres.PostgresStore` implement them (through
:class:`ledger.store.base.SqlEventStore`); a caller that needs less asks for less. Errors
come from :mod:`ledger.errors`; nothing is written when one is raised.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, overload, runtime_checkable

import msgspec

from ledger.chain import Head
from ledger.envelope import StoredEvent
from ledger.events import Event, Visibility
from ledger.store.hooks import WebhookKeeper
from ledger.store.tree import TreeKeeper

if TYPE_CHECKING:
    from ledger.store.rows import Row, RowStream


class Pending(msgspec.Struct, frozen=True, gc=False):
    """One event to append, with the envelope fields the caller decides: ``Pending(event)``
    or ``Pending(event, visibility="gm")``: what :meth:`EventRecorder.append` takes (the SQL
    base encodes it; :mod:`ledger.store.base` hands it on). A struct, not a frozen
    dataclass: one is made per appended event, ten times as fast."""

    event: Event
    visibility: Visibility | None = None  # None: the event class's own visibility


@runtime_checkable
class EventRecorder(Protocol):
    """What ``ledger/`` needs from storage. Implemented by :class:`ledger.store.sqlite.Store`
    (SQLite) and :class:`ledger.store.postgres.PostgresStore` (PostgreSQL).

    Writes happen inside :meth:`transaction` (``append`` and ``drop_snapshots`` open their
    own when called outside one). Errors: :class:`ConflictError` (stale expected version),
    :class:`StoreError` (refused write, unusable database); nothing is written when either
    is raised.
    """

    #: how many transactions rolled back on this store (caches keyed by the head compare it)
    rollbacks: int
    #: ``(campaign, seq)`` of each write whose commit got no answer (the connection to the
    #: database was lost) and that the store found stored when it looked afterwards, oldest
    #: first: done, but a front end says it was confirmed after a lost connection
    confirmed_after_loss: list[tuple[str, int]]

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

    def connected(self) -> contextlib.AbstractContextManager[None]:
        """Hold one working connection for the work inside (nestable). A store drawing on a
        pool (:class:`StoreSource`) borrows a connection checked by the pool and gives it
        back at the end, and is only used inside it; other stores keep their own
        connection and have nothing to do.

        :raises StoreUnavailable: no working connection could be had.
        """
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

    @overload
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
        columns: None = None,
    ) -> RowStream[StoredEvent]: ...

    @overload
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
        columns: Sequence[str] | str,
    ) -> RowStream[Row]: ...

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
        """Stored events of a campaign in ``seq`` order (newest first with ``descending``),
        streamed in pages (never all in memory): :class:`~ledger.envelope.StoredEvent` s,
        or with ``columns`` tuples of those columns in the order asked (unpack them by
        name: ``for seq, data in store.rows(c, columns="seq, data")``).

        :param after: only ``seq > after``. :param upto: only ``seq <= upto``.
        :param types: only these ``type`` tags. :param stream: only this stream.
        :param streams: only these streams. :param session: only this envelope session.
        :param actor: only events this actor recorded.
        :param version_after: only stream ``version > version_after``.
        :param version_upto: only stream ``version <= version_upto`` (with ``stream``: a
            range of one stream's versions, as an event-sourced aggregate reads itself).
        :param limit: at most this many events (the first in the order read).
        :param columns: the columns of each tuple (names from :data:`COLUMNS`, or one
            string of them separated by commas); ``None``: whole events.
        :raises StoreError: an unknown column name, or a negative ``limit``.
        """
        ...

    def last_of_types(self, campaign: str, types: Sequence[str]) -> StoredEvent | None:
        """The latest event whose type is one of ``types`` (``None`` if there is none)."""
        ...

    def last_seq_at(self, campaign: str, recorded_at: str) -> int:
        """The ``seq`` of the event recorded latest at or before ``recorded_at`` (a UTC
        stamp in the stored form ``YYYY-MM-DDTHH:MM:SS.ffffffZ``; ties: the highest seq; 0
        when none), found by one index seek (``events_time``).

        ``recorded_at`` never decreases along ``seq`` in what :meth:`append` writes, so this
        is the highest seq recorded at or before the time: the log as it stood then. In a log
        imported from a ledger whose clock ran backwards before appends kept times in order
        (``campaign verify`` names where), it is the last event of the time order, not of
        the log order.
        """
        ...

    def seq_of_hash(self, campaign: str, hash_: str) -> int | None:
        """The ``seq`` of the event whose ``hash`` is ``hash_``, or starts with it (a
        receipt's first 16 or more hex digits; the first such event) (``None``: none)."""
        ...

    def engine_rolls(
        self, campaign: str, session: int, *, before: int | None = None, scheme: str | None = None
    ) -> int:
        """How many engine rolls session ``session`` holds (before seq ``before``, if given):
        the next engine roll's nonce (docs/events.md "Engine dice schemes").

        :param scheme: count only rolls of this scheme (``"ledger-downtime-v1"``: the rolls
            drawn from the downtime seed committed at the session's end).
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
    ) -> list[StoredEvent]:
        """Append a whole batch, chained after the campaign's head (:mod:`ledger.chain`);
        all or nothing.

        :param recorded_at: the batch's UTC time; when it is earlier than the head's
            ``recorded_at`` (a clock behind the ledger) the batch is stamped with the head's
            instead, read under the campaign's lock: within a campaign ``recorded_at`` never
            decreases along ``seq``. The caller sees it in the rows returned.
        :param expected_versions: ``{stream: version}`` each stream must be at before the
            batch (optimistic concurrency); omit a stream to append unconditionally.
        :returns: the stored events, in seq order.
        :raises ConflictError: a stream is not at its expected version (both named).
        """
        ...

    def insert_rows(self, rows: Sequence[StoredEvent] | Sequence[Sequence[Any]]) -> None:
        """Insert already-chained events as they are (import, copy; tuples in
        :data:`COLUMNS` order are taken too). Call inside :meth:`transaction`; the caller
        has checked the chain."""
        ...


@runtime_checkable
class SecretStore(Protocol):
    """Unrevealed seeds, kept apart from the log until they are revealed (docs/architecture.md)."""

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


@runtime_checkable
class SnapshotStore(Protocol):
    """Snapshots of projected state: a cache, per stream, keyed by what they depend on."""

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

    def set_verified(self, campaign: str, seq: int, head_hash: str, at: str) -> None:
        """Keep that ``verify`` proved the log up to ``seq``, ending in ``head_hash``
        (replacing the record before). A record, not a proof: readers use it only
        while the stored event ``seq`` still has ``head_hash``."""
        ...

    def verified(self, campaign: str) -> tuple[int, str, str] | None:
        """What :meth:`set_verified` kept: ``(seq, head hash, verified_at)``, or ``None``."""
        ...


#: The fields of a secrets row, as :meth:`EventStore.secret_rows` gives them.
SECRET_FIELDS = ("campaign", "session", "kind", "seed")
#: The fields of an access row, as :meth:`EventStore.access_rows` gives them.
ACCESS_FIELDS = ("id", "who", "role", "characters", "token_hash", "created_at", "revoked_at")
#: The fields of an API token row, as :meth:`EventStore.api_token_rows` gives them.
API_TOKEN_FIELDS = ("id", "who", "scope", "characters", "token_hash", "created_at", "revoked_at")
#: The fields of a web session row, as :meth:`EventStore.web_sessions` gives them.
WEB_SESSION_FIELDS = (
    "id",
    "access_id",
    "sid_hash",
    "device",
    "created_at",
    "seen_at",
    "ended_at",
    "tokens",
    "tokens_at",
)


@runtime_checkable
class AccessStore(Protocol):
    """The web view's access links, signed-in devices, form nonces and public address."""

    # --- access links (the web view) ----------------------------------------------

    def add_access(
        self,
        campaign: str,
        who: str,
        role: str,
        characters: Sequence[str],
        token_hash: str,
        at: str,
    ) -> int:
        """Keep a new access link of the web view: only its token's sha256 (``role``
        ``"gm"`` or ``"player"``, ``characters`` ids granted by name); returns its id."""
        ...

    def access_rows(self, campaign: str) -> list[dict[str, Any]]:
        """Every access link of a campaign, oldest first: ``{"id", "who", "role",
        "characters" (JSON list), "token_hash", "created_at", "revoked_at" (None: live)}``."""
        ...

    def revoke_access(self, campaign: str, who: str, at: str) -> int:
        """Revoke every live link of ``who`` (case-insensitive) at ``at``, and end (delete)
        the web sessions of every revoked link of the campaign; returns how many links."""
        ...

    # --- bearer tokens of the JSON API ------------------------------------------

    def add_api_token(
        self,
        campaign: str,
        who: str,
        scope: str,
        characters: Sequence[str],
        token_hash: str,
        at: str,
    ) -> int:
        """Keep a new API token: only its sha256 (``scope`` ``"read"``, ``"roll"`` or
        ``"gm"``, ``characters`` ids granted by name); returns its id."""
        ...

    def api_token_rows(self, campaign: str) -> list[dict[str, Any]]:
        """Every API token of a campaign, oldest first: ``{"id", "who", "scope",
        "characters" (JSON list), "token_hash", "created_at", "revoked_at" (None: live)}``."""
        ...

    def revoke_api_token(self, campaign: str, who: str, at: str) -> int:
        """Revoke every live API token of ``who`` (case-insensitive) at ``at``; returns how
        many."""
        ...

    # --- web sessions and form nonces (the web view) -------------------------------

    def add_web_session(
        self, campaign: str, access_id: int, sid_hash: str, device: str, at: str, tokens: float
    ) -> int:
        """Keep a new web session of link ``access_id``: only the session id's sha256, the
        device's label, when it began (``at``, also its last use) and its write bucket
        (``tokens`` as of ``at``); returns its id."""
        ...

    def web_sessions(self, campaign: str, *, sid_hash: str | None = None) -> list[dict[str, Any]]:
        """The web sessions of a campaign, oldest first (only the one whose id hashes to
        ``sid_hash`` when given): ``{"id", "access_id", "sid_hash", "device", "created_at",
        "seen_at", "ended_at" (None: live), "tokens", "tokens_at"}``."""
        ...

    def touch_web_session(self, session_id: int, at: str) -> None:
        """Record that the session was used at ``at`` (its idle expiry counts from there)."""
        ...

    def end_web_session(self, session_id: int, at: str) -> int:
        """End a session (``/logout``): it no longer lets anyone in, but its row (and its
        write bucket) stays until swept; returns 1, or 0 when it had already ended."""
        ...

    def spend_web_tokens(
        self, session_id: int, tokens: float, at: str, *, was: tuple[float, str]
    ) -> bool:
        """Set the session's write bucket to ``tokens`` left as of ``at`` if it still holds
        ``was`` (``(tokens, tokens_at)`` as read): ``False`` when another writer changed it
        first (read it again). A compare-and-set, so two writers cannot spend one write."""
        ...

    def drop_web_sessions(self, campaign: str, ids: Sequence[int]) -> int:
        """Delete sessions (and their form nonces); returns how many there were."""
        ...

    def add_web_nonce(self, session_id: int, nonce_hash: str, at: str, *, keep: int) -> None:
        """Keep a form nonce's sha256 for a session; only the session's ``keep`` newest
        nonces are kept (the older ones are forgotten)."""
        ...

    def use_web_nonce(self, session_id: int, nonce_hash: str, at: str) -> bool:
        """Mark an unused nonce of the session used: ``True`` if it was unused (this call
        used it), ``False`` if it was used already or is unknown. Inside a transaction,
        with the write it guards: a rollback makes it unused again."""
        ...

    def web_nonce(self, session_id: int, nonce_hash: str) -> str:
        """A nonce's state: ``"unused"``, ``"used"`` or ``"unknown"`` (never issued to this
        session, or forgotten)."""
        ...

    def set_public_url(
        self, campaign: str, url: str, at: str, *, port: int | None = None
    ) -> None:
        """Keep ``url`` (``scheme://host[:port]``) as where players reach the campaign's web
        view, replacing the one kept before (``campaign serve``); with ``port`` (1 to
        65535), keep it as the port ``serve`` listens on from now on (``None``: the port
        kept before stays)."""
        ...

    def public_url(self, campaign: str) -> str | None:
        """The web view's public base URL :meth:`set_public_url` kept (``None``: never
        served)."""
        ...

    def serve_port(self, campaign: str) -> int | None:
        """The port :meth:`set_public_url` kept for the campaign's web view (``None``:
        none kept yet)."""
        ...


@runtime_checkable
class EventStore(
    EventRecorder, SecretStore, SnapshotStore, AccessStore, TreeKeeper, WebhookKeeper, Protocol
):
    """Everything ``ledger/`` needs from storage: the four protocols together, the Merkle
    tree and checkpoints each append keeps (:class:`ledger.store.tree.TreeKeeper`), and
    the webhooks (:class:`ledger.store.hooks.WebhookKeeper`)."""
