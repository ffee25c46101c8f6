"""The Spellwoven rules (seed 004_663ae3e4ecc71fd1.txt, "Rules for the Game").

:class:`Rules` resolves ``campaign roll`` into a Test or Contest of Skill (each keeps what it
was asked by option name, ``inputs``, which the core's default ``request_of`` reads back),
re-derives a roll stored before its pool was, and writes the opponent's Effort with a contest.
It draws dice and returns events; no state changes here (:mod:`ledger_spellwoven.appliers`
does that). The rules as pure functions are in :mod:`.mechanics` (success counting, modes,
difficulties, notation) and :mod:`.rolls` (a request to dice, a recorded roll checked).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec
from msgspec import UNSET

from ledger import (
    HOUR,
    DiceSource,
    Event,
    Recorded,
    Roll,
    RollRequest,
    RuleError,
    RuleSystem,
    TimePassed,
)
from ledger import (
    Opponent as LedgerOpponent,
)

from ..events import ContestEffortSpent, ContestRolled, Slept, TestRolled
from ..state import Character, Options
from .mechanics import (
    STANDARD_POOL,
    check_difficulty,
    contest_outcome,
    difficulty_from_attribute,
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
    legacy_pool,
    parse_vs,
    read_pool,
)


class Rules(RuleSystem[Character, Options]):
    """Spellwoven's rolls: roll 3d10 under the Skill Level, count successes (1s count
    double, 10s never), meet a difficulty of 1..4 or beat an opponent; Effort adds the
    Attribute (004_663ae3e4ecc71fd1.txt, "Rules for the Game"; rulings in
    docs/rulings/spellwoven.md).
    """

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
        options = self.options
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
                raise RuleError(
                    "give the opponent as a Contest of Skill against NAME:S or as a "
                    "character on the ledger, not both: a character's Skill Level comes from their sheet",
                    param="vs",
                )
            opponent, side = self._opposing_side(
                request.opponent,
                choice.skill,
                options,
                flag(params, "weakness"),
                int_param(params, "vs_effort") or 0,
            )
            their_bonus = side.get("vs_effort_bonus", 0)
            params = {**params, "vs": opponent}
        elif int_param(params, "vs_effort"):
            raise RuleError(
                "the opponent's Effort is the Effort of an opponent on the ledger: "
                "name them on the ledger (an opponent off the ledger has no Effort "
                "here; the GM adds it to their successes)",
                param="vs_effort",
            )
        if params.get("vs") not in (None, ""):
            if difficulty is not None or target is not None:
                raise RuleError(
                    "a Contest of Skill has no difficulty: drop the Difficulty and the Target's Attribute",
                    param="difficulty",
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
            raise RuleError(
                "give the Difficulty or the Target's Attribute, not both", param="target"
            )
        if target is not None:
            required = difficulty_from_attribute(target)
        else:
            required = options.default_difficulty if difficulty is None else difficulty
            check_difficulty(required)
        if required == 0:
            if spend:
                raise RuleError(
                    "difficulty 0 is an automatic hit with no roll: spend no Effort", param="effort"
                )
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
            raise RuleError(
                f"{theirs.name} has no Weakness to exploit (their sheet has none); "
                "do not use the target's Weakness",
                param="weakness",
            )
        side: dict[str, Any] = {"vs_character": opponent.character, "vs_skill": choice.skill}
        if effort:
            check_effort(theirs, effort, options)
            side |= {
                "vs_effort_spent": effort,
                "vs_attribute": choice.attribute,
                "vs_effort_bonus": effort * choice.attribute_value,
            }
        return Opponent(opponent.name or opponent.character, choice.level, "normal"), side

    def settled_without_dice(self, event: Roll) -> RuleError | None:
        """A Test against a target whose Attribute is 1: difficulty 0, "no roll: the
        target is hit automatically" (004_663ae3e4ecc71fd1.txt, "Static Difficulty from
        Attributes"), so a request for it asks a player for nothing. ``None`` for every
        roll that draws a die."""
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
        """The roll the rules give for ``event``'s recorded inputs and draws.

        ``resolve(state, request_of(event), ReplayDice(event))``, except for a roll stored
        before ``pool`` was recorded (``pool`` absent) whose faces show another pool than 3
        ("Basic Distributions", ruling SW7): its pool is read from its kept faces (or its
        faces when none was dropped), if those agree with its mode and draws, and the
        re-derived roll leaves ``pool`` out as the stored one does.

        :raises RuleError: the rules refuse the recorded inputs.
        :raises ledger.DiceError: the rules draw other dice than were recorded.
        """
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

    def advance(
        self,
        states: dict[str, Any],
        session: int,
        session_events: Sequence[Recorded],
        dice: Callable[[str], DiceSource],
        choices: dict[str, Any],
    ) -> list[Event]:
        """No advancement: the text has none (ruling S10); skills change by
        ``skill-changed`` events the GM records. Always ``[]``."""
        return []

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
