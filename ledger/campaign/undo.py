"""Undo: what it takes back, decided once for every front end.

``campaign undo`` (and ``undo --reason`` in ``campaign play``) takes back the last entry
you wrote; the GM's page puts an undo on each recent entry. Both ask :func:`undo_target`
what goes, and :func:`undo` writes it. An undo:

- takes back a whole **entry**, never part of one: a roll with its opponent's side, the harm
  it applied and its follow-ups; a ``time pass`` with every consequence; an encounter's turn
  with what ended with it (:func:`ledger.campaign.corrections.entry_of`). Undoing any line of
  an entry undoes the entry;
- **withdraws** a roll request still waiting for its answer (``roll.withdrawn``, as
  ``campaign withdraw``: the players' phones stop offering it); a request already answered
  is refused (undo its answer instead);
- **retracts** anything else, as ``campaign correct SEQ --reason`` does: the original stays
  in the log, marked, and the reason is kept beside it;
- refuses a session's or the campaign's start or end, an undo itself (a correction or a
  withdrawal: ``campaign correct SEQ`` retracts one), and an entry already taken back.

"The last entry you wrote" (:func:`last_target`) is the writer's newest event that is not
an undo itself (a correction or a withdrawal) and not taken back: undo again to undo the
entry before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from ledger.errors import Refused, RuleError
from ledger.events import Recorded

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

__all__ = ["TAKEN_BACK", "Undo", "last_target", "undo", "undo_target"]

#: What an undo writes (a correction, a request's withdrawal): never itself undone by an
#: undo, and skipped when looking for the last entry someone wrote.
TAKEN_BACK = ("correction.recorded", "roll.withdrawn")


@dataclass(frozen=True)
class Undo:
    """What an undo takes back.

    :ivar entry: the entry that goes (the roll, the ``time.passed``, the turn: the event
        whose seq front ends name, "Undo #12").
    :ivar action: ``"retract"`` (a correction) or ``"withdraw"`` (an open roll request).
    """

    entry: Recorded
    action: Literal["retract", "withdraw"]


def undo_target(campaign: Campaign, seq: int) -> Undo:
    """What undoing the line at ``seq`` takes back: the entry it belongs to, and how.

    :raises NotFound: no event ``seq``.
    :raises Refused: it cannot be undone (a session's start or end, a correction, an entry
        already taken back, an answered request), saying why.
    """
    from ledger.campaign.corrections import UNCORRECTABLE, entry_of
    from ledger.campaign.roll_requests import closed_by

    rec = campaign.record(seq)
    if rec.type in UNCORRECTABLE:
        raise Refused(f"event {seq} ({rec.type}) cannot be undone")
    if rec.type in TAKEN_BACK:
        what = "a correction" if rec.type == "correction.recorded" else "a withdrawal"
        raise Refused(
            f"event {seq} is {what}: undo takes back entries, not undos "
            f"(`campaign correct {seq}` with a reason retracts it)"
        )
    entry = entry_of(campaign, rec)
    if entry.seq in campaign.corrections().retracted:
        raise Refused(f"event {entry.seq} is already undone", reason="closed")
    if entry.type == "roll.requested":
        done = closed_by(campaign, entry)
        if done is None:
            return Undo(entry, "withdraw")
        if done.type == "roll.withdrawn":
            raise Refused(
                f"roll request {entry.seq} was withdrawn at event {done.seq}", reason="closed"
            )
        raise Refused(
            f"roll request {entry.seq} was answered at event {done.seq}: undo the answer "
            "instead",
            reason="closed",
        )
    return Undo(entry, "retract")


def last_target(campaign: Campaign, actor: str) -> Undo:
    """What ``campaign undo`` takes back for ``actor``: their newest event that is not an
    undo itself (:data:`TAKEN_BACK`) and not retracted, as :func:`undo_target` says.

    :raises Refused: ``actor`` wrote nothing that can be undone, or their newest entry
        cannot be (nothing earlier is undone behind their back).
    """
    from ledger.campaign.corrections import UNCORRECTABLE

    retracted = campaign.corrections().retracted
    rows = campaign.store.rows(campaign.id, actor=actor, descending=True, columns=("seq", "type"))
    withdrawn: set[int] = set()
    for seq, type_ in rows:
        if type_ == "roll.withdrawn":  # its request is taken back too
            withdrawn.add(int(getattr(campaign.record(seq).data, "request", 0)))
        if type_ in TAKEN_BACK or seq in retracted or seq in withdrawn:
            continue
        if type_ in UNCORRECTABLE:
            raise Refused(f"{actor}'s last entry is event {seq} ({type_}), which cannot be undone")
        try:
            return undo_target(campaign, seq)
        except Refused as e:
            raise Refused(f"{actor}'s last entry: {e.text}", reason=e.reason) from None
    raise Refused(f"{actor} has written nothing that can be undone", reason="missing")


def undo(campaign: Campaign, target: Undo, reason: str, *, actor: str, at: str) -> Recorded:
    """Take back ``target`` (:func:`undo_target`): withdraw the request or retract the
    entry, with ``reason`` kept in the log. Returns the ``roll.withdrawn`` or
    ``correction.recorded`` written.

    :raises Refused: no reason (``input``), or the rules refuse the correction (nothing
        written).
    """
    from ledger.campaign.corrections import correct
    from ledger.campaign.roll_requests import withdraw

    if not reason.strip():
        raise Refused("give the reason: it is kept in the log beside the undo", reason="input")
    try:
        if target.action == "withdraw":
            return withdraw(campaign, target.entry.seq, reason, actor=actor, at=at)
        return correct(campaign, target.entry.seq, reason, actor=actor, at=at)
    except Refused:
        raise
    except RuleError as e:
        raise Refused(str(e)) from None
