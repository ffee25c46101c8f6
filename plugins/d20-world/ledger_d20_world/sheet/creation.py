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

from collections.abc import Iterable
from typing import Annotated, Any, Literal

import msgspec

from ledger import check_sheet

from ..rules.mechanics import BAG_CAPACITY, CARRIED_CAPACITY, inventory_problems
from ..state import Item

SKILL_ORIGINS: dict[int, Literal["bond", "hardship", "passion"]] = {
    3: "bond",
    2: "hardship",
    1: "passion",
}
ITEM_KEYS = {"name", "location", "bulky", "consumable", "for_bond", "for_skill", "durability",
             "protects_against", "damage", "range", "harm"}  # fmt: skip

Name = Annotated[str, msgspec.Meta(pattern=r"\S", description="a name (text, not blank)")]
Whole = Annotated[int, msgspec.Meta(ge=0)]


class TraitIn(msgspec.Struct, kw_only=True):
    """One ``[[traits]]`` table: body, personality or free ("Character Creation")."""

    name: Name
    kind: Literal["body", "personality", "free"]


class BondIn(msgspec.Struct, kw_only=True):
    """One ``[[bonds]]`` table ("Bonds"). ``favor`` is read only to be refused by name: it
    is The World's secret and the sheet is public (ruling R24)."""

    name: Name
    kind: Literal["faction", "mentor", "friend", "rival", "enemy"]
    favor: Any = None
    favour: Any = None


class SkillIn(msgspec.Struct, kw_only=True):
    """One ``[[skills]]`` table: +3 learned through a bond (``via_bond``), +2, +1."""

    name: Name
    proficiency: Literal[3, 2, 1]
    via_bond: str | None = None
    spell: bool = False


class ItemIn(msgspec.Struct, kw_only=True):
    """One ``[[items]]`` table: for a bond, for a skill or a consumable ("Character
    Creation"); armour's ``durability`` and ``protects_against`` ("Armor"), a weapon's
    ``damage``, ``range`` and ``harm`` ("Weapons"); no ``location``: placed by
    :func:`place_items`."""

    name: Name
    location: Literal["carried", "bag"] | None = None
    bulky: bool = False
    consumable: bool = False
    for_bond: str | None = None
    for_skill: str | None = None
    durability: Whole | None = None
    protects_against: str = ""
    damage: Whole | None = None
    range: str = ""
    harm: str = ""


class SheetIn(msgspec.Struct, kw_only=True):
    """A d20-world sheet as written (the module's docstring shows one)."""

    traits: list[TraitIn] = []  # missing: "choose exactly three" says what is needed
    bonds: list[BondIn] = []
    skills: list[SkillIn] = []
    items: list[ItemIn] = []
    bag: bool = True


def _once(what: str, kinds: list[Any], wanted: dict[str, tuple[Any, ...]]) -> Iterable[str]:
    """A sentence for each group of ``wanted`` that ``kinds`` does not hold exactly once."""
    for label, group in wanted.items():
        n = sum(k in group for k in kinds)
        if n != 1:
            yield f"{what}: exactly one must be {label}, not {n}"


def _names(sheet: dict[str, Any], key: str) -> set[str]:
    """The names of the sheet's ``[[key]]`` tables as written, folded (an entry refused for
    another field still names its bond or skill)."""
    entries = sheet.get(key)
    if not isinstance(entries, list):
        return set()
    return {str(e.get("name", "")).strip().casefold() for e in entries if isinstance(e, dict)}


def _creation_rules(sheet: dict[str, Any]) -> Any:
    """The rules of "Character Creation" a sheet's types cannot say, for :func:`read_sheet`:
    three of each, one of each kind, the +3 skill's bond, the starting items, the carried
    places and the bag."""

    def rules(read: SheetIn) -> Iterable[str]:
        for key in ("traits", "bonds", "skills", "items"):
            given = sheet.get(key, [])
            if key != "items" and isinstance(given, list) and len(given) != 3:
                yield f"{key}: choose exactly three, not {len(given)}"
            names = [e.name.strip() for e in getattr(read, key)]
            folded = [n.casefold() for n in names]
            twice = sorted({n for n in names if folded.count(n.casefold()) > 1})
            if twice:
                yield f"{key}: names must differ, {', '.join(twice)} appears more than once"
        yield from _once("traits", [t.kind for t in read.traits], {
            "of kind body (your body)": ("body",),
            "of kind personality (your personality)": ("personality",),
            "of kind free (something interesting about you)": ("free",)})  # fmt: skip
        yield from _once("bonds", [b.kind for b in read.bonds], {
            "a faction": ("faction",), "a mentor or friend": ("mentor", "friend"),
            "a rival or enemy": ("rival", "enemy")})  # fmt: skip
        for i, bond in enumerate(read.bonds, 1):
            if bond.favor is not None or bond.favour is not None:
                yield (
                    f"bonds[{i}].favor: favor is The World's secret and the sheet is public: "
                    "record it with `campaign record favour-changed` (GM only)"
                )
        yield from _once("skills", [s.proficiency for s in read.skills], {
            "at +3 (learned through one of your bonds)": (3,),
            "at +2 (learned out of necessity and hardship)": (2,),
            "at +1 (learned in the pursuit of a passion)": (1,)})  # fmt: skip
        bonds = _names(sheet, "bonds")
        for i, skill in enumerate(read.skills, 1):
            if skill.via_bond is None and skill.proficiency == 3:
                yield f"skills[{i}].via_bond: missing, the +3 skill is learned through a bond"
            elif skill.via_bond is not None and skill.proficiency != 3:
                yield f"skills[{i}].via_bond: only the +3 skill is learned through a bond"
            elif skill.via_bond is not None and skill.via_bond.casefold() not in bonds:
                yield f"skills[{i}].via_bond: {skill.via_bond!r} is not one of your bonds"
        yield from _item_rules(read, bonds, _names(sheet, "skills"))

    return rules


def _item_rules(read: SheetIn, bonds: set[str], skills: set[str]) -> Iterable[str]:
    """One starting item per bond, one per skill, one consumable; then the carried places
    and the bag ("Character Creation", "Inventory")."""
    for_bond: list[str] = []
    for_skill: list[str] = []
    for i, item in enumerate(read.items, 1):
        links = [k for k in ("for_bond", "for_skill", "consumable") if getattr(item, k)]
        if len(links) != 1:
            yield (
                f"items[{i}]: exactly one of for_bond = BOND, for_skill = SKILL or "
                f"consumable = true, not {' and '.join(links) or 'none'}"
            )
        if item.for_bond:
            for_bond.append(item.for_bond.casefold())
            if item.for_bond.casefold() not in bonds:
                yield f"items[{i}].for_bond: {item.for_bond!r} is not one of your bonds"
        if item.for_skill:
            for_skill.append(item.for_skill.casefold())
            if item.for_skill.casefold() not in skills:
                yield f"items[{i}].for_skill: {item.for_skill!r} is not one of your skills"
    for what, linked in (("bonds", for_bond), ("skills", for_skill)):
        if len(set(linked)) != 3 or len(linked) != 3:
            twice = ", some twice" if len(set(linked)) != len(linked) else ""
            yield f"items: one for each of your three {what} ({len(linked)} given{twice})"
    consumables = sum(i.consumable for i in read.items)
    if consumables != 1:
        yield f"items: exactly one consumable is needed, not {consumables}"
    placed = place_items(read.items, has_bag=read.bag)
    yield from (f"items: {p}" for p in inventory_problems(placed, has_bag=read.bag))
    if len(placed) > CARRIED_CAPACITY + (BAG_CAPACITY if read.bag else 0):
        yield "items: the starting items do not fit in five carried places and a bag"


def read_sheet(sheet: dict[str, Any]) -> SheetIn:
    """``sheet`` (parsed TOML) read into a :class:`SheetIn` with every rule of "Character
    Creation" checked.

    :raises RuleError: every problem at once, each led by its TOML path (``traits[2].kind:
        expected one of 'body', 'personality', 'free', got "mind"``).
    """
    return check_sheet(SheetIn, sheet, rules=_creation_rules(sheet))


def place_items(items: list[ItemIn], *, has_bag: bool = True) -> list[Item]:
    """Starting items as :class:`Item`; those without a ``location`` fill the five carried
    places first, then the bag if there is one (T5: 7 starting items = 5 carried + 2 in the
    bag)."""
    free = CARRIED_CAPACITY - sum(it.location == "carried" for it in items) if has_bag \
        else len(items)  # fmt: skip
    placed = []
    for it in items:
        location = it.location
        if location is None:
            location = "carried" if free > 0 else "bag"
            free -= location == "carried"
        fields = msgspec.structs.asdict(it)
        placed.append(
            Item(
                **{
                    **fields,
                    "name": it.name.strip(),
                    "location": location,
                    "max_durability": it.durability,
                    "broken": it.durability == 0,
                }
            )
        )
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
