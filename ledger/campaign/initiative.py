"""Writing encounters: ``encounter start`` (initiative rolled, recorded or the GM's
order), ``next``, ``act`` and ``end``, each a batch handed to
:meth:`ledger.campaign.aggregate.Campaign.append`; what ``append`` checks of a start
(:func:`check_start`); and how an encounter is undone (:func:`entry_of`, :func:`refusal`).

Initiative follows the rule text (:meth:`ledger.RuleSystem.initiative_roll`): where it is
a roll, each character on the ledger rolls it as an ordinary roll (engine dice, or the
faces given), and the order is highest first, ties in the order the GM listed (the texts
resolve ties at the table); where the text is silent, the order is the GM's, as listed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ledger.campaign import rolling
from ledger.campaign.encounter_checks import already
from ledger.campaign.encounters import NONE_RUNNING, NoEncounter, Running, running, turn_end
from ledger.errors import NotFound, RuleError
from ledger.events import (
    EncounterAction,
    EncounterEnded,
    EncounterHiddenJoined,
    EncounterHiddenTurn,
    EncounterStarted,
    EncounterTurn,
    Event,
    Participant,
    Recorded,
)

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

_NAMED = re.compile(r"^(?P<name>.+?)=(?P<value>[+-]?\d{1,3})$")


@dataclass(frozen=True)
class Asked:
    """One participant as ``encounter start`` was given them: ``NAME`` or ``NAME=N``."""

    name: str
    value: int | None = None


def parse(text: str) -> Asked:
    """``NAME`` or ``NAME=N`` (N the initiative rolled at the table, -999..999).

    :raises RuleError: an empty name.
    """
    found = _NAMED.match(text.strip())
    name, value = (found["name"], int(found["value"])) if found else (text, None)
    if not name.strip():
        raise RuleError(f"{text!r} names nobody: give NAME or NAME=N (e.g. thug=2)")
    return Asked(name.strip(), value)


def _seats(
    campaign: Campaign, listed: Sequence[Asked], foes: Sequence[Asked]
) -> list[tuple[Asked, str | None]]:
    """``[(asked, character id or None)]`` in the order listed, unlisted foes last.

    :raises NotFound: a name that is no character and no ``--foe`` (the closest named).
    """
    foe_names = {f.name.casefold(): f for f in foes}
    out: list[tuple[Asked, str | None]] = []
    for asked in listed:
        foe = foe_names.pop(asked.name.casefold(), None)
        if foe is not None:
            out.append(
                (Asked(foe.name, asked.value if asked.value is not None else foe.value), None)
            )
            continue
        try:
            out.append((asked, campaign.find_character(asked.name)))
        except NotFound as e:
            raise NotFound(
                f"{e} (a foe without a sheet: name {asked.name!r} as a foe)", param="foe"
            ) from None
    out += [(f, None) for f in foe_names.values()]
    return out


def start(
    campaign: Campaign,
    listed: Sequence[str],
    *,
    foes: Sequence[str] = (),
    hidden: Sequence[str] = (),
    faces: dict[str, str] | None = None,
    gm_order: bool = False,
    title: str = "",
    actor: str,
    at: str,
) -> list[Recorded]:
    """Start an encounter: roll or record initiative the way the rule text says, then
    append ``encounter.started``, a GM-only ``encounter.hidden_joined`` for each hidden
    participant and the first turn, as one batch (the initiative rolls are ordinary rolls
    before it, in the same transaction).

    :param listed: participants (``NAME`` or ``NAME=N``), characters or ``foes``' names,
        in the GM's order.
    :param foes: participants without a sheet (``NAME`` or ``NAME=N``); listed last
        unless named in ``listed``.
    :param hidden: names of participants only the GM knows of (their rolls are blind).
    :param faces: ``{name: faces}`` of physical dice for initiative rolls.
    :param gm_order: take the order as listed, no rolls (the texts' ambush or readiness).
    :returns: the records of the encounter's batch (``encounter.started`` first).
    :raises RuleError: an encounter already running, a name twice, numbers for some and not
        others, a foe without a number where the text rolls, faces for no such roll.
    :raises NotFound: an unknown name (the closest named).
    """
    faces = dict(faces or {})
    system = campaign.system
    with campaign.store.transaction():
        now = running(campaign)
        if now is not None:
            raise RuleError(already(now))
        faces = {campaign.find_character(k): v for k, v in faces.items()}
        seats = _seats(campaign, [parse(t) for t in listed], [parse(t) for t in foes])
        if not seats:
            raise RuleError("an encounter needs participants: `campaign encounter start NAME...`")
        names = campaign.characters()
        shown = [(a, cid, names[cid] if cid else a.name) for a, cid in seats]
        keys = [n.casefold() for _, _, n in shown]
        twice = sorted({n for n in keys if keys.count(n) > 1})
        if twice:
            raise RuleError(f"{', '.join(twice)} is listed twice: each takes one place")
        secret = {h.casefold() for h in hidden}
        unknown = sorted(secret - set(keys) - {cid for _, cid, _ in shown if cid})
        if unknown:
            raise RuleError(
                f"the hidden {unknown[0]!r} is not a participant: list them too", param="hidden"
            )
        from ledger.rules.turns import Turns

        rolls = not gm_order and type(system).initiative_roll is not Turns.initiative_roll
        given = [a.value is not None for a, _, _ in shown]
        if gm_order and any(given):
            raise RuleError(
                "the GM's order takes the order as listed: leave out the numbers",
                param="gm_order",
            )
        seated: list[tuple[Participant, bool]] = []
        for asked, cid, name in shown:
            is_hidden = name.casefold() in secret or (cid or "").casefold() in secret
            if asked.value is not None:
                p = Participant(name=name, character=cid, initiative=asked.value, how="recorded")
            elif rolls and cid is None:
                raise RuleError(
                    f"{name} has no sheet to roll initiative from: give the roll made at "
                    f"the table as {name}=N (or take the order as listed: the GM's order)",
                    param="gm_order",
                )
            elif rolls and cid and system.initiative_roll(campaign.state_of(cid)) is not None:
                p = _rolled(campaign, cid, name, faces.pop(cid, None),
                            is_hidden, actor=actor, at=at)  # fmt: skip
            else:
                p = Participant(name=name, character=cid)
            seated.append((p, is_hidden))
        if faces:
            raise RuleError(
                f"the dice for {next(iter(faces))}: they roll no initiative here", param="dice"
            )
        numbered = [p.initiative is not None for p, _ in seated]
        if any(numbered) and not all(numbered):
            missing = [p.name for p, _ in seated if p.initiative is None]
            who = (
                ", ".join(missing[:-1]) + " and " + missing[-1] if len(missing) > 1 else missing[0]
            )
            raise RuleError(
                f"{who} {'have' if len(missing) > 1 else 'has'} no initiative: give every "
                "participant one (NAME=N, e.g. thug=2) or none"
            )
        if all(numbered):
            seated.sort(key=lambda s: -(s[0].initiative or 0))  # stable: ties as listed
        return campaign.append(_batch(campaign, seated, title), actor=actor, at=at)


def _rolled(
    campaign: Campaign, cid: str, name: str, faces: str | None, blind: bool, *, actor: str, at: str
) -> Participant:
    """Roll ``cid``'s initiative the text's way (an ordinary roll in the log)."""
    system = campaign.system
    asked = system.initiative_roll(campaign.state_of(cid))
    assert asked is not None
    skill, params = asked
    batch = rolling.roll(campaign, cid, skill, params, faces=faces, blind=blind, actor=actor, at=at)
    value = system.initiative_of(batch.roll.data)
    if value is None:
        raise TypeError(f"{system.id}.initiative_of does not read its own initiative roll")
    return Participant(
        name=name, character=cid, initiative=value, how="rolled", roll=batch.roll.seq
    )


def _batch(campaign: Campaign, seated: list[tuple[Participant, bool]], title: str) -> list[Event]:
    """``encounter.started``, the hidden joins and the first turn."""
    first = campaign.store.head(campaign.id).seq + 1
    public = [p for p, h in seated if not h]
    events: list[Event] = [EncounterStarted(participants=public, title=title)]
    for i, (p, h) in enumerate(seated):
        if h:
            events.append(EncounterHiddenJoined(encounter=first, participant=p, position=i))
    lead, lead_hidden = seated[0]
    kind = EncounterHiddenTurn if lead_hidden else EncounterTurn
    events.append(kind(encounter=first, round=1, turn=lead.name))
    return events


def next_turn(campaign: Campaign, *, actor: str, at: str) -> list[Recorded]:
    """Move to the next turn (a new round after the last participant): one
    ``encounter.turn`` (``encounter.hidden_turn`` for a hidden participant) and what ends
    with the turn that ends (:func:`~ledger.campaign.encounters.turn_end`), one batch,
    GM-only when the next turn is a hidden participant's, or what ends with a hidden
    participant's turn is not nothing.

    :returns: the records, the turn first. :raises NoEncounter: none running.
    """
    with campaign.store.transaction():
        now = _running(campaign)
        at_, round_ = now.following()
        seat = now.order[at_]
        ending, hidden = turn_end(campaign, now)
        kind = EncounterHiddenTurn if seat.hidden else EncounterTurn
        turn = kind(encounter=now.seq, round=round_, turn=seat.name, consequences=len(ending))
        secret = seat.hidden or (hidden and bool(ending))  # no hidden name in a public event
        return campaign.append([turn, *ending], actor=actor, at=at,
                               visibility="gm" if secret else None)  # fmt: skip


def act(
    campaign: Campaign, character: str, actions: int, what: str, *, blind: bool = False,
    actor: str, at: str,
) -> Recorded:  # fmt: skip
    """Spend ``actions`` of ``character``'s in this round (``encounter.action``), refused
    past the text's count (:attr:`ledger.RuleSystem.actions_per_round`).

    :raises NoEncounter: none running. :raises RuleError: too many, or not a participant.
    """
    from ledger.text import check_name

    check_name(what, "what they do")
    with campaign.store.transaction():
        now = _running(campaign)
        cid = campaign.find_character(character)
        event = EncounterAction(character=cid, encounter=now.seq, actions=actions, what=what)
        return campaign.append([event], actor=actor, at=at,
                               visibility="gm" if blind else None)[0]  # fmt: skip


def end(campaign: Campaign, *, actor: str, at: str) -> list[Recorded]:
    """End the encounter running: ``encounter.ended`` and what ends with the last turn
    (GM-only when that was a hidden participant's). :raises NoEncounter: none running."""
    with campaign.store.transaction():
        now = _running(campaign)
        ending, hidden = turn_end(campaign, now)
        event = EncounterEnded(encounter=now.seq, round=now.round, consequences=len(ending))
        return campaign.append([event, *ending], actor=actor, at=at,
                               visibility="gm" if hidden else None)  # fmt: skip


def _running(campaign: Campaign) -> Running:
    now = running(campaign)
    if now is None:
        raise NoEncounter(NONE_RUNNING)
    return now


# --- undo -----------------------------------------------------------------------------------


#: Encounter events that may carry consequences (what ends with a turn).
HEADS = ("encounter.turn", "encounter.hidden_turn", "encounter.ended")


def head_of(campaign: Campaign, seq: int) -> Recorded | None:
    """The turn or end whose consequences include event ``seq``, or ``None``."""
    for found, _ in campaign.store.rows(
        campaign.id, types=list(HEADS), upto=seq - 1, descending=True, columns="seq, stream"
    ):
        rec = campaign.record(int(found))
        count = int(getattr(rec.data, "consequences", 0))
        return rec if rec.seq + count >= seq else None
    return None


def entry_of(campaign: Campaign, rec: Recorded) -> Recorded | None:
    """What ``undo`` retracts for ``rec`` when it is part of an encounter's entry: the
    ``encounter.started`` of a hidden participant or the first turn, the turn (or end) of
    what ended with it; ``None`` for any other event."""
    data = rec.data
    if rec.type == "correction.recorded":
        return None
    if not isinstance(data, EncounterHiddenJoined | EncounterTurn | EncounterHiddenTurn):
        return None if rec.type.startswith("encounter.") else head_of(campaign, rec.seq)
    between = list(campaign.records(after=data.encounter, upto=rec.seq - 1))
    if all(isinstance(r.data, EncounterHiddenJoined) for r in between) and rec.seq > data.encounter:
        return campaign.record(data.encounter)
    return None


def refusal(campaign: Campaign, target: Recorded, action: str) -> str | None:
    """Why ``target`` cannot be corrected by ``action`` for being an encounter's event, or
    ``None``: encounter events are retracted, never amended; a hidden participant and the
    first turn go with their ``encounter.started``, what ended with a turn with the turn."""
    if not target.type.startswith("encounter."):
        head = entry_of(campaign, target)
        if head is None:
            return None
        return (
            f"event {target.seq} ended with the turn at event {head.seq} (it is part of it): "
            f"correct event {head.seq} instead (retracting it retracts this too)"
        )
    if action == "amend":
        return (
            f"event {target.seq} ({target.type}) cannot be amended: retract it "
            "(`campaign undo`) and record it again"
        )
    started = entry_of(campaign, target)
    if started is not None:
        return (
            f"event {target.seq} came with the encounter started at event {started.seq}: "
            f"correct event {started.seq} instead (retracting it retracts the encounter)"
        )
    return None


def companions(
    campaign: Campaign, target: Recorded, retracted: set[int]
) -> dict[str, dict[str, Any] | None]:
    """What retracting the turn or end ``target`` does to what ended with it, as
    :attr:`~ledger.events.Corrected.companions`: each one still in force is retracted."""
    count = int(getattr(target.data, "consequences", 0))
    return {
        str(rec.seq): None
        for rec in campaign.records(after=target.seq, upto=target.seq + count)
        if count and rec.seq not in retracted
    }
