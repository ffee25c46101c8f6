"""How a rule system's roll looks on a phone: the :class:`RollForm` part of
:class:`ledger.rules.system.RuleSystem` (#27).

The web view's roll form (``/roll/CHARACTER``) is built from :attr:`RuleSystem.roll_params
<ledger.rules.system.RuleSystem.roll_params>`; this mixin says, in the book's words, what
each one is called (:attr:`RollForm.roll_labels`), which ones a table commonly needs (shown;
the rest are folded away), what the form starts with (:attr:`RollForm.roll_defaults`), how
the dice are entered (:attr:`RollForm.dice_faces`) and the exact odds of a roll before it is
made (:meth:`RollForm.roll_odds`, from the system's own ``odds``). Every value stays
optional: a system that declares none gets a plain form with every option folded away.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, ClassVar

#: A Fudge die's faces as the form's buttons give them: plus, blank, minus.
FUDGE_FACES = ("+", "0", "-")


class RollForm:
    """What the roll form needs to know of a rule system (a mixin of ``RuleSystem``).

    :cvar skill_label: what the book calls the thing rolled ("Skill", "STAT").
    :cvar common_roll_params: names of :attr:`roll_params` a table commonly sets on a
        player's roll, shown on the form in this order; every other param is folded into a
        "More options" section. Default ``()``: the first three :attr:`roll_params` shown.
    :cvar roll_labels: ``{param name: label in the book's words}``; a param without one is
        labelled with its name, underscores as spaces, capitalised.
    :cvar roll_defaults: ``{param name: value}`` the form starts with (a flag: ``True``).
        Only the form's starting point: the player sees and can change it; nothing is
        assumed on the server.
    :cvar dice_faces: the faces offered as buttons, in order (``("1", ..., "6")``, or
        :data:`FUDGE_FACES`); ``()``: dice are typed on the phone's numeric keypad (a d20).
    :cvar dice_words: how the book names the dice of a roll, e.g. ``"the d20"``.
    """

    skill_label: ClassVar[str] = "Skill"
    common_roll_params: ClassVar[tuple[str, ...]] = ()
    roll_labels: ClassVar[dict[str, str]] = {}
    roll_defaults: ClassVar[dict[str, Any]] = {}
    dice_faces: ClassVar[tuple[str, ...]] = ()
    dice_words: ClassVar[str] = "the dice"

    def roll_label(self, name: str) -> str:
        """The form's label of the roll param ``name`` (:attr:`roll_labels`, else the name in
        words: ``"help_from"`` → ``"Help from"``)."""
        return self.roll_labels.get(name) or name.replace("_", " ").capitalize()

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

    def refusal_field(self, message: str) -> str | None:
        """The roll param a refusal of the rules is about (the form shows it next to that
        field), for a refusal that does not name its option (``--name``); ``None`` (the
        default): the form places it by the option it names, or above the form.

        :param message: the :class:`~ledger.errors.RuleError` or automatic-result sentence.
        """
        return None


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
