"""The Wyrd Engine character sheet as a person reads it (``RuleSystem.sheet_layout``).

Source: 000_60e07241544698f0.txt, "Skills" (table "Skill Levels in The Wyrd Engine" and the
sidebars' ``Great (+3)`` lines), "Traits", "Gear as Traits", "Damage: Stress and Wounds",
"Active Opposition" (boons), "Boosts: Optional Rule for Increasing Success". The Wyrd
Engine has no GM-only facts: both views are the same.
"""

from __future__ import annotations

from ledger import Line, Section, Sheet, Track

from .ladder import SKILL_LEVELS
from .state import SEVERITIES, WOUND_CAPACITY, WOUND_PENALTY, Character, Trait

#: rating → the Fate-ladder name the worked examples use ("Great (+3)").
LADDER_NAME = {rating: alias for _, rating, alias in SKILL_LEVELS}
TEXT_FIELDS = ("concept", "appearance", "personality", "backstory", "notes")


def rating_text(rating: int) -> str:
    """``+3 (Great)``, ``+0 (Average)``; beyond the book's ladder just the number."""
    name = LADDER_NAME.get(rating)
    sign = f"+{rating}" if rating >= 0 else f"−{-rating}"
    return f"{sign} ({name})" if name else sign


def _penalties(state: Character, physical: tuple[str, ...]) -> dict[str, list[str]]:
    """skill → what its wounds take from it now (``["−2 Moderate wound"]``)."""
    out: dict[str, list[str]] = {}
    for severity in SEVERITIES:
        wound = state.wounds.get(severity)
        if wound is None:
            continue
        skills = set(wound.affected_skills)
        if severity == "severe":
            skills |= set(physical)
        for skill in skills:
            out.setdefault(skill, []).append(
                f"−{WOUND_PENALTY[severity]} {severity.capitalize()} wound"
            )
    return out


def _trait_line(trait: Trait, used: str | None) -> Line:
    """A trait as the book describes its kind: ``+2 to Crafts``, ``Will instead of
    Athletics``, ``once per session``; its wording (or situation) as the note."""
    if trait.kind == "bonus":
        value = f"+2 to {trait.skill}" if trait.skill else "+2"
    elif trait.kind == "substitution":
        value = f"{trait.skill} instead of {trait.instead_of}"
    elif trait.kind == "ability":
        value = f"once per {trait.once_per}" if trait.once_per else "ability"
    else:
        value = f"permission ({trait.skill})" if trait.skill else "permission"
    note = trait.text or (f"when {trait.when}" if trait.when else "")
    if used:
        return Line(label=trait.name, value=f"used this {used}", note=note, tone="muted")
    return Line(label=trait.name, value=value, note=note)


def sheet_layout(
    state: Character, *, system_name: str, physical_skills: tuple[str, ...], as_gm: bool
) -> Sheet:
    """The sheet: about, skills in rating order (``Investigate +3 (Great)``, untrained skills
    on one ``Average (+0)`` line), traits and gear by what they do, stress drawn
    ``[x][ ]``, wound slots with the penalty each gives now, boons, boosts and status."""
    sections: list[Section] = []

    about = [
        Line(label=key.capitalize(), value=getattr(state, key))
        for key in TEXT_FIELDS
        if getattr(state, key)
    ]
    sections.append(Section(title="Character", items=tuple(about)))

    status: list[Line] = []
    if state.dead:
        status.append(Line(label="Dead", tone="bad"))
    elif state.taken_out:
        status.append(Line(label="Taken out", note="out of the scene", tone="bad"))
    if state.at_risk_of_death and not state.dead:
        status.append(
            Line(
                label="At risk of death",
                note="a Severe wound is taken: more harm can kill",
                tone="bad",
            )
        )
    if status:
        sections.insert(0, Section(title="Status", items=tuple(status)))

    penalties = _penalties(state, physical_skills)
    rated = sorted(
        ((s, r) for s, r in state.skills.items() if r != 0), key=lambda kv: (-kv[1], kv[0])
    )
    skills: list[Line] = []
    for skill, rating in rated:
        hurt = penalties.get(skill)
        skills.append(
            Line(
                label=skill,
                value=rating_text(rating),
                note=", ".join(hurt or ()),
                tone="bad" if hurt else "",
            )
        )
    untrained = sorted(s for s, r in state.skills.items() if r == 0)
    if untrained:
        skills.append(Line(label="Average (+0)", value=", ".join(untrained), tone="muted"))
    # wounds can name skills the sheet does not list (they roll at +0)
    for skill in sorted(set(penalties) - set(state.skills)):
        if skill in physical_skills and set(penalties[skill]) == {"−3 Severe wound"}:
            continue
        skills.append(
            Line(label=skill, value=rating_text(0), note=", ".join(penalties[skill]), tone="bad")
        )
    sections.append(Section(title="Skills", items=tuple(skills)))

    for title, traits in (("Traits", state.traits), ("Gear", state.gear)):
        lines = []
        for trait in traits:
            used = (
                "scene"
                if trait.name in state.used_this_scene
                else "session"
                if trait.name in state.used_this_session
                else None
            )
            lines.append(_trait_line(trait, used))
        sections.append(Section(title=title, items=tuple(lines)))

    free = sum(WOUND_CAPACITY[s] for s in SEVERITIES if s not in state.wounds)
    capacity = state.stress_max - state.stress + free
    harm: list[Track | Line] = [
        Track(
            label="Stress",
            marked=state.stress,
            boxes=state.stress_max,
            note=f"taken out after {capacity} more" if not state.taken_out else "taken out",
        )
    ]
    for severity in SEVERITIES:
        wound = state.wounds.get(severity)
        penalty = WOUND_PENALTY[severity]
        if wound is None:
            harm.append(
                Line(
                    label=f"{severity.capitalize()} wound",
                    value="open",
                    note=f"absorbs {WOUND_CAPACITY[severity]}",
                    tone="muted",
                )
            )
            continue
        affected = list(wound.affected_skills)
        if severity == "severe":
            affected = ["physical actions", *[s for s in affected if s not in physical_skills]]
        effect = f"−{penalty} to {', '.join(affected)}" if affected else f"−{penalty}"
        harm.append(
            Line(
                label=f"{severity.capitalize()} wound",
                value=wound.description or "taken",
                note=effect,
                tone="bad",
            )
        )
    sections.append(Section(title="Stress and wounds", items=tuple(harm)))

    edges: list[Line] = []
    for boon in state.boons:
        edges.append(
            Line(
                label=boon.name,
                value=f"boon +2 to {boon.skill}" if boon.skill else "boon +2",
                note="once, this scene",
                tone="good",
            )
        )
    for boost in state.boosts:
        edges.append(
            Line(
                label=boost.description or "Boost",
                value=f"boost +{boost.value}",
                note="on the next roll it fits",
                tone="good",
            )
        )
    sections.append(Section(title="Boons and boosts", items=tuple(edges)))

    subtitle = f"{system_name} · non-player character" if state.npc else system_name
    return Sheet(
        title=state.name,
        subtitle=subtitle,
        sections=tuple(s for s in sections if s.items),
        as_gm=as_gm,
    )
