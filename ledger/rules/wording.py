"""How a rule system words things for people: the :class:`Wording` part of
:class:`ledger.rules.system.RuleSystem`.

A system's events as lines (:meth:`Wording.describe`, through the
:func:`ledger.rules.marks.describes` marks), what changed on a character
(:meth:`Wording.describe_changes`), a recap's rule notes and a roll's verdict.

An event type's docstring is its help (``campaign record TYPE --help``, the GM's page,
docs/events.md) as written: it names the book by its title (:attr:`Wording.book_title`),
never the seed file's name (:data:`SEED_NAME`, for developers: :attr:`RuleSystem.source`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ledger.rules.marks import marked
from ledger.templating import fill

if TYPE_CHECKING:
    from ledger.events import Event, Recorded, Roll


VERDICTS = {
    **dict.fromkeys(("success", "pass", "win", "good", "hit", "success_with_style"), "success"),
    **dict.fromkeys(("failure", "fail", "lose", "bad", "miss"), "failure"),
    **dict.fromkeys(("mixed", "messy", "tie", "draw", "success_at_cost", "partial"), "mixed"),
}
"""Outcome words :meth:`Wording.verdict` understands by default."""

#: A seed file's name: three digits, ``_``, 16 hex digits (``000_60e07241544698f0.txt``),
#: what :attr:`RuleSystem.source` holds; help and the docs name the book instead.
SEED_NAME = re.compile(r"\b\d{3}_[0-9a-f]{16}(?:\.txt)?\b")


def counted(n: int, one: str, many: str = "") -> str:
    """``n`` and the word for that many: ``counted(1, "roll") == "1 roll"``, ``counted(3,
    "roll") == "3 rolls"``, ``counted(0, "success", "successes") == "0 successes"``.

    :param many: the plural when it is not ``one`` + ``"s"``.
    """
    return f"{n} {one if n == 1 else many or one + 's'}"


class Wording:
    """The words of a rule system (mixed into :class:`ledger.rules.system.RuleSystem`, whose
    docstring describes :attr:`name` and :attr:`book`)."""

    name: ClassVar[str]
    book: ClassVar[str]
    #: the system's functions a ``line`` template may call beside the event's fields:
    #: ``{"notation": notation}`` lets ``line = "{{ character }}: {{ notation(skill, rank) }}"``
    #: word a skill in the book's notation without a :func:`describes` method
    line_names: ClassVar[Mapping[str, Callable[..., Any]]] = {}

    @property
    def book_title(self) -> str:
        """:attr:`book`, or :attr:`name` when the system gives no title."""
        return self.book or self.name

    def describers(self) -> dict[type[Event], Callable[[Event], str | None]]:
        """``{event class: bound describer}``, from the :func:`describes` marks."""
        table = self.__dict__.get("_describers")
        if table is None:
            table = self.__dict__["_describers"] = marked(self, "__ledger_describes__")
        return table

    def describe(self, event: Event) -> str | None:
        """One line a person reads at a glance for ``log`` and recaps: the :func:`describes`
        method of the event's class, else the class's ``line`` template filled in with the
        event's fields (and the system's :attr:`line_names`) by :func:`fill` (a class
        attribute, ``line = "{character} loses {item}"``, or jinja2 for parts said only when
        a field is set), else ``None`` (the core's words then)."""
        table = self.describers()
        for klass in type(event).__mro__:  # an event subclass is worded as its parent
            fn = table.get(klass)
            if fn is not None:
                return fn(event)
        template = getattr(type(event), "line", "")
        if isinstance(template, str) and template:
            fields = getattr(event, "__struct_fields__", ())
            return fill(template, {**self.line_names, **{n: getattr(event, n) for n in fields}})
        return None

    def describe_changes(self, before: Any, after: Any, *, as_gm: bool) -> list[str]:
        """What changed on one character, as sentences in the book's words.

        Used by the recap's Characters section and by every write that answers with what
        it changed (``damage``, ``scene end``, ``session end``, ``roll``, ``advance``).

        :param before: the character's state (a ``state_type`` instance, as
            :meth:`ledger.campaign.aggregate.Campaign.state_of` gives it) before, or ``None`` when the
            character did not exist yet.
        :param after: the character's state after.
        :param as_gm: ``False`` for a player's view: the states were folded without GM-only
            events, and no sentence may mention a GM-only fact (a secret favour, a hidden
            condition) even if the state carries it.
        :returns: sentences such as ``"Forage +5 xp (5/12)"``, ``"now shaken: −1 to checks
            until a night's sleep"``, ``"Stress cleared"``; never a field path, ``None`` or
            an empty value; ``[]`` when nothing a person would notice changed.

        The default words every changed field generically (:meth:`generic_changes`); a rule
        system overrides it and passes the fields it did not word to :meth:`generic_changes`
        (``skip=`` the ones it did) so nothing goes unsaid.
        """
        return self.generic_changes(before, after)

    def generic_changes(self, before: Any, after: Any, *, skip: Iterable[str] = ()) -> list[str]:
        """Plain sentences for every changed field of two states except ``skip`` (top-level
        field names): ``"Stress 0 → 2"``, ``"New condition 'shaken' (penalty 1)"``, ``"Skill
        'Forage': experience 0 → 5"``. Lists of entries are matched by their ``name``;
        booleans read "now …"/"no longer …"; ``None`` and empty values are never shown.
        See :func:`ledger.rules.changes.sentences`.
        """
        from ledger.rules.changes import sentences

        return sentences(before, after, skip=tuple(skip))

    def recap_lines(self, record: Recorded, *, as_gm: bool) -> list[str]:
        """Rule notes for one event of a session recap: what the event means at the table
        (``"the GM may offer success at a cost (Interpreting Failure)"``).

        :param record: the recorded event (``record.data`` is the payload).
        :param as_gm: ``True`` for the GM's recap; a player's must not reveal GM-only facts.
        :returns: short sentences, shown in the recap beside the event's line; ``[]`` (the
            default) for nothing to add.

        Called by :func:`ledger.history.recap.build_recap` for every event it shows, before the
        ``recap_lines`` hook (which is for add-ons' extras).
        """
        return []

    def verdict(self, event: Roll) -> str | None:
        """Whether a roll went the character's way: ``"success"``, ``"mixed"`` (success at a
        cost, a tie, a messy result), ``"failure"``, or ``None`` (neither, e.g. a damage roll).

        Recaps and ``campaign log`` mark the roll with it (✔, ◐, ✘). The default reads the
        event's ``outcome`` (or ``success``) field and knows common words (success, pass, win,
        good, hit; fail, failure, lose, bad, miss; mixed, messy, tie, draw); override it when
        the words differ or a roll is not a success or failure.
        """
        value = getattr(event, "outcome", getattr(event, "success", None))
        if isinstance(value, bool):
            return "success" if value else "failure"
        return VERDICTS.get(str(value).lower()) if value is not None else None
