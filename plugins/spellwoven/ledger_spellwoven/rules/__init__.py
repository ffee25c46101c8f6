"""The Spellwoven rules (seed 004_663ae3e4ecc71fd1.txt, "Rules for the Game"): ``campaign
roll`` as a Test or Contest of Skill — the skill a test uses, the ``--vs`` opponent, the dice
drawn and judged — a recorded roll's numbers checked against its dice (:func:`check_roll`), a
roll stored before its pool was re-derived, the opponent's Effort written with a contest. The
rules as pure functions (success counting, modes, difficulties, notation) are in
:mod:`.mechanics`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

import msgspec
from msgspec import UNSET

from ledger import (
    HOUR,
    DiceSource,
    Event,
    Roll,
    RollRequest,
    RuleError,
    RuleSystem,
    TimePassed,
    name_in,
)

from ..events import ContestEffortSpent, ContestRolled, Slept, TestRolled
from ..state import Character, Options
from .mechanics import (
    ATTRIBUTES,
    DIFFICULTIES,
    MODES,
    STANDARD_POOL,
    Mode,
    asked_difficulty,
    attribute_named,
    check_difficulty,
    check_pool,
    contest_outcome,
    count_successes,
    dice_to_roll,
    did_you_mean,
    keep,
    mode_of,
    outcome_of_test,
    roll_mode,
    skill_level,
)

WEAKNESS_KINDS: tuple[str, ...] = ("combat", "social")
"""The two kinds of Weakness ("Weaknesses": "one **Combat Weakness** and one **Social
Weakness**")."""


@dataclass(frozen=True)
class SkillChoice:
    """The skill a test uses: the name as on the sheet, its rank (``None`` untrained), the
    relevant Attribute and the Skill Level ``S`` rolled against."""

    skill: str
    rank: int | None
    attribute: str
    attribute_value: int
    level: int


def choose_skill(
    state: Character, skill: str | None, attribute: str | None, options: Options
) -> SkillChoice:
    """Find what a test rolls against.

    In order: a skill of the sheet, a specialisation (its own rank, its parent's Attribute;
    ruling S3), an Attribute (an untrained test of it), or an unknown skill tested untrained
    with the Attribute named by ``attribute``. ``attribute`` also overrides a skill's linked
    Attribute when the GM names another ("test your Climb and Quickness"; ruling S7).
    ``S = max(rank, Attribute)``, untrained by the ``untrained`` option (ruling S2).

    (004_663ae3e4ecc71fd1.txt, "Types of Rolls", "Test of Skill", "Overview")
    """
    if not skill:
        raise RuleError("name the skill to test, e.g. 'roll jen Sprint'")
    override = attribute_named(attribute, param="attribute") if attribute else None
    rank: int | None
    if (found := name_in(skill, state.skills)) is not None:
        name, rank, linked = found, state.skills[found].rank, state.skills[found].attribute
    elif (spec := name_in(skill, state.specialisations)) is not None:
        parent = state.specialisations[spec].skill
        name, rank, linked = spec, state.specialisations[spec].rank, state.skills[parent].attribute
    elif (attr := name_in(skill, ATTRIBUTES)) is not None:
        name, rank, linked = attr, None, attr
    elif override is not None:
        name, rank, linked = skill, None, override
    else:
        known = [*state.skills, *state.specialisations, *ATTRIBUTES]
        raise RuleError(
            f"{state.name} has no skill {skill!r}{did_you_mean(skill, known)}; to test it "
            "untrained, name the relevant Attribute",
            param="attribute",
        )
    relevant = override or linked
    value = state.attributes[relevant]
    return SkillChoice(name, rank, relevant, value, skill_level(rank, value, options.untrained))


@dataclass(frozen=True)
class Opponent:
    """The other side of a Contest of Skill, from ``--vs``: name, Skill Level, mode, and the
    Weakness of the roller they use (``"weakness"``, ``"combat"``, ``"social"``) or ``None``."""

    name: str
    level: int
    mode: Mode
    exploits: str | None = None


def parse_vs(spec: Any) -> Opponent:
    """Read ``--vs``: ``"S"``, ``"NAME:S"`` or ``"NAME:S:MODE"`` with MODE ``advantage``,
    ``disadvantage`` or ``weakness`` (the opponent exploits the roller's Weakness, so rolls
    at advantage; "Weaknesses"), optionally naming which, ``combat`` or ``social`` (checked
    against the roller's sheet by :func:`check_weakness`). E.g. ``--vs housewife:2``,
    ``--vs guard:4:weakness:combat``. ``{"name", "level", "mode"}`` is the opponent of a
    contest recorded before rolls kept their inputs, read back from its fields (so a name
    with a colon round-trips).

    (004_663ae3e4ecc71fd1.txt, "Opposed Roll (Contest of Skill)", "Weaknesses")
    """
    if isinstance(spec, dict):
        opponent = Opponent(
            str(spec.get("name", "")), int(spec["level"]), spec.get("mode", "normal")
        )
        if opponent.level < 1:
            raise RuleError(f"the opponent's Skill Level must be 1 or more, not {opponent.level}")
        if opponent.mode not in ("normal", "advantage", "disadvantage"):
            raise RuleError(
                "the opponent's mode must be normal, advantage or disadvantage, "
                f"not {opponent.mode!r}"
            )
        return opponent
    text = str(spec).strip()
    parts = [p.strip() for p in text.split(":")]
    kinds = [p.casefold() for p in parts if p.casefold() in WEAKNESS_KINDS]
    flags = {p.casefold() for p in parts if p.casefold() in MODES}
    rest = [p for p in parts if p.casefold() not in (*WEAKNESS_KINDS, *MODES)]
    if kinds and "weakness" not in flags:
        raise RuleError(
            f"the opponent {text!r}: {kinds[0]} names a Weakness; write NAME:S:weakness:"
            f"{kinds[0]} when the opponent uses it",
            param="vs",
        )
    if len(kinds) > 1:
        raise RuleError(
            f"the opponent {text!r}: one Weakness is used at a time, not {' and '.join(kinds)}",
            param="vs",
        )
    levels = [p for p in rest if p.lstrip("-").isdigit()]
    names = [p for p in rest if not p.lstrip("-").isdigit()]
    usage = "write the opponent as S, NAME:S or NAME:S:advantage (e.g. housewife:2)"
    if len(levels) != 1 or len(names) > 1 or not text:
        raise RuleError(
            f"the opponent {text!r} needs the opponent's Skill Level; {usage}", param="vs"
        )
    if (level := int(levels[0])) < 1:
        raise RuleError(
            f"the opponent's Skill Level must be 1 or more, not {level}; {usage}", param="vs"
        )
    mode = roll_mode("advantage" in flags, "disadvantage" in flags, "weakness" in flags)
    exploits = (kinds[0] if kinds else "weakness") if "weakness" in flags else None
    return Opponent(names[0] if names else "", level, mode, exploits)


def check_weakness(state: Any, opponent: Opponent) -> None:
    """Refuse an opponent using a Weakness the roller's sheet does not have
    (004_663ae3e4ecc71fd1.txt, "Weaknesses": "If you have a **Weakness**, and the weakness is
    used against you, your opponent gets to roll 4d10"; an NPC may have none)."""
    if opponent.exploits is None:
        return
    theirs = ", ".join(f"{k}: {v}" for k, v in state.weaknesses.items()) or "none"
    if not state.weaknesses:
        raise RuleError(
            f"{state.name} has no Weakness to use against them (sheet [weaknesses]: {theirs}); "
            "drop :weakness from the Contest of Skill",
            param="vs",
        )
    if opponent.exploits != "weakness" and opponent.exploits not in state.weaknesses:
        raise RuleError(f"{state.name} has no {opponent.exploits} Weakness (theirs: {theirs})")


@dataclass(frozen=True)
class Drawn:
    """One side's dice: every face, the kept faces (``None`` when none was dropped) and the
    successes they score."""

    dice: list[int]
    kept: list[int] | None
    successes: int


def draw(dice: DiceSource, level: int, mode: Mode, pool: int = STANDARD_POOL) -> Drawn:
    """Roll one side: ``pool`` d10 (one more at advantage or disadvantage), in order; keep
    and count them (004_663ae3e4ecc71fd1.txt, "Overview", "Advantage & Disadvantage")."""
    faces = dice.roll(dice_to_roll(mode, pool), 10)
    kept = keep(faces, level, mode, pool)
    return Drawn(faces, None if len(kept) == len(faces) else kept, count_successes(kept, level))


def read_pool(params: dict[str, Any]) -> int:
    """The ``--pool`` (GM fiat: dice kept, default 3; "Basic Distributions")."""
    pool = STANDARD_POOL if params.get("pool") is None else int(params["pool"])
    check_pool(pool)
    return pool


def check_effort(state: Character, spend: int, options: Options, already: int = 0) -> None:
    """Refuse Effort the character cannot spend: more than the pool holds, or more than
    ``max_effort_per_roll`` on one roll (ruling S6; 004_663ae3e4ecc71fd1.txt, "Attributes and
    Effort")."""
    if spend < 0:
        raise RuleError(f"Effort spent must be 0 or more, not {spend}")
    if already + spend > options.max_effort_per_roll:
        raise RuleError(
            f"at most {options.max_effort_per_roll} Effort may be spent on one roll "
            f"(this roll already has {already})"
        )
    if spend > state.effort:
        raise RuleError(
            f"{state.name} has {state.effort} Effort left of {state.effort_max} and cannot "
            f"spend {spend}; a night's sleep refreshes it"
        )


def check_roll(event: TestRolled | ContestRolled) -> None:
    """Refuse a roll event whose numbers do not follow from its dice by the rules (a roll
    recorded by hand or amended by a correction): the kept faces, the successes they score,
    the Effort bonus and the outcome (004_663ae3e4ecc71fd1.txt, "Overview: The Basic
    Mechanic", "Advantage & Disadvantage", "Difficulty levels", "Opposed Roll (Contest of
    Skill)", "Attributes and Effort"; docs/rulings/spellwoven.md "Re-deriving and correcting
    rolls"). The sentences name every field that does not add up.
    """
    problems: list[str] = []
    if event.skill_level < 1:
        raise RuleError(f"skill_level must be 1 or more, not {event.skill_level}")
    if event.effort_bonus != event.effort_spent * event.attribute_value:
        problems.append(
            f"effort_bonus {event.effort_bonus} is not effort_spent × attribute_value "
            f"({event.effort_spent} × {event.attribute_value})"
        )
    sides = [(event.dice, event.kept, event.mode, event.skill_level, event.dice_successes)]
    if isinstance(event, ContestRolled):
        spent, their_bonus = event.vs_effort_spent or 0, event.vs_effort_bonus or 0
        if spent < 0 or their_bonus < 0:
            problems.append("the opponent's Effort and its bonus are 0 or more")
        elif (
            not (spent > 0)
            == (their_bonus > 0)
            == bool(event.vs_attribute)
            == (spent > 0 and bool(event.vs_character))
        ):
            problems.append(
                "the opponent's Effort (vs_effort_spent) goes with vs_character, their "
                "vs_attribute and its vs_effort_bonus"
            )
        sides.append((event.opponent_dice, event.opponent_kept, event.opponent_mode,
                      event.opponent_skill_level, event.opponent_successes - their_bonus))  # fmt: skip
    automatic = isinstance(event, TestRolled) and event.difficulty == 0
    for faces, kept, mode, level, successes in sides:
        if automatic:
            if faces or successes:
                problems.append("an automatic hit (difficulty 0) has no dice and no successes")
            continue
        pool = len(faces) - (0 if mode == "normal" else 1)
        try:
            chosen = keep(faces, level, mode, pool)
            counted = chosen if kept is None else kept
            if mode != "normal" and kept is None:
                problems.append(f"a roll at {mode} must say which faces were kept")
            elif kept is not None and (len(kept) != pool or Counter(kept) - Counter(faces)):
                problems.append(f"kept {kept} must be {pool} of the faces rolled {faces}")
            elif mode == "disadvantage" and sorted(counted) != sorted(chosen):
                problems.append(f"at disadvantage the highest of {faces} are kept, not {kept}")
            scored = count_successes(counted, level)
        except RuleError as e:
            problems.extend(e.problems)
            continue
        if scored != successes:
            problems.append(
                f"dice {faces} score {scored} successes at Skill Level {level}, not {successes}"
            )
    if event.successes != event.dice_successes + event.effort_bonus:
        problems.append("successes must be dice_successes + effort_bonus")
    expected: str
    if isinstance(event, ContestRolled):
        expected = contest_outcome(event.successes, event.opponent_successes)
    else:
        if event.difficulty != 0 and event.difficulty not in DIFFICULTIES:
            problems.append(f"difficulty must be 0 to 4, not {event.difficulty}")
        expected = outcome_of_test(event.successes, event.difficulty)
    if not problems and event.outcome != expected:
        problems.append(f"{event.successes} successes give {expected}, not {event.outcome}")
    if problems:
        raise RuleError(*problems)


def legacy_pool(event: Roll) -> int | None:
    """The pool of a roll stored before ``pool`` was recorded, when its faces show one other
    than 3 and agree with its mode (one die dropped exactly when not ``normal``) and its
    draws; else ``None`` (the roll is re-derived as it is). (004_663ae3e4ecc71fd1.txt,
    "Basic Distributions"; ruling SW7)"""
    if not isinstance(event, TestRolled | ContestRolled) or event.pool is not UNSET:
        return None
    sides = [(event.dice, event.kept, event.mode)]
    if isinstance(event, ContestRolled):
        sides.append((event.opponent_dice, event.opponent_kept, event.opponent_mode))
    pools = set()
    for faces, kept, mode in sides:
        if not faces or (kept is None) != (mode == "normal"):
            return None
        pool = len(faces) if kept is None else len(kept)
        if len(faces) != pool + (0 if mode == "normal" else 1):
            return None
        pools.add(pool)
    drawn = sum(len(faces) for faces, _, _ in sides)
    if len(pools) != 1 or len(event.draws) != drawn:
        return None
    pool = pools.pop()
    return None if pool == STANDARD_POOL else pool


class Rules(RuleSystem[Character, Options]):
    """Spellwoven's rolls, as :class:`ledger_spellwoven.Spellwoven` sums them up
    (004_663ae3e4ecc71fd1.txt, "Rules for the Game")."""

    def resolve(
        self, state: Character, request: RollRequest, dice: DiceSource
    ) -> TestRolled | ContestRolled:
        """A Test of Skill, or a Contest of Skill with ``vs`` (their dice are drawn after the
        character's) or an opponent on the ledger. The options are the system's
        ``roll_options``: a ``weakness`` of the target lets the roller roll at advantage
        (cancels with disadvantage, never stacks); with neither ``difficulty`` nor ``target``
        a Test asks the ``default_difficulty`` option; a target's Attribute of 1 is an
        automatic hit with no dice.

        (004_663ae3e4ecc71fd1.txt, "Test of Skill", "Difficulty levels", "Static Difficulty
        from Attributes", "Opposed Roll (Contest of Skill)", "Attributes and Effort",
        "Advantage & Disadvantage", "Weaknesses", "Basic Distributions")
        """
        options, params = self.options, request.params
        choice = choose_skill(state, request.skill, params.get("attribute"), options)
        mode, pool = mode_of(params), read_pool(params)
        spend = int(params.get("effort") or 0)
        check_effort(state, spend, options)
        bonus = spend * choice.attribute_value
        opponent, side = self._opponent(state, request, choice)
        required = asked_difficulty(params, contest=opponent is not None)
        if opponent is None and required is None:
            required = options.default_difficulty
            check_difficulty(required)
        if required == 0:  # an automatic hit: no dice, no mode, no Effort
            if spend:
                raise RuleError(
                    "difficulty 0 is an automatic hit with no roll: spend no Effort", param="effort"
                )
            mode = "normal"
        mine = Drawn([], None, 0) if required == 0 else draw(dice, choice.level, mode, pool)
        theirs = draw(dice, opponent.level, opponent.mode, pool) if opponent else None
        dice.finish()
        successes = mine.successes + bonus
        rolled: dict[str, Any] = {
            "character": request.character,
            "skill": choice.skill,
            "attribute": choice.attribute,
            "attribute_value": choice.attribute_value,
            "rank": choice.rank,
            "skill_level": choice.level,
            "mode": mode,
            "weakness": bool(params.get("weakness")),
            "effort_spent": spend,
            "effort_bonus": bonus,
            "dice": mine.dice,
            "kept": mine.kept,
            "dice_successes": mine.successes,
            "successes": successes,
            **dice.fields(),
        }
        if pool != STANDARD_POOL:
            rolled["pool"] = pool
        if opponent is None or theirs is None:
            assert required is not None
            return TestRolled(
                **rolled,
                difficulty=required,
                target_attribute=params.get("target"),
                outcome=outcome_of_test(successes, required),
            )
        total = theirs.successes + side.get("vs_effort_bonus", 0)
        return ContestRolled(
            **rolled,
            opponent=opponent.name,
            opponent_skill_level=opponent.level,
            opponent_mode=opponent.mode,
            opponent_dice=theirs.dice,
            opponent_kept=theirs.kept,
            opponent_successes=total,
            outcome=contest_outcome(successes, total),
            **side,
        )

    def _opponent(
        self, state: Character, request: RollRequest, choice: SkillChoice
    ) -> tuple[Opponent | None, dict[str, Any]]:
        """The other side of a Contest of Skill and the roll's fields about it, or ``(None,
        {})`` for a Test. Off the ledger, ``vs`` (:func:`parse_vs`). On the ledger
        (``--vs-character``, ruling SW5): their skill (``--vs-skill``, else the roller's), its
        Skill Level from their sheet, rolled normally; with ``--weakness`` the roller exploits
        one of *their* Weaknesses, which their sheet must have; with ``vs_effort`` (ruling
        SW10) they spend 1 Effort and add their skill's Attribute (004_663ae3e4ecc71fd1.txt,
        "Opposed Roll (Contest of Skill)": "both roll against their own Skill"; "Weaknesses";
        "Attributes and Effort"; "Example Contests of Skill": "both Characters test their
        skill").
        """
        params, ledger = request.params, request.opponent
        vs = params.get("vs") not in (None, "")
        if ledger is None:
            if params.get("vs_effort"):
                raise RuleError(
                    "the opponent's Effort is the Effort of an opponent on the ledger: "
                    "name them on the ledger (an opponent off the ledger has no Effort "
                    "here; the GM adds it to their successes)",
                    param="vs_effort",
                )
            if not vs:
                return None, {}
            opponent = parse_vs(params["vs"])
            check_weakness(state, opponent)
            return opponent, {}
        if vs:
            raise RuleError(
                "give the opponent as a Contest of Skill against NAME:S or as a character on "
                "the ledger, not both: a character's Skill Level comes from their sheet",
                param="vs",
            )
        theirs = ledger.state
        assert isinstance(theirs, Character)
        their = choose_skill(theirs, ledger.skill or choice.skill, None, self.options)
        if params.get("weakness") and not theirs.weaknesses:
            raise RuleError(
                f"{theirs.name} has no Weakness to exploit (their sheet has none); "
                "do not use the target's Weakness",
                param="weakness",
            )
        side: dict[str, Any] = {"vs_character": ledger.character, "vs_skill": their.skill}
        if effort := int(params.get("vs_effort") or 0):
            check_effort(theirs, effort, self.options)
            side |= {
                "vs_effort_spent": effort,
                "vs_attribute": their.attribute,
                "vs_effort_bonus": effort * their.attribute_value,
            }
        return Opponent(ledger.name or ledger.character, their.level, "normal"), side

    def settled_without_dice(self, event: Roll) -> RuleError | None:
        """A Test against a target whose Attribute is 1: difficulty 0, "no roll: the
        target is hit automatically" (004_663ae3e4ecc71fd1.txt, "Static Difficulty from
        Attributes"), so a request for it asks a player for nothing."""
        if not isinstance(event, TestRolled) or event.difficulty != 0:
            return None
        return RuleError(
            f"Against a Target's Attribute of {event.target_attribute} no roll is made "
            f"({self.id}, Static Difficulty from Attributes): difficulty 0 is an automatic "
            "hit, so there is nothing to roll; record the hit, or ask against a higher "
            "Attribute or a Difficulty",
            param="target",
        )

    def rederive(self, state: Character, event: Roll, *, name: str, opponent: Any = None) -> Roll:
        """The roll the rules give for ``event``'s recorded inputs and draws, as the core's
        default, except for a roll stored before ``pool`` was recorded whose faces show
        another pool than 3 ("Basic Distributions", ruling SW7): its pool is read from its
        faces (:func:`legacy_pool`), and the re-derived roll leaves ``pool`` out as
        the stored one does."""
        legacy = legacy_pool(event)
        inputs = event.inputs
        if legacy is None or inputs is UNSET:
            return super().rederive(state, event, name=name, opponent=opponent)
        params = {**inputs.params, "pool": legacy}
        pooled = msgspec.structs.replace(
            event, inputs=msgspec.structs.replace(inputs, params=params)
        )
        result = super().rederive(state, pooled, name=name, opponent=opponent)
        return msgspec.structs.replace(result, pool=UNSET, inputs=inputs)

    def follow_ups(self, state: Character, event: Roll, *, seq: int) -> list[Event]:
        """The opponent's Effort spent on their side of contest ``seq`` (``--vs-effort``,
        ruling SW10): one :class:`ContestEffortSpent` on their stream, in the roll's batch
        (004_663ae3e4ecc71fd1.txt, "Attributes and Effort")."""
        if not (isinstance(event, ContestRolled) and event.vs_character and event.vs_effort_spent):
            return []
        return [
            ContestEffortSpent(
                character=event.vs_character,
                roller=event.character,
                roll=seq,
                attribute=event.vs_attribute or "",
                bonus=event.vs_effort_bonus or 0,
            )
        ]

    def time_passed(self, states: dict[str, Any], span: TimePassed) -> list[Event]:
        """A night's sleep refreshes Effort: a ``slept`` for every character short of their
        Effort ("a pool representing your state of exhaustion, this refreshes with a
        night's sleep"; 004_663ae3e4ecc71fd1.txt, "Attributes and Effort").

        The named span "a night's sleep" is one; so is any span the characters rest
        through (``--rest``) of at least ``night_hours`` (option, default 8: the text
        gives no length; ruling SW-T1). Plain time refreshes nothing, and the text times
        nothing else ("a couple hours" of a twisted arm is narrated, not tracked).
        """
        hours = self.options.night_hours
        night = (8 if hours is UNSET else hours) * HOUR
        if not (span.words == "a night's sleep" or (span.rest and span.minutes >= night)):
            return []
        return [
            Slept(character=cid) for cid, state in states.items() if state.effort < state.effort_max
        ]
