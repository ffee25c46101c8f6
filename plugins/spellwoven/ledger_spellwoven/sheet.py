"""Spellwoven character sheets: creation, the sheet as JSON and as a person reads it (seed
004_663ae3e4ecc71fd1.txt).

:class:`SheetRules` checks a sheet against the creation rules (:func:`validate_sheet`),
builds a new character's state (:func:`new_character`), and lays the sheet out: Attributes
as boxes with the difficulty they give attackers, Effort, skills in the book's notation.

A sheet (TOML, after the core keys ``id``, ``name``, ``player``)::

    kind = "pc"                    # "pc" (default) or "npc"
    [attributes]                   # all five, 1..4
    Behest = 2
    Fortitude = 2
    Presence = 2
    Quickness = 3
    Wits = 2
    [skills]                       # name = { rank, attribute }
    Sprint = { rank = 5, attribute = "Quickness" }
    [specialisations]              # optional: name = { rank, skill }
    Brawling = { rank = 5, skill = "Fighting" }
    [weaknesses]                   # a PC has exactly one of each
    combat = "Hesitates to strike first"
    social = "Cannot resist a dare"

Optional: ``effort_max`` (overrides the campaign's Effort pool rule for this character),
``effort`` (current Effort at creation, default the maximum), ``conditions`` (list).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from ledger import Line, RuleError, RuleSystem, Section, Sheet, Track

from .rules.mechanics import (
    ATTRIBUTE_MAX,
    ATTRIBUTE_MIN,
    ATTRIBUTES,
    boxes,
    did_you_mean,
    difficulty_from_attribute,
    find_name,
    notation,
    skill_level,
)
from .state import Character, Options, Skill, Specialisation


def attribute_name(name: Any, problems: list[str], where: str) -> str | None:
    """The canonical Attribute name for ``name`` (case-insensitive), or ``None`` after adding
    a problem sentence naming ``where``."""
    if isinstance(name, str):
        found = find_name(name, list(ATTRIBUTES))
        if found:
            return found
    problems.append(
        f"{where}: {name!r} is not an Attribute; use one of {', '.join(ATTRIBUTES)}"
        + (did_you_mean(name, list(ATTRIBUTES)) if isinstance(name, str) else "")
    )
    return None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def validate_sheet(sheet: dict[str, Any], options: Options) -> dict[str, Any]:
    """Check a character sheet against the creation rules and return it normalised.

    Rules (docs/rulings/spellwoven.md, ruling S1, S3): the five Attributes, each 1..4 ("rated on a scale of
    1 to 4"); every skill has a rank and an Attribute among the five; a PC's skill ranks
    are ``pc_skill_min``..``pc_skill_max`` (4..9: "trained Skills start at a level of 4",
    "Skills cannot exceed 9"); an NPC's any rank from 1 (the housewife's Fighting is 2);
    specialisations name a skill of the sheet; a PC has exactly one Combat and one Social
    Weakness ("Weaknesses"); ``effort`` is 0..``effort_max``.

    (004_663ae3e4ecc71fd1.txt, "Attributes and Effort", "Overview: The Basic Mechanic",
    "Weaknesses", "Static Difficulty from Attributes")

    :returns: ``{"kind", "attributes", "skills", "specialisations", "weaknesses",
        "effort_max"?, "effort"?, "conditions"}`` with canonical Attribute names.
    :raises RuleError: naming every broken rule at once.
    """
    problems: list[str] = []
    known = {
        "kind",
        "attributes",
        "skills",
        "specialisations",
        "weaknesses",
        "effort",
        "effort_max",
        "conditions",
    }
    for key in sorted(set(sheet) - known):
        problems.append(
            f"unknown sheet field {key!r}{did_you_mean(key, sorted(known))}; a Spellwoven "
            f"sheet has {', '.join(sorted(known))}"
        )
    kind = sheet.get("kind", "pc")
    if kind not in ("pc", "npc"):
        problems.append(f"kind must be 'pc' or 'npc', not {kind!r}")
        kind = "pc"

    attributes: dict[str, int] = {}
    raw_attributes = sheet.get("attributes")
    if not isinstance(raw_attributes, dict):
        problems.append(
            "the sheet needs an [attributes] table with Behest, Fortitude, Presence, "
            "Quickness and Wits, each 1 to 4"
        )
        raw_attributes = {}
    for key, value in raw_attributes.items():
        name = attribute_name(key, problems, "[attributes]")
        if name is None:
            continue
        if not _is_int(value) or not ATTRIBUTE_MIN <= value <= ATTRIBUTE_MAX:
            problems.append(f"{name} must be a whole number from 1 to 4, not {value!r}")
            continue
        attributes[name] = value
    missing = [
        a for a in ATTRIBUTES if a not in attributes and find_name(a, list(raw_attributes)) is None
    ]
    if raw_attributes and missing:
        problems.append(f"[attributes] is missing {', '.join(missing)} (each 1 to 4)")

    skills: dict[str, dict[str, Any]] = {}
    raw_skills = sheet.get("skills", {})
    if not isinstance(raw_skills, dict):
        problems.append('[skills] must be a table of name = { rank = N, attribute = "..." }')
        raw_skills = {}
    low, high = (1, None) if kind == "npc" else (options.pc_skill_min, options.pc_skill_max)
    for skill, spec in raw_skills.items():
        if not isinstance(spec, dict) or "rank" not in spec or "attribute" not in spec:
            problems.append(
                f"skill {skill!r} needs a rank and a linked Attribute, e.g. "
                f'{skill} = {{ rank = 5, attribute = "Quickness" }}'
            )
            continue
        extra = sorted(set(spec) - {"rank", "attribute"})
        if extra:
            problems.append(f"skill {skill!r} has unknown fields {', '.join(extra)}")
        linked = attribute_name(spec["attribute"], problems, f"skill {skill!r}")
        rank = spec["rank"]
        if not _is_int(rank) or rank < low or (high is not None and rank > high):
            bounds = f"{low} to {high}" if high is not None else f"{low} or more"
            who = "an NPC's" if kind == "npc" else "a PC's trained"
            problems.append(f"skill {skill!r}: {who} rank must be {bounds}, not {rank!r}")
            continue
        if find_name(skill, list(ATTRIBUTES)):
            problems.append(f"skill {skill!r} has an Attribute's name; rename the skill")
            continue
        if linked:
            skills[skill] = {"rank": rank, "attribute": linked}

    specialisations: dict[str, dict[str, Any]] = {}
    raw_specs = sheet.get("specialisations", {})
    if not isinstance(raw_specs, dict):
        problems.append('[specialisations] must be a table of name = { rank = N, skill = "..." }')
        raw_specs = {}
    for spec_name, spec in raw_specs.items():
        if not isinstance(spec, dict) or set(spec) != {"rank", "skill"}:
            problems.append(
                f"specialisation {spec_name!r} needs exactly a rank and its parent skill, e.g. "
                f'{spec_name} = {{ rank = 5, skill = "Fighting" }}'
            )
            continue
        parent = find_name(str(spec["skill"]), list(skills))
        if parent is None:
            problems.append(
                f"specialisation {spec_name!r}: its skill {spec['skill']!r} is not on the "
                f"sheet{did_you_mean(str(spec['skill']), list(skills))}"
            )
            continue
        rank = spec["rank"]
        if not _is_int(rank) or rank < 1 or (high is not None and rank > high):
            bounds = f"1 to {high}" if high is not None else "1 or more"
            problems.append(f"specialisation {spec_name!r}: rank must be {bounds}, not {rank!r}")
            continue
        if spec_name in skills:
            problems.append(f"specialisation {spec_name!r} has the name of a skill; rename it")
            continue
        specialisations[spec_name] = {"rank": rank, "skill": parent}

    weaknesses: dict[str, str] = {}
    raw_weak = sheet.get("weaknesses", {})
    if not isinstance(raw_weak, dict):
        problems.append('[weaknesses] must be a table with combat = "..." and social = "..."')
        raw_weak = {}
    for key, text in raw_weak.items():
        if key not in ("combat", "social"):
            problems.append(f"weakness {key!r}: a Weakness is 'combat' or 'social'")
        elif not isinstance(text, str) or not text.strip():
            problems.append(f"the {key} Weakness needs a description, not {text!r}")
        else:
            weaknesses[key] = text.strip()
    if kind == "pc" and options.require_weaknesses:
        for key in ("combat", "social"):
            if key not in raw_weak:
                problems.append(
                    f"a PC starts with one Combat and one Social Weakness: add "
                    f'[weaknesses] {key} = "..."'
                )

    result: dict[str, Any] = {
        "kind": kind,
        "attributes": attributes,
        "skills": skills,
        "specialisations": specialisations,
        "weaknesses": weaknesses,
        "conditions": [],
    }
    effort_max = sheet.get("effort_max")
    if effort_max is not None:
        if not _is_int(effort_max) or effort_max < 0:
            problems.append(f"effort_max must be a whole number 0 or more, not {effort_max!r}")
        else:
            result["effort_max"] = effort_max
    pool = effort_pool(attributes, options, result.get("effort_max"))
    effort = sheet.get("effort")
    if effort is not None:
        if not _is_int(effort) or not 0 <= effort <= pool:
            problems.append(f"effort must be 0 to the Effort pool {pool}, not {effort!r}")
        else:
            result["effort"] = effort
    conditions = sheet.get("conditions", [])
    if not isinstance(conditions, list) or not all(isinstance(c, str) for c in conditions):
        problems.append("conditions must be a list of text")
    else:
        result["conditions"] = list(conditions)
    if problems:
        raise RuleError(*problems)
    return result


def effort_pool(attributes: dict[str, int], options: Options, sheet_max: int | None) -> int:
    """The Effort pool: the sheet's ``effort_max``, else the campaign option, else Fortitude
    (ruling S6: "a pool representing your state of exhaustion"; 004_663ae3e4ecc71fd1.txt,
    "Attributes and Effort")."""
    if sheet_max is not None:
        return sheet_max
    if options.effort_max is not None:
        return options.effort_max
    return attributes.get("Fortitude", 0)


def new_character(character: str, name: str, sheet: dict[str, Any], options: Options) -> Character:
    """The state of a character from a sheet :func:`validate_sheet` accepted (it is
    validated again, so a stored sheet that no longer fits the options is refused).

    :raises RuleError: as :func:`validate_sheet`.
    """
    valid = validate_sheet(sheet, options)
    pool = effort_pool(valid["attributes"], options, valid.get("effort_max"))
    return Character(
        id=character,
        name=name,
        kind=valid["kind"],
        attributes=valid["attributes"],
        skills={k: Skill(**v) for k, v in valid["skills"].items()},
        specialisations={k: Specialisation(**v) for k, v in valid["specialisations"].items()},
        weaknesses=valid["weaknesses"],
        effort=valid.get("effort", pool),
        effort_max=pool,
        conditions=valid["conditions"],
    )


def _rank_text(name: str, rank: int) -> str:
    """The book's notation without the name: ``4``, ``12 (4/9)``."""
    return notation(name, rank).split(": ", 1)[1]


class SheetRules(RuleSystem[Character, Options]):
    """Creation and the sheet of a Spellwoven character (004_663ae3e4ecc71fd1.txt,
    "Attributes and Effort", "Static Difficulty from Attributes", "Skill level 10+",
    "Weaknesses"). Nothing in Spellwoven is GM-only: both views are the same."""

    def create_sheet(self, sheet: dict[str, Any]) -> dict[str, Any]:
        """Validate a sheet (:func:`validate_sheet`, docs/rulings/spellwoven.md) under the campaign's options.

        :raises RuleError: naming every broken creation rule.
        """
        return validate_sheet(sheet, self.options)

    def initial_state(self, character: str, name: str, sheet: dict[str, Any]) -> Character:
        """A new character: Effort full (:func:`new_character`, ruling S6;
        004_663ae3e4ecc71fd1.txt, "Attributes and Effort").

        :raises RuleError: a sheet that no longer fits the campaign's options.
        """
        return new_character(character, name, sheet, self.options)

    def skills_of(self, state: Character) -> Iterable[str]:
        """Skills, specialisations and the five Attributes (all can be tested;
        004_663ae3e4ecc71fd1.txt, "Test of Skill")."""
        return [*state.skills, *state.specialisations, *ATTRIBUTES]

    def sheet_view(self, state: Character, *, as_gm: bool) -> dict[str, Any]:
        """The sheet as JSON: Attributes with boxes and the difficulty they give attackers
        (Attribute − 1; Evasion = Quickness − 1), skills with their Skill Level and sheet
        notation ("Skill: 12 (4/9)"), specialisations, Weaknesses, Effort, conditions and the
        latest roll. Nothing in Spellwoven is GM-only.

        (004_663ae3e4ecc71fd1.txt, "Attributes and Effort", "Static Difficulty from
        Attributes", "Skill level 10+", "Weaknesses")
        """
        attributes = {
            name: {
                "value": value,
                "boxes": boxes(value),
                "difficulty_to_hit": difficulty_from_attribute(value),
            }
            for name, value in state.attributes.items()
        }
        skills = {
            name: {
                "rank": skill.rank,
                "attribute": skill.attribute,
                "skill_level": skill_level(skill.rank, state.attributes[skill.attribute]),
                "notation": notation(name, skill.rank),
            }
            for name, skill in state.skills.items()
        }
        specialisations = {
            name: {"rank": spec.rank, "skill": spec.skill, "notation": notation(name, spec.rank)}
            for name, spec in state.specialisations.items()
        }
        return {
            "id": state.id,
            "name": state.name,
            "kind": state.kind,
            "attributes": attributes,
            "evasion": difficulty_from_attribute(state.attributes["Quickness"]),
            "skills": skills,
            "specialisations": specialisations,
            "weaknesses": dict(state.weaknesses),
            "effort": state.effort,
            "effort_max": state.effort_max,
            "conditions": list(state.conditions),
            "last_roll": msgspec.to_builtins(state.last_roll) if state.last_roll else None,
            "scene_rolls": [msgspec.to_builtins(r) for r in state.scene_rolls],
        }

    def sheet_layout(self, state: Character, *, as_gm: bool) -> Sheet:
        """The sheet in the book's words: Attributes drawn as boxes with the difficulty they
        give attackers, Effort, skills by Skill Level in the book's notation,
        specialisations, Weaknesses, conditions and the latest roll (what spending Effort can
        still change). No GM-only facts.

        (004_663ae3e4ecc71fd1.txt, "Attributes and Effort" (Attributes 1..4 drawn as boxes,
        Effort refreshed by a night's sleep), "Static Difficulty from Attributes"
        (difficulty to hit = Attribute − 1; Evasion from Quickness), "Test of Skill" (the
        Skill Level is the rank or the linked Attribute, whichever is higher), "Skill level
        10+" (the sheet notation ``Skill: 12 (4/9)``), "Weaknesses" (used against you, the
        opponent rolls 4d10))
        """
        attributes: list[Track | Line] = []
        for name, value in state.attributes.items():
            hit = difficulty_from_attribute(value)
            note = f"difficulty {hit} to hit" if hit else "hit without a roll"
            attributes.append(Track(label=name, marked=value, boxes=ATTRIBUTE_MAX, note=note))
        evasion = difficulty_from_attribute(state.attributes["Quickness"])
        attributes.append(Line(label="Evasion", value=str(evasion), note="Quickness − 1"))

        effort = (
            Track(
                label="Effort",
                marked=state.effort,
                boxes=state.effort_max,
                note="a night's sleep refreshes it",
            ),
        )

        def level(name: str) -> int:
            skill = state.skills[name]
            return skill_level(skill.rank, state.attributes[skill.attribute])

        skills = []
        for name in sorted(state.skills, key=lambda n: (-level(n), n)):
            skill = state.skills[name]
            note = skill.attribute
            if level(name) != skill.rank:
                note += f"; rolls against {level(name)} (the Attribute is higher)"
            skills.append(Line(label=name, value=_rank_text(name, skill.rank), note=note))
        specialisations = tuple(
            Line(label=name, value=_rank_text(name, spec.rank), note=f"of {spec.skill}")
            for name, spec in sorted(state.specialisations.items(), key=lambda kv: -kv[1].rank)
        )
        weaknesses = tuple(
            Line(label=kind.capitalize(), value=text) for kind, text in state.weaknesses.items()
        )
        conditions = tuple(Line(label=c, tone="bad") for c in state.conditions)
        recent: tuple[Line, ...] = ()
        if state.last_roll is not None:
            r = state.last_roll
            against = (
                f" against difficulty {r.difficulty}"
                if r.difficulty is not None
                else f" against {r.opponent_successes}"
                if r.opponent_successes is not None
                else ""
            )
            spent = f"; Effort spent {r.effort_spent}" if r.effort_spent else ""
            recent = (
                Line(
                    label=r.skill,
                    value=r.outcome.replace("_", " "),
                    note=f"{r.successes} successes{against}{spent}",
                    tone="muted",
                ),
            )
        sections = (
            Section(title="Attributes", items=tuple(attributes)),
            Section(title="Effort", items=effort),
            Section(title="Skills", items=tuple(skills)),
            Section(title="Specialisations", items=specialisations),
            Section(
                title="Weaknesses",
                note="Used against you, the opponent rolls 4d10.",
                items=weaknesses,
            ),
            Section(title="Conditions", items=conditions),
            Section(title="Last roll", items=recent),
        )
        kind = " · non-player character" if state.kind == "npc" else ""
        return Sheet(
            title=state.name,
            subtitle=self.name + kind,
            sections=tuple(s for s in sections if s.items),
            as_gm=as_gm,
        )
