"""Submissions from many threads of one process, committed together (group commit).

Every accepted entry is an event of the league's one log, so appends to it take turns (one
chain, one Merkle tree, one lock). Sixteen tables submitting at once, each appending alone,
would mostly wait and retry; an :class:`Intake` lets the thread that gets the turn append
for every submission waiting then, in one append (:meth:`League.commit
<ledger.league.core.League.commit>`): each entry still at the stream version its character
was read at, so a race with another process is still refused by the store.

Each submission is checked in its own thread before it waits (its signature, and its
character's newest entry read by one index seek, all threads at once); the turn only
appends (with a store of its own when one is given, else the store of the thread whose
turn it is).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ledger.league.core import Checked, EntryAccepted, League, Verdict
from ledger.trust.notes import Verifier

if TYPE_CHECKING:
    from ledger.store.protocols import EventStore


@dataclass
class _Waiting:
    """A checked entry waiting for its turn, and what became of it."""

    item: Checked
    at: str
    read: tuple[int, EntryAccepted | None]
    verdict: Verdict | None = None
    error: BaseException | None = None


class Intake:
    """The submissions to league ``name`` of one process's threads (module docstring).

    Thread-safe; share one per process. Each call brings its own store (a connection of its
    thread's, or one lent by a pool).

    :param writer: makes the store the turn appends with, on the first turn (a store with a
        connection of its own, used by one thread at a time); ``None``: the store of the
        thread whose turn it is.
    """

    def __init__(self, name: str, writer: Callable[[], EventStore] | None = None) -> None:
        self.name = name
        self._make_writer = writer
        self.writer: EventStore | None = None
        self._keys: dict[str, Verifier] = {}
        self._vkey: str | None = None
        self._turn = threading.Lock()
        self._queued = threading.Lock()
        self._queue: list[_Waiting] = []

    def league(self, store: EventStore) -> League:
        """The league on ``store``, sharing this process's keyring cache and key.

        :raises LeagueError: no such league in the store.
        """
        found = League(store, self.name, keys=self._keys, vkey=self._vkey)
        self._vkey = found.vkey
        return found

    def submit(self, store: EventStore, note: str, *, at: str) -> Verdict:
        """:meth:`League.submit <ledger.league.core.League.submit>`, committed with the
        submissions of other threads waiting at the same time.

        :param at: the submission's UTC time (the batch is stamped with its latest).
        :raises LeagueError: not a signed chronicle entry (nothing kept).
        :raises StoreError: the store failed (nothing of that batch kept).
        """
        league = self.league(store)
        checked = league.check(note)
        if isinstance(checked, Verdict):
            return checked
        mine = _Waiting(checked, at, league.newest(checked.entry.passport))
        with self._queued:
            self._queue.append(mine)
        with self._turn:
            if mine.verdict is None and mine.error is None:
                with self._queued:
                    batch, self._queue = self._queue, []
                try:
                    verdicts = self._commit(league, batch)
                except BaseException as e:
                    for w in batch:
                        w.error = e
                else:
                    for w, v in zip(batch, verdicts, strict=True):
                        w.verdict = v
        if mine.error is not None:
            raise mine.error
        assert mine.verdict is not None
        return mine.verdict

    def close(self) -> None:
        """Close the writer's store, if one was made (a later turn makes another)."""
        with self._turn:
            writer, self.writer = self.writer, None
        if writer is not None:
            writer.close()

    def _commit(self, league: League, batch: list[_Waiting]) -> list[Verdict]:
        """The batch's verdicts, appended with :attr:`writer` when there is one."""
        at = max(w.at for w in batch)
        read = {i: w.read for i, w in enumerate(batch)}
        items = [w.item for w in batch]
        if self.writer is None and self._make_writer is not None:
            self.writer = self._make_writer()
        if self.writer is None:
            return league.commit(items, at=at, read=read)
        with self.writer.connected():
            writing = League(self.writer, self.name, keys=self._keys, vkey=league.vkey)
            return writing.commit(items, at=at, read=read)
