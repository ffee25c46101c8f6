"""Terran Engine events (tags ``terran-engine.<past_tense>``).

Roll events (subclasses of :class:`ledger.Roll`) carry every die face and the band; the
others are recordable with ``campaign record <name> --field value``. Seed:
``003_2aeb47bc6ca82a40.txt`` (Terran Engine SRD v0.4.5); sections are cited per class.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Literal

from msgspec import UNSET, UnsetType

from ledger import Event, Roll, RuleError

# --- rolls --------------------------------------------------------------------------------


class AttributeRolled(Roll, frozen=True, kw_only=True, tag="terran-engine.attribute_rolled"):
    """A creation Attribute roll: 2d6, highest 1-3 → 0, 4-5 → 1, 6 → 2.

    (characters.html "1.2 Attributes".) ``faces`` are the two d6, ``highest`` the higher,
    ``value`` the creation value 0-2 (the no-Skills variant's +1 is added on the sheet).

    Every roll :meth:`~ledger_terran_engine.rules.rolls.Rolls.resolve` makes keeps what it was
    asked in ``inputs`` (by option name, recorded by the core); a schema version 1 payload is
    read with them rebuilt from its fields (:func:`roll_kept_no_inputs`).
    """

    schema_version = 2  # 1: no inputs (upcast by roll_kept_no_inputs)

    character: str
    attribute: str
    faces: list[int]
    highest: int
    value: int


class RiskyActionRolled(Roll, frozen=True, kw_only=True, tag="terran-engine.risky_action_rolled"):
    """A Risky Action: Light Dice (Attribute + Skill ± dice, 0-4) and chosen Dark Dice.

    (rules.html "2.1 Risky Actions"; "2.2.2 Montage".) ``light``/``dark`` are the faces in
    draw order (Light first), ``highest`` the highest of all (0 with no dice), ``outcome``
    ``fail`` (1-3 or no dice), ``mixed`` (4-5) or ``success`` (6). ``ego_cost`` is what the
    Dark Dice asked (1 per die ≤ Ego, 2 in a Montage), ``pooled`` what companions paid of it,
    ``ego_lost`` what this character lost (never more than the Ego it had).
    """

    schema_version = 2  # 1: no inputs (upcast by roll_kept_no_inputs)

    character: str
    attribute: str
    attribute_value: int
    skill: str | None = None
    skill_value: int = 0
    modifiers: list[str] = []
    light: list[int]
    dark: list[int]
    highest: int
    outcome: Literal["fail", "mixed", "success"]
    ego_before: int
    ego_cost: int
    pooled: int = 0
    ego_lost: int
    montage: bool = False
    challenge: str | None = None
    complication: int = 0
    advancements: list[str] = []
    conditions: list[str] = []
    allies_rallied: int = 0
    rivals_cursed: int = 0
    extra_damage: int = 0


class EffectRolled(Roll, frozen=True, kw_only=True, tag="terran-engine.effect_rolled"):
    """A character's Effect roll: highest die, exploding sixes (rules.html "2.2.1 Effects").

    ``code`` is the dice (``d/2``, ``1d``, ``1d+1``, ``2d`` ...), ``faces`` the dice rolled,
    ``explosions`` the extra dice of a 6, ``value`` the Effect. With ``challenge`` it lowers
    that Challenge's Disposition (armour never reduces it). The inputs ``effect`` (the
    ``--effect`` code given, ``None`` with a weapon) and ``twohands`` (``--twohands``: a
    medium 1d held two-handed is 1d+1) are recorded since results are re-derived; on events
    written before, they are ``UNSET`` (left out of the stored bytes) and read from the code
    and the state. ``vs_character`` is the character on the ledger the Effect is against
    (``--vs-character``, ruling T24): with ``--apply`` its value is their physical harm.
    """

    schema_version = 2  # 1: no inputs (upcast by roll_kept_no_inputs)

    character: str
    code: str
    faces: list[int]
    explosions: list[int] = []
    value: int
    challenge: str | None = None
    weapon: str | None = None
    advancements: list[str] = []
    effect: str | None | UnsetType = UNSET
    twohands: bool | UnsetType = UNSET
    vs_character: str | None = None


class ConsequenceRolled(Roll, frozen=True, kw_only=True, tag="terran-engine.consequence_rolled"):
    """A Challenge's Effect roll against a character (rules.html "2.2 Challenges", "2.2.1").

    ``consequence``: ``harm`` (physical: armour, shield, Protected, then the HP procedure of
    "1.3.1"), ``complication`` (−Nd on the next related Risky Action), ``fork`` (opens a new
    Challenge named ``fork`` of the table's level) or ``none`` (narrative only, ruling R22).
    ``protected`` are the Protected advancement's Dark Dice (drawn after the effect dice).
    ``effect`` is the ``--effect`` code given (``None``: the Challenge's own dice), recorded
    since results are re-derived (``UNSET``, left out of the stored bytes, on events written
    before: read from the state).
    """

    schema_version = 2  # 1: no inputs (upcast by roll_kept_no_inputs)

    character: str
    code: str
    faces: list[int]
    explosions: list[int] = []
    value: int
    challenge: str | None = None
    consequence: Literal["harm", "complication", "fork", "none"] = "harm"
    protected: list[int] = []
    shield_sacrificed: bool = False
    damage: int = 0
    complication: int = 0
    fork: str | None = None
    effect: str | None | UnsetType = UNSET


class FortuneRolled(Roll, frozen=True, kw_only=True, tag="terran-engine.fortune_rolled"):
    """The Fortune die: the GM defines the chances and rolls 1d (rules.html "2.3")."""

    schema_version = 2  # 1: no inputs (upcast by roll_kept_no_inputs)

    character: str
    face: int
    chances: str = ""


class AdvancementRolled(Roll, frozen=True, kw_only=True, tag="terran-engine.advancement_rolled"):
    """Roll Advancement: one die per Experience spent; sum ≥ Ego_max + HP_max gains one.

    (characters.html "1.4 Advancements".) ``session`` is the session whose ``advance`` made
    the roll; ``advancement`` the one chosen with the GM (``None``: to choose later with
    ``advancement-chosen``). Spent Experience is gone either way (ruling R12).

    ``sheet`` says which sheet gave the threshold: ``session_end``, the sheet as session
    ``session`` ended (ruling T22, schema version 2), or ``current``, the sheet when
    ``advance`` ran (version-1 payloads, written in an earlier release, upcast so).
    """

    schema_version = 2

    character: str
    session: int
    spent: int
    faces: list[int]
    total: int
    threshold: int
    success: bool
    advancement: str | None = None
    sheet: Literal["session_end", "current"] = "session_end"


class SkillDevelopmentRolled(
    Roll, frozen=True, kw_only=True, tag="terran-engine.skill_development_rolled"
):
    """Skill Development: one die per Experience spent; sum ≥ 3 × rating raises it by 1.

    (characters.html "1.4 Advancements"; rating 0 has threshold 0, ruling R11.) ``rating``
    is the Skill as session ``session`` ended (``sheet = "session_end"``, T22) or when
    ``advance`` ran (``"current"``, version-1 payloads written in an earlier release).
    """

    schema_version = 2

    character: str
    session: int
    skill: str
    spent: int
    faces: list[int]
    total: int
    threshold: int
    rating: int
    success: bool
    sheet: Literal["session_end", "current"] = "session_end"


# --- recorded facts -----------------------------------------------------------------------


class ExperienceGained(Event, frozen=True, kw_only=True, tag="terran-engine.experience_gained"):
    """Experience for a session: one per Ego lost in it (characters.html "1.4", ruling R8)."""

    line = "{character}: +{amount} Experience (Ego lost in session {session})"

    character: str
    session: int
    amount: int


class AdvancementChosen(Event, frozen=True, kw_only=True, tag="terran-engine.advancement_chosen"):
    """An Advancement won by a roll but chosen afterwards with the GM ("1.4")."""

    line = "{character}: chooses the Advancement {advancement}"

    character: str
    advancement: str


class ChallengeOpened(Event, frozen=True, kw_only=True, tag="terran-engine.challenge_opened"):
    """A Challenge faces the character (rules.html "2.2 Challenges").

    ``level``: Trivial, Dangerous, Serious, Formidable, Extreme, ``fantastical:N`` or a level
    index; ``count`` challenges ganging up raise it by one per two after the first.
    """

    character: str
    challenge: str
    level: str
    count: int = 1


class DispositionReduced(Event, frozen=True, kw_only=True, tag="terran-engine.disposition_reduced"):
    """Effect applied to a Challenge by hand (e.g. a companion's): Disposition −``amount``."""

    line = (
        "{{ challenge }} (facing {{ character }}) loses {{ amount }} Disposition"
        "{% if by %} by {{ by }}{% endif %}"
    )

    character: str
    challenge: str
    amount: int
    by: str = ""


class ChallengeClosed(Event, frozen=True, kw_only=True, tag="terran-engine.challenge_closed"):
    """A Challenge ends without its Disposition reaching 0 (fled, settled, failed)."""

    line = "{character}: {challenge} {status}"

    character: str
    challenge: str
    status: Literal["overcome", "failed", "abandoned"] = "abandoned"


class SharedChallengeOpened(
    Event, frozen=True, kw_only=True, tag="terran-engine.shared_challenge_opened"
):
    """A Challenge the group faces together, opened once on the campaign stream (no
    ``character``), so every character's sheet holds it (rules.html "2.2 Challenges": "Examples
    of Challenges are fighting an enemy, dueling rhetorically, negotiating an environment,
    crawling a location, journeying"; ruling T25). ``level`` and ``count`` as
    :class:`ChallengeOpened`; any character's Effect lowers its one Disposition.
    """

    held_by_newcomers: ClassVar[bool] = True  # a character who joins later holds it too

    challenge: str
    level: str
    count: int = 1


class SharedDispositionReduced(
    Event, frozen=True, kw_only=True, tag="terran-engine.shared_disposition_reduced"
):
    """An Effect lowers a shared Challenge's Disposition on every sheet (rules.html "2.2":
    "Challenges have Disposition, which measures how much Effect they take to be overcame";
    ruling T25). Written by ``campaign roll ID effect --challenge NAME`` right after the
    Effect roll ``roll`` (its seq) of the character ``by``; recorded by hand with ``roll`` 0
    (an Effect rolled at the table; ``by`` is then any name). On the campaign stream.
    """

    line = (
        "Effect {{ amount }}{% if by %} by {{ by }}{% endif %} on the shared Challenge "
        "{{ challenge }}{% if roll %} (roll {{ roll }}){% endif %}"
    )

    held_by_newcomers: ClassVar[bool] = True  # a character who joins later holds it too

    challenge: str
    amount: int
    by: str = ""
    roll: int = 0


class SharedChallengeClosed(
    Event, frozen=True, kw_only=True, tag="terran-engine.shared_challenge_closed"
):
    """A shared Challenge ends for the whole group without its Disposition reaching 0
    (fled, settled, failed; ruling T25). On the campaign stream."""

    line = "The group's Challenge {challenge}: {status}"

    held_by_newcomers: ClassVar[bool] = True  # a character who joins later holds it too

    challenge: str
    status: Literal["overcome", "failed", "abandoned"] = "abandoned"


class ComplicationAdded(Event, frozen=True, kw_only=True, tag="terran-engine.complication_added"):
    """−``dice`` d on the next Risky Action related to ``challenge`` ("2.2.1 Effects")."""

    line = "{character}: complication −{dice}d on the next action against {challenge}"

    character: str
    challenge: str
    dice: int


class HarmTaken(Event, frozen=True, kw_only=True, tag="terran-engine.harm_taken"):
    """Physical harm entered by hand: ``effect`` before armour ("2.2.1", "1.3.1").

    ``armour=False`` ignores worn armour and shield (e.g. falling); ``protected`` are
    Protected's Dark Dice faces rolled at the table.
    """

    line = (
        "{{ character }} takes harm: Effect {{ effect }} before armour"
        "{% if shield_sacrificed %}, shield sacrificed{% endif %}"
    )

    character: str
    effect: int
    armour: bool = True
    shield_sacrificed: bool = False
    protected: list[int] = []


class AttributeLost(Event, frozen=True, kw_only=True, tag="terran-engine.attribute_lost"):
    """The permanent Attribute point a Mortal Wound takes, chosen by the player ("1.3.1")."""

    line = "{character} loses 1 {attribute} for good (Mortal Wound)"

    character: str
    attribute: str


class ConditionTaken(Event, frozen=True, kw_only=True, tag="terran-engine.condition_taken"):
    """A permanent Condition taken to recover Ego to its maximum ("1.3.2", "1.5").

    ``detail`` says what it is about (the fear, the code); Obsessive Focus names its
    ``focus`` skill (+1d) and three ``neglected`` skills (−1d).
    """

    line = (
        "{{ character }} takes the Condition {{ condition }}"
        "{% if detail %} ({{ detail }}){% endif %}: Ego back to maximum"
    )

    character: str
    condition: str
    detail: str = ""
    focus: str = ""
    neglected: list[str] = []


class RestedNight(Event, frozen=True, kw_only=True, tag="terran-engine.rested_night"):
    """A well rested night: with no Wounds, HP recovers to HP_max ("1.3.1")."""

    line = "{character}: a well rested night"

    character: str


class WoundRecovered(Event, frozen=True, kw_only=True, tag="terran-engine.wound_recovered"):
    """A week of rest with appropriate care: Mortal → Critical, Critical → none ("1.3.1")."""

    line = "{character}: a week of rest with care, the Wound eases"

    character: str
    weeks: int = 1
    care: bool = True


class SkillAdapted(Event, frozen=True, kw_only=True, tag="terran-engine.skill_adapted"):
    """The character's Skill list adapted or expanded with the GM (characters.html "1.2.1
    Skills": "With the GM you can adapt or expand the generic list of Skills provided";
    "Section 3 Making a Game": "fine tuning the Attributes and Skill lists"; ruling T23).

    ``skill`` joins the character's list; with ``replaces`` it takes the place of that Skill
    (its rating moves to ``skill``), else it starts at 0 (raised by Skill Development).
    """

    character: str
    skill: str
    replaces: str = ""


class ArchetypeEvolved(Event, frozen=True, kw_only=True, tag="terran-engine.archetype_evolved"):
    """The character grows beyond their initial Archetype, toward a narrative of their own
    (characters.html "1.1 Archetypes": "It is expected you will evolve beyond these initial
    Archetypes towards unique narratives"; ruling T26).

    ``narrative`` is who they have become, in the table's words (not a list entry); the
    initial Archetype stays on the sheet, since it is where they began.
    """

    line = "{character} evolves beyond their Archetype: {narrative}"

    character: str
    narrative: str


class EgoPooled(Event, frozen=True, kw_only=True, tag="terran-engine.ego_pooled"):
    """A companion pays ``amount`` of a Montage's Ego cost for ``helped`` ("2.2.2", R21)."""

    line = "{character} pools {amount} Ego for {helped}'s Montage"

    character: str
    helped: str
    amount: int


class Rallied(Event, frozen=True, kw_only=True, tag="terran-engine.rallied"):
    """An ally's Rally: +1d on Risky Actions until the end of the scene ("1.4", Rally)."""

    line = "{{ character }} is rallied{% if by %} by {{ by }}{% endif %}: +1d this scene"

    character: str
    by: str = ""


class EquipmentChanged(Event, frozen=True, kw_only=True, tag="terran-engine.equipment_changed"):
    """Armour, shield or a weapon/tool changes ("2.2.1 Effects" tables).

    Only given fields change; ``weapon`` with ``code`` adds or replaces one, ``code=""``
    removes it.
    """

    character: str
    armour: Literal["none", "light", "heavy"] | None = None
    shield: bool | None = None
    weapon: str | None = None
    code: str | None = None


def sheet_was_current(payload: dict[str, object]) -> dict[str, object]:
    """Upcast a version-1 ``advancement_rolled``/``skill_development_rolled`` payload: its
    threshold came from the sheet when ``advance`` ran (``sheet = "current"``), as the
    ledger did in an earlier release (ruling T22)."""
    return {**payload, "sheet": "current"}


_DICE_MODIFIER = re.compile(r"^(position|extra) ([+-]\d+)d$")
_FLAG_MODIFIERS = {"heavy armour -1d": "hindered", "improvised tool -1d": "improvised"}


def _effect_given(code: str, advancements: int) -> str:
    """The Effect dice given to a weaponless Effect roll stored before they were: its code
    less the +1d per Advancement used (Sneak attack, Sniper; "1.4"), the inverse of
    :meth:`.rules.mechanics.EffectCode.more` (d/2 +kd is kd)."""
    from .rules import mechanics as m  # the rules import these events

    try:
        effect = m.parse_effect(code)
    except RuleError:  # no code of the rules': re-deriving the roll says so
        return code
    if not advancements:
        return code
    if effect.n > advancements:
        return str(m.EffectCode(n=effect.n - advancements, plus=effect.plus))
    return str(m.EffectCode(n=1, half=True, plus=effect.plus))


def roll_kept_no_inputs(payload: dict[str, Any]) -> dict[str, Any]:
    """Upcast a version-1 roll: its ``inputs`` rebuilt from its fields, as the rules read
    them back before rolls kept their inputs.

    - an Attribute rolled at creation: the Attribute and ``creation`` ("1.2");
    - a Risky Action: the Skill (or the Attribute alone) and its Attribute, the Dark Dice
      risked, the Position, other dice, heavy armour and an improvised tool from the pool's
      lines (``"position +1d"``, ``"heavy armour -1d"``), the Advancements and Conditions
      that applied, the Challenge, a Montage and the Ego companions paid ("2.1", "2.2.2");
    - an Effect: the weapon, or the Effect dice given (stored before they were: the code less
      the Advancements' dice), held two-handed, the Advancements, the Challenge and the
      character on the ledger it is against ("2.2.1");
    - a consequence: its kind, the Effect dice given (stored before they were: the dice
      rolled, which give the same roll), the Challenge, the fork, a shield sacrificed and
      Protected ("2.2", "2.2.1");
    - the Fortune die: its chances ("2.3").

    An Effect stored before ``twohands`` was leaves it out: the state before the roll says
    whether the weapon was held two-handed (:meth:`.rules.rederive.Rederive.rederive`).
    """
    kind = payload["type"]
    params: dict[str, Any] = {}
    inputs: dict[str, Any] = {}
    if kind == "terran-engine.attribute_rolled":
        skill, params["creation"] = payload.get("attribute"), True
    elif kind == "terran-engine.risky_action_rolled":
        skill = payload.get("skill") or payload.get("attribute")
        params.update(attribute=payload.get("attribute"), dark=len(payload.get("dark", [])))
        for entry in payload.get("modifiers", []):
            found = _DICE_MODIFIER.match(entry)
            if found:
                params[found[1]] = int(found[2])
            elif entry in _FLAG_MODIFIERS:
                params[_FLAG_MODIFIERS[entry]] = True
        for key in ("challenge", "montage", "pooled"):
            params[key] = payload.get(key)
        params.update(advancement=payload.get("advancements"), condition=payload.get("conditions"))
    elif kind == "terran-engine.effect_rolled":
        skill = "effect"
        if payload.get("weapon"):
            params["weapon"] = payload["weapon"]
        elif "effect" in payload:
            params["effect"] = payload["effect"]
        else:
            given = _effect_given(str(payload.get("code")), len(payload.get("advancements", [])))
            params["effect"] = given
        params.update(twohands=payload.get("twohands") is True, challenge=payload.get("challenge"),
                      advancement=payload.get("advancements"))  # fmt: skip
        if payload.get("vs_character"):
            inputs["vs_character"] = payload["vs_character"]
    elif kind == "terran-engine.consequence_rolled":
        skill = "consequence"
        params.update(
            consequence=payload.get("consequence", "harm"),
            effect=payload["effect"] if "effect" in payload else payload.get("code"),
            challenge=payload.get("challenge"),
            fork=payload.get("fork"),
            sacrifice=payload.get("shield_sacrificed"),
            protected=bool(payload.get("protected")),
        )
    else:
        skill, params["fortune"] = "fortune", payload.get("chances")
    params = {k: v for k, v in params.items() if v}
    return {**payload, "inputs": {"skill": skill, **inputs, "params": params}}


UPCASTERS = {
    "terran-engine.advancement_rolled": {1: sheet_was_current},
    "terran-engine.skill_development_rolled": {1: sheet_was_current},
    **dict.fromkeys(
        (
            "terran-engine.attribute_rolled",
            "terran-engine.risky_action_rolled",
            "terran-engine.effect_rolled",
            "terran-engine.consequence_rolled",
            "terran-engine.fortune_rolled",
        ),
        {1: roll_kept_no_inputs},
    ),
}
"""Old payload shapes of this plugin's event types (docs/plugin-guide.md "Revising an
event type")."""


EVENT_TYPES = (
    AttributeRolled,
    RiskyActionRolled,
    EffectRolled,
    ConsequenceRolled,
    FortuneRolled,
    AdvancementRolled,
    SkillDevelopmentRolled,
    ExperienceGained,
    AdvancementChosen,
    ChallengeOpened,
    DispositionReduced,
    ChallengeClosed,
    ComplicationAdded,
    HarmTaken,
    AttributeLost,
    ConditionTaken,
    RestedNight,
    WoundRecovered,
    EgoPooled,
    Rallied,
    EquipmentChanged,
    SkillAdapted,
    SharedChallengeOpened,
    SharedDispositionReduced,
    SharedChallengeClosed,
    ArchetypeEvolved,
)
