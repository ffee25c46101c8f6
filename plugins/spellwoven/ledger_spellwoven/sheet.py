"""Spellwoven character sheets, state and campaign options (seed 004_663ae3e4ecc71fd1.txt).

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

import difflib
from typing import Any, Literal

import msgspec

from ledger import RuleError

from .mechanics import ATTRIBUTE_MAX, ATTRIBUTE_MIN, ATTRIBUTES


class Options(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Campaign options of Spellwoven; every field has the digest's ruling as default.

    :ivar untrained: Skill Level of an untrained test (ruling S2): ``"max3attr"`` =
        max(3, Attribute), ``"fixed3"`` = 3, ``"attribute"`` = the Attribute.
    :ivar effort_max: the Effort pool of every character; ``None`` = their Fortitude
        (ruling S6). A sheet's own ``effort_max`` wins.
    :ivar max_effort_per_roll: Effort points that may be spent on one roll (ruling S6), >= 1.
    :ivar pc_skill_min: lowest rank of a PC's trained skill at creation ("trained Skills
        start at a level of 4").
    :ivar pc_skill_max: highest rank of a PC's skill at creation ("Skills cannot exceed 9";
        ruling S1).
    :ivar skill_cap_in_play: highest rank a skill may reach in play; ``None`` = no cap, the
        10+ table applies (ruling S1).
    :ivar default_difficulty: successes required when a test names no difficulty ("one
        success needed for most tasks"), 1..4.
    :ivar require_weaknesses: a PC must have exactly one Combat and one Social Weakness
        ("Characters start play with one Combat Weakness and one Social Weakness").
    """

    untrained: Literal["max3attr", "fixed3", "attribute"] = "max3attr"
    effort_max: int | None = None
    max_effort_per_roll: int = 1
    pc_skill_min: int = 4
    pc_skill_max: int = 9
    skill_cap_in_play: int | None = None
    default_difficulty: int = 1
    require_weaknesses: bool = True


class Skill(msgspec.Struct, frozen=True, kw_only=True):
    """A skill: its rank (1 or more) and the Attribute it is linked to ("Each Skill is
    linked to an Attribute"; 004_663ae3e4ecc71fd1.txt, "Attributes and Effort")."""

    rank: int
    attribute: str


class Specialisation(msgspec.Struct, frozen=True, kw_only=True):
    """A specialisation of a parent skill with its own rank, used instead of the parent when
    it applies (ruling S3; the text only names Brawling and One-Handed Bludgeon under
    Fighting, 004_663ae3e4ecc71fd1.txt, "Example: Opposed Roll")."""

    rank: int
    skill: str


class LastRoll(msgspec.Struct, frozen=True, kw_only=True):
    """The character's latest roll, kept so Effort spent after it can re-judge it.

    ``difficulty`` is set for a Test of Skill, ``opponent_successes`` for a Contest; ``seq``
    is the roll's seq (:func:`ledger.projection.applying_seq`; ``None`` when unknown).
    """

    skill: str
    attribute: str
    successes: int
    effort_spent: int
    outcome: str
    difficulty: int | None = None
    opponent_successes: int | None = None
    automatic: bool = False
    seq: int | None = None


class Character(msgspec.Struct, frozen=True, kw_only=True):
    """One Spellwoven character's state (digest §3).

    :ivar attributes: the five Attributes, 1..4.
    :ivar skills: name → :class:`Skill`.
    :ivar specialisations: name → :class:`Specialisation`.
    :ivar weaknesses: ``{"combat": ..., "social": ...}`` (an NPC may have none).
    :ivar effort: current Effort, 0..effort_max.
    :ivar effort_max: the Effort pool.
    :ivar conditions: narrated lasting conditions.
    :ivar last_roll: the latest roll (cleared at the end of a scene or session).
    :ivar scene_rolls: the rolls of the scene, each with its ``seq``, which Effort spent
        on roll N finds (``record effort-spent --roll N``; cleared with ``last_roll``).
    """

    id: str
    name: str
    kind: Literal["pc", "npc"] = "pc"
    attributes: dict[str, int]
    skills: dict[str, Skill] = {}
    specialisations: dict[str, Specialisation] = {}
    weaknesses: dict[str, str] = {}
    effort: int
    effort_max: int
    conditions: list[str] = []
    last_roll: LastRoll | None = None
    scene_rolls: list[LastRoll] = []


def find_name(name: str, names: list[str]) -> str | None:
    """The entry of ``names`` equal to ``name`` ignoring case, else ``None``."""
    folded = name.casefold()
    return next((n for n in names if n.casefold() == folded), None)


def did_you_mean(name: str, names: list[str]) -> str:
    """`` (did you mean X?)`` for the closest of ``names``, or ``""``."""
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    if not close:
        folded = {n.casefold(): n for n in names}
        close = [folded[c] for c in difflib.get_close_matches(name.casefold(), list(folded), n=1)]
    return f" (did you mean {close[0]}?)" if close else ""


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

    Rules (digest §3, ruling S1, S3): the five Attributes, each 1..4 ("rated on a scale of
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


def check_rank(rank: int, options: Options, skill: str) -> None:
    """Refuse a rank in play below 1 or above ``skill_cap_in_play`` (ruling S1).

    :raises RuleError: naming the skill, the rank and the limit.
    """
    if rank < 1:
        raise RuleError(f"{skill}: a rank must be 1 or more, not {rank}")
    cap = options.skill_cap_in_play
    if cap is not None and rank > cap:
        raise RuleError(f"{skill}: this campaign caps skills at {cap} in play, not {rank}")
