"""d20-world events (seed 001_a3a02f9b7363775f.txt). Tags are ``"d20-world.<past_tense>"``.

Every event but the shared objective's (``group_objective_*``, on the campaign stream and
so applied to every character) has a ``character`` field, so it belongs to that
character's stream. Fields are
simple (str, int, bool, lists of str) so ``campaign record <name> --field value`` can append
any of them. ``favour_changed``, ``hidden_condition_added`` and ``hidden_condition_ended`` are
GM-only by type (``visibility = "gm"``): an applier sees only the payload, never the
envelope, so a fact the rules must keep hidden has a GM-only type of its own.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

import msgspec
from msgspec import UNSET, UnsetType

from ledger import Event, Roll, Visibility


class TraitInvocation(msgspec.Struct, frozen=True, kw_only=True):
    """A trait invoked on a check ("Traits"): ``mode`` help (advantage) or hinder
    (disadvantage, +2 experience)."""

    trait: str
    mode: Literal["help", "hinder"]


class CheckRolled(Roll, frozen=True, kw_only=True, tag="d20-world.check_rolled"):
    """A check ("Checks"), its gate, dice, penalties, outcome band and experience.

    ``gate`` is what time/tools/skill/help give (``auto_fail``/``auto_success``: no check, no
    dice, no experience); ``mode`` is the roll after every advantage/disadvantage source
    (ruling R3). ``dice`` are the d20 faces in draw order (two with advantage or
    disadvantage), ``kept`` the one that decides. ``total = kept + proficiency −
    wound_penalty − condition_penalty − jinx_penalty − hidden_modifier``:
    ``condition_penalty`` counts the conditions players know of, ``hidden_modifier`` (≥ 1,
    absent when there is none, so older checks keep their stored bytes) the hidden
    conditions' penalties, shown to players as one unexplained number (ruling R33);
    ``outcome`` bad/messy/good;
    ``experience`` marked on ``skill``. ``spell``: a spellcasting check ("Magic"): messy or
    bad is a ``miscast`` and the caster gains one jinx. ``objective``: the objective (on this
    character's stream) the check contributes to. An attack on a character on the ledger
    (``roll X SKILL --vs-character Y --weapon ITEM``) records the target as
    ``vs_character`` and the weapon item with its damage from X's sheet ("Weapons": "Each
    weapon specifies the amount of damage it deals"); absent otherwise, so other checks keep
    their bytes. The weapon is the attack's tools ("time, tools (a weapon), and skill",
    ruling R44), so ``tools`` is true; an attack recorded in an earlier release may have it false.

    What it was asked is in ``inputs`` (by option name, recorded by the core); a schema
    version 1 payload is read with them rebuilt from its fields (:func:`roll_kept_no_inputs`).
    """

    schema_version = 2  # 1: no inputs (upcast by roll_kept_no_inputs)
    character: str
    skill: str
    proficiency: int
    known: bool
    time: bool = False
    tools: bool = False
    has_skill: bool = False
    help_from: str = ""
    gate: Literal["auto_fail", "disadvantage", "normal", "advantage", "auto_success"]
    mode: Literal["normal", "advantage", "disadvantage"] = "normal"
    invocations: list[TraitInvocation] = []
    advantages: list[str] = []
    disadvantages: list[str] = []
    dice: list[int] = []
    kept: int | None = None
    wound_penalty: int = 0
    condition_penalty: int = 0
    jinx_penalty: int = 0
    hidden_modifier: int | UnsetType = UNSET
    total: int | None = None
    outcome: Literal["bad", "messy", "good"]
    experience: int = 0
    spell: bool = False
    miscast: bool = False
    objective: str | None = None
    vs_character: str | UnsetType = UNSET
    weapon: str | UnsetType = UNSET
    weapon_damage: int | UnsetType = UNSET


class BlindCheckRolled(CheckRolled, frozen=True, kw_only=True, tag="d20-world.blind_check_rolled"):
    """A blind check (``roll --blind``; GM-only, ruling R34): The World's secret roll for a
    character, recorded like a check. It changes nothing on the sheet (no experience, trait
    flag, jinx or objective contribution): later public checks would show any change and so
    reveal the blind result."""

    visibility: ClassVar[Visibility] = "gm"


class ShockRolled(Roll, frozen=True, kw_only=True, tag="d20-world.shock_rolled"):
    """The 1d6 after receiving a wound ("Wounds"): ``shock`` iff ``die <= wound_total``."""

    schema_version = 2  # 1: no inputs (upcast by shock_kept_no_inputs)
    character: str
    die: int
    wound_total: int
    shock: bool


class ExperienceMarked(Event, frozen=True, kw_only=True, tag="d20-world.experience_marked"):
    """Experience marked by hand on a skill ("Skills"; an unknown non-spell skill is practised,
    "Learning Skills"). ``amount`` ≥ 0."""

    line = (
        "{{ character }}: +{{ amount }} experience on {{ skill }}"
        "{% if reason %} ({{ reason }}){% endif %}"
    )
    character: str
    skill: str
    amount: int
    reason: str = ""


class SkillIncreased(Event, frozen=True, kw_only=True, tag="d20-world.skill_increased"):
    """A deferred skill increase applied at the end of a session (option
    ``defer_skill_increase_to_session_end``): ``proficiency`` is the new value."""

    line = "{character}: {skill} rises to +{proficiency}"
    character: str
    skill: str
    proficiency: int


class FavourChanged(Event, frozen=True, kw_only=True, tag="d20-world.favour_changed"):
    """A change of a bond's favor ("Bonds": tracked by The World, not public knowledge)."""

    visibility: ClassVar[Visibility] = "gm"

    character: str
    bond: str
    delta: int
    reason: str = ""


class BondCalled(Event, frozen=True, kw_only=True, tag="d20-world.bond_called"):
    """The character calls upon a bond for a favor or support ("Bonds"); ``demands`` are
    what the bond asks in return."""

    line = "{{ character }}: calls upon {{ bond }}{% if request %}: {{ request }}{% endif %}"
    character: str
    bond: str
    request: str = ""
    demands: str = ""


class TraitGained(Event, frozen=True, kw_only=True, tag="d20-world.trait_gained"):
    """A trait gained in play ("Traits": "Traits describe a character's nature, such as
    physical features, personality, culture"; ruling R39): ``kind`` as at creation (body,
    personality or free), both flags ready. A trait the character has is refused."""

    character: str
    trait: str
    kind: Literal["body", "personality", "free"]
    reason: str = ""


class TraitLost(Event, frozen=True, kw_only=True, tag="d20-world.trait_lost"):
    """A trait the character no longer has (ruling R39). A lasting corruption of magic is
    lost only with a ``reason`` (what lifted it, ruling R40)."""

    character: str
    trait: str
    reason: str = ""


class CorruptionMarked(Event, frozen=True, kw_only=True, tag="d20-world.corruption_marked"):
    """A trait that is "the lasting corruption of magic" ("Traits"; ruling R40): a trait of
    kind ``corruption``, helping and hindering like any trait. ``spell``: the known spell
    whose casting left it, if The World names one."""

    character: str
    trait: str
    spell: str = ""
    reason: str = ""


class BondFormed(Event, frozen=True, kw_only=True, tag="d20-world.bond_formed"):
    """A new bond with a faction or non-player character ("Bonds"; ruling R41). Public: its
    favor starts by kind as at creation (ruling R11) and The World changes it with the
    GM-only ``favour_changed`` ("Favor and any changes to it are tracked by The World")."""

    line = (
        "{{ character }}: forms a bond with {{ bond }} ({{ kind }})"
        "{% if reason %} ({{ reason }}){% endif %}"
    )
    character: str
    bond: str
    kind: Literal["faction", "mentor", "friend", "rival", "enemy"]
    reason: str = ""


class ItemAdded(Event, frozen=True, kw_only=True, tag="d20-world.item_added"):
    """An item gained ("Inventory"); armour has ``durability`` and ``protects_against``
    ("Armor"); a weapon ``damage``, ``range`` and ``harm`` ("Weapons")."""

    line = "{character}: gains {item} ({location})"
    character: str
    item: str
    location: Literal["carried", "bag"] = "carried"
    bulky: bool = False
    consumable: bool = False
    durability: int | None = None
    protects_against: str = ""
    damage: int | None = None
    range: str = ""
    harm: str = ""


class ItemRemoved(Event, frozen=True, kw_only=True, tag="d20-world.item_removed"):
    """An item used up, dropped or lost; ``actions`` it took, if timed ("Time")."""

    line = "{{ character }}: loses {{ item }}{% if reason %} ({{ reason }}){% endif %}"
    character: str
    item: str
    reason: str = ""
    actions: int | None = None


class ItemMoved(Event, frozen=True, kw_only=True, tag="d20-world.item_moved"):
    """An item moved between hand and bag ("Inventory": items in a bag take a few moments to
    retrieve); ``actions`` as The World sets them ("Time")."""

    line = (
        "{{ character }}: moves {{ item }} to {{ to }}"
        "{% if actions %}, {{ actions }} actions{% endif %}"
    )
    character: str
    item: str
    to: Literal["carried", "bag"]
    actions: int | None = None


class ItemRepaired(Event, frozen=True, kw_only=True, tag="d20-world.item_repaired"):
    """A broken armour item repaired to full durability ("Armor": time and money)."""

    line = "{character}: repairs {item}"
    character: str
    item: str


class BagChanged(Event, frozen=True, kw_only=True, tag="d20-world.bag_changed"):
    """The character gains or loses their bag ("Inventory": one bag at most)."""

    line = "{{ character }}: {{ 'gains' if has_bag else 'loses' }} a bag"
    character: str
    has_bag: bool


class DamageTaken(Event, frozen=True, kw_only=True, tag="d20-world.damage_taken"):
    """Harm suffered ("Harm"): ``amount`` incoming damage, reduced by ``armour`` entries
    ``"ITEM:POINTS"`` (durability spent, "Armor") and ``desperate`` broken items (−1 each,
    destroyed); what remains becomes a wound ("Wounds")."""

    character: str
    amount: int
    armour: list[str] = []
    desperate: list[str] = []
    description: str = ""


class AttackResolved(Event, frozen=True, kw_only=True, tag="d20-world.attack_resolved"):
    """An attack on ``character`` ("Attacking"): ``weapon_damage`` dealt in full on
    ``auto_hit`` or ``good``, half on ``messy`` (ruling R5), none on ``bad``; then armour and
    wound as in :class:`DamageTaken`."""

    character: str
    attacker: str
    weapon: str = ""
    weapon_damage: int
    outcome: Literal["auto_hit", "good", "messy", "bad"]
    armour: list[str] = []
    desperate: list[str] = []
    description: str = ""


class WoundHealed(Event, frozen=True, kw_only=True, tag="d20-world.wound_healed"):
    """Proper care reduces wound ``wound`` (its number) by ``amount``; removed at 0
    ("Wounds")."""

    line = "{character}: wound {wound} heals by {amount}"
    character: str
    wound: int
    amount: int = 1


class ConditionAdded(Event, frozen=True, kw_only=True, tag="d20-world.condition_added"):
    """A condition ("Conditions"): ``check_penalty`` ≥ 0 on every check, ``capacity_delta``
    on carried items, and how it ends: ``ends_when`` in words, and ``ends_on`` when the
    ledger can see it end by itself: the next ``rest``, the end of the ``scene`` or of the
    ``session`` ("Each condition specifies what effects it imposes (if any) and how to end
    the condition. These can be temporal deadlines or specific treatments"). Without
    ``ends_on`` The World ends it with ``condition-ended``."""

    character: str
    condition: str
    check_penalty: int = 0
    capacity_delta: int = 0
    ends_when: str = ""
    ends_on: Literal["rest", "scene", "session"] | None = None
    #: a temporal deadline ("sick for six hours"), in minutes of in-fiction time: it ends
    #: when ``campaign time pass`` reaches it; absent (not stored) when it has none
    lasts_minutes: int | UnsetType = UNSET


class ConditionEnded(Event, frozen=True, kw_only=True, tag="d20-world.condition_ended"):
    """A condition ends ("Conditions")."""

    line = "{character}: condition {condition!r} ends"
    character: str
    condition: str


class HiddenConditionAdded(
    Event, frozen=True, kw_only=True, tag="d20-world.hidden_condition_added"
):
    """A condition only The World knows of ("Conditions"; GM-only, ruling R33): its
    ``check_penalty`` (≥ 0) counts in every check as one unexplained hidden modifier. No
    capacity change: what a character can carry is never secret."""

    visibility: ClassVar[Visibility] = "gm"

    character: str
    condition: str
    check_penalty: int = 0
    ends_when: str = ""
    ends_on: Literal["rest", "scene", "session"] | None = None
    #: as :attr:`ConditionAdded.lasts_minutes`: its end by the clock is GM-only too
    lasts_minutes: int | UnsetType = UNSET


class HiddenConditionEnded(
    Event, frozen=True, kw_only=True, tag="d20-world.hidden_condition_ended"
):
    """A hidden condition ends (GM-only, ruling R33)."""

    line = "{character}: hidden condition {condition!r} ends"
    visibility: ClassVar[Visibility] = "gm"

    character: str
    condition: str


class Rested(Event, frozen=True, kw_only=True, tag="d20-world.rested"):
    """A rest ("Jinx": recover half the jinx, rounded up). ``session``: the session whose end
    the rest follows when ``campaign advance`` recorded it (ruling R8)."""

    line = "{character}: rests, recovering half the jinx (rounded up)"
    character: str
    session: int | None = None


class ObjectiveOpened(Event, frozen=True, kw_only=True, tag="d20-world.objective_opened"):
    """A new objective ("Objectives") on this character's stream; ``required_good`` ≥ 2."""

    line = "{character}: objective {objective!r} opened, {required_good} good checks needed"
    character: str
    objective: str
    required_good: int
    deadline: str = ""


class ObjectiveContributed(Event, frozen=True, kw_only=True, tag="d20-world.objective_contributed"):
    """A contributing check recorded by hand ("Objectives"): another character's check
    (``by``), or an automatic success The World counts as good (``auto``, ruling R12)."""

    character: str
    objective: str
    skill: str
    outcome: Literal["bad", "messy", "good"]
    by: str = ""
    auto: bool = False
    check: int | None = None


class ObjectiveFailed(Event, frozen=True, kw_only=True, tag="d20-world.objective_failed"):
    """An objective failed by an outside factor such as time running out ("Objectives")."""

    line = "{character}: objective {objective!r} failed ({reason})"
    character: str
    objective: str
    reason: str


class GroupObjectiveOpened(
    Event, frozen=True, kw_only=True, tag="d20-world.group_objective_opened"
):
    """An objective several characters work towards ("Objectives": "individual players,
    groups of players, or entire factions can work towards over time"; ruling R43). No
    ``character`` field: it is on the campaign stream, so every character's state holds
    it. ``required_good`` ≥ 2."""

    held_by_newcomers: ClassVar[bool] = True  # a character who joins later holds it too

    objective: str
    required_good: int
    deadline: str = ""


class GroupObjectiveContributed(
    Event, frozen=True, kw_only=True, tag="d20-world.group_objective_contributed"
):
    """A contributing check to a shared objective (campaign stream, ruling R43): ``by`` the
    character id whose check it is (or a group or faction's name), its ``skill`` and
    ``outcome``. ``check``: the check's seq; written by ``roll X SKILL --objective NAME``
    in the check's batch, and then it must match the check the contributor made. ``auto``:
    an automatic success The World counts as good (ruling R12)."""

    held_by_newcomers: ClassVar[bool] = True  # a character who joins later holds it too

    objective: str
    by: str
    skill: str
    outcome: Literal["bad", "messy", "good"]
    auto: bool = False
    check: int | None = None


class GroupObjectiveFailed(
    Event, frozen=True, kw_only=True, tag="d20-world.group_objective_failed"
):
    """A shared objective failed by an outside factor such as time ("Objectives"; campaign
    stream, ruling R43)."""

    line = "shared objective {objective!r} failed ({reason})"
    held_by_newcomers: ClassVar[bool] = True  # a character who joins later holds it too

    objective: str
    reason: str


GRANTED = "granted by The World"  # the advantage source of the option advantage (ruling R3)
IMPOSED = "imposed by The World"  # the disadvantage source of the option disadvantage


def roll_kept_no_inputs(payload: dict[str, Any]) -> dict[str, Any]:
    """Upcast a version-1 check (open or blind): its ``inputs`` rebuilt from its fields, as
    the rules read them back before rolls kept their inputs: the skill, ``practice`` when it
    was not known ("Learning Skills"), time, tools, the ally who helped, the traits invoked
    (``NAME:help``, comma-separated; as ``{"trait", "mode"}`` entries when a name holds a
    comma), the advantage The World granted and the disadvantage it imposed, ``spell``, the
    objective, and for an attack the target on the ledger and the weapon. An attack recorded
    with ``tools`` false (before the weapon was its tools, ruling R44) keeps ``tools`` false,
    so it is re-derived as it was ruled then. ("Checks", "Traits", "Magic", "Attacking")"""
    params: dict[str, Any] = {
        "time": payload.get("time", False),
        "tools": payload.get("tools", False),
        "practice": not payload.get("known", True),
        "spell": payload.get("spell", False),
        "help_from": payload.get("help_from", ""),
        "advantage": GRANTED in payload.get("advantages", []),
        "disadvantage": IMPOSED in payload.get("disadvantages", []),
        "objective": payload.get("objective"),
    }
    invoked = payload.get("invocations", [])
    if any("," in i["trait"] for i in invoked):
        params["trait"] = invoked
    elif invoked:
        params["trait"] = ", ".join(f"{i['trait']}:{i['mode']}" for i in invoked)
    params = {k: v for k, v in params.items() if v}
    inputs: dict[str, Any] = {"skill": payload.get("skill")}
    if isinstance(payload.get("vs_character"), str):
        inputs["vs_character"] = payload["vs_character"]
        if isinstance(payload.get("weapon"), str):
            params["weapon"] = payload["weapon"]
            if not payload.get("tools"):  # before the weapon was the tools: as ruled then
                params["tools"] = False
    return {**payload, "inputs": {**inputs, "params": params}}


def shock_kept_no_inputs(payload: dict[str, Any]) -> dict[str, Any]:
    """Upcast a version-1 shock roll: its ``inputs`` are the option ``shock`` ("Wounds")."""
    return {**payload, "inputs": {"params": {"shock": True}}}


UPCASTERS = {
    "d20-world.check_rolled": {1: roll_kept_no_inputs},
    "d20-world.blind_check_rolled": {1: roll_kept_no_inputs},
    "d20-world.shock_rolled": {1: shock_kept_no_inputs},
}
"""Old payload shapes of this plugin's event types (docs/plugin-guide.md "Revising an event
type")."""


EVENT_TYPES: tuple[type[Event], ...] = (
    CheckRolled,
    ShockRolled,
    ExperienceMarked,
    SkillIncreased,
    FavourChanged,
    BondCalled,
    TraitGained,
    TraitLost,
    CorruptionMarked,
    BondFormed,
    ItemAdded,
    ItemRemoved,
    ItemMoved,
    ItemRepaired,
    BagChanged,
    DamageTaken,
    AttackResolved,
    WoundHealed,
    ConditionAdded,
    ConditionEnded,
    Rested,
    ObjectiveOpened,
    ObjectiveContributed,
    ObjectiveFailed,
    HiddenConditionAdded,
    HiddenConditionEnded,
    BlindCheckRolled,
    GroupObjectiveOpened,
    GroupObjectiveContributed,
    GroupObjectiveFailed,
)
