"""What a Wyrd Engine event or change reads like to a person, in the rule text's words.

The :class:`Words` mixin of :class:`ledger_wyrd_engine.system.WyrdEngine`: one line per event
(``@describes``, for ``campaign log``, recaps and the web view), the sentences of what
changed on a character (:meth:`~Words.describe_changes`: "Stress 3/5 [x][x][x][ ][ ]",
"Moderate Wound (absorbs 2): −2 to Athletics, Fight rolls", "Stress cleared") and the rule
notes a recap shows beside an event (:meth:`~Words.recap_lines`). Source:
000_60e07241544698f0.txt: "Conflict resolution at a glance", "Interpreting Failure",
"Active Opposition", "Damage: Stress and Wounds", "Healing and Recovery", "Boosts", "How
Traits Work".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ledger import Recorded, RuleSystem, describes

from . import events as ev
from .rules import BAND_LABELS, dr_label, faces_text, level_name, signed
from .state import SEVERITIES, WOUND_CAPACITY, WOUND_PENALTY, Character, Options, Wound

HANDLED = (
    "id", "name", "skills", "traits", "gear", "stress", "stress_max", "wounds", "used_this_scene",
    "used_this_session", "boons", "boosts", "taken_out", "at_risk_of_death", "dead", "overflow",
)
"""Fields :meth:`Words.describe_changes` words itself (the rest get the generic wording of
:meth:`ledger.RuleSystem.generic_changes`)."""

CONTEST_TIE = "tie: no winner"
"""A contest tie (ruling C15: "a tie has no winner"); a passive tie succeeds (ruling C1)."""


def _of(event: Any, line: str) -> str:
    """``"<character>: <line>"``: the core puts the character's name in its place."""
    return f"{event.character}: {line}" if event.character else line


def _skills_note(skills: Sequence[str]) -> str:
    return f" ({', '.join(skills)})" if skills else ""


def _trait_does(event: ev.GearGained | ev.TraitGained) -> str:
    """What a new trait or gear does, in the book's words ("+2 to Fight when dueling",
    "once per scene", "Use Will instead of Athletics"; "How Traits Work")."""
    when = f" {event.when}" if event.when else ""
    if event.kind == "bonus":
        return f"+2 to {event.skill}{when}"
    if event.kind == "substitution":
        return f"Use {event.skill} instead of {event.instead_of}{when}"
    if event.kind == "ability":
        return f"once per {event.once_per}{when}"
    return f"may roll {event.skill}{when}" if event.skill else when.strip()


def _gained(event: ev.GearGained | ev.TraitGained, what: str) -> str:
    """``gains <what> <name> – <what it does> (<why>)``."""
    does = event.text or _trait_does(event)
    why = f" ({event.reason})" if event.reason else ""
    return f"gains {what} {event.name}" + (f" – {does}" if does else "") + why


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


class Words(RuleSystem[Character, Options]):
    """The Wyrd Engine's words: one line per event, what changed, recap notes (a mixin)."""

    @describes(ev.CheckRolled)
    def describe_check_rolled(self, event: ev.CheckRolled) -> str:
        """``julian: Investigate +3, dice [+ + − ·] = +1, total 4 vs Difficult/Good (+2):
        success (margin 2)``, and the opponent's dice for contests, attacks and defences
        ("Conflict resolution at a glance", "Active Opposition", "Attacking and Defending")."""
        skill = event.skill
        if event.rating_skill != event.skill:
            skill += f" (as {event.rating_skill})"
        parts = [f"{skill} {signed(event.rating)}"]
        if event.trait:
            bonus = f" {signed(event.trait_bonus)}" if event.trait_bonus else ""
            parts.append(f"{event.trait}{bonus}")
        if event.boost:
            parts.append(f"boost +{event.boost}")
        if event.teamwork:
            parts.append(f"teamwork +{event.teamwork}")
        if event.wound_penalty:
            parts.append(f"wounds −{event.wound_penalty}")
        if event.situational:
            parts.append(f"{event.situation} {signed(event.situational).replace('-', '−')}")
        text = ", ".join(parts) + f", dice {faces_text(event.dice)} = {signed(event.roll)}"
        text += f", total {event.total}"
        label = BAND_LABELS.get(event.outcome, event.outcome)
        if event.mode in ("contest", "initiative") and event.outcome == "tie":
            label = CONTEST_TIE if event.mode == "contest" else "tie (resolved narratively)"
        if event.mode == "passive" and event.dr is not None:
            dr = dr_label(event.dr, self.options.dr_comparison)
            return _of(event, f"{text} vs {dr}: {label} (margin {event.margin})")
        if event.mode == "initiative" and event.opposition_total is None:
            return _of(event, f"initiative {text}")
        if event.vs_character is not None:
            opp = f"{event.opponent} ({event.vs_skill} {signed(event.vs_rating or 0)}"
            if event.vs_trait:
                opp += f", {event.vs_trait} {signed(event.vs_trait_bonus)}"
            if event.vs_wound_penalty:
                opp += f", wounds −{event.vs_wound_penalty}"
            opp += ")"
        else:
            opp = f"{event.opponent} {signed(event.opposition or 0)}"
        opp += f" {faces_text(event.opposition_dice or [])} = {event.opposition_total}"
        tail = f" (damage {event.damage})" if event.damage else ""
        verb = {"attack": "attacks", "defence": "defends against", "contest": "vs",
                "initiative": "initiative vs"}[event.mode]  # fmt: skip
        return _of(event, f"{text} {verb} {opp}: {label}{tail}")

    @describes(ev.DamageTaken)
    def describe_damage_taken(self, event: ev.DamageTaken) -> str:
        """``takes 3 damage at 2-to-1 (wounds affect Fight)`` ("Attacking and Defending")."""
        ratio = event.ratio if event.ratio is not None else self.options.damage_ratio
        per = f" at {ratio}-to-1" if ratio != 1 else ""
        skills = f" (wounds affect {', '.join(event.affected_skills)})" if (
            event.affected_skills) else ""  # fmt: skip
        return _of(event, f"takes {event.amount} damage{per}{skills}")

    @describes(ev.WoundInflicted)
    def describe_wound_inflicted(self, event: ev.WoundInflicted) -> str:
        """``takes a mild wound (Lore)`` ("Damage: Stress and Wounds")."""
        return _of(event, f"takes a {event.severity} wound{_skills_note(event.affected_skills)}")

    @describes(ev.WoundDescribed)
    def describe_wound_described(self, event: ev.WoundDescribed) -> str:
        """``moderate wound (Athletics, Fight)`` ("Example Wound")."""
        return _of(event, f"{event.severity} wound{_skills_note(event.affected_skills)}")

    @describes(ev.WoundHealed)
    def describe_wound_healed(self, event: ev.WoundHealed) -> str:
        """``mild wound healed (first aid)`` ("Healing and Recovery")."""
        return _of(event, f"{event.severity} wound healed ({event.method.replace('_', ' ')})")

    @describes(ev.StressCleared)
    def describe_stress_cleared(self, event: ev.StressCleared) -> str:
        """``stress cleared`` ("Damage: Stress and Wounds"; ruling C10)."""
        return _of(event, "stress cleared")

    @describes(ev.TraitAbilityUsed)
    def describe_trait_ability_used(self, event: ev.TraitAbilityUsed) -> str:
        """``uses Sleight of Hand: note`` ("How Traits Work")."""
        return _of(event, f"uses {event.trait}" + (f": {event.note}" if event.note else ""))

    @describes(ev.BoonGranted)
    def describe_boon_granted(self, event: ev.BoonGranted) -> str:
        """``gains the boon 'x' (+2, this scene)`` ("Active Opposition")."""
        return _of(event, f"gains the boon {event.boon!r} (+2, this scene)")

    @describes(ev.BoonUsed)
    def describe_boon_used(self, event: ev.BoonUsed) -> str:
        """``uses the boon 'x'`` ("Active Opposition")."""
        return _of(event, f"uses the boon {event.boon!r}")

    @describes(ev.BoostGained)
    def describe_boost_gained(self, event: ev.BoostGained) -> str:
        """``gains a +1 boost (why)`` ("Boosts: Optional Rule for Increasing Success")."""
        why = f" ({event.description})" if event.description else ""
        return _of(event, f"gains a +{event.value} boost{why}")

    @describes(ev.BoostUsed)
    def describe_boost_used(self, event: ev.BoostUsed) -> str:
        """``spends a +1 boost`` ("Boosts: Optional Rule for Increasing Success"), or
        ``a +1 boost lapses unused`` at the end of their turn."""
        if event.lapsed is True:
            return _of(event, f"a +{event.value} boost lapses unused (it lasts a single action)")
        return _of(event, f"spends a +{event.value} boost")

    @describes(ev.DeathRecorded)
    def describe_death_recorded(self, event: ev.DeathRecorded) -> str:
        """``dies: reason`` ("Death and the End of Combat")."""
        return _of(event, "dies" + (f": {event.reason}" if event.reason else ""))

    @describes(ev.GearGained)
    def describe_gear_gained(self, event: ev.GearGained) -> str:
        """``gains gear Clockwork Lockpick – +2 to Burglary when ... (why)`` ("Gear as
        Traits"; ruling W-15)."""
        return _of(event, _gained(event, "gear"))

    @describes(ev.TraitGained)
    def describe_trait_gained(self, event: ev.TraitGained) -> str:
        """``gains the Trait Iron Will – once per scene (why)`` ("Traits"; ruling W-16)."""
        return _of(event, _gained(event, "the Trait"))

    @describes(ev.GearLost)
    def describe_gear_lost(self, event: ev.GearLost) -> str:
        """``loses the gear X (why)`` ("Gear as Traits"; ruling W-15)."""
        why = f" ({event.reason})" if event.reason else ""
        return _of(event, f"loses the gear {event.gear}{why}")

    @describes(ev.TraitLost)
    def describe_trait_lost(self, event: ev.TraitLost) -> str:
        """``loses the Trait X (why)`` ("Traits"; ruling W-16)."""
        why = f" ({event.reason})" if event.reason else ""
        return _of(event, f"loses the Trait {event.trait}{why}")

    def describe_changes(self, before: Any, after: Any, *, as_gm: bool) -> list[str]:
        """What changed on a character in the rule text's words: stress drawn as boxes, each
        wound with the rolls it penalises now ("Damage: Stress and Wounds"), abilities used
        and ready again, boons and boosts; fields outside :data:`HANDLED` in the generic
        wording (:meth:`ledger.RuleSystem.generic_changes`). The Wyrd Engine has no GM-only
        facts, so ``as_gm`` changes nothing."""
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
                helps = b.skill or "a roll it fits"
                out.append(f"boon '{b.name}': +2 to {helps}, once, this scene")
        out.extend(f"boon '{name}' gone" for name in old_boons if name not in new_boons)
        if after.boosts != before.boosts:
            total = sum(b.value for b in after.boosts)
            out.append(
                f"boosts: +{total} for the next relevant roll" if total else "no boost left"
            )
        own = [s[:1].upper() + s[1:] for s in out]
        return own + self.generic_changes(before, after, skip=HANDLED)

    def recap_lines(self, record: Recorded, *, as_gm: bool) -> list[str]:
        """Rule notes for one recorded roll in a recap ("Interpreting Failure", "Active
        Opposition", damage to mark); ``[]`` when there is nothing to add."""
        event = record.data
        if not isinstance(event, ev.CheckRolled):
            return []
        notes = []
        if event.outcome == "failure":
            notes.append("the GM may offer success at a cost (Interpreting Failure)")
        if event.mode != "passive" and event.margin >= 3:
            notes.append("won by 3 or more: the GM may grant a boon (Active Opposition)")
        if event.damage:
            notes.append(f"{event.damage} damage to mark: stress first, then wounds")
        return notes
