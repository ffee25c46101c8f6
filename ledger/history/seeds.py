"""The row-by-row checks `verify` runs on sessions, seeds and engine rolls.

Sessions start once each, in order, never nest and close once; a reveal matches its
commitment and verifies every engine roll drawn from the seed; a downtime seed is committed
after its session closes and revealed or abandoned once; an engine roll is drawn from a seed
not yet revealed (docs/events.md "Engine dice schemes").
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from ledger.dice.engine import (
    DOWNTIME_SCHEME,
    MAX_SIDES,
    REQUESTED_SCHEME,
    SCHEME,
    verify_draws,
)
from ledger.history.report import VerifyReport


@dataclass
class SessionSeed:
    """One committed seed while verifying: a session's (or a downtime's) commitment."""

    commitment: str
    seq: int = 0  # of the commitment
    stubs: int = 0  # stubs read before its last roll (or its commitment): a player's copy
    # (seq, nonce, client_seed, draws, stubs read before the roll, a requested roll's
    # (request seq, entropy) or None)
    rolls: list[tuple[int, Any, Any, Any, int, Any]] = field(default_factory=list)
    seed: bytes | None = None  # once revealed
    closed_at: int | None = None  # seq of the reveal (or abandonment)
    how: str = ""  # "ended", "abandoned" or "revealed"
    next_nonce: int = 0


@dataclass
class SessionSeeds:
    """What :func:`verify_rows` knows of a log's sessions so far (and its rule system)."""

    sessions: dict[int, SessionSeed] = field(default_factory=dict)
    downtime: dict[int, SessionSeed] = field(default_factory=dict)
    open: int | None = None
    last: int = 0
    system: str | None = None

    def finish(self, report: VerifyReport) -> None:
        """Count the rolls still waiting for a reveal; list the unrevealed commitments and
        keep their rolls in ``report.pending`` (:func:`held_seeds_problem`)."""
        for number, s in self.sessions.items():
            if s.how == "abandoned":
                report.abandoned_rolls += len(s.rolls)
            elif s.seed is None:
                report.unverifiable_rolls += len(s.rolls)
                report.open_commitments.append(("session", number, s.seq, s.commitment))
                report.pending["session", number] = s
        for number, s in self.downtime.items():
            if s.closed_at is None:
                report.unverifiable_rolls += len(s.rolls)
                report.open_commitments.append(("downtime", number, s.seq, s.commitment))
                report.pending["downtime", number] = s


def nonce_problem(nonce: Any, expected: int, hidden: int) -> str | None:
    """A roll's nonce follows the one before (``expected``), or skips at most as many as the
    ``hidden`` stubs between them could hold (blind rolls share the nonce sequence)."""
    if type(nonce) is int and expected <= nonce <= expected + hidden:
        return None
    if hidden:
        return (
            f"engine roll has nonce {nonce}, expected {expected} (or up to "
            f"{expected + hidden}: {hidden} GM-only events before it may be hidden rolls)"
        )
    return f"engine roll has nonce {nonce}, expected {expected}"


def number_problem(row: dict[str, Any], payload: dict[str, Any]) -> tuple[int, str] | None:
    """A session or downtime event's ``number`` is an integer and the session it is filed
    under (``(seq, problem)``, else ``None``)."""
    seq, type_, number = row["seq"], row["type"], payload["number"]
    if type(number) is not int:
        return seq, f"{type_}'s number must be an integer, not {number!r}"
    if row["session"] != number:
        return seq, f"{type_} of session {number} is filed under session {row['session']!r}"
    return None


def session_problem(
    row: dict[str, Any], payload: dict[str, Any], sessions: SessionSeeds, report: VerifyReport
) -> tuple[int, str] | None:
    """Sessions start once each, in order (1, 2, 3, ...), never nest, close once; a reveal
    matches its commitment and verifies the session's engine rolls."""
    problem = number_problem(row, payload)
    if problem:
        return problem
    seq, type_, number = row["seq"], row["type"], payload["number"]
    if type_ == "session.started":
        if number in sessions.sessions:
            return seq, (
                f"session {number} starts a second time (first at seq "
                f"{sessions.sessions[number].seq})"
            )
        if sessions.open is not None:
            return seq, f"session {number} starts while session {sessions.open} is still open"
        unrevealed = [n for n, d in sessions.downtime.items() if d.closed_at is None]
        if unrevealed:
            return seq, (
                f"session {number} starts while the downtime seed of session {unrevealed[0]} "
                "is unrevealed (it is revealed before the next session starts)"
            )
        if number != sessions.last + 1:
            return seq, f"session {number} starts after session {sessions.last}: expected {sessions.last + 1}"
        commitment = payload["seed_commitment"]
        if not isinstance(commitment, str):
            return seq, f"session {number}'s seed_commitment is not text"
        sessions.sessions[number] = SessionSeed(commitment, seq=seq, stubs=report.stubs)
        sessions.open = sessions.last = number
        return None
    session = sessions.sessions.get(number)
    if session is None or sessions.open != number:
        if session is not None and session.closed_at is not None:
            return seq, f"session {number} closes a second time (first at seq {session.closed_at})"
        return seq, f"session {number} closes but is not open"
    sessions.open = None
    session.closed_at = seq
    if type_ == "session.abandoned":
        session.how = "abandoned"
        return None
    session.how = "ended"
    return reveal_problem(row, payload, session, f"session {number}", 0, report)


def reveal_problem(
    row: dict[str, Any],
    payload: dict[str, Any],
    session: SessionSeed,
    what: str,
    first_nonce: int,
    report: VerifyReport,
    scheme: str = SCHEME,
) -> tuple[int, str] | None:
    """Check a ``seed_reveal`` against its commitment, then every roll drawn from it."""
    seq, number = row["seq"], payload["number"]
    try:
        seed = bytes.fromhex(payload["seed_reveal"])
    except (ValueError, TypeError):
        return seq, f"{what}'s seed_reveal is not hex"
    if hashlib.sha256(seed).hexdigest() != session.commitment:
        return seq, f"{what}'s revealed seed does not match its commitment"
    return rolls_problem(
        seed, row["campaign"], number, session, what, f"seed revealed at seq {seq}",
        first_nonce, report, scheme,
    )  # fmt: skip


def rolls_problem(
    seed: bytes,
    campaign: str,
    number: int,
    session: SessionSeed,
    what: str,
    where: str,
    first_nonce: int,
    report: VerifyReport,
    scheme: str = SCHEME,
) -> tuple[int, str] | None:
    """Check every engine roll drawn from ``session``'s seed (``seed``, already checked
    against its commitment): nonces in order from ``first_nonce``, draws what the seed
    gives. Each good roll counts in ``report.engine_rolls``; the seed is then known.

    :param where: how the seed is known, in the problem's words (``"seed revealed at seq
        42"``).
    :returns: ``(the first bad roll's seq, problem)`` or ``None``.
    """
    expected, stubs = first_nonce, session.stubs
    for roll_seq, nonce, client_seed, draws, stubs_before, answer in session.rolls:
        bad = nonce_problem(nonce, expected, stubs_before - stubs)
        if bad:
            return roll_seq, bad
        bad = draws_problem(
            seed, campaign, number, nonce, client_seed, draws,
            scheme=REQUESTED_SCHEME if answer else scheme,
            request=answer[0] if answer else None, entropy=answer[1] if answer else None,
        )  # fmt: skip
        if bad:
            return roll_seq, f"engine roll of {what} ({where}): {bad}"
        report.engine_rolls += 1
        expected, stubs = nonce + 1, stubs_before
    session.seed, session.next_nonce, session.stubs = seed, expected, stubs
    session.rolls = []
    return None


def held_seeds_problem(
    report: VerifyReport, campaign: str, seeds: dict[tuple[str, int], bytes], holder: str
) -> tuple[int, str] | None:
    """Check the engine rolls of the seeds still unrevealed at the end of a verified log
    whose seeds are nevertheless at hand (a GM backup holds the open session's), exactly as
    their reveal will (:func:`rolls_problem`, the words ``verify`` uses after ``session
    end``). Each good roll moves from ``report.unverifiable_rolls`` to
    ``report.engine_rolls``.

    :param report: what :func:`ledger.history.verify.verify_rows` returned (its pending
        rolls are in ``report.pending``).
    :param seeds: ``{(kind, number): seed}``, kind ``"session"`` or ``"downtime"``; a seed
        of no unrevealed commitment is ignored.
    :param holder: who holds the seeds, in the problem's words (``"the backup"``).
    :returns: ``(seq, problem)`` of the first bad roll, or of the commitment a seed does not
        match; ``None`` when every roll is what its seed gives.
    """
    for kind, number, seq, commitment in report.open_commitments:
        seed = seeds.get((kind, number))
        pending = report.pending.get((kind, number))
        if seed is None or pending is None:
            continue
        what = f"session {number}" if kind == "session" else f"the downtime of session {number}"
        if hashlib.sha256(seed).hexdigest() != commitment:
            return seq, f"the seed of {what} that {holder} holds does not match its commitment"
        count = len(pending.rolls)
        bad = rolls_problem(
            seed, campaign, number, pending, what, f"seed held by {holder}, not yet revealed",
            0 if kind == "session" else 1, report,
            SCHEME if kind == "session" else DOWNTIME_SCHEME,
        )  # fmt: skip
        if bad:
            return bad
        report.unverifiable_rolls -= count
    return None


def engine_roll_problem(
    row: dict[str, Any], payload: dict[str, Any], sessions: SessionSeeds, report: VerifyReport
) -> tuple[int, str] | None:
    """An engine roll is drawn from a seed not yet revealed: a ``ledger-roll-v1`` roll from
    its session's seed while the session is open, a ``ledger-downtime-v1`` roll from the
    downtime seed committed at its session's end, before its reveal. Kept until the reveal,
    then checked by :func:`reveal_problem`. A roll drawn after the reveal is refused."""
    seq, number = row["seq"], row["session"]
    scheme = payload.get("scheme", SCHEME)
    answer = None  # a requested roll's (request seq, entropy)
    if scheme == REQUESTED_SCHEME:
        answer = (payload.get("request"), payload.get("entropy"))
    if scheme in (SCHEME, REQUESTED_SCHEME):
        seeds, what = sessions.sessions, f"session {number}'s seed"
    elif scheme == DOWNTIME_SCHEME:
        seeds, what = sessions.downtime, f"the downtime seed of session {number}"
    else:
        return seq, f"engine roll of unknown scheme {scheme!r}"
    session = seeds.get(number) if type(number) is int else None
    if session is None:
        if scheme == DOWNTIME_SCHEME:
            return (
                seq,
                f"downtime engine roll, but no downtime seed of session {number} was committed",
            )
        return seq, "engine roll outside a session"
    if session.closed_at is not None:
        return seq, (
            f"engine roll drawn after {what} was "
            f"{'lost' if session.how == 'abandoned' else 'revealed'} at seq {session.closed_at}: "
            "no engine roll may come from a revealed seed"
        )
    session.rolls.append(
        (
            seq,
            payload.get("nonce"),
            payload.get("client_seed") or "",
            payload.get("draws"),
            report.stubs,
            answer,
        )
    )
    return None


def downtime_problem(
    row: dict[str, Any], payload: dict[str, Any], sessions: SessionSeeds, report: VerifyReport
) -> tuple[int, str] | None:
    """A downtime seed is committed once, after its session closed; revealed (matching its
    commitment, verifying the rolls drawn from it, nonces from 1) or abandoned once."""
    problem = number_problem(row, payload)
    if problem:
        return problem
    seq, type_, number = row["seq"], row["type"], payload["number"]
    downtime = sessions.downtime.get(number)
    if type_ == "downtime.committed":
        session = sessions.sessions.get(number)
        if session is None or session.closed_at is None:
            return seq, f"a downtime seed is committed for session {number}, which is not closed"
        if downtime is not None:
            return seq, f"the downtime seed of session {number} is committed a second time"
        commitment = payload["seed_commitment"]
        if not isinstance(commitment, str):
            return seq, f"the downtime seed_commitment of session {number} is not text"
        sessions.downtime[number] = SessionSeed(commitment, seq=seq, stubs=report.stubs)
        return None
    if downtime is None or downtime.closed_at is not None:
        return seq, f"{type_}: the downtime seed of session {number} is not committed and open"
    downtime.closed_at = seq
    if type_ == "downtime.abandoned":
        downtime.how = "abandoned"
        report.abandoned_rolls += len(downtime.rolls)
        downtime.rolls = []
        return None
    downtime.how = "revealed"
    return reveal_problem(
        row, payload, downtime, f"the downtime of session {number}", 1, report, DOWNTIME_SCHEME
    )


def draws_problem(
    seed: bytes,
    campaign: str,
    session: int,
    nonce: Any,
    client_seed: Any,
    draws: Any,
    *,
    scheme: str = SCHEME,
    request: Any = None,
    entropy: Any = None,
) -> str | None:
    """:func:`ledger.dice.engine.verify_draws` after checking the recorded shapes (a forged roll may
    hold anything): ``None`` when the draws are what the seed gives, else a sentence."""
    if not isinstance(nonce, int) or not isinstance(client_seed, str):
        return "nonce must be an integer and client_seed text"
    if not isinstance(draws, list) or not all(
        isinstance(d, list)
        and len(d) == 2
        and all(type(x) is int for x in d)
        and 2 <= d[0] <= MAX_SIDES
        and 1 <= d[1] <= d[0]
        for d in draws
    ):
        return f"draws must be [sides, value] pairs with 2 <= sides <= {MAX_SIDES}, 1 <= value <= sides"
    return verify_draws(
        seed, campaign, session, nonce, client_seed, draws,
        scheme=scheme, request=request, entropy=entropy,
    )  # fmt: skip
