"""A Spellwoven character sheet as a person reads it (``RuleSystem.sheet_layout``).

Source: 004_663ae3e4ecc71fd1.txt, "Attributes and Effort" (Attributes 1..4 drawn as boxes,
Effort refreshed by a night's sleep), "Static Difficulty from Attributes" (difficulty to
hit = Attribute − 1; Evasion from Quickness), "Test of Skill" (the Skill Level is the rank
or the linked Attribute, whichever is higher), "Skill level 10+" (the sheet notation
``Skill: 12 (4/9)``), "Weaknesses" (used against you, the opponent rolls 4d10). Nothing in
Spellwoven is GM-only: both views are the same.
"""

from __future__ import annotations

from ledger import Line, Section, Sheet, Track

from .mechanics import ATTRIBUTE_MAX, difficulty_from_attribute, notation, skill_level
from .sheet import Character


def _rank_text(name: str, rank: int) -> str:
    """The book's notation without the name: ``4``, ``12 (4/9)``."""
    return notation(name, rank).split(": ", 1)[1]


def sheet_layout(state: Character, *, system_name: str, as_gm: bool) -> Sheet:
    """The sheet: Attributes drawn as boxes with the difficulty they give attackers, Effort,
    skills by Skill Level in the book's notation, specialisations, Weaknesses, conditions and
    the latest roll (what spending Effort can still change)."""
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
            title="Weaknesses", note="Used against you, the opponent rolls 4d10.", items=weaknesses
        ),
        Section(title="Conditions", items=conditions),
        Section(title="Last roll", items=recent),
    )
    kind = " · non-player character" if state.kind == "npc" else ""
    return Sheet(
        title=state.name,
        subtitle=system_name + kind,
        sections=tuple(s for s in sections if s.items),
        as_gm=as_gm,
    )
