"""The store that ``--db``/``CAMPAIGN_DB`` names: a SQLite file or a PostgreSQL URL."""

from __future__ import annotations

from ledger.store.base import EventStore, is_url


def open_store(target: str, *, synchronous: str = "NORMAL") -> EventStore:
    """The store ``--db``/``CAMPAIGN_DB`` names: a ``postgresql://`` URL opens
    :class:`ledger.pgstore.PostgresStore`, anything else a SQLite file (:class:`ledger.store.Store`).

    :param synchronous: the SQLite ``synchronous`` pragma (PostgreSQL commits are durable).
    :raises StoreError: the database cannot be reached or used.
    """
    if is_url(target):
        from ledger.store.postgres import PostgresStore

        return PostgresStore(target)
    from ledger.store.sqlite import Store

    return Store(target, synchronous=synchronous)
