"""What `verify` reports: the report of a verified log, receipts, and the notes it prints.

A receipt is ``SEQ:HASH`` (all 64 hex digits, or the first :data:`RECEIPT_DIGITS` or more):
`session end`, the recaps and `verify` print one, and `verify --receipt` proves the log up to
its seq is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ledger.chain import ZERO_HASH, instant
from ledger.events import DowntimeCommitted, Recorded

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: The fewest hex digits of an event's hash a receipt may give (``verify --receipt
#: SEQ:PREFIX``): 16 (64 bits) cannot be matched by chance; every printed receipt has all 64.
RECEIPT_DIGITS = 16


class ReceiptError(ValueError):
    """A receipt that is not ``SEQ:HASH`` (``str()`` says what is wrong and how to write it)."""


def receipt_of(seq: int, hash_: str) -> str:
    """The receipt of event ``seq`` whose hash is ``hash_``: ``"SEQ:HASH"``, all 64 hex
    digits, as ``session end``, ``verify`` and the recaps print it."""
    return f"{seq}:{hash_}"


def session_receipt(campaign: Campaign, closed: Recorded) -> str:
    """The one receipt of a session's end, ``"SEQ:HASH"``: the last event of the batch that
    closed session ``closed`` (its ``session.ended`` or ``session.abandoned`` record), i.e.
    the ``downtime.committed`` written with it, or the closing event itself in a log from
    before downtime seeds. ``session end`` and the recaps print this one.

    :param campaign: the :class:`~ledger.campaign.aggregate.Campaign` whose log it is.
    """
    number = getattr(closed.data, "number", None)
    for follow in campaign.records(after=closed.seq, upto=closed.seq + 1):
        if isinstance(follow.data, DowntimeCommitted) and follow.data.number == number:
            return receipt_of(follow.seq, follow.hash)
    return receipt_of(closed.seq, closed.hash)


def short_receipt(receipt: str) -> str:
    """``"SEQ:"`` and the first :data:`RECEIPT_DIGITS` hex digits and ``…``: a receipt
    shortened for a summary line (``verify --receipt`` takes it without the ``…``)."""
    seq, _, digest = receipt.partition(":")
    return f"{seq}:{digest[:RECEIPT_DIGITS]}…" if len(digest) > RECEIPT_DIGITS else receipt


@dataclass
class ClockBack:
    """Where a log's ``recorded_at`` goes back in time (docs/events.md "Time").

    :ivar seq: the first event recorded earlier than an event before it (0: none).
    :ivar recorded_at: its time. :ivar latest: the latest time recorded before it.
    :ivar events: how many events in all were recorded earlier than one before them.
    """

    seq: int = 0
    recorded_at: str = ""
    latest: str = ""
    events: int = 0
    _latest_moment: Any = field(default=None, repr=False)  # the latest time so far
    _latest_stamp: str = field(default="", repr=False)  # ... as written

    def feed(self, seq: int, recorded_at: Any) -> None:
        """Take the next event's ``recorded_at`` (a stamp that is not an ISO time is
        skipped: it is not compared)."""
        moment = instant(recorded_at) if isinstance(recorded_at, str) else None
        if moment is None:
            return
        if self._latest_moment is not None and moment < self._latest_moment:
            self.events += 1
            if not self.seq:
                self.seq, self.recorded_at, self.latest = seq, recorded_at, self._latest_stamp
            return
        self._latest_moment, self._latest_stamp = moment, recorded_at

    def json(self) -> dict[str, Any] | None:
        """``{"seq", "recorded_at", "latest_before", "events"}``, or ``None`` when the
        times never go back."""
        if not self.seq:
            return None
        return {
            "seq": self.seq,
            "recorded_at": self.recorded_at,
            "latest_before": self.latest,
            "events": self.events,
        }


def clock_note(clock: ClockBack) -> str | None:
    """One line on where the log's times go back, or ``None`` when they never do."""
    if not clock.seq:
        return None
    more = f" ({clock.events} events in all)" if clock.events > 1 else ""
    return (
        f"Note: recorded_at goes back at seq {clock.seq} ({clock.recorded_at}, after "
        f"{clock.latest}){more}: a clock behind the ledger wrote it before appends kept times "
        "in order; the chain holds those times as written, and `--as-of TIME` of this log "
        "follows the time order there: give a seq or session:N instead"
    )


@dataclass
class VerifyReport:
    """What :func:`verify_rows` found.

    :ivar head_seq: last seq checked (0 for an empty log).
    :ivar head_hash: its hash (the receipt is ``f"{head_seq}:{head_hash}"``).
    :ivar problem: ``None`` when everything verifies, else the first problem found.
    :ivar bad_seq: the seq of the first problem.
    :ivar engine_rolls: engine rolls recomputed from revealed seeds.
    :ivar unverifiable_rolls: engine rolls of the open session: verifiable once it ends.
    :ivar abandoned_rolls: engine rolls of abandoned sessions: never verifiable.
    :ivar open_commitments: seeds committed and not yet revealed at the end of the log, as
        ``(kind, number, seq of the commitment, commitment)``, kind ``"session"`` (the
        open session) or ``"downtime"``; ``verify_store`` checks the secrets table for them.
    :ivar results_checked: rolls whose recorded results re-derived from their inputs and dice.
    :ivar results_unchecked: why roll results were not checked (``None`` when they were).
    :ivar clock: where ``recorded_at`` goes back, if anywhere (not a problem: a note).
    """

    head_seq: int = 0
    head_hash: str = ZERO_HASH
    events: int = 0
    sessions: int = 0
    engine_rolls: int = 0
    unverifiable_rolls: int = 0
    results_checked: int = 0
    results_unchecked: str | None = None
    abandoned_rolls: int = 0
    open_commitments: list[tuple[str, int, int, str]] = field(default_factory=list)
    problem: str | None = None
    bad_seq: int | None = None
    hashes: dict[int, str] = field(default_factory=dict)
    stubs: int = 0  # redacted rows (a player's copy), chained through their hashes only
    found_at: int | None = None  # the seq whose hash is ``verify_rows(find_hash=...)``
    clock: ClockBack = field(default_factory=ClockBack)
    #: the engine rolls of each unrevealed seed, ``{(kind, number): its SessionSeed}``
    #: (:func:`ledger.history.seeds.held_seeds_problem` checks them when the seed is at hand)
    pending: dict[tuple[str, int], Any] = field(default_factory=dict, repr=False)

    @property
    def ok(self) -> bool:
        """Everything checked verifies."""
        return self.problem is None

    @property
    def receipt(self) -> str:
        """``"SEQ:HASH"`` of the last event checked: what players keep (:func:`receipt_of`)."""
        return receipt_of(self.head_seq, self.head_hash)

    def fail(self, seq: int, problem: str) -> VerifyReport:
        """Record the first problem (later ones are ignored); returns the report."""
        if self.problem is None:
            self.problem, self.bad_seq = problem, seq
        return self


def failure_words(bad_seq: int | None, problem: str, *, file: bool = False) -> str:
    """The one sentence every verifier gives for a log that fails: ``campaign verify`` (after
    ``error: ``), ``campaign verify FILE``, the in-browser verifier and a phone's check of its
    answers (``static/verify.js`` writes the same words):
    ``"verification failed at seq 12: PROBLEM"``; seq 0 is the whole database file, or the
    whole exported file when ``file`` (``campaign verify FILE``, every browser check), ``None``
    a line of a file that is not an event."""
    if bad_seq is None:
        return f"verification failed: {problem}"
    where = f"at seq {bad_seq}" if bad_seq else ("in the file" if file else "in the database file")
    return f"verification failed {where}: {problem}"


def pending_lines(report: VerifyReport) -> list[str]:
    """What a good report says of the rolls it could not verify yet (or ever)."""
    lines = []
    open_ = [n for kind, n, _, _ in report.open_commitments if kind == "session"]
    if report.unverifiable_rolls:
        where = f"open session {open_[0]}" if open_ else "an open session"
        lines.append(
            f"{report.unverifiable_rolls} engine rolls of {where} are verifiable once it ends "
            "(`campaign session end` reveals its seed)"
        )
    if report.abandoned_rolls:
        lines.append(
            f"{report.abandoned_rolls} engine rolls are unverifiable (session abandoned: "
            "its seed was lost)"
        )
    return lines


def parse_receipt(text: str) -> tuple[int, str]:
    """``(seq, hash or hash prefix)`` from a receipt ``"SEQ:HASH"``: SEQ a positive integer,
    HASH the event's 64 hex digits or its first :data:`RECEIPT_DIGITS` or more (the short
    form the docs and summaries show; a trailing ``…`` is ignored). Upper-case hex is read as
    lower-case.

    :raises ReceiptError: anything else; a hash shorter than :data:`RECEIPT_DIGITS` digits
        is named as such.
    """
    seq, colon, digest = text.strip().partition(":")
    digest = digest.strip().rstrip("…").lower()
    example = "e.g. 42:9f1c2b3a4d5e6f70 (a seq from 1, then the hash: all 64 hex digits, or its first 16 or more)"
    if not colon or not seq.isdigit() or len(seq) > 18 or int(seq) < 1:
        raise ReceiptError(f"{text.strip()[:80]!r} is not a receipt: write it as SEQ:HASH, {example}")
    if not digest or len(digest) > 64 or any(c not in "0123456789abcdef" for c in digest):
        raise ReceiptError(
            f"{text.strip()[:80]!r} is not a receipt: its hash must be hex digits, {example}"
        )
    if len(digest) < RECEIPT_DIGITS:
        raise ReceiptError(
            f"the receipt's hash {digest!r} has {len(digest)} hex digit"
            f"{'s' if len(digest) != 1 else ''}: give at least {RECEIPT_DIGITS} (the receipt "
            "`session end` and `verify` print has all 64)"
        )
    return int(seq), digest


def check_receipt(
    report: VerifyReport, receipt: tuple[int, str] | None, *, what: str
) -> VerifyReport:
    """Fail ``report`` when a verified log does not hold ``receipt`` (``(seq, hash)``).

    Needs ``report.hashes`` to hold the receipt's seq (``verify_rows(keep_hashes=...)``) and
    ``report.found_at`` the seq of the receipt's hash, if any (``find_hash=``). The problem
    names both full hashes and the side that is likely wrong: the log is shorter than the
    receipt (an older copy, or cut), the receipt's hash belongs to another seq (the
    receipt's seq is wrong), or no event has it (the log was rewritten since the receipt
    was issued, or the receipt is another campaign's).

    :param what: the log's name in the problem ("the log", "the file").
    """
    if not report.ok or receipt is None:
        return report
    seq, expected = receipt
    actual = report.hashes.get(seq)
    if actual is not None and actual.startswith(expected):
        return report
    if len(expected) < 64:
        expected += "…"  # a prefix: shown as one
    if actual is None:
        problem = (
            f"{what} ends at seq {report.head_seq}, before the receipt's seq {seq}: "
            f"{what} is older than the receipt or was cut short"
        )
        if report.found_at is not None:
            problem += f" (the receipt's hash is event {report.found_at}'s)"
        return report.fail(seq, problem)
    if report.found_at is not None:
        return report.fail(
            seq,
            f"event {seq} has hash {actual}, the receipt says {expected}, which is event "
            f"{report.found_at}'s hash: the receipt's seq is likely wrong (it was issued at "
            f"seq {report.found_at})",
        )
    return report.fail(
        seq,
        f"event {seq} has hash {actual}, the receipt says {expected}, and no event of {what} "
        "has that hash: the log was rewritten since the receipt was issued (or the receipt "
        "belongs to another campaign)",
    )
