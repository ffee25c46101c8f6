"""The GM's writes at the table, one code path for ``campaign damage``, ``campaign record``
and the GM's page of ``campaign serve``: validate what was entered, build the event,
append it, and say what it changed in the book's words.

- :func:`harm`: ``amount`` damage to a character as the rule system records harm
  (:meth:`ledger.rules.system.RuleSystem.harm_event`), with the skills a wound names.
- :func:`event_class`, :func:`parse_field`, :func:`build_event`: an event of the rule system
  from the text of its fields, parsed by each field's declared type
  (:func:`ledger.rules.fields.parse_value`); :func:`record_event` does all three.
- :func:`write`: append one event and describe what it changed
  (:meth:`ledger.rules.wording.Wording.describe_changes`), as ``campaign damage`` prints it.
- :func:`kinds_of`: which of a system's recordable events add or end a condition and mark
  experience (the GM page's taps), found by their names.

Every refusal of what was entered is a :class:`ledger.rules.fields.FieldError` naming the
field (the command line shows it as a usage error, exit 2, in its own words,
:attr:`FieldError.command` when it differs; the page next to the form); the rules' refusals
stay :class:`ledger.errors.RuleError`. Nothing is written when either is raised.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.errors import RuleError
from ledger.rules.fields import (
    FieldError,
    fields_of,
    is_list,
    item_type,
    option_name,
    parse_value,
    recordable,
    roll_events,
)

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign
    from ledger.events import Event, Recorded

__all__ = [
    "FieldError",
    "Written",
    "build_event",
    "event_class",
    "harm",
    "kinds_of",
    "parse_field",
    "record_event",
    "write",
]


class AmountError(FieldError):
    """An amount of damage below 1 (nothing to record).

    :ivar command: the command line's words for it (``damage isa 0 changes nothing: ...``).
    """

    def __init__(self, character: str, amount: int) -> None:
        super().__init__(
            f"{amount} damage changes nothing: give an amount of 1 or more (to heal, record "
            "one of the system's events)",
            "amount",
        )
        self.command = (
            f"damage {character} {amount} changes nothing: give an AMOUNT of 1 or more "
            "(to heal, see `campaign record list`)"
        )


def harm(campaign: Campaign, character: str, amount: int, affects: Iterable[str] = ()) -> Event:
    """The event recording ``amount`` damage to ``character`` (id or name), as
    ``campaign damage CHARACTER AMOUNT [--affects SKILL ...]`` records it.

    :param amount: damage, 1 or more, in the system's own units.
    :param affects: skills a wound this damage inflicts affects (systems whose wounds name
        skills, such as wyrd-engine's ``affected_skills``).
    :raises AmountError: ``amount`` below 1.
    :raises RuleError: the rule system records harm otherwise (``has_harm`` false).
    :raises NotFound: no such character (with suggestions).
    :raises FieldError: ``affects`` given for a system whose wounds name no skills, or an
        empty skill name.
    """
    if amount < 1:
        raise AmountError(character, amount)
    system = campaign.system
    if not system.has_harm:
        raise RuleError(f"{system.name} records harm differently: see `campaign record list`")
    cid = campaign.find_character(character)
    event = system.harm_event(campaign.state_of(cid), cid, amount)
    affects = tuple(affects)
    if affects:
        if "affected_skills" not in type(event).__struct_fields__:
            raise FieldError(
                f"--affects: {system.id} wounds name no skills; leave it out", "affects"
            )
        skills = [a.strip() for a in affects]
        if not all(skills):
            raise FieldError("--affects needs a skill name, e.g. --affects Athletics", "affects")
        event = msgspec.structs.replace(event, affected_skills=skills)  # type: ignore[call-arg]
    return event


def event_class(system: Any, key: str) -> type:
    """The recordable event type ``key`` names (``favour-changed`` or ``favour_changed`` for
    ``d20-world.favour_changed``; :func:`ledger.rules.fields.recordable`).

    :raises FieldError: ``key`` names a roll (written by ``campaign roll``, which draws or
        checks its dice), or no event of the system (with the closest name).
    """
    from ledger.events import event_tag

    types = recordable(system)
    short = key.lower().replace("_", "-")
    rolls = roll_events(system)
    if short in rolls:
        raise FieldError(
            f"{event_tag(rolls[short])} is a roll, written by `campaign roll` (an "
            "end-of-session roll by `campaign advance`), which draws or checks its dice: "
            "`campaign record list` lists what `record` writes"
        )
    if short not in types:
        import difflib

        hint = difflib.get_close_matches(short, list(types), n=1)
        raise FieldError(
            f"{system.id} has no event {key!r}"
            + (f"; did you mean {hint[0]!r}?" if hint else "; see `campaign record list`")
        )
    return types[short]


def parse_field(campaign: Campaign, cls: type, name: str, text: str) -> Any:
    """One value of field ``name`` of event type ``cls`` from its text, parsed by the
    field's declared type (a list field: one item); a ``character`` field is a character's
    id or name, looked up.

    :raises FieldError: no such field, or a value the field does not take.
    :raises NotFound: a ``character`` that does not exist (with suggestions).
    """
    declared = {field: t for field, t, _ in fields_of(cls)}
    if name not in declared:
        raise FieldError(
            f"{short_name(cls)} has no field {option_name(name)} (fields: "
            + ", ".join(option_name(f) for f in declared)
            + ")",
            name,
        )
    value = parse_value(name, item_type(declared[name]), text)
    if name == "character":
        value = campaign.find_character(value)
    return value


def build_event(cls: type, values: Mapping[str, Any]) -> Event:
    """An event of type ``cls`` from parsed field values (``msgspec.convert``: defaults
    filled, constraints checked).

    :raises FieldError: a required field missing or a value out of its range, in people's
        words (``condition-added: give --condition``).
    """
    try:
        return msgspec.convert(dict(values), cls)  # type: ignore[no-any-return]
    except msgspec.ValidationError as e:
        raise FieldError(f"{short_name(cls)}: {_field_problem(e)}") from None


def record_event(campaign: Campaign, key: str, texts: Mapping[str, str | list[str]]) -> Event:
    """An event of the campaign's rule system from the text of its fields, as ``campaign
    record KEY --field TEXT ...`` builds it: :func:`event_class`, every field through
    :func:`parse_field` (a list field takes a list of texts, or one text of comma-separated
    items), then :func:`build_event`. Empty texts are left out (the field's default).

    :raises FieldError: an unknown event or field, a value a field does not take, a
        required field missing.
    :raises NotFound: an unknown character.
    """
    cls = event_class(campaign.system, key)
    declared = {name: t for name, t, _ in fields_of(cls)}
    values: dict[str, Any] = {}
    for name, given in texts.items():
        items = [given] if isinstance(given, str) else list(given)
        if name in declared and is_list(declared[name]) and isinstance(given, str):
            items = given.split(",")
        items = [t.strip() for t in items if t.strip()]
        if not items:
            continue
        parsed = [parse_field(campaign, cls, name, t) for t in items]
        values[name] = parsed if name in declared and is_list(declared[name]) else parsed[-1]
    return build_event(cls, values)


def short_name(cls: type) -> str:
    """``d20-world.condition_added`` → ``condition-added``."""
    tag = cls.__struct_config__.tag  # type: ignore[attr-defined]
    return str(tag).split(".", 1)[-1].replace("_", "-")


def _field_problem(e: msgspec.ValidationError) -> str:
    """msgspec's message in people's words: ``Object missing required field `bond```
    → ``give --bond``."""
    text = str(e)
    missing = "Object missing required field `"
    if text.startswith(missing):
        return f"give {'--' + text[len(missing) :].split('`')[0].replace('_', '-')}"
    if " - at `$." in text:
        problem, where = text.rsplit(" - at `$.", 1)
        return f"--{where.rstrip('`').split('[')[0].replace('_', '-')}: {problem}"
    return text


@dataclass(frozen=True)
class Written:
    """One event appended by :func:`write`.

    :ivar rec: the recorded event. :ivar character: the character it is about (``None``:
    none). :ivar before, after: that character's state before and after (``None`` without a
    character). :ivar sentences: what changed on the character, in the book's words.
    """

    rec: Recorded
    character: str | None
    before: Any
    after: Any
    sentences: list[str]


def write(
    campaign: Campaign,
    event: Event,
    *,
    actor: str,
    at: str,
    visibility: str | None = None,
    as_gm: bool = True,
) -> Written:
    """Append ``event`` (:meth:`Campaign.append`: the rules check it; nothing written if they
    refuse) and say what it changed on its character in the view asked for.

    :param visibility: ``"gm"`` to record it GM-only, ``None`` for the event type's own.
    :param as_gm: the view the changes are told in (a player's view never names a GM-only
        fact).
    :raises RuleError: the rules refuse it.
    """
    cid = getattr(event, "character", None)
    cid = cid if isinstance(cid, str) and cid in campaign.characters() else None
    before = campaign.state_of(cid, as_gm=as_gm) if cid else None
    rec = campaign.append([event], actor=actor, at=at, visibility=visibility)[0]  # type: ignore[arg-type]
    after = campaign.state_of(cid, as_gm=as_gm) if cid else None
    sentences = (
        campaign.system.describe_changes(before, after, as_gm=as_gm) if cid is not None else []
    )
    return Written(rec, cid, before, after, sentences)


_ADD = re.compile(r"(^|-)condition-(added|taken|gained)$")
_END = re.compile(r"(^|-)condition-(ended|removed|cleared)$")
_XP = re.compile(r"experience")


def kinds_of(system: Any) -> dict[str, list[str]]:
    """Which recordable events of ``system`` do what the GM does most at the table, by
    their names: ``{"condition_add": [...], "condition_end": [...], "experience": [...],
    "stress": [...]}`` (short names such as ``condition-added``, ``hidden-condition-added``,
    ``experience-marked``; ``stress``: an event naming stress, or taking harm from a named
    ``track`` such as decision-dice's Stress and Vitality, ruling DD10); a kind the system
    has no event for has an empty list."""
    types = recordable(system)
    names = sorted(types)
    tracked = {n for n in names if any(f == "track" for f, _, _ in fields_of(types[n]))}
    return {
        "condition_add": [n for n in names if _ADD.search(n)],
        "condition_end": [n for n in names if _END.search(n)],
        "experience": [n for n in names if _XP.search(n)],
        "stress": [n for n in names if "stress" in n or n in tracked],
    }
