"""Campaign options and one character's projected state (frozen msgspec Structs).

Source: 000_60e07241544698f0.txt, "Character Creation" (skills, traits, gear, stress and
wounds), "Damage: Stress and Wounds", "Active Opposition" (boons), "Boosts: Optional Rule
for Increasing Success"; docs/rulings/wyrd-engine.md
"""

from __future__ import annotations

from typing import Literal

import msgspec

#: The 16 skills of the sidebar "Skills in The Grand Casebook" (000_60e07241544698f0.txt).
CASEBOOK_SKILLS: tuple[str, ...] = (
    "Investigate", "Lore", "Notice",
    "Rapport", "Deceive", "Provoke", "Contacts",
    "Athletics", "Stealth", "Fight", "Shoot",
    "Will", "Physique",
    "Burglary", "Resources", "Crafts",
)  # fmt: skip

#: Skills whose rolls are "physical actions" for the Severe wound penalty (docs/rulings/wyrd-engine.md ruling).
PHYSICAL_SKILLS: tuple[str, ...] = ("Athletics", "Fight", "Shoot", "Stealth", "Physique")

TraitKind = Literal["bonus", "ability", "permission", "substitution"]
Severity = Literal["mild", "moderate", "severe"]

#: Capacity of each wound slot in stress-box units ("Damage: Stress and Wounds").
WOUND_CAPACITY: dict[str, int] = {"mild": 1, "moderate": 2, "severe": 3}
#: Skill penalty of each wound ("Damage: Stress and Wounds", wound table).
WOUND_PENALTY: dict[str, int] = {"mild": 1, "moderate": 2, "severe": 3}
SEVERITIES: tuple[Severity, ...] = ("mild", "moderate", "severe")


class Options(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Campaign options of the Wyrd Engine (``campaign new --option KEY=VALUE``).

    :ivar stress_boxes: stress boxes per character: 5 ("Damage: Stress and Wounds") or 3
        ("Step 5: Define Stress and Consequences"); ruling C2. Range 1…10.
    :ivar damage_ratio: damage per stress/wound unit: 1 (deadly), 2 or 3 (swashbuckling)
        ("Attacking and Defending"). Range 1…3.
    :ivar damage_rounding: ``"ceil"`` (a landed hit always marks a unit) or ``"floor"``
        (ruling C5).
    :ivar dr_comparison: ``">="`` (meets or exceeds, ruling C1) or ``">"``; the DR ladder
        moves with it so named DRs keep their odds.
    :ivar minor_cost_margins: positive margins that give band ``success_at_cost``
        (ruling C6; ``[1]`` reproduces Felix's "Success with a Minor Cost").
    :ivar death_risk_trigger: when a character is at risk of death (ruling C8):
        ``"wound_damage"`` (Severe already taken and new damage spills past stress),
        ``"any_damage"`` (Severe already taken and any new damage), ``"taken_out_only"``
        (Severe already taken and the character is taken out).
    :ivar skill_list: the setting's skills; a listed skill a character does not have rolls
        at 0 ("Skills": default modifier of 0); sheets may add custom skills.
    :ivar physical_skills: skills whose rolls suffer the Severe wound's −3.
    """

    stress_boxes: int = 5
    damage_ratio: int = 1
    damage_rounding: Literal["ceil", "floor"] = "ceil"
    dr_comparison: Literal[">=", ">"] = ">="
    minor_cost_margins: list[int] = []
    death_risk_trigger: Literal["wound_damage", "any_damage", "taken_out_only"] = "wound_damage"
    skill_list: list[str] = msgspec.field(default_factory=lambda: list(CASEBOOK_SKILLS))
    physical_skills: list[str] = msgspec.field(default_factory=lambda: list(PHYSICAL_SKILLS))
    #: rest that heals a wound by itself ("Healing and Recovery": Mild "a short rest (a few
    #: hours)", Moderate "days of rest", Severe "weeks of rest"; the text gives no number:
    #: ruling W-T1), ``{severity: minutes}``; unset (not stored, so campaigns made
    #: in an earlier release keep their bytes) means 3 hours, 3 days and 3 weeks
    rest_to_heal: dict[str, int] | msgspec.UnsetType = msgspec.UNSET

    def heal_after(self, severity: str) -> int:
        """Minutes of rest that heal a wound of ``severity`` (:attr:`rest_to_heal`)."""
        given = {} if self.rest_to_heal is msgspec.UNSET else self.rest_to_heal
        return given.get(severity, REST_TO_HEAL[severity])


class Trait(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A character trait or a piece of gear's trait ("Traits", "Gear as Traits"; docs/rulings/wyrd-engine.md).

    :ivar name: the trait's name, e.g. ``"Master Tinkerer"``.
    :ivar kind: ``bonus`` (+2 to ``skill`` when ``when`` applies), ``ability`` (special effect
        ``once_per`` scene or session), ``permission`` (may attempt what others cannot), or
        ``substitution`` (roll ``skill`` instead of ``instead_of``).
    :ivar skill: the skill a bonus/substitution/permission concerns (``None`` for any).
    :ivar instead_of: substitution only: the skill replaced.
    :ivar once_per: ability only: ``"scene"`` or ``"session"``.
    :ivar when: the situation in which it applies (free text, the GM judges).
    :ivar text: the trait's wording.
    """

    name: str
    kind: TraitKind
    skill: str | None = None
    instead_of: str | None = None
    once_per: Literal["scene", "session"] | None = None
    when: str = ""
    text: str = ""


#: The default rest that heals each wound, in minutes ("a few hours", "days", "weeks" read
#: as three of each; ruling W-T1).
REST_TO_HEAL = {"mild": 3 * 60, "moderate": 3 * 24 * 60, "severe": 3 * 7 * 24 * 60}


class Wound(msgspec.Struct, frozen=True, kw_only=True):
    """A taken wound slot ("Damage: Stress and Wounds").

    :ivar absorbed: damage units it soaked (1…its capacity; the rest of the slot is lost).
    :ivar affected_skills: skills at −1 (Mild) or −2 (Moderate); for Severe, skills at −3
        besides every physical action.
    :ivar description: e.g. ``"bullet graze to the leg"``.
    """

    absorbed: int
    affected_skills: tuple[str, ...] = ()
    description: str = ""
    #: minutes of rest since it was taken (``time.passed`` with rest)
    rested: int = 0


class Boon(msgspec.Struct, frozen=True, kw_only=True):
    """A one-use +2 trait for the current scene ("Active Opposition").

    :ivar name: what the boon is (the description the GM gives it).
    :ivar skill: the skill it helps (``None``: any roll it fits).
    """

    name: str
    skill: str | None = None


class Boost(msgspec.Struct, frozen=True, kw_only=True):
    """A +1/+2 bonus for the next relevant roll ("Boosts: Optional Rule ...")."""

    value: int
    description: str = ""


class Character(msgspec.Struct, frozen=True, kw_only=True):
    """One character's state, folded from the log (docs/rulings/wyrd-engine.md).

    Stress runs 0…``stress_max``; ``wounds`` maps a taken slot (mild/moderate/severe) to its
    :class:`Wound`; ``used_this_scene``/``used_this_session`` name abilities already used;
    ``overflow`` is the damage left over by the last hit after every box and wound filled.
    """

    id: str
    name: str
    npc: bool = False
    concept: str = ""
    appearance: str = ""
    personality: str = ""
    backstory: str = ""
    notes: str = ""
    skills: dict[str, int] = {}
    traits: tuple[Trait, ...] = ()
    gear: tuple[Trait, ...] = ()
    stress_max: int = 5
    stress: int = 0
    wounds: dict[str, Wound] = {}
    used_this_scene: tuple[str, ...] = ()
    used_this_session: tuple[str, ...] = ()
    boons: tuple[Boon, ...] = ()
    boosts: tuple[Boost, ...] = ()
    taken_out: bool = False
    at_risk_of_death: bool = False
    dead: bool = False
    overflow: int = 0
