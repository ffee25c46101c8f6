"""Corrections go through the rules (DESIGN.md "Events"; issue #14).

A ``correction.recorded`` event retracts or amends an earlier event; the original stays in
the log. :meth:`ledger.campaign.aggregate.Campaign.correct` builds one through this module:

- :func:`amended_payload` turns ``--set FIELD=VALUE`` (and ``--dice``) into the full
  replacement payload. An amended roll is *re-resolved*: its amended inputs and corrected
  physical faces go through the rule system again (:meth:`RuleSystem.rederive`, i.e.
  ``resolve(state, request_of(roll), ReplayDice(roll))``), so totals, bands, margins,
  experience and kept dice are worked out, never typed. A derived field set by hand is
  refused, naming the inputs to amend instead. An engine roll's randomness (``source``,
  ``draws``, ``nonce``, ``client_seed``, ``scheme``) is never amended: retract it and roll
  again, so the re-roll stays visible. An amended ``character.created`` sheet passes the
  system's creation rules, as ``character add`` does.
- :func:`refusal` refuses what cannot be corrected: a session or campaign event, an event
  already retracted, a second retraction, an amendment of a correction.
- :func:`broken_by` replays the corrected history of the streams the correction touches and
  names every event the rules would then refuse; the correction is refused if any.
- :func:`sentence` is the one line ``log``, ``recap`` and ``audit`` show for a correction.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import UNSET

from ledger.dice.engine import DiceError, PhysicalDice, parse_faces
from ledger.events import (
    CAMPAIGN_STREAM,
    CharacterCreated,
    ContestOpposed,
    Corrected,
    Recorded,
    Roll,
    event_tag,
)
from ledger.rules.projection import Corrections, companions_of, corrections_from
from ledger.rules.system import Opponent, RuleError, RuleSystem

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
#: The longest generic one-line summary of an event's fields.
_LONGEST = 160


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
    if (
        before is not None
        and isinstance(before.data, ContestOpposed)
        and before.data.harm == seq
    ):
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
    """The harm ``roll`` applied with ``--apply`` (#16): the event its ``contest.opposed``
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
    """The events ``roll`` was written with as its :meth:`RuleSystem.follow_ups` (#16):
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
    """The entry ``rec`` belongs to (#16): for a roll's opponent's side
    (``contest.opposed``), the harm it applied or one of its follow-ups, the roll; else
    ``rec`` itself. What ``campaign undo`` retracts, so the whole entry goes."""
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
    :attr:`~ledger.events.Corrected.companions` (#16): the harm it applied (``--apply``) and
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


def _input_fields(system: Any, event: Roll) -> set[str] | None:
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
    :param faces: ``--dice`` text: the corrected physical faces of a roll, or ``None``.
    :param state_before: returns the character's state just before ``target`` (corrections
        in force now), for re-resolving a roll.
    :raises RuleError: an unknown field, a field that cannot be amended (the stream's
        ``character``, a roll's randomness or derived results), data that does not fit the
        type, a sheet the creation rules refuse, inputs the rules refuse.
    """
    seq, type_ = target.seq, target.type
    fields = set(type(current).__struct_fields__)
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
        raise RuleError(f"event {seq} ({type_}) is not a roll: --dice corrects a roll's faces")
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
                f"event {seq}'s {', '.join(touched)} cannot be amended: correct its faces with "
                "--dice, or retract it and roll again"
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
    ):
        raise RuleError(
            f"{system.id} cannot work out its rolls again yet (it has no request_of), so "
            f"event {seq}'s inputs cannot be amended: retract it and roll again"
        )
    state = state_before()
    opponent = None
    oid = system.opponent_of(amended)
    if oid is not None:  # the opponent as they were just before the roll (#16)
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
            again = system.resolve(state, request, dice)
            dice.finish()
        elif opponent is not None:
            again = system.rederive(state, amended, name=name, opponent=opponent)
        else:
            again = system.rederive(state, amended, name=name)
    except DiceError as e:
        fix = (
            "retract it and roll again"
            if current.source == "engine"
            else "give all its faces with --dice"
        )
        raise RuleError(
            f"event {seq} cannot be re-resolved with the amended inputs: {e}; {fix}"
        ) from None
    except RuleError as e:
        raise RuleError(f"event {seq} as amended: {e}") from None
    new, given = payload_of(again), payload_of(amended)
    inputs = _input_fields(system, amended)
    derived = sorted(
        f for f in sets if new.get(f) != given.get(f) and (inputs is None or f not in inputs)
    )
    if derived:
        choices = sorted(inputs or [])
        dice_hint = "" if current.source == "engine" else " or its faces with --dice"
        named = (
            f"amend its inputs instead ({', '.join(choices)}){dice_hint}"
            if choices
            else f"amend its inputs instead{dice_hint}"
        )
        raise RuleError(
            f"{', '.join(derived)} of event {seq} "
            f"{'is' if len(derived) == 1 else 'are'} worked out by the rules from its inputs "
            f"and dice and cannot be set: {named}"
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
        # a roll's harm on the other side, its follow-ups (#16)
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


def _show(value: Any) -> str:
    """A field value as a person reads it: faces and lists joined, None as —."""
    if value is None:
        return "—"
    if isinstance(value, list):
        return " ".join(_show(v) for v in value) or "—"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_show(v)}" for k, v in value.items()) or "—"
    return str(value)


def _changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """``"field old → new"`` for each changed field (sheets flattened, faces for draws)."""
    from ledger.rules.changes import flatten

    out = []
    for key in before.keys() | after.keys():
        old, new = before.get(key), after.get(key)
        if old == new or key in ("nonce", "client_seed", "scheme", "source"):
            continue
        if key == "draws":
            out.append(
                f"faces {_show([v for _, v in old or []])} → {_show([v for _, v in new or []])}"
            )
        elif isinstance(old, dict) and isinstance(new, dict):
            fo, fn = flatten(old, key), flatten(new, key)
            out.extend(
                f"{k} {fo.get(k, '—')} → {fn.get(k, '—')}"
                for k in sorted(fo.keys() | fn.keys())
                if fo.get(k) != fn.get(k)
            )
        else:
            out.append(f"{key} {_show(old)} → {_show(new)}")
    return sorted(out)


def summary(campaign: Campaign, event: Any, stream: str) -> str:
    """One line for an event's payload: the system's description, else its fields."""
    text = campaign.system.describe(event)
    if not text and isinstance(event, CharacterCreated):
        text = f"{event.name} joins the campaign (id {event.character})"
    if not text:
        fields = payload_of(event)
        text = ", ".join(f"{k} {_show(v)}" for k, v in fields.items() if k not in RANDOMNESS_FIELDS)
        if len(text) > _LONGEST:
            text = text[: _LONGEST - 1] + "…"
    if text.startswith(f"{stream}:"):
        name = campaign.characters(include_retracted=True).get(stream, stream)
        text = f"{name} — {text[len(stream) + 1 :].strip()}"
    return " ".join(text.split())


def sentence(campaign: Campaign, crec: Recorded) -> str:
    """What a correction changed, and the result after it, in one line.

    ``"event 88 amended by gm (typo): dr 1 → 2; now outcome failure, margin -1"``;
    ``"event 9 retracted by gm (never happened); it no longer counts (was: Ann — hurt 3)"``.
    For an amended roll the changed inputs come first, then ``now`` and the re-derived
    results that changed.
    """
    corr = crec.data
    assert isinstance(corr, Corrected)
    target = campaign.record(corr.target)
    head = f"event {corr.target} {corr.action}ed by {crec.actor} ({corr.reason})"
    before_corr = campaign.corrections(crec.seq - 1)
    before = in_force(campaign, target, before_corr)
    if target.type == "correction.recorded":
        assert isinstance(target.data, Corrected)
        return f"{head}: correction {target.seq} of event {target.data.target} is undone"
    if corr.action == "retract":
        was = f" (was: {summary(campaign, before, target.stream)})" if before is not None else ""
        return f"{head}; it no longer counts{was}" + _companion_words(campaign, corr)
    return _amended_sentence(campaign, corr, target, head, before) + _companion_words(
        campaign, corr
    )


def _companion_words(campaign: Campaign, corr: Corrected) -> str:
    """What a correction did to the harm and follow-ups of its roll (``""``: nothing)."""
    words = []
    for seq, data in companions_of(corr).items():
        link = campaign.record(seq - 1).data
        what = "its harm" if isinstance(link, ContestOpposed) and link.harm == seq else "with it"
        if data is None:
            words.append(f"; {what} (event {seq}) no longer counts")
        else:
            rec = campaign.record(seq)
            now = campaign.codec.amended(rec.type, data)
            words.append(f"; {what} (event {seq}) now: {summary(campaign, now, rec.stream)}")
    return "".join(words)


def _amended_sentence(
    campaign: Campaign, corr: Corrected, target: Recorded, head: str, before: Any
) -> str:
    """The sentence of an amendment: the inputs changed, then the results that follow."""
    after = payload_of(campaign.codec.amended(target.type, corr.data or {}))
    old = payload_of(before) if before is not None else {}
    if isinstance(before, Roll):
        inputs = _input_fields(campaign.system, before) or set()
        inputs |= {"draws"}
        given = {k: v for k, v in after.items() if k in inputs}
        derived = {k: v for k, v in after.items() if k not in inputs}
        changed = _changes({k: old.get(k) for k in given}, given)
        now = [
            f"{k} {_show(v)}"
            for k, v in derived.items()
            if v != old.get(k) and k not in RANDOMNESS_FIELDS
        ]
        text = f"{head}: {', '.join(changed) or 'no input changed'}"
        return text + (f"; now {', '.join(now)}" if now else "; the result stands")
    changed = _changes(old, after)
    return f"{head}: {', '.join(changed) or 'nothing changed'}"
