"""What a rule system says about encounters: the :class:`Turns` part of
:class:`ledger.rules.system.RuleSystem`.

An encounter (``campaign encounter start``) keeps the turn order, the round and whose turn
it is. The order is the GM's unless the book makes initiative a roll
(:meth:`Turns.initiative_roll`: wyrd-engine's "roll 4dF + Notice"); actions are counted
where the book limits them (:attr:`Turns.actions_per_round`: d20-world's "Each round, each
character has three actions"). A system overrides only what its text rules: where the text
is silent the defaults stand (GM order, no count), and its docs/rulings say so.
"""

from __future__ import annotations

from typing import Any, ClassVar

from ledger.events import Event


class Turns:
    """Encounters as a rule system's text runs them; every default is "the text is silent".

    :cvar actions_per_round: the actions each character has in one round of an encounter,
        as the text states it (d20-world: 3); ``None`` (default): the text sets no count,
        and none is kept.
    :cvar initiative_rule: the text's own words on who acts first, quoted (``encounter
        start --help`` and ``encounter show`` say them); ``""``: the text is silent, so the
        order is the GM's.
    :cvar action_events: the event classes :meth:`actions_of` may count (d20-world: an
        item moved or removed), so the encounter checks ask it of those alone; ``None``
        (default): any class, and :meth:`actions_of` is asked of every event appended.
    """

    actions_per_round: ClassVar[int | None] = None
    initiative_rule: ClassVar[str] = ""
    action_events: ClassVar[tuple[type, ...] | None] = None

    def initiative_roll(self, state: Any) -> tuple[str | None, dict[str, Any]] | None:
        """The roll the text makes for a character's initiative, as ``campaign roll`` takes
        it: ``(skill, params)`` (wyrd-engine: ``("Notice", {"initiative": True})``).

        :param state: the character's state now (GM view).
        :returns: ``None`` (the default): the text makes no roll, and the GM sets the order
            (``encounter start`` takes the participants in the order listed, or the
            numbers the GM gives).

        ``campaign encounter start`` rolls it for each character on the ledger, engine dice
        or the physical faces given with ``--dice NAME=FACES``, each an ordinary roll in
        the log (verified, audited, corrected like any), then reads its initiative with
        :meth:`initiative_of`.
        """
        return None

    def initiative_of(self, event: Event) -> int | None:
        """The initiative a recorded roll gives (the total the order is sorted by, highest
        first), or ``None`` when ``event`` is not an initiative roll (the default).

        ``encounter start`` checks with it that a participant's recorded initiative is what
        their roll gives.
        """
        return None

    def actions_of(self, event: Event) -> int:
        """How many of :attr:`actions_per_round` ``event`` spends for its character
        (d20-world: an item retrieved with ``--actions 2``); ``encounter.action`` events are
        counted by the core. Default ``0``: the event costs no counted action."""
        return 0

    def turn_ended(self, character: str, began: Any, now: Any) -> list[Event]:
        """What ends with a character's turn in an encounter, as the text says (wyrd-engine:
        a Boost "typically last[s] for a single action").

        :param character: whose turn ends (``encounter next`` moves on, or ``encounter end``).
        :param began: their state as the turn began (GM view).
        :param now: their state now (GM view).
        :returns: the events the turn's end implies, appended right after the
            ``encounter.turn`` (or ``encounter.ended``) in one batch and part of it (undoing
            it undoes them); checked on append by asking again, so pure. Default ``[]``.
        """
        return []
