"""What decision-dice rolls and changes read like to a person (002_735c6d6cd834a641.txt;
the other events' lines are their ``line`` templates): what changed on a character in the
rule text's words ("Climbing Kit's supply die d8 → d6", "Rifle ammunition 60% → 45%"), a
recap's notes ("Resolving a Tie", "Supply Rolls") and each roll's verdict.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ledger import Recorded, Roll, RuleSystem, counted, describes, entry_changes

from .events import ContestRolled, DecisionRolled, ModifierLine, SupplyRolled
from .rules import derived_values
from .state import Character, Condition, Options

HANDLED = ("character", "name", "stats", "level", "equipment", "trackers", "conditions")
"""Fields :meth:`Words.describe_changes` words itself (the rest get the generic wording of
:meth:`ledger.RuleSystem.generic_changes`)."""


def _modifier_text(lines: Iterable[ModifierLine]) -> str:
    """``" +1 bonus -2 (counts 0)"``: each modifier after the stat, as stated and counted
    ("Key Terms", hint "Modifiers")."""
    return "".join(
        f" {m.counted:+d}" if m.counted == m.stated else f" {m.kind} {m.stated:+d} (counts 0)"
        for m in lines
    )


def _adjusted_text(event: DecisionRolled) -> str:
    """``" (18 +2)"`` when the target was adjusted from its base, else ``""``
    ("\\"Impossible\\" Tasks": adjustments to the target value)."""
    if not event.target_adjustments:
        return ""
    return f" ({event.base_target} " + " ".join(f"{a:+d}" for a in event.target_adjustments) + ")"


def _condition(c: Condition) -> str:
    what: str
    if c.kind in ("advantage", "disadvantage"):
        what = c.kind
    else:
        what = f"{c.value:+d}" + (f" to {c.stat}" if c.stat else " to rolls")
    lasts = f" for {counted(c.rolls_left, 'roll')}" if c.rolls_left else ""
    return f"now {c.name}: {what}{lasts}"


def _supply_change(name: str, was: str | None, now: str | None) -> str:
    """An item's supply die stepping down, used up or resupplied ("Supply Rolls")."""
    if now == "empty":
        return f"{name} is used up: resupply before relying on it"
    if was in (None, "empty"):
        return f"{name} resupplied to {now}"
    return f"{name}'s supply die {was} → {now}"


class Words(RuleSystem[Character, Options]):
    """One line per decision-dice event for ``log`` and recaps, and what changed."""

    @describes(DecisionRolled)
    def describe_decision(self, event: DecisionRolled) -> str:
        """``"<character>: Might +1 +1, dice [4, 4] (2d6) = 10 vs 8: success (margin
        +2)"`` and the supply roll made after it ("Decision Rolls", "Supply Rolls")."""
        line = (
            f"{event.character}: {event.stat} {event.stat_value:+d}"
            f"{_modifier_text(event.modifiers[1:])}, dice {event.dice} "
            f"({event.decision_dice}d6) = {event.total} vs {event.target}"
            f"{_adjusted_text(event)}"
            f"{' (Impossible task, allowed)' if event.impossible_task else ''}: "
            f"{event.outcome} (margin {event.margin:+d})"
        )
        if event.supply:
            line += (
                f"; supply {event.supply.item} {event.supply.die} shows "
                f"{event.supply.face} → {event.supply.after}"
            )
        return line

    @describes(ContestRolled)
    def describe_contest(self, event: ContestRolled) -> str:
        """Every round of a contested roll and who won ("Contested Rolls", "Resolving a
        Tie")."""
        rounds = "; ".join(
            f"{r.dice}={r.total} vs {r.opponent_dice}={r.opponent_total}" for r in event.rounds
        )
        return (
            f"{event.character} ({event.stat} {event.stat_value:+d}"
            f"{_modifier_text(event.modifiers[1:])}) vs {event.opponent}: {rounds} → "
            f"{event.winner} wins"
        )

    def describe_changes(self, before: Any, after: Any, *, as_gm: bool) -> list[str]:
        """What changed on a character in the rule text's words: stats and level ("Key
        Terms"), equipment and supply dice stepping down ("Supply Rolls"), trackers in percent
        ("D100 or Percentage"), conditions with what they do ("Advantage and Disadvantage"),
        Stress/Vitality following the stats ("The Rounding Rule"); the fields outside
        :data:`HANDLED` in the generic wording. Nothing on a character is GM-only."""
        if before is None:
            return [f"{after.name} joins the party"]
        out = entry_changes(
            before.stats,
            after.stats,
            new="new stat {name} {now:+d}",
            changed="{name} {moved} to {now:+d}",
        )
        if after.level != before.level and after.level is not None:
            out.append(f"reaches level {after.level}")
        out += entry_changes(
            before.equipment,
            after.equipment,
            value=lambda item: item.supply,
            new="gains {{ name }}{% if now %} (supply {{ now }}){% endif %}",
            changed=_supply_change,
            gone="loses {name}",
        )
        out += entry_changes(
            before.trackers,
            after.trackers,
            new="{name} {now}%",
            changed="{name} {was}% → {now}%",
            gone="{name} no longer tracked",
        )
        out += entry_changes(
            before.conditions, after.conditions, new=lambda _, c: _condition(c), gone="{name} ends"
        )
        derived = entry_changes(
            derived_values(before, self.options),
            derived_values(after, self.options),
            changed=lambda name, was, now: (
                f"{name} {was} → {now} (½ "
                + " + ½ ".join(self.options.derived[name])
                + ", rounded down)"
            ),
        )
        own = [s[:1].upper() + s[1:] for s in out]
        return own + derived + self.generic_changes(before, after, skip=HANDLED)

    def recap_lines(self, record: Recorded, *, as_gm: bool) -> list[str]:
        """Rule notes for a recap: ties re-rolled ("Resolving a Tie"), supply dice stepping
        down or used up ("Supply Rolls"); ``[]`` when there is nothing to add."""
        event = record.data
        notes = []
        if isinstance(event, ContestRolled) and len(event.rounds) > 1:
            ties = len(event.rounds) - 1
            notes.append(f"tied {counted(ties, 'time')}, re-rolled (Resolving a Tie)")
        elif isinstance(event, SupplyRolled) and event.after != event.die:
            if event.after == "empty":
                notes.append(f"{event.item} is used up: resupply before relying on it")
            else:
                notes.append(f"{event.item}'s supply die steps down: {event.die} → {event.after}")
        return notes

    def verdict(self, event: Roll) -> str | None:
        """Decisions and contests ✔/✘ by their ``outcome``; a supply roll is neither (its die
        keeping its size or stepping down is said in words)."""
        return None if isinstance(event, SupplyRolled) else super().verdict(event)
