"""Character creation: sheet validation and the initial state.

Seed ``003_2aeb47bc6ca82a40.txt``, characters.html "Section 1 Characters" (Name, Archetype,
Attributes rolled 2d keep highest, 4 Skill points, HP and Ego, the optional Advancement).

A sheet (TOML, without the core keys ``id``, ``name``, ``player``)::

    archetype = "Explorer"
    advancements = ["Sensory acuity: hearing"]   # optional, at most one (option)
    armour = "light"                             # none | light | heavy
    shield = false
    attribute_bonus = "Agility"                  # only with option attributes_only
    legacy_advancements = 3                      # successor of a retired character
    [attributes]                                 # optional: values 0-2 rolled at the table;
    Strength = 1                                 # leave out to roll with
    Agility = 2                                  # `campaign roll ID Strength --creation`
    [skills]
    Exploration = 2
    Survival = 2
    [weapons]
    knife = "d/2"
"""

from __future__ import annotations

from typing import Any

import msgspec

from ledger import RuleError

from . import mechanics as m
from . import state as st

SHEET_KEYS = {
    "archetype", "attributes", "skills", "advancements", "armour", "shield", "weapons",
    "attribute_bonus", "legacy_advancements",
}


def validate_sheet(sheet: dict[str, Any], options: st.Options) -> dict[str, Any]:
    """Check a sheet against the creation rules and return it normalised.

    Rules (SEED "Section 1"): an Archetype from the list; creation Attributes 0-2 (the
    2d-keep-highest table) for those given; Skills from the list, whole numbers ≥ 0, exactly
    ``skill_points`` (4) in total, or none with ``attributes_only`` and an
    ``attribute_bonus``; at most ``creation_advancements`` (1) Advancements, or up to
    ``legacy_advancements`` for a retired character's successor ("1.4" Retire).

    :raises RuleError: naming every broken rule at once.
    """
    problems: list[str] = []

    def check(fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except RuleError as e:
            problems.extend(e.problems)
            return None

    unknown = sorted(set(sheet) - SHEET_KEYS)
    if unknown:
        problems.append(
            f"unknown sheet keys {', '.join(unknown)}; allowed: {', '.join(sorted(SHEET_KEYS))}"
        )
    archetype = sheet.get("archetype")
    if not isinstance(archetype, str) or not archetype.strip():
        problems.append(
            f"the sheet needs an archetype, one of: {', '.join(options.archetype_names())}"
        )
        archetype = None
    else:
        archetype = check(m.canonical, archetype, options.archetype_names(), "Archetype")

    attributes: dict[str, int] = {}
    raw_attrs = sheet.get("attributes", {})
    if not isinstance(raw_attrs, dict):
        problems.append("attributes must be a table such as [attributes] Strength = 1")
        raw_attrs = {}
    for key, value in raw_attrs.items():
        name = check(m.canonical, key, m.ATTRIBUTES, "Attribute")
        if name is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 2:
            problems.append(
                f"{name} {value!r} cannot come from the creation roll: use 0, 1 or 2 "
                "(highest of 2d6: 1-3 → 0, 4-5 → 1, 6 → 2)"
            )
            continue
        attributes[name] = value

    bonus = sheet.get("attribute_bonus")
    skills: dict[str, int] = {}
    raw_skills = sheet.get("skills", {})
    if not isinstance(raw_skills, dict):
        problems.append("skills must be a table such as [skills] Violence = 2")
        raw_skills = {}
    for key, value in raw_skills.items():
        name = check(m.canonical, key, options.skill_names(), "Skill")
        if name is None:
            continue
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            problems.append(f"Skill {name} must be a whole number 0 or more, not {value!r}")
            continue
        if value:
            skills[name] = value
    if options.attributes_only:
        if skills:
            problems.append("this campaign plays without Skills (attributes_only): remove skills")
        if not isinstance(bonus, str):
            problems.append(
                "without Skills, choose one Attribute to raise by 1: attribute_bonus = \"Agility\""
            )
        else:
            bonus = check(m.canonical, bonus, m.ATTRIBUTES, "Attribute")
    else:
        if bonus is not None:
            problems.append("attribute_bonus is only for the no-Skills variant (attributes_only)")
            bonus = None
        total = sum(skills.values())
        if total != options.skill_points:
            problems.append(
                f"Skills total {total} points; spend exactly {options.skill_points}"
            )

    legacy = sheet.get("legacy_advancements", 0)
    if not isinstance(legacy, int) or isinstance(legacy, bool) or legacy < 0:
        problems.append(f"legacy_advancements must be a whole number 0 or more, not {legacy!r}")
        legacy = 0
    allowed = legacy if legacy else options.creation_advancements
    raw_adv = sheet.get("advancements", [])
    advancements: list[str] = []
    if not isinstance(raw_adv, list) or not all(isinstance(a, str) for a in raw_adv):
        problems.append('advancements must be a list of names, e.g. ["Tough"]')
        raw_adv = []
    for entry in raw_adv:
        name = check(st.known_advancement, entry, options)
        if name is not None:
            advancements.append(name)
    if len(raw_adv) > allowed:
        problems.append(
            f"{len(raw_adv)} Advancements at creation; at most {allowed} "
            + ("(the retired character's half, rounded up)" if legacy else "(the optional one)")
        )
    if "Retire" in advancements:
        problems.append("Retire cannot be taken at creation")

    armour = sheet.get("armour", "none")
    if armour not in m.ARMOUR:
        problems.append(f"armour {armour!r} is not none, light or heavy")
        armour = "none"
    shield = sheet.get("shield", False)
    if not isinstance(shield, bool):
        problems.append("shield must be true or false")
        shield = False
    weapons: dict[str, str] = {}
    raw_weapons = sheet.get("weapons", {})
    if not isinstance(raw_weapons, dict):
        problems.append('weapons must be a table such as [weapons] sword = "1d"')
        raw_weapons = {}
    for key, code in raw_weapons.items():
        parsed = check(m.parse_effect, code if isinstance(code, str) else repr(code))
        if parsed is not None:
            weapons[str(key)] = str(parsed)

    if problems:
        raise RuleError(*problems)
    out: dict[str, Any] = {
        "archetype": archetype,
        "attributes": attributes,
        "skills": skills,
        "advancements": advancements,
        "armour": armour,
        "shield": shield,
        "weapons": weapons,
    }
    if bonus:
        out["attribute_bonus"] = bonus
    if legacy:
        out["legacy_advancements"] = legacy
    return out


def new_character(character: str, name: str, sheet: dict[str, Any]) -> st.Character:
    """The state of a newly created character: HP = HP_max, Ego = Ego_max ("1.3").

    Attributes left out of the sheet stay unrolled (creation then finishes with
    ``AttributeRolled`` events, which reset HP and Ego to their new maxima).
    """
    state = st.Character(
        id=character,
        name=name,
        archetype=sheet["archetype"],
        rolled=dict(sheet.get("attributes", {})),
        attribute_bonus=sheet.get("attribute_bonus"),
        skills=dict(sheet.get("skills", {})),
        advancements=list(sheet.get("advancements", [])),
        armour=sheet.get("armour", "none"),
        shield=bool(sheet.get("shield", False)),
        weapons=dict(sheet.get("weapons", {})),
    )
    return msgspec.structs.replace(state, hp=st.hp_max(state), ego=st.ego_max(state))
