"""What in-fiction time does in d20-world (001_a3a02f9b7363775f.txt; ``campaign time pass``)."""

from __future__ import annotations

from typing import Any

from ledger import Event, RuleSystem, TimePassed

from ..events import (
    ConditionEnded,
    GroupObjectiveFailed,
    HiddenConditionEnded,
    ObjectiveFailed,
    Rested,
)
from ..state import Character, Options


class Clock(RuleSystem[Character, Options]):
    """Mixin of the system's :class:`Rules`: :meth:`time_passed`."""

    def time_passed(self, states: dict[str, Any], span: TimePassed) -> list[Event]:
        """What in-fiction time does in d20-world (001_a3a02f9b7363775f.txt):

        - a condition with a temporal deadline ends when the clock reaches it ("Each
          condition specifies ... how to end the condition. These can be temporal deadlines
          or specific treatments, such as ... 'sick for six hours: inventory capacity
          reduced by 1'", "Conditions"): ``condition-ended``, or ``hidden-condition-ended``
          for a hidden one, so its end stays GM-only (ruling R33);
        - an open objective whose deadline is a duration fails when it runs out ("time
          constraints, in which the objective is failed if it is not completed in time",
          "Objectives"): ``objective-failed`` (``group-objective-failed`` for a shared one);
        - a rest (``--rest``, or the named span "a rest") is one rest for every living
          character with jinx or a condition that ends at a rest ("After resting, a
          character recovers from half their jinx, rounded up", "Jinx"): ``rested``.
          The text says neither how long a rest is nor how often one counts (ruling R8):
          one span of rest is one rest, however long.

        Wounds heal "incrementally through proper care" ("Wounds"), on no schedule: time
        heals nothing (ruling T30-1).
        """
        out: list[Event] = []
        shared: dict[str, str] = {}
        for cid, st in states.items():
            if not isinstance(st, Character):
                continue
            end = st.clock + span.minutes
            for c in st.conditions:
                if c.ends_at is not None and c.ends_at <= end:
                    kind = HiddenConditionEnded if c.hidden else ConditionEnded
                    out.append(kind(character=cid, condition=c.name))
            for o in st.objectives:
                if o.status != "open" or o.due_at is None or o.due_at > end:
                    continue
                reason = f"time ran out: {o.deadline}"
                if o.group:
                    shared.setdefault(o.name, reason)
                else:
                    out.append(ObjectiveFailed(character=cid, objective=o.name, reason=reason))
            timed = {c.name for c in st.conditions if c.ends_at is not None and c.ends_at <= end}
            at_rest = any(c.ends_on == "rest" and c.name not in timed for c in st.conditions)
            if span.rest and not st.dead and (st.jinx or at_rest):
                out.append(Rested(character=cid))
        out += [GroupObjectiveFailed(objective=n, reason=r) for n, r in shared.items()]
        return out
