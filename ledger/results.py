"""Re-deriving recorded results: a roll is what its rule system's ``resolve`` gives.

DESIGN.md "Dice and verifiable randomness": a roll's recorded result (total, band, margin,
kept dice, experience, ...) is what its rule system's :meth:`~ledger.RuleSystem.resolve`
gives for its recorded inputs and draws. The hash chain only proves bytes were not changed
after they were written; :func:`result_problem` proves the written result follows from the
rules. ``verify``, ``import`` and ``audit`` call it for every roll, engine and physical.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .dice import DiceError
from .events import Roll
from .rulesystem import RuleError, RuleSystem

_SHOWN = 3  # differing fields named in a problem sentence


def result_problem(system: RuleSystem, state: Any, event: Roll, *, name: str) -> str | None:
    """Does ``event``'s recorded result follow from its inputs and draws?

    :param state: the character's state just before the roll (see
        :meth:`RuleSystem.rederive`).
    :returns: ``None`` when :meth:`RuleSystem.rederive` gives ``event`` back field for field,
        else one sentence naming the first fields that differ, recorded beside re-derived
        (``"recorded total 15, outcome 'success'; the rules give total 7, outcome
        'failure'"``), or why the rules refuse the recorded inputs.
    """
    try:
        derived = system.rederive(state, event, name=name)
    except (RuleError, DiceError) as e:
        return f"the rules refuse its recorded inputs and dice: {e}"
    recorded_fields = msgspec.to_builtins(event)
    derived_fields = msgspec.to_builtins(derived)
    if recorded_fields == derived_fields:
        return None
    keys = [
        k
        for k in sorted(set(recorded_fields) | set(derived_fields))
        if recorded_fields.get(k) != derived_fields.get(k)
    ]
    shown = keys[:_SHOWN]
    more = f" (and {len(keys) - _SHOWN} more)" if len(keys) > _SHOWN else ""
    recorded = ", ".join(f"{k} {recorded_fields.get(k)!r}" for k in shown)
    given = ", ".join(f"{k} {derived_fields.get(k)!r}" for k in shown)
    return f"recorded {recorded}{more}; the rules give {given} for its inputs and dice"
