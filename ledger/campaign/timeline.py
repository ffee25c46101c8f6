"""The campaign's own clock: ``campaign time pass DURATION``.

:func:`plan` turns a duration into a ``time.passed`` event and the events the rule system
says the span implies (:meth:`ledger.RuleSystem.time_passed`); :func:`pass_time` appends
them as one batch through :meth:`ledger.campaign.aggregate.Campaign.append`, the one
writer. :func:`check` is what ``append`` asks of any batch holding a ``time.passed``: it
comes first, its consequences follow it and are exactly what the rules give, so nobody can
record a span with invented consequences, or hide other events among them.

A ``time.passed`` and its consequences are one entry, like a roll and its parts:
:func:`entry_of` finds the span a consequence belongs to (``undo`` retracts the whole
entry), :func:`companions` is what retracting the span does to its consequences, and a
consequence is never corrected on its own (:func:`refusal`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.campaign import sessions
from ledger.dice.engine import DiceSource, EngineDice
from ledger.errors import RuleError
from ledger.events import Event, Recorded, Roll, TimePassed, event_tag
from ledger.rules.spans import LONGEST, parse_duration, span_key, time_consequences

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign
    from ledger.rules.projection import Corrections


@dataclass(frozen=True)
class TimePlan:
    """A span and what it implies, before (``--dry-run``) or after it is appended.

    :ivar span: the ``time.passed`` event (its ``consequences`` counted).
    :ivar consequences: the events the rules give for it, in batch order.
    :ivar records: the appended records (the span first); ``[]`` for a dry run.
    """

    span: TimePassed
    consequences: list[Event]
    records: list[Recorded]


def span_of(
    campaign: Campaign, duration: str, *, rest: bool = False, care: bool = False
) -> TimePassed:
    """The ``time.passed`` event for ``duration`` (no consequences counted yet).

    :param duration: ``8h``, ``3d``, ``2w``, ``1d12h``, or a named span of the campaign's
        rule system (:attr:`ledger.RuleSystem.time_spans`), which may be a rest.
    :param rest: the characters rest through it (a named span of rest is one already).
    :param care: they have proper care through it.
    :raises RuleError: not a duration (one line naming the accepted forms).
    """
    named = campaign.system.time_spans
    minutes, resting = parse_duration(duration, named)
    words = {span_key(k): k for k in named}.get(span_key(duration), span_key(duration))
    return TimePassed(minutes=minutes, words=words, rest=rest or resting, care=care)


class SessionDice:
    """The ``dice`` a rule system's ``time_passed`` draws from: ``dice(client_seed)`` is an
    engine dice source drawn from the open session's committed seed (scheme
    ``ledger-roll-v1``) at the session's next nonce, one nonce per call, like any engine
    roll; ``campaign verify`` re-checks the draws once the seed is revealed.

    Made afresh for each plan, so asking again (the check on append) draws the same dice.
    With ``placeholder`` (``--dry-run``) every die shows its lowest face and the seed is
    only checked, never drawn from: nobody sees the real dice before the span is written.

    :raises RuleError: on a call when no session is open (engine dice need a committed
        seed), or when the session's seed is missing or does not match its commitment.
    """

    def __init__(self, campaign: Campaign, *, placeholder: bool = False) -> None:
        self.campaign = campaign
        self.placeholder = placeholder
        self.next_nonce: int | None = None
        self.seed = b""

    def __call__(self, client_seed: str = "") -> DiceSource:
        campaign = self.campaign
        number = campaign.current_session()
        if number is None:
            raise RuleError(
                f"{campaign.system.name}'s rules roll dice for this span of time, and engine "
                "dice need an open session (its seed is committed at start): run `campaign "
                "session start` first"
            )
        if self.next_nonce is None:
            self.seed = sessions.session_seed(campaign, number)
            self.next_nonce = campaign.store.engine_rolls(campaign.id, number)
        source: DiceSource
        if self.placeholder:
            source = _LowestDice(self.next_nonce, client_seed)
        else:
            source = EngineDice(self.seed, campaign.id, number, self.next_nonce, client_seed)
        self.next_nonce += 1
        return source


class _LowestDice(DiceSource):
    """A dry run's stand-in for one engine roll: every die its lowest face."""

    source = "engine"

    def __init__(self, nonce: int, client_seed: str) -> None:
        super().__init__()
        self.nonce, self.client_seed = nonce, client_seed

    def _draw(self, sides: int) -> int:
        return 1

    def fields(self) -> dict[str, Any]:
        return {**super().fields(), "nonce": self.nonce, "client_seed": self.client_seed}


def plan(campaign: Campaign, span: TimePassed, *, placeholder: bool = False) -> TimePlan:
    """What ``span`` implies now: the rule system asked with every character's state at
    the head (GM view), and with :class:`SessionDice` when its ``time_passed`` rolls
    (placeholder dice with ``placeholder``: a dry run's rolls are not the real ones)."""
    states = campaign.states()
    asked = msgspec.structs.replace(span, consequences=0)
    dice = SessionDice(campaign, placeholder=placeholder)
    consequences = time_consequences(campaign.system, states, asked, dice)
    counted = msgspec.structs.replace(span, consequences=len(consequences))
    return TimePlan(counted, consequences, [])


def pass_time(
    campaign: Campaign,
    duration: str,
    *,
    rest: bool = False,
    care: bool = False,
    dry_run: bool = False,
    actor: str,
    at: str,
) -> TimePlan:
    """Pass ``duration`` of in-fiction time: one batch, the ``time.passed`` event and its
    consequences (:func:`plan`), each validated; nothing is written with ``dry_run`` (a
    roll among the consequences is then planned with placeholder dice: :func:`drawn_later`).

    :raises RuleError: a bad duration, or consequences the rules refuse (nothing written).
    """
    with campaign.store.transaction():
        span = span_of(campaign, duration, rest=rest, care=care)
        planned = plan(campaign, span, placeholder=dry_run)
        if dry_run:
            return planned
        records = campaign.append([planned.span, *planned.consequences], actor=actor, at=at)
    return TimePlan(planned.span, planned.consequences, records)


def check(campaign: Campaign, events: Sequence[Event]) -> None:
    """Refuse a batch holding a ``time.passed`` that is not first, not followed by exactly
    its ``consequences``, or whose consequences are not what the rules give now.

    :raises RuleError: naming the command that writes it (nothing written).
    """
    spans = [i for i, e in enumerate(events) if isinstance(e, TimePassed)]
    if not spans:
        return
    span = events[0]
    if spans != [0] or not isinstance(span, TimePassed):
        raise RuleError("time.passed comes first in a batch of its own: use `campaign time pass`")
    if not 1 <= span.minutes <= LONGEST:
        raise RuleError(f"time.passed takes 1 to {LONGEST} minutes (ten years), not {span.minutes}")
    from ledger.text import check_name

    check_name(span.words, "the span's words")
    if span.consequences != len(events) - 1:
        raise RuleError(
            f"time.passed counts {span.consequences} consequences but its batch holds "
            f"{len(events) - 1}: use `campaign time pass`, which asks the rules"
        )
    expected = plan(campaign, span).consequences
    given = list(events[1:])
    if [msgspec.to_builtins(e) for e in expected] != [msgspec.to_builtins(e) for e in given]:
        want = ", ".join(event_tag(type(e)) for e in expected) or "none"
        raise RuleError(
            f"these are not the consequences the rules give for {span.words} "
            f"({want}): use `campaign time pass`, which asks the rules"
        )


def span_before(campaign: Campaign, seq: int) -> Recorded | None:
    """The ``time.passed`` whose consequences include event ``seq``, or ``None``."""
    for found_seq, _ in campaign.store.rows(
        campaign.id, types=["time.passed"], upto=seq - 1, descending=True, columns="seq, data"
    ):
        rec = campaign.record(int(found_seq))
        assert isinstance(rec.data, TimePassed)
        return rec if found_seq + rec.data.consequences >= seq else None
    return None


def consequences_of(campaign: Campaign, span: Recorded) -> list[Recorded]:
    """The consequences appended with ``span`` (a ``time.passed`` record)."""
    data = span.data
    if not isinstance(data, TimePassed) or not data.consequences:
        return []
    return list(campaign.records(after=span.seq, upto=span.seq + data.consequences))


def entry_of(campaign: Campaign, rec: Recorded) -> Recorded | None:
    """The ``time.passed`` that ``rec`` is a consequence of (what ``undo`` retracts), or
    ``None`` when it is not one."""
    if rec.type == "time.passed" or rec.type == "correction.recorded":
        return None
    return span_before(campaign, rec.seq)


def refusal(campaign: Campaign, target: Recorded, action: str) -> str | None:
    """Why ``target`` cannot be corrected by ``action`` for being (part of) a span of time,
    or ``None``: a span is retracted whole, never amended; a consequence goes with it."""
    if target.type == "time.passed":
        if action == "amend":
            return (
                f"event {target.seq} (time passed) cannot be amended: retract it (its "
                "consequences go with it) and pass the right time again"
            )
        return None
    span = entry_of(campaign, target)
    if span is not None:
        return (
            f"event {target.seq} came with the time that passed at event {span.seq} (it is "
            f"part of it): correct event {span.seq} instead (retracting it retracts this too)"
        )
    return None


def companions(
    campaign: Campaign, target: Recorded, corrections: Corrections
) -> dict[str, dict[str, Any] | None]:
    """What retracting the span ``target`` does to its consequences, as
    :attr:`~ledger.events.Corrected.companions`: each one still in force is retracted."""
    return {
        str(rec.seq): None
        for rec in consequences_of(campaign, target)
        if rec.seq not in corrections.retracted
    }


def passed_in_session(campaign: Campaign, number: int) -> int:
    """The in-fiction minutes that passed in session ``number`` (spans retracted since do
    not count): what ``advance --dry-run`` and recaps say of the session's time."""
    retracted = campaign.corrections().retracted
    return sum(
        rec.data.minutes
        for rec in campaign.records(session=number, types=["time.passed"])
        if isinstance(rec.data, TimePassed) and rec.seq not in retracted
    )


def seq_of_day(campaign: Campaign, text: str) -> int:
    """The seq of ``--as-of day:N``: the campaign as it stood once N days of in-fiction time
    had passed, before the span that took its clock past them (spans retracted since do
    not count; ``day:0`` is before any time passed; the head when the clock never got
    there).

    :raises RuleError: ``N`` is not a whole number of days (0 to 36500).
    """
    from ledger.rules.spans import DAY

    number = text[4:]
    if not (number.isdigit() and len(number) <= 5 and int(number) <= 36500):
        raise RuleError(f"as of {text!r}: give a whole number of days, e.g. day:3", param="as_of")
    limit, clock = int(number) * DAY, 0
    retracted = campaign.corrections().retracted
    for rec in campaign.records(types=["time.passed"]):
        if rec.seq in retracted or not isinstance(rec.data, TimePassed):
            continue
        clock += rec.data.minutes
        if clock > limit:
            return rec.seq - 1
    return campaign.store.head(campaign.id).seq


def drawn_later(event: Event, dry_run: bool) -> bool:
    """Whether ``event``, a consequence planned for a ``--dry-run``, is an engine roll whose
    real dice are drawn only when the span is written (its faces are placeholders)."""
    return dry_run and isinstance(event, Roll) and event.source == "engine"
