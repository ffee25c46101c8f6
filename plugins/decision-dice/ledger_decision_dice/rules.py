"""The decision-dice rules (seed 002_735c6d6cd834a641.txt, "Core Mechanics"): first the
mechanics as pure functions, which draw no dice, read no clock and know nothing of the
ledger, so every rule can be tested with the book's own numbers; then :class:`Rules`, which
turns ``campaign roll`` into decision, contested and supply roll events (dice drawn in the
order the rules list them), re-derives a supply roll from its item and words ``campaign
damage`` as harm.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from fractions import Fraction
from typing import Any, Literal

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
    find_name,
    name_in,
)

from .events import (
    ContestRolled,
    ContestRound,
    DecisionRolled,
    HarmTaken,
    ModifierLine,
    SupplyResult,
    SupplyRolled,
)
from .state import Character, Condition, Item, Options

SIDES = 6
"""The Decision Dice are d6 ("Decision Rolls")."""

SUPPLY_ORDER: tuple[str, ...] = ("d12", "d10", "d8", "d6", "d4", "empty")
"""Supply die sizes in order, largest first ("Supply Rolls": "D12, D10, D8, D6, D4, Empty")."""

EMPTY = "empty"

SUPPLY_STEP_MAX = 3
"""A supply roll showing this or lower lowers the die one size ("Supply Rolls")."""

DIFFICULTY_SCALE: tuple[tuple[int, str], ...] = (
    (22, '↑ (beyond "Impossible")'),
    (20, '"Impossible" Task'),
    (18, "Strenuous Task"),
    (12, "Challenging Task"),
    (6, "Simple Task"),
)
"""The named rows of the "Difficulty Scale" table, highest first: (target number, description)."""

RUNGS: dict[str, int] = {"simple": 6, "challenging": 12, "strenuous": 18, "impossible": 20}
"""The named rungs of the "Difficulty Scale", by lower-case name."""

ModifierKind = Literal["bonus", "penalty", "modifier"]
RoundingMode = Literal["floor", "trunc"]


def counted_modifier(kind: ModifierKind, value: int) -> int:
    """The value a stated modifier contributes ("Key Terms", hint "Modifiers"): a bonus
    stated negative counts 0, a penalty stated positive counts 0, a modifier counts as
    stated."""
    return max(0, value) if kind == "bonus" else min(0, value) if kind == "penalty" else value


def decision_dice_count(advantage: bool | int, disadvantage: bool | int) -> int:
    """How many d6 a decision roll uses ("Advantage and Disadvantage"): 3 with advantage, 1
    with disadvantage; they do not stack, and both cancel to the neutral 2."""
    return 2 + bool(advantage) - bool(disadvantage)


def outcome_of(result: int, target: int) -> Literal["success", "failure"]:
    """The outcome band ("Success and Failure": "Success = Higher than or equal to
    target"): a tie with a target number succeeds ("Resolving a Tie")."""
    return "success" if result >= target else "failure"


def parse_target(text: str | int) -> int:
    """A target number: any integer ≥ 1 (ruling X8) or a named rung of the "Difficulty
    Scale" (``"challenging"``, ``"Challenging Task"``, ``"\\"Impossible\\""``, any case)."""
    if isinstance(text, int):
        value = text
    else:
        cleaned = text.strip().strip("\"'“”").lower()
        if cleaned.endswith(" task"):
            cleaned = cleaned[: -len(" task")].strip().strip("\"'“”")
        if cleaned in RUNGS:
            return RUNGS[cleaned]
        try:
            value = int(cleaned)
        except ValueError:
            names = ", ".join(f"{name} ({tn})" for name, tn in RUNGS.items())
            raise RuleError(
                f"the target {text!r} is not a number or a difficulty: give a number such as 8 "
                f"or one of {names}"
            ) from None
    if value < 1:
        raise RuleError(f"the target number must be 1 or more, not {value}")
    return value


def difficulty_label(target: int) -> str:
    """The "Difficulty Scale" row at or below ``target`` (``13`` → ``"Challenging Task"``;
    below 6: ``"below Simple"``)."""
    return next((label for tn, label in DIFFICULTY_SCALE if tn <= target), "below Simple")


def round_down(value: Fraction | int, mode: RoundingMode = "floor") -> int:
    """Round an end result down, once ("The Rounding Rule": "This only happens at the end,
    not in the middle of calculations"): ``"floor"`` (−2.5 → −3, ruling X10) or ``"trunc"``
    (−2.5 → −2)."""
    if mode == "floor":
        return math.floor(value)
    if mode == "trunc":
        return math.trunc(value)
    raise RuleError(f"round_negative must be 'floor' or 'trunc', not {mode!r}")


def halved_sum(values: Iterable[int], mode: RoundingMode = "floor") -> int:
    """Stress/Vitality-style value: each value halved, added, rounded down at the end.

    "The Rounding Rule" example: 3 and 1 → 1.5 + 0.5 = 2; 3 and 2 → 1.5 + 1 = 2.5 → 2.
    (Rounding each half first would wrongly give 1 + 0 = 1 for 3 and 1.) Ruling X4.
    """
    return round_down(sum((Fraction(v, 2) for v in values), Fraction(0)), mode)


def normalise_supply(text: str) -> str:
    """A supply die label: ``"D8"`` / ``"d8"`` / ``"8"`` → ``"d8"``; ``"Empty"`` → ``"empty"``.

    :raises RuleError: not one of d12, d10, d8, d6, d4, empty ("Supply Rolls").
    """
    cleaned = str(text).strip().lower()
    if cleaned.isdigit():
        cleaned = "d" + cleaned
    if cleaned not in SUPPLY_ORDER:
        raise RuleError(f"a supply die is one of {', '.join(SUPPLY_ORDER)}, not {text!r}")
    return cleaned


def supply_sides(die: str) -> int:
    """Faces of a supply die label (``"d10"`` → 10); an empty item has none."""
    label = normalise_supply(die)
    if label == EMPTY:
        raise RuleError("an empty item has no supply die to roll")
    return int(label[1:])


def supply_step(die: str, face: int, step_max: int = SUPPLY_STEP_MAX) -> str:
    """The supply die after one supply roll ("Supply Rolls": "If the result is 3 or lower,
    the die size is lowered a size": d12 → d10 → d8 → d6 → d4 → empty).

    :raises RuleError: the die is empty (an empty item cannot be used where a supply roll is
        required) or the face is not on the die.
    """
    label = normalise_supply(die)
    if label == EMPTY:
        raise RuleError(
            "the item is Empty: it cannot be used where a supply roll is required "
            "(resupply it first)"
        )
    sides = int(label[1:])
    if not 1 <= face <= sides:
        raise RuleError(f"a {label} shows 1 to {sides}, not {face}")
    if face <= step_max:
        return SUPPLY_ORDER[SUPPLY_ORDER.index(label) + 1]
    return label


def find_item(state: Character, wanted: str) -> Item:
    """The item named ``wanted`` (any case), with the closest name suggested when none is."""
    name = find_name(wanted, [i.name for i in state.equipment], "equipment")
    return next(i for i in state.equipment if i.name == name)


def supply_die_of(item: Item) -> str:
    """The item's supply die for a roll that requires supplies ("Supply Rolls").

    :raises RuleError: the item makes no supply rolls, or is Empty (E15: "Empty items
        cannot be used if a supply roll is required").
    """
    if item.supply is None:
        raise RuleError(f"{item.name!r} has no supply die: it makes no supply rolls")
    if item.supply == EMPTY:
        raise RuleError(
            f"{item.name!r} is Empty: it cannot be used where a supply roll is required "
            "(resupply it first; it may still be used where no supply roll is needed)"
        )
    return item.supply


def int_params(params: dict[str, Any], name: str) -> list[int]:
    """A repeatable whole-number option as a list (absent → ``[]``; one int is accepted)."""
    value = params.get(name)
    if value is None:
        return []
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    try:
        return [int(v) for v in value]
    except (TypeError, ValueError):
        raise RuleError(f"the {name} takes whole numbers, not {value!r}", param=name) from None


def applicable_conditions(state: Character, stat: str) -> list[Condition]:
    """The character's conditions that apply to a roll of ``stat`` (``stat == ""``: all)."""
    return [c for c in state.conditions if not c.stat or c.stat.lower() == stat.lower()]


#: The roll options that add a line to the roller's breakdown, by name, and their kind.
ROLLER_OPTIONS: dict[str, ModifierKind] = {
    "bonus": "bonus",
    "penalty": "penalty",
    "modifier": "modifier",
}
#: The option that adds a line to the opposing side's breakdown (a character on the ledger).
OPPONENT_OPTIONS: dict[str, ModifierKind] = {"opponent_modifier": "modifier"}


def _line(
    origin: Literal["option", "condition"], source: str, kind: ModifierKind, value: int
) -> ModifierLine:
    counted = counted_modifier(kind, value)
    return ModifierLine(origin=origin, source=source, kind=kind, stated=value, counted=counted)


def modifier_lines(
    stat: str,
    stat_value: int,
    params: dict[str, Any],
    conditions: Iterable[Condition],
    options: dict[str, ModifierKind] = ROLLER_OPTIONS,
) -> list[ModifierLine]:
    """The modifier breakdown of a roll: the stat, then the values of the roll options
    ``options`` names (each line names its option), then the conditions' values ("Key
    Terms", hint "Modifiers")."""
    lines = [
        ModifierLine(origin="stat", source=stat, kind="stat", stated=stat_value, counted=stat_value)
    ]
    for name, kind in options.items():
        lines += [_line("option", name, kind, value) for value in int_params(params, name)]
    for c in conditions:
        if c.kind in ("bonus", "penalty", "modifier"):
            lines.append(_line("condition", c.name, c.kind, c.value))
    return lines


def derived_values(state: Character, options: Options) -> dict[str, int]:
    """Each configured derived value (Stress, Vitality, ...): its stats halved, added,
    rounded down at the end ("The Rounding Rule", ruling X4)."""
    lower = {k.lower(): v for k, v in state.stats.items()}
    return {
        name: halved_sum([lower.get(s.lower(), 0) for s in stats], options.round_negative)
        for name, stats in options.derived.items()
    }


def current_values(state: Character, options: Options) -> dict[str, int]:
    """Each derived value now: its value from the stats less what was spent (harm taken and
    not recovered), never below 0 (ruling DD10)."""
    return {
        name: max(0, value - state.spent.get(name, 0))
        for name, value in derived_values(state, options).items()
    }


# --- the rolls ---------------------------------------------------------------------------

DECISION_ONLY = ("target", "adjust", "impossible", "supply")
CONTEST_ONLY = ("opponent_modifier", "opponent_advantage", "opponent_disadvantage")


def _given(params: dict[str, Any], name: str) -> bool:
    value = params.get(name)
    return value not in (None, False, (), [], "")


def _side(
    stat: str, value: int, conditions: list[Condition], params: dict[str, Any], prefix: str = ""
) -> dict[str, Any]:
    """One side of a roll, as its event records it: the stat, advantage and disadvantage
    (given, ``prefix`` + ``"advantage"``, or from a condition that applies; "Advantage and
    Disadvantage"), the decision dice, the modifier breakdown and the conditions used ("Key
    Terms"). ``prefix="opponent_"``: the opposing side, from its own options."""
    advantage = bool(params.get(prefix + "advantage")) or any(
        c.kind == "advantage" for c in conditions
    )
    disadvantage = bool(params.get(prefix + "disadvantage")) or any(
        c.kind == "disadvantage" for c in conditions
    )
    options = OPPONENT_OPTIONS if prefix else ROLLER_OPTIONS
    lines = modifier_lines(stat, value, params, conditions, options)
    return {
        "stat": stat,
        "stat_value": value,
        "decision_dice": decision_dice_count(advantage, disadvantage),
        "advantage": advantage,
        "disadvantage": disadvantage,
        "modifiers": lines,
        "modifier_total": sum(line.counted for line in lines),
        "conditions": [c.name for c in conditions],
    }


class Rules(RuleSystem[Character, Options]):
    """Rolls, the re-derivation of a supply roll, and harm (002_735c6d6cd834a641.txt)."""

    def resolve(
        self, state: Character, request: RollRequest, dice: DiceSource
    ) -> DecisionRolled | ContestRolled | SupplyRolled:
        """Resolve ``campaign roll CHARACTER STAT|ITEM [params]`` into a roll event.

        ``STAT`` → a decision roll (Target number, "Decision Rolls") or a contested roll
        (an Opponent, or one on the ledger, "Contested Rolls"); an item with a supply die
        → a supply roll on its own ("Supply Rolls"; a stat of the same name wins, ruling
        DD3).
        """
        params = request.params
        if not request.skill:
            raise RuleError(
                "name the stat to roll (or an item with a supply die), e.g. "
                "agility against a Target number of 8"
            )
        stat = name_in(request.skill.strip(), state.stats)
        if stat is None:
            items = {i.name: i for i in state.equipment}
            item = items.get(name_in(request.skill.strip(), items) or "")
            if item is None:
                names = list(state.stats) + [i.name for i in state.equipment if i.supply]
                find_name(request.skill, names, "stat or supply item")
                raise AssertionError("unreachable")  # pragma: no cover
            extra = [p.name for p in self.roll_params if _given(params, p.name)]
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
        # only the base target makes an "Impossible" task, never an adjusted one (X9)
        impossible = base >= options.impossible_target
        if impossible and options.refuse_impossible and not params.get("impossible"):
            raise RuleError(
                f'a task starting at {base} is an "Impossible" task: it cannot normally be '
                "attempted; if the GM allows the attempt, allow an attempt at an “Impossible” task",
                param="impossible",
            )
        mine = _side(stat, state.stats[stat], applicable_conditions(state, stat), params)
        item = find_item(state, str(params["supply"])) if _given(params, "supply") else None
        die = supply_die_of(item) if item is not None else ""  # before any die is drawn (DD4)
        faces = dice.roll(mine["decision_dice"], SIDES)
        supply = None
        if item is not None:
            # "Each roll is handled individually after the action is complete": the supply die
            # is drawn after the decision dice and the action stands whatever it shows (X11).
            face = dice.d(supply_sides(die))
            after = supply_step(die, face, options.supply_step_max)
            supply = SupplyResult(item=item.name, die=die, face=face, after=after)
        dice.finish()
        total = sum(faces) + mine["modifier_total"]
        target = base + sum(adjustments)
        return DecisionRolled(
            character=state.character,
            dice=faces,
            base_target=base,
            target_adjustments=adjustments,
            target=target,
            difficulty=difficulty_label(base),
            impossible_task=impossible,
            total=total,
            margin=total - target,
            outcome=outcome_of(total, target),
            supply=supply,
            **mine,
            **dice.fields(),
        )

    def _contest(
        self,
        state: Character,
        stat: str,
        params: dict[str, Any],
        dice: DiceSource,
        on_ledger: Opponent | None = None,
    ) -> ContestRolled:
        """A contested roll with tie rerolls ("Contested Rolls", "Resolving a Tie", X7).

        Against a character on the ledger (ruling DD6) their side is the stat they oppose
        with (their ``skill``, else the roller's stat), the conditions of theirs that apply
        to it and their modifiers: "each side rolls and adds their modifiers".
        """
        mine = _side(stat, state.stats[stat], applicable_conditions(state, stat), params)
        vs: dict[str, Any] = {}
        if on_ledger is None:
            theirs = _side("", 0, [], params, "opponent_")
            opponent = str(params["opponent"])
        else:
            them = on_ledger.state
            assert isinstance(them, Character)
            name = find_name(on_ledger.skill or stat, them.stats, f"stat of {them.name}")
            conditions = applicable_conditions(them, name)
            theirs = _side(name, them.stats[name], conditions, params, "opponent_")
            vs = {f"vs_{k}": theirs[k] for k in ("stat", "stat_value", "modifiers", "conditions")}
            vs["vs_character"] = on_ledger.character
            opponent = on_ledger.name or on_ledger.character
        rounds: list[ContestRound] = []
        while not rounds or rounds[-1].total == rounds[-1].opponent_total:  # a tie rerolls
            if len(rounds) >= self.options.max_contest_rounds:
                raise RuleError(
                    f"the contest was still tied after {len(rounds)} rounds "
                    "(max_contest_rounds); roll it again"
                )
            a, b = (
                dice.roll(mine["decision_dice"], SIDES),
                dice.roll(theirs["decision_dice"], SIDES),
            )
            rounds.append(
                ContestRound(
                    dice=a,
                    total=sum(a) + mine["modifier_total"],
                    opponent_dice=b,
                    opponent_total=sum(b) + theirs["modifier_total"],
                )
            )
        dice.finish()
        last = rounds[-1]
        won = last.total > last.opponent_total  # "the win going to the highest roller"
        return ContestRolled(
            character=state.character,
            opponent=opponent,
            opponent_decision_dice=theirs["decision_dice"],
            opponent_advantage=theirs["advantage"],
            opponent_disadvantage=theirs["disadvantage"],
            opponent_modifiers=int_params(params, "opponent_modifier"),
            opponent_modifier_total=theirs["modifier_total"],
            rounds=rounds,
            dice=last.dice,
            total=last.total,
            target=last.opponent_total,
            margin=last.total - last.opponent_total,
            winner=state.character if won else opponent,
            outcome="success" if won else "failure",
            **mine,
            **vs,
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
