"""The phone's roll form, worked out (#27): its fields in the book's words, the character's
skills most used first, the exact odds before rolling, and a refusal placed next to the
field that caused it.

Nothing here writes: :mod:`ledger.web.roll_form` records the roll through the same code as
``campaign roll`` (:func:`ledger.rules.params.pick_params`, the rules' ``resolve``, the
campaign's validation); this module only reads the form and words what the rules say.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

#: Form fields every roll form has besides the system's roll params (``blind`` only the GM's).
BASE_FIELDS = frozenset({"csrf", "nonce", "skill", "skill_other", "dice", "auto"})

#: The core's own options as a refusal may name them, in the form's words.
CORE_WORDS = {
    "dice": "the dice",
    "auto": "“Record it without rolling”",
    "vs-character": "a character on the ledger",
    "vs-skill": "the opponent's skill",
    "answer": "the request",
}

_OPTION = re.compile(r"--([a-z][a-z0-9-]*)")


class Forged(ValueError):
    """A posted field this form does not show (a forged or stale form): one sentence."""


def _hint(system: Any, text: str) -> str:
    """A param's help as the form shows it: the system's prefix (``"d20-world: "``) left
    out, options named by their labels; ``""`` if CLI text would remain."""
    prefix, sep, rest = text.partition(": ")
    if sep and prefix.casefold().replace(" ", "-") in system.id:
        text = rest
    text = plain(system, text)
    text = text[:1].upper() + text[1:]
    return "" if "--" in text or "`" in text else text


def plain(system: Any, message: str) -> str:
    """A refusal of the rules in the form's words: each ``--option`` it names becomes that
    field's label in quotes (``--help-from`` → “Help from an ally”)."""
    names = {p.name for p in system.roll_params}

    def word(match: re.Match[str]) -> str:
        option = match.group(1)
        name = option.replace("-", "_")
        if name in names:
            return f"“{system.roll_label(name)}”"
        return CORE_WORDS.get(option, f"“{option.replace('-', ' ')}”")

    return _OPTION.sub(word, message)


def fields(system: Any, values: dict[str, str], fresh: bool) -> list[dict[str, Any]]:
    """The form's fields, common ones first (``common`` true, in the system's order),
    then the rest (folded away on the page).

    :param values: what the form held when it was sent (a refused roll comes back as sent).
    :param fresh: a new form: start from :attr:`RuleSystem.roll_defaults`.
    :returns: dicts with ``name``, ``label``, ``hint``, ``kind`` (``flag``/``number``/
        ``text``), ``min``, ``max``, ``multiple``, ``suggestions``, ``common``, ``value``
        (``"1"`` for a ticked flag).
    """
    common = list(system.common_roll_params) or [p.name for p in system.roll_params[:3]]
    out = []
    for p in system.roll_params:
        kind = "flag" if p.is_flag else ("number" if p.type is int and not p.multiple else "text")
        if fresh:
            default = system.roll_defaults.get(p.name)
            value = "1" if default is True else ("" if default in (None, False) else str(default))
        else:
            value = values.get(p.name, "")
        hint = _hint(system, p.help)
        if kind == "number" and p.range_text() and hint:
            hint = f"{hint.rstrip('.')}{p.range_text()}."
        if p.multiple and hint:
            hint += " Several: separate them with commas."
        out.append(
            {
                "name": p.name,
                "label": system.roll_label(p.name),
                "hint": hint,
                "kind": kind,
                "min": p.min,
                "max": p.max,
                "multiple": p.multiple,
                "suggestions": list(p.suggestions),
                "common": p.name in common,
                "value": value,
            }
        )
    rank = {name: i for i, name in enumerate(common)}
    out.sort(key=lambda f: (not f["common"], rank.get(f["name"], 0)))
    return out


def given(system: Any, form: dict[str, str], *, as_gm: bool) -> dict[str, Any]:
    """The form's values as click would give them to ``pick_params`` (flags ``True``,
    repeatable values split on commas into a tuple, empty fields absent).

    :raises Forged: a field the form does not show (``blind`` from a player's device, a
        made-up option): nothing is guessed from a form that is not ours.
    """
    known = BASE_FIELDS | {p.name for p in system.roll_params} | ({"blind"} if as_gm else set())
    strange = sorted(k for k in form if k not in known)
    if strange:
        raise Forged(
            f"This form has a field the roll form does not show ({strange[0][:40]!r}): "
            "reload the page and roll from it (nothing was written)."
        )
    from ledger.rules.params import from_text

    return from_text(system, form)


def skill_of(form: dict[str, str]) -> str | None:
    """The skill the form names: typed in "Another skill" if given, else the button tapped."""
    return (form.get("skill_other", "").strip() or form.get("skill", "").strip()) or None


def skills_by_use(campaign: Any, cid: str, skills: list[str], *, as_gm: bool) -> list[str]:
    """``skills`` with the ones ``cid`` rolled most often first (counted over their past
    rolls in the viewer's view: a blind roll's skill is not counted for a player), then
    the rest in the system's order."""
    from ledger.events import Roll

    counts: Counter[str] = Counter()
    types = [tag for tag, cls in campaign.codec.types.items() if issubclass(cls, Roll)]
    for rec in campaign.records(as_gm=as_gm, streams=[cid], types=types):
        skill = getattr(rec.data, "skill", None)
        if isinstance(skill, str) and getattr(rec.data, "character", cid) == cid:
            counts[skill.casefold()] += 1
    order = {s: i for i, s in enumerate(skills)}
    return sorted(skills, key=lambda s: (-counts[s.casefold()], order[s]))


def field_of(system: Any, message: str, *, dice_error: bool = False) -> str:
    """The field a refusal belongs next to: the option it names (``--trait`` → ``trait``),
    the one the system says (:meth:`RuleSystem.refusal_field`), ``dice`` for faces the
    dice cannot show, ``skill`` for a skill the character lacks; ``""``: above the form."""
    names = {p.name for p in system.roll_params}
    own = system.refusal_field(message)
    if own in names:
        return str(own)
    for option in _OPTION.findall(message):
        name = option.replace("-", "_")
        if name in names:
            return name
        if name == "dice":
            return "dice"
    if dice_error or re.search(r"\bdie \d+ is\b|\bfaces?\b", message):
        return "dice"
    for p in system.roll_params:  # "no trait called 'Nope'": the trait
        if re.search(rf"\b{re.escape(p.name.replace('_', ' '))}\b", message, re.IGNORECASE):
            return str(p.name)
    if re.search(r"\bskill\b", message, re.IGNORECASE):
        return "skill"
    return ""


def settled(campaign: Any, cid: str, skill: str | None, picked: dict[str, Any], *, as_gm: bool) -> str | None:
    """The rules' sentence when the roll the form holds is one they settle without dice
    (:meth:`RuleSystem.automatic`: d20-world's check with only one of time, tools and skill),
    in the viewer's view; ``None`` otherwise, or when the rules refuse it (the refusal
    comes from the roll itself)."""
    from ledger.dice.engine import CountingDice, DiceError
    from ledger.errors import RuleError
    from ledger.rules.requests import RollRequest

    system = campaign.system
    try:
        state = campaign.state_of(cid, as_gm=as_gm, save_snapshots=False)
        request = RollRequest(cid, campaign.characters()[cid], skill, picked, None)
        event = system.resolve(state, request, CountingDice([]))
    except (RuleError, DiceError):
        return None
    found = system.automatic(event)
    return plain(system, found) if found else None


def odds(campaign: Any, cid: str, skill: str | None, picked: dict[str, Any], *, as_gm: bool) -> dict[str, Any]:
    """The exact odds of a roll before it is made, in the viewer's view of ``cid``.

    The rules resolve it with placeholder dice (every die its lowest face,
    :class:`ledger.dice.engine.CountingDice`), and the system reads the inputs of that
    planned roll into its own ``odds`` (:meth:`RuleSystem.roll_odds`).

    :returns: ``{"lines": [{"text", "percent", "chance"}], "note": str, "field": str}``:
        ``note`` is why there are no odds (the rules' refusal, or an automatic result) and
        ``field`` the field it belongs next to.
    """
    from ledger.dice.engine import CountingDice, DiceError
    from ledger.errors import RuleError
    from ledger.rules.form import percent_text
    from ledger.rules.requests import RollRequest

    system = campaign.system
    empty: dict[str, Any] = {"lines": [], "note": "", "field": ""}
    if not skill:
        return {**empty, "note": f"Tap a {system.skill_label.lower()} to see your chances."}
    try:
        state = campaign.state_of(cid, as_gm=as_gm, save_snapshots=False)
        request = RollRequest(cid, campaign.characters()[cid], skill, picked, None)
        event = system.resolve(state, request, CountingDice([]))
    except (RuleError, DiceError) as e:
        text = plain(system, str(e))
        return {**empty, "note": text, "field": field_of(system, str(e))}
    automatic = system.automatic(event)
    if automatic:
        return {**empty, "note": plain(system, automatic) + ".", "field": field_of(system, automatic)}
    lines = system.roll_odds(event) or []
    return {
        **empty,
        "lines": [
            {"text": text, "percent": percent_text(chance), "chance": f"{chance.numerator}/{chance.denominator}"}
            for text, chance in lines
        ],
    }
