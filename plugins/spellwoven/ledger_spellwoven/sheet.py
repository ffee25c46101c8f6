"""Spellwoven character sheets: creation, the sheet as JSON and as a person reads it (seed
004_663ae3e4ecc71fd1.txt).

:class:`SheetRules` checks a sheet against the creation rules
(:meth:`SheetRules.create_sheet`), builds a new character's state from it, and lays the
sheet out: Attributes as boxes with the difficulty they give attackers, Effort, skills in
the book's notation.

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

from collections.abc import Iterable, Iterator
from typing import Annotated, Any, Literal

import msgspec

from ledger import Line, RuleSystem, Section, Sheet, Track, check_sheet, name_in

from .rules.mechanics import (
    ATTRIBUTE_MAX,
    ATTRIBUTE_MIN,
    ATTRIBUTES,
    boxes,
    did_you_mean,
    difficulty_from_attribute,
    notation,
    skill_level,
)
from .state import Character, Options, Skill

Text = Annotated[str, msgspec.Meta(min_length=1)]
Described = Annotated[str, msgspec.Meta(pattern=r"\S", description="a description, not empty")]


class SkillIn(msgspec.Struct, kw_only=True):
    """A skill as written: ``Sprint = { rank = 5, attribute = "Quickness" }`` ("Each Skill
    is linked to an Attribute")."""

    rank: int
    attribute: Annotated[str, msgspec.Meta(description=f"one of {', '.join(ATTRIBUTES)}")]


class SpecialisationIn(msgspec.Struct, kw_only=True):
    """A specialisation as written: ``Brawling = { rank = 5, skill = "Fighting" }``."""

    rank: int
    skill: Text


class WeaknessesIn(msgspec.Struct, frozen=True, kw_only=True):
    """``[weaknesses]``: a PC's one Combat and one Social Weakness ("Weaknesses")."""

    combat: Described | None = None
    social: Described | None = None


class SheetIn(msgspec.Struct, kw_only=True):
    """A Spellwoven sheet as written (the module's docstring shows one). The ranks' bounds
    (a PC's from the campaign's options, an NPC's 1 or more), the skills' Attributes, the
    specialisations' parent skills and the Effort pool are checked by
    :meth:`SheetRules.create_sheet`.
    """

    kind: Literal["pc", "npc"] = "pc"
    attributes: Annotated[
        dict[str, Annotated[int, msgspec.Meta(ge=ATTRIBUTE_MIN, le=ATTRIBUTE_MAX)]],
        msgspec.Meta(
            description="an [attributes] table with Behest, Fortitude, Presence, "
            "Quickness and Wits, each 1 to 4"
        ),
    ]
    skills: dict[str, SkillIn] = {}
    specialisations: dict[str, SpecialisationIn] = {}
    weaknesses: WeaknessesIn = WeaknessesIn()
    effort_max: Annotated[int, msgspec.Meta(ge=0)] | None = None
    effort: Annotated[int, msgspec.Meta(ge=0)] | None = None
    conditions: list[str] = []


def effort_pool(attributes: dict[str, int], options: Options, sheet_max: int | None) -> int:
    """The Effort pool: the sheet's ``effort_max``, else the campaign option, else Fortitude
    (ruling S6: "a pool representing your state of exhaustion"; 004_663ae3e4ecc71fd1.txt,
    "Attributes and Effort")."""
    if sheet_max is not None:
        return sheet_max
    if options.effort_max is not None:
        return options.effort_max
    return attributes.get("Fortitude", 0)


#: What a Weakness does, under the sheet's Weaknesses ("Weaknesses").
WEAKNESS_NOTE = "Used against you, the opponent rolls 4d10."


def _rank_text(name: str, rank: int) -> str:
    """The book's notation without the name: ``4``, ``12 (4/9)``."""
    return notation(name, rank).split(": ", 1)[1]


def _level(state: Character, skill: Skill) -> int:
    return skill_level(skill.rank, state.attributes[skill.attribute])


class SheetRules(RuleSystem[Character, Options]):
    """Creation and the sheet of a Spellwoven character (004_663ae3e4ecc71fd1.txt,
    "Attributes and Effort", "Static Difficulty from Attributes", "Skill level 10+",
    "Weaknesses"). Nothing in Spellwoven is GM-only: both views are the same."""

    def create_sheet(self, sheet: dict[str, Any]) -> dict[str, Any]:
        """Check a character sheet against the creation rules and return it normalised.

        Rules (docs/rulings/spellwoven.md, ruling S1, S3): the five Attributes, each 1..4
        ("rated on a scale of 1 to 4"); every skill has a rank and an Attribute among the
        five; a PC's skill ranks are ``pc_skill_min``..``pc_skill_max`` (4..9: "trained
        Skills start at a level of 4", "Skills cannot exceed 9"); an NPC's any rank from 1
        (the housewife's Fighting is 2); specialisations name a skill of the sheet; a PC has
        exactly one Combat and one Social Weakness ("Weaknesses"); ``effort`` is
        0..``effort_max``.

        Returns ``{"kind", "attributes", "skills", "specialisations", "weaknesses",
        "conditions", "effort_max"?, "effort"?}`` with canonical Attribute names; refuses every
        broken rule at once, each led by its TOML path (:func:`ledger.check_sheet`).

        (004_663ae3e4ecc71fd1.txt, "Attributes and Effort", "Overview: The Basic Mechanic",
        "Weaknesses", "Static Difficulty from Attributes")
        """
        options = self.options
        given = sheet.get("attributes")
        raw: dict[str, Any] = given if isinstance(given, dict) else {}
        attributes: dict[str, int] = {}
        skills: dict[str, dict[str, Any]] = {}
        specialisations: dict[str, dict[str, Any]] = {}

        def attribute(name: str, where: str) -> Iterator[str]:
            if name_in(name, ATTRIBUTES) is None:
                yield (
                    f"{where}: {name!r} is not an Attribute; use one of {', '.join(ATTRIBUTES)}"
                    + did_you_mean(name, ATTRIBUTES)
                )

        def rules(read: SheetIn) -> Iterator[str]:
            for key, value in read.attributes.items():
                yield from attribute(key, f"attributes.{key}")
                attributes[name_in(key, ATTRIBUTES) or key] = value
            missing = [a for a in ATTRIBUTES if name_in(a, [str(k) for k in raw]) is None]
            if raw and missing:
                yield f"attributes: missing {', '.join(missing)} (each 1 to 4)"
            npc = read.kind == "npc"
            low, high = (1, None) if npc else (options.pc_skill_min, options.pc_skill_max)
            bounds = f"{low} to {high}" if high is not None else f"{low} or more"
            for name, skill in read.skills.items():
                problems = list(attribute(skill.attribute, f"skills.{name}.attribute"))
                if not low <= skill.rank <= (high or skill.rank):
                    who = "an NPC's" if npc else "a PC's trained"
                    problems.append(
                        f"skills.{name}.rank: {who} rank must be {bounds}, not {skill.rank}"
                    )
                elif name_in(name, ATTRIBUTES):
                    problems.append(
                        f"skills.{name}: {name!r} is an Attribute's name; rename the skill"
                    )
                yield from problems
                if not problems:
                    linked = name_in(skill.attribute, ATTRIBUTES)
                    skills[name] = {"rank": skill.rank, "attribute": linked}
            for name, spec in read.specialisations.items():
                parent = name_in(spec.skill, skills)
                if parent is None:
                    yield (
                        f"specialisations.{name}.skill: {spec.skill!r} is not a skill on the "
                        f"sheet{did_you_mean(spec.skill, skills)}"
                    )
                elif not 1 <= spec.rank <= (high or spec.rank):
                    yield f"specialisations.{name}.rank: rank must be {bounds.replace(str(low), '1', 1)}, not {spec.rank}"
                elif name in skills:
                    yield f"specialisations.{name}: it has the name of a skill; rename it"
                else:
                    specialisations[name] = {"rank": spec.rank, "skill": parent}
            if not npc and options.require_weaknesses:
                written = sheet.get("weaknesses")
                written = written if isinstance(written, dict) else {}  # else named by its type
                for key in ("combat", "social"):
                    if getattr(read.weaknesses, key) is None and key not in written:
                        yield (
                            f"weaknesses.{key}: missing: a PC starts with one Combat and one "
                            f'Social Weakness: add [weaknesses] {key} = "..."'
                        )
            pool = effort_pool(attributes, options, read.effort_max)
            if read.effort is not None and read.effort > pool:
                yield f"effort: expected an integer from 0 to the Effort pool {pool}, got {read.effort}"

        read = check_sheet(SheetIn, sheet, rules=rules)
        given = [k for k in (sheet.get("weaknesses") or {}) if k in ("combat", "social")]
        result: dict[str, Any] = {
            "kind": read.kind,
            "attributes": attributes,
            "skills": skills,
            "specialisations": specialisations,
            "weaknesses": {k: getattr(read.weaknesses, k).strip() for k in given},
            "conditions": list(read.conditions),
        }
        return result | {
            k: v for k in ("effort_max", "effort") if (v := getattr(read, k)) is not None
        }

    def initial_state(self, character: str, name: str, sheet: dict[str, Any]) -> Character:
        """A new character, Effort full unless the sheet says otherwise (ruling S6;
        004_663ae3e4ecc71fd1.txt, "Attributes and Effort"). The sheet is checked again, so
        a stored sheet that no longer fits the campaign's options is refused."""
        valid = self.create_sheet(sheet)
        pool = effort_pool(valid["attributes"], self.options, valid.get("effort_max"))
        fields = {"id": character, "name": name, "effort": pool, **valid, "effort_max": pool}
        return msgspec.convert(fields, Character)

    def skills_of(self, state: Character) -> Iterable[str]:
        """Skills, specialisations and the five Attributes (all can be tested;
        004_663ae3e4ecc71fd1.txt, "Test of Skill")."""
        return [*state.skills, *state.specialisations, *ATTRIBUTES]

    def sheet_view(self, state: Character, *, as_gm: bool) -> dict[str, Any]:
        """The sheet as JSON: Attributes with boxes and the difficulty they give attackers
        (Attribute − 1; Evasion = Quickness − 1), skills with their Skill Level and sheet
        notation ("Skill: 12 (4/9)"), specialisations, Weaknesses, Effort, conditions and the
        latest roll.

        (004_663ae3e4ecc71fd1.txt, "Attributes and Effort", "Static Difficulty from
        Attributes", "Skill level 10+", "Weaknesses")
        """
        view = msgspec.to_builtins(state)
        view["attributes"] = {
            name: {
                "value": value,
                "boxes": boxes(value),
                "difficulty_to_hit": difficulty_from_attribute(value),
            }
            for name, value in state.attributes.items()
        }
        for name, skill in state.skills.items():
            view["skills"][name] |= {
                "skill_level": _level(state, skill),
                "notation": notation(name, skill.rank),
            }
        for name, spec in state.specialisations.items():
            view["specialisations"][name]["notation"] = notation(name, spec.rank)
        head = {key: view.pop(key) for key in ("id", "name", "kind", "attributes")}
        return {**head, "evasion": difficulty_from_attribute(state.attributes["Quickness"]), **view}

    def sheet_layout(self, state: Character, *, as_gm: bool) -> Sheet:
        """The sheet in the book's words: Attributes drawn as boxes with the difficulty they
        give attackers, Effort, skills by Skill Level in the book's notation,
        specialisations, Weaknesses, conditions and the latest roll (what spending Effort can
        still change).

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
        skills = []
        for name, skill in sorted(
            state.skills.items(), key=lambda kv: (-_level(state, kv[1]), kv[0])
        ):
            note = skill.attribute
            if _level(state, skill) != skill.rank:
                note += f"; rolls against {_level(state, skill)} (the Attribute is higher)"
            skills.append(Line(label=name, value=_rank_text(name, skill.rank), note=note))
        specialisations = [
            Line(label=name, value=_rank_text(name, spec.rank), note=f"of {spec.skill}")
            for name, spec in sorted(state.specialisations.items(), key=lambda kv: -kv[1].rank)
        ]
        recent = []
        if (r := state.last_roll) is not None:
            against = (
                f" against difficulty {r.difficulty}"
                if r.difficulty is not None
                else f" against {r.opponent_successes}"
                if r.opponent_successes is not None
                else ""
            )
            spent = f"; Effort spent {r.effort_spent}" if r.effort_spent else ""
            note = f"{r.successes} successes{against}{spent}"
            recent.append(
                Line(label=r.skill, value=r.outcome.replace("_", " "), note=note, tone="muted")
            )
        refresh = "a night's sleep refreshes it"
        effort = Track(label="Effort", marked=state.effort, boxes=state.effort_max, note=refresh)
        weaknesses = [Line(label=k.capitalize(), value=v) for k, v in state.weaknesses.items()]
        conditions = [Line(label=c, tone="bad") for c in state.conditions]
        sections = (
            Section(title="Attributes", items=tuple(attributes)),
            Section(title="Effort", items=(effort,)),
            Section(title="Skills", items=tuple(skills)),
            Section(title="Specialisations", items=tuple(specialisations)),
            Section(title="Weaknesses", note=WEAKNESS_NOTE, items=tuple(weaknesses)),
            Section(title="Conditions", items=tuple(conditions)),
            Section(title="Last roll", items=tuple(recent)),
        )
        kind = " · non-player character" if state.kind == "npc" else ""
        return Sheet(
            title=state.name,
            subtitle=self.name + kind,
            sections=tuple(s for s in sections if s.items),
            as_gm=as_gm,
        )
