"""The decision-dice rules (seed 002_735c6d6cd834a641.txt, "Core Mechanics").

:class:`Rules` resolves ``campaign roll`` into decision, contested and supply roll events,
re-derives a supply roll from its item, and turns ``campaign damage`` into harm. A roll
keeps what it was asked by option name (``inputs``, recorded by the core), which the core's
default ``request_of`` reads back for re-derivation and corrections. It draws the dice in
the order the rules list them and returns events; no state changes happen here
(:mod:`ledger_decision_dice.appliers` does that). The rules as pure functions are in
:mod:`ledger_decision_dice.rules.mechanics`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from ledger import (
    DiceSource,
    Event,
    Opponent,
    ReplayDice,
    Roll,
    RollRequest,
    RuleError,
    RuleSystem,
)

from ..events import (
    ContestRolled,
    ContestRound,
    DecisionRolled,
    HarmTaken,
    ModifierLine,
    SupplyResult,
    SupplyRolled,
)
from ..state import Character, Condition, Item, Options
from .mechanics import (
    OPPONENT_OPTIONS,
    SIDES,
    applicable_conditions,
    contest_winner,
    decision_dice_count,
    difficulty_label,
    find_item,
    find_name,
    int_params,
    is_impossible_task,
    modifier_lines,
    outcome_of,
    parse_target,
    supply_die_of,
    supply_sides,
    supply_step,
)

DECISION_ONLY = ("target", "adjust", "impossible", "supply")
CONTEST_ONLY = ("opponent_modifier", "opponent_advantage", "opponent_disadvantage")
ANY_ROLL = ("advantage", "disadvantage", "bonus", "penalty", "modifier")


def _given(params: dict[str, Any], name: str) -> bool:
    value = params.get(name)
    return value not in (None, False, (), [], "")


def _advantage(params: dict[str, Any], conditions: Iterable[Condition]) -> tuple[bool, bool]:
    """``(advantage, disadvantage)`` of a roll: given as flags or from a condition that
    applies ("Advantage and Disadvantage")."""
    conditions = list(conditions)
    advantage = bool(params.get("advantage")) or any(c.kind == "advantage" for c in conditions)
    disadvantage = bool(params.get("disadvantage")) or any(
        c.kind == "disadvantage" for c in conditions
    )
    return advantage, disadvantage


class Rules(RuleSystem[Character, Options]):
    """Rolls, the re-derivation of a supply roll, and harm (002_735c6d6cd834a641.txt)."""

    def resolve(
        self, state: Character, request: RollRequest, dice: DiceSource
    ) -> DecisionRolled | ContestRolled | SupplyRolled:
        """Resolve ``campaign roll CHARACTER STAT|ITEM [params]`` into a roll event.

        ``STAT`` → a decision roll (``--target``, "Decision Rolls") or a contested roll
        (``--opponent`` or ``--vs-character``, "Contested Rolls"); an item with a supply die
        → a supply roll on its own ("Supply Rolls"; a stat of the same name wins, ruling
        DD3).

        :raises RuleError: no stat or item named; unknown name; missing target; parameters
            that do not belong together; an "Impossible" task the GM has not allowed; an
            Empty item.
        :raises ledger.DiceError: physical faces a d6 (or the supply die) cannot show, too
            few or too many.
        """
        params = request.params
        if not request.skill:
            raise RuleError(
                "name the stat to roll (or an item with a supply die), e.g. "
                "agility against a Target number of 8"
            )
        wanted = request.skill.strip().lower()
        stat = next((s for s in state.stats if s.lower() == wanted), None)
        if stat is None:
            item = next((i for i in state.equipment if i.name.lower() == wanted), None)
            if item is None:
                names = list(state.stats) + [i.name for i in state.equipment if i.supply]
                find_name(names, request.skill, "stat or supply item")
                raise AssertionError("unreachable")  # pragma: no cover
            extra = [
                n
                for n in DECISION_ONLY + CONTEST_ONLY + ANY_ROLL + ("opponent",)
                if _given(params, n)
            ]
            if extra:
                raise RuleError(
                    f"{item.name!r} is an item: a supply roll takes no "
                    f"{', '.join(self.roll_label(e) for e in extra)}",
                    param=extra[0],
                )
            return self.supply_roll(state, item, dice)
        if _given(params, "opponent") or request.opponent is not None:
            wrong = [n for n in DECISION_ONLY if _given(params, n)]
            if wrong:
                raise RuleError(
                    f"a contested roll has no {', '.join(self.roll_label(w) for w in wrong)}: "
                    "the opponent's result is the number to beat",
                    param=wrong[0],
                )
            if _given(params, "opponent") and request.opponent is not None:
                raise RuleError(
                    "the Opponent names an opponent off the ledger: leave it out for "
                    "one on the ledger (their name comes from the ledger)",
                    param="opponent",
                )
            return self._contest(state, stat, params, dice, request.opponent)
        wrong = [n for n in CONTEST_ONLY if _given(params, n)]
        if wrong:
            raise RuleError(
                f"{', '.join(self.roll_label(w) for w in wrong)} need an Opponent", param="opponent"
            )
        return self._decision(state, stat, params, dice)

    def _decision(
        self, state: Character, stat: str, params: dict[str, Any], dice: DiceSource
    ) -> DecisionRolled:
        """A decision roll: 2d6 + STAT + MODIFIERS vs. TARGET NUMBER ("Decision Rolls")."""
        options = self.options
        if not _given(params, "target"):
            raise RuleError(
                "a decision roll needs a Target number: a number (e.g. 8) or simple, "
                "challenging, strenuous, impossible",
                param="target",
            )
        base = parse_target(params["target"])
        adjustments = int_params(params, "adjust")
        target = base + sum(adjustments)
        impossible = is_impossible_task(base, options.impossible_target)
        if impossible and options.refuse_impossible and not params.get("impossible"):
            raise RuleError(
                f'a task starting at {base} is an "Impossible" task: it cannot normally be '
                "attempted; if the GM allows the attempt, allow an attempt at an “Impossible” task",
                param="impossible",
            )
        conditions = applicable_conditions(state, stat)
        advantage, disadvantage = _advantage(params, conditions)
        count = decision_dice_count(advantage, disadvantage)
        lines = modifier_lines(stat, state.stats[stat], params, conditions)
        supply_item = find_item(state, str(params["supply"])) if _given(params, "supply") else None
        supply_die = supply_die_of(supply_item) if supply_item else None
        faces = dice.roll(count, SIDES)
        supply = None
        if supply_item is not None and supply_die is not None:
            # "Each roll is handled individually after the action is complete": the supply die
            # is drawn after the decision dice and the action stands whatever it shows (X11).
            face = dice.d(supply_sides(supply_die))
            supply = SupplyResult(
                item=supply_item.name,
                die=supply_die,
                face=face,
                after=supply_step(supply_die, face, options.supply_step_max),
            )
        dice.finish()
        modifier_total = sum(line.counted for line in lines)
        total = sum(faces) + modifier_total
        return DecisionRolled(
            character=state.character,
            stat=stat,
            stat_value=state.stats[stat],
            dice=faces,
            decision_dice=count,
            advantage=advantage,
            disadvantage=disadvantage,
            modifiers=lines,
            modifier_total=modifier_total,
            base_target=base,
            target_adjustments=adjustments,
            target=target,
            difficulty=difficulty_label(base),
            impossible_task=impossible,
            total=total,
            margin=total - target,
            outcome=outcome_of(total, target),
            conditions=[c.name for c in conditions],
            supply=supply,
            **dice.fields(),
        )

    @staticmethod
    def _opposing_side(
        opponent: Opponent, stat: str, params: dict[str, Any]
    ) -> tuple[dict[str, Any], list[Condition], list[ModifierLine]]:
        """The side of an opponent on the ledger (``--vs-character``, ruling DD6): the stat
        they oppose with (``--vs-skill``, else the roller's stat), its value, the conditions
        of theirs that apply to it and their modifier breakdown: "each side rolls and adds
        their modifiers" ("Contested Rolls"); a bonus stated negative counts 0 and a penalty
        stated positive counts 0 ("Key Terms", hint "Modifiers").

        :raises RuleError: the opponent has no such stat (the sentence lists theirs).
        """
        theirs = opponent.state
        assert isinstance(theirs, Character)
        name = find_name(list(theirs.stats), opponent.skill or stat, f"stat of {theirs.name}")
        conditions = applicable_conditions(theirs, name)
        lines = modifier_lines(name, theirs.stats[name], params, conditions, OPPONENT_OPTIONS)
        side = {
            "vs_character": opponent.character,
            "vs_stat": name,
            "vs_stat_value": theirs.stats[name],
            "vs_modifiers": lines,
            "vs_conditions": [c.name for c in conditions],
        }
        return side, conditions, lines

    def _contest(
        self,
        state: Character,
        stat: str,
        params: dict[str, Any],
        dice: DiceSource,
        opponent_on_ledger: Opponent | None = None,
    ) -> ContestRolled:
        """A contested roll with tie rerolls ("Contested Rolls", "Resolving a Tie", X7);
        against a character on the ledger their stat, conditions and modifiers come from
        their sheet (:meth:`_opposing_side`)."""
        conditions = applicable_conditions(state, stat)
        advantage, disadvantage = _advantage(params, conditions)
        count = decision_dice_count(advantage, disadvantage)
        lines = modifier_lines(stat, state.stats[stat], params, conditions)
        modifier_total = sum(line.counted for line in lines)
        opp_adv = bool(params.get("opponent_advantage"))
        opp_dis = bool(params.get("opponent_disadvantage"))
        opp_mods = int_params(params, "opponent_modifier")
        opp_total_mod = sum(opp_mods)
        side: dict[str, Any] = {}
        if opponent_on_ledger is not None:
            side, opp_conditions, opp_lines = self._opposing_side(opponent_on_ledger, stat, params)
            opp_adv = opp_adv or any(c.kind == "advantage" for c in opp_conditions)
            opp_dis = opp_dis or any(c.kind == "disadvantage" for c in opp_conditions)
            opp_total_mod = sum(line.counted for line in opp_lines)
        opp_count = decision_dice_count(opp_adv, opp_dis)
        rounds: list[ContestRound] = []
        winner = None
        while winner is None:
            if len(rounds) >= self.options.max_contest_rounds:
                raise RuleError(
                    f"the contest was still tied after {len(rounds)} rounds "
                    "(max_contest_rounds); roll it again"
                )
            mine = dice.roll(count, SIDES)
            theirs = dice.roll(opp_count, SIDES)
            rnd = ContestRound(
                dice=mine,
                total=sum(mine) + modifier_total,
                opponent_dice=theirs,
                opponent_total=sum(theirs) + opp_total_mod,
            )
            rounds.append(rnd)
            winner = contest_winner(rnd.total, rnd.opponent_total)
        dice.finish()
        last = rounds[-1]
        if opponent_on_ledger is not None:
            opponent = opponent_on_ledger.name or opponent_on_ledger.character
        else:
            opponent = str(params["opponent"])
        return ContestRolled(
            character=state.character,
            stat=stat,
            stat_value=state.stats[stat],
            decision_dice=count,
            advantage=advantage,
            disadvantage=disadvantage,
            modifiers=lines,
            modifier_total=modifier_total,
            opponent=opponent,
            opponent_decision_dice=opp_count,
            opponent_advantage=opp_adv,
            opponent_disadvantage=opp_dis,
            opponent_modifiers=opp_mods,
            opponent_modifier_total=opp_total_mod,
            rounds=rounds,
            dice=last.dice,
            total=last.total,
            target=last.opponent_total,
            margin=last.total - last.opponent_total,
            winner=state.character if winner == "a" else opponent,
            outcome="success" if winner == "a" else "failure",
            conditions=[c.name for c in conditions],
            **side,
            **dice.fields(),
        )

    def supply_roll(self, state: Character, item: Item, dice: DiceSource) -> SupplyRolled:
        """A supply roll on its own ("Supply Rolls"): roll the listed die; ≤ 3 lowers it.

        :raises RuleError: the item has no supply die or is Empty.
        """
        die = supply_die_of(item)
        face = dice.d(supply_sides(die))
        dice.finish()
        after = supply_step(die, face, self.options.supply_step_max)
        return SupplyRolled(
            character=state.character,
            item=item.name,
            die=die,
            dice=[face],
            total=face,
            target=self.options.supply_step_max + 1,
            after=after,
            outcome="success" if after == die else "failure",
            **dice.fields(),
        )

    def opponent_of(self, event: Event) -> str | None:
        """The character on the ledger a contested roll was made against (``vs_character``,
        ruling DD6); no other roll is made against anyone, whatever it was asked (a supply
        roll given an opponent on the ledger is refused, nothing written)."""
        return event.vs_character if isinstance(event, ContestRolled) else None

    def rederive(
        self, state: Character, event: Roll, *, name: str, opponent: Opponent | None = None
    ) -> Roll:
        """The roll the rules give for ``event``'s inputs and draws.

        A supply roll is re-derived from the item it names (not through :meth:`resolve`,
        which rolls a stat of the same name instead, ruling DD3), so a supply roll recorded by
        hand is checked too: the die is the item's die in ``state``, the face is the recorded
        draw, and ``after``, ``total``, ``target`` and ``outcome`` follow from them
        (002_735c6d6cd834a641.txt, "Supply Rolls"). The item is the one its inputs name
        (``skill``; the ``item`` field when it has none), and the inputs stay as recorded.
        """
        if isinstance(event, SupplyRolled):
            named = getattr(event.inputs, "skill", None)  # None: recorded without inputs
            dice = ReplayDice(event)
            derived = self.supply_roll(state, find_item(state, named or event.item), dice)
            dice.finish()
            return msgspec.structs.replace(derived, inputs=event.inputs)
        return super().rederive(state, event, name=name, opponent=opponent)

    def harm_event(self, state: Character, character: str, amount: int) -> Event:
        """``campaign damage CHARACTER AMOUNT``: ``amount`` taken from the ``harm_track``
        derived value (Vitality by default; "The Rounding Rule" names Stress and Vitality;
        ruling DD10). The applier refuses it when the campaign has no such derived value."""
        return HarmTaken(character=character, track=self.options.harm_track, amount=amount)
