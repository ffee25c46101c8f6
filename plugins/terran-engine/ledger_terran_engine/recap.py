"""What a Terran Engine event means at the table, and what changed on a character, in the
rule text's words (003_2aeb47bc6ca82a40.txt): "1.3 HP and Ego", "1.4 Advancements",
"1.5 Conditions", "2.1 Risky Actions", "2.2 Challenges".

:func:`recap_notes` gives the notes a recap shows beside an event; :func:`change_sentences`
the sentences of :meth:`ledger.RuleSystem.describe_changes` ("HP 4 → 0: Critically Wounded,
−1d to every Light Dice Pool", "Exploration rose to 1", "Ego 2/4").
"""

from __future__ import annotations

from typing import Any

from . import mechanics as m
from . import state as st
from .events import RiskyActionRolled
from .state import Character

HANDLED = (
    "id", "name", "rolled", "losses", "attribute_bonus", "skills", "advancements", "unchosen",
    "conditions", "hp", "ego", "wound", "lost", "experience", "credited", "spent",
    "ego_lost_session", "armour", "shield", "weapons", "challenges", "pending_loss", "rallied",
    "narratives", "owed_effects",
    "last_dark", "exchange_overcame", "exchange_taken_out", "successor_advancements",
    "last_outcome", "montage_effects", "session_sheets",  # bookkeeping (T21, T22): not worded
)
"""Fields :func:`change_sentences` words itself (the rest get the generic wording of
:meth:`ledger.RuleSystem.generic_changes`); ``credited``, ``spent``, ``last_dark`` and
``exchange_*`` are bookkeeping for replay and never worded."""

WOUNDS = {
    "none": "no Wound",
    "critical": "Critically Wounded: −1d to every Light Dice Pool",
    "mortal": "Mortally Wounded: −2d to every Light Dice Pool, unconscious or inactive",
    "dead": "dead",
}
"""What each Wound does ("1.3.1 HP")."""


def recap_notes(record: Any) -> list[str]:
    """Rule notes for one recorded event (``[]`` when there is nothing to add)."""
    event = record.data
    notes = []
    if isinstance(event, RiskyActionRolled) and event.ego_lost:
        notes.append(f"{event.ego_lost} Ego lost: it becomes Experience at the end of the session")
    return notes


def _condition(c: st.Condition) -> str:
    detail = f" ({c.detail})" if c.detail else ""
    return f"takes the Condition {c.name}{detail}"


def change_sentences(before: Character | None, after: Character, *, as_gm: bool) -> list[str]:
    """What changed between two states of one character, as sentences (see module doc);
    fields outside :data:`HANDLED` are left to the generic wording."""
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
    return [s[:1].upper() + s[1:] for s in out]
