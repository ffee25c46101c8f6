"""The rows of a read: what :meth:`ledger.store.protocols.EventRecorder.rows` gives back, and
the paging both SQL backends share.

A full read gives :class:`~ledger.envelope.StoredEvent` s; a read that names its columns
(:func:`column_names`) gives tuples of them in the order asked, unpacked by name
(``for seq, data in store.rows(c, columns="seq, data")``). A read is a :class:`RowStream`,
run on first iteration and fetched in pages (:class:`PagedRows`), so no read holds a whole
log in memory.
"""

from __future__ import annotations

import abc
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import starmap
from typing import Any, Protocol, TypeVar, runtime_checkable

from ledger.envelope import COLUMNS, StoredEvent
from ledger.errors import StoreError

#: A narrowed row: a tuple of the columns a read asked for, in the order asked.
Row = tuple[Any, ...]


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


T_co = TypeVar("T_co", covariant=True)


@runtime_checkable
class RowStream(Protocol[T_co]):
    """The events of one :meth:`EventStore.rows` read, fetched on first iteration, in
    pages: :class:`~ledger.envelope.StoredEvent` s for a full read, :data:`Row` tuples in the
    order of the columns asked for otherwise.

    Before iteration starts, :meth:`narrow` may fetch only some fields of a full read
    instead (the projection reads four of the twelve).
    """

    #: the column names fetched, in order (:data:`COLUMNS` for a full read)
    columns: tuple[str, ...]

    @property
    def started(self) -> bool:
        """Has iteration begun (then :meth:`narrow` is refused)?"""
        ...

    def narrow(self, fields: Sequence[str | None]) -> Iterator[Row]:
        """The same rows as tuples of ``fields``, in that order; a ``None`` field is a
        ``None`` in every tuple, not fetched (one loop can unpack a fast and a slow
        path's fields by name).

        :raises RuntimeError: iteration already began.
        :raises StoreError: a name not in :data:`COLUMNS`.
        """
        ...

    def __iter__(self) -> Iterator[T_co]: ...

    def __next__(self) -> T_co: ...


class PagedRows(Iterator[Any]):
    """The part of a :class:`RowStream` both backends share: the query runs on first
    iteration (or :meth:`narrow`), through the backend's ``_fetch(select)``, a generator of
    tuples for a list of column names or ``"null"`` placeholders. A full read
    (:attr:`full`) turns each tuple into a :class:`~ledger.envelope.StoredEvent` (in C:
    ``StoredEvent(*row)`` through ``itertools.starmap``)."""

    columns: tuple[str, ...]
    #: a full read: rows are StoredEvents (else tuples of :attr:`columns`)
    full: bool = False
    _rows: Iterator[Any] | None = None

    @abc.abstractmethod
    def _fetch(self, select: list[str]) -> Iterator[Row]:
        """The rows for ``select`` (column names or ``"null"``); each backend defines it."""

    @property
    def started(self) -> bool:
        """Has iteration begun (then :meth:`narrow` is refused)?"""
        return self._rows is not None

    def narrow(self, fields: Sequence[str | None]) -> Iterator[Row]:
        """The same rows as tuples of ``fields`` (``None``: a ``None`` placeholder).

        :raises RuntimeError: iteration already began.
        :raises StoreError: a name not in :data:`COLUMNS`.
        """
        if self._rows is not None:
            raise RuntimeError("this query is already being read")
        column_names([f for f in fields if f is not None] or ["seq"])
        self._rows = iter(())
        return self._fetch([f if f is not None else "null" for f in fields])

    def __iter__(self) -> Iterator[Any]:
        if self._rows is None:
            rows = self._fetch(list(self.columns))
            self._rows = starmap(StoredEvent, rows) if self.full else rows
        return self._rows

    def __next__(self) -> Any:
        return next(iter(self))


@dataclass(frozen=True)
class RowFilter:
    """What one :meth:`EventStore.rows` read asks for (its keyword arguments but
    ``columns``)."""

    after: int = 0
    upto: int | None = None
    types: Sequence[str] | None = None
    stream: str | None = None
    streams: Sequence[str] | None = None
    session: int | None = None
    actor: str | None = None
    descending: bool = False
    version_after: int | None = None
    version_upto: int | None = None
    limit: int | None = None
