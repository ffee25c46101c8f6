"""The store that ``--db``/``CAMPAIGN_DB`` names: a SQLite file or a PostgreSQL URL."""

from __future__ import annotations

from typing import Any

from ledger.store.base import EventStore, is_url


def open_store(target: str, *, synchronous: str = "NORMAL") -> EventStore:
    """The store ``--db``/``CAMPAIGN_DB`` names: a ``postgresql://`` URL opens
    :class:`ledger.store.postgres.PostgresStore`, anything else a SQLite file (:class:`ledger.store.sqlite.Store`).

    :param synchronous: the SQLite ``synchronous`` pragma (PostgreSQL commits are durable).
    :raises StoreError: the database cannot be reached or used.
    """
    if is_url(target):
        from ledger.store.postgres import PostgresStore

        return PostgresStore(target)
    from ledger.store.sqlite import Store

    return Store(target, synchronous=synchronous)


class StoreSource:
    """Where a long-running process (``campaign serve``) gets its stores of one ledger.

    A SQLite file: each :meth:`open` is a store with a connection of its own (SQLite wants
    one per thread). PostgreSQL: every store :meth:`open` gives draws on one shared
    ``psycopg_pool.ConnectionPool`` (:func:`ledger.store.postgres.connection_pool`), made on first
    use: each :meth:`EventStore.connected` block borrows a connection the pool has just
    checked, so one the server dropped is replaced before anyone uses it; :meth:`own` is a
    store with a connection of its own that reconnects after a loss (a watcher thread's).

    :param target: the ledger, as ``--db``.
    :param application_name: how ``pg_stat_activity`` names the PostgreSQL connections
        (unless the URL names them: ``?application_name=...``).
    :param pool_size: at most this many pooled PostgreSQL connections at once.
    :param wait: seconds a call waits for a working PostgreSQL connection before
        :class:`~ledger.errors.StoreUnavailable`.
    """

    def __init__(
        self,
        target: str,
        *,
        application_name: str | None = None,
        pool_size: int = 10,
        wait: float = 10.0,
    ) -> None:
        import threading

        self.target = target
        self.application_name = application_name
        self.pool_size = pool_size
        self.wait = wait
        self._pool: Any = None
        self._lock = threading.Lock()

    def open(self) -> EventStore:
        """A store for one thread (a pooled one on PostgreSQL: use it inside
        :meth:`EventStore.connected` or a transaction).

        :raises StoreError: the database cannot be reached or used.
        """
        if not is_url(self.target):
            return open_store(self.target)
        from ledger.store.postgres import PostgresStore, connection_pool

        with self._lock:
            if self._pool is None:
                self._pool = connection_pool(
                    self.target,
                    application_name=self.application_name,
                    max_size=self.pool_size,
                    timeout=self.wait,
                )
            pool = self._pool
        return PostgresStore(pool)

    def own(self) -> EventStore:
        """A store with a connection of its own (closed by its ``close``).

        :raises StoreError: the database cannot be reached or used.
        """
        if not is_url(self.target):
            return open_store(self.target)
        from ledger.store.postgres import PostgresStore

        return PostgresStore(self.target, application_name=self.application_name)

    def close(self) -> None:
        """Close the pool (stores still open from it stop working)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
