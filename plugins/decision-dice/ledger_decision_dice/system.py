"""The decision-dice rule system (seed 002_735c6d6cd834a641.txt, "Core Mechanics").

2d6 + STAT + MODIFIERS vs. TARGET NUMBER; advantage 3d6, disadvantage 1d6; contested rolls
with tie rerolls; supply dice d12 → d10 → d8 → d6 → d4 → Empty; percentage trackers. The
parts the page leaves undefined (stats, levels, Luck, Stress, Vitality) are campaign options
(see :class:`ledger_decision_dice.sheet.Options` and docs/rulings/decision-dice.md).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec.structs import replace

from ledger import (
    DiceSource,
    Event,
    Recorded,
    ReplayDice,
    Roll,
    RollParam,
    RollRequest,
    RuleError,
    RuleSystem,
    Sheet,
    applies,
)

from . import odds as exact
from . import recap
from .events import (
    EVENT_TYPES,
    UPCASTERS,
    ConditionAdded,
    ConditionRemoved,
    ContestRolled,
    DecisionRolled,
    HarmTaken,
    ItemAdded,
    ItemRemoved,
    LevelChanged,
    LevelledUp,
    ModifierLine,
    Recovered,
    Resupplied,
    StatChanged,
    SupplyRolled,
    TrackerChanged,
)
from .mechanics import (
    DIFFICULTY_SCALE,
    EMPTY,
    counted_modifier,
    decision_dice_count,
    normalise_supply,
    parse_target,
    supply_sides,
    supply_step,
)
from .rolls import find_item, request_of, resolve_roll, supply_roll
from .sheet import (
    TRACKER_MAX,
    TRACKER_MIN,
    Character,
    Condition,
    Item,
    Options,
    current_values,
    derived_values,
    find_name,
    state_from_sheet,
    validate_sheet,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

ADVANTAGE_HELP = "Advantage: roll 3d6 instead of 2d6 (does not stack; cancels disadvantage)."
DISADVANTAGE_HELP = "Disadvantage: roll 1d6 instead of 2d6 (cancels advantage)."


class DecisionDice(RuleSystem):
    """The "Decision Dice" 2d6 system (seed 002_735c6d6cd834a641.txt).

    Roll ``campaign roll CHARACTER STAT --target N|rung [--advantage] [--disadvantage]
    [--bonus N] [--penalty N] [--modifier N] [--adjust N] [--impossible] [--supply ITEM]``,
    or ``--opponent NAME [--opponent-modifier N] ...`` for a contested roll, or
    ``campaign roll CHARACTER ITEM`` for a supply roll on its own.
    """

    id = "decision-dice"
    name = "Decision Dice (2d6 + STAT)"
    source = "002_735c6d6cd834a641.txt"
    book = '"Core Mechanics" of an untitled 2d6 rulebook (Decision Dice)'
    example_roll = 'roll jen might --target 8 --bonus -2 --penalty 1 --dice 4,4  # bonus -2 and penalty +1 count 0: 8 vs 8 succeeds'
    contests = True  # --vs-character: the opponent's stat, conditions and modifiers (DD6)
    has_harm = True  # `campaign damage` spends the harm_track derived value (DD10)
    event_types = EVENT_TYPES
    upcasters = UPCASTERS
    state_type = Character
    options_type = Options
    roll_params = (
        RollParam("target", "Target number: a number or simple (6), challenging (12), "
                  "strenuous (18), impossible (20)."),
        RollParam("advantage", ADVANTAGE_HELP, is_flag=True),
        RollParam("disadvantage", DISADVANTAGE_HELP, is_flag=True),
        RollParam("modifier", "A modifier of either sign (repeatable).", multiple=True, type=int,
                  min=-100, max=100),
        RollParam("bonus", "A bonus; a negative bonus counts 0 (repeatable).",
                  multiple=True, type=int, min=-100, max=100),
        RollParam("penalty", "A penalty (negative); a positive penalty counts 0 (repeatable).",
                  multiple=True, type=int, min=-100, max=100),
        RollParam("adjust", "An adjustment to the target number (repeatable); an adjusted "
                  "target is never an \"Impossible\" task.", multiple=True, type=int,
                  min=-100, max=100),
        RollParam("impossible", "The GM allows an attempt at an \"Impossible\" task "
                  "(base target 20+).", is_flag=True),
        RollParam("supply", "An item whose supply die is rolled after the action."),
        RollParam("opponent", "Contested roll against this opponent (ties are rerolled)."),
        RollParam("opponent_modifier", "The opponent's STAT and modifiers (repeatable).",
                  multiple=True, type=int, min=-100, max=100),
        RollParam("opponent_advantage", "The opponent has advantage (3d6).", is_flag=True),
        RollParam("opponent_disadvantage", "The opponent has disadvantage (1d6).",
                  is_flag=True),
    )
    sections = {  # the seed section each event type implements (shown by audits)
        "decision-dice.decision_rolled": (
            "Decision Rolls: Target Numbers, Success and Failure; Advantage and Disadvantage"
        ),
        "decision-dice.contest_rolled": "General Rules of Play: Contested Rolls; Resolving a Tie",
        "decision-dice.supply_rolled": "Secondary Mechanics: Supply Rolls",
        "decision-dice.resupplied": "Secondary Mechanics: Supply Rolls",
        "decision-dice.item_added": "Secondary Mechanics: Supply Rolls",
        "decision-dice.item_removed": "Secondary Mechanics: Supply Rolls",
        "decision-dice.tracker_changed": "Secondary Mechanics: D100 or Percentage",
        "decision-dice.condition_added": "Advantage and Disadvantage",
        "decision-dice.condition_removed": "Advantage and Disadvantage",
        "decision-dice.stat_changed": "Key Terms",
        "decision-dice.level_changed": "Key Terms",
        "decision-dice.harm_taken": "The Rounding Rule (Stress and Vitality)",
        "decision-dice.recovered": "The Rounding Rule (Stress and Vitality)",
        "decision-dice.levelled_up": "Decision Rolls: Target Numbers (character creation/level up)",
    }
    odds_params = (
        RollParam("stat", "The STAT value (leave out for every STAT 0-10).", type=int,
                  min=-100, max=100),
        RollParam("target", "Target number: a number or simple, challenging, strenuous, "
                  "impossible (omitted: every target 2-22)."),
        RollParam("advantage", ADVANTAGE_HELP, is_flag=True),
        RollParam("disadvantage", DISADVANTAGE_HELP, is_flag=True),
        RollParam("modifier", "A modifier of either sign (repeatable).", multiple=True, type=int,
                  min=-100, max=100),
        RollParam("bonus", "A bonus; a negative bonus counts 0.", type=int,
                  min=-100, max=100),
        RollParam("penalty", "A penalty (negative); a positive penalty counts 0.", type=int,
                  min=-100, max=100),
        RollParam("supply", "Odds of a supply die instead: d12, d10, d8, d6 or d4."),
        RollParam("opponent", "Contested-roll odds against an opponent (any name)."),
        RollParam("opponent_modifier", "The opponent's STAT and modifiers (repeatable).",
                  multiple=True, type=int, min=-100, max=100),
        RollParam("opponent_advantage", "The opponent has advantage (3d6).", is_flag=True),
        RollParam("opponent_disadvantage", "The opponent has disadvantage (1d6).",
                  is_flag=True),
    )

    options: Options = Options()

    # --- characters ----------------------------------------------------------------------

    def create_sheet(self, sheet: dict[str, Any]) -> dict[str, Any]:
        """Validate a sheet (see :func:`ledger_decision_dice.sheet.validate_sheet`).

        :raises RuleError: naming every problem at once.
        """
        return validate_sheet(sheet, self.options)

    def initial_state(self, character: str, name: str, sheet: dict[str, Any]) -> Character:
        """The :class:`Character` of a validated sheet."""
        return state_from_sheet(character, name, sheet)

    def skills_of(self, state: Character) -> Iterable[str]:
        """Stat names, then items with a supply die (both can be rolled)."""
        return [*state.stats, *(i.name for i in state.equipment if i.supply)]

    def sheet_view(self, state: Character, *, as_gm: bool) -> dict[str, Any]:
        """The sheet as JSON: state fields plus ``derived`` values (Stress, Vitality, ... as
        configured, "The Rounding Rule") and each condition's counted value. Nothing here is
        GM-only."""
        view: dict[str, Any] = msgspec.to_builtins(state)
        view["derived"] = derived_values(state, self.options)
        view["current"] = current_values(state, self.options)
        for cond in view["conditions"]:
            if cond["kind"] in ("bonus", "penalty", "modifier"):
                cond["counted"] = counted_modifier(cond["kind"], cond["value"])
        return view

    def sheet_layout(self, state: Character, *, as_gm: bool) -> Sheet:
        """The sheet in the book's words (:func:`.layout.sheet_layout`); no GM-only facts."""
        from .layout import sheet_layout

        return sheet_layout(state, options=self.options, system_name=self.name, as_gm=as_gm)

    # --- play ----------------------------------------------------------------------------

    def resolve(self, state: Character, request: RollRequest, dice: DiceSource) -> Roll:
        """Decision, contested or supply roll (see :func:`ledger_decision_dice.rolls.resolve_roll`).

        :raises RuleError: unknown stat/item, missing target, "Impossible" not allowed, Empty
            item, parameters that do not belong together.
        :raises ledger.DiceError: faces a die cannot show, too few or too many faces.
        """
        return resolve_roll(state, request, dice, self.options)

    def request_of(self, event: Roll) -> RollRequest:
        """The ``campaign roll`` request :meth:`resolve` turned into a recorded roll.

        Reads only inputs (see :func:`ledger_decision_dice.rolls.request_of`), so an amended
        input (``base_target``, ``target_adjustments``, a ``--bonus`` line, ...) is
        resolved again with the recorded dice.

        :raises RuleError: not a decision-dice roll event.
        """
        request = request_of(event)
        return request if request is not None else super().request_of(event)

    def rederive(
        self, state: Character, event: Roll, *, name: str, opponent: Any = None
    ) -> Roll:
        """The roll the rules give for ``event``'s inputs and draws.

        A supply roll is re-derived from the item it names (not through :meth:`resolve`,
        which rolls a stat of the same name first, ruling DD3), so a supply roll recorded by
        hand is checked too: the die is the item's die in ``state``, the face is the recorded
        draw, and ``after``, ``total``, ``target`` and ``outcome`` follow from them
        (002_735c6d6cd834a641.txt, "Supply Rolls").
        """
        if isinstance(event, SupplyRolled):
            dice = ReplayDice(event)
            derived = supply_roll(state, find_item(state, event.item), dice, self.options)
            dice.finish()
            return derived
        return super().rederive(state, event, name=name, opponent=opponent)

    # --- appliers ------------------------------------------------------------------------

    def _supply_applied(self, state: Character, item_name: str, die: str, face: int,
                        after: str) -> Character:
        """The state after a supply roll: steps the item's die down.

        The roll must fit the state it is applied to (ruling DD5): the item has a supply die
        and is not Empty, the recorded ``die`` is the item's die now, ``face`` is one that
        die shows, and ``after`` is the step the rules give (002_735c6d6cd834a641.txt, "Supply
        Rolls": "If the result is 3 or lower, the die size is lowered a size"). A roll recorded against a die the item no
        longer has (an earlier supply roll retracted, two people rolling on one kit) is
        refused, so a correction cannot leave the log showing a step the sheet lost.

        :raises RuleError: naming the item, the recorded die and the item's die now.
        """
        item = self._item(state, item_name)
        if item.supply is None:
            raise RuleError(f"{item.name!r} has no supply die: it makes no supply rolls")
        if item.supply == EMPTY:
            raise RuleError(f"{item.name!r} is Empty: it cannot be used where a supply roll "
                            "is required (resupply it first)")
        if normalise_supply(die) != item.supply:
            raise RuleError(f"the supply roll used a {die} but {item.name!r} has a "
                            f"{item.supply} now: roll again")
        if not 1 <= face <= supply_sides(item.supply):
            raise RuleError(f"a {item.supply} shows 1 to {supply_sides(item.supply)}, not {face}")
        expected = supply_step(item.supply, face, self.options.supply_step_max)
        if normalise_supply(after) != expected:
            raise RuleError(f"a {item.supply} showing {face} leaves {expected}, not {after}")
        return self._with_item(state, replace(item, supply=expected))

    def _item(self, state: Character, wanted: str) -> Item:
        name = find_name([i.name for i in state.equipment], wanted, "equipment")
        return next(i for i in state.equipment if i.name == name)

    def _with_item(self, state: Character, item: Item) -> Character:
        return replace(state, equipment=[item if i.name == item.name else i
                                         for i in state.equipment])

    def _used(self, state: Character, names: list[str]) -> Character:
        """Count one roll against every condition named (those with rolls left)."""
        kept: list[Condition] = []
        for cond in state.conditions:
            if cond.name in names and cond.rolls_left > 0:
                if cond.rolls_left == 1:
                    continue
                cond = replace(cond, rolls_left=cond.rolls_left - 1)
            kept.append(cond)
        return replace(state, conditions=kept)

    @applies(DecisionRolled)
    def on_decision(self, state: Character, event: DecisionRolled) -> Character:
        """A decision roll uses up one roll of its conditions; its supply roll steps the item
        ("Supply Rolls": handled after the action is complete)."""
        find_name(list(state.stats), event.stat, "stat")
        state = self._used(state, event.conditions)
        if event.supply is not None:
            s = event.supply
            state = self._supply_applied(state, s.item, s.die, s.face, s.after)
        return state

    @applies(ContestRolled)
    def on_contest(self, state: Character, event: ContestRolled) -> Character:
        """A contested roll uses up one roll of its conditions."""
        find_name(list(state.stats), event.stat, "stat")
        return self._used(state, event.conditions)

    @applies(SupplyRolled)
    def on_supply(self, state: Character, event: SupplyRolled) -> Character:
        """A supply roll: ≤ 3 lowers the die a size; refused on an Empty item (E12–E15)."""
        if len(event.dice) != 1:
            raise RuleError("a supply roll shows exactly one die")
        return self._supply_applied(state, event.item, event.die, event.dice[0], event.after)

    @applies(Resupplied)
    def on_resupplied(self, state: Character, event: Resupplied) -> Character:
        """Set an item's supply die (the item's own resupply procedure, "Supply Rolls")."""
        item = self._item(state, event.item)
        return self._with_item(state, replace(item, supply=normalise_supply(event.die)))

    @applies(ItemAdded)
    def on_item_added(self, state: Character, event: ItemAdded) -> Character:
        """Add equipment; refused when an item of that name is already carried."""
        if any(i.name.lower() == event.item.strip().lower() for i in state.equipment):
            raise RuleError(f"{state.name} already carries {event.item!r}: give the new item "
                            "another name")
        if not event.item.strip():
            raise RuleError("the item needs a name")
        supply = normalise_supply(event.die) if event.die else None
        item = Item(name=event.item.strip(), supply=supply, note=event.note)
        return replace(state, equipment=[*state.equipment, item])

    @applies(ItemRemoved)
    def on_item_removed(self, state: Character, event: ItemRemoved) -> Character:
        """Remove equipment by name."""
        item = self._item(state, event.item)
        return replace(state, equipment=[i for i in state.equipment if i.name != item.name])

    @applies(TrackerChanged)
    def on_tracker(self, state: Character, event: TrackerChanged) -> Character:
        """Change a percentage tracker within 0..100 ("D100 or Percentage": "a D100 or a
        percentage tracker"; X12).

        :raises RuleError: both or neither of ``delta`` and ``value``; an unknown tracker for
            a ``delta``; a result outside 0..100 (unless ``clamp``: cut to 0..100, said in the
            event; payloads written before #16 are upcast so).
        """
        if (event.delta is None) == (event.value is None):
            raise RuleError("give the tracker either --delta (a change) or --value (a new "
                            "percentage), not both or neither")
        names = list(state.trackers)
        if event.value is not None:
            match = next((n for n in names if n.lower() == event.tracker.lower()), None)
            name = match or event.tracker.strip()
            new = event.value
        else:
            name = find_name(names, event.tracker, "tracker")
            new = state.trackers[name] + (event.delta or 0)
        if not TRACKER_MIN <= new <= TRACKER_MAX and not event.clamp:
            was = state.trackers.get(name)
            how = f"{was} {event.delta:+d} = {new}" if event.delta is not None else str(new)
            raise RuleError(
                f"{state.name}'s {name} would be {how}: a percentage tracker stays within "
                f"{TRACKER_MIN} to {TRACKER_MAX}; record the change that reaches it"
                + (f" (--delta {TRACKER_MIN - was:+d} to {TRACKER_MAX - was:+d})"
                   if was is not None else "")
            )
        clamped = max(TRACKER_MIN, min(TRACKER_MAX, new))
        return replace(state, trackers={**state.trackers, name: clamped})

    def _track(self, state: Character, track: str) -> str:
        names = list(self.options.derived)
        if not names:
            raise RuleError(
                "this campaign has no derived values such as Stress or Vitality to take harm "
                "from: set the campaign option derived (e.g. Vitality = [\"Might\", \"Grit\"])"
            )
        return find_name(names, track, "derived value")

    def harm_event(self, state: Character, character: str, amount: int) -> Event:
        """``campaign damage CHARACTER AMOUNT``: ``amount`` taken from the ``harm_track``
        derived value (Vitality by default; "The Rounding Rule" names Stress and Vitality;
        ruling DD10). The applier refuses it when the campaign has no such derived value."""
        return HarmTaken(character=character, track=self.options.harm_track, amount=amount)

    @applies(HarmTaken)
    def on_harm(self, state: Character, event: HarmTaken) -> Character:
        """Spend ``amount`` of a derived value (Stress, Vitality; "The Rounding Rule"; DD10).

        What the value cannot take is not refused (harm happens) but it stops at 0: the
        spent total is at most the value.

        :raises RuleError: no derived values configured, an unknown one, an amount below 1.
        """
        name = self._track(state, event.track)
        if event.amount < 1:
            raise RuleError(f"harm is 1 or more, not {event.amount}; recovery is `recovered`")
        value = derived_values(state, self.options)[name]
        spent = min(value, state.spent.get(name, 0) + event.amount)
        return replace(state, spent={**state.spent, name: spent})

    @applies(Recovered)
    def on_recovered(self, state: Character, event: Recovered) -> Character:
        """Recover ``amount`` (0: all) of a derived value's spent part (DD10).

        :raises RuleError: an unknown value, a negative amount, more than was spent.
        """
        name = self._track(state, event.track)
        spent = state.spent.get(name, 0)
        if event.amount < 0 or event.amount > spent:
            raise RuleError(
                f"{state.name} can recover 0 (all) to {spent} {name}, not {event.amount}: "
                f"{name} is {current_values(state, self.options)[name]} of "
                f"{derived_values(state, self.options)[name]}"
            )
        left = 0 if event.amount == 0 else spent - event.amount
        rest = {k: v for k, v in state.spent.items() if k != name}
        return replace(state, spent={**rest, name: left} if left else rest)

    @applies(ConditionAdded)
    def on_condition_added(self, state: Character, event: ConditionAdded) -> Character:
        """Add a lasting modifier, advantage or disadvantage ("Key Terms"; "Advantage and
        Disadvantage"). Refused for a duplicate name, an unknown stat or negative rolls."""
        if any(c.name.lower() == event.condition.lower() for c in state.conditions):
            raise RuleError(f"{state.name} already has the condition {event.condition!r}: "
                            "remove it first or use another name")
        if event.rolls < 0:
            raise RuleError(f"rolls must be 0 (until removed) or more, not {event.rolls}")
        stat = find_name(list(state.stats), event.stat, "stat") if event.stat else ""
        cond = Condition(name=event.condition, kind=event.kind, value=event.value, stat=stat,
                         rolls_left=event.rolls)
        return replace(state, conditions=[*state.conditions, cond])

    @applies(ConditionRemoved)
    def on_condition_removed(self, state: Character, event: ConditionRemoved) -> Character:
        """Remove a condition by name."""
        name = find_name([c.name for c in state.conditions], event.condition, "condition")
        return replace(state, conditions=[c for c in state.conditions if c.name != name])

    @applies(StatChanged)
    def on_stat(self, state: Character, event: StatChanged) -> Character:
        """Set a stat on the sheet to a value in the campaign's range (X1)."""
        stat = find_name(list(state.stats), event.stat, "stat")
        lo, hi = self.options.stat_min, self.options.stat_max
        if not lo <= event.value <= hi:
            raise RuleError(f"stat {stat!r} cannot be {event.value}: stats range from {lo} "
                            f"to {hi} in this campaign")
        return replace(state, stats={**state.stats, stat: event.value})

    @applies(LevelChanged)
    def on_level(self, state: Character, event: LevelChanged) -> Character:
        """Set the informational level (X2)."""
        if event.level < self.options.level_min:
            raise RuleError(f"level must be {self.options.level_min} or more, not {event.level}")
        return replace(state, level=event.level)

    @applies(LevelledUp)
    def on_levelled_up(self, state: Character, event: LevelledUp) -> Character:
        """A level up: level + 1 and the stats chosen with it ("Target Numbers": "rewards
        choices during character creation/level up"; ruling DD11). Stress and Vitality follow
        the stats (X4); what was spent of them stays spent.

        :raises RuleError: a sheet without a level, a level other than the next, a stat
            not on the sheet, named twice, unchanged, or outside the stat range, or an
            entry not written ``NAME=VALUE``.
        """
        if state.level is None:
            raise RuleError(f"{state.name}'s sheet has no level: set it with "
                            "`record level-changed` first")
        if event.level != state.level + 1:
            raise RuleError(f"{state.name} is level {state.level}: a level up reaches level "
                            f"{state.level + 1}, not {event.level}")
        lo, hi = self.options.stat_min, self.options.stat_max
        stats = dict(state.stats)
        for entry in event.stats:
            name, eq, text = entry.partition("=")
            try:
                value = int(text.strip()) if eq else None
            except ValueError:
                value = None
            if value is None:
                raise RuleError(f"write each stat as NAME=VALUE (e.g. --stats Grit=2), not "
                                f"{entry!r}")
            stat = find_name(list(state.stats), name.strip(), "stat")
            if stats[stat] != state.stats[stat]:
                raise RuleError(f"{stat} is named twice in one level up")
            if not lo <= value <= hi:
                raise RuleError(f"stat {stat!r} cannot be {value}: stats range from {lo} to "
                                f"{hi} in this campaign")
            if value == state.stats[stat]:
                raise RuleError(f"{stat} is already {value}: name only the stats that change")
            stats[stat] = value
        return replace(state, level=event.level, stats=stats)

    # --- reading -------------------------------------------------------------------------

    def describe(self, event: Event) -> str | None:
        """One line per decision-dice event for ``log`` and recaps."""
        if isinstance(event, DecisionRolled):
            line = (f"{event.character}: {event.stat} {event.stat_value:+d}"
                    f"{_modifier_text(event.modifiers[1:])}, dice {event.dice} "
                    f"({event.decision_dice}d6) = {event.total} vs {event.target}"
                    f"{_adjusted_text(event)}"
                    f"{' (Impossible task, allowed)' if event.impossible_task else ''}: "
                    f"{event.outcome} (margin {event.margin:+d})")
            if event.supply:
                line += (f"; supply {event.supply.item} {event.supply.die} shows "
                         f"{event.supply.face} → {event.supply.after}")
            return line
        if isinstance(event, ContestRolled):
            rounds = "; ".join(f"{r.dice}={r.total} vs {r.opponent_dice}={r.opponent_total}"
                               for r in event.rounds)
            return (f"{event.character} ({event.stat} {event.stat_value:+d}"
                    f"{_modifier_text(event.modifiers[1:])}) vs {event.opponent}: {rounds} → "
                    f"{event.winner} wins")
        if isinstance(event, SupplyRolled):
            return (f"{event.character}: supply roll {event.item} {event.die} shows "
                    f"{event.dice[0]} → {event.after}")
        if isinstance(event, Resupplied):
            return f"{event.character}: {event.item} resupplied to {event.die}"
        if isinstance(event, ItemAdded):
            die = f" ({event.die})" if event.die else ""
            return f"{event.character} gains {event.item}{die}"
        if isinstance(event, ItemRemoved):
            return f"{event.character} loses {event.item}"
        if isinstance(event, TrackerChanged):
            change = f"{event.delta:+d}" if event.delta is not None else f"set to {event.value}"
            return f"{event.character}: {event.tracker} {change}%"
        if isinstance(event, ConditionAdded):
            lasts = f" for {event.rolls} roll(s)" if event.rolls else ""
            value = f" {event.value:+d}" if event.kind not in ("advantage", "disadvantage") else ""
            return f"{event.character}: {event.condition} ({event.kind}{value}){lasts}"
        if isinstance(event, ConditionRemoved):
            return f"{event.character}: {event.condition} ends"
        if isinstance(event, StatChanged):
            return f"{event.character}: {event.stat} becomes {event.value}"
        if isinstance(event, LevelChanged):
            return f"{event.character} reaches level {event.level}"
        if isinstance(event, LevelledUp):
            chose = (": " + ", ".join(s.replace("=", " becomes ", 1) for s in event.stats)
                     if event.stats else "")
            return f"{event.character} levels up to level {event.level}{chose}"
        if isinstance(event, HarmTaken):
            why = f" ({event.reason})" if event.reason else ""
            return f"{event.character} takes {event.amount} {event.track}{why}"
        if isinstance(event, Recovered):
            how = "all" if event.amount == 0 else str(event.amount)
            why = f" ({event.reason})" if event.reason else ""
            return f"{event.character} recovers {how} {event.track}{why}"
        return None

    def describe_changes(self, before: Any, after: Any, *, as_gm: bool) -> list[str]:
        """What changed on a character in the rule text's words (see :mod:`.recap`): stats
        and level, supply dice stepping down ("Supply Rolls"), trackers in percent,
        conditions with what they do."""
        own = recap.change_sentences(before, after, as_gm=as_gm)
        if before is None:
            return own
        was, now = derived_values(before, self.options), derived_values(after, self.options)
        own += [  # Stress/Vitality follow the stats ("The Rounding Rule")
            f"{name} {was[name]} → {value} (½ " + " + ½ ".join(self.options.derived[name])
            + ", rounded down)"
            for name, value in now.items() if name in was and was[name] != value
        ]
        return own + self.generic_changes(before, after, skip=recap.HANDLED)

    def recap_lines(self, record: Recorded, *, as_gm: bool) -> list[str]:
        """Rule notes for a recap: ties re-rolled, supply dice stepping down."""
        return recap.recap_notes(record)

    def verdict(self, event: Roll) -> str | None:
        """Decisions and contests ✔/✘ (ties succeed); supply rolls are neither."""
        return recap.verdict(event)

    def odds_series(self, params: dict[str, Any]) -> dict[str, Any]:
        """The total and the target table per mode: the numbers of the odds chart
        (see :func:`.chart.odds_series`)."""
        from .chart import odds_series

        return odds_series(self, params)

    def draw_odds(self, data: dict[str, Any]) -> Figure:
        """The odds chart of :meth:`odds_series`'s data (see :func:`.chart.draw_odds`)."""
        from .chart import draw_odds

        return draw_odds(data)

    def odds(self, params: dict[str, Any]) -> dict[str, Any]:
        """Exact odds as ``"n/d"`` strings ("Target Numbers" hint; digest §2.6).

        Decision roll: ``dice`` count, ``modifier_total`` (STAT + counted modifiers),
        ``min``/``max``/``mean`` of the result, ``distribution`` of the result, ``targets``
        (P(success) for every target from 2 to 22, or on to the first unreachable target
        above 22), ``difficulty_scale`` (the named rungs and 22+)
        and, with ``target``, ``success``/``failure``.
        With ``supply``: the supply die's step-down odds and expected rolls. With
        ``opponent``: P(win) and P(lose) after tie rerolls and P(a round ties) (STAT 0
        unless given). Without ``stat`` (and no opponent): the family, P(success) by STAT
        (:meth:`_family`).

        :raises RuleError: a bad target, supply die, or parameters that do not belong together.
        """
        if params.get("supply"):
            return exact.supply_odds(str(params["supply"]), self.options.supply_step_max)
        count = decision_dice_count(bool(params.get("advantage")),
                                    bool(params.get("disadvantage")))
        mod = 0
        for kind in ("bonus", "penalty", "modifier"):
            given = params.get(kind)
            values = [given] if isinstance(given, int) else list(given or ())
            for value in values:
                mod += counted_modifier(kind, int(value))  # type: ignore[arg-type]
        if params.get("stat") is None and not params.get("opponent"):
            return self._family(count, mod, params.get("target"))
        mod += int(params.get("stat") or 0)
        dist = exact.sum_distribution(count)
        out: dict[str, Any] = {
            "dice": f"{count}d6", "decision_dice": count, "modifier_total": mod,
            "min": min(dist) + mod, "max": max(dist) + mod,
            "mean": exact.frac(exact.mean(count) + mod),
            "distribution": {str(t + mod): exact.frac(p) for t, p in dist.items()},
        }
        if params.get("opponent"):
            if params.get("target"):
                raise RuleError("contest odds have no --target: the opponent's result is the "
                                "number to beat; leave out --target or --opponent")
            opp_count = decision_dice_count(bool(params.get("opponent_advantage")),
                                            bool(params.get("opponent_disadvantage")))
            opp_mod = sum(int(v) for v in params.get("opponent_modifier") or ())
            win, lose, tie = exact.p_contest_win(count, mod, opp_count, opp_mod)
            out.update({"opponent_dice": f"{opp_count}d6", "opponent_modifier_total": opp_mod,
                        "win": exact.frac(win), "lose": exact.frac(lose),
                        "round_tie": exact.frac(tie)})
            return out
        # 2 to 22, and on past 22 ("22+") until the first target the roll cannot reach
        out["targets"] = exact.target_table(count, mod, high=max(22, max(dist) + mod + 1))
        out["difficulty_scale"] = {
            f"{label} ({tn})": exact.frac(exact.p_success(count, tn, mod))
            for tn, label in reversed(DIFFICULTY_SCALE) if label and label != "↓"
        }
        if params.get("target"):
            target = parse_target(str(params["target"]))
            p = exact.p_success(count, target, mod)
            out.update({"target": target, "need_on_dice": target - mod,
                        "success": exact.frac(p), "failure": exact.frac(1 - p)})
        return out

    def _family(self, count: int, modifiers: int, target: Any) -> dict[str, Any]:
        """``odds`` without ``stat``: P(success) for every STAT the campaign allows
        (``stat_min``..``stat_max``, default 0..10, ruling X1) at each named rung of the
        "Difficulty Scale" (Simple 6 to beyond Impossible 22), or at ``target`` alone
        (002_735c6d6cd834a641.txt, "Decision Rolls", "Target Numbers").

        :param count: the decision dice (3 with advantage, 1 with disadvantage, else 2).
        :param modifiers: the counted modifiers besides the STAT.
        :returns: ``{"dice", "decision_dice", "modifiers", "success_by_stat": {"STAT s":
            {rung or "target N": "n/d"}}}``; each row equals ``odds`` with that ``stat``
            (its ``difficulty_scale``, or its ``success`` at ``target``).
        :raises RuleError: a bad target.
        """
        if target:
            tn = parse_target(str(target))
            rungs = [(tn, f"target {tn}")]
        else:
            rungs = [(tn, f"{label} ({tn})") for tn, label in reversed(DIFFICULTY_SCALE)
                     if label and label != "↓"]  # fmt: skip
        lo, hi = self.options.stat_min, self.options.stat_max
        return {
            "dice": f"{count}d6", "decision_dice": count, "modifiers": modifiers,
            "success_by_stat": {
                f"STAT {stat}": {
                    name: exact.frac(exact.p_success(count, tn, stat + modifiers))
                    for tn, name in rungs
                }
                for stat in range(lo, hi + 1)
            },
        }  # fmt: skip


def _modifier_text(lines: Iterable[ModifierLine]) -> str:
    """``" +1 bonus -2 (counts 0)"``: each modifier after the stat, as stated and counted."""
    return "".join(
        f" {m.counted:+d}" if m.counted == m.stated else f" {m.kind} {m.stated:+d} (counts 0)"
        for m in lines
    )


def _adjusted_text(event: DecisionRolled) -> str:
    """``" (18 +2)"`` when the target was adjusted from its base, else ``""``."""
    if not event.target_adjustments:
        return ""
    return f" ({event.base_target} " + " ".join(f"{a:+d}" for a in event.target_adjustments) + ")"
