"""What in-fiction time does in the Wyrd Engine (000_60e07241544698f0.txt, "Healing and
Recovery"; ``campaign time pass``)."""

from __future__ import annotations

from typing import Any

from ledger import Event, RuleSystem, TimePassed

from .. import events as ev
from ..state import Character, Options


class Clock(RuleSystem[Character, Options]):
    """Mixin of the system's :class:`Rules`: :meth:`time_passed`."""

    def time_passed(self, states: dict[str, Any], span: TimePassed) -> list[Event]:
        """Rest heals wounds on the book's schedule (000_60e07241544698f0.txt, "Healing and
        Recovery"): "Mild Wounds require a short rest (a few hours) or first aid.
        Moderate Wounds require days of rest or professional medical care. Severe Wounds
        require weeks of rest, surgery, or supernatural healing". A wound whose rest since
        it was taken reaches the campaign's ``rest_to_heal`` (default 3 hours, 3 days, 3
        weeks: the text gives no number; ruling W-T1) heals (``wound_healed``, method
        ``short_rest``, ``days_of_rest`` or ``weeks_of_rest``). Only rest counts (a named
        span of rest or ``--rest``); care is a method of its own, recorded by hand.

        Stress clears "at the end of a scene" and boons and boosts last a scene or an
        action: those are the scene's and the encounter's, not the clock's.
        """
        out: list[Event] = []
        if not span.rest:
            return out
        methods = {"mild": "short_rest", "moderate": "days_of_rest", "severe": "weeks_of_rest"}
        for cid, state in states.items():
            if not isinstance(state, Character) or state.dead:
                continue
            for severity in ("mild", "moderate", "severe"):
                wound = state.wounds.get(severity)
                if wound is not None and wound.rested + span.minutes >= self.options.heal_after(
                    severity
                ):
                    out.append(
                        ev.WoundHealed(character=cid, severity=severity, method=methods[severity])
                    )
        return out
