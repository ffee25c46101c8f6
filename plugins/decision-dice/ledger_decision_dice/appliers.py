"""How each decision-dice event changes a character (seed 002_735c6d6cd834a641.txt): one
pure :func:`ledger.applies` method per event type, refusing what does not fit the state."""

from __future__ import annotations

from msgspec.structs import replace

from ledger import RuleError, RuleSystem, applies, find_name, name_in

from .events import (
    ConditionAdded,
    ConditionRemoved,
    ContestRolled,
    DecisionRolled,
    HarmTaken,
    ItemAdded,
    ItemRemoved,
    LevelChanged,
    LevelledUp,
    Recovered,
    Resupplied,
    StatChanged,
    SupplyRolled,
    TrackerChanged,
)
from .rules import (
    current_values,
    derived_values,
    find_item,
    normalise_supply,
    supply_die_of,
    supply_step,
)
from .state import TRACKER_MAX, TRACKER_MIN, Character, Condition, Item, Options


def _with_item(state: Character, item: Item) -> Character:
    """``state`` with ``item`` in place of the item of the same name."""
    return replace(state, equipment=[item if i.name == item.name else i for i in state.equipment])


def _used(state: Character, names: list[str]) -> Character:
    """Count one roll against every condition named (those with rolls left)."""
    kept: list[Condition] = []
    for cond in state.conditions:
        if cond.name in names and cond.rolls_left > 0:
            if cond.rolls_left == 1:
                continue
            cond = replace(cond, rolls_left=cond.rolls_left - 1)
        kept.append(cond)
    return replace(state, conditions=kept)


class Appliers(RuleSystem[Character, Options]):
    """The appliers of decision-dice events (docs/rulings/decision-dice.md)."""

    def _supply_applied(
        self, state: Character, item_name: str, die: str, face: int, after: str
    ) -> Character:
        """The state after a supply roll, which must fit it (ruling DD5): the item's die now
        is the recorded ``die``, ``face`` one it shows, ``after`` the step the rules give
        ("Supply Rolls": "If the result is 3 or lower, the die size is lowered a size"). A
        roll recorded against a die the item no longer has (an earlier supply roll
        retracted, two people rolling on one kit) is refused, so a correction cannot leave
        the log showing a step the sheet lost."""
        item = find_item(state, item_name)
        now = supply_die_of(item)
        if normalise_supply(die) != now:
            raise RuleError(
                f"the supply roll used a {die} but {item.name!r} has a {now} now: roll again"
            )
        expected = supply_step(now, face, self.options.supply_step_max)
        if normalise_supply(after) != expected:
            raise RuleError(f"a {now} showing {face} leaves {expected}, not {after}")
        return _with_item(state, replace(item, supply=expected))

    def _stat_in_range(self, stat: str, value: int) -> None:
        """Refuse a stat outside the campaign's range (ruling X1)."""
        lo, hi = self.options.stat_min, self.options.stat_max
        if not lo <= value <= hi:
            raise RuleError(
                f"stat {stat!r} cannot be {value}: stats range from {lo} to {hi} in this campaign"
            )

    @applies(DecisionRolled)
    def on_decision(self, state: Character, event: DecisionRolled) -> Character:
        """A decision roll uses up one roll of its conditions; its supply roll steps the item
        ("Supply Rolls": handled after the action is complete)."""
        find_name(event.stat, state.stats, "stat")
        state = _used(state, event.conditions)
        if event.supply is not None:
            s = event.supply
            state = self._supply_applied(state, s.item, s.die, s.face, s.after)
        return state

    @applies(ContestRolled)
    def on_contest(self, state: Character, event: ContestRolled) -> Character:
        """A contested roll uses up one roll of its conditions."""
        find_name(event.stat, state.stats, "stat")
        return _used(state, event.conditions)

    @applies(SupplyRolled)
    def on_supply(self, state: Character, event: SupplyRolled) -> Character:
        """A supply roll: ≤ 3 lowers the die a size; refused on an Empty item (E12–E15)."""
        if len(event.dice) != 1:
            raise RuleError("a supply roll shows exactly one die")
        return self._supply_applied(state, event.item, event.die, event.dice[0], event.after)

    @applies(Resupplied)
    def on_resupplied(self, state: Character, event: Resupplied) -> Character:
        """Set an item's supply die (the item's own resupply procedure, "Supply Rolls")."""
        item = find_item(state, event.item)
        return _with_item(state, replace(item, supply=normalise_supply(event.die)))

    @applies(ItemAdded)
    def on_item_added(self, state: Character, event: ItemAdded) -> Character:
        """Add equipment; refused when an item of that name is already carried."""
        if name_in(event.item.strip(), [i.name for i in state.equipment]):
            raise RuleError(
                f"{state.name} already carries {event.item!r}: give the new item another name"
            )
        if not event.item.strip():
            raise RuleError("the item needs a name")
        supply = normalise_supply(event.die) if event.die else None
        item = Item(name=event.item.strip(), supply=supply, note=event.note)
        return replace(state, equipment=[*state.equipment, item])

    @applies(ItemRemoved)
    def on_item_removed(self, state: Character, event: ItemRemoved) -> Character:
        """Remove equipment by name."""
        item = find_item(state, event.item)
        return replace(state, equipment=[i for i in state.equipment if i.name != item.name])

    @applies(TrackerChanged)
    def on_tracker(self, state: Character, event: TrackerChanged) -> Character:
        """Change a percentage tracker within 0..100 ("D100 or Percentage": "a D100 or a
        percentage tracker"; X12); ``clamp`` cuts the result to 0..100 instead."""
        if (event.delta is None) == (event.value is None):
            raise RuleError(
                "give the tracker either a delta (a change) or a value (a new "
                "percentage), not both or neither"
            )
        names = list(state.trackers)
        if event.value is not None:
            name = name_in(event.tracker, names) or event.tracker.strip()
            new = event.value
        else:
            name = find_name(event.tracker, names, "tracker")
            new = state.trackers[name] + (event.delta or 0)
        if not TRACKER_MIN <= new <= TRACKER_MAX and not event.clamp:
            was = state.trackers.get(name)
            how = f"{was} {event.delta:+d} = {new}" if event.delta is not None else str(new)
            span = (
                f" (delta {TRACKER_MIN - was:+d} to {TRACKER_MAX - was:+d})"
                if was is not None
                else ""
            )
            raise RuleError(
                f"{state.name}'s {name} would be {how}: a percentage tracker stays within "
                f"{TRACKER_MIN} to {TRACKER_MAX}; record the change that reaches it{span}"
            )
        clamped = max(TRACKER_MIN, min(TRACKER_MAX, new))
        return replace(state, trackers={**state.trackers, name: clamped})

    def _track(self, state: Character, track: str) -> str:
        names = list(self.options.derived)
        if not names:
            raise RuleError(
                "this campaign has no derived values such as Stress or Vitality to take harm "
                'from: set the campaign option derived (e.g. Vitality = ["Might", "Grit"])'
            )
        return find_name(track, names, "derived value")

    @applies(HarmTaken)
    def on_harm(self, state: Character, event: HarmTaken) -> Character:
        """Spend ``amount`` of a derived value (Stress, Vitality; "The Rounding Rule"; DD10).
        What the value cannot take is not refused (harm happens) but it stops at 0."""
        name = self._track(state, event.track)
        if event.amount < 1:
            raise RuleError(f"harm is 1 or more, not {event.amount}; recovery is `recovered`")
        value = derived_values(state, self.options)[name]
        spent = min(value, state.spent.get(name, 0) + event.amount)
        return replace(state, spent={**state.spent, name: spent})

    @applies(Recovered)
    def on_recovered(self, state: Character, event: Recovered) -> Character:
        """Recover ``amount`` (0: all) of a derived value's spent part, never more (DD10)."""
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
        if name_in(event.condition, [c.name for c in state.conditions]):
            raise RuleError(
                f"{state.name} already has the condition {event.condition!r}: "
                "remove it first or use another name"
            )
        if event.rolls < 0:
            raise RuleError(f"rolls must be 0 (until removed) or more, not {event.rolls}")
        stat = find_name(event.stat, state.stats, "stat") if event.stat else ""
        cond = Condition(
            name=event.condition,
            kind=event.kind,
            value=event.value,
            stat=stat,
            rolls_left=event.rolls,
        )
        return replace(state, conditions=[*state.conditions, cond])

    @applies(ConditionRemoved)
    def on_condition_removed(self, state: Character, event: ConditionRemoved) -> Character:
        """Remove a condition by name."""
        name = find_name(event.condition, [c.name for c in state.conditions], "condition")
        return replace(state, conditions=[c for c in state.conditions if c.name != name])

    @applies(StatChanged)
    def on_stat(self, state: Character, event: StatChanged) -> Character:
        """Set a stat on the sheet to a value in the campaign's range (X1)."""
        stat = find_name(event.stat, state.stats, "stat")
        self._stat_in_range(stat, event.value)
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
        choices during character creation/level up"; ruling DD11), each on the sheet, named
        once, changed and in range. Stress and Vitality follow the stats (X4); what was spent
        of them stays spent."""
        if state.level is None:
            raise RuleError(
                f"{state.name}'s sheet has no level: set it with `record level-changed` first"
            )
        if event.level != state.level + 1:
            raise RuleError(
                f"{state.name} is level {state.level}: a level up reaches level "
                f"{state.level + 1}, not {event.level}"
            )
        stats = dict(state.stats)
        for entry in event.stats:
            name, _, text = entry.partition("=")
            try:
                value = int(text)
            except ValueError:
                raise RuleError(
                    f"write each stat as NAME=VALUE (e.g. Grit=2), not {entry!r}"
                ) from None
            stat = find_name(name.strip(), state.stats, "stat")
            if stats[stat] != state.stats[stat]:
                raise RuleError(f"{stat} is named twice in one level up")
            self._stat_in_range(stat, value)
            if value == state.stats[stat]:
                raise RuleError(f"{stat} is already {value}: name only the stats that change")
            stats[stat] = value
        return replace(state, level=event.level, stats=stats)
