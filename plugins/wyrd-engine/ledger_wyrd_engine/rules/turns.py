"""Encounters in The Wyrd Engine's words: initiative is 4dF + Notice, and a Boost held
when a turn began lapses with it (000_60e07241544698f0.txt, "Initiative: Who Acts First?",
"Boosts: Optional Rule for Increasing Success")."""

from __future__ import annotations

from ledger import Event

from .. import events as ev
from ..state import Character


class Turns:
    """The encounter hooks of :class:`~ledger.rules.turns` that The Wyrd Engine's text rules
    (mixed into :class:`~ledger_wyrd_engine.system.WyrdEngine`)."""

    def initiative_roll(self, state: Character) -> tuple[str | None, dict[str, object]]:
        """4dF + Notice with no DR, ``roll CHARACTER --initiative`` (000_60e07241544698f0.txt,
        "Initiative: Who Acts First?": "roll 4dF + Notice (or another relevant skill). The
        highest roll acts first, with ties resolved narratively"). An ambush or the GM's
        reading of readiness is ``encounter start --gm-order``."""
        return "Notice", {"initiative": True}

    def initiative_of(self, event: object) -> int | None:
        """An initiative roll's total (``mode == "initiative"``); ``None`` for any other."""
        if isinstance(event, ev.CheckRolled) and event.mode == "initiative":
            return event.total
        return None

    def turn_ended(self, character: str, began: Character, now: Character) -> list[Event]:
        """A Boost held since before the turn began lapses with it, unused
        (000_60e07241544698f0.txt, "Boosts: Optional Rule for Increasing Success": "they gain
        a Boost that applies to their next relevant roll. Boosts typically last for a single
        action"): the turn's action was its one. A Boost gained during the turn (its action
        created the advantage) lasts to the next. The GM keeps one longer "if narratively
        justified" by recording it again (`record boost-gained`)."""
        held = [b.value for b in began.boosts]
        out: list[Event] = []
        for boost in now.boosts:
            if boost.value in held:
                held.remove(boost.value)
                out.append(ev.BoostUsed(character=character, value=boost.value, lapsed=True))
        return out
