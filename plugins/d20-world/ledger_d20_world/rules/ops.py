"""State operations shared by the appliers and ``resolve`` (seed 001_a3a02f9b7363775f.txt).

Look-ups by name are case-insensitive; every miss raises :class:`ledger.RuleError` with the
names that exist, so a typo is easy to fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import msgspec

from ledger import Opponent, RuleError

from ..state import Bond, Character, Item, Objective, Skill, Trait, Wound
from .mechanics import carried_capacity, inventory_problems, is_dead

T = TypeVar("T", Trait, Bond, Skill, Item, Objective)
E = TypeVar("E")


def find(entries: Sequence[T], name: str) -> int | None:
    """Index of the entry called ``name`` (case-insensitive), or ``None``."""
    for i, e in enumerate(entries):  # replay's common case: the name as stored
        if e.name == name:
            return i
    key = name.strip().casefold()
    for i, e in enumerate(entries):
        if e.name.casefold() == key:
            return i
    return None


def need(entries: Sequence[T], name: str, what: str, who: str, param: str | None = None) -> int:
    """Index of the entry called ``name``.

    :param param: the roll option ``name`` was given as (``"trait"``), if any.
    :raises RuleError: no such entry; the sentence lists the ones there are.
    """
    i = find(entries, name)
    if i is None:
        have = ", ".join(e.name for e in entries) or "none"
        raise RuleError(f"{who} has no {what} called {name!r} (they have: {have})", param=param)
    return i


def is_self(text: str, character: str, name: str) -> bool:
    """Does ``text`` name the character (their id, full name or first name,
    case-insensitive)? Used for help from oneself ("Checks": help is "an ally who also has
    time, tools, or skill"; ruling R36) and a bond with oneself ("Bonds": "relationships
    with factions and non-player characters"; ruling R41)."""
    key = text.strip().casefold()
    names = {character.casefold(), name.strip().casefold()}
    first = name.strip().split()[:1]
    if first:
        names.add(first[0].casefold())
    return key in names


def replace_at(entries: tuple[E, ...], i: int, new: E) -> tuple[E, ...]:
    """``entries`` with the ``i``-th replaced by ``new``."""
    return entries[:i] + (new,) + entries[i + 1:]


def wound_total(state: Character) -> int:
    """Sum of wound damage ("Wounds"): the check penalty and the shock/death number."""
    return sum(w.damage for w in state.wounds)


def condition_penalty(state: Character) -> int:
    """Sum of the check penalties of the conditions players know of ("Conditions", e.g. −1
    to all checks)."""
    return sum(c.check_penalty for c in state.conditions if not c.hidden)


def hidden_penalty(state: Character) -> int:
    """Sum of the hidden conditions' check penalties (ruling R33; 0 in a player's view)."""
    return sum(c.check_penalty for c in state.conditions if c.hidden)


def capacity(state: Character) -> int:
    """Carried capacity now ("Inventory" five, changed by "Conditions")."""
    return carried_capacity(state.conditions)


def with_items(state: Character, items: tuple[Item, ...], *, has_bag: bool | None = None,
               check_carried: bool = True) -> Character:
    """``state`` with ``items`` after checking the inventory rules ("Inventory").

    :raises RuleError: naming every inventory rule the new items break.
    """
    bag = state.has_bag if has_bag is None else has_bag
    problems = inventory_problems(items, has_bag=bag, capacity=capacity(state))
    if not check_carried:
        problems = [p for p in problems if "carried but only" not in p]
    if problems:
        raise RuleError(*problems)
    return msgspec.structs.replace(state, items=items, has_bag=bag)


def parse_armour(entry: str) -> tuple[str, int]:
    """``"ITEM:POINTS"`` → ``(item, points)``.

    :raises RuleError: no colon or points not a whole number ≥ 1.
    """
    item, sep, points = entry.rpartition(":")
    if not sep or not item.strip():
        raise RuleError(f"armour {entry!r} must be ITEM:POINTS, e.g. 'leather coat:2'")
    try:
        n = int(points)
    except ValueError:
        raise RuleError(f"armour {entry!r}: points must be a whole number, not {points!r}") \
            from None
    if n < 1:
        raise RuleError(f"armour {entry!r}: spend 1 or more durability points, not {n}")
    return item.strip(), n


def take_harm(state: Character, amount: int, armour: Sequence[str], desperate: Sequence[str],
              description: str) -> Character:
    """The harm pipeline after the attack ("Armor", "Wounds"; rulings R6, R9, R10, R14).

    Each ``armour`` entry spends that many durability points of an unbroken armour item
    (durability 0 → broken); each ``desperate`` item must be broken and is destroyed for −1.
    The reduction may not exceed ``amount``. What remains (≥ 1) is a new wound; the shock
    roll is then owed unless the character died (wound total above five).

    :raises RuleError: negative damage, unknown items, armour that cannot be spent, more
        reduction than damage, or a character already dead.
    """
    who = state.name
    if amount < 0:
        raise RuleError(f"damage must be 0 or more, not {amount}")
    if state.dead:
        raise RuleError(f"{who} is dead: no more harm can be recorded")
    items = state.items
    reduction = 0
    for entry in armour:
        name, points = parse_armour(entry)
        i = need(items, name, "item", who)
        it = items[i]
        if it.durability is None:
            raise RuleError(f"{it.name} is not armour (it has no durability)")
        if it.destroyed or it.broken:
            raise RuleError(
                f"{it.name} is broken: repair it, or use it in desperation"
            )
        if points > it.durability:
            raise RuleError(f"{it.name} has {it.durability} durability left, not {points}")
        left = it.durability - points
        items = replace_at(items, i, msgspec.structs.replace(it, durability=left,
                                                             broken=left == 0))
        reduction += points
    for name in desperate:
        i = need(items, name, "item", who)
        it = items[i]
        if it.destroyed:
            raise RuleError(f"{it.name} is already destroyed")
        if not it.broken:
            raise RuleError(
                f"{it.name} is not broken: only a broken item can be used in desperation "
                "(spend its durability as armour instead)"
            )
        items = replace_at(items, i, msgspec.structs.replace(it, destroyed=True))
        reduction += 1
    if reduction > amount:
        raise RuleError(
            f"armour would reduce {reduction} damage but only {amount} is incoming: spend less"
        )
    damage = amount - reduction
    if damage == 0:
        return msgspec.structs.replace(state, items=items)
    number = state.wounds_received + 1
    wounds = (*state.wounds, Wound(number=number, damage=damage, description=description))
    dead = is_dead(sum(w.damage for w in wounds))
    owed = 0 if dead else state.shocks_owed + 1  # one shock roll per wound (R23)
    return msgspec.structs.replace(  # one replace with every change
        state, items=items, wounds=wounds, wounds_received=number, dead=dead,
        pending_shock=owed > 0, shocks_owed=owed,
    )


def heal(state: Character, number: int, amount: int) -> Character:
    """Proper care reduces wound ``number`` by ``amount`` ≥ 1; removed at 0 ("Wounds").

    :raises RuleError: no such wound, or a non-positive amount.
    """
    if amount < 1:
        raise RuleError(f"healing reduces a wound by 1 or more, not {amount}")
    for i, w in enumerate(state.wounds):
        if w.number == number:
            left = max(0, w.damage - amount)
            rest = state.wounds[:i] + state.wounds[i + 1:]
            wounds = rest if left == 0 else (*state.wounds[:i],
                                            msgspec.structs.replace(w, damage=left),
                                            *state.wounds[i + 1:])
            return msgspec.structs.replace(state, wounds=wounds)
    have = ", ".join(str(w.number) for w in state.wounds) or "none"
    raise RuleError(f"{state.name} has no wound {number} (wounds: {have})")


def skill_for_check(state: Character, skill: str, *, practice: bool) -> Skill:
    """The skill a check uses ("Checks" step 1): a skill the character has, or, with
    ``practice``, an unknown one at proficiency 0 ("Learning Skills").

    :raises RuleError: an unknown skill without ``practice``.
    """
    i = find(state.skills, skill)
    if i is not None:
        return state.skills[i]
    if not practice:
        have = ", ".join(s.name for s in state.skills)
        raise RuleError(
            f"{state.name} has no skill {skill!r} (they have: {have}); "
            "to practise a skill they lack, roll with “Practise a skill you lack”",
            param="practice",
        )
    return Skill(name=skill.strip(), proficiency=0, known=False)


def dead_check(state: Character) -> None:
    """:raises RuleError: the character has perished ("Wounds")."""
    if state.dead:
        raise RuleError(f"{state.name} has perished (wound damage above five) and cannot act")


def weapon_attack(state: Character, opponent: Opponent, weapon: str | None) -> dict[str, Any]:
    """The ``vs_character``, ``weapon`` and ``weapon_damage`` of an attack by ``state`` on a
    character on the ledger, the damage read from the weapon item on the attacker's sheet
    (001_a3a02f9b7363775f.txt, "Weapons": "Each weapon specifies the amount of damage it
    deals"; "Attacking").

    :raises RuleError: no ``--weapon``, an item the attacker lacks or that is destroyed, an
        item with no damage, or a target who is dead.
    """
    target = opponent.state
    if getattr(target, "dead", False):
        raise RuleError(f"{opponent.name or opponent.character} has perished: no attack can harm them")
    if not weapon:
        raise RuleError(
            "an attack on a character names the weapon item it uses "
            "(\"Attacks have a method by which they inflict harm\")", param="weapon")
    i = need(state.items, weapon, "item", state.name)
    item = state.items[i]
    if item.destroyed:
        raise RuleError(f"{item.name} was destroyed: it deals no damage")
    if item.damage is None:
        raise RuleError(
            f"{item.name} is not a weapon (no damage on {state.name}'s sheet): give it one "
            "(item-added with its damage), or record attack-resolved with the weapon's damage", param="weapon")
    return {"vs_character": opponent.character, "weapon": item.name, "weapon_damage": item.damage}
