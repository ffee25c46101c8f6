"""Reading a campaign's state: at the head, as of any seq, through snapshots.

:class:`StateReader` folds a campaign's events through its rule system
(:class:`~ledger.rules.projection.Projector`), starting from the newest snapshot that still
matches (:mod:`ledger.rules.snapshots`), and keeps the head states the last append left so the
next write validates without replaying.
"""

from __future__ import annotations

import contextlib
import datetime
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

import msgspec

from ledger.chain import Head
from ledger.errors import NotFound, RuleError
from ledger.events import CAMPAIGN_STREAM, Recorded, StoredEvent
from ledger.rules.projection import (
    SNAPSHOT_EVERY,
    Corrections,
    Projector,
    decode_state,
    encode_state,
    load_corrections,
)

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

T = TypeVar("T")

#: What :meth:`StateReader.memo` may keep, each with the event types whose append changes
#: it (an append of any other type keeps it under the new head).
MEMO_TYPES: dict[str, frozenset[str]] = {
    "characters": frozenset({"character.created", "correction.recorded"}),
    "characters+retracted": frozenset({"character.created", "correction.recorded"}),
    "session": frozenset({"session.started", "session.ended", "session.abandoned"}),
}


class StateReader:
    """One campaign's states: at the head (cached for the next append), as of a seq, or
    just before an event.

    :param campaign: the campaign read (its store, id, rule system, codec and appliers).
    """

    def __init__(self, campaign: Campaign) -> None:
        self.store = campaign.store
        self.id = campaign.id
        self.system = campaign.system
        self.codec = campaign.codec
        self.appliers = campaign.appliers
        self._fingerprint: dict[str, Any] | None = None
        # states at the head after the campaign's own last append (GM view), so a long-lived
        # writer validates a batch without replaying. Keyed by the head's hash (not its seq:
        # another writer may append a different event at the same seq after a rollback) and
        # the store's rollback count, so it is dropped when the head moved or a write rolled
        # back
        self._cache: dict[str, Any] = {}
        self._cache_head: tuple[str, int] | None = None
        #: the seq of the snapshot the last :meth:`state_of` folded from (0: from the first
        #: event), so ``audit`` can say what its re-derivation started from
        self.last_snapshot = 0
        # answers of reads that depend only on the log up to the head (the characters, the
        # open session), kept under the head they were read at (seq, hash, the store's
        # rollback count): the log is append-only (a correction is an appended event too),
        # so under the same head they cannot have changed. Used only while :meth:`at_head`
        # knows the head (inside an append, under the campaign's lock)
        self._memo: dict[str, Any] = {}
        self._memo_head: tuple[int, str, int] | None = None
        self._head_now: tuple[int, str, int] | None = None

    def projector(self) -> Projector:
        """A fresh projector for this campaign (sharing the campaign's applier table)."""
        return Projector(self.system, self.codec, self.appliers)

    def corrections(self, upto: int | None = None) -> Corrections:
        """The corrections in force up to ``upto``."""
        return load_corrections(self.store, self.id, self.codec, upto)

    def states(self, *, upto: int | None = None, as_gm: bool = True) -> dict[str, Any]:
        """Every character's state as of ``upto`` (default: head), by full replay."""
        corrections = self.corrections(upto)
        return self.projector().fold(
            self.store.rows(self.id, upto=upto), {}, corrections, as_gm=as_gm
        )

    def state_of(
        self,
        character: str,
        *,
        upto: int | None = None,
        as_gm: bool = True,
        save_snapshots: bool = True,
    ) -> Any:
        """One character's state as of ``upto``, from the newest snapshot whose fingerprint
        matches (:mod:`ledger.rules.snapshots`; any other is ignored and rebuilt on the way).

        :raises NotFound: the character did not exist at ``upto``.
        """
        from ledger.rules import snapshots

        head = self.store.head(self.id).seq
        upto = head if upto is None else min(upto, head)
        corrections = self.corrections(upto)
        basis = snapshots.Basis(self.fingerprint(), corrections)
        states: dict[str, Any] = {}
        start = 0
        snap = snapshots.load(
            self.store, self.id, character, upto, as_gm, basis,
            lambda blob: decode_state(self.system, blob),
        )  # fmt: skip
        if snap is not None:
            start = snap.seq
            states[character] = snap.state
        self.last_snapshot = start
        pending: list[tuple[int, bytes]] = []
        counter = [0]
        last = [0]

        def on_step(seq: int, st: dict[str, Any]) -> None:
            counter[0] += 1
            last[0] = seq
            if counter[0] % SNAPSHOT_EVERY == 0 and character in st:
                pending.append((seq, encode_state(st[character])))

        rows = self.store.rows(
            self.id, after=start, upto=upto, streams=[character, CAMPAIGN_STREAM]
        )
        projector = self.projector()
        states = projector.fold(
            rows, states, corrections, as_gm=as_gm, on_step=on_step if save_snapshots else None
        )
        if character not in states:
            raise NotFound(f"character {character!r} did not exist at seq {upto}")
        if save_snapshots and counter[0] % SNAPSHOT_EVERY >= max(1, SNAPSHOT_EVERY // 5):
            # where this read ended, so the next read of this moment (the next roll's, a
            # recap's) folds a few events, not up to SNAPSHOT_EVERY again
            pending.append((last[0], encode_state(states[character])))
        if pending:
            with self.store.transaction():
                for seq, blob in pending:
                    at = basis.at(seq)
                    self.store.save_snapshot(
                        self.id, character, seq, as_gm, blob,
                        basis=at, digest=snapshots.digest(at, blob),
                    )  # fmt: skip
        return states[character]

    def fingerprint(self) -> dict[str, Any]:
        """What this campaign's snapshots depend on (:func:`ledger.rules.snapshots.system_fingerprint`),
        computed once per object."""
        if self._fingerprint is None:
            from ledger.rules.snapshots import system_fingerprint

            self._fingerprint = system_fingerprint(self.system, self.codec)
        return self._fingerprint

    def head_state(self, character: str) -> Any:
        """``character``'s state at the head (GM view), kept for the next append's
        validation: a roll folds its character once, not once to resolve and again to
        validate. Refreshed when the head moved or a transaction rolled back.

        :raises NotFound: no such character.
        """
        key = (self.store.head(self.id).hash, self.store.rollbacks)
        if self._cache_head != key:
            self._cache, self._cache_head = {}, key
        if character not in self._cache:
            self._cache[character] = self.state_of(character)
        return self._cache[character]

    def cached(self, head_hash: str) -> dict[str, Any]:
        """The head states kept for a write whose head has ``head_hash`` (``{}`` when another
        writer appended or a transaction rolled back since they were kept)."""
        if self._cache_head != (head_hash, self.store.rollbacks):
            self._cache, self._cache_head = {}, None
        return self._cache

    def keep(self, states: dict[str, Any], head_hash: str) -> None:
        """Keep ``states`` (after an append whose last event has ``head_hash``) for the next."""
        self._cache.update(states)
        self._cache_head = (head_hash, self.store.rollbacks)

    @contextlib.contextmanager
    def at_head(self, head: Head) -> Iterator[None]:
        """Inside: the campaign's head is ``head`` (read in the write's transaction, under
        its lock), so :meth:`memo` may answer from what it kept under that same head."""
        key = (head.seq, head.hash, self.store.rollbacks)
        if self._memo_head != key:
            self._memo, self._memo_head = {}, key
        outer, self._head_now = self._head_now, key
        try:
            yield
        finally:
            self._head_now = outer

    def memo(self, name: str, read: Callable[[], T]) -> T:
        """``read()``, kept under the head :meth:`at_head` knows and reused while the head
        is the same; outside :meth:`at_head` (the head unknown), always ``read()``.
        ``name`` must be one of :data:`MEMO_TYPES`."""
        if self._head_now is None or self._head_now != self._memo_head:
            return read()
        if name not in self._memo:
            self._memo[name] = read()
        return cast("T", self._memo[name])

    def prefetch(self, read: Callable[[], dict[str, Any]]) -> None:
        """Under :meth:`at_head`, unless every :data:`MEMO_TYPES` answer is kept already:
        keep those ``read()`` gives (all of them, read together: one round trip)."""
        if self._head_now is None or self._head_now != self._memo_head:
            return
        if not MEMO_TYPES.keys() <= self._memo.keys():
            self._memo.update(read())

    def moved(self, written: Sequence[StoredEvent]) -> None:
        """The campaign's own append wrote ``written`` on the head :meth:`at_head` knows:
        what those event types cannot change (:data:`MEMO_TYPES`) is kept under the new
        head, the rest dropped (kept nothing when the head was not known)."""
        if not written or self._head_now is None or self._head_now != self._memo_head:
            return
        types = {e.type for e in written}
        self._memo = {k: v for k, v in self._memo.items() if not types & MEMO_TYPES[k]}
        last = written[-1]
        self._memo_head = self._head_now = (last.seq, last.hash, self.store.rollbacks)

    def forget(self) -> None:
        """Drop the kept states (a correction changed history: the next read replays)."""
        self._cache, self._cache_head = {}, None

    def state_before(
        self, target: Recorded, corrections: Corrections, stream: str | None = None
    ) -> Any:
        """The state of ``target``'s character (or of ``stream``, e.g. a contest's
        opponent) just before it, with ``corrections``.

        :raises NotFound: the character did not exist then.
        """
        stream = stream or target.stream
        states = self.projector().fold(
            self.store.rows(self.id, upto=target.seq - 1, streams=[stream, CAMPAIGN_STREAM]),
            {},
            corrections,
        )
        if stream not in states:
            raise NotFound(f"character {stream!r} did not exist before event {target.seq}")
        return states[stream]


def resolve_as_of(campaign: Campaign, as_of: str | None) -> int:
    """The ``seq`` ``campaign``'s ``--as-of`` names: ``SEQ``, ``session:N`` (its end, or now if open),
    ``day:N`` (the campaign once N in-fiction days had passed) or an ISO time.

    :raises RuleError: a bad value, naming the accepted forms.
    """
    head = campaign.store.head(campaign.id).seq
    if as_of is None:
        return head
    text = as_of.strip()
    if text.isdigit() and len(text) <= 18:
        return min(int(text), head)
    if text.startswith("day:"):  # in-fiction days
        from ledger.campaign import timeline

        return timeline.seq_of_day(campaign, text)
    if text.startswith("session:") and text[8:].isdigit() and len(text) <= 26:
        number = int(text[8:])
        closed = ["session.ended", "session.abandoned"]
        for seq, data in campaign.store.rows(  # the session's own rows (events_session_seq)
            campaign.id, session=number, types=closed, columns="seq, data"
        ):
            if msgspec.json.decode(data)["number"] == number:
                return int(seq)
        if number == campaign.current_session():
            return head
        raise NotFound(f"session {number} has not been played in {campaign.id}")
    try:
        moment = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise RuleError(
            f"as of {as_of!r}: give a seq (120), a session (session:3), an in-fiction "
            "day (day:2) or an ISO time (2026-03-01T21:00)",
            param="as_of",
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    try:
        stamp = moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    except OverflowError:  # e.g. 9999-12-31T23:59:59-14:00 is after the year 9999 in UTC
        raise RuleError(
            f"as of {as_of!r} is outside the years 1 to 9999 in UTC: give an earlier time",
            param="as_of",
        ) from None
    return campaign.store.last_seq_at(campaign.id, stamp)
