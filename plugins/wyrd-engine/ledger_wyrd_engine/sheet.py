"""Character sheets: the TOML format and the creation rules (digest §3).

Source: 000_60e07241544698f0.txt, "Character Creation" (Steps 1–6), "Traits", "Gear as
Traits". A player character has exactly one Great (+3), two Good (+2) and three Fair (+1)
skills, ratings summing to 10, every other skill +0, exactly three traits and three pieces
of gear. Non-player characters (``npc = true``) may have any ratings and any number of traits
("Non-player characters and monsters can have fewer or far more traits").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ledger import RuleError

from .ladder import parse_rating, signed

TEXT_FIELDS = ("concept", "appearance", "personality", "backstory", "notes")
TRAIT_KINDS = ("bonus", "ability", "permission", "substitution")
TRAIT_FIELDS = ("name", "kind", "skill", "instead_of", "once_per", "when", "text")
SHEET_FIELDS = (*TEXT_FIELDS, "npc", "skills", "traits", "gear")

#: Creation pyramid: rating → how many skills have it ("Step 2: Choose Skills").
PYRAMID = {3: 1, 2: 2, 1: 3}
PYRAMID_NAMES = {3: "Great (+3)", 2: "Good (+2)", 1: "Fair (+1)"}
SKILL_SUM = 10
TRAIT_COUNT = 3
GEAR_COUNT = 3


def canonical_skill(name: str, known: Sequence[str]) -> str:
    """``name`` spelled as in ``known`` when it matches case-insensitively, else stripped."""
    key = name.strip().lower()
    for skill in known:
        if skill.lower() == key:
            return skill
    return name.strip()


def _trait(entry: Any, where: str, known: Sequence[str], problems: list[str]) -> dict[str, Any]:
    """Validate one trait table; append problems; return it normalised."""
    if isinstance(entry, str):
        problems.append(
            f"{where} {entry!r} needs a kind: write it as a table with name and kind "
            f"({', '.join(TRAIT_KINDS)})"
        )
        return {"name": entry, "kind": "permission"}
    if not isinstance(entry, dict):
        problems.append(f"{where} must be a table with name and kind, not {entry!r}")
        return {}
    unknown = sorted(set(entry) - set(TRAIT_FIELDS))
    name = str(entry.get("name", "")).strip()
    label = f"{where} {name!r}" if name else where
    if unknown:
        problems.append(f"{label} has unknown field(s) {', '.join(unknown)}")
    if not name:
        problems.append(f"{where} needs a name")
    kind = entry.get("kind")
    out: dict[str, Any] = {"name": name, "kind": kind}
    for key in ("when", "text"):
        if key in entry:
            out[key] = str(entry[key])
    for key in ("skill", "instead_of"):
        if entry.get(key) is not None:
            out[key] = canonical_skill(str(entry[key]), known)
    if kind not in TRAIT_KINDS:
        problems.append(f"{label} has kind {kind!r}: use one of {', '.join(TRAIT_KINDS)}")
        return out
    if kind == "bonus" and not out.get("skill"):
        problems.append(f"{label} is a bonus trait: name the skill it gives +2 to (skill = ...)")
    if kind == "substitution" and not (out.get("skill") and out.get("instead_of")):
        problems.append(
            f"{label} is a substitution: give skill (used) and instead_of (replaced)"
        )
    if kind == "ability":
        once = entry.get("once_per")
        if once not in ("scene", "session"):
            problems.append(f"{label} is an ability: set once_per to 'scene' or 'session'")
        else:
            out["once_per"] = once
    elif entry.get("once_per") is not None:
        problems.append(f"{label}: once_per belongs to ability traits only")
    return out


def validate_sheet(sheet: dict[str, Any], skill_list: Sequence[str]) -> dict[str, Any]:
    """Check a parsed TOML sheet against the creation rules and normalise it.

    Format (``id``, ``name``, ``player`` are the core's and absent here)::

        concept = "..."              # optional free text, also appearance, personality,
        npc = false                  #   backstory, notes; npc relaxes the creation rules
        [skills]                     # rating: int or level name (Great, Expert, "+2", ...)
        Investigate = 3
        [[traits]]                   # exactly 3 for a PC; same shape for [[gear]]
        name = "Master Tinkerer"
        kind = "bonus"               # bonus | ability | permission | substitution
        skill = "Crafts"             # bonus/substitution/permission: the skill
        instead_of = "Athletics"     # substitution: the skill replaced
        once_per = "session"         # ability: scene | session
        when = "repairing machinery" # situation (free text)

    Skill names matching ``skill_list`` case-insensitively take its spelling; other names are
    custom skills (Isadora's Empathy). Zero-rated skills may be listed (the sidebars'
    "Average (+0)" lines). Sources: 000_60e07241544698f0.txt, "Step 2: Choose Skills",
    "Step 3: Select Traits", "Step 4: Select Gear"; digest §3.1, ruling C12.

    :returns: the sheet with ratings as ints, skills in canonical spelling, traits as tables.
    :raises RuleError: listing every broken rule (unknown field, bad rating, pyramid counts,
        sum, trait/gear counts, trait shape, duplicate names).
    """
    problems: list[str] = []
    unknown = sorted(set(sheet) - set(SHEET_FIELDS))
    if unknown:
        problems.append(
            f"unknown sheet field(s) {', '.join(unknown)}: a Wyrd Engine sheet has "
            f"{', '.join(SHEET_FIELDS)}"
        )
    npc = sheet.get("npc", False)
    if not isinstance(npc, bool):
        problems.append(f"npc must be true or false, not {npc!r}")
        npc = False
    out: dict[str, Any] = {"npc": npc}
    for key in TEXT_FIELDS:
        if key in sheet:
            out[key] = str(sheet[key])

    raw_skills = sheet.get("skills", {})
    skills: dict[str, int] = {}
    if not isinstance(raw_skills, dict):
        problems.append("skills must be a table of skill = rating")
        raw_skills = {}
    for raw_name, raw_value in raw_skills.items():
        name = canonical_skill(str(raw_name), skill_list)
        try:
            rating = parse_rating(raw_value)
        except RuleError as e:
            problems.append(f"skill {name}: {e}")
            continue
        if name.lower() in (s.lower() for s in skills):
            problems.append(f"skill {name} is listed twice")
        skills[name] = rating
    out["skills"] = skills

    if not npc:
        for name, rating in skills.items():
            if not 0 <= rating <= 3:
                problems.append(
                    f"skill {name} is {signed(rating)}: at creation skills run from +0 to +3"
                )
        for rating, wanted in PYRAMID.items():
            have = [n for n, r in skills.items() if r == rating]
            if len(have) != wanted:
                listed = f" ({', '.join(have)})" if have else ""
                problems.append(
                    f"a character has exactly {wanted} {PYRAMID_NAMES[rating]} "
                    f"skill{'s' if wanted > 1 else ''}, not {len(have)}{listed}"
                )
        total = sum(skills.values())
        if total != SKILL_SUM:
            problems.append(f"skill ratings must sum to {SKILL_SUM}, not {total}")

    known = [*skill_list, *skills]
    seen: set[str] = set()
    for key, count, word in (("traits", TRAIT_COUNT, "Trait"), ("gear", GEAR_COUNT, "Gear")):
        raw = sheet.get(key, [])
        if not isinstance(raw, list):
            problems.append(f"{key} must be a list of tables ([[{key}]])")
            raw = []
        if not npc and len(raw) != count:
            noun = "Traits" if key == "traits" else "pieces of gear"
            problems.append(f"a player character has exactly {count} {noun}, not {len(raw)}")
        entries = []
        for i, entry in enumerate(raw, start=1):
            trait = _trait(entry, f"{word} {i}", known, problems)
            name = trait.get("name", "")
            if name:
                if name.lower() in seen:
                    problems.append(f"the name {name!r} is used twice among traits and gear")
                seen.add(name.lower())
            entries.append(trait)
        out[key] = entries
    if problems:
        raise RuleError(*problems)
    return out
