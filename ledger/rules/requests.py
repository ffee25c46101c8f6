"""What a roll asks of a rule system: its parameters (:class:`RollParam`), the request
(:class:`RollRequest`) and the character on the ledger opposing it (:class:`Opponent`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RollParam:
    """A ``campaign roll`` (or ``campaign odds``) option a rule system understands.

    :param name: option name without dashes, e.g. ``"dr"`` → ``--dr``.
    :param help: one sentence for ``--help``.
    :param is_flag: a boolean switch (``--advantage``).
    :param multiple: may be given several times (values arrive as a tuple).
    :param type: ``str`` or ``int`` (values are converted before :meth:`RuleSystem.resolve`).
    :param min: the smallest ``int`` value accepted (``None``: no lower bound).
    :param max: the largest ``int`` value accepted (``None``: no upper bound). Give every
        ``int`` param a range (from the book where it has one): the CLI shows it in
        ``--help`` and refuses a value outside it (exit 2) before any work, so a huge
        number can never make ``odds`` or ``roll`` run for ever.
    :param suggestions: named values the table shell (``campaign play``) offers when
        completing the option (DR names, difficulty rungs); not enforced here, the system
        still checks the value it is given.
    :param words: how a log line or a request's card names the option when it is given, in
        the book's words: ``"with time"`` for a switch, ``"against {}"`` for a value (``{}``
        the value as given; a named value of :attr:`suggestions` capitalised: "against
        Good"). ``""``: the form's label (:meth:`RollForm.roll_words
        <ledger.rules.form.RollForm.roll_words>`).

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

    def range_text(self) -> str:
        """The range for ``--help``: ``" (1-20)"``, ``" (>= 0)"``, or ``""``."""
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


@dataclass(frozen=True)
class Opponent:
    """A character on the ledger who opposes a roll (``campaign roll ... --vs-character``,
    issue #16; docs/plugin-guide.md "Opponents on the ledger").

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
