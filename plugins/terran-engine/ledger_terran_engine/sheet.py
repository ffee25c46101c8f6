"""The Terran Engine character sheet: creation, and the sheet as a person reads it.

Seed ``003_2aeb47bc6ca82a40.txt``, characters.html "Section 1 Characters" (Name, Archetype,
Attributes rolled 2d keep highest, 4 Skill points, HP and Ego, the optional Advancement);
the sheet's layout ("1.2 Attributes", "1.2.1 Skills", "1.3 HP and Ego": Critically Wounded
−1d, Mortally Wounded −2d to the Light Dice pool, Ego 0: lost; "1.4" Experience,
Advancements, Retire; "1.5 Conditions"; "2.2 Challenges": Disposition, complications;
armour and shields). The Terran Engine has no GM-only facts: both views are the same.

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

from ledger import WEEK, Line, RuleError, RuleSystem, Section, Sheet, Track, span_words

from . import state as st
from .rules import mechanics as m
from .state import Character, Options

SHEET_KEYS = {
    "archetype", "attributes", "skills", "advancements", "armour", "shield", "weapons",
    "attribute_bonus", "legacy_advancements",
}
"""The keys a sheet may hold (besides the core's ``id``, ``name``, ``player``)."""

ARMOUR_WORDS = {
    "light": ("light armour", "−1 damage taken"),
    "heavy": ("heavy armour", "−2 damage taken; −1d to run, observe, sneak and swim"),
}
"""Worn armour as the sheet names it, and what it does ("2.2.1" armour table)."""

#: What a Condition does, in the book's words ("1.5 Conditions"); others carry no rule.
CONDITION_EFFECTS = {
    "Fear-Driven Vigilance": "−1d in fear-related situations",
    "Moral Reservations": "−1d when acting against the moral code",
    "Protective Instinct": "−1d when an ally is in danger",
    "Estranged": "Ego max −1",
    "Slow": "a Challenge's consequences land before your own effects",
}



def _heals(state: Character) -> str:
    """How long the Wound's next step still takes ("1.3.1": "a week of rest", with
    "appropriate care"): ``"recovers after 5 days more of rest with care"``."""
    return f"recovers after {span_words(WEEK - state.wound_rest)} more of rest with care"

class SheetRules(RuleSystem[Character, Options]):
    """Creation by the rules of "Section 1 Characters", and the sheet's two views."""

    def create_sheet(self, sheet: dict[str, Any]) -> dict[str, Any]:
        """Check a sheet against the creation rules and return it normalised.

        Rules (SEED "Section 1"): an Archetype from the list; creation Attributes 0-2 (the
        2d-keep-highest table) for those given; Skills from the list, whole numbers ≥ 0,
        exactly ``skill_points`` (4) in total, or none with ``attributes_only`` and an
        ``attribute_bonus``; at most ``creation_advancements`` (1) Advancements, or up to
        ``legacy_advancements`` for a retired character's successor ("1.4" Retire).

        :raises RuleError: naming every broken rule at once.
        """
        options = self.options
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
                problems.append(
                    "this campaign plays without Skills (attributes_only): remove skills"
                )
            if not isinstance(bonus, str):
                problems.append(
                    "without Skills, choose one Attribute to raise by 1: "
                    'attribute_bonus = "Agility"'
                )
            else:
                bonus = check(m.canonical, bonus, m.ATTRIBUTES, "Attribute")
        else:
            if bonus is not None:
                problems.append(
                    "attribute_bonus is only for the no-Skills variant (attributes_only)"
                )
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

    def initial_state(self, character: str, name: str, sheet: dict[str, Any]) -> Character:
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

    def sheet_view(self, state: Character, *, as_gm: bool) -> dict[str, Any]:
        """The sheet with derived HP_max, Ego_max, effective Attributes and light penalty."""
        return {
            "id": state.id,
            "name": state.name,
            "archetype": state.archetype,
            "evolved": state.narratives[-1] if state.narratives else None,
            "attributes": {a: st.attribute(state, a) for a in m.ATTRIBUTES},
            "skills": dict(state.skills),
            "hp": state.hp,
            "hp_max": st.hp_max(state),
            "ego": state.ego,
            "ego_max": st.ego_max(state),
            "wound": state.wound,
            "light_penalty": m.wound_penalty(state.wound),
            "lost": state.lost,
            "experience": state.experience,
            "ego_lost_this_session": state.ego_lost_session,
            "advancements": list(state.advancements),
            "advancements_to_choose": state.unchosen,
            "advancement_threshold": m.advancement_threshold(st.ego_max(state), st.hp_max(state)),
            "conditions": [
                c.name + (f" ({c.detail})" if c.detail else "") for c in state.conditions
            ],
            "armour": state.armour,
            "shield": state.shield,
            "weapons": dict(state.weapons),
            "challenges": [
                {"name": c.name, "level": m.level_name(c.level), "disposition": c.disposition,
                 "status": c.status, "complication": c.complication, "shared": c.shared}
                for c in state.challenges
            ],
            "attribute_points_to_lose": state.pending_loss,
            "rallied": state.rallied,
            "retired": st.retired(state),
            "successor_advancements": state.successor_advancements,
        }

    def sheet_layout(self, state: Character, *, as_gm: bool) -> Sheet:
        """The sheet in the book's words: what stops the character first (wounds, lost,
        retired, choices owed), HP and Ego drawn as boxes, Attributes, Skills by rating,
        Advancements, Conditions, Experience toward the next Advancement roll, gear and open
        Challenges. No GM-only facts."""
        sections: list[Section] = []
        hp_max, ego_max = st.hp_max(state), st.ego_max(state)

        status: list[Line] = []
        if state.wound == "dead":
            status.append(Line(label="Dead", tone="bad"))
        elif state.wound == "critical":
            status.append(
                Line(
                    label="Critically Wounded",
                    note="−1d to every Light Dice pool; " + _heals(state),
                    tone="bad",
                )
            )
        elif state.wound == "mortal":
            status.append(
                Line(
                    label="Mortally Wounded",
                    note="unconscious; −2d to every Light Dice pool; " + _heals(state),
                    tone="bad",
                )
            )
        if state.lost:
            status.append(Line(label="Lost", note="Ego reached 0", tone="bad"))
        if st.retired(state):
            status.append(Line(label="Retired", note="the story ends", tone="muted"))
        if state.pending_loss:
            status.append(
                Line(
                    label="Attribute points to lose",
                    value=str(state.pending_loss),
                    note="a Mortal Wound: the player chooses the Attribute",
                    tone="bad",
                )
            )
        if state.unchosen:
            status.append(
                Line(label="Advancements to choose", value=str(state.unchosen), tone="good")
            )
        if state.rallied:
            status.append(Line(label="Rallied", note="+1d until the end of the scene", tone="good"))
        sections.append(Section(title="Status", items=tuple(status)))

        sections.append(
            Section(
                title="HP and Ego",
                note="Each Dark Die showing your Ego or less costs 1 Ego.",
                items=(
                    Track(
                        label="HP", marked=state.hp, boxes=hp_max, note=f"{state.hp} of {hp_max}"
                    ),
                    Track(
                        label="Ego",
                        marked=state.ego,
                        boxes=ego_max,
                        note=f"{state.ego} of {ego_max}",
                    ),
                ),
            )
        )

        attributes = tuple(
            Line(label=a, value=str(st.attribute(state, a)))
            for a in m.ATTRIBUTES
            if st.attribute(state, a) is not None
        )
        sections.append(Section(title="Attributes", items=attributes))

        skills = sorted(state.skills.items(), key=lambda kv: (-kv[1], kv[0]))
        sections.append(
            Section(title="Skills", items=tuple(Line(label=s, value=str(r)) for s, r in skills))
        )

        advancements = tuple(
            Line(label=st.advancement_name(a), value=st.advancement_detail(a))
            for a in state.advancements
        )
        sections.append(Section(title="Advancements", items=advancements))

        conditions = []
        for c in state.conditions:
            if c.focus:
                effect = f"+1d to {c.focus}"
                if c.neglected:
                    effect += f"; −1d to {', '.join(c.neglected)}"
            else:
                effect = CONDITION_EFFECTS.get(c.name, "")
            conditions.append(Line(label=c.name, value=c.detail, note=effect))
        sections.append(Section(title="Conditions", items=tuple(conditions)))

        threshold = m.advancement_threshold(ego_max, hp_max)
        growth = [
            Line(
                label="Experience",
                value=str(state.experience),
                note=f"an Advancement roll must reach {threshold}",
            ),
        ]
        if state.ego_lost_session:
            growth.append(
                Line(
                    label="Ego lost this session",
                    value=str(state.ego_lost_session),
                    note="becomes Experience when the session ends",
                )
            )
        if state.successor_advancements:
            growth.append(
                Line(label="Successor's Advancements", value=str(state.successor_advancements))
            )
        sections.append(Section(title="Experience", items=tuple(growth)))

        gear: list[Line] = []
        if state.armour in ARMOUR_WORDS:
            name, effect = ARMOUR_WORDS[state.armour]
            gear.append(Line(label=name.capitalize(), note=effect))
        if state.shield:
            gear.append(Line(label="Shield", note="−1 damage taken"))
        for weapon, dice in state.weapons.items():
            gear.append(Line(label=weapon.capitalize(), value=f"damage {dice}"))
        sections.append(Section(title="Gear", items=tuple(gear)))

        challenges = []
        for ch in state.challenges:
            if ch.status != "open":
                continue
            note = (
                f"complication −{ch.complication}d on the next related Risky Action"
                if ch.complication
                else ""
            )
            if ch.shared:
                note = "shared by the group" + (f"; {note}" if note else "")
            challenges.append(
                Line(
                    label=ch.name,
                    value=f"{m.level_name(ch.level)}, Disposition {ch.disposition}",
                    note=note,
                )
            )
        sections.append(Section(title="Challenges", items=tuple(challenges)))

        return Sheet(
            title=state.name,
            subtitle=f"{self.name} · {state.archetype}"
            + (f", evolved beyond it: {state.narratives[-1]}" if state.narratives else ""),
            sections=tuple(s for s in sections if s.items),
            as_gm=as_gm,
        )
