"""End-of-session advancement, replayed from the log (DESIGN.md "Plugins": ``advance``).

:func:`advance` asks the campaign's rule system what the rules give for one ended session,
from every character's replayed state and that session's events. Advancement dice are
engine dice drawn from the session's committed seed with the nonces after its last engine
roll, so they are verifiable like any roll; the events are appended with the envelope's
``session`` set to the session advanced.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .dice import EngineDice
from .events import Event, Recorded
from .projection import to_recorded
from .rulesystem import RuleError

if TYPE_CHECKING:
    from .campaign import Campaign


def session_seed(campaign: Campaign, number: int) -> bytes:
    """The revealed seed of an ended session.

    :raises RuleError: the session was never played, or is still open.
    """
    seed = None
    for rec in campaign.records(types=["session.started", "session.ended"]):
        if rec.data.number == number and rec.type == "session.ended":  # type: ignore[attr-defined]
            seed = bytes.fromhex(rec.data.seed_reveal)  # type: ignore[attr-defined]
    if seed is None:
        if campaign.current_session() == number:
            raise RuleError(
                f"session {number} is still open: end it with `campaign session end` first"
            )
        raise RuleError(
            f"session {number} has not been played (last session: {campaign.last_session()})"
        )
    return seed


def session_events(campaign: Campaign, number: int) -> list[Recorded]:
    """A session's events with corrections honoured (retracted dropped, amended replaced)."""
    corrections = campaign.corrections()
    projector = campaign.projector()
    out = []
    for row in campaign.rows():
        if row[8] != number:
            continue
        event = projector.decode_row(row, corrections)
        if event is not None:
            out.append(to_recorded(row, event))
    return out


def plan(campaign: Campaign, number: int, choices: dict[str, Any]) -> list[Event]:
    """The events advancement would append for session ``number`` (nothing written)."""
    seed = session_seed(campaign, number)
    events = session_events(campaign, number)
    nonce = [campaign.store.engine_rolls(campaign.id, number)]

    def dice(client_seed: str = "") -> EngineDice:
        source = EngineDice(seed, campaign.id, number, nonce[0], client_seed)
        nonce[0] += 1
        return source

    states = campaign.states()
    return list(campaign.system.advance(states, number, events, dice, choices))


def advance(
    campaign: Campaign,
    number: int,
    choices: dict[str, Any],
    *,
    actor: str,
    at: str,
    dry_run: bool = False,
) -> list[Event] | list[Recorded]:
    """Plan and (unless ``dry_run``) append one session's advancement in one batch."""
    with campaign.store.transaction():
        events = plan(campaign, number, choices)
        if dry_run or not events:
            return events
        return campaign.append(events, actor=actor, at=at, session=number)
