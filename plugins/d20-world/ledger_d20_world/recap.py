"""What a d20-world event means at the table, and what changed on a character, in the rule
text's words (001_a3a02f9b7363775f.txt): "Skills", "Learning Skills", "Conditions",
"Wounds", "Armor", "Magic" ("Jinx"), "Objectives", "Bonds".

:func:`recap_notes` gives the notes a recap shows beside an event; :func:`change_sentences`
the sentences of :meth:`ledger.RuleSystem.describe_changes` ("Forage +5 xp (5/12)", "now
shaken: −1 to checks until a night of sleep", "objective 'Open the vault' completed").
"""

from __future__ import annotations

from typing import Any

import msgspec

from .events import CheckRolled, ShockRolled
from .mechanics import xp_threshold
from .ops import condition_penalty, hidden_penalty, wound_total
from .state import Character, Condition, Objective, Skill, Trait

HANDLED = (
    "id", "name", "skills", "bonds", "items", "conditions", "wounds", "wounds_received", "jinx", "shocks",
    "pending_shock", "shocks_owed", "dead", "objectives", "bonds_called", "rested_after_session", "gm_view",
    "traits", "group_checks",
)
"""Fields :func:`change_sentences` words itself (the rest get the generic wording of
:meth:`ledger.RuleSystem.generic_changes`)."""


def recap_notes(record: Any) -> list[str]:
    """Rule notes for one recorded event (``[]`` when there is nothing to add)."""
    event = record.data
    if isinstance(event, CheckRolled) and event.spell:
        return ["each jinx is −1 on later spellcasting checks; a rest recovers half (Jinx)"]
    return []


def verdict(event: Any) -> str | None:
    """A check's band (good ✔, messy ◐, bad ✘; "Checks"); a shock roll that shocks ✘."""
    if isinstance(event, ShockRolled):
        return "failure" if event.shock else "success"
    if isinstance(event, CheckRolled):
        return {"good": "success", "messy": "mixed", "bad": "failure"}[event.outcome]
    return None


def _signed(n: int) -> str:
    return f"+{n}" if n >= 0 else f"−{-n}"


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


def change_sentences(before: Character | None, after: Character, *, as_gm: bool) -> list[str]:
    """What changed between two states of one character, as sentences (see module doc);
    fields outside :data:`HANDLED` are left to the generic wording."""
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
    return [s[:1].upper() + s[1:] for s in out]


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
