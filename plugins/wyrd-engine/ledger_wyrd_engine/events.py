"""Event types of the Wyrd Engine (tags ``"wyrd-engine.<past_tense>"``; docs/rulings/wyrd-engine.md).

Every event with a ``character`` field goes to that character's stream. All fields are
``str``/``int``/``bool``/lists of them: recordable by hand with ``campaign record
<name> --field value`` (e.g. ``campaign record damage-taken --character felix --amount 2``).
Source: 000_60e07241544698f0.txt (sections named on each class).
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from ledger import Event, Roll

Severity = Literal["mild", "moderate", "severe"]


class CheckRolled(Roll, frozen=True, kw_only=True, tag="wyrd-engine.check_rolled"):
    """A 4dF roll: passive (against a DR), a contest, an attack or a defence.

    ("Conflict resolution at a glance", "Passive Opposition", "Active Opposition",
    "Attacking and Defending".)

    :ivar character: the roller's id.
    :ivar skill: the skill the action uses (as the sheet spells it).
    :ivar rating: the rating added (the substituted skill's rating with a substitution trait).
    :ivar rating_skill: the skill whose rating was added (differs from ``skill`` only with
        a substitution trait).
    :ivar dice: the four Fudge faces, −1/0/+1, in roll order.
    :ivar roll: their sum, −4…+4.
    :ivar trait: the one trait, gear trait or boon invoked, or ``None``.
    :ivar trait_kind: ``bonus``/``ability``/``permission``/``substitution``/``boon``.
    :ivar trait_bonus: +2 for a bonus trait or boon, else 0.
    :ivar boost: a held boost consumed by this roll (0, 1 or 2).
    :ivar teamwork: an ally's teamwork bonus (0, 1 or 2).
    :ivar wound_penalty: points wounds take off (positive).
    :ivar total: roll + rating + trait_bonus + boost + teamwork − wound_penalty.
    :ivar mode: ``passive`` (vs ``dr``), ``contest``, ``attack``, ``defence`` or
        ``initiative`` (4dF + Notice or the skill named, no DR; "Initiative: Who Acts
        First?"; against an opponent ``outcome`` is ``acts_first``/``acts_second``/``tie``,
        alone it is ``initiative`` and the total is compared at the table).
    :ivar situational: the GM's situational modifier (manoeuvre, improvised weapon,
        impaired character), added to ``total`` and kept apart from the DR;
        ``situation`` says why.
    :ivar dr: the Difficulty Rating (passive rolls), else ``None``.
    :ivar dr_name: the DR's ladder name, if on the ladder.
    :ivar opponent: who opposes (contest/attack/defence), e.g. ``"thug"``.
    :ivar opposition: the opponent's rating; ``opposition_dice`` their four faces (drawn
        after the roller's); ``opposition_total`` their total.
    :ivar margin: passive: steps above the bare success; otherwise total − opposition total.
    :ivar outcome: band id: ``failure``/``tie``/``success``/``success_with_style``/
        ``success_at_cost`` (passive and contest), ``hit``/``miss`` (attack),
        ``hit``/``defended`` (defence: ``hit`` means the roller was hit).
    :ivar damage: attack/defence: the damage of a landed hit (ruling C5), else 0.
    :ivar physical: the roll counted as a physical action (Severe wound penalty).
    :ivar vs_character: the opponent's id when they are a character on the ledger
        (``--vs-character``); their side is then worked out from their sheet:
    :ivar vs_skill: the skill they oppose with (the roll's own skill in a contest,
        Athletics to dodge an attack, Fight to attack a defender, unless ``--vs-skill``);
    :ivar vs_rating: that skill's rating on their sheet (0 for a setting skill they lack);
    :ivar vs_trait: the one trait they invoke (``--vs-trait``), ``vs_trait_bonus`` its +2;
    :ivar vs_wound_penalty: the points their wounds take off; ``opposition`` is then
        ``vs_rating + vs_trait_bonus − vs_wound_penalty``.

    What it was asked is in ``inputs`` (by option name, recorded by the core); a schema
    version 1 payload is read with them rebuilt from its fields (:func:`roll_kept_no_inputs`).
    """

    schema_version = 2  # 1: no inputs (upcast by roll_kept_no_inputs)
    character: str
    skill: str
    rating: int
    rating_skill: str
    dice: list[int]
    roll: int
    trait: str | None = None
    trait_kind: str | None = None
    trait_bonus: int = 0
    boost: int = 0
    teamwork: int = 0
    wound_penalty: int = 0
    total: int
    mode: Literal["passive", "contest", "attack", "defence", "initiative"] = "passive"
    dr: int | None = None
    dr_name: str | None = None
    opponent: str | None = None
    opposition: int | None = None
    opposition_dice: list[int] | None = None
    opposition_total: int | None = None
    margin: int
    outcome: str
    damage: int = 0
    physical: bool = False
    vs_character: str | None = None
    vs_skill: str | None = None
    vs_rating: int | None = None
    vs_trait: str | None = None
    vs_trait_bonus: int = 0
    vs_wound_penalty: int = 0
    situational: int = 0
    situation: str = ""


class DamageTaken(Event, frozen=True, kw_only=True, tag="wyrd-engine.damage_taken"):
    """Damage from a landed hit, soaked by stress then wounds (docs/rulings/wyrd-engine.md).

    ("Damage: Stress and Wounds", "Attacking and Defending".)

    :ivar amount: damage points, 0 or more (converted to units by the damage ratio).
    :ivar ratio: overrides the campaign's ``damage_ratio`` (1, 2 or 3) for this hit.
    :ivar affected_skills: skills the GM names for any wound this hit inflicts.
    :ivar description: what the wound is, e.g. ``"shot in the leg"``.
    """

    character: str
    amount: int
    ratio: int | None = None
    affected_skills: list[str] = []
    description: str = ""


class WoundInflicted(Event, frozen=True, kw_only=True, tag="wyrd-engine.wound_inflicted"):
    """A wound taken directly, e.g. a well-placed firearm shot ("Weapons and Gear in
    Combat": "Firearms can inflict instant Wounds"). If the slot is already taken, its
    capacity is applied as damage through the absorption algorithm instead (docs/rulings/wyrd-engine.md).
    """

    character: str
    severity: Severity
    affected_skills: list[str] = []
    description: str = ""


class WoundDescribed(Event, frozen=True, kw_only=True, tag="wyrd-engine.wound_described"):
    """The GM names the skills a taken wound affects (and what it is) after the hit.

    ("Damage: Stress and Wounds": "when taking a Wound, one or more relevant skills are
    affected"; "Example Wound".) Replaces the wound's affected skills and description.
    """

    character: str
    severity: Severity
    affected_skills: list[str] = []
    description: str = ""


class WoundHealed(Event, frozen=True, kw_only=True, tag="wyrd-engine.wound_healed"):
    """A wound clears ("Healing and Recovery").

    :ivar method: ``short_rest``/``first_aid`` (Mild), ``days_of_rest``/``medical_care``
        (Moderate), ``weeks_of_rest``/``surgery``/``supernatural`` (Severe); heavier care
        also heals lighter wounds.
    """

    character: str
    severity: Severity
    method: str


class StressCleared(Event, frozen=True, kw_only=True, tag="wyrd-engine.stress_cleared"):
    """All stress boxes clear ("Stress ... automatically cleared after a fight"; ruling C10).
    Scene end clears stress by itself; this records a clear in mid-scene."""

    character: str


class TraitAbilityUsed(Event, frozen=True, kw_only=True, tag="wyrd-engine.trait_ability_used"):
    """A once-per-scene or once-per-session trait or gear ability is used ("How Traits
    Work"; "Example 3: Once Per Session Ability"). Refused when already used in that period.
    """

    character: str
    trait: str
    note: str = ""


class BoonGranted(Event, frozen=True, kw_only=True, tag="wyrd-engine.boon_granted"):
    """The GM grants a boon after a win by 3 or more: a one-use +2 trait for this scene
    ("Active Opposition")."""

    character: str
    boon: str
    skill: str | None = None


class BoonUsed(Event, frozen=True, kw_only=True, tag="wyrd-engine.boon_used"):
    """A boon is used outside a roll (a roll invoking it with ``--trait`` uses it too)."""

    character: str
    boon: str


class BoostGained(Event, frozen=True, kw_only=True, tag="wyrd-engine.boost_gained"):
    """A Boost of +1 or +2 for the next relevant roll ("Boosts: Optional Rule for
    Increasing Success"). Unused boosts lapse at scene end (ruling C15)."""

    character: str
    value: int
    description: str = ""


class BoostUsed(Event, frozen=True, kw_only=True, tag="wyrd-engine.boost_used"):
    """A held boost is spent outside a roll (``roll --boost N`` spends one itself), or
    ``lapsed``: it lasted its single action unused and ends with the holder's turn in an
    encounter ("Boosts typically last for a single action"). ``lapsed`` is absent
    (not stored) on a boost spent, so those keep their bytes."""

    character: str
    value: int
    lapsed: bool | msgspec.UnsetType = msgspec.UNSET


class DeathRecorded(Event, frozen=True, kw_only=True, tag="wyrd-engine.death_recorded"):
    """The GM decides the character dies ("Death and the End of Combat"; never automatic)."""

    character: str
    reason: str = ""


class _TraitLike(Event, frozen=True, kw_only=True):
    """The fields of a Trait or a piece of gear that "functions like a Trait" gained in play
    (:class:`GearGained`, :class:`TraitGained`), as on a sheet (ruling W-1)."""

    character: str
    name: str
    kind: Literal["bonus", "ability", "permission", "substitution"]
    skill: str | None = None
    instead_of: str | None = None
    once_per: Literal["scene", "session"] | None = None
    when: str = ""
    text: str = ""
    reason: str = ""


class GearGained(_TraitLike, frozen=True, kw_only=True, tag="wyrd-engine.gear_gained"):
    """A piece of notable gear comes into the character's hands after creation: "Each
    character begins with **three pieces of gear**" ("Gear as Traits"), so more may come in
    play; it "functions like a Trait" ("Step 4: Select Gear"; ruling W-15).

    :ivar name: the gear's name, new to the character (not one of their traits or gear).
    :ivar kind: ``bonus`` (+2 to ``skill``), ``ability`` (``once_per`` scene/session),
        ``permission`` or ``substitution`` (``skill`` instead of ``instead_of``), as on a
        sheet (ruling W-1).
    """


class GearLost(Event, frozen=True, kw_only=True, tag="wyrd-engine.gear_lost"):
    """A piece of gear the character holds is lost, broken or given away (ruling W-15)."""

    character: str
    gear: str
    reason: str = ""


class TraitGained(_TraitLike, frozen=True, kw_only=True, tag="wyrd-engine.trait_gained"):
    """A non-player character gains a Trait: "Non-player characters and monsters can have
    fewer or far more traits" ("Traits"). A player character has "exactly **three
    Traits**" and never gains one (ruling W-16). Fields as :class:`GearGained`."""


class TraitLost(Event, frozen=True, kw_only=True, tag="wyrd-engine.trait_lost"):
    """A non-player character loses a Trait it has ("Traits"; ruling W-16); refused for a
    player character, who keeps exactly three."""

    character: str
    trait: str
    reason: str = ""


def roll_kept_no_inputs(payload: dict[str, Any]) -> dict[str, Any]:
    """Upcast a version-1 roll: its ``inputs`` rebuilt from its fields, as the rules read
    them back before rolls kept their inputs: the skill; a passive roll's Difficulty Rating
    (its number); attacking, defending or initiative; an opponent off the ledger as their
    rating and name, or one on the ledger with the skill and trait they opposed with; the
    trait, boost, teamwork, situational modifier and why; ``physical`` when the roll counted
    as physical (a physical skill's does either way). (000_60e07241544698f0.txt, "Conflict
    resolution at a glance", "Passive Opposition", "Active Opposition", "Attacking and
    Defending", "Initiative: Who Acts First?")"""
    params: dict[str, Any] = {}
    mode = payload.get("mode", "passive")
    if mode == "passive":
        if payload.get("dr") is not None:
            params["dr"] = payload["dr"]
    else:
        params.update({"attack": mode == "attack", "defend": mode == "defence",
                       "initiative": mode == "initiative"})  # fmt: skip
        if payload.get("vs_character") is None and payload.get("opposition") is not None:
            params.update(vs=payload["opposition"], opponent=payload.get("opponent"))
        elif payload.get("vs_trait"):
            params["vs_trait"] = payload["vs_trait"]
    if payload.get("trait"):
        params["trait"] = [payload["trait"]]
    for key in ("boost", "teamwork", "physical", "situational", "situation"):
        if payload.get(key):
            params[key] = payload[key]
    inputs: dict[str, Any] = {"skill": payload.get("skill")}
    if payload.get("vs_character") is not None:
        inputs["vs_character"] = payload["vs_character"]
        if payload.get("vs_skill") is not None:
            inputs["vs_skill"] = payload["vs_skill"]
    params = {k: v for k, v in params.items() if v is not False and v is not None}
    return {**payload, "inputs": {**inputs, "params": params}}


UPCASTERS = {"wyrd-engine.check_rolled": {1: roll_kept_no_inputs}}
"""Old payload shapes of this plugin's event types (docs/plugin-guide.md "Revising an event
type")."""


EVENT_TYPES = (
    CheckRolled,
    DamageTaken,
    WoundInflicted,
    WoundDescribed,
    WoundHealed,
    StressCleared,
    TraitAbilityUsed,
    BoonGranted,
    BoonUsed,
    BoostGained,
    BoostUsed,
    DeathRecorded,
    GearGained,
    GearLost,
    TraitGained,
    TraitLost,
)
