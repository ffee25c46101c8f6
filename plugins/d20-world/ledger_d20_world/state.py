"""Character state and campaign options of d20-world (seed 001_a3a02f9b7363775f.txt).

Every struct here is frozen; appliers build new ones with ``msgspec.structs.replace``.
Names follow the rule text: traits, bonds (with *favor*, The World's secret), skills with
*proficiency* and *experience*, items, conditions, wounds, *jinx*, objectives.
"""

from __future__ import annotations

from typing import Literal

import msgspec

Location = Literal["carried", "bag"]
TraitKind = Literal["body", "personality", "free", "corruption"]
BondKind = Literal["faction", "mentor", "friend", "rival", "enemy"]
SkillOrigin = Literal["bond", "hardship", "passion", "learned"]
Band = Literal["bad", "messy", "good"]
ObjectiveStatus = Literal["open", "completed", "failed"]


class Options(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Campaign options: every ruling of docs/rulings/d20-world.md that a table may change.

    - ``one_factor_no_help``: R1, one of time/tools/skill and no help: ``"auto_fail"``
      (default) or ``"disadvantage"``.
    - ``max_trait_invocations_per_check``: R3, default 1.
    - ``messy_damage_rounding``: R5, half weapon damage on a messy hit: ``"ceil"`` or ``"floor"``.
    - ``jinx_before_check``: R7, the jinx of this cast already penalises this cast (default
      ``False``).
    - ``jinx_recovery``: R7, ``"remove_ceil_half"`` (a rest removes ceil(jinx/2)) or
      ``"keep_ceil_half"`` (a rest removes floor(jinx/2)).
    - ``objective_distinct_skills``: R12, ``"enforce"`` (refuse a second contribution with a
      skill) or ``"warn_only"`` (allow it).
    - ``defer_skill_increase_to_session_end``: R16, ``False``: increases apply at once; ``True``:
      ``campaign advance`` applies them.

    Starting favor (ruling R11) is deliberately not an option: options are public (they are
    in ``campaign.created``), favor is not; The World adjusts it with GM-only events.
    """

    one_factor_no_help: Literal["auto_fail", "disadvantage"] = "auto_fail"
    max_trait_invocations_per_check: int = 1
    messy_damage_rounding: Literal["ceil", "floor"] = "ceil"
    jinx_before_check: bool = False
    jinx_recovery: Literal["remove_ceil_half", "keep_ceil_half"] = "remove_ceil_half"
    objective_distinct_skills: Literal["enforce", "warn_only"] = "enforce"
    defer_skill_increase_to_session_end: bool = False


class Trait(msgspec.Struct, frozen=True, kw_only=True):
    """A trait ("Traits"): ``can_help``/``can_hinder`` are cleared by invoking it that way and
    restored by a natural 20 / natural 1 (ruling R2). ``kind`` ``corruption``: "the lasting
    corruption of magic" (ruling R40), ``spell`` the spell that left it (``""``: not
    named)."""

    name: str
    kind: TraitKind
    can_help: bool = True
    can_hinder: bool = True
    spell: str = ""


class Bond(msgspec.Struct, frozen=True, kw_only=True):
    """A bond ("Bonds"); ``favor`` is tracked by The World only (never in a player's view)."""

    name: str
    kind: BondKind
    favor: int = 0


class Skill(msgspec.Struct, frozen=True, kw_only=True):
    """A skill ("Skills"): ``proficiency`` ≥ 0 (0 while an unknown skill is practised),
    ``experience`` ≥ 0, ``known`` once proficiency ≥ 1; spells are skills ("Magic")."""

    name: str
    proficiency: int
    experience: int = 0
    known: bool = True
    spell: bool = False
    origin: SkillOrigin = "learned"
    via_bond: str | None = None


class Item(msgspec.Struct, frozen=True, kw_only=True):
    """An item ("Inventory", "Armor", "Weapons").

    Armour: ``durability``/``max_durability`` (``None`` if not armour), ``protects_against``,
    ``broken`` at durability 0, ``destroyed`` after desperate use. Weapon: ``damage``
    (``None`` if not a weapon), ``range`` far/near/intimate, ``harm`` (how it harms).
    """

    name: str
    location: Location = "carried"
    bulky: bool = False
    consumable: bool = False
    for_bond: str | None = None
    for_skill: str | None = None
    durability: int | None = None
    max_durability: int | None = None
    protects_against: str = ""
    broken: bool = False
    destroyed: bool = False
    damage: int | None = None
    range: str = ""
    harm: str = ""


class Condition(msgspec.Struct, frozen=True, kw_only=True):
    """A condition ("Conditions"): ``check_penalty`` (≥ 0, subtracted from every check),
    ``capacity_delta`` (added to the five carried items, e.g. −1) and how it ends.
    ``hidden``: added by a GM-only ``hidden_condition_added`` (ruling R33), so only the GM's
    view of the character holds it."""

    name: str
    check_penalty: int = 0
    capacity_delta: int = 0
    ends_when: str = ""
    hidden: bool = False
    ends_on: str | None = None
    #: when it ends on the character's in-fiction clock (:attr:`Character.clock`, minutes;
    #: ``None``: no deadline by the clock)
    ends_at: int | None = None


class Wound(msgspec.Struct, frozen=True, kw_only=True):
    """A wound ("Wounds"): ``number`` (1, 2, … per character, stable), ``damage`` ≥ 1."""

    number: int
    damage: int
    description: str = ""


class Objective(msgspec.Struct, frozen=True, kw_only=True):
    """An objective ("Objectives") tracked on the stream of the character who opened it, or
    (``group``) shared: opened on the campaign stream and held by every character's state
    alike (ruling R43); ``contributors`` then names whose check each of ``skills_used`` was."""

    name: str
    required_good: int
    deadline: str = ""
    good: int = 0
    messy: int = 0
    bad: int = 0
    close_calls: int = 0
    skills_used: tuple[str, ...] = ()
    status: ObjectiveStatus = "open"
    reason: str = ""
    group: bool = False
    contributors: tuple[str, ...] = ()
    #: when its deadline falls on the character's in-fiction clock, if ``deadline`` is a
    #: duration (``"3d"``, ``"6 hours"``), else ``None`` (text only)
    due_at: int | None = None


class GroupCheck(msgspec.Struct, frozen=True, kw_only=True):
    """A check made towards a shared objective whose contribution (on the campaign stream,
    ruling R43) is still to come: ``check`` its seq (0 when applied by hand), ``objective``,
    ``skill``, ``outcome``."""

    check: int
    objective: str
    skill: str
    outcome: Band


class Character(msgspec.Struct, frozen=True, kw_only=True):
    """One character's state, folded from its events.

    ``pending_shock``: a wound was received and its shock roll (1d6) is still owed;
    ``shocks_owed``: how many (one per wound received and not yet rolled for, ruling R23:
    "When a character receives a wound, they must roll 1d6", 001_a3a02f9b7363775f.txt,
    "Wounds").
    ``dead``: wound damage total above five ("Wounds").
    ``rested_after_session``: the last session whose end ``campaign advance`` recorded a rest
    for (0: none), so a second ``advance`` adds no second rest.
    ``group_checks``: this character's checks towards shared objectives whose contribution
    has not been folded yet (ruling R43: the contribution must match its check).
    ``gm_view``: a GM-only event (favour, hidden condition) was folded into this state, so it
    is the GM's view; a player's view never has it (ruling R33: re-deriving a check then
    checks its hidden modifier instead of taking the recorded size).
    """

    id: str
    name: str
    traits: tuple[Trait, ...] = ()
    bonds: tuple[Bond, ...] = ()
    skills: tuple[Skill, ...] = ()
    items: tuple[Item, ...] = ()
    has_bag: bool = True
    conditions: tuple[Condition, ...] = ()
    wounds: tuple[Wound, ...] = ()
    wounds_received: int = 0
    jinx: int = 0
    shocks: int = 0
    pending_shock: bool = False
    shocks_owed: int = 0
    dead: bool = False
    objectives: tuple[Objective, ...] = ()
    bonds_called: int = 0
    rested_after_session: int = 0
    gm_view: bool = False
    group_checks: tuple[GroupCheck, ...] = ()
    #: in-fiction minutes passed since the character joined (``time.passed``)
    clock: int = 0
