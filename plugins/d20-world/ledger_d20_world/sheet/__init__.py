"""A d20-world character from creation to the sheet a person reads (seed
001_a3a02f9b7363775f.txt, "Character Creation"): the :class:`SheetRules` mixin of
:class:`ledger_d20_world.system.D20World`.

:mod:`.creation` reads a sheet file into a typed sheet with every rule of "Character
Creation" checked (its format is described there),
:mod:`.layout` the parts of the sheet in the book's words.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from ledger import RuleSystem, Section, Sheet

from ..rules.mechanics import xp_threshold
from ..rules.ops import capacity, condition_penalty, hidden_penalty, wound_total
from ..state import Bond, Character, Item, Options, Skill, Trait
from .creation import SKILL_ORIGINS, item_entry, place_items, read_sheet, starting_favor
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

        :raises RuleError: naming every broken rule at once, each led by its TOML path
            (:func:`.creation.read_sheet`).
        """
        read = read_sheet(sheet)
        return {
            "traits": [{"name": t.name.strip(), "kind": t.kind} for t in read.traits],
            "bonds": [{"name": b.name.strip(), "kind": b.kind} for b in read.bonds],
            "skills": [
                {
                    "name": s.name.strip(),
                    "proficiency": s.proficiency,
                    "spell": s.spell,
                    **({"via_bond": s.via_bond} if s.via_bond else {}),
                }
                for s in read.skills
            ],
            "items": [item_entry(i) for i in place_items(read.items, has_bag=read.bag)],
            "bag": read.bag,
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
            bonds=tuple(
                Bond(name=b["name"], kind=b["kind"], favor=starting_favor(b["kind"]))
                for b in sheet["bonds"]
            ),
            skills=tuple(
                Skill(
                    name=s["name"],
                    proficiency=s["proficiency"],
                    spell=s.get("spell", False),
                    origin=SKILL_ORIGINS[s["proficiency"]],
                    via_bond=s.get("via_bond"),
                )
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
            "check_penalty": wound_total(state)
            + condition_penalty(state)
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
        hurt = (
            state.dead
            or wound_total(state)
            or state.conditions
            or state.jinx
            or state.pending_shock
        )
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
    return {
        k: v for k, v in item.items() if k in ("name", "location") or v not in (None, False, "")
    }
