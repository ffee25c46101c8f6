"""A d20-world character from creation to the sheet a person reads (seed
001_a3a02f9b7363775f.txt, "Character Creation"): the :class:`SheetRules` mixin of
:class:`ledger_d20_world.system.D20World`.

:mod:`.creation` holds the checks of a sheet file (its format is described there),
:mod:`.layout` the parts of the sheet in the book's words.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from ledger import RuleError, RuleSystem, Section, Sheet

from ..rules.mechanics import BAG_CAPACITY, CARRIED_CAPACITY, inventory_problems, xp_threshold
from ..rules.ops import capacity, condition_penalty, hidden_penalty, wound_total
from ..state import Bond, Character, Item, Options, Skill, Trait
from .creation import (
    BOND_KEYS,
    ITEM_KEYS,
    SKILL_KEYS,
    SKILL_ORIGINS,
    TRAIT_KEYS,
    check_bonds,
    check_items,
    check_skills,
    check_traits,
    entry_names,
    item_entry,
    place_items,
    starting_favor,
    tables,
    unknown_keys,
)
from .layout import (
    bond_line,
    harm_section,
    inventory_sections,
    objectives_section,
    skills_section,
    trait_line,
)


class SheetRules(RuleSystem[Character, Options]):
    """Mixin of :class:`ledger_d20_world.system.D20World`: creation, the sheet as data and
    the sheet as a person reads it."""

    def create_sheet(self, sheet: dict[str, Any]) -> dict[str, Any]:
        """Check a sheet against "Character Creation" and return it normalised.

        Three traits (one body, one personality, one free), three bonds (one faction, one
        mentor or friend, one rival or enemy), three skills at +3 (``via_bond`` one of the
        bonds) / +2 / +1, and the starting items: one per bond, one per skill, one
        consumable (seven), placed in five carried places and the bag (``bag`` defaults to
        true; bag capacity 5).

        :raises RuleError: naming every broken rule at once.
        """
        problems: list[str] = []
        allowed = {"traits", "bonds", "skills", "items", "bag"}
        extra = sorted(set(sheet) - allowed)
        if extra:
            problems.append(
                f"unknown sheet keys {', '.join(extra)} (allowed: {', '.join(sorted(allowed))})"
            )
        traits = tables(sheet, "traits", problems)
        bonds = tables(sheet, "bonds", problems)
        skills = tables(sheet, "skills", problems)
        items = tables(sheet, "items", problems)
        unknown_keys(traits, TRAIT_KEYS, "trait", problems)
        unknown_keys(bonds, BOND_KEYS, "bond", problems)
        unknown_keys(skills, SKILL_KEYS, "skill", problems)
        unknown_keys(items, ITEM_KEYS, "item", problems)
        trait_names = entry_names(traits, "trait", problems)
        bond_names = entry_names(bonds, "bond", problems)
        skill_names = entry_names(skills, "skill", problems)
        entry_names(items, "item", problems)
        check_traits(traits, problems)
        check_bonds(bonds, problems)
        check_skills(skills, bond_names, problems)
        check_items(items, bond_names, skill_names, problems)
        has_bag = sheet.get("bag", True)
        if not isinstance(has_bag, bool):
            problems.append("bag must be true or false")
            has_bag = True
        if not problems:
            placed = place_items(items, has_bag=has_bag)
            for p in inventory_problems(placed, has_bag=has_bag):
                problems.append(f"starting items: {p}")
            if len(placed) > CARRIED_CAPACITY + (BAG_CAPACITY if has_bag else 0):
                problems.append("the starting items do not fit in five carried places and a bag")
        if problems:
            raise RuleError(*problems)
        return {
            "traits": [{"name": n, "kind": t["kind"]} for n, t in zip(trait_names, traits,
                                                                        strict=True)],
            "bonds": [{"name": n, "kind": b["kind"]} for n, b in zip(bond_names, bonds,
                                                                      strict=True)],
            "skills": [
                {"name": n, "proficiency": s["proficiency"],
                 "spell": bool(s.get("spell", False)),
                 **({"via_bond": s["via_bond"]} if s.get("via_bond") else {})}
                for n, s in zip(skill_names, skills, strict=True)
            ],
            "items": [item_entry(i) for i in place_items(items, has_bag=has_bag)],
            "bag": has_bag,
        }

    def initial_state(self, character: str, name: str, sheet: dict[str, Any]) -> Character:
        """The new character ("Character Creation"): sheet traits, bonds, skills and items,
        starting favor by bond kind (ruling R11), jinx 0, no wounds or conditions.

        :raises RuleError: the sheet breaks a creation rule (:meth:`create_sheet`).
        """
        sheet = self.create_sheet(sheet)
        return Character(
            id=character,
            name=name,
            traits=tuple(Trait(name=t["name"], kind=t["kind"]) for t in sheet["traits"]),
            bonds=tuple(Bond(name=b["name"], kind=b["kind"], favor=starting_favor(b["kind"]))
                        for b in sheet["bonds"]),
            skills=tuple(
                Skill(name=s["name"], proficiency=s["proficiency"], spell=s.get("spell", False),
                      origin=SKILL_ORIGINS[s["proficiency"]], via_bond=s.get("via_bond"))  # type: ignore[arg-type]
                for s in sheet["skills"]
            ),
            # a starting armour's full durability is its durability on the sheet, so it is
            # repaired like armour added later ("Armor"; the sheet entry has no max)
            items=tuple(
                msgspec.convert({"max_durability": i.get("durability"), **i}, Item)
                for i in sheet["items"]
            ),
            has_bag=sheet.get("bag", True),
        )

    def skills_of(self, state: Character) -> Iterable[str]:
        """The character's skill names, spells included."""
        return [s.name for s in state.skills]

    def sheet_view(self, state: Character, *, as_gm: bool) -> dict[str, Any]:
        """The sheet as JSON with derived values (wound total, check penalty, capacity,
        experience needed). With ``as_gm=False`` bond favor ("Bonds": not public knowledge)
        and hidden conditions with their penalty (ruling R33) are left out; a GM's sheet marks
        hidden conditions ``"hidden": true``."""
        view: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(state))
        view["items"] = [_compact(i) for i in view["items"]]
        if not as_gm:  # favor and hidden conditions are The World's (R24, R33)
            for bond in view["bonds"]:
                bond.pop("favor", None)
            view["conditions"] = [c for c in view["conditions"] if not c["hidden"]]
        view.pop("gm_view")
        if not view["clock"]:  # in-fiction time: said only once some has passed
            view.pop("clock")
        for entry in (*view["conditions"], *view["objectives"]):
            for key in ("ends_at", "due_at"):
                if entry.get(key, 0) is None:
                    entry.pop(key)
        view.pop("group_checks")
        for trait in view["traits"]:
            if not trait["spell"]:
                trait.pop("spell")
        for c in view["conditions"]:
            if not c["hidden"]:
                c.pop("hidden")
        for skill, s in zip(view["skills"], state.skills, strict=True):
            skill["experience_needed"] = xp_threshold(s)
        carried = sum(1 for i in state.items if i.location == "carried")
        view["derived"] = {
            "wound_total": wound_total(state),
            "check_penalty": wound_total(state) + condition_penalty(state)
            + (hidden_penalty(state) if as_gm else 0),
            "spell_penalty": state.jinx,
            "carried": carried,
            "carried_capacity": capacity(state),
            "over_capacity": carried > capacity(state),
            "in_bag": sum(1 for i in state.items if i.location == "bag"),
        }
        return view

    def sheet_layout(self, state: Character, *, as_gm: bool) -> Sheet:
        """The sheet in the book's words: harm first when the character is hurt (wounds
        drawn against death, conditions and jinx with what they take from checks now),
        skills by proficiency with experience toward the next rise, traits, bonds (favor in
        the GM's layout only, marked), inventory with the carried boxes, objectives (the
        parts in :mod:`.layout`)."""
        harm = harm_section(state, as_gm=as_gm)
        hurt = state.dead or wound_total(state) or state.conditions or state.jinx \
            or state.pending_shock
        sections: list[Section] = [harm] if hurt else []  # what a check takes away first
        sections += [
            skills_section(state),
            Section(title="Traits", items=tuple(trait_line(t) for t in state.traits)),
            Section(title="Bonds", items=tuple(bond_line(b, as_gm) for b in state.bonds)),
        ]
        if not hurt:
            sections.append(harm)
        sections += [*inventory_sections(state), objectives_section(state)]
        return Sheet(
            title=state.name,
            subtitle=self.name,
            sections=tuple(s for s in sections if s.items),
            as_gm=as_gm,
        )


def _compact(item: dict[str, Any]) -> dict[str, Any]:
    """An item without its empty fields (``None``, ``False``, ``""``), name and location
    first."""
    return {k: v for k, v in item.items()
            if k in ("name", "location") or v not in (None, False, "")}
