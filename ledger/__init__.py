"""Campaign Ledger: an event-sourced campaign engine with rule-system plugins.

The public API for plugin authors is re-exported here.
"""

from .dice import DiceError, DiceSource, ReplayDice
from .events import Event, Recorded, Roll
from .hookspecs import hookimpl
from .rulesystem import RollParam, RollRequest, RuleError, RuleSystem, applies

__all__ = [
    "DiceError",
    "DiceSource",
    "ReplayDice",
    "Event",
    "Recorded",
    "Roll",
    "RollParam",
    "RollRequest",
    "RuleError",
    "RuleSystem",
    "applies",
    "hookimpl",
]
