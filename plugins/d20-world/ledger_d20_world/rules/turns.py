"""Encounters in the World's words: what an action costs (001_a3a02f9b7363775f.txt,
"Time")."""

from __future__ import annotations

from typing import ClassVar

from ..events import ItemMoved, ItemRemoved


class Turns:
    """The encounter hooks of :class:`~ledger.rules.turns` that the World's text rules (mixed
    into :class:`~ledger_d20_world.system.D20World`); three actions a round is the system's
    ``actions_per_round``."""

    #: The only events :meth:`actions_of` counts.
    action_events: ClassVar[tuple[type, ...] | None] = (ItemMoved, ItemRemoved)

    def actions_of(self, event: object) -> int:
        """The actions an item retrieval or removal took (``--actions``, set by The World:
        "The number of actions any given task costs should be determined based on the
        amount of time those actions represent", 001_a3a02f9b7363775f.txt, "Time")."""
        if isinstance(event, ItemMoved | ItemRemoved):
            return event.actions or 0
        return 0
