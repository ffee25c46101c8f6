"""Corrections: an earlier event retracted or amended, through the rules (docs/events.md
"The envelope").

A ``correction.recorded`` event retracts or amends an earlier event; the original stays in
the log. :func:`correct` (``Campaign.correct``) writes one, checked like a new event, and
hands it to ``Campaign.append``:

- :func:`refusal` refuses what cannot be corrected: a session or campaign event, an event
  already retracted, a second retraction, an amendment of a correction.
- :func:`amended_payload` turns ``--set FIELD=VALUE`` (and ``--dice``) into the full
  replacement payload. An amended roll is *re-resolved*: its amended inputs and corrected
  physical faces go through the rule system again (:meth:`RuleSystem.rederive`, i.e.
  ``resolve(state, request_of(roll), ReplayDice(roll))``), so totals, bands, margins,
  experience and kept dice are worked out, never typed. A derived field set by hand is
  refused, naming the inputs to amend instead. An engine roll's randomness (``source``,
  ``draws``, ``nonce``, ``client_seed``, ``scheme``) is never amended: retract it and roll
  again, so the re-roll stays visible. An amended ``character.created`` sheet passes the
  system's creation rules, as ``character add`` does.
- :func:`roll_companions` works out what the correction does to the events that are part of
  a roll (the harm it applied, its follow-ups); :func:`entry_of` names the entry an event
  belongs to (what ``campaign undo`` takes back whole).
- :func:`broken_by` replays the corrected history of the streams the correction touches and
  names every event the rules would then refuse; the correction is refused if any.
- :func:`in_force` is the payload an event counts with under the corrections in force, as
  ``log``, ``recap`` and ``audit`` read it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import UNSET

from ledger.campaign import initiative, timeline
from ledger.dice.engine import DiceError, PhysicalDice, parse_faces
from ledger.errors import RuleError
from ledger.events import (
    CAMPAIGN_STREAM,
    ContestOpposed,
    Corrected,
    Recorded,
    Roll,
    RollInputs,
    event_tag,
)
from ledger.rules.projection import Corrections, companions_of, corrections_from
from ledger.rules.roll_inputs import Opponent
from ledger.rules.system import RuleSystem

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: The fields that say where a roll's randomness came from: never amended on an engine roll.
RANDOMNESS_FIELDS = ("source", "draws", "nonce", "client_seed", "scheme")
#: Events that open and close the campaign or a session: never corrected.
UNCORRECTABLE = (
    "campaign.created",
    "session.started",
    "session.ended",
    "session.abandoned",
    "downtime.committed",
    "downtime.revealed",
    "downtime.abandoned",
)
#: Broken events named in a refusal before "and N more".
_NAMED = 8
#: How far after a roll its batch may run (opponent's side, harm, follow-ups).
_BATCH_TAIL = 16


def payload_of(event: Any) -> dict[str, Any]:
    """An event's payload as plain data, without its ``type`` tag."""
    data = msgspec.to_builtins(event)
    data.pop("type", None)
    return data


def in_force(campaign: Campaign, target: Recorded, corrections: Corrections) -> Any | None:
    """The payload ``target`` counts with under ``corrections`` (``None``: retracted)."""
    if target.seq in corrections.retracted:
        return None
    if target.seq in corrections.amended:
        return campaign.codec.amended(target.type, corrections.amended[target.seq])
    return target.data


def refusal(
    target: Recorded, action: str, corrections: Corrections, before: Recorded | None = None
) -> str | None:
    """Why ``target`` cannot be corrected by ``action`` (``"retract"``/``"amend"``), or ``None``.

    :param corrections: the corrections in force now.
    :param before: the event just before ``target`` (to tell a roll's applied harm).
    """
    seq = target.seq
    if before is not None and isinstance(before.data, ContestOpposed) and before.data.harm == seq:
        rolled = before.data.roll
        return (
            f"event {seq} is the harm roll {rolled} applied: correct roll {rolled} instead (its "
            "harm is retracted with it, and follows an amended result)"
        )
    if target.type in UNCORRECTABLE:
        return f"event {seq} ({target.type}) cannot be corrected"
    if target.type == "contest.opposed":
        roll = getattr(target.data, "roll", "?")
        return (
            f"event {seq} is the opponent's side of roll {roll}: correct roll {roll} "
            "instead (retract it and roll again to change who opposed it)"
        )
    if seq in corrections.retracted:
        by = [c for c, corr in corrections.by_target.get(seq, []) if corr.action == "retract"]
        undo = f": to restore it, retract correction {by[-1]}" if by else ""
        return f"event {seq} is already retracted{f' (by event {by[-1]})' if by else ''}{undo}"
    if target.type == "correction.recorded" and action == "amend":
        assert isinstance(target.data, Corrected)
        return (
            f"event {seq} is a correction and cannot be amended: correct event "
            f"{target.data.target} again (its latest correction is the one in force), "
            f"or retract correction {seq} to undo it"
        )
    return None


def applied_harm(campaign: Campaign, roll: Recorded) -> Recorded | None:
    """The harm ``roll`` applied with ``--apply``: the event its ``contest.opposed``
    names, or ``None`` (not a contest, or no harm applied)."""
    if not isinstance(roll.data, Roll) or campaign.system.opponent_of(roll.data) is None:
        return None
    link = next(iter(campaign.records(after=roll.seq, upto=roll.seq + 1)), None)
    if link is None or not isinstance(link.data, ContestOpposed) or link.data.roll != roll.seq:
        return None
    if link.data.harm is UNSET:
        return None
    return campaign.record(link.data.harm)


def follow_ups_of(campaign: Campaign, roll: Recorded) -> list[Recorded]:
    """The events ``roll`` was written with as its :meth:`RuleSystem.follow_ups`:
    those right after it in its batch (after its opponent's side and harm) that the rules
    say follow it up (:meth:`RuleSystem.follow_up_of`)."""
    if not isinstance(roll.data, Roll):
        return []
    system = campaign.system
    found: list[Recorded] = []
    harm = None
    for rec in campaign.records(after=roll.seq, upto=roll.seq + _BATCH_TAIL):
        if isinstance(rec.data, ContestOpposed) and rec.data.roll == roll.seq:
            harm = rec.data.harm
        elif rec.seq == harm:
            pass
        elif system.follow_up_of(rec.data) == roll.seq:
            found.append(rec)
        else:
            break
    return found


def entry_of(campaign: Campaign, rec: Recorded) -> Recorded:
    """The entry ``rec`` belongs to: for a roll's opponent's side
    (``contest.opposed``), the harm it applied or one of its follow-ups, the roll; else
    ``rec`` itself. What ``campaign undo`` retracts, so the whole entry goes. A
    consequence of time passing belongs to its ``time.passed``."""
    span = timeline.entry_of(campaign, rec) or initiative.entry_of(campaign, rec)
    if span is not None:
        return span
    if isinstance(rec.data, ContestOpposed):
        return campaign.record(rec.data.roll)
    if rec.seq > 1:
        before = campaign.record(rec.seq - 1)
        if isinstance(before.data, ContestOpposed) and before.data.harm == rec.seq:
            return campaign.record(before.data.roll)
    roll = campaign.system.follow_up_of(rec.data)
    if roll is not None:
        found = campaign.record(roll)
        if any(f.seq == rec.seq for f in follow_ups_of(campaign, found)):
            return found
    return rec


def roll_companions(
    campaign: Campaign, target: Recorded, amended: Any | None, corrections: Corrections
) -> dict[str, dict[str, Any] | None]:
    """What correcting roll ``target`` does to the events that are part of it, as
    :attr:`~ledger.events.Corrected.companions`: the harm it applied (``--apply``) and
    its follow-ups (:meth:`RuleSystem.follow_ups`). Retracting the roll retracts them;
    amending it works them out again from the amended roll: the harm is retracted when the
    roll no longer harms and amended when the amount changes, a follow-up amended when it
    changes. One retracted on its own stays retracted. ``{}`` when nothing changes.

    :param amended: the roll as amended, or ``None`` when it is retracted.
    :param corrections: the corrections in force now.
    :raises RuleError: the amended roll would harm the other side of the contest, or be
        followed by other events than the ones recorded (retract it and roll again).
    """
    out = _harm_companions(campaign, target, amended, corrections)
    follows = follow_ups_of(campaign, target)
    if not follows:
        return out
    live = [(rec, in_force(campaign, rec, corrections)) for rec in follows]
    if amended is None:
        return out | {str(rec.seq): None for rec, now in live if now is not None}
    state = campaign.state_before(target, corrections)
    again = campaign.system.follow_ups(state, amended, seq=target.seq)
    if [event_tag(type(e)) for e in again] != [rec.type for rec in follows]:
        raise RuleError(
            f"event {target.seq} as amended is followed by other events than the "
            f"{', '.join(str(rec.seq) for rec in follows)} it was written with: retract it "
            "and roll again"
        )
    for (rec, now), event in zip(live, again, strict=True):
        payload = payload_of(event)
        if now is not None and payload_of(now) != payload:
            out[str(rec.seq)] = campaign.codec.stamped(rec.type, payload)
    return out


def _harm_companions(
    campaign: Campaign, target: Recorded, amended: Any | None, corrections: Corrections
) -> dict[str, dict[str, Any] | None]:
    """The harm part of :func:`roll_companions`."""
    harm = applied_harm(campaign, target)
    if harm is None:
        return {}
    now = in_force(campaign, harm, corrections)
    dealt = campaign.system.harm_of(amended) if amended is not None else None
    if dealt is None or dealt[1] <= 0:
        return {str(harm.seq): None} if now is not None else {}
    who, amount = dealt
    if who != harm.stream:
        names = campaign.characters(include_retracted=True)
        raise RuleError(
            f"event {target.seq} as amended harms {names.get(who, who)}, not "
            f"{names.get(harm.stream, harm.stream)} as recorded (event {harm.seq}): retract "
            "it and roll again"
        )
    state = campaign.state_before(target, corrections, stream=who)
    event = campaign.harm_event(state, who, amount)
    if event_tag(type(event)) != harm.type:
        raise RuleError(
            f"event {target.seq} as amended records its harm as {event_tag(type(event))}, not "
            f"{harm.type}: retract it and roll again"
        )
    payload = payload_of(event)
    if now is not None and payload_of(now) == payload:
        return {}
    return {str(harm.seq): campaign.codec.stamped(harm.type, payload)}


def input_fields(system: Any, event: Roll) -> set[str] | None:
    """The fields ``system.request_of`` reads of ``event`` (``None`` when unknown)."""
    read: set[str] = set()
    names = set(event.__struct_fields__)

    class Spy(type(event), frozen=True, kw_only=True):  # type: ignore[misc,call-arg]
        def __getattribute__(self, name: str) -> Any:
            if name in names:
                read.add(name)
            return super().__getattribute__(name)

    try:
        spy = Spy(**{f: getattr(event, f) for f in event.__struct_fields__})
        system.request_of(spy)
    except Exception:  # a system that cannot re-derive this type, or inspects the class
        return None
    return read - set(RANDOMNESS_FIELDS) - {"character"}


def amended_payload(
    campaign: Campaign,
    target: Recorded,
    current: Any,
    sets: dict[str, Any],
    faces: str | None,
    state_before: Callable[[], Any],
) -> dict[str, Any]:
    """The full replacement payload for amending ``target`` with ``sets`` and ``faces``.

    :param current: the payload ``target`` counts with now (earlier amendments applied).
    :param sets: ``{field: value}`` as given with ``--set`` (values already JSON-decoded).
        For a roll that keeps its inputs (``inputs``), a declared roll option's name or
        ``skill`` amends that input too (:func:`_as_inputs`).
    :param faces: ``--dice`` text: the corrected physical faces of a roll, or ``None``.
    :param state_before: returns the character's state just before ``target`` (corrections
        in force now), for re-resolving a roll.
    :raises RuleError: an unknown field, a field that cannot be amended (the stream's
        ``character``, a roll's randomness or derived results), data that does not fit the
        type, a sheet the creation rules refuse, inputs the rules refuse.
    """
    seq, type_ = target.seq, target.type
    fields = set(type(current).__struct_fields__)
    sets = _as_inputs(campaign.system, current, sets)
    unknown = sorted(set(sets) - fields)
    if unknown:
        raise RuleError(
            f"{type_} has no field {', '.join(map(repr, unknown))} "
            f"(fields: {', '.join(sorted(fields))})"
        )
    if "character" in sets and sets["character"] != getattr(current, "character", None):
        raise RuleError(
            f"event {seq} stays with {getattr(current, 'character', None) or 'the campaign'}: "
            "to record it for someone else, retract it and record it again"
        )
    is_roll = isinstance(current, Roll)
    if faces is not None and not is_roll:
        raise RuleError(
            f"event {seq} ({type_}) is not a roll: corrected dice are a roll's faces",
            param="dice",
        )
    if is_roll:
        engine = current.source == "engine"
        fixed_fields = (
            RANDOMNESS_FIELDS if engine else tuple(f for f in RANDOMNESS_FIELDS if f != "draws")
        )
        touched = [f for f in fixed_fields if f in sets and sets[f] != payload_of(current).get(f)]
        if engine and (touched or faces is not None):
            what = ", ".join(touched) or "dice"
            raise RuleError(
                f"event {seq} is an engine roll: its {what} can never be amended (the dice came "
                "from the session's committed seed); retract it and roll again, and the re-roll "
                "stays visible"
            )
        if touched:
            raise RuleError(
                f"event {seq}'s {', '.join(touched)} cannot be amended: correct its faces "
                "(the dice), or retract it and roll again",
                param="dice",
            )
    payload = {**payload_of(current), **sets}
    try:
        amended = campaign.codec.convert(type_, {"type": type_, **payload}, strict=False)
    except msgspec.ValidationError as e:
        raise RuleError(f"amended data does not fit {type_}: {e}") from None
    if type_ == "character.created":
        return _amended_character(campaign, amended)
    if not is_roll:
        return payload_of(amended)
    assert isinstance(amended, Roll)
    system = campaign.system
    if system.opponent_of(amended) != system.opponent_of(current):
        raise RuleError(
            f"event {seq} was opposed by {system.opponent_of(current) or 'no character'}: who "
            "opposed a roll cannot be amended; retract it and roll again"
        )
    return _reresolved(campaign, target, current, amended, sets, faces, state_before)


def _as_inputs(system: Any, current: Any, sets: dict[str, Any]) -> dict[str, Any]:
    """``sets`` with each roll option it names (``target=9``) and ``skill`` written into
    the roll's recorded ``inputs`` instead, for a roll that keeps them and a system that
    reads them back (the default ``request_of``): the option is amended where the rules read
    it, and a field of the same name is worked out again from it (a decision-dice
    ``target`` is the option's number plus the roll's adjustments). Anything else unchanged.
    """
    inputs = getattr(current, "inputs", None)
    if not isinstance(inputs, RollInputs) or type(system).request_of is not RuleSystem.request_of:
        return sets
    options = {p.name for p in system.roll_params}
    named = {k: v for k, v in sets.items() if k in options or k == "skill"}
    if not named or "inputs" in sets:
        return sets
    params = {**inputs.params, **{k: v for k, v in named.items() if k != "skill"}}
    amended = msgspec.structs.replace(inputs, params=params, skill=named.get("skill", inputs.skill))
    kept = {k: v for k, v in sets.items() if k not in named}
    return {**kept, "inputs": msgspec.to_builtins(amended)}


def _amended_character(campaign: Campaign, amended: Any) -> dict[str, Any]:
    """A ``character.created`` payload whose name and sheet pass the creation rules."""
    from ledger.text import check_name, check_sheet

    check_name(amended.name, "the character name")
    if not amended.name.strip():
        raise RuleError('the sheet needs a name, e.g. name = "Julian Hargrave"')
    check_sheet(amended.sheet)
    sheet = campaign.system.create_sheet(dict(amended.sheet))
    return {**payload_of(amended), "name": amended.name.strip(), "sheet": sheet}


def _reresolved(
    campaign: Campaign,
    target: Recorded,
    current: Roll,
    amended: Roll,
    sets: dict[str, Any],
    faces: str | None,
    state_before: Callable[[], Any],
) -> dict[str, Any]:
    """Resolve an amended roll again with its amended inputs and corrected faces."""
    from dataclasses import replace

    system = campaign.system
    seq = target.seq
    name = campaign.characters(include_retracted=True).get(target.stream, target.stream)
    if (
        type(system).request_of is RuleSystem.request_of
        and type(system).rederive is RuleSystem.rederive
        and not isinstance(amended.inputs, RollInputs)
    ):
        raise RuleError(
            f"{system.id} cannot work out this roll again (it was recorded without its "
            f"inputs), so event {seq}'s inputs cannot be amended: retract it and roll again"
        )
    state = state_before()
    opponent = None
    oid = system.opponent_of(amended)
    if oid is not None:  # the opponent as they were just before the roll
        opponent = Opponent(
            oid,
            name=campaign.characters(include_retracted=True).get(oid, oid),
            state=campaign.state_before(target, campaign.corrections(), stream=oid),
        )
    try:
        if faces is not None:
            request = replace(system.request_of(amended), name=name)
            if request.opponent is not None and opponent is not None:
                request = replace(
                    request,
                    opponent=replace(request.opponent, name=opponent.name, state=opponent.state),
                )
            dice = PhysicalDice(parse_faces(faces))
            again = system.with_inputs(system.resolve(state, request, dice), request)
            dice.finish()
        elif opponent is not None:
            again = system.rederive(state, amended, name=name, opponent=opponent)
        else:
            again = system.rederive(state, amended, name=name)
    except DiceError as e:
        fix = (
            "retract it and roll again"
            if current.source == "engine"
            else "give all its faces (the dice)"
        )
        raise RuleError(
            f"event {seq} cannot be re-resolved with the amended inputs: {e}; {fix}",
            param=None if current.source == "engine" else "dice",
        ) from None
    except RuleError as e:
        raise RuleError(f"event {seq} as amended: {e}") from None
    new, given = payload_of(again), payload_of(amended)
    inputs = input_fields(system, amended)
    derived = sorted(
        f for f in sets if new.get(f) != given.get(f) and (inputs is None or f not in inputs)
    )
    if derived:
        choices = sorted(inputs or [])
        dice_hint = "" if current.source == "engine" else " or its faces"
        if choices == ["inputs"]:  # read by the default request_of: its options by name
            choices = [*sorted(p.name for p in system.roll_params), "skill"]
        named = (
            f"amend its inputs instead ({', '.join(choices)}){dice_hint}"
            if choices
            else f"amend its inputs instead{dice_hint}"
        )
        raise RuleError(
            f"{', '.join(derived)} of event {seq} "
            f"{'is' if len(derived) == 1 else 'are'} worked out by the rules from its inputs "
            f"and dice and cannot be set: {named}",
            param=None if current.source == "engine" else "dice",
        )
    return new


def broken_by(
    campaign: Campaign, target: Recorded, correction: Corrected, seq: int
) -> list[tuple[int, str]]:
    """Every event the rules would refuse once ``correction`` (to be ``seq``) is in force.

    Replays the corrected history of the streams the correction touches (the target's
    character, or every character for a campaign-wide or creation event) and compares it
    with today's: events already refused today are not blamed on the correction.

    :returns: ``[(seq, problem)]``, oldest first (empty: the correction is sound).
    """
    pairs = [
        (s, campaign.codec.decode(d, "correction.recorded"))
        for s, d in campaign.store.rows(
            campaign.id, types=["correction.recorded"], columns="seq, data"
        )
    ]
    after = corrections_from([*pairs, (seq, correction)])
    streams = None
    if target.stream != CAMPAIGN_STREAM and target.type != "correction.recorded":
        streams = [target.stream, CAMPAIGN_STREAM]
        # a roll's harm on the other side, its follow-ups
        streams += [campaign.record(c).stream for c in companions_of(correction)]
    elif target.type == "correction.recorded":
        assert isinstance(target.data, Corrected)
        inner = campaign.record(target.data.target)
        if inner.stream != CAMPAIGN_STREAM:
            streams = [inner.stream, CAMPAIGN_STREAM]
            # undone with it: their streams too
            streams += [campaign.record(c).stream for c in companions_of(target.data)]
    if streams is not None and CAMPAIGN_STREAM in streams[2:]:
        streams = None  # a follow-up on the campaign stream touches every character

    def errors(corrections: Corrections) -> list[tuple[int, str]]:
        found: list[tuple[int, str]] = []
        campaign.projector().fold(
            campaign.store.rows(campaign.id, streams=streams), {}, corrections, errors=found
        )
        return found

    now = errors(after)
    if not now:
        return []
    before = set(errors(corrections_from(pairs)))
    return [e for e in now if e not in before]


def broken_sentence(campaign: Campaign, seq: int, broken: list[tuple[int, str]]) -> str:
    """The refusal naming every event a correction of ``seq`` would break."""
    parts = []
    for bseq, problem in broken[:_NAMED]:
        what = "the amended event itself" if bseq == seq else campaign.record(bseq).type
        parts.append(f"event {bseq} ({what}: {problem})")
    more = f" and {len(broken) - _NAMED} more" if len(broken) > _NAMED else ""
    return (
        f"this correction of event {seq} would break {len(broken)} "
        f"event{'s' if len(broken) != 1 else ''} the rules then refuse: "
        + "; ".join(parts)
        + more
        + ". Correct those first, or correct this one differently"
    )


def correct(
    campaign: Campaign,
    seq: int,
    reason: str,
    *,
    data: dict[str, Any] | None = None,
    faces: str | None = None,
    actor: str,
    at: str,
) -> Recorded:
    """Retract (no ``data``/``faces``) or amend event ``seq``, validated like a new event.

    :param data: ``{field: value}`` to amend (the rest of the payload in force is kept).
        An amended roll is resolved again (:func:`amended_payload`).
    :param faces: a roll's corrected physical faces (``--dice`` text).
    :raises RuleError: no reason, an unknown seq, an event that cannot be corrected that
        way (session events, a retracted event, an amended correction), a field that
        cannot be amended (a roll's randomness or derived results), data the rules
        refuse, or a corrected history in which the rules refuse events (every one
        named); nothing is written.
    """
    if not reason.strip():
        raise RuleError("a correction needs a reason", param="reason")
    amend = data is not None or faces is not None
    with campaign.store.transaction():
        target = campaign.record(seq)
        corrections = campaign.corrections()
        before = campaign.record(seq - 1) if seq > 1 else None
        problem = refusal(target, "amend" if amend else "retract", corrections, before)
        if type(target.data).part_of_roll:
            rolled = campaign.system.follow_up_of(target.data)
            problem = (
                f"event {seq} came with roll {rolled} (it is part of it): correct roll "
                f"{rolled} instead (retracting it retracts this too)"
            )
        problem = problem or timeline.refusal(campaign, target, "amend" if amend else "retract")
        problem = problem or initiative.refusal(campaign, target, "amend" if amend else "retract")
        if problem:
            raise RuleError(problem)
        if amend:
            current = in_force(campaign, target, corrections)
            data = amended_payload(
                campaign,
                target,
                current,
                data or {},
                faces,
                lambda: campaign.state_before(target, corrections),
            )
            data = campaign.codec.stamped(target.type, data)  # its schema version, if > 1
        amended = campaign.codec.amended(target.type, data) if data is not None else None
        companions = roll_companions(campaign, target, amended, corrections)
        if target.type == "time.passed":  # its consequences go with it
            companions = timeline.companions(campaign, target, corrections)
        elif target.type in initiative.HEADS:  # what ended with a turn goes with it
            companions = initiative.companions(campaign, target, corrections.retracted)
        event = Corrected(
            target=seq,
            action="amend" if amend else "retract",
            reason=reason.strip(),
            data=data,
        )
        if companions:
            event = msgspec.structs.replace(event, companions=companions)
        head = campaign.store.head(campaign.id).seq
        broken = broken_by(campaign, target, event, head + 1)
        if broken:
            raise RuleError(broken_sentence(campaign, seq, broken))
        # a correction is as secret as what it corrects (an amended GM-only value stays hidden)
        return campaign.append([event], actor=actor, at=at, visibility=target.visibility)[0]
