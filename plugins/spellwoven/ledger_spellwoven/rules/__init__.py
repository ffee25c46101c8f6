"""The Spellwoven rules (seed 004_663ae3e4ecc71fd1.txt, "Rules for the Game"): ``campaign
roll`` as a Test or Contest of Skill, a roll stored before its pool was re-derived, the
opponent's Effort written with a contest. The rules as pure functions are in
:mod:`.mechanics` (success counting, modes, difficulties, notation) and :mod:`.rolls` (a
request to dice, a recorded roll checked).
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec import UNSET

from ledger import HOUR, DiceSource, Event, Roll, RollRequest, RuleError, RuleSystem, TimePassed

from ..events import ContestEffortSpent, ContestRolled, Slept, TestRolled
from ..state import Character, Options
from .mechanics import (
    STANDARD_POOL,
    asked_difficulty,
    check_difficulty,
    contest_outcome,
    mode_of,
    outcome_of_test,
)
from .rolls import (
    Drawn,
    Opponent,
    SkillChoice,
    check_effort,
    check_weakness,
    choose_skill,
    draw,
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
        common: dict[str, Any] = {
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
        }
        if pool != STANDARD_POOL:
            common["pool"] = pool
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
            common["mode"] = "normal"
        mine = Drawn([], None, 0) if required == 0 else draw(dice, choice.level, mode, pool)
        theirs = draw(dice, opponent.level, opponent.mode, pool) if opponent else None
        dice.finish()
        successes = mine.successes + bonus
        rolled = {
            **common,
            "dice": mine.dice,
            "kept": mine.kept,
            "dice_successes": mine.successes,
            "successes": successes,
            **dice.fields(),
        }
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
        {})`` for a Test. Off the ledger, ``vs`` (:func:`.rolls.parse_vs`). On the ledger
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
        faces (:func:`.rolls.legacy_pool`), and the re-derived roll leaves ``pool`` out as
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

    def follow_up_of(self, event: Event) -> int | None:
        """The contest roll a :class:`ContestEffortSpent` was written with (ruling SW10):
        retracted with it, worked out again when it is amended."""
        return event.roll if isinstance(event, ContestEffortSpent) else None

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
