"""Character sheets: the TOML format, the creation rules, and the sheet as a person reads it.

The :class:`SheetRules` mixin of :class:`ledger_wyrd_engine.system.WyrdEngine`: creation
(:meth:`~SheetRules.create_sheet`, :meth:`~SheetRules.initial_state`,
:meth:`~SheetRules.npc_sheet`), :meth:`~SheetRules.sheet_view` (JSON) and
:meth:`~SheetRules.sheet_layout` (``campaign sheet``, HTML, the web view).

Source: 000_60e07241544698f0.txt, "Character Creation" (Steps 1–6), "Traits", "Gear as
Traits" (docs/rulings/wyrd-engine.md). A player character has exactly one Great (+3), two Good (+2) and three
Fair (+1) skills, ratings summing to 10, every other skill +0, exactly three traits and three
pieces of gear. Non-player characters (``npc = true``) may have any ratings and any number of
traits ("Non-player characters and monsters can have fewer or far more traits"). The sheet
reads "Skills" (table "Skill Levels in The Wyrd Engine" and the sidebars' ``Great (+3)``
lines), "Damage: Stress and Wounds", "Active Opposition" (boons), "Boosts: Optional Rule for
Increasing Success". The Wyrd Engine has no GM-only facts: both views are the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

import msgspec

from ledger import Line, RuleError, RuleSystem, Section, Sheet, Track, check_sheet, span_words

from .rules import SKILL_LEVELS, level_name, parse_rating, signed
from .state import SEVERITIES, WOUND_CAPACITY, WOUND_PENALTY, Character, Options, Trait, Wound

TEXT_FIELDS = ("concept", "appearance", "personality", "backstory", "notes")
TRAIT_KINDS = ("bonus", "ability", "permission", "substitution")
TRAIT_FIELDS = ("name", "kind", "skill", "instead_of", "once_per", "when", "text")

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
    problems.extend(
        _kind_problems(label, kind, out.get("skill"), out.get("instead_of"), entry.get("once_per"))
    )
    if kind == "ability" and entry.get("once_per") in ("scene", "session"):
        out["once_per"] = entry["once_per"]
    return out


def _kind_problems(
    label: str, kind: str, skill: str | None, instead_of: str | None, once_per: Any
) -> list[str]:
    """What a trait of ``kind`` lacks or must not have ("Traits": a bonus names its skill,
    a substitution the skill used and the one replaced, an ability once per scene or
    session)."""
    problems = []
    if kind == "bonus" and not skill:
        problems.append(f"{label} is a bonus trait: name the skill it gives +2 to (skill = ...)")
    if kind == "substitution" and not (skill and instead_of):
        problems.append(f"{label} is a substitution: give skill (used) and instead_of (replaced)")
    if kind == "ability" and once_per not in ("scene", "session"):
        problems.append(f"{label} is an ability: set once_per to 'scene' or 'session'")
    elif kind != "ability" and once_per is not None:
        problems.append(f"{label}: once_per belongs to ability traits only")
    return problems


def _normal(trait: TraitIn, known: Sequence[str]) -> dict[str, Any]:
    """A trait as the sheet stores it: name and kind, then the fields given, skills in the
    campaign's spelling."""
    out: dict[str, Any] = {"name": trait.name.strip(), "kind": trait.kind}
    out.update({k: getattr(trait, k) for k in ("when", "text") if getattr(trait, k) is not None})
    for key in ("skill", "instead_of"):
        if getattr(trait, key) is not None:
            out[key] = canonical_skill(getattr(trait, key), known)
    if trait.kind == "ability" and trait.once_per is not None:
        out["once_per"] = trait.once_per
    return out


class TraitIn(msgspec.Struct, kw_only=True):
    """One ``[[traits]]`` or ``[[gear]]`` table as written ("Traits", "Gear as Traits");
    what each kind needs is checked by :func:`_kind_problems`."""

    name: Annotated[str, msgspec.Meta(pattern=r"\S", description="a name, not empty")]
    kind: Literal["bonus", "ability", "permission", "substitution"]
    skill: str | None = None
    instead_of: str | None = None
    once_per: Literal["scene", "session"] | None = None
    when: str | None = None
    text: str | None = None


class SheetIn(msgspec.Struct, kw_only=True):
    """A Wyrd Engine sheet as written (:meth:`SheetRules.create_sheet` shows one)."""

    concept: str | None = None
    appearance: str | None = None
    personality: str | None = None
    backstory: str | None = None
    notes: str | None = None
    npc: bool = False
    skills: dict[str, int | str] = {}
    traits: list[TraitIn] = []
    gear: list[TraitIn] = []


#: rating → the Fate-ladder name the worked examples use ("Great (+3)").
LADDER_NAME = {rating: alias for _, rating, alias in SKILL_LEVELS}


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


class SheetRules(RuleSystem[Character, Options]):
    """Creation and the character sheet of the Wyrd Engine (a mixin; reads ``self.options``)."""

    def create_sheet(self, sheet: dict[str, Any]) -> dict[str, Any]:
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

        Skill names matching the ``skill_list`` option case-insensitively take its spelling;
        other names are custom skills (Isadora's Empathy). Zero-rated skills may be listed (the
        sidebars' "Average (+0)" lines). Sources: 000_60e07241544698f0.txt, "Character
        Creation", "Step 2: Choose Skills", "Step 3: Select Traits", "Step 4: Select Gear";
        docs/rulings/wyrd-engine.md, ruling C12.

        :returns: the sheet with ratings as ints, skills in canonical spelling, traits as
            tables.
        :raises RuleError: listing every broken rule (unknown field, bad rating, pyramid counts,
            sum, trait/gear counts, trait shape, duplicate names).
        """
        options = self.options
        skills: dict[str, int] = {}

        def rules(read: SheetIn) -> list[str]:
            problems = []
            for raw_name, raw_value in read.skills.items():
                name = canonical_skill(raw_name, options.skill_list)
                try:
                    rating = parse_rating(raw_value)
                except RuleError as e:
                    problems.append(f"skills.{raw_name}: {e}")
                    continue
                if name.lower() in (s.lower() for s in skills):
                    problems.append(f"skills.{raw_name}: skill {name} is listed twice")
                skills[name] = rating
            if not read.npc:
                for name, rating in skills.items():
                    if not 0 <= rating <= 3:
                        problems.append(
                            f"skills.{name}: skill {name} is {signed(rating)}: at creation "
                            "skills run from +0 to +3"
                        )
                for rating, wanted in PYRAMID.items():
                    have = [n for n, r in skills.items() if r == rating]
                    if len(have) != wanted:
                        listed = f" ({', '.join(have)})" if have else ""
                        problems.append(
                            f"skills: a character has exactly {wanted} {PYRAMID_NAMES[rating]} "
                            f"skill{'s' if wanted > 1 else ''}, not {len(have)}{listed}"
                        )
                if (total := sum(skills.values())) != SKILL_SUM:
                    problems.append(f"skills: skill ratings must sum to {SKILL_SUM}, not {total}")
            seen: set[str] = set()
            for key, count, noun in (("traits", TRAIT_COUNT, "Traits"),
                                     ("gear", GEAR_COUNT, "pieces of gear")):  # fmt: skip
                given = sheet.get(key, [])
                n = len(given) if isinstance(given, list) else 0
                if not read.npc and n != count:
                    problems.append(
                        f"{key}: a player character has exactly {count} {noun}, not {n}"
                    )
                for t in getattr(read, key):
                    label = f"{key}: {t.name.strip()!r}"
                    problems += _kind_problems(label, t.kind, t.skill, t.instead_of, t.once_per)
                    if t.name.strip().lower() in seen:
                        problems.append(f"{label} is used twice among traits and gear")
                    seen.add(t.name.strip().lower())
            return problems

        read = check_sheet(SheetIn, sheet, rules=rules)
        known = [*options.skill_list, *skills]
        out: dict[str, Any] = {"npc": read.npc}
        out.update({k: getattr(read, k) for k in TEXT_FIELDS if getattr(read, k) is not None})
        out["skills"] = skills
        for key in ("traits", "gear"):
            out[key] = [_normal(t, known) for t in getattr(read, key)]
        return out

    def initial_state(self, character: str, name: str, sheet: dict[str, Any]) -> Character:
        """A new character: no stress (``stress_max`` from ``stress_boxes``), no wounds."""
        traits = msgspec.convert(sheet.get("traits", []), tuple[Trait, ...])
        gear = msgspec.convert(sheet.get("gear", []), tuple[Trait, ...])
        return Character(
            id=character,
            name=name,
            npc=bool(sheet.get("npc", False)),
            concept=sheet.get("concept", ""),
            appearance=sheet.get("appearance", ""),
            personality=sheet.get("personality", ""),
            backstory=sheet.get("backstory", ""),
            notes=sheet.get("notes", ""),
            skills=dict(sheet.get("skills", {})),
            traits=traits,
            gear=gear,
            stress_max=self.options.stress_boxes,
        )

    def npc_sheet(self, name: str, skills: dict[str, int]) -> dict[str, Any]:
        """A non-player character: ``npc = true`` and the given ratings; no traits or gear
        needed (000_60e07241544698f0.txt, "Traits": "Non-player characters and monsters
        can have fewer or far more traits"; docs/rulings/wyrd-engine.md)."""
        return {"name": name, "npc": True, "skills": dict(skills)}

    def sheet_view(self, state: Character, *, as_gm: bool) -> dict[str, Any]:
        """The sheet as JSON: skills with level names, traits, gear, stress track, wounds with
        their penalties, capacity left, abilities used, boons, boosts and status flags.
        The Wyrd Engine has no GM-only facts, so both views are the same."""
        wounds: dict[str, Any] = {}
        for severity in SEVERITIES:
            w: Wound | None = state.wounds.get(severity)
            wounds[severity] = None if w is None else {
                "absorbed": w.absorbed,
                "penalty": -WOUND_PENALTY[severity],
                "affects": list(w.affected_skills) or (
                    ["physical actions"] if severity == "severe" else []),
                "description": w.description,
            }  # fmt: skip
        penalties: dict[str, int] = {}
        for taken, wound in state.wounds.items():
            for s in wound.affected_skills:
                penalties[s] = penalties.get(s, 0) - WOUND_PENALTY[taken]
        free = sum(WOUND_CAPACITY[s] for s in SEVERITIES if s not in state.wounds)
        skills = sorted(state.skills.items(), key=lambda kv: (-kv[1], kv[0]))
        return {
            "id": state.id,
            "name": state.name,
            "system": self.id,
            "npc": state.npc,
            **{k: getattr(state, k) for k in (
                "concept", "appearance", "personality", "backstory", "notes")
               if getattr(state, k)},
            "skills": [{"skill": s, "rating": r, "level": level_name(r)} for s, r in skills],
            "traits": [_trait_view(t) for t in state.traits],
            "gear": [_trait_view(t) for t in state.gear],
            "stress": {
                "marked": state.stress,
                "boxes": state.stress_max,
                "track": "".join("[x]" if i < state.stress else "[ ]"
                                 for i in range(state.stress_max)),
            },
            "wounds": wounds,
            "penalties": penalties,
            "severe_physical_penalty": -3 if "severe" in state.wounds else 0,
            "capacity_remaining": state.stress_max - state.stress + free,
            "used_this_scene": list(state.used_this_scene),
            "used_this_session": list(state.used_this_session),
            "boons": [msgspec.to_builtins(b) for b in state.boons],
            "boosts": [msgspec.to_builtins(b) for b in state.boosts],
            "taken_out": state.taken_out,
            "at_risk_of_death": state.at_risk_of_death,
            "dead": state.dead,
            "overflow": state.overflow,
        }  # fmt: skip

    def sheet_layout(self, state: Character, *, as_gm: bool) -> Sheet:
        """The sheet: about, skills in rating order (``Investigate +3 (Great)``, untrained skills
        on one ``Average (+0)`` line), traits and gear by what they do, stress drawn
        ``[x][ ]``, wound slots with the penalty each gives now, boons, boosts and status."""
        physical_skills = tuple(self.options.physical_skills)
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
                Line(
                    label=skill, value=rating_text(0), note=", ".join(penalties[skill]), tone="bad"
                )
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
                    note=f"{effect}; heals after "
                    f"{span_words(self.options.heal_after(severity) - wound.rested)} more of rest",
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

        subtitle = f"{self.name} · non-player character" if state.npc else self.name
        return Sheet(
            title=state.name,
            subtitle=subtitle,
            sections=tuple(s for s in sections if s.items),
            as_gm=as_gm,
        )


def _trait_view(trait: Trait) -> dict[str, Any]:
    """A trait as JSON without its empty fields."""
    return {k: v for k, v in msgspec.to_builtins(trait).items() if v not in (None, "")}
