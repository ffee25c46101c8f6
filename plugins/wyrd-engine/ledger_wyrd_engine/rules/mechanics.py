"""Pure rule functions of the Wyrd Engine: the 4dF roll, totals, bands, damage and wounds.

Everything here is a plain function of integers and small structs: no dice sources, no
events. Sources (000_60e07241544698f0.txt): "Conflict resolution at a glance", "Fudge dice
(4dF)", "Passive Opposition", "Active Opposition", "Attacking and Defending", "Damage:
Stress and Wounds", "Healing and Recovery", "Death and the End of Combat"; docs/rulings/wyrd-engine.md and §4.
Re-exported by :mod:`ledger_wyrd_engine.rules`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ledger import RuleError

from ..state import SEVERITIES, WOUND_CAPACITY, WOUND_PENALTY, Character, Trait
from .ladder import band_for_margin

TRAIT_BONUS = 2
"""A trait, gear trait or boon gives +2 to a roll it clearly applies to ("How Traits Work")."""

FUDGE_SIGNS = {-1: "−", 0: "·", 1: "+"}

#: Healing methods per wound ("Healing and Recovery"). A method also heals lighter wounds.
HEALING_METHODS: dict[str, tuple[str, ...]] = {
    "mild": ("short_rest", "first_aid"),
    "moderate": ("days_of_rest", "medical_care"),
    "severe": ("weeks_of_rest", "surgery", "supernatural"),
}


def find_trait(state: Character, name: str) -> Trait | None:
    """The character trait or gear trait called ``name`` (case-insensitive), or ``None``
    ("Traits", "Gear as Traits": gear "functions like a Trait")."""
    key = name.strip().lower()
    for trait in (*state.traits, *state.gear):
        if trait.name.lower() == key:
            return trait
    return None


def find_boon(state: Character, name: str) -> int | None:
    """Index of the held boon called ``name`` (case-insensitive), or ``None`` ("Active
    Opposition")."""
    key = name.strip().lower()
    for i, boon in enumerate(state.boons):
        if boon.name.lower() == key:
            return i
    return None


def fudge_sum(faces: Sequence[int]) -> int:
    """The 4dF roll: the sum of four Fudge faces, each −1, 0 or +1; range −4…+4.

    Example: ``[+1, +1, −1, 0]`` → ``+1`` (000_60e07241544698f0.txt, "Fudge dice (4dF)").

    :raises RuleError: not exactly four faces, or a face outside −1…+1.
    """
    if len(faces) != 4:
        raise RuleError(f"a Wyrd Engine roll is four Fudge dice (4dF), not {len(faces)}")
    for face in faces:
        if face not in (-1, 0, 1):
            raise RuleError(f"a Fudge die shows −1, 0 or +1, not {face}")
    return sum(faces)


def d6_as_fudge(face: int) -> int:
    """A six-sided die read as a Fudge die: 1–2 → −1, 3–4 → 0, 5–6 → +1.

    (000_60e07241544698f0.txt, "Fudge dice (4dF)".)

    :raises RuleError: ``face`` is not 1…6.
    """
    if not 1 <= face <= 6:
        raise RuleError(f"a six-sided die shows 1 to 6, not {face}")
    return (face - 1) // 2 - 1


def faces_text(faces: Iterable[int]) -> str:
    """``[+ + − ·]``: faces as the book draws them."""
    return "[" + " ".join(FUDGE_SIGNS[f] for f in faces) + "]"


def check_total(
    roll: int,
    skill: int,
    trait_bonus: int = 0,
    boost: int = 0,
    teamwork: int = 0,
    wound_penalty: int = 0,
    situational: int = 0,
) -> int:
    """``roll + skill + trait_bonus + boost + teamwork − wound_penalty + situational``
    (docs/rulings/wyrd-engine.md).

    ``wound_penalty`` is given as a positive number of points to subtract; ``situational``
    is the GM's signed modifier for the situation: a manoeuvre's outcome ("Combat Maneuvers
    and Special Actions": "let the outcome affect bonuses and penalties for future dice
    rolls"), an improvised weapon ("Improvised Weapons may impose a penalty unless the
    character is skilled in their use"), an impaired character ("Skills": "unless a
    character is impaired, e.g., drugged ..."). (000_60e07241544698f0.txt, "Conflict
    resolution at a glance", "Boosts", "Teamwork", "Damage: Stress and Wounds".)
    """
    return roll + skill + trait_bonus + boost + teamwork - wound_penalty + situational


def passive_margin(total: int, dr: int, comparison: str = ">=") -> int:
    """Steps above the bare success against a DR: ``total − DR`` under ``>=``.

    Under the strict ``>`` the bare success is ``DR + 1``, so the margin is ``total − DR − 1``;
    margin 0 is then the tie band in both conventions (ruling C1,
    000_60e07241544698f0.txt, "Passive Opposition").
    """
    return total - dr if comparison == ">=" else total - dr - 1


def passive_band(
    total: int, dr: int, comparison: str = ">=", minor_cost_margins: Sequence[int] = ()
) -> tuple[int, str]:
    """``(margin, band id)`` of a roll against a Difficulty Rating (docs/rulings/wyrd-engine.md).

    Example (W3, "Analysing a Crime Scene"): total 4 vs Good (+2) → ``(2, "success")``.
    """
    margin = passive_margin(total, dr, comparison)
    return margin, band_for_margin(margin, tuple(minor_cost_margins))


def contest_band(total: int, opposing_total: int) -> tuple[int, str]:
    """``(difference, band id)`` of an active-opposition contest (non-combat), actor's side.

    Highest total wins; winning by 1–2 is a minor advantage (band ``success``), by 3 or
    more the GM may grant a boon (``success_with_style``); a tie has no winner (``tie``,
    ruling C15); losing is ``failure``. (000_60e07241544698f0.txt, "Active Opposition".)
    """
    diff = total - opposing_total
    if diff < 0:
        return diff, "failure"
    if diff == 0:
        return diff, "tie"
    return diff, "success" if diff <= 2 else "success_with_style"


def initiative_order(total: int, opposing_total: int) -> tuple[int, str]:
    """``(difference, outcome)`` of two initiative rolls, the roller's side: ``acts_first``
    when higher, ``acts_second`` when lower, ``tie`` when equal ("ties resolved
    narratively"). (000_60e07241544698f0.txt, "Initiative: Who Acts First?": "roll 4dF +
    Notice (or another relevant skill). The highest roll acts first".)
    """
    diff = total - opposing_total
    return diff, "acts_first" if diff > 0 else "acts_second" if diff < 0 else "tie"


def attack_result(attacker_total: int, defender_total: int) -> tuple[bool, int]:
    """``(hit, damage)`` of an attack: it lands iff the attacker's total *exceeds* the
    defender's (a tie misses); damage is the difference (ruling C5, ≥1 on a hit, else 0).

    Example (W11, "Example Attack"): Jonathan 2 vs thug 1 → ``(True, 1)``.
    (000_60e07241544698f0.txt, "Attacking and Defending".)
    """
    diff = attacker_total - defender_total
    return (diff > 0, max(diff, 0))


def damage_units(damage: int, ratio: int = 1, rounding: str = "ceil") -> int:
    """Stress/wound units from damage at a conversion ratio of 1, 2 or 3 to 1.

    ``ceil(damage / ratio)`` by default, so a landed hit marks at least one unit (ruling C5);
    ``rounding="floor"`` rounds down. (000_60e07241544698f0.txt, "Attacking and Defending".)

    :raises RuleError: negative damage, or a ratio outside 1…3.
    """
    if damage < 0:
        raise RuleError(f"damage must be 0 or more, not {damage}")
    if ratio not in (1, 2, 3):
        raise RuleError(f"the damage ratio is 1, 2 or 3 (to 1), not {ratio}")
    if rounding == "floor":
        return damage // ratio
    return -(-damage // ratio)


@dataclass(frozen=True)
class Absorption:
    """What one hit did (docs/rulings/wyrd-engine.md).

    :ivar units: units the hit was worth after the ratio.
    :ivar stress_marked: stress boxes it filled.
    :ivar stress: stress after the hit (0…stress_max).
    :ivar wounds_taken: ``(severity, absorbed)`` of each newly taken wound, in order.
    :ivar overflow: units left over once every box and wound was full.
    :ivar taken_out: every stress box filled and all three wounds taken.
    :ivar at_risk_of_death: this hit put the character at risk of death (ruling C8).
    """

    units: int
    stress_marked: int
    stress: int
    wounds_taken: tuple[tuple[str, int], ...] = field(default_factory=tuple)
    overflow: int = 0
    taken_out: bool = False
    at_risk_of_death: bool = False


def absorb(
    units: int,
    stress: int,
    stress_max: int,
    taken: Iterable[str],
    death_risk_trigger: str = "wound_damage",
) -> Absorption:
    """Soak ``units`` of damage: stress boxes first, then wounds (docs/rulings/wyrd-engine.md).

    Stress absorbs one unit a box until full ("Once all stress boxes are filled, additional
    damage results in Wounds"). Then, while units remain: the smallest free wound slot that
    can hold all of them, else the largest free slot, which takes what it can; a slot that
    takes any damage is taken whole ("Damage does not have to fill a wound to invoke it").
    Mild holds 1, Moderate 2, Severe 3. Units left when all are taken are ``overflow``.
    Taken out: all boxes filled and all three wounds taken. At risk of death ("Death and the
    End of Combat", ruling C8): a Severe wound was already taken and, by ``death_risk_trigger``,
    new damage spilled past stress (``wound_damage``), any new damage (``any_damage``), or the
    character is now taken out (``taken_out_only``).

    :param units: damage units after the ratio (0 or more).
    :param stress: boxes already filled, 0…``stress_max``.
    :param taken: severities of wounds already taken.
    :raises RuleError: negative units or stress outside 0…stress_max.
    """
    if units < 0:
        raise RuleError(f"damage must be 0 or more, not {units}")
    if not 0 <= stress <= stress_max:
        raise RuleError(f"stress {stress} is outside 0…{stress_max}")
    taken_set = set(taken)
    severe_before = "severe" in taken_set
    spill = units > stress_max - stress
    marked = min(units, stress_max - stress)
    remaining = units - marked
    new_wounds: list[tuple[str, int]] = []
    while remaining > 0:
        free = [s for s in SEVERITIES if s not in taken_set]
        if not free:
            break
        fitting = [s for s in free if WOUND_CAPACITY[s] >= remaining]
        slot = fitting[0] if fitting else free[-1]
        soaked = min(remaining, WOUND_CAPACITY[slot])
        taken_set.add(slot)
        new_wounds.append((slot, soaked))
        remaining -= soaked
    new_stress = stress + marked
    taken_out = new_stress == stress_max and all(s in taken_set for s in SEVERITIES)
    if death_risk_trigger == "any_damage":
        at_risk = severe_before and units > 0
    elif death_risk_trigger == "taken_out_only":
        at_risk = severe_before and taken_out and units > 0
    else:
        at_risk = severe_before and spill
    return Absorption(
        units=units,
        stress_marked=marked,
        stress=new_stress,
        wounds_taken=tuple(new_wounds),
        overflow=remaining,
        taken_out=taken_out,
        at_risk_of_death=at_risk,
    )


def wound_penalty(
    wounds: Mapping[str, Iterable[str]], skills: Iterable[str], physical: bool
) -> int:
    """Points subtracted from a roll by wounds (docs/rulings/wyrd-engine.md, ruling C13: penalties add).

    :param wounds: taken severity → the wound's affected skills.
    :param skills: the skill names the roll uses (the action and any substituted rating).
    :param physical: the roll is a physical action (Severe: −3 to all physical actions).
    :returns: the penalty as a positive number: Mild 1 and Moderate 2 when one of their
        affected skills is used, Severe 3 on a physical action or a skill named for it.
        (000_60e07241544698f0.txt, "Damage: Stress and Wounds", wound table.)
    """
    used = {s.lower() for s in skills}
    total = 0
    for severity, affected in wounds.items():
        named = any(s.lower() in used for s in affected)
        if named or (severity == "severe" and physical):
            total += WOUND_PENALTY[severity]
    return total


def check_healing(severity: str, method: str) -> None:
    """Refuse a healing method that cannot heal a wound of ``severity``.

    Mild: short rest (a few hours) or first aid; Moderate: days of rest or professional
    medical care; Severe: weeks of rest, surgery or supernatural healing. A method that heals
    a heavier wound also heals a lighter one. (000_60e07241544698f0.txt,
    "Healing and Recovery".)

    :raises RuleError: unknown severity or method, or a method too light for the wound.
    """
    if severity not in HEALING_METHODS:
        raise RuleError(f"wound severity is mild, moderate or severe, not {severity!r}")
    allowed: list[str] = []
    for level in SEVERITIES[SEVERITIES.index(severity) :]:  # type: ignore[arg-type]
        allowed.extend(HEALING_METHODS[level])
    if method not in allowed:
        known = [m for ms in HEALING_METHODS.values() for m in ms]
        if method not in known:
            raise RuleError(
                f"unknown healing method {method!r}: use one of {', '.join(known)}"
            )
        raise RuleError(
            f"a {severity} wound needs {' or '.join(HEALING_METHODS[severity])} "
            f"(or stronger care), not {method}"
        )
