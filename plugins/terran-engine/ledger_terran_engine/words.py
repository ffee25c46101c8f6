"""What Terran Engine events and changes read like to a person (``log``, recaps, the web view).

Seed ``003_2aeb47bc6ca82a40.txt``; wording follows the rule text (Light/Dark Dice, Ego,
Effect, Disposition, Critically/Mortally Wounded): "1.3 HP and Ego", "1.4 Advancements",
"1.5 Conditions", "2.1 Risky Actions", "2.2 Challenges".

:class:`Words` gives one line per event (a :func:`ledger.describes` method per event type),
the sentences of :meth:`ledger.RuleSystem.describe_changes` ("HP 4 → 0: Critically Wounded,
−1d to every Light Dice Pool", "Exploration rose to 1", "Ego 2/4") and the notes a recap
shows beside an event (:meth:`Words.recap_lines`).
"""

from __future__ import annotations

from ledger import Recorded, RuleError, RuleSystem, describes

from . import events as ev
from . import state as st
from .rules import mechanics as m
from .state import Character, Options

OUTCOME_TEXT = {
    "fail": "fail, things get worse",
    "mixed": "success with consequences",
    "success": "success",
}
"""A Risky Action's outcome band in the rule text's words ("2.1", "Outcome")."""

HANDLED = (
    "id", "name", "rolled", "losses", "attribute_bonus", "skills", "advancements", "unchosen",
    "conditions", "hp", "ego", "wound", "lost", "experience", "credited", "spent",
    "ego_lost_session", "armour", "shield", "weapons", "challenges", "pending_loss", "rallied",
    "narratives", "owed_effects",
    "last_dark", "exchange_overcame", "exchange_taken_out", "successor_advancements",
    "last_outcome", "montage_effects", "session_sheets", "wound_rest",  # bookkeeping (T21, T22): not worded
)
"""Fields :meth:`Words.describe_changes` words itself (the rest get the generic wording of
:meth:`ledger.RuleSystem.generic_changes`); ``credited``, ``spent``, ``last_dark`` and
``exchange_*`` are bookkeeping for replay and never worded."""

WOUNDS = {
    "none": "no Wound",
    "critical": "Critically Wounded: −1d to every Light Dice Pool",
    "mortal": "Mortally Wounded: −2d to every Light Dice Pool, unconscious or inactive",
    "dead": "dead",
}
"""What each Wound does ("1.3.1 HP")."""


def _faces(faces: list[int]) -> str:
    return "[" + " ".join(str(f) for f in faces) + "]"


def _pool(tone: str, faces: list[int]) -> str:
    """One tone of a Risky Action's pool, named as the rule text names it ("2.1": Light Dice,
    Dark Dice) so the two read apart without colour: ``"Light dice [2 3 1]"``."""
    return f"{tone} dice {_faces(faces)}" if faces else f"no {tone} dice"


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


def _condition(c: st.Condition) -> str:
    detail = f" ({c.detail})" if c.detail else ""
    return f"takes the Condition {c.name}{detail}"


class Words(RuleSystem[Character, Options]):
    """One line per Terran Engine event, what changed on a character, and recap notes."""

    # --- rolls ("2.1", "2.2.1", "2.3", "1.2", "1.4") ------------------------------------

    @describes(ev.RiskyActionRolled)
    def _risky_action(self, e: ev.RiskyActionRolled) -> str:
        """The pool by tone, the highest die and its band, the Ego it cost ("2.1", "2.2.2")."""
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

    @describes(ev.AttributeRolled)
    def _attribute_rolled(self, e: ev.AttributeRolled) -> str:
        """The two creation dice and the value they give ("1.2 Attributes")."""
        return f"{e.character}: {e.attribute} rolled {_faces(e.faces)} → {e.value}"

    @describes(ev.EffectRolled)
    def _effect(self, e: ev.EffectRolled) -> str:
        """The Effect dice, their explosions and the value ("2.2.1 Effects")."""
        explode = f" + explosions {_faces(e.explosions)}" if e.explosions else ""
        target = f" on {e.challenge}" if e.challenge else ""
        return f"{e.character}: Effect {e.code} {_faces(e.faces)}{explode} = {e.value}{target}"

    @describes(ev.ConsequenceRolled)
    def _consequence(self, e: ev.ConsequenceRolled) -> str:
        """A Challenge's Effect and what it does: damage, complication, fork ("2.2.1")."""
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

    @describes(ev.FortuneRolled)
    def _fortune(self, e: ev.FortuneRolled) -> str:
        """The Fortune die and the chances the GM stated ("2.3")."""
        return f"Fortune die for {e.character}: {e.face}" + (f" ({e.chances})" if e.chances else "")

    @describes(ev.AdvancementRolled)
    def _advancement_rolled(self, e: ev.AdvancementRolled) -> str:
        """Roll Advancement: the dice, their sum against the threshold ("1.4")."""
        verdict = "Advancement" + (f": {e.advancement}" if e.advancement else " (to choose)")
        result = verdict if e.success else "no Advancement"
        return (
            f"{e.character}: Roll Advancement, {e.spent} Experience {_faces(e.faces)} = {e.total}"
            f" vs {e.threshold} → {result}"
        )

    @describes(ev.SkillDevelopmentRolled)
    def _skill_development(self, e: ev.SkillDevelopmentRolled) -> str:
        """Skill Development: the dice, their sum against 3 × the rating ("1.4")."""
        result = f"{e.skill} {e.rating + 1}" if e.success else f"{e.skill} stays {e.rating}"
        return (
            f"{e.character}: Skill Development {e.skill}, {e.spent} Experience "
            f"{_faces(e.faces)} = {e.total} vs {e.threshold} → {result}"
        )

    # --- growth ("1.1", "1.4") ----------------------------------------------------------------

    # --- Challenges ("2.2") ---------------------------------------------------------------

    @describes(ev.ChallengeOpened)
    def _challenge_opened(self, e: ev.ChallengeOpened) -> str:
        """A Challenge with its level, Disposition and Effect ("2.2")."""
        return f"{e.character} faces {e.challenge}: {_challenge_level(e.level, e.count)}"

    @describes(ev.SharedChallengeOpened)
    def _shared_challenge_opened(self, e: ev.SharedChallengeOpened) -> str:
        """The group's Challenge ("2.2"; T25); an unknown level is shown as given."""
        try:
            m.level_index(e.level)
        except RuleError:
            return f"The group faces {e.challenge}: {e.level}"
        return f"The group faces {e.challenge} together: {_challenge_level(e.level, e.count)}"

    # --- HP, Ego and gear ("1.3", "1.5", "2.2.1", "2.2.2") ------------------------------------

    @describes(ev.EquipmentChanged)
    def _equipment(self, e: ev.EquipmentChanged) -> str:
        """Armour, shield or a weapon changed ("2.2.1" tables)."""
        parts = []
        if e.armour is not None:
            parts.append(f"armour {e.armour}")
        if e.shield is not None:
            parts.append("shield" if e.shield else "no shield")
        if e.weapon:
            parts.append(f"{e.weapon} {e.code}" if e.code else f"drops {e.weapon}")
        return f"{e.character}: " + ", ".join(parts or ["equipment unchanged"])

    # --- changes and recap notes ------------------------------------------------------------

    def recap_lines(self, record: Recorded, *, as_gm: bool) -> list[str]:
        """Rule notes for a recap: Ego lost becomes Experience ("1.4 Advancements")."""
        event = record.data
        notes = []
        if isinstance(event, ev.RiskyActionRolled) and event.ego_lost:
            notes.append(
                f"{event.ego_lost} Ego lost: it becomes Experience at the end of the session"
            )
        return notes

    def describe_changes(
        self, before: Character | None, after: Character, *, as_gm: bool
    ) -> list[str]:
        """What changed on a character in the rule text's words: Attributes, Skills and
        Advancements ("1.2", "1.4"), Conditions ("1.5"), HP and Ego against their maxima and
        Wounds with their −d ("1.3"), Experience, gear ("2.2.1"), Challenges ("2.2"); the
        fields outside :data:`HANDLED` in the generic wording."""
        if before is None:
            return [f"{after.name} joins the party"]
        out: list[str] = []
        for attr in m.ATTRIBUTES:
            old, new = st.attribute(before, attr), st.attribute(after, attr)
            if new is not None and old is None:
                out.append(f"{attr} rolled: {new}")
            elif new is not None and old is not None and new != old:
                verb = "rose" if new > old else "fell"
                out.append(f"{attr} {verb} to {new}")
        for skill, rating in after.skills.items():
            was = before.skills.get(skill, 0)  # a Skill never developed is rated 0 ("1.2.1")
            if was != rating:
                out.append(f"{skill} {'rose' if rating > was else 'fell'} to {rating}")
        out.extend(f"Advancement: {a}" for a in after.advancements if a not in before.advancements)
        if after.unchosen > before.unchosen:
            out.append(f"{after.unchosen} Advancement(s) to choose")
        old_c = [c.name for c in before.conditions]
        out.extend(_condition(c) for c in after.conditions if c.name not in old_c)
        hp_max, old_hp_max = st.hp_max(after), st.hp_max(before)
        if (after.hp, hp_max) != (before.hp, old_hp_max):
            out.append(f"HP {before.hp} → {after.hp} (of {hp_max})")
        ego_max, old_ego_max = st.ego_max(after), st.ego_max(before)
        if (after.ego, ego_max) != (before.ego, old_ego_max):
            out.append(f"Ego {before.ego} → {after.ego} (of {ego_max})")
        if after.wound != before.wound:
            out.append(WOUNDS[after.wound] if after.wound != "none"
                       else f"no longer {WOUNDS[before.wound].split(':')[0]}")
        if after.lost and not before.lost:
            out.append("lost: Ego reached 0 (1.3.2 Ego)")
        if after.pending_loss > before.pending_loss:
            out.append(f"must lose {after.pending_loss} Attribute point(s) permanently")
        if after.experience != before.experience:
            out.append(f"Experience {before.experience} → {after.experience}")
        if (after.armour, after.shield) != (before.armour, before.shield):
            if after.armour != before.armour:
                out.append(f"armour: {after.armour}")
            if after.shield != before.shield:
                out.append("shield ready" if after.shield else "shield gone (sacrificed or lost)")
        for w, effect in after.weapons.items():
            if before.weapons.get(w) != effect:
                out.append(f"weapon {w} ({effect})")
        out.extend(f"weapon {w} gone" for w in before.weapons if w not in after.weapons)
        old_ch = {c.name: c for c in before.challenges}
        for c in after.challenges:
            was_c = old_ch.get(c.name)
            if c.status != "open" and (was_c is None or was_c.status == "open"):
                out.append(f"Challenge {c.name} {c.status}")
            elif c.status == "open" and was_c is None:
                group = " with the group" if c.shared else ""
                out.append(
                    f"faces {c.name}{group} ({m.level_name(c.level)}, Disposition {c.disposition})"
                )
            if was_c is not None and c.disposition != was_c.disposition:
                out.append(f"{c.name}'s Disposition {was_c.disposition} → {c.disposition}")
        if after.narratives != before.narratives and after.narratives:
            out.append(f"evolves beyond the {after.archetype} Archetype: {after.narratives[-1]}")
        if after.rallied and not before.rallied:
            out.append("rallied: +1d until the end of the scene")
        if after.successor_advancements > before.successor_advancements:
            out.append(f"retires: a successor starts with {after.successor_advancements} "
                       "Advancement(s)")
        return [s[:1].upper() + s[1:] for s in out] + self.generic_changes(
            before, after, skip=HANDLED
        )
