"""The parts of a d20 The World character sheet as a person reads it
(:meth:`ledger_d20_world.sheet.SheetRules.sheet_layout`).

Source: 001_a3a02f9b7363775f.txt (rulings: docs/rulings/d20-world.md): "Skills"
(proficiency, experience 10 + proficiency), "Learning Skills", "Traits", "Bonds" (favor is
known to The World only: GM-only, ruling R11), "Wounds" (−1 to checks per point of wound
damage, dead past five, shock on 1d6 ≤ the total), "Conditions" (hidden conditions are the
GM's, ruling R33), "Magic" ("Jinx": −1 per jinx to spell checks), "Inventory" (five carried
items, a bag), "Objectives".
"""

from __future__ import annotations

from ledger import Line, Section, Track, signed, span_words

from ..rules.mechanics import xp_threshold
from ..rules.ops import capacity, condition_penalty, hidden_penalty, wound_total
from ..state import Bond, Character, Condition, Item, Trait

#: Wound damage a character survives ("Wounds": dead when the total is more than five).
DEATH_AFTER = 5


def trait_line(trait: Trait) -> Line:
    """A trait and what it is spent for until a natural 1 or 20 ("Traits"); a corruption of
    magic marked bad (ruling R40)."""
    spent = [
        word for word, ok in (("help", trait.can_help), ("hinder", trait.can_hinder)) if not ok
    ]
    note = f"used to {' and '.join(spent)}: again after a natural 1 or 20" if spent else ""
    if trait.kind == "corruption":  # "the lasting corruption of magic" ("Traits", R40)
        source = f" from {trait.spell}" if trait.spell else ""
        note = "; ".join(n for n in (f"lasting{source}", note) if n)
        return Line(label=trait.name, value="corruption of magic", note=note, tone="bad")
    return Line(label=trait.name, value=trait.kind, note=note, tone="muted" if spent else "")


def bond_line(bond: Bond, as_gm: bool) -> Line:
    """A bond; its favor only in The World's layout, marked GM-only ("Bonds", ruling R11)."""
    kind = bond.kind
    if not as_gm:
        return Line(label=bond.name, value=kind)
    feeling = "friendly" if bond.favor > 0 else "hostile" if bond.favor < 0 else "neutral"
    return Line(
        label=bond.name, value=kind, note=f"favor {signed(bond.favor)} ({feeling})", gm_only=True
    )


def condition_line(condition: Condition, clock: int = 0) -> Line:
    """A condition and what it does now ("Conditions"); a hidden one marked GM-only (R33);
    one with a temporal deadline says how long is left on the in-fiction ``clock``
    ("sick: 2 h left")."""
    effects = []
    if condition.check_penalty:
        effects.append(f"{signed(-condition.check_penalty)} to all checks")
    if condition.capacity_delta:
        effects.append(f"carry {signed(condition.capacity_delta)}")
    if condition.ends_when:
        effects.append(f"until {condition.ends_when}")
    if condition.ends_at is not None:
        effects.append(f"{span_words(condition.ends_at - clock)} left")
    return Line(
        label=condition.name, value="; ".join(effects), tone="bad", gm_only=condition.hidden
    )


def item_line(item: Item) -> Line:
    """An item with its purpose, weapon and armour values ("Inventory", "Weapons",
    "Armor"); broken or destroyed marked bad."""
    notes = []
    if item.for_skill:
        notes.append(f"for {item.for_skill}")
    if item.for_bond:
        notes.append(f"from {item.for_bond}")
    if item.damage is not None:
        notes.append(f"damage {item.damage}")
    if item.harm:
        notes.append(item.harm)
    if item.range:
        notes.append(f"range {item.range}")
    if item.protects_against:
        notes.append(f"protects against {item.protects_against}")
    if item.durability is not None:
        most = f"/{item.max_durability}" if item.max_durability is not None else ""
        notes.append(f"durability {item.durability}{most}")
    for flag in ("bulky", "consumable"):
        if getattr(item, flag):
            notes.append(flag)
    tone = ""
    if item.destroyed:
        notes.insert(0, "destroyed")
        tone = "bad"
    elif item.broken:
        notes.insert(0, "broken")
        tone = "bad"
    return Line(label=item.name, value=", ".join(notes), tone=tone)


def harm_section(state: Character, *, as_gm: bool) -> Section:
    """Wounds drawn against death ("Wounds"), the shock roll owed, conditions and jinx with
    what they take from checks now ("Conditions", "Jinx"); hidden conditions only with
    ``as_gm``, marked GM-only (ruling R33)."""
    harm: list[Line | Track] = []
    if state.dead:
        harm.append(Line(label="Dead", note="more than five wound damage", tone="bad"))
    total = wound_total(state)
    harm.append(
        Track(
            label="Wounds",
            marked=total,
            boxes=DEATH_AFTER,
            note=f"{signed(-total)} to all checks" if total else "unhurt",
        )
    )
    for wound in state.wounds:
        harm.append(
            Line(
                label=f"Wound {wound.number}",
                value=f"{wound.damage} damage",
                note=wound.description,
                tone="bad",
            )
        )
    if state.pending_shock:
        harm.append(
            Line(
                label="Shock roll owed", note=f"shock on 1d6 of {min(total, 6)} or less", tone="bad"
            )
        )
    if state.shocks:
        harm.append(Line(label="Shocks suffered", value=str(state.shocks)))
    for condition in state.conditions:
        if condition.hidden and not as_gm:
            continue
        harm.append(condition_line(condition, state.clock))
    if state.jinx:
        harm.append(
            Line(
                label="Jinx",
                value=str(state.jinx),
                note=f"{signed(-state.jinx)} to spell checks; a rest recovers half",
                tone="bad",
            )
        )
    public = condition_penalty(state)
    secret = hidden_penalty(state) if as_gm else 0
    parts = [f"wounds {signed(-total)}"] if total else []
    if public:
        parts.append(f"conditions {signed(-public)}")
    if secret:
        parts.append(f"hidden conditions {signed(-secret)}")
    if total + public + secret:
        harm.append(
            Line(
                label="Checks now",
                value=signed(-(total + public + secret)),
                note=", ".join(parts),
                tone="bad",
                gm_only=bool(secret),
            )
        )
    return Section(title="Wounds and conditions", items=tuple(harm))


def skills_section(state: Character) -> Section:
    """Skills by proficiency with experience toward the next rise ("Skills"), skills being
    learned last ("Learning Skills")."""
    skills: list[Line] = []
    for skill in sorted(state.skills, key=lambda s: (not s.known, -s.proficiency, s.name)):
        need = xp_threshold(skill)
        if not skill.known:
            skills.append(
                Line(
                    label=skill.name,
                    value="learning",
                    note=f"experience {skill.experience}/{need} to learn it",
                    tone="muted",
                )
            )
            continue
        kind = " (spell)" if skill.spell else ""
        note = f"experience {skill.experience}/{need}"
        if skill.via_bond:
            note += f"; from {skill.via_bond}"
        skills.append(Line(label=skill.name + kind, value=signed(skill.proficiency), note=note))
    return Section(title="Skills", items=tuple(skills))


def inventory_sections(state: Character) -> tuple[Section, Section]:
    """What is carried, with the carried boxes, and what is in the bag ("Inventory")."""
    carried = sum(1 for i in state.items if i.location == "carried")
    room = capacity(state)
    on_person: list[Line | Track] = [
        Track(
            label="Slots",
            marked=carried,
            boxes=room,
            note="over capacity" if carried > room else f"{room - carried} free",
        )
    ]
    on_person += [item_line(i) for i in state.items if i.location == "carried"]
    bag = [item_line(i) for i in state.items if i.location == "bag"]
    if not state.has_bag:
        bag.append(Line(label="No bag", tone="muted"))
    return (Section(title="Carried", items=tuple(on_person)),
            Section(title="In the bag", items=tuple(bag)))


def objectives_section(state: Character) -> Section:
    """Objectives with their good, messy and bad checks, close calls and skills used
    ("Objectives"); a shared one says whose check each skill was (ruling R43)."""
    goals: list[Line] = []
    for o in state.objectives:
        counts = f"good {o.good}/{o.required_good}"
        if o.messy:
            counts += f", messy {o.messy}"
        if o.bad:
            counts += f", bad {o.bad}"
        notes = [counts]
        if o.deadline and o.status == "open":
            notes.append(f"by {o.deadline}")
            if o.due_at is not None:  # a deadline by the clock
                notes.append(f"{span_words(o.due_at - state.clock)} left")
        if o.skills_used and o.group:  # whose check each was (ruling R43)
            notes.append("skills used: " + ", ".join(
                f"{skill} ({who})" for skill, who in zip(o.skills_used, o.contributors,
                                                         strict=False)))
        elif o.skills_used:
            notes.append("skills used: " + ", ".join(o.skills_used))
        if o.close_calls:
            notes.append(f"close calls {o.close_calls}/3")
        if o.reason:
            notes.append(o.reason)
        tone = {"completed": "good", "failed": "bad"}.get(o.status, "")
        label = f"{o.name} (shared)" if o.group else o.name
        goals.append(Line(label=label, value=o.status, note="; ".join(notes), tone=tone))
    return Section(title="Objectives", items=tuple(goals))
