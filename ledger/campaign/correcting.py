"""Writing a correction (:func:`correct`): a retraction or an amendment, checked like a new
event, with what it does to a roll's parts, handed to ``Campaign.append``.

An amended roll is resolved again from its amended inputs and its own dice (or corrected
physical faces), so what the correction records is what the rules give
(:func:`amended_payload`); an amended character sheet is checked as `character add` checks
it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.campaign import initiative, timeline
from ledger.campaign.corrections import (
    RANDOMNESS_FIELDS,
    broken_by,
    broken_sentence,
    in_force,
    input_fields,
    payload_of,
    refusal,
    roll_companions,
)
from ledger.dice.engine import DiceError, PhysicalDice, parse_faces
from ledger.errors import RuleError
from ledger.events import Corrected, Recorded, Roll, RollInputs
from ledger.rules.requests import Opponent
from ledger.rules.system import RuleSystem

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign


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
        An amended roll is resolved again (:mod:`ledger.campaign.corrections`).
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
