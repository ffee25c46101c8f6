"""Pure Terran Engine mechanics: dice pools, outcomes, Ego, effects, challenges, harm.

Every function here is pure (no state, no clock) and cites the rule it implements in the
seed ``003_2aeb47bc6ca82a40.txt`` (Terran Engine SRD v0.4.5) and the digest
``rules/terran-engine.md``. Rulings are named by the digest's ids (R1 ... R23) or by this
plugin's own ids (T1 ... , see docs/rulings/terran-engine.md).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from ledger import DiceError, DiceSource, PhysicalDice, RuleError

from ..state import ARCHETYPES as ARCHETYPES  # the character's vocabulary, named in state.py
from ..state import ATTRIBUTE_MAX as ATTRIBUTE_MAX
from ..state import ATTRIBUTES as ATTRIBUTES
from ..state import DEFAULT_SKILLS as DEFAULT_SKILLS
from ..state import canonical as canonical

SEED = "003_2aeb47bc6ca82a40.txt"

LIGHT_MIN, LIGHT_MAX = 0, 4
"""Light Dice bounds: "You must always have between 0 and 4 Light Dice" (SEED, "2.1")."""

Outcome = Literal["fail", "mixed", "success"]
Wound = Literal["none", "critical", "mortal", "dead"]

LEVELS: tuple[str, ...] = ("Trivial", "Dangerous", "Serious", "Formidable", "Extreme")
"""Challenge levels 0..4 (SEED, rules.html "2.2 Challenges"); level n >= 5 is Fantastical."""


# --- creation -----------------------------------------------------------------------------


def attribute_from_faces(faces: list[int]) -> int:
    """Attribute value from the two creation dice: highest 1-3 → 0, 4-5 → 1, 6 → 2.

    :param faces: exactly two d6 faces (SEED, "1.2 Attributes": "roll 2d ... take the
        highest").
    :raises DiceError: not two faces, or a face outside 1..6.
    """
    if len(faces) != 2 or any(not 1 <= f <= 6 for f in faces):
        raise DiceError(f"an Attribute is rolled with two d6 (faces 1-6), not {faces}")
    return band_value(max(faces))


def band_value(highest: int) -> int:
    """0, 1 or 2 for a highest die of 1-3, 4-5 or 6 (SEED, "1.2 Attributes" table)."""
    return 0 if highest <= 3 else 1 if highest <= 5 else 2


def successor_advancements(advancements: int) -> int:
    """Advancements of the character created after Retire: half, rounded up.

    ``advancements`` counts every Advancement the retiring character has, including Retire
    (SEED, "1.4 Advancements", Retire).
    """
    return math.ceil(advancements / 2)


# --- risky actions ------------------------------------------------------------------------


def light_dice(parts: dict[str, int]) -> int:
    """The Light Dice pool: the sum of ``parts`` (Attribute, Skill, ±1d ...) clamped to 0..4.

    (SEED, rules.html "2.1 Risky Actions", "Dice Pool": "You must always have between 0 and
    4 Light Dice"; the clamp comes after every modifier.)
    """
    return max(LIGHT_MIN, min(LIGHT_MAX, sum(parts.values())))


def wound_penalty(wound: str) -> int:
    """Light Dice lost to wounds: Critically Wounded 1, Mortally Wounded 2 (replacing, R17).

    (SEED, "1.3.1 HP": "−1d" / "−2d every time you are building your Light Dice Pool".)
    """
    return {"critical": 1, "mortal": 2}.get(wound, 0)


def outcome_of(highest: int) -> Outcome:
    """Band of the highest die: 1-3 ``fail``, 4-5 ``mixed``, 6 ``success``; 0 (no dice) fails.

    (SEED, "2.1", "Outcome"; zero dice → fail is ruling R3.)
    """
    if highest <= 3:
        return "fail"
    return "mixed" if highest <= 5 else "success"


def ego_cost(
    dark: list[int], ego: int, per_die: int = 1, mode: str = "simultaneous"
) -> int:
    """Ego a roll's Dark Dice cost, before clamping to the Ego the character has.

    Each Dark die "that rolls equal or lower than your current Ego" costs ``per_die`` (1; 2 in
    a Montage) (SEED, "2.1" and "2.2.2 Montage"). ``mode="simultaneous"`` compares every die
    with the Ego before the roll (ruling R7); ``"sequential"`` lowers Ego die by die.
    """
    if mode == "simultaneous":
        return per_die * sum(1 for face in dark if face <= ego)
    current, cost = ego, 0
    for face in dark:
        if face <= current:
            cost += per_die
            current = max(0, current - per_die)
    return cost


# --- effects ------------------------------------------------------------------------------

_CODE = re.compile(
    r"^\s*(?:(?P<half>d\s*/\s*2)|(?P<n>\d+)\s*d)\s*(?:\+\s*(?P<plus>\d+))?\s*$", re.I
)


@dataclass(frozen=True)
class EffectCode:
    """Effect dice: ``half`` (d/2), else ``n`` dice keep highest exploding, then ``+ plus``.

    (SEED, "2.2.1 Effects" equipment table: d/2, 1d, 1d+1 two-handed, 2d; challenge
    levels d/2 ... nd.)
    """

    n: int
    half: bool = False
    plus: int = 0

    def __str__(self) -> str:
        base = "d/2" if self.half else f"{self.n}d"
        return f"{base}+{self.plus}" if self.plus else base

    def more(self, extra: int) -> EffectCode:
        """``extra`` dice more (Sneak attack, Sniper: "+1d to ... damage"); d/2 +1d is 1d."""
        if extra <= 0:
            return self
        if self.half:
            return EffectCode(n=extra, plus=self.plus)
        return EffectCode(n=self.n + extra, plus=self.plus)


def parse_effect(code: str) -> EffectCode:
    """Parse ``"d/2"``, ``"1d"``, ``"2d"``, ``"1d+1"``, ``"6d"`` into an :class:`EffectCode`.

    :raises RuleError: anything else (the sentence shows the accepted forms).
    """
    m = _CODE.match(code)
    if not m or (m["n"] is not None and int(m["n"]) < 1):
        raise RuleError(f"effect dice {code!r} not understood; write d/2, 1d, 2d, 1d+1 or Nd")
    if m["half"]:
        return EffectCode(n=1, half=True, plus=int(m["plus"] or 0))
    return EffectCode(n=int(m["n"]), plus=int(m["plus"] or 0))


@dataclass(frozen=True)
class EffectResult:
    """One Effect roll: the dice rolled, the explosion dice, and the value."""

    faces: list[int]
    explosions: list[int]
    value: int


def roll_effect(dice: DiceSource, code: EffectCode, d_half: str = "ceil") -> EffectResult:
    """Roll Effect dice: keep the highest; a 6 explodes (roll again, add, while 6).

    Draw order: the ``n`` dice, then explosion dice one at a time (SEED, "2.2.1 Effects":
    "only the highest result is relevant. This highest die is exploding"). ``d/2`` is
    ``ceil(1d6/2)`` without explosion (ruling R6; ``d_half="floor_min1"`` gives
    ``max(1, 1d6 // 2)``, ``"explode_then_halve"`` explodes first, then halves up).
    """
    faces = dice.roll(code.n, 6)
    highest = max(faces)
    explosions: list[int] = []
    explodes = not code.half or d_half == "explode_then_halve"
    total = highest
    if explodes and highest == 6:
        while True:
            r = dice.d(6)
            explosions.append(r)
            total += r
            if r != 6:
                break
    if code.half:
        total = max(1, total // 2) if d_half == "floor_min1" else math.ceil(total / 2)
    return EffectResult(faces=faces, explosions=explosions, value=total + code.plus)


def effect_value(
    faces: list[int], explosions: list[int], code: EffectCode, d_half: str = "ceil"
) -> int:
    """The value :func:`roll_effect` gives for these faces (used to check entered dice)."""
    src = PhysicalDice([str(f) for f in faces + explosions])
    result = roll_effect(src, code, d_half)
    src.finish()
    return result.value


# --- challenges ---------------------------------------------------------------------------


def level_index(level: str | int) -> int:
    """Level index: Trivial 0, Dangerous 1, Serious 2, Formidable 3, Extreme 4, n for nd.

    Accepts a level name or ``"fantastical:N"``/an integer n >= 5 (SEED, "2.2 Challenges").

    :raises RuleError: an unknown name or a negative index.
    """
    if isinstance(level, int) or str(level).strip().isdigit():
        value = int(level)
    else:
        text = str(level).strip()
        if text.casefold().startswith("fantastical"):
            _, _, n = text.partition(":")
            if not n.strip().isdigit() or int(n) < 5:
                raise RuleError("a Fantastical challenge needs its n (5 or more): fantastical:6")
            return int(n)
        value = LEVELS.index(canonical(text, LEVELS + ("Fantastical",), "challenge level"))
    if value < 0:
        raise RuleError(f"challenge level {value} is below Trivial (0)")
    return value


def level_name(index: int) -> str:
    """``"Trivial"`` ... ``"Extreme"``, or ``"Fantastical (n)"`` for n >= 5."""
    return LEVELS[index] if index < len(LEVELS) else f"Fantastical ({index})"


def ganged_level(level: int, count: int) -> int:
    """Level after a gang-up: +1 for each two additional challenges after the first.

    ``L + floor((count − 1) / 2)`` (SEED, "2.2 Challenges").

    :raises RuleError: ``count`` below 1.
    """
    if count < 1:
        raise RuleError(f"a gang-up needs at least one challenge, not {count}")
    return level + (count - 1) // 2


def disposition_of(level: int) -> int:
    """Disposition: Trivial 5, else 10 × level (SEED, "2.2 Challenges" table)."""
    return 5 if level == 0 else 10 * level


def challenge_effect(level: int) -> EffectCode:
    """Challenge Effect dice: Trivial d/2, else ``level`` d (SEED, "2.2 Challenges")."""
    return EffectCode(n=1, half=True) if level == 0 else EffectCode(n=level)


def complication_of(effect: int, over_17: int = 3) -> int:
    """Dice a Challenge Effect of ``effect`` takes from the next related Risky Action.

    Bands ≤3 → 0, 4-6 → 1, 7-12 → 2, ≥13 → 3 (SEED, "2.2.1 Effects", "Effect Roll" table;
    closed bands ruling R5); ``over_17=4`` gives the simulation code's −4d above 17 (R4).
    """
    if effect <= 3:
        return 0
    if effect <= 6:
        return 1
    if effect <= 12:
        return 2
    return over_17 if effect > 17 else 3


def fork_level(effect: int) -> int:
    """Level of the new Challenge a forking Effect opens: ≤3 Trivial, 4-6 Dangerous,
    7-12 Serious, ≥13 Formidable (SEED, "2.2.1 Effects" table, ruling R5)."""
    return min(complication_of(effect), 3)


# --- harm ---------------------------------------------------------------------------------


ARMOUR = {"none": 0, "light": 1, "heavy": 2}
"""Armour modifiers (SEED, "2.2.1 Effects", armour table: Light −1, Heavy −2)."""


def damage_after(
    effect: int, armour: str, shield: bool, protected: int = 0, sacrificed: bool = False
) -> int:
    """Damage a physical Effect does: ``max(0, effect − armour − shield − protected)``.

    A sacrificed shield avoids the Effect completely (SEED, "2.2.1 Effects": Shield −1, "Can
    be sacrificed to completely avoid an Effect"); body armour and shield stack (R19);
    ``protected`` is the sum of Protected's Dark Dice (SEED, "1.4", Protected).
    """
    if sacrificed:
        return 0
    return max(0, effect - ARMOUR[armour] - (1 if shield else 0) - protected)


@dataclass(frozen=True)
class HarmResult:
    """HP and wound after damage; ``attribute_loss`` is 1 when a Mortal Wound takes a point."""

    hp: int
    wound: Wound
    attribute_loss: int


def take_damage(hp: int, wound: Wound, damage: int) -> HarmResult:
    """The HP procedure (SEED, "1.3.1 HP"; docs/rulings/terran-engine.md).

    No wound: HP drops (overflow discarded, R18); at 0 the character is Critically Wounded.
    Critical + any damage: Mortally Wounded and 1 permanent Attribute point lost. Mortal +
    any damage: dead. ``damage <= 0`` changes nothing.
    """
    if damage <= 0 or wound == "dead":
        return HarmResult(hp=hp, wound=wound, attribute_loss=0)
    if wound == "none":
        left = max(0, hp - damage)
        return HarmResult(hp=left, wound="critical" if left == 0 else "none", attribute_loss=0)
    if wound == "critical":
        return HarmResult(hp=0, wound="mortal", attribute_loss=1)
    return HarmResult(hp=0, wound="dead", attribute_loss=0)


# --- advancement --------------------------------------------------------------------------


def advancement_threshold(ego_max_value: int, hp_max_value: int) -> int:
    """Sum the Advancement roll must reach: Ego_max + HP_max (SEED, "1.4", Roll Advancement)."""
    return ego_max_value + hp_max_value


def skill_threshold(rating: int) -> int:
    """Sum a Skill Development roll must reach: 3 × current rating (SEED, "1.4")."""
    return 3 * rating
