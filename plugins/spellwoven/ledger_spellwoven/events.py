"""Spellwoven's events (seed 004_663ae3e4ecc71fd1.txt; docs/rulings/spellwoven.md).

Every event names its ``character``, so it goes to that character's stream. Tags are
``"spellwoven.<past_tense>"`` and never change. No floats anywhere: successes, dice and
Effort are integers.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from msgspec import UNSET, UnsetType

from ledger import Event, Roll


class SkillRoll(Roll, frozen=True, kw_only=True):
    """The roller's side of a Test or Contest of Skill (fields documented on
    :class:`TestRolled`); not an event on its own (no tag)."""

    character: str
    skill: str
    attribute: str
    attribute_value: int
    rank: int | None = None
    skill_level: int
    mode: Literal["normal", "advantage", "disadvantage"] = "normal"
    weakness: bool = False
    dice: list[int]
    kept: list[int] | None = None
    dice_successes: int
    effort_spent: int = 0
    effort_bonus: int = 0
    successes: int
    pool: int | UnsetType = UNSET


class TestRolled(SkillRoll, frozen=True, kw_only=True, tag="spellwoven.test_rolled"):
    """A Test of Skill: 3d10 (4d10 keep three at advantage or disadvantage) rolled under
    the Skill Level against a static difficulty (Spellwoven: Rules for the Game, "Test of Skill",
    "Difficulty levels", "Static Difficulty from Attributes", "Advantage & Disadvantage").

    :ivar character: the character id.
    :ivar skill: the skill (or specialisation, or Attribute) tested, as on the sheet.
    :ivar attribute: the relevant Attribute (the skill's linked one unless the GM named one).
    :ivar attribute_value: that Attribute's rating, 1..4 (the Effort bonus).
    :ivar rank: the skill's rank, ``None`` when untrained.
    :ivar skill_level: ``S``, the level rolled against (``max(rank, attribute)``).
    :ivar mode: ``normal``, ``advantage`` or ``disadvantage``.
    :ivar weakness: the roller exploits the target's Weakness (which gave the advantage).
    :ivar dice: every d10 face in roll order (empty for an automatic hit).
    :ivar kept: the faces kept, in roll order, when one die was dropped; else ``None``.
    :ivar dice_successes: successes the kept dice score.
    :ivar effort_spent: Effort spent on the roll when it was made (0 or 1).
    :ivar effort_bonus: successes Effort added (Attribute × Effort spent).
    :ivar successes: ``dice_successes + effort_bonus``.
    :ivar pool: dice kept by the GM's fiat (``--pool``, 1..10), recorded only when not 3
        ("Basic Distributions"); absent from rolls of 3 and from rolls stored before it was.
    :ivar difficulty: successes required, 0..4 (0: automatic hit, no dice).
    :ivar target_attribute: the target's Attribute when the difficulty came from it.
    :ivar outcome: ``pass`` or ``fail``.

    What it was asked is in ``inputs`` (by option name, recorded by the core); a schema
    version 1 payload is read with them rebuilt from its fields (:func:`roll_kept_no_inputs`).
    """

    section = "Overview: The Basic Mechanic; Test of Skill; Difficulty levels"
    schema_version = 2  # 1: no inputs (upcast by roll_kept_no_inputs)
    __test__ = False  # a rule-system event, not a pytest class

    difficulty: int
    target_attribute: int | None = None
    outcome: Literal["pass", "fail"]


class ContestRolled(SkillRoll, frozen=True, kw_only=True, tag="spellwoven.contest_rolled"):
    """A Contest of Skill: the character and an opponent both roll, most successes wins,
    the same number is a draw (Spellwoven: Rules for the Game, "Opposed Roll (Contest of
    Skill)", "Example: Opposed Roll").

    The character's dice are drawn first, then the opponent's. Fields as
    :class:`TestRolled` for the character, plus:

    :ivar opponent: the opponent's name (``""`` when not given).
    :ivar opponent_skill_level: the opponent's Skill Level, 1 or more.
    :ivar opponent_mode: ``normal``, ``advantage`` or ``disadvantage``.
    :ivar opponent_dice: the opponent's faces; :ivar opponent_kept: kept faces or ``None``.
    :ivar opponent_successes: the opponent's successes.
    :ivar outcome: ``win``, ``lose`` or ``draw`` for the character.
    :ivar vs_character: the opponent's id when they are a character on the ledger
        (``--vs-character``, ruling SW5); ``vs_skill`` is the skill they rolled, whose Skill
        Level (from their sheet) is ``opponent_skill_level``.
    :ivar vs_effort_spent: Effort the opponent on the ledger spent on their side (1,
        ``--vs-effort``; ruling SW10; absent when none); then ``vs_attribute`` is their
        relevant Attribute and ``vs_effort_bonus`` its rating, included in
        ``opponent_successes``. The same batch
        takes the point from them (:class:`ContestEffortSpent` on their stream).
    """

    section = "Example: Opposed Roll; Example Contests of Skill"
    schema_version = 2  # 1: no inputs (upcast by roll_kept_no_inputs)
    opponent: str = ""
    opponent_skill_level: int
    opponent_mode: Literal["normal", "advantage", "disadvantage"] = "normal"
    opponent_dice: list[int]
    opponent_kept: list[int] | None = None
    opponent_successes: int
    outcome: Literal["win", "lose", "draw"]
    vs_character: str | None = None
    vs_skill: str | None = None
    vs_effort_spent: int | UnsetType = UNSET
    vs_attribute: str | UnsetType = UNSET
    vs_effort_bonus: int | UnsetType = UNSET


class ContestEffortSpent(Event, frozen=True, kw_only=True, tag="spellwoven.contest_effort_spent"):
    """The opponent's side of a Contest of Skill against a character on the ledger: they
    spend a point of Effort and add their relevant Attribute to their successes
    (Spellwoven: Rules for the Game, "Example Contests of Skill": "In a **Contest of Skill**, both
    Characters test their skill"; "Attributes and Effort": "When you test your Skill you have
    the option to expend extra **Effort** and add bonus successes"; ruling SW10).

    Written by ``campaign roll ROLLER SKILL --vs-character THEM --vs-effort`` in the roll's
    batch, after its ``contest.opposed``, on the opponent's stream (checked at its
    expected version); it counts only while the roll does (retracting the roll gives the
    point back) and is corrected through the roll, never on its own.

    :ivar character: the opponent (this event's stream).
    :ivar roller: the character who rolled.
    :ivar roll: the contest roll's seq.
    :ivar attribute: the Attribute they added (their skill's linked one).
    :ivar bonus: successes added, the Attribute's rating (1..4).
    """

    section = "Attributes and Effort; Example Contests of Skill"
    line = (
        "{character} spends 1 Effort in the Contest of Skill of roll {roll} "
        "(against {roller}): +{bonus} ({attribute})"
    )
    part_of_roll: ClassVar[bool] = True  # written and corrected only with its roll

    character: str
    roller: str
    roll: int
    attribute: str
    bonus: int


class EffortSpent(Event, frozen=True, kw_only=True, tag="spellwoven.effort_spent"):
    """One point of Effort spent after a roll, adding the relevant Attribute to the
    character's latest roll and re-judging it (Spellwoven: Rules for the Game, "Attributes and
    Effort", "Example: Opposed Roll": "She spends 1 Effort and adds +3 from Quickness").

    :ivar character: the character id.
    :ivar attribute: the Attribute added; default the one the latest roll used.
    :ivar roll: the seq of the roll the Effort is spent on, one of the character's rolls in
        the scene (default: the latest roll).
    :ivar latest: the Effort went to the latest roll whatever ``roll`` says (payloads
        written in an earlier release, schema version 1, upcast so).
    :ivar bonus: successes added (the Attribute's rating), filled by ``campaign effort``.
    :ivar successes: the roll's successes after the Effort, filled by ``campaign effort``.
    :ivar outcome: the roll's outcome after the Effort, filled by ``campaign effort``.

    The last three are optional (``record effort-spent`` may leave them out); when given,
    the applier checks them against the latest roll.
    """

    section = "Attributes and Effort"
    line = (
        "{{ character }} spends 1 Effort {% if roll is not none %}on roll {{ roll }}"
        "{% else %}on the latest roll{% endif %}"
        "{% if bonus is not none and successes is not none and outcome %}: +{{ bonus }}"
        "{% if attribute %} ({{ attribute }}){% endif %} = {{ successes }} success"
        "{{ '' if successes == 1 else 'es' }}: {{ outcome }}"
        "{% elif attribute %} (+{{ attribute }}){% endif %}"
    )
    schema_version = 2

    character: str
    attribute: str | None = None
    roll: int | None = None
    bonus: int | None = None
    successes: int | None = None
    outcome: Literal["pass", "fail", "win", "lose", "draw"] | None = None
    latest: bool = False


def roll_was_a_note(payload: dict[str, object]) -> dict[str, object]:
    """Upcast a version-1 ``effort_spent`` payload: its ``roll`` was a note for the reader
    and the Effort went to the latest roll (in an earlier release), so ``latest = True`` keeps it so."""
    return {**payload, "latest": True}


def roll_kept_no_inputs(payload: dict[str, Any]) -> dict[str, Any]:
    """Upcast a version-1 Test or Contest of Skill: its ``inputs`` rebuilt from its fields,
    as the rules read them back before rolls kept their inputs. The skill and its Attribute
    (always: the skill's linked one or the one the GM named, ruling S7); the calls behind
    ``mode`` and ``weakness`` (a ``weakness`` roll of mode ``normal`` had a disadvantage that
    cancelled it, ruling S8); ``pool`` when recorded; ``effort`` when Effort was spent with
    the roll; for a Test the target's Attribute or else the difficulty (as its number); for a
    Contest the character on the ledger opposing it (their skill, their Effort) or the
    opponent off the ledger as ``{"name", "level", "mode"}`` (so any name reads back).
    (004_663ae3e4ecc71fd1.txt, "Test of Skill", "Opposed Roll (Contest of Skill)",
    "Advantage & Disadvantage")"""
    params: dict[str, Any] = {"attribute": payload["attribute"]}
    mode = payload.get("mode", "normal")
    if payload.get("weakness"):
        params["weakness"] = True
        if mode != "advantage":
            params["disadvantage"] = True
    elif mode != "normal":
        params[mode] = True
    if "pool" in payload:
        params["pool"] = payload["pool"]
    if payload.get("effort_spent"):
        params["effort"] = True
    inputs: dict[str, Any] = {"skill": payload["skill"]}
    if payload.get("type") == "spellwoven.contest_rolled":
        if payload.get("vs_character"):
            inputs["vs_character"] = payload["vs_character"]
            if payload.get("vs_skill"):
                inputs["vs_skill"] = payload["vs_skill"]
            if payload.get("vs_effort_spent"):
                params["vs_effort"] = True
        else:
            params["vs"] = {
                "name": payload.get("opponent", ""),
                "level": payload["opponent_skill_level"],
                "mode": payload.get("opponent_mode", "normal"),
            }
    elif payload.get("target_attribute") is not None:
        params["target"] = payload["target_attribute"]
    else:
        params["difficulty"] = str(payload["difficulty"])
    return {**payload, "inputs": {**inputs, "params": params}}


UPCASTERS = {
    "spellwoven.effort_spent": {1: roll_was_a_note},
    "spellwoven.test_rolled": {1: roll_kept_no_inputs},
    "spellwoven.contest_rolled": {1: roll_kept_no_inputs},
}
"""Old payload shapes of this plugin's event types (docs/plugin-guide.md "Revising an event
type")."""


class EffortLost(Event, frozen=True, kw_only=True, tag="spellwoven.effort_lost"):
    """Effort lost as the cost of a failure ("it costs you an Effort to reach the top";
    Spellwoven: Rules for the Game, "Degrees of Failure"). Effort never drops below 0.

    :ivar amount: points lost, 1 or more.
    """

    section = "Attributes and Effort"
    line = "{{ character }} loses {{ amount }} Effort{% if reason %}: {{ reason }}{% endif %}"
    character: str
    amount: int = 1
    reason: str = ""


class Slept(Event, frozen=True, kw_only=True, tag="spellwoven.slept"):
    """A night's sleep: Effort refreshes to its maximum ("a pool representing your state of
    exhaustion, this refreshes with a night's sleep"; Spellwoven: Rules for the Game, "Attributes
    and Effort")."""

    section = "Attributes and Effort"
    line = "{character} sleeps the night: Effort refreshed"
    character: str


class WeaknessExploited(Event, frozen=True, kw_only=True, tag="spellwoven.weakness_exploited"):
    """The character's Combat or Social Weakness is used against them: the opponent rolls at
    advantage (Spellwoven: Rules for the Game, "Weaknesses"). A record of the fiction; the
    opponent's roll carries the advantage (``--weakness`` or ``--vs NAME:S:weakness``).

    :ivar weakness: ``combat`` or ``social``.
    :ivar by: who exploits it.
    :ivar roll: the seq of the opponent's roll, if recorded.
    """

    section = "Weaknesses"
    line = (
        "{{ character }}'s {{ weakness }} Weakness is used against them"
        "{% if by %} by {{ by }}{% endif %}"
    )
    character: str
    weakness: Literal["combat", "social"]
    by: str = ""
    roll: int | None = None


class SkillChanged(Event, frozen=True, kw_only=True, tag="spellwoven.skill_changed"):
    """A GM-granted new rank for a skill (the text has no advancement procedure, but "Skills
    can be increased to 10 and above"; Spellwoven: Rules for the Game, "Skill level 10+";
    rulings S1, S10).

    :ivar skill: the skill; a new skill needs ``attribute``.
    :ivar rank: the new rank, 1 or more (capped by the ``skill_cap_in_play`` option).
    :ivar attribute: the linked Attribute of a new skill.
    """

    section = "Overview: The Basic Mechanic"
    # the skill in the sheet's notation, "jen: Sprint: 12 (4/9)" ("Skill level 10+")
    line = "{{ character }}: {{ notation(skill, rank) }}{% if reason %} ({{ reason }}){% endif %}"
    character: str
    skill: str
    rank: int
    attribute: str | None = None
    reason: str = ""


class SpecialisationLearned(
    Event, frozen=True, kw_only=True, tag="spellwoven.specialisation_learned"
):
    """A new Specialisation of a skill the character has, with its own rank (ruling SW11:
    the text names Specialisations, "either **Brawling** or **One-Handed Bludgeon** might
    have been suitable", Spellwoven: Rules for the Game, "Example: Opposed Roll", and says "Skills
    can be increased to 10 and above", "Skill level 10+"; it gives no procedure, so the GM
    grants it, as ``skill-changed``).

    :ivar specialisation: its name, new to the sheet (not a skill, Attribute or
        specialisation already held).
    :ivar skill: the parent skill, on the sheet.
    :ivar rank: 1 or more (capped by ``skill_cap_in_play``).
    """

    section = "Example: Opposed Roll; Skill level 10+"
    line = (
        "{{ character }} learns the Specialisation {{ specialisation }} ({{ skill }}): "
        "{{ notation(specialisation, rank) }}{% if reason %} ({{ reason }}){% endif %}"
    )
    character: str
    specialisation: str
    skill: str
    rank: int
    reason: str = ""


class ConditionAdded(Event, frozen=True, kw_only=True, tag="spellwoven.condition_added"):
    """A narrated outcome of a failure that lasts ("you twist your arm, making it hard to
    hold a weapon for a couple hours"; Spellwoven: Rules for the Game, "Degrees of Failure").
    No mechanics are attached."""

    section = "Advantage & Disadvantage"
    line = "{character} now: {condition}"
    character: str
    condition: str


class ConditionRemoved(Event, frozen=True, kw_only=True, tag="spellwoven.condition_removed"):
    """A condition of :class:`ConditionAdded` ends (Spellwoven: Rules for the Game, "Degrees of
    Failure")."""

    section = "Advantage & Disadvantage"
    line = "{character} no longer: {condition}"
    character: str
    condition: str
