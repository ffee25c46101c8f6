"""How a rule system's roll looks on a phone: the :class:`RollForm` part of
:class:`ledger.rules.system.RuleSystem`.

The web view's roll form (``/roll/CHARACTER``) is built from :attr:`RuleSystem.roll_params
<ledger.rules.system.RuleSystem.roll_params>`: each option's label, default, choices and
whether a table commonly needs it are fields of its one declaration
(:class:`~ledger.rules.roll_inputs.RollParam`). This mixin adds what is not about one option:
what the book calls the thing rolled (:attr:`RollForm.skill_label`), how the dice are
entered (:attr:`RollForm.dice_faces`) and the exact odds of a roll before it is made
(:meth:`RollForm.roll_odds`, from the system's own ``odds``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, ClassVar

#: A Fudge die's faces as the form's buttons give them: plus, blank, minus.
FUDGE_FACES = ("+", "0", "-")


class RollForm:
    """What the roll form needs to know of a rule system (a mixin of ``RuleSystem``).

    :cvar skill_label: what the book calls the thing rolled ("Skill", "STAT").
    :cvar dice_faces: the faces offered as buttons, in order (``("1", ..., "6")``, or
        :data:`FUDGE_FACES`); ``()``: dice are typed on the phone's numeric keypad (a d20).
    :cvar dice_words: how the book names the dice of a roll, e.g. ``"the d20"``.
    """

    skill_label: ClassVar[str] = "Skill"
    dice_faces: ClassVar[tuple[str, ...]] = ()
    dice_words: ClassVar[str] = "the dice"

    def roll_label(self, name: str) -> str:
        """The label of the roll option ``name`` (its :attr:`RollParam.label
        <ledger.rules.roll_inputs.RollParam.label>`, else the name in words: ``"help_from"`` →
        ``"Help from"``)."""
        param = next((p for p in getattr(self, "roll_options", ()) if p.name == name), None)
        return param.title if param is not None else name.replace("_", " ").capitalize()

    def roll_words(self, params: dict[str, Any]) -> str:
        """A roll's options as a log line and a request's card name them, in the book's
        words: ``{"time": True, "tools": True, "help_from": "bram"}`` → ``"with time, tools
        and help from bram"``, ``{"dr": "good"}`` → ``"against Good"``; ``""`` for none.

        Each given option is worded by its :attr:`RollParam.words
        <ledger.rules.roll_inputs.RollParam.words>` (``{}`` the value; a named value of its
        ``suggestions`` or ``choices`` capitalised), else by its label (:meth:`roll_label`): a switch as the
        label, a value as ``"label value"``. Options set to false, ``None`` or nothing are
        left out; options this system does not declare are named by their words alone.
        Phrases that start with "with" are run together ("with time and tools").
        """
        declared = {p.name: p for p in getattr(self, "roll_options", ())}
        phrases: list[str] = []
        for name, value in params.items():
            if value is None or value is False or value in ("", [], ()):
                continue
            param = declared.get(name)
            values = list(value) if isinstance(value, list | tuple) else [value]
            named = ", ".join(_named_value(param, v) for v in values)
            words = param.words if param is not None else ""
            if words:
                phrases.append(words.replace("{}", named) if "{}" in words else words)
                continue
            label = self.roll_label(name)
            label = label[:1].lower() + label[1:] if label[1:2].islower() else label
            phrases.append(label if value is True else f"{label} {named}")
        return _run_together(phrases)

    def roll_odds(self, event: Any) -> list[tuple[str, Fraction]] | None:
        """The exact odds of a roll before any die is rolled: one ``(sentence, chance)`` per
        outcome the player cares about, e.g. ``[("you need 15+ for good", Fraction(3, 10)),
        ...]``, read from the system's own :meth:`odds` (the numbers ``campaign odds``
        prints), never recomputed here.

        :param event: the roll as the rules would make it with placeholder dice (every die
            its lowest face, as :meth:`advance_odds` is given a planned roll): read its
            inputs (skill rating, penalties, mode, difficulty), never its dice or outcome.
        :returns: ``None`` when the system gives no odds for this roll (the default), or for
            a result the rules give without rolling.
        """
        return None


def _named_value(param: Any, value: Any) -> str:
    """One option value in words: a named value of the param's ``suggestions`` as the book
    capitalises a name ("Good"), a number signed when the param may be negative."""
    if value is True:
        return "yes"
    text = str(value)
    for name in (*getattr(param, "suggestions", ()), *getattr(param, "choices", ())):
        if text.casefold() == name.casefold():
            return name[:1].upper() + name[1:]
    if isinstance(value, int) and getattr(param, "min", None) is not None and param.min < 0:
        return f"{value:+d}"
    return text


def _run_together(phrases: list[str]) -> str:
    """``["with time", "with tools", "against Good"]`` → ``"with time and tools, against
    Good"``: the "with" phrases (wherever they are) joined as one list, first."""
    withs = [p.removeprefix("with ") for p in phrases if p.startswith("with ")]
    rest = [p for p in phrases if not p.startswith("with ")]
    joined = []
    if withs:
        head = ", ".join(withs[:-1])
        joined.append("with " + (f"{head} and {withs[-1]}" if head else withs[-1]))
    return ", ".join(joined + rest)


def percent_text(chance: Fraction) -> str:
    """A chance for people: ``Fraction(3, 10)`` → ``"30%"``, ``Fraction(50, 81)`` →
    ``"61.7%"`` (one decimal unless whole; ``"<0.1%"`` for a chance that is not 0)."""
    value = chance * 100
    if value == int(value):
        return f"{int(value)}%"
    if 0 < value < Fraction(1, 10):
        return "<0.1%"
    return f"{float(value):.1f}%"


def fraction_of(text: Any) -> Fraction:
    """An ``odds`` value (``"3/10"``, a Fraction, an int) as a :class:`~fractions.Fraction`."""
    return Fraction(str(text)) if not isinstance(text, Fraction) else text
