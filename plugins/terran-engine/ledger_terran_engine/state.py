"""Campaign options, character state and the values derived from it.

Seed ``003_2aeb47bc6ca82a40.txt``, characters.html "Section 1 Characters"; docs/rulings/terran-engine.md
State is a frozen ``msgspec.Struct``; HP_max, Ego_max and effective Attributes are derived
here (never stored) so that Advancements, Conditions and lost points always agree. The
character's vocabulary (Attributes, Skills, Archetypes, Advancements, Conditions) is named
here too; :mod:`.rules.mechanics` re-exports the part the mechanics use.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from ledger import RuleError

ATTRIBUTES: tuple[str, ...] = ("Strength", "Agility", "Insight", "Charisma")
"""The four Attributes (SEED, characters.html "1.2 Attributes")."""

DEFAULT_SKILLS: tuple[str, ...] = ("Violence", "Exploration", "Social", "Survival", "Vocational")
"""The generic Skill list (SEED, "1.2.1 Skills"); campaigns may replace it (option ``skills``)."""

ARCHETYPES: tuple[str, ...] = (
    "Hero", "Mentor", "Everyman", "Innocent", "Ruler", "Sage",
    "Explorer", "Outlaw", "Magician", "Lover", "Jester", "Caregiver",
)
"""The twelve Archetypes (SEED, "1.1 Archetypes"); option ``archetypes`` may replace them."""

ATTRIBUTE_MAX = 3
"""Highest Attribute value: the three-dot track (ruling R13)."""


def canonical(name: str, choices: tuple[str, ...] | list[str], what: str) -> str:
    """The entry of ``choices`` that ``name`` names, ignoring case and surrounding spaces.

    :raises RuleError: ``name`` is none of ``choices`` (the sentence lists them).
    """
    wanted = name.strip().casefold()
    for choice in choices:
        if choice.casefold() == wanted:
            return choice
    article = "an" if what[:1].lower() in "aeiou" else "a"
    raise RuleError(f"{name!r} is not {article} {what}; choose one of: {', '.join(choices)}")

ADVANCEMENTS: tuple[str, ...] = (
    "Extra Attribute", "Protected", "Sensory acuity", "Sneak attack", "Sniper", "Rally",
    "Multi-attack", "Tough", "Curse", "Retire", "Fast",
)
"""The Advancements list (SEED, characters.html "1.4 Advancements")."""

NEEDS_DETAIL = {"Extra Attribute": "an Attribute", "Sensory acuity": "a sense"}
"""Advancements chosen with a parameter, written ``"Name: detail"``."""

POOL_BONUS_ADVANCEMENTS = ("Sensory acuity", "Sneak attack", "Sniper")
"""Advancements giving +1d to a Risky Action they apply to ("1.4")."""

CONDITIONS: tuple[str, ...] = (
    "Fear-Driven Vigilance", "Obsessive Focus", "Moral Reservations", "Compulsive Honesty",
    "Kleptomaniac", "Battle-Scarred", "Protective Instinct", "Estranged", "Slow",
)
"""The Conditions list (SEED, characters.html "1.5 Conditions")."""

CONDITIONS_ONCE = (
    "Obsessive Focus", "Compulsive Honesty", "Kleptomaniac", "Protective Instinct", "Slow",
)
"""Conditions about no one thing, so taken at most once (ruling T19): "Your single-minded
pursuit", "You vow to always speak the truth", ... ("1.5"). The others are about a fear, a
moral code, an injury or someone (Estranged: "the bond with someone you love"), so the same
one is refused only with the same detail."""

SITUATIONAL_CONDITIONS = ("Fear-Driven Vigilance", "Moral Reservations", "Protective Instinct")
"""Conditions giving −1d to Risky Actions in their situation ("1.5")."""


class Options(msgspec.Struct, kw_only=True):
    """Campaign options (every one defaulted; see docs/rulings/terran-engine.md).

    :ivar ego_check: ``simultaneous`` (R7) or ``sequential`` Dark Dice against Ego.
    :ivar d_half: ``ceil``, ``floor_min1`` or ``explode_then_halve`` (R6).
    :ivar complication_over_17: dice of complication for a Challenge Effect above 17: 3
        (text) or 4 (simulation code, R4).
    :ivar attributes_only: the no-Skills variant ("1.2.1" Optional).
    :ivar skill_points: Skill points at creation (4).
    :ivar skills, archetypes: the setting's lists (SEED "Section 3 Making a Game");
        empty means the text's own (see :meth:`skill_names`, :meth:`archetype_names`).
    :ivar extra_advancements, extra_conditions: setting additions (no dice effects).
    :ivar creation_advancements: Advancements a new character may choose (1, "Optional").
    :ivar allow_condition_at_zero: a Condition may rescue a character whose Ego hit 0 (R10).
    :ivar ego_resets_at_session_start: Ego back to Ego_max at each session start (R9).
    """

    ego_check: Literal["simultaneous", "sequential"] = "simultaneous"
    d_half: Literal["ceil", "floor_min1", "explode_then_halve"] = "ceil"
    complication_over_17: Literal[3, 4] = 3
    attributes_only: bool = False
    skill_points: int = 4
    skills: list[str] = []
    archetypes: list[str] = []
    extra_advancements: list[str] = []
    extra_conditions: list[str] = []
    creation_advancements: int = 1
    allow_condition_at_zero: bool = False
    ego_resets_at_session_start: bool = False
    #: the shortest rest (``time pass ... --rest``), in hours, that is "a well rested night"
    #: (the text gives no length; ruling T30-1); unset (not stored, so campaigns made
    #: in an earlier release keep their bytes) means 8
    night_hours: int | msgspec.UnsetType = msgspec.UNSET

    def skill_names(self) -> tuple[str, ...]:
        """The campaign's Skills: ``skills`` or, when empty, the text's five."""
        return tuple(self.skills) or DEFAULT_SKILLS

    def archetype_names(self) -> tuple[str, ...]:
        """The campaign's Archetypes: ``archetypes`` or, when empty, the text's twelve."""
        return tuple(self.archetypes) or ARCHETYPES


class Challenge(msgspec.Struct, frozen=True, kw_only=True):
    """A Challenge facing a character ("2.2"): effective level, Disposition left, status,
    and the complication dice waiting for the next related Risky Action. ``shared``: the
    group faces it together and every sheet holds the same Disposition (ruling T25);
    complications stay each character's own."""

    name: str
    level: int
    disposition: int
    status: Literal["open", "overcome", "failed", "abandoned"] = "open"
    complication: int = 0
    shared: bool = False


class OwedEffect(msgspec.Struct, frozen=True, kw_only=True):
    """An Effect roll (seq ``roll``) on a shared Challenge whose Disposition change
    (``shared_disposition_reduced``, in the same batch) is still to come (ruling T25)."""

    roll: int
    challenge: str
    value: int


class Condition(msgspec.Struct, frozen=True, kw_only=True):
    """A permanent Condition ("1.5"); Obsessive Focus carries its focus/neglected skills."""

    name: str
    detail: str = ""
    focus: str = ""
    neglected: list[str] = []


class SessionSheet(msgspec.Struct, frozen=True, kw_only=True):
    """What the advancement of a session reads of the sheet as that session ended
    ("1.4": "At the end of each session ..."; ruling T22): Ego_max, HP_max, the Skills."""

    ego_max: int
    hp_max: int
    skills: dict[str, int] = {}


class Character(msgspec.Struct, frozen=True, kw_only=True):
    """One character's state (docs/rulings/terran-engine.md).

    ``rolled`` holds creation Attribute values (absent until rolled); effective values come
    from :func:`attribute`. ``unchosen`` counts Advancements won but not yet chosen.
    ``credited``/``spent`` are the sessions whose Experience was gained / spent (they make
    ``advance`` idempotent by replay). ``last_dark`` is the Dark Dice of the latest Risky
    Action (Protected's count, R15); ``exchange_*`` track Fast/Slow ordering since it (R20).
    ``last_outcome`` is the latest Risky Action's band (``None`` before any, and after a scene
    ends) and ``montage_effects`` the Challenges whose Effect was rolled as a complication
    since it (a Montage's first step, T8): they put Effects, consequences and Montages in
    order (ruling T21). ``session_sheets`` holds the sheet as each session ended, which that
    session's advancement reads (ruling T22). ``skills_added``/``skills_dropped`` adapt the
    campaign's Skill list for this character (``skill_adapted``, ruling T23).
    ``owed_effects`` are this character's Effect rolls on shared Challenges whose Disposition
    change is still to come in the same batch (ruling T25). ``narratives`` are what the
    character evolved into beyond their Archetype, oldest first (ruling T26).
    """

    id: str
    name: str
    archetype: str
    rolled: dict[str, int] = {}
    attribute_bonus: str | None = None
    losses: dict[str, int] = {}
    skills: dict[str, int] = {}
    advancements: list[str] = []
    unchosen: int = 0
    conditions: list[Condition] = []
    hp: int = 0
    ego: int = 0
    wound: Literal["none", "critical", "mortal", "dead"] = "none"
    #: minutes of rest with appropriate care towards the Wound's next step ("a week of
    #: rest", "1.3.1"; ``time.passed``)
    wound_rest: int = 0
    lost: bool = False
    experience: int = 0
    credited: list[int] = []
    spent: list[int] = []
    ego_lost_session: int = 0
    armour: Literal["none", "light", "heavy"] = "none"
    shield: bool = False
    weapons: dict[str, str] = {}
    challenges: list[Challenge] = []
    pending_loss: int = 0
    rallied: bool = False
    last_dark: int = 0
    exchange_overcame: list[str] = []
    exchange_taken_out: bool = False
    successor_advancements: int = 0
    last_outcome: Literal["fail", "mixed", "success"] | None = None
    montage_effects: list[str] = []
    session_sheets: dict[int, SessionSheet] = {}
    skills_added: list[str] = []
    skills_dropped: list[str] = []
    owed_effects: list[OwedEffect] = []
    narratives: list[str] = []


# --- derived values -----------------------------------------------------------------------


def advancement_name(entry: str) -> str:
    """``"Extra Attribute: Strength"`` → ``"Extra Attribute"``."""
    return entry.partition(":")[0].strip()


def advancement_detail(entry: str) -> str:
    """``"Extra Attribute: Strength"`` → ``"Strength"`` (``""`` without a detail)."""
    return entry.partition(":")[2].strip()


def has(state: Character, advancement: str) -> bool:
    """Whether the character has the Advancement ``advancement`` (any detail)."""
    return any(advancement_name(a) == advancement for a in state.advancements)


def has_condition(state: Character, condition: str) -> bool:
    """Whether the character has taken the Condition ``condition``."""
    return any(c.name == condition for c in state.conditions)


def attribute(state: Character, name: str) -> int | None:
    """Effective Attribute: creation value + no-skills bonus + Extra Attribute − Mortal
    Wound losses, within 0..3 ("1.2", "1.4", "1.3.1", R13); ``None`` while unrolled."""
    if name not in state.rolled:
        return None
    extra = sum(1 for a in state.advancements if a == f"Extra Attribute: {name}")
    bonus = 1 if state.attribute_bonus == name else 0
    value = state.rolled[name] + bonus + extra - state.losses.get(name, 0)
    return max(0, min(ATTRIBUTE_MAX, value))


def attribute_or_zero(state: Character, name: str) -> int:
    """:func:`attribute`, with 0 for an Attribute not rolled yet."""
    return attribute(state, name) or 0


def complete(state: Character) -> bool:
    """Whether all four Attributes are rolled (creation finished)."""
    return all(a in state.rolled for a in ATTRIBUTES)


def advancement_count(state: Character) -> int:
    """A: Advancements held plus those won but not yet chosen."""
    return len(state.advancements) + state.unchosen


def hp_max(state: Character) -> int:
    """HP_max = Strength + Agility + 2, +1 per Advancement, and +1 more each with Tough.

    (SEED, "1.3.1 HP"; "1.4" Tough: "one additional HP per Advancement", ruling R14.) The
    Advancements counted are every one held, Tough included, and those still to choose.
    """
    advancements = advancement_count(state)
    tough = advancements if has(state, "Tough") else 0
    return (
        attribute_or_zero(state, "Strength") + attribute_or_zero(state, "Agility") + 2
        + advancements + tough
    )


def ego_max(state: Character) -> int:
    """Ego_max = Insight + Charisma + 2, −1 per Estranged condition, never below 0.

    (SEED, "1.3.2 Ego": "Insight and Empathy", Empathy read as Charisma, ruling R1;
    "1.5 Conditions" Estranged: "Ego_max − 1".)
    """
    estranged = sum(1 for c in state.conditions if c.name == "Estranged")
    insight, charisma = attribute_or_zero(state, "Insight"), attribute_or_zero(state, "Charisma")
    return max(0, insight + charisma + 2 - estranged)


def retired(state: Character) -> bool:
    """Whether the character took Retire ("1.4")."""
    return has(state, "Retire")


def out_of_play(state: Character) -> str | None:
    """Why the character can act no more (dead, lost, retired), or ``None``."""
    if state.wound == "dead":
        return f"{state.name} is dead"
    if state.lost:
        return f"{state.name} is lost (Ego reached 0)"
    if retired(state):
        return f"{state.name} has retired"
    return None


def find_challenge(state: Character, name: str) -> Challenge:
    """The character's Challenge called ``name`` (case-insensitive).

    :raises RuleError: no such Challenge (the sentence lists the open ones).
    """
    for c in state.challenges:
        if c.name.casefold() == name.strip().casefold():
            return c
    names = ", ".join(c.name for c in state.challenges) or "none"
    raise RuleError(
        f"{state.name} faces no Challenge called {name!r} (theirs: {names}); "
        "open it with `campaign record challenge-opened`"
    )


def replace_challenge(state: Character, challenge: Challenge) -> list[Challenge]:
    """The challenges list with ``challenge`` replacing the one of the same name."""
    return [challenge if c.name == challenge.name else c for c in state.challenges]


def with_maxima_change(old: Character, new: Character) -> Character:
    """``new`` with HP and Ego following changes of their maxima (rulings T3, T4).

    A raised HP_max raises HP by as much while unwounded; a raised Ego_max raises Ego while
    not lost; lowered maxima clamp the current values.
    """
    d_hp = hp_max(new) - hp_max(old)
    d_ego = ego_max(new) - ego_max(old)
    hp = new.hp + (d_hp if d_hp > 0 and new.wound == "none" else 0)
    ego = new.ego + (d_ego if d_ego > 0 and not new.lost else 0)
    return msgspec.structs.replace(
        new, hp=max(0, min(hp, hp_max(new))), ego=max(0, min(ego, ego_max(new)))
    )


def known_advancement(entry: str, options: Options) -> str:
    """Normalise ``"sniper"`` / ``"extra attribute: strength"`` to the list's spelling.

    :raises RuleError: unknown Advancement, a missing detail, or an unknown Attribute.
    """
    name = canonical(
        advancement_name(entry), ADVANCEMENTS + tuple(options.extra_advancements), "Advancement"
    )
    detail = advancement_detail(entry)
    if name in NEEDS_DETAIL and not detail:
        what = NEEDS_DETAIL[name]
        raise RuleError(f"{name} needs {what}: write '{name}: <{what}>'")
    if name == "Extra Attribute":
        detail = canonical(detail, ATTRIBUTES, "Attribute")
    return f"{name}: {detail}" if detail else name


def known_condition(name: str, options: Options) -> str:
    """Normalise a Condition name. :raises RuleError: unknown Condition."""
    return canonical(name, CONDITIONS + tuple(options.extra_conditions), "Condition")


def session_sheet(state: Character, session: int, sheet: str = "session_end") -> SessionSheet:
    """The sheet session ``session``'s advancement reads (ruling T22): as that session ended,
    or the current one when it has not ended (or ``sheet == "current"``, a payload written
    in an earlier release)."""
    kept = state.session_sheets.get(session) if sheet == "session_end" else None
    if kept is not None:
        return kept
    return SessionSheet(ego_max=ego_max(state), hp_max=hp_max(state), skills=dict(state.skills))


def skill_list(state: Character, options: Options) -> tuple[str, ...]:
    """The Skills this character rolls and develops: the campaign's list as adapted with the
    GM for them ("1.2.1": "With the GM you can adapt or expand the generic list of Skills
    provided"; ruling T23)."""
    kept = [s for s in options.skill_names() if s not in state.skills_dropped]
    kept += [s for s in state.skills_added if s not in state.skills_dropped and s not in kept]
    return tuple(kept)
