"""Human lines for d20-world events in ``log`` and recaps (seed 001_a3a02f9b7363775f.txt).

Favour and hidden-condition lines are only ever shown to The World: the engine hides GM-only
events from players.
"""

from __future__ import annotations

from ledger import Event

from .events import (
    AttackResolved,
    BagChanged,
    BondCalled,
    BondFormed,
    CheckRolled,
    ConditionAdded,
    ConditionEnded,
    CorruptionMarked,
    DamageTaken,
    ExperienceMarked,
    FavourChanged,
    GroupObjectiveContributed,
    GroupObjectiveFailed,
    GroupObjectiveOpened,
    HiddenConditionAdded,
    HiddenConditionEnded,
    ItemAdded,
    ItemMoved,
    ItemRemoved,
    ItemRepaired,
    ObjectiveContributed,
    ObjectiveFailed,
    ObjectiveOpened,
    Rested,
    ShockRolled,
    SkillIncreased,
    TraitGained,
    TraitLost,
    WoundHealed,
)
from .mechanics import damage_dealt


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else f"−{-n}"


def describe_check(ev: CheckRolled) -> str:
    """``"isa: Lockpicking +3, d20 [7, 15] kept 15, −1 wounds = 17: messy, +1 xp"``.

    Penalties are itemised by source, except hidden conditions: their sum is one unexplained
    "hidden modifier" (ruling R33), so a public line never names a GM-only fact."""
    head = f"{ev.character}: {ev.skill} {_signed(ev.proficiency)}"
    if not ev.known:
        head += " (practising)"
    if ev.gate in ("auto_fail", "auto_success"):
        line = f"{head}: no check, {ev.gate.replace('_', ' ')}"
        return line + (" (spell miscast, +1 jinx)" if ev.miscast else
                       " (spell cast, +1 jinx)" if ev.spell else "")
    mode = "" if ev.mode == "normal" else f" with {ev.mode}"
    dice = f"d20 {ev.dice}" if len(ev.dice) > 1 else f"d20 {ev.dice[0]}"
    kept = f" kept {ev.kept}" if len(ev.dice) > 1 else ""
    hidden = ev.hidden_modifier if isinstance(ev.hidden_modifier, int) else 0
    pens = [f"−{n} {what}" for n, what in ((ev.wound_penalty, "wounds"),
                                          (ev.condition_penalty, "conditions"),
                                          (ev.jinx_penalty, "jinx"),
                                          (hidden, "hidden modifier")) if n]
    parts = [f"{head}{mode}, {dice}{kept}", *pens]
    line = ", ".join(parts) + f" = {ev.total}: {ev.outcome}, +{ev.experience} xp"
    if ev.invocations:
        line += " (" + ", ".join(f"{i.trait} to {i.mode}" for i in ev.invocations) + ")"
    if ev.kept == 1:
        line += "; natural 1: traits regain hinder"
    if ev.kept == 20:
        line += "; natural 20: traits regain help"
    if ev.spell:
        line += "; spell miscast, +1 jinx" if ev.miscast else "; spell cast, +1 jinx"
    if ev.objective:
        line += f"; towards objective {ev.objective!r}"
    return line


def describe(event: Event, *, rounding: str = "ceil") -> str | None:
    """One line a person reads at a glance, or ``None`` for an event this system does not
    own. ``rounding`` is the campaign's messy-damage rounding (ruling R5)."""
    match event:
        case CheckRolled():
            return describe_check(event)
        case ShockRolled():
            verdict = "SHOCK: something bad happens" if event.shock else "no shock"
            return (f"{event.character}: shock roll d6 {event.die} vs wounds "
                    f"{event.wound_total}: {verdict}")
        case ExperienceMarked():
            return f"{event.character}: +{event.amount} experience on {event.skill}" + (
                f" ({event.reason})" if event.reason else "")
        case SkillIncreased():
            return f"{event.character}: {event.skill} rises to +{event.proficiency}"
        case FavourChanged():
            return (f"{event.character}: favor of {event.bond} {_signed(event.delta)}"
                    + (f" ({event.reason})" if event.reason else ""))
        case BondCalled():
            return f"{event.character}: calls upon {event.bond}" + (
                f": {event.request}" if event.request else "")
        case TraitGained():
            return (f"{event.character}: gains the {event.kind} trait {event.trait!r}"
                    + _why(event.reason))
        case TraitLost():
            return f"{event.character}: loses the trait {event.trait!r}" + _why(event.reason)
        case CorruptionMarked():
            spell = f" from casting {event.spell}" if event.spell else ""
            return (f"{event.character}: marked by the lasting corruption of magic{spell}: "
                    f"trait {event.trait!r}" + _why(event.reason))
        case BondFormed():
            return (f"{event.character}: forms a bond with {event.bond} ({event.kind})"
                    + _why(event.reason))
        case ItemAdded():
            return f"{event.character}: gains {event.item} ({event.location})"
        case ItemRemoved():
            return f"{event.character}: loses {event.item}" + (
                f" ({event.reason})" if event.reason else "")
        case ItemMoved():
            cost = f", {event.actions} actions" if event.actions else ""
            return f"{event.character}: moves {event.item} to {event.to}{cost}"
        case ItemRepaired():
            return f"{event.character}: repairs {event.item}"
        case BagChanged():
            return f"{event.character}: {'gains' if event.has_bag else 'loses'} a bag"
        case DamageTaken():
            return _harm(event.character, event.amount, event.armour, event.desperate,
                         event.description)
        case AttackResolved():
            dealt = damage_dealt(event.weapon_damage, event.outcome, rounding)
            return (f"{event.character}: attacked by {event.attacker}"
                    f"{' with ' + event.weapon if event.weapon else ''}: {event.outcome}, "
                    f"{dealt} of {event.weapon_damage} damage"
                    + _armour(event.armour, event.desperate))
        case WoundHealed():
            return f"{event.character}: wound {event.wound} heals by {event.amount}"
        case ConditionAdded():
            fx = []
            if event.check_penalty:
                fx.append(f"−{event.check_penalty} to all checks")
            if event.capacity_delta:
                fx.append(f"inventory capacity {_signed(event.capacity_delta)}")
            return (f"{event.character}: condition {event.condition!r}"
                    + (f" until {event.ends_when}" if event.ends_when else "")
                    + (f": {', '.join(fx)}" if fx else ""))
        case ConditionEnded():
            return f"{event.character}: condition {event.condition!r} ends"
        case HiddenConditionAdded():
            return (f"{event.character}: hidden condition {event.condition!r}"
                    + (f" until {event.ends_when}" if event.ends_when else "")
                    + (f": −{event.check_penalty} to all checks (a hidden modifier to players)"
                       if event.check_penalty else ""))
        case HiddenConditionEnded():
            return f"{event.character}: hidden condition {event.condition!r} ends"
        case Rested():
            return f"{event.character}: rests, recovering half the jinx (rounded up)"
        case ObjectiveOpened():
            return (f"{event.character}: objective {event.objective!r} opened, "
                    f"{event.required_good} good checks needed")
        case ObjectiveContributed():
            by = f" by {event.by}" if event.by else ""
            return (f"{event.character}: {event.skill} {event.outcome}{by} towards objective "
                    f"{event.objective!r}" + (" (automatic)" if event.auto else ""))
        case GroupObjectiveOpened():
            deadline = f", by {event.deadline}" if event.deadline else ""
            return (f"shared objective {event.objective!r} opened, {event.required_good} good "
                    f"checks needed{deadline}")
        case GroupObjectiveContributed():
            check = f" (check {event.check})" if event.check is not None else ""
            return (f"{event.by}: {event.skill} {event.outcome} towards shared objective "
                    f"{event.objective!r}{check}" + (" (automatic)" if event.auto else ""))
        case GroupObjectiveFailed():
            return f"shared objective {event.objective!r} failed ({event.reason})"
        case ObjectiveFailed():
            return f"{event.character}: objective {event.objective!r} failed ({event.reason})"
    return None


def _why(reason: str) -> str:
    return f" ({reason})" if reason else ""


def _armour(armour: list[str], desperate: list[str]) -> str:
    bits = [f"armour {a}" for a in armour] + [f"{d} destroyed in desperation" for d in desperate]
    return f"; {', '.join(bits)}" if bits else ""


def _harm(character: str, amount: int, armour: list[str], desperate: list[str],
          description: str) -> str:
    return (f"{character}: takes {amount} damage" + (f" ({description})" if description else "")
            + _armour(armour, desperate))
