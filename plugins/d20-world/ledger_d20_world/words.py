"""What d20-world events and changes read like to a person, in the rule text's words
(seed 001_a3a02f9b7363775f.txt): "Checks", "Skills", "Learning Skills", "Traits", "Bonds",
"Inventory", "Harm" ("Armor", "Conditions", "Wounds"), "Magic" ("Jinx"), "Objectives".

:class:`Words` gives one :func:`ledger.describes` method per event type (the line ``log``,
recaps and the web view show), what changed on a character ("Forage +5 xp (5/12)", "now
shaken: −1 to checks until a night of sleep", "objective 'Open the vault' completed"), the
notes a recap shows beside an event and each roll's verdict. Favour and hidden-condition
lines are only ever shown to The World: the engine hides GM-only events from players, and
the change sentences of a player's view never name favor or a hidden condition.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ledger import Recorded, Roll, RuleSystem, describes

from .events import (
    AttackResolved,
    BlindCheckRolled,
    CheckRolled,
    ConditionAdded,
    CorruptionMarked,
    DamageTaken,
    FavourChanged,
    GroupObjectiveContributed,
    GroupObjectiveOpened,
    HiddenConditionAdded,
    ObjectiveContributed,
    ShockRolled,
    TraitGained,
    TraitLost,
)
from .rules.mechanics import damage_dealt, xp_threshold
from .rules.ops import condition_penalty, hidden_penalty, wound_total
from .state import Character, Condition, Objective, Options, Skill, Trait

HANDLED = (
    "id", "name", "skills", "bonds", "items", "conditions", "wounds", "wounds_received", "jinx", "shocks",
    "pending_shock", "shocks_owed", "dead", "objectives", "bonds_called", "rested_after_session", "gm_view",
    "traits", "group_checks", "clock",
)
"""Fields :meth:`Words.describe_changes` words itself (the rest get the generic wording of
:meth:`ledger.RuleSystem.generic_changes`)."""


class Words(RuleSystem[Character, Options]):
    """Mixin of :class:`ledger_d20_world.system.D20World`: the words of its events and
    changes."""

    # --- one line per event ----------------------------------------------------------------

    @describes(CheckRolled, BlindCheckRolled)
    def describe_check_rolled(self, event: CheckRolled) -> str:
        """``"isa: Lockpicking +3, d20 [7, 15] kept 15, −1 wounds = 17: messy, +1 xp"``
        ("Checks"; "Natural 1 & 20"), a blind check alike (ruling R34).

        Penalties are itemised by source, except hidden conditions: their sum is one
        unexplained "hidden modifier" (ruling R33), so a public line never names a GM-only
        fact."""
        head = f"{event.character}: {event.skill} {_signed(event.proficiency)}"
        if not event.known:
            head += " (practising)"
        if event.gate in ("auto_fail", "auto_success"):
            line = f"{head}: no check, {event.gate.replace('_', ' ')}"
            return line + (" (spell miscast, +1 jinx)" if event.miscast else
                           " (spell cast, +1 jinx)" if event.spell else "")
        mode = "" if event.mode == "normal" else f" with {event.mode}"
        dice = f"d20 {event.dice}" if len(event.dice) > 1 else f"d20 {event.dice[0]}"
        kept = f" kept {event.kept}" if len(event.dice) > 1 else ""
        hidden = event.hidden_modifier if isinstance(event.hidden_modifier, int) else 0
        pens = [f"−{n} {what}" for n, what in ((event.wound_penalty, "wounds"),
                                              (event.condition_penalty, "conditions"),
                                              (event.jinx_penalty, "jinx"),
                                              (hidden, "hidden modifier")) if n]
        parts = [f"{head}{mode}, {dice}{kept}", *pens]
        line = ", ".join(parts) + f" = {event.total}: {event.outcome}, +{event.experience} xp"
        if event.invocations:
            line += " (" + ", ".join(f"{i.trait} to {i.mode}" for i in event.invocations) + ")"
        if event.kept == 1:
            line += "; natural 1: traits regain hinder"
        if event.kept == 20:
            line += "; natural 20: traits regain help"
        if event.spell:
            line += "; spell miscast, +1 jinx" if event.miscast else "; spell cast, +1 jinx"
        if event.objective:
            line += f"; towards objective {event.objective!r}"
        return line

    @describes(ShockRolled)
    def describe_shock_rolled(self, event: ShockRolled) -> str:
        """The shock 1d6 against the wound total and whether it shocks ("Wounds")."""
        verdict = "SHOCK: something bad happens" if event.shock else "no shock"
        return (f"{event.character}: shock roll d6 {event.die} vs wounds "
                f"{event.wound_total}: {verdict}")

    @describes(FavourChanged)
    def describe_favour_changed(self, event: FavourChanged) -> str:
        """The World's change of a bond's favor (GM-only, "Bonds")."""
        return (f"{event.character}: favor of {event.bond} {_signed(event.delta)}"
                + (f" ({event.reason})" if event.reason else ""))

    @describes(TraitGained)
    def describe_trait_gained(self, event: TraitGained) -> str:
        """A trait gained in play ("Traits"; ruling R39)."""
        return (f"{event.character}: gains the {event.kind} trait {event.trait!r}"
                + _why(event.reason))

    @describes(TraitLost)
    def describe_trait_lost(self, event: TraitLost) -> str:
        """A trait lost ("Traits"; ruling R39)."""
        return f"{event.character}: loses the trait {event.trait!r}" + _why(event.reason)

    @describes(CorruptionMarked)
    def describe_corruption_marked(self, event: CorruptionMarked) -> str:
        """The lasting corruption of magic as a trait ("Traits"; ruling R40)."""
        spell = f" from casting {event.spell}" if event.spell else ""
        return (f"{event.character}: marked by the lasting corruption of magic{spell}: "
                f"trait {event.trait!r}" + _why(event.reason))

    @describes(DamageTaken)
    def describe_damage_taken(self, event: DamageTaken) -> str:
        """Damage taken, with the armour spent and items destroyed in desperation
        ("Armor", "Wounds")."""
        about = f" ({event.description})" if event.description else ""
        return (f"{event.character}: takes {event.amount} damage{about}"
                + _armour(event.armour, event.desperate))

    @describes(AttackResolved)
    def describe_attack_resolved(self, event: AttackResolved) -> str:
        """An attack and the damage it deals with this campaign's messy-damage
        rounding ("Attacking", ruling R5), with the armour spent ("Armor")."""
        dealt = damage_dealt(event.weapon_damage, event.outcome,
                             self.options.messy_damage_rounding)
        return (f"{event.character}: attacked by {event.attacker}"
                f"{' with ' + event.weapon if event.weapon else ''}: {event.outcome}, "
                f"{dealt} of {event.weapon_damage} damage"
                + _armour(event.armour, event.desperate))

    @describes(ConditionAdded)
    def describe_condition_added(self, event: ConditionAdded) -> str:
        """A condition and what it does to checks and capacity ("Conditions")."""
        fx = []
        if event.check_penalty:
            fx.append(f"−{event.check_penalty} to all checks")
        if event.capacity_delta:
            fx.append(f"inventory capacity {_signed(event.capacity_delta)}")
        return (f"{event.character}: condition {event.condition!r}"
                + (f" until {event.ends_when}" if event.ends_when else "")
                + (f": {', '.join(fx)}" if fx else ""))

    @describes(HiddenConditionAdded)
    def describe_hidden_condition_added(self, event: HiddenConditionAdded) -> str:
        """A hidden condition (GM-only; its penalty reaches players as a hidden
        modifier, ruling R33)."""
        return (f"{event.character}: hidden condition {event.condition!r}"
                + (f" until {event.ends_when}" if event.ends_when else "")
                + (f": −{event.check_penalty} to all checks (a hidden modifier to players)"
                   if event.check_penalty else ""))

    @describes(ObjectiveContributed)
    def describe_objective_contributed(self, event: ObjectiveContributed) -> str:
        """A contributing check recorded by hand ("Objectives", ruling R12)."""
        by = f" by {event.by}" if event.by else ""
        return (f"{event.character}: {event.skill} {event.outcome}{by} towards objective "
                f"{event.objective!r}" + (" (automatic)" if event.auto else ""))

    @describes(GroupObjectiveOpened)
    def describe_group_objective_opened(self, event: GroupObjectiveOpened) -> str:
        """A shared objective opened on the campaign stream ("Objectives";
        ruling R43)."""
        deadline = f", by {event.deadline}" if event.deadline else ""
        return (f"shared objective {event.objective!r} opened, {event.required_good} good "
                f"checks needed{deadline}")

    @describes(GroupObjectiveContributed)
    def describe_group_objective_contributed(self, event: GroupObjectiveContributed) -> str:
        """A contribution to a shared objective, by whom and from which check
        ("Objectives"; ruling R43)."""
        check = f" (check {event.check})" if event.check is not None else ""
        return (f"{event.by}: {event.skill} {event.outcome} towards shared objective "
                f"{event.objective!r}{check}" + (" (automatic)" if event.auto else ""))

    # --- what changed, what it means, how it went ------------------------------------------

    def describe_changes(self, before: Any, after: Any, *, as_gm: bool) -> list[str]:
        """What changed on a character in the rule text's words: experience and increases
        ("Skills", "Learning Skills"), traits spent and regained ("Traits"), conditions and
        wounds with the penalty on checks now ("Harm"), jinx ("Magic"), objectives; favor
        and hidden conditions only in The World's view ("Bonds", ruling R33). Fields outside
        :data:`HANDLED` get the generic wording."""
        if before is None:
            return [f"{after.name} joins the party"]
        out: list[str] = []
        old_skills = {s.name: s for s in before.skills}
        for skill in after.skills:
            out.extend(_skill(old_skills.get(skill.name), skill))
        old_traits = {t.name: t for t in before.traits}
        new_traits = {t.name for t in after.traits}
        for t in after.traits:
            was = old_traits.get(t.name)
            if was is None:
                out.append(_new_trait(t))
                continue
            for way in ("help", "hinder"):
                now, then = getattr(t, f"can_{way}"), getattr(was, f"can_{way}")
                if now != then:
                    out.append(f"{t.name} can {way} again" if now else f"{t.name} spent to {way}")
        for name, t in old_traits.items():
            if name not in new_traits:
                out.append(f"no longer {name}" + (" (its corruption lifted)"
                                                  if t.kind == "corruption" else " (trait lost)"))
        old_bonds = {b.name: b for b in before.bonds}
        for b in after.bonds:
            if b.name not in old_bonds:
                favor = f", favor {_signed(b.favor)}" if as_gm else ""  # The World's ("Bonds")
                out.append(f"new bond: {b.name} ({b.kind}{favor})")
        if as_gm:  # favor is The World's secret ("Bonds")
            for b in after.bonds:
                was_b = old_bonds.get(b.name)
                if was_b is not None and was_b.favor != b.favor:
                    out.append(f"favor of {b.name} {_signed(b.favor - was_b.favor)} "
                               f"(now {_signed(b.favor)})")
        out.extend(_items(before, after))
        old_conditions = {c.name: c for c in before.conditions}
        new_conditions = {c.name: c for c in after.conditions}
        for name, c in new_conditions.items():
            if name not in old_conditions and (as_gm or not c.hidden):
                out.append(_condition(c, as_gm))
        for name, c in old_conditions.items():
            if name not in new_conditions and (as_gm or not c.hidden):
                out.append(f"no longer {name}")
        old_wounds = {w.number: w for w in before.wounds}
        new_wounds = {w.number: w for w in after.wounds}
        for number, w in new_wounds.items():
            was_w = old_wounds.get(number)
            about = f" ({w.description})" if w.description else ""
            if was_w is None:
                out.append(f"wound {number}: {w.damage} damage{about}")
            elif was_w.damage != w.damage:
                out.append(f"wound {number} heals to {w.damage} damage")
        for number in old_wounds:
            if number not in new_wounds:
                out.append(f"wound {number} healed")
        if after.shocks > before.shocks:
            out.append("shock: something bad happens (Wounds)")
        if after.shocks_owed > before.shocks_owed or (
            after.pending_shock and not before.pending_shock
        ):
            owed = max(after.shocks_owed, 1)
            out.append(
                "owes a shock roll (d6 against the wound total)" if owed == 1
                else f"owes {owed} shock rolls, one per wound (d6 against the wound total)"
            )
        if after.dead and not before.dead:
            out.append("dies: wound damage above five (Wounds)")
        if after.jinx != before.jinx:
            out.append(
                f"jinx {before.jinx} → {after.jinx}: −{after.jinx} on spellcasting checks"
                if after.jinx
                else "jinx cleared"
            )
        old_penalty, _ = _penalty(before, as_gm)
        new_penalty, parts = _penalty(after, as_gm)
        if new_penalty != old_penalty:
            out.append(f"checks now at −{new_penalty} ({parts})" if new_penalty
                       else "no penalty on checks any more")
        old_objectives = {o.name: o for o in before.objectives}
        for o in after.objectives:
            out.extend(_objective(old_objectives.get(o.name), o))
        if after.bonds_called > before.bonds_called:
            n = after.bonds_called - before.bonds_called
            out.append(f"called upon a bond{f' {n} times' if n > 1 else ''}")
        if after.rested_after_session > before.rested_after_session:
            out.append("rested (half the jinx recovered)")
        out = [s[:1].upper() + s[1:] for s in out]
        return out + self.generic_changes(before, after, skip=HANDLED)

    def recap_lines(self, record: Recorded, *, as_gm: bool) -> list[str]:
        """Rule notes for a recap: jinx after a spell ("Magic: Jinx"); ``[]`` when there is
        nothing to add."""
        event = record.data
        if isinstance(event, CheckRolled) and event.spell:
            return ["each jinx is −1 on later spellcasting checks; a rest recovers half (Jinx)"]
        return []

    def verdict(self, event: Roll) -> str | None:
        """A check's band: good ✔, messy ◐, bad ✘ ("Checks"); a shock roll that shocks ✘
        ("Wounds")."""
        if isinstance(event, ShockRolled):
            return "failure" if event.shock else "success"
        if isinstance(event, CheckRolled):
            return {"good": "success", "messy": "mixed", "bad": "failure"}[event.outcome]
        return None


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else f"−{-n}"


def _why(reason: str) -> str:
    return f" ({reason})" if reason else ""


def _armour(armour: list[str], desperate: list[str]) -> str:
    bits = [f"armour {a}" for a in armour] + [f"{d} destroyed in desperation" for d in desperate]
    return f"; {', '.join(bits)}" if bits else ""


def _skill(before: Skill | None, after: Skill) -> list[str]:
    need = xp_threshold(after)
    if before is None:
        if after.known:
            return [f"new skill {after.name} {_signed(after.proficiency)}"]
        return [f"learning {after.name}: {after.experience}/{need} xp (Learning Skills)"]
    if after.proficiency != before.proficiency:
        verb = "learned at" if not before.known else "rose to"
        return [f"{after.name} {verb} {_signed(after.proficiency)} ({after.experience}/{need} xp)"]
    if after.experience != before.experience:
        gained = after.experience - before.experience
        return [f"{after.name} {_signed(gained)} xp ({after.experience}/{need})"]
    return []


def _condition(c: Condition, as_gm: bool) -> str:
    effects = []
    if c.check_penalty:
        effects.append(f"−{c.check_penalty} to checks")
    if c.capacity_delta:
        effects.append(f"carries {abs(c.capacity_delta)} item{'s' if abs(c.capacity_delta) != 1 else ''} "
                       f"{'fewer' if c.capacity_delta < 0 else 'more'}")
    ends = f" until {c.ends_when}" if c.ends_when else ""
    what = f": {', '.join(effects)}{ends}" if effects else ends
    hidden = " (hidden from the players)" if c.hidden and as_gm else ""
    return f"now {c.name}{what}{hidden}"


def _new_trait(t: Trait) -> str:
    if t.kind == "corruption":
        spell = f" from {t.spell}" if t.spell else ""
        return f"marked by the lasting corruption of magic{spell}: trait {t.name}"
    return f"new trait {t.name} ({t.kind})"


def _objective(before: Objective | None, after: Objective) -> list[str]:
    progress = f"{after.good}/{after.required_good} good checks"
    if after.group:  # every character's recap says the same (ruling R43)
        own = _objective(before, msgspec.structs.replace(after, group=False))
        return [f"shared {line}" for line in own]
    if after.status == "completed" and (before is None or before.status != "completed"):
        return [f"objective '{after.name}' completed ({progress})"]
    if after.status == "failed" and (before is None or before.status != "failed"):
        why = f": {after.reason}" if after.reason else ""
        return [f"objective '{after.name}' failed{why}"]
    if before is None:
        deadline = f", by {after.deadline}" if after.deadline else ""
        return [f"objective '{after.name}' opened: {progress}{deadline}"]
    if (after.good, after.messy, after.bad) != (before.good, before.messy, before.bad):
        return [f"objective '{after.name}': {progress}"]
    return []


def _penalty(state: Character, as_gm: bool) -> tuple[int, str]:
    parts = []
    wounds, conditions = wound_total(state), condition_penalty(state)
    hidden = hidden_penalty(state) if as_gm else 0
    if wounds:
        parts.append(f"wounds −{wounds}")
    if conditions:
        parts.append(f"conditions −{conditions}")
    if hidden:
        parts.append(f"hidden −{hidden}")
    return wounds + conditions + hidden, ", ".join(parts)


def _items(before: Character, after: Character) -> list[str]:
    out = []
    old = {i.name: i for i in before.items}
    new = {i.name: i for i in after.items}
    for name, item in new.items():
        was = old.get(name)
        if was is None:
            out.append(f"gained {name} ({item.location})")
            continue
        if item.location != was.location:
            out.append(f"{name} moved to the {item.location}" if item.location == "bag"
                       else f"{name} now carried")
        if item.destroyed and not was.destroyed:
            out.append(f"{name} destroyed")
        elif item.broken and not was.broken:
            out.append(f"{name} broken")
        elif was.broken and not item.broken:
            out.append(f"{name} repaired (durability {item.durability})")
        elif item.durability != was.durability and item.durability is not None:
            out.append(f"{name} durability {was.durability} → {item.durability}")
    for name in old:
        if name not in new:
            out.append(f"{name} gone")
    return out
