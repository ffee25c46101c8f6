"""Character state and campaign options of decision-dice (seed 002_735c6d6cd834a641.txt).

The seed is only the "Core Mechanics" page: stats, levels, Luck, Stress and Vitality are
referred to but never defined: campaign options here (rulings X1–X4,
docs/rulings/decision-dice.md). These structs are encoded into snapshots: keep their fields,
order and defaults.
"""

from __future__ import annotations

from typing import Literal

import msgspec

TRACKER_MIN = 0
TRACKER_MAX = 100
"""A percentage tracker stays within 0..100 ("D100 or Percentage", X12)."""


class Options(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Campaign options (``[options]`` in campaign.toml, ``--option`` at ``campaign new``).

    :ivar stats: the stat names every sheet must give (ruling X1); ``[]`` = any names.
    :ivar stat_min, stat_max: the allowed range of a stat (default 0..10, X1).
    :ivar derived: derived values such as Stress and Vitality: name → the stats halved and
        added, rounded down at the end ("The Rounding Rule", X4). Default none.
    :ivar round_negative: ``"floor"`` (toward −∞) or ``"trunc"`` (X10).
    :ivar impossible_target: the base target number at which a task is "Impossible" (20).
    :ivar refuse_impossible: refuse a roll whose base target is "Impossible" unless the GM
        allows the attempt (``--impossible``); ``False`` only flags it (X9).
    :ivar supply_step_max: the highest supply face that lowers the die (3, "Supply Rolls").
    :ivar max_contest_rounds: safety cap on tie rerolls in one contested roll (X7).
    :ivar level_min: the lowest level (1, X2).
    :ivar harm_track: the derived value ``campaign damage`` takes harm from (DD10).
    """

    stats: list[str] = []
    stat_min: int = 0
    stat_max: int = 10
    derived: dict[str, list[str]] = {}
    round_negative: Literal["floor", "trunc"] = "floor"
    impossible_target: int = 20
    refuse_impossible: bool = True
    supply_step_max: int = 3
    max_contest_rounds: int = 100
    level_min: int = 1
    harm_track: str = "Vitality"


class Item(msgspec.Struct, frozen=True, kw_only=True):
    """A piece of equipment; ``supply`` is its supply die (``"d12"``…``"d4"``, ``"empty"``)
    or ``None`` when it makes no supply rolls ("Supply Rolls")."""

    name: str
    supply: str | None = None
    note: str = ""


class Condition(msgspec.Struct, frozen=True, kw_only=True):
    """A lasting modifier/advantage/disadvantage ("Key Terms"; "Advantage and Disadvantage").

    ``rolls_left`` is ``0`` for one that lasts until removed.
    """

    name: str
    kind: Literal["bonus", "penalty", "modifier", "advantage", "disadvantage"]
    value: int = 0
    stat: str = ""
    rolls_left: int = 0


class Character(msgspec.Struct, frozen=True, kw_only=True):
    """One character's state: stats, level, equipment, trackers and conditions (docs/rulings/decision-dice.md)."""

    character: str
    name: str
    stats: dict[str, int]
    level: int | None = None
    equipment: list[Item] = []
    trackers: dict[str, int] = {}
    conditions: list[Condition] = []
    spent: dict[str, int] = {}
