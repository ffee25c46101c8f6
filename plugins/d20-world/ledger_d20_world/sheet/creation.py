"""Character creation for d20-world ("Character Creation", seed 001_a3a02f9b7363775f.txt).

A sheet (TOML, without the core keys ``id``/``name``/``player``)::

    bag = true                                   # optional, default true
    [[traits]]  name = "Wiry"          kind = "body"         # body / personality / free
    [[bonds]]   name = "the Guild"     kind = "faction"      # faction / mentor|friend / rival|enemy
    [[skills]]  name = "Lockpicking"   proficiency = 3  via_bond = "the Guild"
    [[skills]]  name = "Mending"       proficiency = 1  spell = true
    [[items]]   name = "Guild seal"    for_bond = "the Guild"
    [[items]]   name = "Lockpicks"     for_skill = "Lockpicking"
    [[items]]   name = "Lamp oil"      consumable = true
    [[items]]   name = "Leather coat"  for_skill = "Brawl"  durability = 2
                protects_against = "blades"  bulky = false  location = "carried"

Bond favor is The World's secret and the sheet is public, so a sheet never carries it:
starting favor is +1 / +1 / −1 by bond kind (ruling R11) and The World adjusts it with the
GM-only ``favour-changed`` event.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..rules.mechanics import CARRIED_CAPACITY
from ..state import Item

TRAIT_KINDS = ("body", "personality", "free")
BOND_GROUPS = {"faction": ("faction",), "mentor or friend": ("mentor", "friend"),
               "rival or enemy": ("rival", "enemy")}
SKILL_ORIGINS = {3: "bond", 2: "hardship", 1: "passion"}
TRAIT_KEYS = {"name", "kind"}
BOND_KEYS = {"name", "kind"}
SKILL_KEYS = {"name", "proficiency", "via_bond", "spell"}
ITEM_KEYS = {"name", "location", "bulky", "consumable", "for_bond", "for_skill", "durability",
             "protects_against", "damage", "range", "harm"}


def tables(sheet: dict[str, Any], key: str, problems: list[str]) -> list[dict[str, Any]]:
    """The ``[[key]]`` tables of ``sheet`` (``[]`` with a problem when not a list of
    tables)."""
    value = sheet.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        problems.append(f"{key} must be a list of tables ([[{key}]] in TOML)")
        return []
    return value


def entry_names(entries: list[dict[str, Any]], what: str, problems: list[str]) -> list[str]:
    """Each entry's name, stripped; a problem for a missing name or names that differ
    only in case."""
    names = []
    for i, e in enumerate(entries, start=1):
        name = e.get("name")
        if not isinstance(name, str) or not name.strip():
            problems.append(f"{what} {i} needs a name")
            name = f"#{i}"
        names.append(name.strip())
    folded = [n.casefold() for n in names]
    dupes = sorted({n for n in names if folded.count(n.casefold()) > 1})
    if dupes:
        problems.append(f"{what} names must differ: {', '.join(dupes)} appears more than once")
    return names


def unknown_keys(entries: list[dict[str, Any]], allowed: set[str], what: str,
                 problems: list[str]) -> None:
    """A problem for every key outside ``allowed``; favor is The World's secret and
    never on a sheet (ruling R24)."""
    for i, e in enumerate(entries, start=1):
        extra = sorted(set(e) - allowed)
        if "favor" in extra or "favour" in extra:
            problems.append(
                f"{what} {i} sets favor, but favor is The World's secret and the sheet is "
                "public: record it with `campaign record favour-changed` (GM only)"
            )
            extra = [k for k in extra if k not in ("favor", "favour")]
        if extra:
            problems.append(
                f"{what} {i} has unknown keys {', '.join(extra)} "
                f"(allowed: {', '.join(sorted(allowed))})"
            )


def check_traits(traits: list[dict[str, Any]], problems: list[str]) -> None:
    """Three traits: one body, one personality, one free ("Character Creation")."""
    if len(traits) != 3:
        problems.append(f"choose exactly three traits, not {len(traits)}")
    kinds = [t.get("kind") for t in traits]
    for i, kind in enumerate(kinds, start=1):
        if kind not in TRAIT_KINDS:
            problems.append(f"trait {i} kind must be body, personality or free, not {kind!r}")
    for kind, label in (("body", "your body"), ("personality", "your personality"),
                        ("free", "something interesting about you")):
        if kinds.count(kind) != 1:
            problems.append(
                f"exactly one trait must be of kind {kind} (describing {label}), "
                f"not {kinds.count(kind)}"
            )


def check_bonds(bonds: list[dict[str, Any]], problems: list[str]) -> None:
    """Three bonds: one faction, one mentor or friend, one rival or enemy ("Character
    Creation")."""
    if len(bonds) != 3:
        problems.append(f"choose exactly three bonds, not {len(bonds)}")
    kinds = [b.get("kind") for b in bonds]
    allowed = [k for group in BOND_GROUPS.values() for k in group]
    for i, kind in enumerate(kinds, start=1):
        if kind not in allowed:
            problems.append(f"bond {i} kind must be one of {', '.join(allowed)}, not {kind!r}")
    for label, group in BOND_GROUPS.items():
        n = sum(k in group for k in kinds)
        if n != 1:
            problems.append(f"exactly one bond must be a {label}, not {n}")


def check_skills(skills: list[dict[str, Any]], bond_names: list[str],
                 problems: list[str]) -> None:
    """Three skills at +3 (learned through a bond: ``via_bond``), +2 and +1 ("Character
    Creation")."""
    if len(skills) != 3:
        problems.append(f"choose exactly three skills, not {len(skills)}")
    profs = []
    for i, s in enumerate(skills, start=1):
        p = s.get("proficiency")
        if not isinstance(p, int) or isinstance(p, bool) or p not in SKILL_ORIGINS:
            problems.append(f"skill {i} proficiency must be 3, 2 or 1, not {p!r}")
        profs.append(p)
        if "spell" in s and not isinstance(s["spell"], bool):
            problems.append(f"skill {i} spell must be true or false")
        via = s.get("via_bond")
        if via is not None:
            if p != 3:
                problems.append(f"skill {i}: only the +3 skill is learned through a bond")
            elif not isinstance(via, str) or via.casefold() not in (
                b.casefold() for b in bond_names
            ):
                problems.append(
                    f"skill {i} via_bond {via!r} must name one of your bonds "
                    f"({', '.join(bond_names)})"
                )
    for p, how in ((3, "learned through one of your bonds"),
                   (2, "learned out of necessity and hardship"),
                   (1, "learned in the pursuit of a passion")):
        if profs.count(p) != 1:
            problems.append(f"exactly one skill must be at +{p} ({how}), not {profs.count(p)}")
    for s in skills:
        if s.get("proficiency") == 3 and s.get("via_bond") is None:
            problems.append("the +3 skill needs via_bond naming the bond it was learned through")


def check_items(items: list[dict[str, Any]], bond_names: list[str], skill_names: list[str],
                problems: list[str]) -> None:
    """The starting items: one per bond, one per skill, one consumable ("Character
    Creation"); durability and damage whole numbers."""
    bonds = {b.casefold() for b in bond_names}
    skills = {s.casefold() for s in skill_names}
    for_bond: list[str] = []
    for_skill: list[str] = []
    consumables = 0
    for i, it in enumerate(items, start=1):
        links = [k for k in ("for_bond", "for_skill", "consumable") if it.get(k)]
        if len(links) != 1:
            problems.append(
                f"item {i} must be exactly one of: for_bond = BOND, for_skill = SKILL or "
                "consumable = true"
            )
        if it.get("for_bond"):
            if str(it["for_bond"]).casefold() not in bonds:
                problems.append(f"item {i} for_bond {it['for_bond']!r} is not one of your bonds")
            for_bond.append(str(it["for_bond"]).casefold())
        if it.get("for_skill"):
            if str(it["for_skill"]).casefold() not in skills:
                problems.append(
                    f"item {i} for_skill {it['for_skill']!r} is not one of your skills"
                )
            for_skill.append(str(it["for_skill"]).casefold())
        if it.get("consumable") is True:
            consumables += 1
        for key in ("durability", "damage"):
            v = it.get(key)
            if v is not None and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
                problems.append(f"item {i} {key} must be a whole number 0 or more")
        if it.get("location", "carried") not in ("carried", "bag"):
            problems.append(f"item {i} location must be carried or bag")
    if sorted(set(for_bond)) != sorted(for_bond) or len(for_bond) != 3:
        problems.append(
            f"one item for each of your three bonds is needed ({len(for_bond)} given"
            f"{', some bond twice' if len(set(for_bond)) != len(for_bond) else ''})"
        )
    if sorted(set(for_skill)) != sorted(for_skill) or len(for_skill) != 3:
        problems.append(
            f"one item for each of your three skills is needed ({len(for_skill)} given"
            f"{', some skill twice' if len(set(for_skill)) != len(for_skill) else ''})"
        )
    if consumables != 1:
        problems.append(f"exactly one consumable item is needed, not {consumables}")


def place_items(items: list[dict[str, Any]], *, has_bag: bool = True) -> list[Item]:
    """Starting items as :class:`Item`; those without a ``location`` fill the five carried
    places first, then the bag if there is one (T5: 7 starting items = 5 carried + 2 in the
    bag)."""
    explicit_carried = sum(1 for it in items if it.get("location") == "carried")
    free = CARRIED_CAPACITY - explicit_carried if has_bag else len(items)
    placed = []
    for it in items:
        location = it.get("location")
        if location is None:
            location = "carried" if free > 0 else "bag"
            if location == "carried":
                free -= 1
        durability = it.get("durability")
        placed.append(Item(
            name=str(it["name"]).strip(),
            location="bag" if location == "bag" else "carried",
            bulky=bool(it.get("bulky", False)),
            consumable=bool(it.get("consumable", False)),
            for_bond=it.get("for_bond"),
            for_skill=it.get("for_skill"),
            durability=durability,
            max_durability=durability,
            protects_against=str(it.get("protects_against", "")),
            broken=durability == 0,
            damage=it.get("damage"),
            range=str(it.get("range", "")),
            harm=str(it.get("harm", "")),
        ))
    return placed


def item_entry(item: Item) -> dict[str, Any]:
    """An item as a sheet entry: name, location and every key that differs from its default
    (so a normalised sheet validates again unchanged)."""
    data = msgspec.to_builtins(item)
    default = msgspec.to_builtins(Item(name=item.name))
    entry = {"name": item.name, "location": item.location}
    entry.update({k: v for k, v in data.items() if k in ITEM_KEYS and v != default[k]})
    return entry


STARTING_FAVOR = {"faction": 1, "mentor": 1, "friend": 1, "rival": -1, "enemy": -1}


def starting_favor(kind: str) -> int:
    """Starting favor of a bond by kind (ruling R11: faction +1, mentor/friend +1,
    rival/enemy −1). Not a campaign option, because options are public; The World changes
    it with the GM-only ``favour_changed`` event."""
    return STARTING_FAVOR[kind]
