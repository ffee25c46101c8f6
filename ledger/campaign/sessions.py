"""Sessions and their seeds: start, end and abandon a session, reveal the downtime seed.

Each builds its batch and hands it to :meth:`~ledger.campaign.aggregate.Campaign.append` (the
one writer), inside one transaction with the secrets it keeps or drops: a session's seed is
drawn and kept at ``session start`` and revealed at ``session end``, where the downtime
seed for advancement dice is committed (docs/events.md "Engine dice schemes").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from ledger.campaign import checkpoints, chronicles
from ledger.dice import engine as dicemod
from ledger.errors import NotFound, RuleError
from ledger.events import (
    DowntimeAbandoned,
    DowntimeCommitted,
    DowntimeRevealed,
    Event,
    Recorded,
    SessionAbandoned,
    SessionEnded,
    SessionStarted,
)

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: The events that open and close a session.
SESSION_TYPES = ("session.started", "session.ended", "session.abandoned")
#: The events that commit and close a downtime seed.
DOWNTIME_TYPES = ("downtime.committed", "downtime.revealed", "downtime.abandoned")


def start_session(campaign: Campaign, *, actor: str, at: str) -> Recorded:
    """Open the next session: draw and keep its seed, publish the commitment.

    An unrevealed downtime seed (the last session's, when no ``advance`` drew from it) is
    revealed first, in the same transaction: ``downtime.revealed`` (filed under the
    session it follows), then ``session.started``. A downtime seed this ledger does not
    keep (imported from an export) is closed by ``downtime.abandoned`` instead: nothing
    was drawn from it, since every draw reveals it.

    :raises RuleError: a session is already open; the downtime seed to reveal does not
        match its commitment (names ``campaign session abandon``).
    """
    with campaign.one_write(), campaign.store.transaction():
        open_ = campaign.current_session()
        if open_ is not None:
            raise RuleError(
                f"session {open_} is still open: end it with `campaign session end` first"
            )
        records: list[Recorded] = []
        pending = unrevealed_downtime(campaign)
        if pending is not None:
            close: Event
            if campaign.store.get_secret(campaign.id, pending, "downtime") is None:
                close = DowntimeAbandoned(  # e.g. a ledger imported from an export
                    number=pending,
                    reason="its seed is not kept in this ledger; nothing was drawn from it",
                )
            else:
                downtime = downtime_seed(campaign, pending)  # checked against its commitment
                close = DowntimeRevealed(number=pending, seed_reveal=downtime.hex())
            records += campaign.append([close], actor=actor, at=at, session=pending)
            campaign.store.drop_secret(campaign.id, pending, "downtime")
        number = campaign.last_session() + 1
        seed = dicemod.new_seed()
        campaign.store.put_secret(campaign.id, number, seed)
        event = SessionStarted(number=number, seed_commitment=dicemod.commitment(seed))
        records += campaign.append([event], actor=actor, at=at, session=number)
    return records[-1]


def end_session(campaign: Campaign, *, actor: str, at: str) -> Recorded:
    """Close the open session: reveal its seed and commit the downtime seed, in one batch
    (``session.ended``, ``downtime.committed``); then sign a checkpoint and each
    character's chronicle entry (:mod:`ledger.campaign.chronicles`) when this ledger keeps
    the campaign's key.

    :returns: the ``session.ended`` record (the batch's head is one seq later).
    :raises RuleError: no session is open; its seed is missing or does not match.
    """
    with campaign.store.transaction():
        number = campaign.current_session()
        if number is None:
            raise RuleError("no session is open: start one with `campaign session start`")
        seed = session_seed(campaign, number)
        downtime = dicemod.new_seed()
        events: list[Event] = [
            SessionEnded(number=number, seed_reveal=seed.hex()),
            DowntimeCommitted(number=number, seed_commitment=dicemod.commitment(downtime)),
        ]
        records = campaign.append(events, actor=actor, at=at, session=number)
        campaign.store.drop_secret(campaign.id, number)
        campaign.store.put_secret(campaign.id, number, downtime, "downtime")
        if checkpoints.can_sign(campaign):  # a signed checkpoint of the log as it ends
            made = checkpoints.make_checkpoint(campaign, actor=actor, at=at)
            chronicles.sign_chronicles(  # each character who played: a signed entry on it
                campaign, size=made.size, root=made.root, session=number, actor=actor, at=at
            )
    return records[0]


def abandon_session(campaign: Campaign, reason: str, *, actor: str, at: str) -> Recorded:
    """Close the open session whose seed is lost: ``session.abandoned``, and commit a
    downtime seed as ``session end`` does. With no session open, close an unrevealed
    downtime whose seed is lost instead: ``downtime.abandoned``.

    :raises RuleError: no reason, nothing to abandon, or the seed is still kept and
        matches its commitment (then end the session normally, revealing it).
    """
    if not reason.strip():
        raise RuleError("say why the session is abandoned", param="reason")
    with campaign.store.transaction():
        number = campaign.current_session()
        if number is None:
            return _abandon_downtime(campaign, reason, actor=actor, at=at)
        kept = campaign.store.get_secret(campaign.id, number)
        if kept is not None and dicemod.commitment(kept) == _commitment(campaign, number)[1]:
            raise RuleError(
                f"the seed of session {number} is still kept: end the session normally "
                "with `campaign session end` (it reveals the seed, so its rolls verify)"
            )
        downtime = dicemod.new_seed()
        events: list[Event] = [
            SessionAbandoned(number=number, reason=reason.strip()),
            DowntimeCommitted(number=number, seed_commitment=dicemod.commitment(downtime)),
        ]
        records = campaign.append(events, actor=actor, at=at, session=number)
        if kept is not None:  # a seed that does not match its commitment is no seed
            campaign.store.drop_secret(campaign.id, number)
        campaign.store.put_secret(campaign.id, number, downtime, "downtime")
    return records[0]


def _abandon_downtime(campaign: Campaign, reason: str, *, actor: str, at: str) -> Recorded:
    number = unrevealed_downtime(campaign)
    if number is None:
        raise RuleError("no session is open: there is nothing to abandon")
    if downtime_kept(campaign, number):
        raise RuleError(
            "no session is open, and the downtime seed is kept: there is nothing to abandon"
        )
    event = DowntimeAbandoned(number=number, reason=reason.strip())
    (record,) = campaign.append([event], actor=actor, at=at, session=number)
    campaign.store.drop_secret(campaign.id, number, "downtime")  # a mismatched one is none
    return record


def downtime_kept(campaign: Campaign, number: int) -> bool:
    """Is the downtime seed of session ``number`` kept in this ledger and matching its
    commitment? (``downtime.abandoned`` closes one that is not.)"""
    kept = campaign.store.get_secret(campaign.id, number, "downtime")
    return kept is not None and dicemod.commitment(kept) == _downtime(campaign, number)[1]


def _downtime(campaign: Campaign, number: int) -> tuple[int, str, int | None]:
    """``(seq, seed_commitment, seq closing it or None)`` of the downtime after session
    ``number``. :raises NotFound: no downtime seed was committed at its end."""
    found: tuple[int, str, int | None] | None = None
    for seq, type_, data in campaign.store.rows(
        campaign.id, types=[*DOWNTIME_TYPES], columns="seq, type, data"
    ):
        payload = msgspec.json.decode(data)
        if payload.get("number") != number:
            continue
        if type_ == "downtime.committed":
            found = (int(seq), str(payload.get("seed_commitment")), None)
        elif found is not None:
            found = (found[0], found[1], int(seq))
    if found is None:
        raise NotFound(
            f"no downtime seed was committed at the end of session {number}: sessions "
            "ended before downtime seeds existed (or never ended) have none"
        )
    return found


def unrevealed_downtime(campaign: Campaign) -> int | None:
    """The session whose downtime seed is committed and not yet revealed (or ``None``)."""
    row = campaign.store.last_of_types(campaign.id, [*DOWNTIME_TYPES])
    if row is None or row.type != "downtime.committed":
        return None
    return int(msgspec.json.decode(row.data)["number"])


def downtime_seed(campaign: Campaign, number: int) -> bytes:
    """The downtime seed committed at session ``number``'s end, checked against its
    commitment before any draw or reveal.

    :raises RuleError: never committed, already revealed (no engine roll may draw from
        a revealed seed), missing from the secrets table, or not matching.
    """
    seq, commitment, closed = _downtime(campaign, number)
    if closed is not None:
        raise RuleError(
            f"the downtime seed of session {number} was revealed at seq {closed}: no engine "
            "roll may draw from a revealed seed (advancement dice are drawn before the "
            "next session starts)"
        )
    seed = campaign.store.get_secret(campaign.id, number, "downtime")
    return _checked_seed(
        seed, commitment, f"the downtime seed of session {number}", seq, "close it"
    )


def _commitment(campaign: Campaign, number: int) -> tuple[int, str]:
    """``(seq, seed_commitment)`` of session ``number``'s ``session.started``.

    :raises NotFound: the session was never started."""
    for seq, data in campaign.store.rows(
        campaign.id, session=number, types=["session.started"], columns="seq, data"
    ):
        payload = msgspec.json.decode(data)
        if payload.get("number") == number:
            return int(seq), str(payload.get("seed_commitment"))
    raise NotFound(f"session {number} has not been started in {campaign.id}")


def session_seed(campaign: Campaign, number: int) -> bytes:
    """Session ``number``'s kept seed, checked against its commitment before any draw or
    reveal (a replaced seed would give rolls that never verify).

    :raises RuleError: the seed is missing from the secrets table, or its sha256 is not
        the session's ``seed_commitment`` (both name ``campaign session abandon``).
    """
    seed = campaign.store.get_secret(campaign.id, number)
    seq, commitment = _commitment(campaign, number)
    return _checked_seed(
        seed, commitment, f"the seed of session {number}", seq, "close the session"
    )


def engine_dice(
    campaign: Campaign,
    client_seed: str = "",
    *,
    request: int | None = None,
    entropy: str | None = None,
) -> dicemod.EngineDice:
    """An engine dice source for the next roll of the open session; with ``request`` and
    ``entropy``, an answer to that roll request drawn with the roller's entropy (scheme
    ``ledger-roll-v2``).

    Call inside a write transaction so the nonce cannot be taken twice.

    :raises RuleError: no session open (engine rolls need a committed seed).
    :raises DiceError: entropy that is not 64 lower-case hex digits.
    """
    number = campaign.current_session()
    if number is None:
        raise RuleError(
            "engine rolls need an open session (its seed is committed at start): "
            "run `campaign session start`, or enter the physical dice",
            param="dice",
        )
    seed = session_seed(campaign, number)
    nonce = campaign.store.engine_rolls(campaign.id, number)
    if request is not None:
        return dicemod.EngineDice(
            seed, campaign.id, number, nonce, client_seed, dicemod.REQUESTED_SCHEME,
            request=request, entropy=dicemod.check_entropy(entropy),
        )  # fmt: skip
    return dicemod.EngineDice(seed, campaign.id, number, nonce, client_seed)


def _checked_seed(seed: bytes | None, commitment: str, whose: str, seq: int, close: str) -> bytes:
    """``seed`` when its sha256 is ``commitment`` (made at ``seq``).

    :raises RuleError: the seed is missing (``None``) or does not match; the message names
        ``whose`` seed, a GM backup and ``campaign session abandon`` (``close`` says what it
        closes).
    """
    fix = (
        "restore it from a GM backup (`campaign import BACKUP` into a new file) or "
        f"{close} without it: `campaign session abandon` with a reason"
    )
    if seed is None:
        raise RuleError(f"{whose} is missing from the secrets table: {fix}")
    if dicemod.commitment(seed) != commitment:
        raise RuleError(
            f"{whose} in the secrets table does not match its commitment (seq {seq}): the "
            f"table was changed, and nothing drawn from it would verify; {fix}"
        )
    return seed
