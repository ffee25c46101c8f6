"""What a roll asks of a rule system: its parameters (:class:`RollParam`), the request
(:class:`RollRequest`) and the character on the ledger opposing it (:class:`Opponent`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RollParam:
    """One option of a rule system's rolls and odds, declared once: ``campaign roll``,
    ``campaign request``, ``campaign odds``, the phone's roll form, the GM's request form,
    the JSON API's schema, the table shell's completion and a log line's words all read it.

    :param name: option name, e.g. ``"dr"``: the CLI's ``--dr``, the form's field ``dr``, the
        API body's ``params.dr``, the key in :attr:`RollRequest.params` and in a roll's
        recorded inputs.
    :param help: one sentence in the book's words for ``--help`` and the form's hint. Name
        other options by their labels, never by a command-line flag.
    :param label: what the book calls it, as the form labels the field (``"Difficulty
        Rating"``); ``""``: the name, underscores as spaces, capitalised.
    :param is_flag: a switch (``advantage``): on or off.
    :param multiple: may be given several times (values arrive as a tuple; the form and the
        API take them separated by commas).
    :param type: ``str`` or ``int`` (values are converted before :meth:`RuleSystem.resolve`).
    :param min: the smallest ``int`` value accepted (``None``: no lower bound).
    :param max: the largest ``int`` value accepted (``None``: no upper bound). Give every
        ``int`` option a range (from the book where it has one): every front end shows it
        and refuses a value outside it before any work, so a huge number can never make
        ``odds`` or ``roll`` run for ever.
    :param choices: the closed set of values the option takes (``("harm", "complication",
        "fork", "none")``, or for an ``int`` option ``("-1", "0", "1")``): any other value
        is refused by every front end, and the phone shows a choice, not a text field.
        Matched without regard to case; the value reaches the rules as given.
    :param suggestions: named values offered besides any other (DR names for a rating
        that may also be a number): the form and the table shell offer them; not enforced.
    :param default: the value the roll form starts with (a switch: ``True``). Only the form's
        starting point: the player sees and can change it; nothing is assumed elsewhere.
    :param common: a table commonly sets it on a player's roll: the form shows it (in
        declaration order); every other option is folded into "More options".
    :param words: how a log line or a request's card names the option when it is given, in
        the book's words: ``"with time"`` for a switch, ``"against {}"`` for a value (``{}``
        the value as given; a named value of :attr:`suggestions` or :attr:`choices`
        capitalised: "against Good"). ``""``: the label.
    :param roll: the option is one of the roll's (``campaign roll``, the forms, the API).
    :param odds: the option is one of ``campaign odds SYSTEM`` too (the default: the odds take
        what the roll takes). An option of the odds only (a STAT to try every value of) says
        ``roll=False``; one of the roll only (an item's name) ``odds=False``.
    :param odds_help: the help ``campaign odds`` shows when it reads the option otherwise
        than the roll does (``""``: :attr:`help`).

    Options of the same name from several systems must agree on ``is_flag`` and
    ``multiple``; values are converted to each system's own ``type`` and range; help texts
    are joined.
    """

    name: str
    help: str
    is_flag: bool = False
    multiple: bool = False
    type: type = str
    min: int | None = None
    max: int | None = None
    suggestions: tuple[str, ...] = ()
    words: str = ""
    label: str = ""
    choices: tuple[str, ...] = ()
    default: Any = None
    common: bool = False
    roll: bool = True
    odds: bool = True
    odds_help: str = ""

    @property
    def flag(self) -> str:
        """The command line's name of the option: ``"help_from"`` → ``"--help-from"``."""
        return "--" + self.name.replace("_", "-")

    @property
    def title(self) -> str:
        """The option's label (:attr:`label`, else ``"help_from"`` → ``"Help from"``)."""
        return self.label or self.name.replace("_", " ").capitalize()

    def range_text(self) -> str:
        """The range for ``--help``: ``" (1 to 20)"``, ``" (>= 0)"``, or ``""``."""
        if self.min is not None and self.max is not None:
            return f" ({self.min} to {self.max})"
        if self.min is not None:
            return f" (>= {self.min})"
        if self.max is not None:
            return f" (<= {self.max})"
        return ""

    def out_of_range(self, value: int) -> bool:
        """Is ``value`` outside ``[min, max]``?"""
        return (self.min is not None and value < self.min) or (
            self.max is not None and value > self.max
        )

    def choice_of(self, value: Any) -> str | None:
        """The declared choice ``value`` is (matched without regard to case), or ``None``
        when it is none of :attr:`choices` (or the option has none)."""
        text = str(value).strip().casefold()
        return next((c for c in self.choices if c.casefold() == text), None)


@dataclass(frozen=True)
class Opponent:
    """A character on the ledger who opposes a roll (``campaign roll ... --vs-character``,
    docs/plugin-guide.md "Opponents on the ledger").

    :param character: the opponent's id (their stream).
    :param skill: the skill (stat, attribute, ...) they oppose with, as typed with
        ``--vs-skill``, or ``None`` for the rule system's default (often the roll's own skill).
    :param name: their display name (filled in by the core).
    :param state: their state just before the roll (filled in by the core: current when
        rolling, as of the roll when re-deriving it).
    """

    character: str
    skill: str | None = None
    name: str = ""
    state: Any = None


@dataclass(frozen=True)
class RollRequest:
    """What ``campaign roll`` asks of a rule system.

    :param character: the character id (stream).
    :param name: the character's display name.
    :param skill: the skill (or stat, attribute, ...) named on the command line, or ``None``.
    :param params: the :class:`RollParam` values given, by name (absent ones are missing).
    :param opponent: the character on the ledger opposing the roll, or ``None`` (a bare
        number such as ``--vs 2`` stays a param). Only systems with
        ``RuleSystem.contests = True`` receive one.
    """

    character: str
    name: str
    skill: str | None
    params: dict[str, Any] = field(default_factory=dict)
    opponent: Opponent | None = None
