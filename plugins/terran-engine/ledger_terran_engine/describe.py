"""One-line descriptions of Terran Engine events for ``log`` and recaps.

Seed ``003_2aeb47bc6ca82a40.txt``; wording follows the rule text (Light/Dark Dice, Ego,
Effect, Disposition, Critically/Mortally Wounded).
"""

from __future__ import annotations

from ledger import Event, RuleError

from . import events as ev
from . import mechanics as m

OUTCOME_TEXT = {
    "fail": "fail, things get worse",
    "mixed": "success with consequences",
    "success": "success",
}


def _faces(faces: list[int]) -> str:
    return "[" + " ".join(str(f) for f in faces) + "]"


def _pool(tone: str, faces: list[int]) -> str:
    """One tone of a Risky Action's pool, named as the rule text names it ("2.1": Light Dice,
    Dark Dice) so the two read apart without colour: ``"Light dice [2 3 1]"``."""
    return f"{tone} dice {_faces(faces)}" if faces else f"no {tone} dice"


def describe_event(e: Event) -> str | None:
    """A human line for a Terran Engine event, ``None`` for other events."""
    if isinstance(e, ev.RiskyActionRolled):
        what = f"{e.skill} + {e.attribute}" if e.skill else e.attribute
        head = "Montage" if e.montage else "Risky Action"
        line = (
            f"{e.character}: {head} {what}, {_pool('Light', e.light)}, {_pool('Dark', e.dark)}"
            f" → highest {e.highest}: {OUTCOME_TEXT[e.outcome]}"
        )
        if e.ego_lost or e.pooled:
            line += f"; Ego −{e.ego_lost} ({e.ego_before} → {e.ego_before - e.ego_lost})"
            if e.pooled:
                line += f", companions pay {e.pooled}"
        extras = []
        if e.montage and e.challenge:
            won = "overcome" if e.outcome != "fail" else "not overcome"
            extras.append(f"{e.challenge} {won}")
        if e.allies_rallied:
            extras.append(f"{e.allies_rallied} allies +1d (Rally)")
        if e.rivals_cursed:
            extras.append(f"{e.rivals_cursed} rivals −1d (Curse)")
        if e.extra_damage:
            extras.append(f"{e.extra_damage} extra Damage (Multi-attack)")
        return line + (f"; {', '.join(extras)}" if extras else "")
    if isinstance(e, ev.AttributeRolled):
        return f"{e.character}: {e.attribute} rolled {_faces(e.faces)} → {e.value}"
    if isinstance(e, ev.EffectRolled):
        explode = f" + explosions {_faces(e.explosions)}" if e.explosions else ""
        target = f" on {e.challenge}" if e.challenge else ""
        return f"{e.character}: Effect {e.code} {_faces(e.faces)}{explode} = {e.value}{target}"
    if isinstance(e, ev.ConsequenceRolled):
        explode = f" + explosions {_faces(e.explosions)}" if e.explosions else ""
        src = e.challenge or "a Challenge"
        line = f"{e.character}: {src} Effect {e.code} {_faces(e.faces)}{explode} = {e.value}"
        if e.consequence == "harm":
            if e.shield_sacrificed:
                return line + ", shield sacrificed: no damage"
            prot = f", Protected {_faces(e.protected)}" if e.protected else ""
            return line + f"{prot} → {e.damage} damage"
        if e.consequence == "complication":
            return line + f" → complication −{e.complication}d"
        if e.consequence == "fork":
            return line + f" → forks into the Challenge {e.fork}"
        return line + " (narrative consequence)"
    if isinstance(e, ev.FortuneRolled):
        return f"Fortune die for {e.character}: {e.face}" + (f" ({e.chances})" if e.chances else "")
    if isinstance(e, ev.AdvancementRolled):
        verdict = "Advancement" + (f": {e.advancement}" if e.advancement else " (to choose)")
        result = verdict if e.success else "no Advancement"
        return (
            f"{e.character}: Roll Advancement, {e.spent} Experience {_faces(e.faces)} = {e.total}"
            f" vs {e.threshold} → {result}"
        )
    if isinstance(e, ev.SkillDevelopmentRolled):
        result = f"{e.skill} {e.rating + 1}" if e.success else f"{e.skill} stays {e.rating}"
        return (
            f"{e.character}: Skill Development {e.skill}, {e.spent} Experience "
            f"{_faces(e.faces)} = {e.total} vs {e.threshold} → {result}"
        )
    if isinstance(e, ev.ExperienceGained):
        return f"{e.character}: +{e.amount} Experience (Ego lost in session {e.session})"
    if isinstance(e, ev.AdvancementChosen):
        return f"{e.character}: chooses the Advancement {e.advancement}"
    if isinstance(e, ev.ChallengeOpened):
        return f"{e.character} faces {e.challenge}: {_challenge_level(e.level, e.count)}"
    if isinstance(e, ev.ArchetypeEvolved):
        return f"{e.character} evolves beyond their Archetype: {e.narrative}"
    if isinstance(e, ev.SharedChallengeOpened):
        try:
            m.level_index(e.level)
        except RuleError:
            return f"The group faces {e.challenge}: {e.level}"
        return f"The group faces {e.challenge} together: {_challenge_level(e.level, e.count)}"
    if isinstance(e, ev.SharedDispositionReduced):
        by = f" by {e.by}" if e.by else ""
        roll = f" (roll {e.roll})" if e.roll else ""
        return f"Effect {e.amount}{by} on the shared Challenge {e.challenge}{roll}"
    if isinstance(e, ev.SharedChallengeClosed):
        return f"The group's Challenge {e.challenge}: {e.status}"
    if isinstance(e, ev.DispositionReduced):
        by = f" by {e.by}" if e.by else ""
        return f"{e.challenge} (facing {e.character}) loses {e.amount} Disposition{by}"
    if isinstance(e, ev.ChallengeClosed):
        return f"{e.character}: {e.challenge} {e.status}"
    if isinstance(e, ev.ComplicationAdded):
        return f"{e.character}: complication −{e.dice}d on the next action against {e.challenge}"
    if isinstance(e, ev.HarmTaken):
        return f"{e.character} takes harm: Effect {e.effect} before armour" + (
            ", shield sacrificed" if e.shield_sacrificed else ""
        )
    if isinstance(e, ev.AttributeLost):
        return f"{e.character} loses 1 {e.attribute} for good (Mortal Wound)"
    if isinstance(e, ev.ConditionTaken):
        detail = f" ({e.detail})" if e.detail else ""
        return f"{e.character} takes the Condition {e.condition}{detail}: Ego back to maximum"
    if isinstance(e, ev.RestedNight):
        return f"{e.character}: a well rested night"
    if isinstance(e, ev.WoundRecovered):
        return f"{e.character}: a week of rest with care, the Wound eases"
    if isinstance(e, ev.EgoPooled):
        return f"{e.character} pools {e.amount} Ego for {e.helped}'s Montage"
    if isinstance(e, ev.Rallied):
        return f"{e.character} is rallied" + (f" by {e.by}" if e.by else "") + ": +1d this scene"
    if isinstance(e, ev.EquipmentChanged):
        parts = []
        if e.armour is not None:
            parts.append(f"armour {e.armour}")
        if e.shield is not None:
            parts.append("shield" if e.shield else "no shield")
        if e.weapon:
            parts.append(f"{e.weapon} {e.code}" if e.code else f"drops {e.weapon}")
        return f"{e.character}: " + ", ".join(parts or ["equipment unchanged"])
    return None


def _challenge_level(name: str, count: int) -> str:
    """A Challenge's level as opened ("2.2 Challenges"): ganged-up level, Disposition and
    Effect, e.g. "Dangerous (Disposition 10, Effect 1d)"; the name as given when it is not
    a level the rules know."""
    try:
        level = m.ganged_level(m.level_index(name), count)
    except RuleError:
        return name
    many = f", {count} ganging up" if count > 1 else ""
    return (
        f"{m.level_name(level)}{many} "
        f"(Disposition {m.disposition_of(level)}, Effect {m.challenge_effect(level)})"
    )
