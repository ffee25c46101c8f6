"""Spellwoven character state and campaign options (seed 004_663ae3e4ecc71fd1.txt).

:class:`Character` is one character's state, folded from events by
:class:`ledger_spellwoven.appliers.Appliers`; :class:`Options` the campaign's options. Both
are encoded into snapshots: their fields, order and defaults never change (new fields get
defaults).
"""

from __future__ import annotations

from typing import Literal

import msgspec


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
    :ivar night_hours: the shortest rest (``campaign time pass DURATION --rest``), in hours,
        that is "a night's sleep" and refreshes Effort (the text gives no length; ruling
        SW-T1).
    """

    untrained: Literal["max3attr", "fixed3", "attribute"] = "max3attr"
    effort_max: int | None = None
    max_effort_per_roll: int = 1
    pc_skill_min: int = 4
    pc_skill_max: int = 9
    skill_cap_in_play: int | None = None
    default_difficulty: int = 1
    require_weaknesses: bool = True
    #: unset (not stored, so campaigns made in an earlier release keep their bytes) means 8
    night_hours: int | msgspec.UnsetType = msgspec.UNSET


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
    is the roll's seq (:func:`ledger.applying_seq`; ``None`` when unknown).
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
    """One Spellwoven character's state (docs/rulings/spellwoven.md).

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
