"""The rows of a read: what :meth:`ledger.store.protocols.EventRecorder.rows` gives back, and
the paging both SQL backends share.

A row is a tuple in :data:`~ledger.chain.COLUMNS` order (or in the order of the columns a
read names: :func:`column_names`). A read is a :class:`RowStream`, run on first iteration and
fetched in pages (:class:`PagedRows`), so no read holds a whole log in memory.
"""

from __future__ import annotations

import abc
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ledger.chain import COLUMNS
from ledger.errors import StoreError

#: A stored row: a tuple in :data:`COLUMNS` order (or in the order of the columns asked for).
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


@runtime_checkable
class RowStream(Protocol):
    """The rows of one :meth:`EventStore.rows` read, fetched on first iteration, in pages.

    Before iteration starts, :meth:`narrow` may fetch only some fields instead (the
    projection reads four of the twelve).
    """

    #: the column names of each row, in order
    columns: tuple[str, ...]

    @property
    def started(self) -> bool:
        """Has iteration begun (then :meth:`narrow` is refused)?"""
        ...

    def narrow(self, fields: Sequence[str]) -> Iterator[Row]:
        """The same rows, full width (:attr:`columns`), with only ``fields`` fetched and
        every other place ``None``.

        :raises RuntimeError: iteration already began.
        """
        ...

    def __iter__(self) -> Iterator[Row]: ...

    def __next__(self) -> Row: ...


class PagedRows(Iterator[Row]):
    """The part of a :class:`RowStream` both backends share: the query runs on first
    iteration (or :meth:`narrow`), through the backend's ``_fetch(select)``, a generator of
    rows for a list of column names or ``"null"`` placeholders."""

    columns: tuple[str, ...]
    _rows: Iterator[Row] | None = None

    @abc.abstractmethod
    def _fetch(self, select: list[str]) -> Iterator[Row]:
        """The rows for ``select`` (column names or ``"null"``); each backend defines it."""

    @property
    def started(self) -> bool:
        """Has iteration begun (then :meth:`narrow` is refused)?"""
        return self._rows is not None

    def narrow(self, fields: Sequence[str]) -> Iterator[Row]:
        """The same rows, full width, with only ``fields`` fetched (the other places None).

        :raises RuntimeError: iteration already began.
        """
        if self._rows is not None:
            raise RuntimeError("this query is already being read")
        keep = set(column_names(list(fields)))
        self._rows = iter(())
        return self._fetch([c if c in keep else "null" for c in self.columns])

    def __iter__(self) -> Iterator[Row]:
        if self._rows is None:
            self._rows = self._fetch(list(self.columns))
        return self._rows

    def __next__(self) -> Row:
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
