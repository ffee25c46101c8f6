"""The Spellwoven rule system (seed 004_663ae3e4ecc71fd1.txt, "Rules for the Game").

3d10 roll-under success counting with Effort, Weaknesses, static and Attribute
difficulties, Contests of Skill and advantage/disadvantage. The mechanics are pure functions
in :mod:`.mechanics`; this class binds them to events, state and the engine.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import UNSET

from ledger import (
    DiceSource,
    Event,
    Recorded,
    Roll,
    RollParam,
    RollRequest,
    RuleError,
    RuleSystem,
    SceneEnded,
    SessionEnded,
    Sheet,
    applies,
    applying_seq,
)
from ledger import (
    Opponent as LedgerOpponent,
)

from . import recap, views
from .events import (
    EVENT_TYPES,
    UPCASTERS,
    ConditionAdded,
    ConditionRemoved,
    ContestEffortSpent,
    ContestRolled,
    EffortLost,
    EffortSpent,
    SkillChanged,
    Slept,
    SpecialisationLearned,
    TestRolled,
    WeaknessExploited,
)
from .mechanics import (
    ATTRIBUTES,
    DIFFICULTIES,
    STANDARD_POOL,
    check_difficulty,
    contest_outcome,
    count_successes,
    difficulty_from_attribute,
    keep,
    outcome_of_test,
    parse_difficulty,
    roll_mode,
)
from .rolls import (
    Opponent,
    check_effort,
    check_weakness,
    choose_skill,
    draw,
    flag,
    int_param,
    parse_vs,
    read_pool,
)
from .sheet import (
    Character,
    LastRoll,
    Options,
    Skill,
    Specialisation,
    check_rank,
    did_you_mean,
    find_name,
    new_character,
    validate_sheet,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_MODE_FLAGS = (
    RollParam("advantage", "Spellwoven: roll 4d10, keep the three that score most.", is_flag=True),
    RollParam("disadvantage", "Spellwoven: roll 4d10, keep the three highest faces.", is_flag=True),
    RollParam(
        "weakness",
        "Spellwoven: the target's Weakness is used against them: roll at advantage.",
        is_flag=True,
    ),
)


DIFFICULTY_NAMES = tuple(
    name.casefold().replace(" ", "-") for name in DIFFICULTIES.values()
)
"""The level names ``--difficulty`` offers in the table shell ("Difficulty levels")."""


class Spellwoven(RuleSystem):
    """Spellwoven: roll 3d10 under the Skill Level, count successes (1s count double, 10s
    never), meet a difficulty of 1..4 or beat an opponent; Effort adds the Attribute.

    (004_663ae3e4ecc71fd1.txt, "Rules for the Game"; rulings in docs/rulings/spellwoven.md)
    """

    id = "spellwoven"
    name = "Spellwoven"
    source = "004_663ae3e4ecc71fd1.txt"
    book = "Spellwoven: Rules for the Game"
    example_roll = 'roll jen Sprint --difficulty 1 --dice 6,6,10  # "Example: Static Difficulty": no success'
    contests = True  # --vs-character: the opponent's Skill Level from their sheet (SW5)
    event_types = EVENT_TYPES
    upcasters = UPCASTERS
    state_type = Character
    options_type = Options
    roll_params = (
        RollParam("difficulty", "Spellwoven: successes needed, 1 Normal to 4 Daunting (number "
                  "or name).", suggestions=DIFFICULTY_NAMES),
        RollParam(
            "target",
            "Spellwoven: the target's relevant Attribute (1-4); difficulty = Attribute - 1.",
            type=int, min=0, max=100,
        ),
        RollParam(
            "effort",
            "Spellwoven: spend 1 Effort to add the Attribute to the successes.",
            is_flag=True,
        ),
        *_MODE_FLAGS,
        RollParam(
            "vs",
            "Spellwoven: Contest of Skill against an opponent: S, NAME:S or NAME:S:advantage.",
        ),
        RollParam("attribute", "Spellwoven: the relevant Attribute when the GM names one."),
        RollParam(
            "vs_effort",
            "Spellwoven: the opponent named with --vs-character spends 1 Effort: + their "
            "Attribute.",
            is_flag=True,
        ),
        RollParam("pool", "Spellwoven: dice kept instead of 3, by the GM's fiat.", type=int,
                  min=0, max=20),
    )
    sections = {  # the seed section each event type implements (shown by audits)
        "spellwoven.test_rolled": "Overview: The Basic Mechanic; Test of Skill; Difficulty levels",
        "spellwoven.contest_rolled": "Example: Opposed Roll; Example Contests of Skill",
        "spellwoven.effort_spent": "Attributes and Effort",
        "spellwoven.contest_effort_spent": "Attributes and Effort; Example Contests of Skill",
        "spellwoven.effort_lost": "Attributes and Effort",
        "spellwoven.slept": "Attributes and Effort",
        "spellwoven.weakness_exploited": "Weaknesses",
        "spellwoven.skill_changed": "Overview: The Basic Mechanic",
        "spellwoven.specialisation_learned": "Example: Opposed Roll; Skill level 10+",
        "spellwoven.condition_added": "Advantage & Disadvantage",
        "spellwoven.condition_removed": "Advantage & Disadvantage",
    }
    odds_params = (
        RollParam("skill", "Skill Level 1-20 (leave out for every level 1-20).", type=int,
                  min=1, max=20),
        RollParam("difficulty", "Successes required (1-4 or Normal ... Daunting): adds the "
                  "chance to pass.", suggestions=DIFFICULTY_NAMES),
        RollParam("target", "Target's Attribute (1-4): difficulty = Attribute - 1.", type=int,
                  min=1, max=4),
        *_MODE_FLAGS,
        RollParam("vs", "Contest against an opponent: S, NAME:S or NAME:S:advantage."),
        RollParam("pool", "Dice kept instead of 3.", type=int, min=1, max=10),
        RollParam("bonus", "Successes added by Effort (the Attribute, 1-4).", type=int,
                  min=0, max=4),
    )

    options: Options

    # --- characters ----------------------------------------------------------------------

    def create_sheet(self, sheet: dict[str, Any]) -> dict[str, Any]:
        """Validate a sheet (:func:`.sheet.validate_sheet`, digest §3).

        :raises RuleError: naming every broken creation rule.
        """
        return validate_sheet(sheet, self._options())

    def initial_state(self, character: str, name: str, sheet: dict[str, Any]) -> Character:
        """A new character: Effort full (ruling S6)."""
        return new_character(character, name, sheet, self._options())

    def skills_of(self, state: Character) -> Iterable[str]:
        """Skills, specialisations and the five Attributes (all can be tested)."""
        return [*state.skills, *state.specialisations, *ATTRIBUTES]

    def _options(self) -> Options:
        return self.options if isinstance(self.options, Options) else Options()

    # --- rolls ---------------------------------------------------------------------------

    def resolve(
        self, state: Character, request: RollRequest, dice: DiceSource
    ) -> TestRolled | ContestRolled:
        """A Test of Skill, or a Contest of Skill with ``vs``.

        Params: ``difficulty`` (1..4) or ``target`` (the target's Attribute, 1..4: difficulty
        Attribute − 1, 0 = automatic hit and no dice), default the ``default_difficulty``
        option; ``effort`` (spend 1 Effort now: + the Attribute); ``advantage``,
        ``disadvantage``, ``weakness`` (the roller exploits the target's Weakness = roll at
        advantage; cancels with disadvantage, never stacks); ``vs`` (the opponent, see
        :func:`.rolls.parse_vs`; their dice are drawn after the character's);
        ``attribute`` (the relevant Attribute); ``pool`` (dice kept, GM fiat).

        (004_663ae3e4ecc71fd1.txt, "Test of Skill", "Difficulty levels", "Static Difficulty
        from Attributes", "Opposed Roll (Contest of Skill)", "Attributes and Effort",
        "Advantage & Disadvantage", "Weaknesses", "Basic Distributions")

        :raises RuleError: unknown skill or Attribute, a difficulty outside 1..4, both
            ``difficulty`` and ``target``, a difficulty with ``vs``, Effort the character
            does not have, Effort on an automatic hit.
        :raises ledger.DiceError: faces a d10 cannot show, too few or too many.
        """
        options = self._options()
        params = request.params
        choice = choose_skill(state, request.skill, params.get("attribute"), options)
        mode = roll_mode(
            flag(params, "advantage"), flag(params, "disadvantage"), flag(params, "weakness")
        )
        pool = read_pool(params)
        spend = int_param(params, "effort") or 0
        check_effort(state, spend, options)
        bonus = spend * choice.attribute_value
        common: dict[str, Any] = {
            "character": request.character,
            "skill": choice.skill,
            "attribute": choice.attribute,
            "attribute_value": choice.attribute_value,
            "rank": choice.rank,
            "skill_level": choice.level,
            "mode": mode,
            "weakness": flag(params, "weakness"),
            "effort_spent": spend,
            "effort_bonus": bonus,
        }
        if pool != STANDARD_POOL:
            common["pool"] = pool
        difficulty = parse_difficulty(params.get("difficulty"))
        target = int_param(params, "target")
        side: dict[str, Any] = {}
        their_bonus = 0
        if request.opponent is not None:
            if params.get("vs") not in (None, ""):
                raise RuleError("give the opponent as --vs NAME:S or --vs-character NAME, not "
                                "both: a character's Skill Level comes from their sheet")
            opponent, side = self._opposing_side(request.opponent, choice.skill, options,
                                                 flag(params, "weakness"),
                                                 int_param(params, "vs_effort") or 0)
            their_bonus = side.get("vs_effort_bonus", 0)
            params = {**params, "vs": opponent}
        elif int_param(params, "vs_effort"):
            raise RuleError("--vs-effort is the Effort of an opponent on the ledger: name them "
                            "with --vs-character (an opponent off the ledger has no Effort "
                            "here; the GM adds it to their successes)")
        if params.get("vs") not in (None, ""):
            if difficulty is not None or target is not None:
                raise RuleError(
                    "a Contest of Skill (--vs) has no difficulty: drop --difficulty/--target"
                )
            opponent = parse_vs(params["vs"])
            check_weakness(state, opponent)
            mine = draw(dice, choice.level, mode, pool)
            theirs = draw(dice, opponent.level, opponent.mode, pool)
            dice.finish()
            return ContestRolled(
                **common,
                dice=mine.dice,
                kept=mine.kept,
                dice_successes=mine.successes,
                successes=mine.successes + bonus,
                opponent=opponent.name,
                opponent_skill_level=opponent.level,
                opponent_mode=opponent.mode,
                opponent_dice=theirs.dice,
                opponent_kept=theirs.kept,
                opponent_successes=theirs.successes + their_bonus,
                outcome=contest_outcome(mine.successes + bonus, theirs.successes + their_bonus),
                **side,
                **dice.fields(),
            )
        if difficulty is not None and target is not None:
            raise RuleError("give --difficulty or --target, not both")
        if target is not None:
            required = difficulty_from_attribute(target)
        else:
            required = options.default_difficulty if difficulty is None else difficulty
            check_difficulty(required)
        if required == 0:
            if spend:
                raise RuleError("difficulty 0 is an automatic hit with no roll: drop --effort")
            dice.finish()
            return TestRolled(
                **{**common, "mode": "normal"},
                dice=[],
                dice_successes=0,
                successes=0,
                difficulty=0,
                target_attribute=target,
                outcome="pass",
                **dice.fields(),
            )
        mine = draw(dice, choice.level, mode, pool)
        dice.finish()
        return TestRolled(
            **common,
            dice=mine.dice,
            kept=mine.kept,
            dice_successes=mine.successes,
            successes=mine.successes + bonus,
            difficulty=required,
            target_attribute=target,
            outcome=outcome_of_test(mine.successes + bonus, required),
            **dice.fields(),
        )

    def _opposing_side(
        self,
        opponent: LedgerOpponent,
        skill: str,
        options: Options,
        exploited: bool,
        effort: int = 0,
    ) -> tuple[Opponent, dict[str, Any]]:
        """The other side of a Contest of Skill against a character on the ledger
        (``--vs-character``, ruling SW5): their skill (``--vs-skill``, else the roller's),
        its Skill Level from their sheet (S = max(rank, Attribute), untrained as the
        ``untrained`` option says), rolled normally. With ``--weakness`` the roller exploits
        one of *their* Weaknesses, which their sheet must have (004_663ae3e4ecc71fd1.txt,
        "Opposed Roll (Contest of Skill)": "both roll against their own Skill";
        "Weaknesses"). With ``effort`` (``--vs-effort``, ruling SW10) they spend that Effort
        and add their skill's Attribute ("Attributes and Effort": "When you test your Skill
        you have the option to expend extra **Effort**"; "Example Contests of Skill": "both
        Characters test their skill").

        :raises RuleError: an unknown skill with no Attribute; ``--weakness`` against an
            opponent without a Weakness; Effort they do not have (or more than
            ``max_effort_per_roll``).
        """
        theirs = opponent.state
        assert isinstance(theirs, Character)
        choice = choose_skill(theirs, opponent.skill or skill, None, options)
        if exploited and not theirs.weaknesses:
            raise RuleError(f"{theirs.name} has no Weakness to exploit (their sheet has none); "
                            "drop --weakness")
        side: dict[str, Any] = {"vs_character": opponent.character, "vs_skill": choice.skill}
        if effort:
            check_effort(theirs, effort, options)
            side |= {
                "vs_effort_spent": effort,
                "vs_attribute": choice.attribute,
                "vs_effort_bonus": effort * choice.attribute_value,
            }
        return Opponent(opponent.name or opponent.character, choice.level, "normal"), side

    def request_of(self, event: Roll) -> RollRequest:
        """The request :meth:`resolve` turned into ``event``, read from its input fields only.

        Inputs: ``skill``, ``attribute`` (the relevant Attribute, always given back: the
        skill's linked one or the one the GM named, ruling S7), ``effort_spent``
        (``--effort``), the calls behind ``mode`` and ``weakness`` (``--advantage``,
        ``--disadvantage``, ``--weakness``; a ``weakness`` roll of mode ``normal`` had a
        disadvantage that cancelled it, ruling S8), the pool (the faces rolled, less the
        extra die at advantage or disadvantage; given only when not 3, "Basic
        Distributions"), and ``target_attribute`` or ``difficulty`` for a test, the opponent
        (``opponent``, ``opponent_skill_level``, ``opponent_mode``) for a contest.
        Everything else (rank, Skill Level, Attribute value, kept dice, successes, Effort
        bonus, opponent's kept dice and successes, outcome) follows from the state and the
        draws. ``name`` is left empty (the core fills it in).

        (004_663ae3e4ecc71fd1.txt, "Test of Skill", "Opposed Roll (Contest of Skill)",
        "Advantage & Disadvantage"; docs/rulings/spellwoven.md "Re-deriving and correcting
        rolls")

        :raises RuleError: a roll type this system does not make.
        """
        if not isinstance(event, TestRolled | ContestRolled):
            return super().request_of(event)
        params: dict[str, Any] = {"attribute": event.attribute}
        if event.weakness:
            if event.mode == "disadvantage":
                raise RuleError(
                    "a roll exploiting a Weakness is at advantage, or normal when a disadvantage "
                    "cancelled it, never at disadvantage (ruling S8)"
                )
            params["weakness"] = True
            if event.mode != "advantage":
                params["disadvantage"] = True
        elif event.mode != "normal":
            params[event.mode] = True
        if event.pool is not UNSET:
            params["pool"] = event.pool
        if event.effort_spent:
            params["effort"] = event.effort_spent
        if isinstance(event, ContestRolled) and event.vs_character is not None:
            if event.vs_effort_spent:
                params["vs_effort"] = event.vs_effort_spent
            return RollRequest(event.character, "", event.skill, params,
                               opponent=LedgerOpponent(event.vs_character, skill=event.vs_skill))
        if isinstance(event, ContestRolled):
            params["vs"] = Opponent(
                event.opponent, event.opponent_skill_level, event.opponent_mode
            )
        elif event.target_attribute is not None:
            if event.target_attribute == 1 and event.mode != "normal":
                raise RuleError(
                    "an automatic hit (target Attribute 1) rolls no dice: its mode is normal"
                )
            params["target"] = event.target_attribute
        else:
            params["difficulty"] = event.difficulty
        return RollRequest(event.character, "", event.skill, params)

    def rederive(
        self, state: Character, event: Roll, *, name: str, opponent: Any = None
    ) -> Roll:
        """The roll the rules give for ``event``'s recorded inputs and draws.

        ``resolve(state, request_of(event), ReplayDice(event))``, except for a roll stored
        before ``pool`` was recorded (``pool`` absent) whose faces show another pool than 3
        ("Basic Distributions", ruling SW7): its pool is read from its kept faces (or its
        faces when none was dropped), if those agree with its mode and draws, and the
        re-derived roll leaves ``pool`` out as the stored one does.

        :raises RuleError: the rules refuse the recorded inputs.
        :raises ledger.DiceError: the rules draw other dice than were recorded.
        """
        legacy = _legacy_pool(event)
        if legacy is None:
            return super().rederive(state, event, name=name, opponent=opponent)
        result = super().rederive(state, msgspec.structs.replace(event, pool=legacy), name=name, opponent=opponent)
        return msgspec.structs.replace(result, pool=UNSET)

    def follow_ups(self, state: Character, event: Roll, *, seq: int) -> list[Event]:
        """The opponent's Effort spent on their side of contest ``seq`` (``--vs-effort``,
        ruling SW10): one :class:`ContestEffortSpent` on their stream, in the roll's batch,
        else ``[]`` (004_663ae3e4ecc71fd1.txt, "Attributes and Effort")."""
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

    def follow_up_of(self, event: Event) -> int | None:
        """The contest roll a :class:`ContestEffortSpent` was written with (ruling SW10):
        retracted with it, worked out again when it is amended."""
        return event.roll if isinstance(event, ContestEffortSpent) else None

    # --- appliers ------------------------------------------------------------------------

    @applies(TestRolled, ContestRolled)
    def on_rolled(self, state: Character, event: TestRolled | ContestRolled) -> Character:
        """Spend the Effort spent with the roll and remember the roll for later Effort.

        The roll is checked against the rules first, so a hand-recorded or amended roll
        whose successes or outcome do not follow from its dice is refused.

        :raises RuleError: inconsistent roll; Effort the character does not have.
        """
        check_roll(event)
        check_effort(state, event.effort_spent, self._options())
        last = LastRoll(
            skill=event.skill,
            attribute=event.attribute,
            successes=event.successes,
            effort_spent=event.effort_spent,
            outcome=event.outcome,
            difficulty=event.difficulty if isinstance(event, TestRolled) else None,
            opponent_successes=(
                event.opponent_successes if isinstance(event, ContestRolled) else None
            ),
            automatic=isinstance(event, TestRolled) and event.difficulty == 0,
            seq=applying_seq(),
        )
        return msgspec.structs.replace(
            state, effort=state.effort - event.effort_spent, last_roll=last,
            scene_rolls=[*state.scene_rolls, last],
        )

    @applies(EffortSpent)
    def on_effort_spent(self, state: Character, event: EffortSpent) -> Character:
        """1 Effort spent after the latest roll: its successes + the Attribute, outcome
        judged again (004_663ae3e4ecc71fd1.txt, "Attributes and Effort", "Example: Opposed
        Roll"; ruling S6, S7).

        Replayed after a correction, the same checks hold: Effort spent on a roll that was
        retracted, or whose recorded result after the Effort no longer follows from the
        corrected roll, is refused, never refunded in silence (ruling SW8).

        :raises RuleError: no roll to spend on, an automatic hit, the per-roll limit, no
            Effort left, an unknown Attribute, a recorded bonus, successes or outcome the
            latest roll does not give; each names the roll (``roll``) when recorded.
        """
        last = state.last_roll
        on = f" on roll {event.roll}" if event.roll is not None else ""
        if last is None:
            spent = f" (this Effort was spent{on})" if on else ""
            raise RuleError(
                f"{state.name} has no roll in this scene to spend Effort on{spent}; roll first"
            )
        if event.roll is not None and not event.latest and event.roll != last.seq:
            matches = [r for r in state.scene_rolls if r.seq == event.roll]
            if not matches:
                theirs = ", ".join(str(r.seq) for r in state.scene_rolls if r.seq) or "none"
                raise RuleError(
                    f"roll {event.roll} is not one of {state.name}'s rolls in this scene "
                    f"(theirs: {theirs}); Effort is spent on the character's own roll, "
                    "before the scene ends"
                )
            last = matches[-1]
        on_latest = last is state.last_roll
        if last.automatic:
            raise RuleError(
                f"the latest roll was an automatic hit: no Effort{on} can be spent on it"
            )
        check_effort(state, 1, self._options(), already=last.effort_spent)
        attribute = last.attribute
        if event.attribute:
            found = find_name(event.attribute, list(ATTRIBUTES))
            if found is None:
                raise RuleError(
                    f"{event.attribute!r} is not an Attribute; use one of {', '.join(ATTRIBUTES)}"
                    + did_you_mean(event.attribute, list(ATTRIBUTES))
                )
            attribute = found
        successes = last.successes + state.attributes[attribute]
        if last.opponent_successes is not None:
            outcome: str = contest_outcome(successes, last.opponent_successes)
        else:
            outcome = outcome_of_test(successes, last.difficulty or 0)
        bonus = state.attributes[attribute]
        for field, given, computed in (
            ("bonus", event.bonus, bonus),
            ("successes", event.successes, successes),
            ("outcome", event.outcome, outcome),
        ):
            if given is not None and given != computed:
                raise RuleError(
                    f"the Effort{on} recorded {field} {given}, but {state.name}'s latest roll "
                    f"({last.skill}, {last.successes} successes) gives {computed}"
                )
        spent_on = msgspec.structs.replace(
            last, successes=successes, effort_spent=last.effort_spent + 1, outcome=outcome
        )
        rolls = list(state.scene_rolls)
        at = max((i for i, r in enumerate(rolls) if r.seq == last.seq), default=None)
        if on_latest and rolls:
            at = len(rolls) - 1
        if at is not None:
            rolls[at] = spent_on
        return msgspec.structs.replace(
            state, effort=state.effort - 1, scene_rolls=rolls,
            last_roll=spent_on if on_latest else state.last_roll,
        )

    @applies(ContestEffortSpent)
    def on_contest_effort_spent(self, state: Character, event: ContestEffortSpent) -> Character:
        """The opponent spends a point of Effort on their side of a Contest of Skill and adds
        their relevant Attribute (004_663ae3e4ecc71fd1.txt, "Attributes and Effort": "you
        spend a point of **Effort** ... and add the relevant Attribute bonus to your number
        of successes"; ruling SW10).

        :raises RuleError: no Effort left (a night's sleep refreshes it), an unknown
            Attribute, a bonus that is not that Attribute's rating.
        """
        attribute = find_name(event.attribute, list(ATTRIBUTES))
        if attribute is None:
            raise RuleError(
                f"{event.attribute!r} is not an Attribute; use one of {', '.join(ATTRIBUTES)}"
            )
        check_effort(state, 1, self._options())
        if event.bonus != state.attributes[attribute]:
            raise RuleError(
                f"{state.name}'s Effort on roll {event.roll} adds {attribute} "
                f"{state.attributes[attribute]}, not {event.bonus}"
            )
        return msgspec.structs.replace(state, effort=state.effort - 1)

    @applies(EffortLost)
    def on_effort_lost(self, state: Character, event: EffortLost) -> Character:
        """Effort lost as the cost of a failure (004_663ae3e4ecc71fd1.txt, "Degrees of
        Failure": "it costs you an Effort"). A cost the character cannot pay is refused, not
        cut down to what is left (ruling SW9): Effort never drops below 0 and an event never
        says more was lost than was.

        :raises RuleError: an amount below 1, or more than the Effort left.
        """
        if event.amount < 1:
            raise RuleError(f"Effort lost must be 1 or more, not {event.amount}")
        if event.amount > state.effort:
            raise RuleError(
                f"{state.name} has {state.effort} Effort left and cannot lose {event.amount}; "
                "the GM picks another cost of the failure"
            )
        return msgspec.structs.replace(state, effort=state.effort - event.amount)

    @applies(Slept)
    def on_slept(self, state: Character, event: Slept) -> Character:
        """A night's sleep refreshes Effort to the pool (004_663ae3e4ecc71fd1.txt,
        "Attributes and Effort")."""
        return msgspec.structs.replace(state, effort=state.effort_max)

    @applies(WeaknessExploited)
    def on_weakness_exploited(self, state: Character, event: WeaknessExploited) -> Character:
        """Record that a Weakness was used; the character must have it
        (004_663ae3e4ecc71fd1.txt, "Weaknesses").

        :raises RuleError: the character has no such Weakness.
        """
        if event.weakness not in state.weaknesses:
            raise RuleError(f"{state.name} has no {event.weakness} Weakness to exploit")
        return state

    @applies(SkillChanged)
    def on_skill_changed(self, state: Character, event: SkillChanged) -> Character:
        """Set a skill's rank (GM-granted; ranks of 10+ use the 10+ table; ruling S1, S10).

        :raises RuleError: a rank below 1 or over ``skill_cap_in_play``; a new skill without
            a valid Attribute; an Attribute's name.
        """
        check_rank(event.rank, self._options(), event.skill)
        existing = find_name(event.skill, list(state.skills))
        attribute = None
        if event.attribute:
            attribute = find_name(event.attribute, list(ATTRIBUTES))
            if attribute is None:
                raise RuleError(
                    f"{event.attribute!r} is not an Attribute; use one of {', '.join(ATTRIBUTES)}"
                )
        if find_name(event.skill, list(ATTRIBUTES)):
            raise RuleError(f"{event.skill!r} is an Attribute, not a skill")
        if existing is None:
            if attribute is None:
                raise RuleError(
                    f"{state.name} has no skill {event.skill!r}: give --attribute to add it as a "
                    f"new skill{did_you_mean(event.skill, list(state.skills))}"
                )
            name = event.skill
        else:
            name = existing
            attribute = attribute or state.skills[existing].attribute
        skills = {**state.skills, name: Skill(rank=event.rank, attribute=attribute)}
        return msgspec.structs.replace(state, skills=skills)

    @applies(SpecialisationLearned)
    def on_specialisation_learned(
        self, state: Character, event: SpecialisationLearned
    ) -> Character:
        """A new Specialisation of a skill on the sheet, with its own rank, rolled by name
        with the parent's Attribute (004_663ae3e4ecc71fd1.txt, "Example: Opposed Roll": "The
        housewife does not have any relevant Specialisations (either **Brawling** or
        **One-Handed Bludgeon** might have been suitable)"; rulings S3, SW11).

        :raises RuleError: a name already held (specialisation, skill or Attribute), a
            parent skill not on the sheet, a rank below 1 or over ``skill_cap_in_play``.
        """
        name = event.specialisation.strip()
        if not name:
            raise RuleError("a specialisation needs a name, e.g. --specialisation Brawling")
        held = find_name(name, list(state.specialisations))
        if held is not None:
            raise RuleError(
                f"{state.name} already has the specialisation {held} "
                f"({state.specialisations[held].rank}); it is learned once"
            )
        if find_name(name, list(state.skills)) or find_name(name, list(ATTRIBUTES)):
            raise RuleError(f"{name!r} is already a skill or an Attribute of {state.name}, "
                            "not a specialisation; name it apart")
        parent = find_name(event.skill, list(state.skills))
        if parent is None:
            raise RuleError(
                f"{state.name} has no skill {event.skill!r} to specialise in"
                f"{did_you_mean(event.skill, list(state.skills))}; learn the skill first "
                "(skill-changed with --attribute)"
            )
        check_rank(event.rank, self._options(), name)
        specs = {**state.specialisations, name: Specialisation(rank=event.rank, skill=parent)}
        return msgspec.structs.replace(state, specialisations=specs)

    @applies(ConditionAdded)
    def on_condition_added(self, state: Character, event: ConditionAdded) -> Character:
        """Add a narrated condition (004_663ae3e4ecc71fd1.txt, "Degrees of Failure").

        :raises RuleError: empty text or a condition already present.
        """
        text = event.condition.strip()
        if not text:
            raise RuleError("a condition needs a description")
        if find_name(text, state.conditions):
            raise RuleError(f"{state.name} already has the condition {text!r}")
        return msgspec.structs.replace(state, conditions=[*state.conditions, text])

    @applies(ConditionRemoved)
    def on_condition_removed(self, state: Character, event: ConditionRemoved) -> Character:
        """Remove a condition (004_663ae3e4ecc71fd1.txt, "Degrees of Failure").

        :raises RuleError: the character does not have it.
        """
        found = find_name(event.condition.strip(), state.conditions)
        if found is None:
            raise RuleError(
                f"{state.name} has no condition {event.condition!r}"
                + did_you_mean(event.condition, state.conditions)
            )
        return msgspec.structs.replace(
            state, conditions=[c for c in state.conditions if c != found]
        )

    @applies(SceneEnded, SessionEnded)
    def on_scene_ended(self, state: Character, event: Event) -> Character:
        """The moment of a roll has passed: Effort can no longer be added to it (ruling S6:
        Effort is spent after the roll, before the outcome is narrated)."""
        if state.last_roll is None and not state.scene_rolls:
            return state
        return msgspec.structs.replace(state, last_roll=None, scene_rolls=[])

    # --- reading -------------------------------------------------------------------------

    def describe(self, event: Event) -> str | None:
        """One line for the log (see :func:`.views.describe`)."""
        return views.describe(event)

    def describe_changes(self, before: Any, after: Any, *, as_gm: bool) -> list[str]:
        """What changed on a character in the rule text's words (see :mod:`.recap`): Effort
        spent and refreshed ("Attributes and Effort"), skill ranks, conditions."""
        own = recap.change_sentences(before, after, as_gm=as_gm)
        if before is None:
            return own
        return own + self.generic_changes(before, after, skip=recap.HANDLED)

    def recap_lines(self, record: Recorded, *, as_gm: bool) -> list[str]:
        """Rule notes for a recap: dice kept at advantage/disadvantage, Effort spent."""
        return recap.recap_notes(record)

    def sheet_view(self, state: Character, *, as_gm: bool) -> dict[str, Any]:
        """The sheet as JSON (see :func:`.views.sheet_view`); nothing is GM-only."""
        return views.sheet_view(state)

    def sheet_layout(self, state: Character, *, as_gm: bool) -> Sheet:
        """The sheet in the book's words (:func:`.layout.sheet_layout`); no GM-only facts."""
        from .layout import sheet_layout

        return sheet_layout(state, system_name=self.name, as_gm=as_gm)

    def odds_series(self, params: dict[str, Any]) -> dict[str, Any]:
        """Success counts by Skill Level: the numbers of the odds chart
        (see :func:`.chart.odds_series`)."""
        from .chart import odds_series

        return odds_series(self, params)

    def draw_odds(self, data: dict[str, Any]) -> Figure:
        """The odds chart of :meth:`odds_series`'s data (see :func:`.chart.draw_odds`)."""
        from .chart import draw_odds

        return draw_odds(data)

    def odds(self, params: dict[str, Any]) -> dict[str, Any]:
        """Exact odds (see :func:`.views.odds_report`)."""
        return views.odds_report(params)

    def advance(self, states, session, session_events, dice, choices) -> list[Event]:  # type: ignore[no-untyped-def]
        """No advancement: the text has none (ruling S10); skills change by
        ``skill-changed`` events the GM records. Always ``[]``."""
        return []


def check_roll(event: TestRolled | ContestRolled) -> None:
    """Refuse a roll event whose numbers do not follow from its dice by the rules (a roll
    recorded by hand or amended by a correction).

    :raises RuleError: naming the first field that does not add up.
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
        elif not (spent > 0) == (their_bonus > 0) == bool(event.vs_attribute) == (
            spent > 0 and bool(event.vs_character)
        ):
            problems.append(
                "the opponent's Effort (vs_effort_spent) goes with vs_character, their "
                "vs_attribute and its vs_effort_bonus"
            )
        sides.append(
            (
                event.opponent_dice,
                event.opponent_kept,
                event.opponent_mode,
                event.opponent_skill_level,
                event.opponent_successes - (event.vs_effort_bonus or 0),
            )
        )
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
            elif kept is not None and (len(kept) != pool or not _sub_multiset(kept, faces)):
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


def _legacy_pool(event: Roll) -> int | None:
    """The pool of a roll stored before ``pool`` was recorded, when its faces show one other
    than 3 and agree with its mode (one die dropped exactly when not ``normal``) and its
    draws; else ``None`` (the roll is re-derived as it is)."""
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


def _sub_multiset(part: list[int], whole: list[int]) -> bool:
    rest = list(whole)
    for x in part:
        if x not in rest:
            return False
        rest.remove(x)
    return True
