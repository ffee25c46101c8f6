"""The phone's roll form, worked out: its fields in the book's words, the character's
skills most used first, the exact odds before rolling, and a refusal placed next to the
field that caused it.

Nothing here writes: :mod:`ledger.web.roll_form` records the roll through the same code as
``campaign roll`` (:func:`ledger.rules.params.pick_params`, the rules' ``resolve``, the
campaign's validation); this module only reads the form and words what the rules say.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: Form fields every roll form has besides the system's roll params (``blind`` only the GM's).
BASE_FIELDS = frozenset({"csrf", "nonce", "skill", "skill_other", "dice", "auto"})

class Forged(ValueError):
    """A posted field this form does not show (a forged or stale form): one sentence."""


def option_hint(system: Any, text: str) -> str:
    """An option's help as the form shows it: the system's prefix (``"d20-world: "``) left
    out, capitalised; ``""`` if command-line text would remain."""
    prefix, sep, rest = text.partition(": ")
    if sep and prefix.casefold().replace(" ", "-") in system.id:
        text = rest
    text = text[:1].upper() + text[1:]
    return "" if "--" in text or "`" in text else text


def fields(system: Any, values: dict[str, str], fresh: bool) -> list[dict[str, Any]]:
    """The form's fields, one per roll option as the system declares it: the common ones
    first (in declaration order), then the rest (folded away on the page).

    :param values: what the form held when it was sent (a refused roll comes back as sent).
    :param fresh: a new form: start from each option's declared ``default``.
    :returns: dicts with ``name``, ``label``, ``hint``, ``kind`` (``flag``/``choice``/
        ``number``/``text``), ``min``, ``max``, ``multiple``, ``choices``, ``suggestions``,
        ``common``, ``value`` (``"1"`` for a ticked flag).
    """
    params = system.roll_params
    common = [p.name for p in params if p.common] or [p.name for p in params[:3]]
    out = []
    for p in params:
        if p.is_flag:
            kind = "flag"
        elif p.choices and not p.multiple:
            kind = "choice"
        else:
            kind = "number" if p.type is int and not p.multiple else "text"
        if fresh:
            value = "1" if p.default is True else ("" if p.default in (None, False) else str(p.default))
        else:
            value = values.get(p.name, "")
        hint = option_hint(system, p.help)
        if kind == "number" and p.range_text() and hint:
            hint = f"{hint.rstrip('.')}{p.range_text()}."
        if p.multiple and hint:
            hint += " Several: separate them with commas."
        out.append(
            {
                "name": p.name,
                "label": p.title,
                "hint": hint,
                "kind": kind,
                "min": p.min,
                "max": p.max,
                "multiple": p.multiple,
                "choices": list(p.choices),
                "suggestions": list(p.suggestions or p.choices),
                "common": p.name in common,
                "value": value,
            }
        )
    out.sort(key=lambda f: not f["common"])
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


def skills_by_use(campaign: Campaign, cid: str, skills: list[str], *, as_gm: bool) -> list[str]:
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


def field_of(system: Any, error: Any) -> str:
    """The form field a refusal belongs next to: the roll option it is about (its
    ``param``, :class:`~ledger.errors.RuleError`), ``dice`` for dice that cannot be
    (:class:`~ledger.dice.engine.DiceError`), ``skill``; ``""``: above the form."""
    from ledger.dice.engine import DiceError

    if isinstance(error, DiceError):
        return "dice"
    param = getattr(error, "param", None) or ""
    return param if param in {p.name for p in system.roll_params} | {"dice", "skill"} else ""


def settled(campaign: Campaign, cid: str, skill: str | None, picked: dict[str, Any], *, as_gm: bool) -> Any:
    """The rules' sentence when the roll the form holds is one they settle without dice
    (:meth:`RuleSystem.automatic`: d20-world's check with only one of time, tools and skill),
    in the viewer's view (a :class:`~ledger.errors.RuleError` when it names its option);
    ``None`` otherwise, or when the rules refuse it (the refusal comes from the roll
    itself)."""
    from ledger.dice.engine import CountingDice, DiceError
    from ledger.errors import RuleError
    from ledger.rules.roll_inputs import RollRequest

    system = campaign.system
    try:
        state = campaign.state_of(cid, as_gm=as_gm, save_snapshots=False)
        request = RollRequest(cid, campaign.characters()[cid], skill, picked, None)
        event = system.resolve(state, request, CountingDice([]))
    except (RuleError, DiceError):
        return None
    return system.automatic(event) or None


def odds(campaign: Campaign, cid: str, skill: str | None, picked: dict[str, Any], *, as_gm: bool) -> dict[str, Any]:
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
    from ledger.rules.roll_inputs import RollRequest

    system = campaign.system
    empty: dict[str, Any] = {"lines": [], "note": "", "field": ""}
    if not skill:
        label = system.skill_label.lower()
        article = "an" if label[:1] in "aeiou" else "a"
        return {**empty, "note": f"Tap {article} {label} to see your chances."}
    try:
        state = campaign.state_of(cid, as_gm=as_gm, save_snapshots=False)
        request = RollRequest(cid, campaign.characters()[cid], skill, picked, None)
        event = system.resolve(state, request, CountingDice([]))
    except (RuleError, DiceError) as e:
        return {**empty, "note": str(e), "field": field_of(system, e)}
    automatic = system.automatic(event)
    if automatic:
        return {**empty, "note": f"{automatic}.", "field": field_of(system, automatic)}
    lines = system.roll_odds(event) or []
    return {
        **empty,
        "lines": [
            {"text": text, "percent": percent_text(chance), "chance": f"{chance.numerator}/{chance.denominator}"}
            for text, chance in lines
        ],
    }
