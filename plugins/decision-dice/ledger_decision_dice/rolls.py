"""Resolving decision, contested and supply rolls into events (seed 002_735c6d6cd834a641.txt).

:func:`resolve_roll` is what :meth:`DecisionDice.resolve` calls: it reads the ``campaign
roll`` parameters, draws the dice in the order the rules list them and returns the roll
event. Only dice sources are touched; no state changes happen here (the appliers do that).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ledger import DiceSource, Opponent, Roll, RollRequest, RuleError

from .events import (
    ContestRolled,
    ContestRound,
    DecisionRolled,
    ModifierLine,
    SupplyResult,
    SupplyRolled,
)
from .mechanics import (
    EMPTY,
    SIDES,
    contest_winner,
    counted_modifier,
    decision_dice_count,
    difficulty_label,
    is_impossible_task,
    outcome_of,
    parse_target,
    supply_sides,
    supply_step,
)
from .sheet import Character, Condition, Item, Options, find_name

DECISION_ONLY = ("target", "adjust", "impossible", "supply")
CONTEST_ONLY = ("opponent_modifier", "opponent_advantage", "opponent_disadvantage")
ANY_ROLL = ("advantage", "disadvantage", "bonus", "penalty", "modifier")


def _ints(params: dict[str, Any], name: str) -> list[int]:
    """A multiple int parameter as a list (absent → ``[]``; a single int is accepted)."""
    value = params.get(name)
    if value is None:
        return []
    if isinstance(value, int) and not isinstance(value, bool):
        return [value]
    try:
        return [int(v) for v in value]
    except (TypeError, ValueError):
        raise RuleError(f"--{name} takes whole numbers, not {value!r}") from None


def _given(params: dict[str, Any], name: str) -> bool:
    value = params.get(name)
    return value not in (None, False, (), [], "")


def applicable_conditions(state: Character, stat: str) -> list[Condition]:
    """The character's conditions that apply to a roll of ``stat`` (``stat == ""``: all)."""
    return [c for c in state.conditions if not c.stat or c.stat.lower() == stat.lower()]


def modifier_lines(
    stat: str, stat_value: int, params: dict[str, Any], conditions: Iterable[Condition]
) -> list[ModifierLine]:
    """The modifier breakdown of a roll: the stat, then ``--bonus``, ``--penalty``,
    ``--modifier`` values, then the conditions' values ("Key Terms", hint "Modifiers")."""
    lines = [ModifierLine(source=stat, kind="stat", stated=stat_value, counted=stat_value)]
    for kind in ("bonus", "penalty", "modifier"):
        for value in _ints(params, kind):
            lines.append(ModifierLine(source=f"--{kind}", kind=kind,  # type: ignore[arg-type]
                                      stated=value, counted=counted_modifier(kind, value)))  # type: ignore[arg-type]
    for c in conditions:
        if c.kind in ("bonus", "penalty", "modifier"):
            lines.append(ModifierLine(source=c.name, kind=c.kind, stated=c.value,
                                      counted=counted_modifier(c.kind, c.value)))
    return lines


def find_item(state: Character, wanted: str) -> Item:
    """The item named ``wanted`` (any case).

    :raises RuleError: no such item, with the closest name suggested.
    """
    name = find_name([i.name for i in state.equipment], wanted, "equipment")
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


def resolve_roll(
    state: Character, request: RollRequest, dice: DiceSource, options: Options
) -> DecisionRolled | ContestRolled | SupplyRolled:
    """Resolve ``campaign roll CHARACTER STAT|ITEM [params]`` into a roll event.

    ``STAT`` → a decision roll (``--target``) or a contested roll (``--opponent``);
    an item with a supply die → a supply roll on its own.

    :raises RuleError: no stat or item named; unknown name; missing target; parameters that
        do not belong together; an "Impossible" task the GM has not allowed; an Empty item.
    :raises ledger.DiceError: physical faces a d6 (or the supply die) cannot show, too few
        or too many.
    """
    params = request.params
    if not request.skill:
        raise RuleError("name the stat to roll (or an item with a supply die), e.g. "
                        "`roll jen agility --target 8`")
    wanted = request.skill.strip().lower()
    stat = next((s for s in state.stats if s.lower() == wanted), None)
    if stat is None:
        item = next((i for i in state.equipment if i.name.lower() == wanted), None)
        if item is None:
            names = list(state.stats) + [i.name for i in state.equipment if i.supply]
            find_name(names, request.skill, "stat or supply item")
            raise AssertionError("unreachable")  # pragma: no cover
        extra = [n for n in DECISION_ONLY + CONTEST_ONLY + ANY_ROLL + ("opponent",)
                 if _given(params, n)]
        if extra:
            raise RuleError(f"{item.name!r} is an item: a supply roll takes no "
                            f"{', '.join('--' + e for e in extra)}")
        return supply_roll(state, item, dice, options)
    if _given(params, "opponent") or request.opponent is not None:
        wrong = [n for n in DECISION_ONLY if _given(params, n)]
        if wrong:
            raise RuleError(f"a contested roll has no {', '.join('--' + w for w in wrong)}: "
                            "the opponent's result is the number to beat")
        if _given(params, "opponent") and request.opponent is not None:
            raise RuleError("--opponent names an opponent off the ledger: leave it out with "
                            "--vs-character (their name comes from the ledger)")
        return _contest(state, stat, params, dice, options, request.opponent)
    wrong = [n for n in CONTEST_ONLY if _given(params, n)]
    if wrong:
        raise RuleError(f"{', '.join('--' + w for w in wrong)} need --opponent NAME")
    return _decision(state, stat, params, dice, options)


def _decision(
    state: Character, stat: str, params: dict[str, Any], dice: DiceSource, options: Options
) -> DecisionRolled:
    """A decision roll: 2d6 + STAT + MODIFIERS vs. TARGET NUMBER ("Decision Rolls")."""
    if not _given(params, "target"):
        raise RuleError("a decision roll needs --target: a number (e.g. 8) or simple, "
                        "challenging, strenuous, impossible")
    base = parse_target(params["target"])
    adjustments = _ints(params, "adjust")
    target = base + sum(adjustments)
    impossible = is_impossible_task(base, options.impossible_target)
    if impossible and options.refuse_impossible and not params.get("impossible"):
        raise RuleError(
            f"a task starting at {base} is an \"Impossible\" task: it cannot normally be "
            "attempted; if the GM allows the attempt, add --impossible"
        )
    conditions = applicable_conditions(state, stat)
    advantage = bool(params.get("advantage")) or any(c.kind == "advantage" for c in conditions)
    disadvantage = bool(params.get("disadvantage")) or any(
        c.kind == "disadvantage" for c in conditions)
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
        supply = SupplyResult(item=supply_item.name, die=supply_die, face=face,
                              after=supply_step(supply_die, face, options.supply_step_max))
    dice.finish()
    modifier_total = sum(line.counted for line in lines)
    total = sum(faces) + modifier_total
    return DecisionRolled(
        character=state.character, stat=stat, stat_value=state.stats[stat], dice=faces,
        decision_dice=count, advantage=advantage, disadvantage=disadvantage, modifiers=lines,
        modifier_total=modifier_total, base_target=base, target_adjustments=adjustments,
        target=target, difficulty=difficulty_label(base), impossible_task=impossible,
        total=total, margin=total - target, outcome=outcome_of(total, target),
        conditions=[c.name for c in conditions], supply=supply, **dice.fields(),
    )


def _opposing_side(
    opponent: Opponent, stat: str, params: dict[str, Any]
) -> tuple[dict[str, Any], list[Condition], list[ModifierLine]]:
    """The side of an opponent on the ledger (``--vs-character``, ruling DD6): the stat
    they oppose with (``--vs-skill``, else the roller's stat), its value, the conditions of
    theirs that apply to it and their modifier breakdown: "each side rolls and adds their
    modifiers" ("Contested Rolls"); a bonus stated negative counts 0 and a penalty stated
    positive counts 0 ("Key Terms", hint "Modifiers").

    :raises RuleError: the opponent has no such stat (the sentence lists theirs).
    """
    theirs = opponent.state
    assert isinstance(theirs, Character)
    name = find_name(list(theirs.stats), opponent.skill or stat, f"stat of {theirs.name}")
    conditions = applicable_conditions(theirs, name)
    lines = modifier_lines(name, theirs.stats[name],
                           {"modifier": tuple(_ints(params, "opponent_modifier"))}, conditions)
    side = {"vs_character": opponent.character, "vs_stat": name,
            "vs_stat_value": theirs.stats[name], "vs_modifiers": lines,
            "vs_conditions": [c.name for c in conditions]}
    return side, conditions, lines


def _contest(
    state: Character, stat: str, params: dict[str, Any], dice: DiceSource, options: Options,
    opponent_on_ledger: Opponent | None = None,
) -> ContestRolled:
    """A contested roll with tie rerolls ("Contested Rolls", "Resolving a Tie", X7); against
    a character on the ledger their stat, conditions and modifiers come from their sheet
    (:func:`_opposing_side`)."""
    conditions = applicable_conditions(state, stat)
    advantage = bool(params.get("advantage")) or any(c.kind == "advantage" for c in conditions)
    disadvantage = bool(params.get("disadvantage")) or any(
        c.kind == "disadvantage" for c in conditions)
    count = decision_dice_count(advantage, disadvantage)
    lines = modifier_lines(stat, state.stats[stat], params, conditions)
    modifier_total = sum(line.counted for line in lines)
    opp_adv = bool(params.get("opponent_advantage"))
    opp_dis = bool(params.get("opponent_disadvantage"))
    opp_mods = _ints(params, "opponent_modifier")
    opp_total_mod = sum(opp_mods)
    side: dict[str, Any] = {}
    if opponent_on_ledger is not None:
        side, opp_conditions, opp_lines = _opposing_side(opponent_on_ledger, stat, params)
        opp_adv = opp_adv or any(c.kind == "advantage" for c in opp_conditions)
        opp_dis = opp_dis or any(c.kind == "disadvantage" for c in opp_conditions)
        opp_total_mod = sum(line.counted for line in opp_lines)
    opp_count = decision_dice_count(opp_adv, opp_dis)
    rounds: list[ContestRound] = []
    winner = None
    while winner is None:
        if len(rounds) >= options.max_contest_rounds:
            raise RuleError(f"the contest was still tied after {len(rounds)} rounds "
                            "(max_contest_rounds); roll it again")
        mine = dice.roll(count, SIDES)
        theirs = dice.roll(opp_count, SIDES)
        rnd = ContestRound(dice=mine, total=sum(mine) + modifier_total,
                           opponent_dice=theirs, opponent_total=sum(theirs) + opp_total_mod)
        rounds.append(rnd)
        winner = contest_winner(rnd.total, rnd.opponent_total)
    dice.finish()
    last = rounds[-1]
    if opponent_on_ledger is not None:
        opponent = opponent_on_ledger.name or opponent_on_ledger.character
    else:
        opponent = str(params["opponent"])
    return ContestRolled(
        character=state.character, stat=stat, stat_value=state.stats[stat],
        decision_dice=count, advantage=advantage, disadvantage=disadvantage, modifiers=lines,
        modifier_total=modifier_total, opponent=opponent, opponent_decision_dice=opp_count,
        opponent_advantage=opp_adv, opponent_disadvantage=opp_dis,
        opponent_modifiers=opp_mods, opponent_modifier_total=opp_total_mod, rounds=rounds,
        dice=last.dice, total=last.total, target=last.opponent_total,
        margin=last.total - last.opponent_total,
        winner=state.character if winner == "a" else opponent,
        outcome="success" if winner == "a" else "failure",
        conditions=[c.name for c in conditions], **side, **dice.fields(),
    )


def supply_roll(state: Character, item: Item, dice: DiceSource, options: Options) -> SupplyRolled:
    """A supply roll on its own ("Supply Rolls"): roll the listed die; ≤ 3 lowers it.

    :raises RuleError: the item has no supply die or is Empty.
    """
    die = supply_die_of(item)
    face = dice.d(supply_sides(die))
    dice.finish()
    after = supply_step(die, face, options.supply_step_max)
    return SupplyRolled(
        character=state.character, item=item.name, die=die, dice=[face], total=face,
        target=options.supply_step_max + 1, after=after,
        outcome="success" if after == die else "failure", **dice.fields(),
    )


def request_of(event: Roll) -> RollRequest | None:
    """The request :func:`resolve_roll` turned into ``event`` (``None``: not one of ours).

    Reads only inputs: the stat (or item), ``base_target`` (``--target``),
    ``target_adjustments`` (``--adjust``), ``impossible_task`` (``--impossible``), the
    supply item, ``advantage``/``disadvantage`` (given or from a condition: the flag gives
    the same dice either way), the ``--bonus``/``--penalty``/``--modifier`` lines of the
    breakdown (stated values, in order) and, for a contest, the opponent's name, modifiers
    and advantage. Conditions, the stat's value and every total come from the state and
    the draws again (002_735c6d6cd834a641.txt, "Decision Rolls", "Contested Rolls").
    """
    if isinstance(event, SupplyRolled):
        return RollRequest(event.character, "", event.item, {})
    if not isinstance(event, DecisionRolled | ContestRolled):
        return None
    params: dict[str, Any] = {"advantage": event.advantage, "disadvantage": event.disadvantage}
    for kind in ("bonus", "penalty", "modifier"):
        given = tuple(m.stated for m in event.modifiers[1:] if m.source == f"--{kind}")
        if given:
            params[kind] = given
    if isinstance(event, ContestRolled):
        params.update(
            opponent_modifier=tuple(event.opponent_modifiers),
            opponent_advantage=event.opponent_advantage,
            opponent_disadvantage=event.opponent_disadvantage,
        )
        if event.vs_character is not None:
            # their advantage may have come from their conditions: the flags give the same
            # dice either way (as for the roller's)
            return RollRequest(event.character, "", event.stat, params,
                               opponent=Opponent(event.vs_character, skill=event.vs_stat))
        params["opponent"] = event.opponent
    else:
        params.update(target=event.base_target, adjust=tuple(event.target_adjustments),
                      impossible=event.impossible_task)
        if event.supply is not None:
            params["supply"] = event.supply.item
    return RollRequest(event.character, "", event.stat, params)
