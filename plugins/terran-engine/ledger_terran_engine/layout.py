"""A Terran Engine character sheet as a person reads it (``RuleSystem.sheet_layout``).

Source: 001_a3a02f9b7363775f.txt (digest /work/shared/rules/terran-engine.md): "1.2
Attributes", "1.2.1 Skills", "1.3 HP and Ego" (Critically Wounded −1d, Mortally Wounded
−2d to the Light Dice pool; Ego 0: lost), "1.4" (Experience, Advancements, Retire), "1.5
Conditions", "2.2 Challenges" (Disposition, complications), armour and shields. The Terran
Engine has no GM-only facts: both views are the same.
"""

from __future__ import annotations

from ledger import Line, Section, Sheet, Track

from . import mechanics as m
from . import state as st
from .state import Character

ARMOUR = {
    "light": ("light armour", "−1 damage taken"),
    "heavy": ("heavy armour", "−2 damage taken; −1d to run, observe, sneak and swim"),
}

#: What a Condition does, in the book's words ("1.5 Conditions"); others carry no rule.
CONDITION_EFFECTS = {
    "Fear-Driven Vigilance": "−1d in fear-related situations",
    "Moral Reservations": "−1d when acting against the moral code",
    "Protective Instinct": "−1d when an ally is in danger",
    "Estranged": "Ego max −1",
    "Slow": "a Challenge's consequences land before your own effects",
}


def sheet_layout(state: Character, *, system_name: str, as_gm: bool) -> Sheet:
    """The sheet: what stops the character first (wounds, lost, retired, choices owed), HP
    and Ego drawn as boxes, Attributes, Skills by rating, Advancements, Conditions,
    Experience toward the next Advancement roll, gear and open Challenges."""
    sections: list[Section] = []
    hp_max, ego_max = st.hp_max(state), st.ego_max(state)

    status: list[Line] = []
    if state.wound == "dead":
        status.append(Line(label="Dead", tone="bad"))
    elif state.wound == "critical":
        status.append(
            Line(label="Critically Wounded", note="−1d to every Light Dice pool", tone="bad")
        )
    elif state.wound == "mortal":
        status.append(
            Line(
                label="Mortally Wounded",
                note="unconscious; −2d to every Light Dice pool",
                tone="bad",
            )
        )
    if state.lost:
        status.append(Line(label="Lost", note="Ego reached 0", tone="bad"))
    if st.retired(state):
        status.append(Line(label="Retired", note="the story ends", tone="muted"))
    if state.pending_loss:
        status.append(
            Line(
                label="Attribute points to lose",
                value=str(state.pending_loss),
                note="a Mortal Wound: the player chooses the Attribute",
                tone="bad",
            )
        )
    if state.unchosen:
        status.append(Line(label="Advancements to choose", value=str(state.unchosen), tone="good"))
    if state.rallied:
        status.append(Line(label="Rallied", note="+1d until the end of the scene", tone="good"))
    sections.append(Section(title="Status", items=tuple(status)))

    sections.append(
        Section(
            title="HP and Ego",
            note="Each Dark Die showing your Ego or less costs 1 Ego.",
            items=(
                Track(label="HP", marked=state.hp, boxes=hp_max, note=f"{state.hp} of {hp_max}"),
                Track(
                    label="Ego", marked=state.ego, boxes=ego_max, note=f"{state.ego} of {ego_max}"
                ),
            ),
        )
    )

    attributes = tuple(
        Line(label=a, value=str(st.attribute(state, a)))
        for a in m.ATTRIBUTES
        if st.attribute(state, a) is not None
    )
    sections.append(Section(title="Attributes", items=attributes))

    skills = sorted(state.skills.items(), key=lambda kv: (-kv[1], kv[0]))
    sections.append(
        Section(title="Skills", items=tuple(Line(label=s, value=str(r)) for s, r in skills))
    )

    advancements = tuple(
        Line(label=st.advancement_name(a), value=st.advancement_detail(a))
        for a in state.advancements
    )
    sections.append(Section(title="Advancements", items=advancements))

    conditions = []
    for c in state.conditions:
        if c.focus:
            effect = f"+1d to {c.focus}"
            if c.neglected:
                effect += f"; −1d to {', '.join(c.neglected)}"
        else:
            effect = CONDITION_EFFECTS.get(c.name, "")
        conditions.append(Line(label=c.name, value=c.detail, note=effect))
    sections.append(Section(title="Conditions", items=tuple(conditions)))

    threshold = m.advancement_threshold(ego_max, hp_max)
    growth = [
        Line(
            label="Experience",
            value=str(state.experience),
            note=f"an Advancement roll must reach {threshold}",
        ),
    ]
    if state.ego_lost_session:
        growth.append(
            Line(
                label="Ego lost this session",
                value=str(state.ego_lost_session),
                note="becomes Experience when the session ends",
            )
        )
    if state.successor_advancements:
        growth.append(
            Line(label="Successor's Advancements", value=str(state.successor_advancements))
        )
    sections.append(Section(title="Experience", items=tuple(growth)))

    gear: list[Line] = []
    if state.armour in ARMOUR:
        name, effect = ARMOUR[state.armour]
        gear.append(Line(label=name.capitalize(), note=effect))
    if state.shield:
        gear.append(Line(label="Shield", note="−1 damage taken"))
    for weapon, dice in state.weapons.items():
        gear.append(Line(label=weapon.capitalize(), value=f"damage {dice}"))
    sections.append(Section(title="Gear", items=tuple(gear)))

    challenges = []
    for ch in state.challenges:
        if ch.status != "open":
            continue
        note = (
            f"complication −{ch.complication}d on the next related Risky Action"
            if ch.complication
            else ""
        )
        if ch.shared:
            note = "shared by the group" + (f"; {note}" if note else "")
        challenges.append(
            Line(
                label=ch.name,
                value=f"{m.level_name(ch.level)}, Disposition {ch.disposition}",
                note=note,
            )
        )
    sections.append(Section(title="Challenges", items=tuple(challenges)))

    return Sheet(
        title=state.name,
        subtitle=f"{system_name} · {state.archetype}"
        + (f", evolved beyond it: {state.narratives[-1]}" if state.narratives else ""),
        sections=tuple(s for s in sections if s.items),
        as_gm=as_gm,
    )
