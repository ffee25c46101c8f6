"""End-of-session advancement, replayed from the log (docs/plugin-guide.md: ``advance``).

:func:`advance` asks the campaign's rule system what the rules give for one closed session,
from every character's replayed state and that session's events. Advancement dice are
engine dice drawn from the downtime seed committed at the session's end (scheme
``ledger-downtime-v1``, nonces 1, 2, 3, ... per downtime seed; docs/events.md), which nobody
can know before the dice are drawn; the batch that drew them ends with ``downtime.revealed``,
so they verify like any roll. No engine roll draws from a revealed seed: once the downtime
seed is revealed (by an ``advance`` that drew dice, or by the next ``session start``), an
advancement that needs dice is refused. The events are appended with the envelope's
``session`` set to the session advanced.

Client seeds are fixed by the rule system before the roll (``"advance:<session>:<character>"``
in Terran), never chosen by a player. ``--dry-run`` (:func:`preview`) never draws from the
seed: it shows the choices, the targets and the exact odds, never the outcome of dice not yet
rolled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.dice.engine import DOWNTIME_SCHEME, DiceSource, EngineDice
from ledger.errors import RuleError
from ledger.events import DowntimeRevealed, Event, Recorded, Roll, event_tag

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: Shown in place of a value that depends on dice not yet rolled (``--dry-run``).
HIDDEN = "?"


def check_closed(campaign: Campaign, number: int) -> None:
    """:raises RuleError: session ``number`` was never played, or is still open."""
    if campaign.current_session() == number:
        raise RuleError(f"session {number} is still open: end it with `campaign session end` first")
    if not 1 <= number <= campaign.last_session():
        raise RuleError(
            f"session {number} has not been played (last session: {campaign.last_session()})"
        )


def session_events(campaign: Campaign, number: int) -> list[Recorded]:
    """A session's events with corrections honoured (retracted dropped, amended replaced)."""
    corrections = campaign.corrections()
    projector = campaign.projector()
    out = []
    for stored in campaign.rows(session=number):
        event = projector.decode_row(stored.seq, stored.type, stored.data, corrections)
        if event is not None:
            out.append(Recorded(stored, event))
    return out


class _FixedDice(DiceSource):
    """Placeholder dice for ``--dry-run``: every die shows ``1`` (``high``: its top face).
    Never drawn from a seed, so no preview can show what the real dice will be."""

    source = "engine"

    def __init__(self, nonce: int, client_seed: str, *, high: bool) -> None:
        super().__init__()
        self.nonce, self.client_seed, self.high = nonce, client_seed, high

    def _draw(self, sides: int) -> int:
        return sides if self.high else 1

    def fields(self) -> dict[str, Any]:
        return {
            **super().fields(),
            "nonce": self.nonce,
            "client_seed": self.client_seed,
            "scheme": DOWNTIME_SCHEME,
        }


@dataclass(frozen=True)
class SessionRead:
    """What a plan reads of a closed session's log, read once (:func:`read_session`) and
    shared by the two plans of :func:`preview`: its events with corrections honoured, and
    the nonce of the next engine roll drawn from its downtime seed."""

    number: int
    events: tuple[Recorded, ...]
    first_nonce: int


def read_session(campaign: Campaign, number: int) -> SessionRead:
    """Session ``number``'s events and next downtime nonce (through ``events_session_seq``:
    the session's own rows, never the whole campaign).

    :raises RuleError: the session was never played, or is still open.
    """
    check_closed(campaign, number)
    events = tuple(session_events(campaign, number))
    nonce = campaign.store.engine_rolls(campaign.id, number, scheme=DOWNTIME_SCHEME) + 1
    return SessionRead(number, events, nonce)


def plan(
    campaign: Campaign,
    number: int,
    choices: dict[str, Any],
    *,
    placeholder: str | None = None,
    read: SessionRead | None = None,
) -> tuple[list[Event], bool]:
    """The events advancement would append for session ``number`` (nothing written), and
    whether they drew dice.

    :param placeholder: ``"low"``/``"high"``: draw placeholder dice (:class:`_FixedDice`)
        instead of the downtime seed (``--dry-run``).
    :param read: the session as :func:`read_session` read it (inside the same transaction,
        or for a dry run); read here when not given.
    :raises RuleError: the session is not closed; dice are needed but the downtime seed is
        revealed, missing, never committed or does not match its commitment.
    """
    if read is None or read.number != number:
        read = read_session(campaign, number)
    events = list(read.events)  # the rule system gets a list of its own
    nonce = [read.first_nonce]
    drew = [False]
    seed: list[bytes] = []

    def dice(client_seed: str = "") -> DiceSource:
        source: DiceSource
        if not seed:  # checked even for a dry run: what the real run would refuse
            seed.append(campaign.downtime_seed(number))
        if placeholder is not None:
            source = _FixedDice(nonce[0], client_seed, high=placeholder == "high")
        else:
            source = EngineDice(
                seed[0], campaign.id, number, nonce[0], client_seed, scheme=DOWNTIME_SCHEME
            )
        nonce[0] += 1
        drew[0] = True
        return source

    states = {cid: campaign.state_of(cid) for cid in campaign.characters()}
    return list(campaign.system.advance(states, number, events, dice, choices)), drew[0]


def preview(campaign: Campaign, number: int, choices: dict[str, Any]) -> list[dict[str, Any]]:
    """What ``advance --dry-run`` shows: each planned event's type and data, with every
    value that depends on dice not yet rolled replaced by :data:`HIDDEN`, and for a roll the
    exact odds its rule system gives (:meth:`ledger.rules.system.RuleSystem.advance_odds`).

    The plan is made twice with placeholder dice (all lowest faces, all highest): a value
    that differs between them depends on the dice and is hidden (faces, totals, outcomes);
    the rest are the choices, targets, nonce and fixed client seed. The downtime seed is
    never read.

    :returns: ``[{"type", "data", "odds"}]`` (``odds``: ``{outcome: "n/d"}`` or ``None``).
    """
    read = read_session(campaign, number)  # once: both plans see the same session
    low, _ = plan(campaign, number, choices, placeholder="low", read=read)
    high, _ = plan(campaign, number, choices, placeholder="high", read=read)
    out = []
    for i, event in enumerate(low):
        data = msgspec.to_builtins(event)
        data.pop("type", None)
        other = high[i] if i < len(high) and type(high[i]) is type(event) else None
        if isinstance(event, Roll):
            theirs = msgspec.to_builtins(other) if other is not None else {}
            data = {
                k: (v if other is not None and theirs.get(k) == v else HIDDEN)
                for k, v in data.items()
            }
            data["draws"] = HIDDEN
        odds = campaign.system.advance_odds(event) if isinstance(event, Roll) else None
        out.append({"type": event_tag(type(event)), "data": data, "odds": odds})
    return out


def advance(
    campaign: Campaign,
    number: int,
    choices: dict[str, Any],
    *,
    actor: str,
    at: str,
    dry_run: bool = False,
) -> list[Event] | list[Recorded]:
    """Plan and (unless ``dry_run``) append one session's advancement in one batch, ending
    with ``downtime.revealed`` when it drew dice.

    With ``dry_run`` the events are planned with placeholder dice: call :func:`preview` to
    show them (their dice are not the real ones).
    """
    with campaign.store.transaction():
        if dry_run:
            return plan(campaign, number, choices, placeholder="low")[0]
        events, drew = plan(campaign, number, choices)
        if not events:
            return events
        if drew:
            seed = campaign.downtime_seed(number)
            events.append(DowntimeRevealed(number=number, seed_reveal=seed.hex()))
        records = campaign.append(events, actor=actor, at=at, session=number)
        if drew:
            campaign.store.drop_secret(campaign.id, number, "downtime")
        return records
