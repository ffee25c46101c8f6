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

from typing import Annotated, Any, Literal

import msgspec

from ledger import WEEK, Line, RuleError, RuleSystem, Section, Sheet, Track, check_sheet, span_words

from . import state as st
from .rules import mechanics as m
from .state import Character, Options

Whole = Annotated[int, msgspec.Meta(ge=0)]


class SheetIn(msgspec.Struct, kw_only=True):
    """A sheet as written (the module's docstring shows one): shapes and ranges here; the
    names (Archetypes, Skills, Attributes, Advancements) and the points are the campaign's,
    checked by :meth:`SheetRules.create_sheet`."""

    archetype: Annotated[str, msgspec.Meta(pattern=r"\S", description="an Archetype's name")]
    attributes: dict[
        str,
        Annotated[
            int,
            msgspec.Meta(
                ge=0,
                le=2,
                description=(
                    "0, 1 or 2, from the creation roll (highest of 2d6: 1-3 → 0, 4-5 → 1, 6 → 2)"
                ),
            ),
        ],
    ] = {}
    skills: dict[str, Whole] = {}
    advancements: list[str] = []
    armour: Literal["none", "light", "heavy"] = "none"
    shield: bool = False
    weapons: dict[str, str] = {}
    attribute_bonus: str | None = None
    legacy_advancements: Whole = 0


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

        def check(where: str, fn: Any, *args: Any) -> Any:
            try:
                return fn(*args)
            except RuleError as e:
                problems.extend(f"{where}: {p}" for p in e.problems)
                return None

        def rules(read: SheetIn) -> list[str]:
            check("archetype", m.canonical, read.archetype, options.archetype_names(), "Archetype")
            for key in read.attributes:
                check(f"attributes.{key}", m.canonical, key, m.ATTRIBUTES, "Attribute")
            for key in read.skills:
                check(f"skills.{key}", m.canonical, key, options.skill_names(), "Skill")
            for i, entry in enumerate(read.advancements, start=1):
                check(f"advancements[{i}]", st.known_advancement, entry, options)
            for key, code in read.weapons.items():
                check(f"weapons.{key}", m.parse_effect, code)
            bonus = read.attribute_bonus
            if options.attributes_only:
                if skills_of(read):
                    problems.append(
                        "skills: this campaign plays without Skills (attributes_only): remove them"
                    )
                if bonus is None:
                    problems.append(
                        "attribute_bonus: missing: without Skills, choose one Attribute to "
                        'raise by 1 (attribute_bonus = "Agility")'
                    )
                else:
                    check("attribute_bonus", m.canonical, bonus, m.ATTRIBUTES, "Attribute")
            elif bonus is not None:
                problems.append("attribute_bonus: only for the no-Skills variant (attributes_only)")
            elif (total := sum(skills_of(read).values())) != options.skill_points:
                problems.append(
                    f"skills: Skills total {total} points; spend exactly {options.skill_points}"
                )
            legacy = read.legacy_advancements
            allowed = legacy if legacy else options.creation_advancements
            if len(read.advancements) > allowed:
                why = "the retired character's half, rounded up" if legacy else "the optional one"
                problems.append(
                    f"advancements: {len(read.advancements)} Advancements at creation; "
                    f"at most {allowed} ({why})"
                )
            if "Retire" in advancements_of(read):
                problems.append("advancements: Retire cannot be taken at creation")
            return problems

        def names(keys: Any, choices: Any, what: str) -> dict[str, str]:
            out = {}
            for key in keys:
                try:
                    out[key] = m.canonical(key, choices, what)
                except RuleError:
                    pass
            return out

        def skills_of(read: SheetIn) -> dict[str, int]:
            named = names(read.skills, options.skill_names(), "Skill")
            return {named[k]: v for k, v in read.skills.items() if k in named and v}

        def advancements_of(read: SheetIn) -> list[str]:
            out = []
            for entry in read.advancements:
                try:
                    out.append(st.known_advancement(entry, options))
                except RuleError:
                    pass
            return out

        read = check_sheet(SheetIn, sheet, rules=rules)
        attributes = names(read.attributes, m.ATTRIBUTES, "Attribute")
        out: dict[str, Any] = {
            "archetype": m.canonical(read.archetype, options.archetype_names(), "Archetype"),
            "attributes": {attributes[k]: v for k, v in read.attributes.items()},
            "skills": skills_of(read),
            "advancements": advancements_of(read),
            "armour": read.armour,
            "shield": read.shield,
            "weapons": {k: str(m.parse_effect(v)) for k, v in read.weapons.items()},
        }
        if read.attribute_bonus is not None and options.attributes_only:
            out["attribute_bonus"] = m.canonical(read.attribute_bonus, m.ATTRIBUTES, "Attribute")
        if read.legacy_advancements:
            out["legacy_advancements"] = read.legacy_advancements
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
                {
                    "name": c.name,
                    "level": m.level_name(c.level),
                    "disposition": c.disposition,
                    "status": c.status,
                    "complication": c.complication,
                    "shared": c.shared,
                }
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
