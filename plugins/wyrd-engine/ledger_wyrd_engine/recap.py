"""What a Wyrd Engine event means at the table, and what changed on a character, in the rule
text's words (000_60e07241544698f0.txt): "Interpreting Failure", "Active Opposition",
"Damage: Stress and Wounds", "Healing and Recovery", "Boosts".

:func:`recap_notes` gives the notes a recap shows beside an event; :func:`change_sentences`
the sentences of :meth:`ledger.RuleSystem.describe_changes` ("Stress 3/5 [x][x][x][ ][ ]",
"Moderate Wound (absorbs 2): −2 to Athletics, Fight rolls", "Stress cleared").
"""

from __future__ import annotations

from typing import Any

from .events import CheckRolled
from .ladder import level_name
from .state import SEVERITIES, WOUND_CAPACITY, WOUND_PENALTY, Character, Wound

HANDLED = (
    "id", "name", "skills", "traits", "gear", "stress", "stress_max", "wounds", "used_this_scene",
    "used_this_session", "boons", "boosts", "taken_out", "at_risk_of_death", "dead", "overflow",
)
"""Fields :func:`change_sentences` words itself (the rest get the generic wording of
:meth:`ledger.RuleSystem.generic_changes`)."""


def recap_notes(record: Any) -> list[str]:
    """Rule notes for one recorded event (``[]`` when there is nothing to add)."""
    event = record.data
    if not isinstance(event, CheckRolled):
        return []
    notes = []
    if event.outcome == "failure":
        notes.append("the GM may offer success at a cost (Interpreting Failure)")
    if event.mode != "passive" and event.margin >= 3:
        notes.append("won by 3 or more: the GM may grant a boon (Active Opposition)")
    if event.damage:
        notes.append(f"{event.damage} damage to mark: stress first, then wounds")
    return notes


def stress_track(stress: int, stress_max: int) -> str:
    """``"[x][x][ ][ ][ ]"``: marked boxes first."""
    return "[x]" * stress + "[ ]" * max(0, stress_max - stress)


def wound_effect(severity: str, wound: Wound) -> str:
    """What a wound does now ("Damage: Stress and Wounds", wound table)."""
    skills = ", ".join(wound.affected_skills)
    if severity == "severe":
        extra = f" and to {skills} rolls" if skills else ""
        return f"−{WOUND_PENALTY[severity]} to all physical actions{extra}"
    if skills:
        return f"−{WOUND_PENALTY[severity]} to {skills} rolls"
    return f"−{WOUND_PENALTY[severity]} to relevant skill rolls (the GM names them)"


def _wound(severity: str, wound: Wound) -> str:
    about = f" ({wound.description})" if wound.description else ""
    return (f"{severity.capitalize()} Wound (absorbs {wound.absorbed} of "
            f"{WOUND_CAPACITY[severity]}): {wound_effect(severity, wound)}{about}")


def change_sentences(before: Character | None, after: Character, *, as_gm: bool) -> list[str]:
    """What changed between two states of one character, as sentences (see module doc);
    fields outside :data:`HANDLED` are left to the generic wording."""
    if before is None:
        return [f"{after.name} joins the case"]
    out: list[str] = []
    for word, was_t, now_t in (("gear", before.gear, after.gear),
                               ("Trait", before.traits, after.traits)):
        old_names = {t.name for t in was_t}
        new_names = {t.name for t in now_t}
        out.extend(f"gains {word} {t.name}" for t in now_t if t.name not in old_names)
        out.extend(f"no longer has {word} {t.name}" for t in was_t if t.name not in new_names)
    for skill, rating in after.skills.items():
        was = before.skills.get(skill)
        if was is None:
            out.append(f"new skill {skill} {level_name(rating)}")
        elif was != rating:
            verb = "rose" if rating > was else "fell"
            out.append(f"{skill} {verb} to {level_name(rating)}")
    if after.stress != before.stress or after.stress_max != before.stress_max:
        track = stress_track(after.stress, after.stress_max)
        if after.stress == 0:
            out.append("Stress cleared")
        else:
            out.append(f"Stress {after.stress}/{after.stress_max} {track}")
    for severity in SEVERITIES:
        old, new = before.wounds.get(severity), after.wounds.get(severity)
        if new is not None and old is None:
            out.append(_wound(severity, new))
        elif new is None and old is not None:
            out.append(f"{severity.capitalize()} Wound healed")
        elif new is not None and old is not None and new != old:
            out.append(_wound(severity, new) + " (now)")
    if after.wounds != before.wounds and len(after.wounds) > 1:
        out.append("wound penalties now: " + "; ".join(
            f"{sev.capitalize()} {wound_effect(sev, after.wounds[sev])}"
            for sev in SEVERITIES if sev in after.wounds
        ))
    if after.overflow and after.overflow != before.overflow:
        out.append(f"{after.overflow} damage left over with every box and wound filled")
    for what, flag in (("taken out", "taken_out"), ("at risk of death", "at_risk_of_death"),
                       ("dead", "dead")):
        now, then = getattr(after, flag), getattr(before, flag)
        if now != then:
            out.append(f"now {what}" if now else f"no longer {what}")
    for per in ("scene", "session"):
        used_now = getattr(after, f"used_this_{per}")
        used_then = getattr(before, f"used_this_{per}")
        out.extend(f"{t} used (once per {per})" for t in used_now if t not in used_then)
        out.extend(f"{t} ready again" for t in used_then if t not in used_now)
    old_boons = [b.name for b in before.boons]
    new_boons = [b.name for b in after.boons]
    for b in after.boons:
        if b.name not in old_boons:
            out.append(f"boon '{b.name}': +2 to {b.skill or 'a roll it fits'}, once, this scene")
    out.extend(f"boon '{name}' gone" for name in old_boons if name not in new_boons)
    if after.boosts != before.boosts:
        total = sum(b.value for b in after.boosts)
        out.append(f"boosts: +{total} for the next relevant roll" if total else "no boost left")
    return [s[:1].upper() + s[1:] for s in out]
