"""Appliers of d20-world: pure ``(state, event) -> state`` functions (seed
001_a3a02f9b7363775f.txt). Each refuses an event that is impossible for the state with
:class:`ledger.RuleError`, so the engine never writes it.
"""

from __future__ import annotations

import msgspec

from ledger import (
    RuleError,
    RuleSystem,
    SceneEnded,
    SessionEnded,
    TimePassed,
    applies,
    applying_seq,
    parse_duration,
)

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
from .rules.mechanics import add_experience, contribute, damage_dealt, jinx_recovered, xp_threshold
from .rules.ops import find, heal, is_self, need, replace_at, take_harm, with_items
from .sheet.creation import starting_favor
from .state import (
    Bond,
    Character,
    Condition,
    GroupCheck,
    Item,
    Objective,
    Options,
    Skill,
    Trait,
)

replace = msgspec.structs.replace


def _expire(state: Character, ends: tuple[str, ...]) -> Character:
    """``state`` without the conditions whose ``ends_on`` is one of ``ends``."""
    if not state.conditions:  # most states at most scene ends
        return state
    kept = tuple(c for c in state.conditions if c.ends_on not in ends)
    return state if len(kept) == len(state.conditions) else replace(state, conditions=kept)


def _ends_at(state: Character, lasts: int | msgspec.UnsetType) -> int | None:
    """When a condition lasting ``lasts`` minutes ends on ``state``'s clock."""
    if lasts is msgspec.UNSET:
        return None
    if lasts < 1:
        raise RuleError(f"a condition lasts 1 minute or more, not {lasts}")
    return state.clock + lasts


def _due_at(state: Character, deadline: str) -> int | None:
    """When an objective whose ``deadline`` is a duration ("3d", "6 hours") is due on
    ``state``'s clock; ``None`` for a deadline in words ("before the moon sets")."""
    try:
        minutes, _ = parse_duration(deadline) if deadline.strip() else (0, False)
    except RuleError:
        return None
    return state.clock + minutes if minutes else None


class Appliers(RuleSystem[Character, Options]):
    """Mixin of :class:`ledger_d20_world.system.D20World` holding every applier."""

    # --- checks and experience ------------------------------------------------------------

    def _marked(self, skills: tuple[Skill, ...], skill: str, amount: int) -> tuple[Skill, ...]:
        """``skills`` after marking experience on ``skill`` (added at proficiency 0 when
        practised, "Learning Skills"); the increase is immediate unless deferred (ruling
        R16). The caller puts the result into its own single ``replace``."""
        i = find(skills, skill)
        current = skills[i] if i is not None else Skill(
            name=skill.strip(), proficiency=0, known=False)
        new = add_experience(current, amount,
                             increase=not self.options.defer_skill_increase_to_session_end)
        return replace_at(skills, i, new) if i is not None else (*skills, new)

    def _mark(self, state: Character, skill: str, amount: int) -> Character:
        """``state`` with experience marked on ``skill`` ("Skills", "Learning Skills"; ruling
        R16): :meth:`_marked`, in one ``replace`` of the state."""
        return replace(state, skills=self._marked(state.skills, skill, amount))

    @applies(CheckRolled)
    def on_check(self, state: Character, ev: CheckRolled) -> Character:
        """A check ("Checks"): trait flags cleared by invocation, then restored by a natural
        20 (help) or natural 1 (hinder) ("Natural 1 & 20"); experience marked; a spell adds
        one jinx after the check (ruling R7); the objective gets its contribution."""
        if state.dead:
            raise RuleError(f"{state.name} has perished and cannot make checks")
        if ev.gate in ("auto_fail", "auto_success"):
            return replace(state, jinx=state.jinx + 1) if ev.spell else state
        # every change below goes into one ``replace`` of the state
        traits = state.traits
        for inv in ev.invocations:
            i = need(traits, inv.trait, "trait", state.name)
            t = traits[i]
            if inv.mode == "help":
                if not t.can_help:
                    raise RuleError(f"{t.name} cannot be invoked to help until a natural 20")
                t = replace(t, can_help=False)
            else:
                if not t.can_hinder:
                    raise RuleError(f"{t.name} cannot be invoked to hinder until a natural 1")
                t = replace(t, can_hinder=False)
            traits = replace_at(traits, i, t)
        if ev.kept == 20:
            traits = tuple(t if t.can_help else replace(t, can_help=True) for t in traits)
        if ev.kept == 1:
            traits = tuple(t if t.can_hinder else replace(t, can_hinder=True) for t in traits)
        skills = self._marked(state.skills, ev.skill, ev.experience)
        jinx = state.jinx + 1 if ev.spell else state.jinx
        state = replace(state, traits=traits, skills=skills, jinx=jinx)
        if ev.objective:
            k = find(state.objectives, ev.objective)
            if k is not None and state.objectives[k].group:  # counted by its batch (R43)
                entry = GroupCheck(check=applying_seq() or 0, objective=state.objectives[k].name,
                                   skill=ev.skill, outcome=ev.outcome)
                state = replace(state, group_checks=(*state.group_checks, entry))
            else:
                state = self._contribute(state, ev.objective, ev.skill, ev.outcome)
        return state

    @applies(ExperienceMarked)
    def on_experience(self, state: Character, ev: ExperienceMarked) -> Character:
        """Experience marked by hand ("Skills"); unknown spells cannot be practised (R13)."""
        return self._mark(state, ev.skill, ev.amount)

    @applies(SkillIncreased)
    def on_increase(self, state: Character, ev: SkillIncreased) -> Character:
        """A deferred increase ("Skills"): only when experience reached 10 + proficiency."""
        i = need(state.skills, ev.skill, "skill", state.name)
        s = state.skills[i]
        if s.experience < xp_threshold(s) or ev.proficiency != s.proficiency + 1:
            raise RuleError(
                f"{s.name} has {s.experience} of {xp_threshold(s)} experience at "
                f"+{s.proficiency}: it cannot rise to +{ev.proficiency} now"
            )
        new = replace(s, proficiency=ev.proficiency, experience=0, known=True)
        return replace(state, skills=replace_at(state.skills, i, new))

    # --- bonds ----------------------------------------------------------------------------

    @applies(FavourChanged)
    def on_favour(self, state: Character, ev: FavourChanged) -> Character:
        """Favor += delta ("Bonds"); GM-only event, so the state is the GM's view."""
        i = need(state.bonds, ev.bond, "bond", state.name)
        b = state.bonds[i]
        new = replace(b, favor=b.favor + ev.delta)
        return replace(state, bonds=replace_at(state.bonds, i, new), gm_view=True)

    @applies(BondCalled)
    def on_bond_called(self, state: Character, ev: BondCalled) -> Character:
        """Calling upon a bond ("Bonds"): recorded; the bond must exist."""
        need(state.bonds, ev.bond, "bond", state.name)
        return replace(state, bonds_called=state.bonds_called + 1)

    # --- growth after creation -----------------------------------------------------

    def _gain_trait(self, state: Character, trait: Trait) -> Character:
        if not trait.name:
            raise RuleError("name the trait, e.g. 'Scarred hands'")
        i = find(state.traits, trait.name)
        if i is not None:
            raise RuleError(f"{state.name} already has the trait {state.traits[i].name!r}")
        return replace(state, traits=(*state.traits, trait))

    @applies(TraitGained)
    def on_trait_gained(self, state: Character, ev: TraitGained) -> Character:
        """A trait gained in play ("Traits"; ruling R39): ready to help and to hinder; one
        the character already has (any case) is refused."""
        return self._gain_trait(state, Trait(name=ev.trait.strip(), kind=ev.kind))

    @applies(CorruptionMarked)
    def on_corruption(self, state: Character, ev: CorruptionMarked) -> Character:
        """"The lasting corruption of magic" as a trait ("Traits"; ruling R40). A ``spell``
        named must be one the character knows ("You can cast a spell if you know it")."""
        spell = ""
        if ev.spell.strip():
            i = need(state.skills, ev.spell, "spell", state.name)
            s = state.skills[i]
            if not (s.spell and s.known):
                raise RuleError(
                    f"{s.name} is not a spell {state.name} knows: name the spell whose "
                    "casting left the corruption, or name no spell"
                )
            spell = s.name
        trait = Trait(name=ev.trait.strip(), kind="corruption", spell=spell)
        return self._gain_trait(state, trait)

    @applies(TraitLost)
    def on_trait_lost(self, state: Character, ev: TraitLost) -> Character:
        """A trait lost (ruling R39): it must be one the character has; a lasting
        corruption of magic only with a ``reason`` (ruling R40)."""
        i = need(state.traits, ev.trait, "trait", state.name)
        t = state.traits[i]
        if t.kind == "corruption" and not ev.reason.strip():
            raise RuleError(
                f"{t.name} is a lasting corruption of magic (Traits): say what lifts it "
                "(the reason)"
            )
        return replace(state, traits=state.traits[:i] + state.traits[i + 1:])

    @applies(BondFormed)
    def on_bond_formed(self, state: Character, ev: BondFormed) -> Character:
        """A new bond ("Bonds"; ruling R41) with a faction or non-player character, never
        the character themself nor a bond they have; favor starts by kind (ruling R11)."""
        name = ev.bond.strip()
        if not name:
            raise RuleError("name the bond, e.g. 'the Lamplighters'")
        if is_self(name, state.id, state.name):
            raise RuleError(
                f"{state.name} cannot form a bond with themself: bonds are \"relationships "
                "with factions and non-player characters\" (Bonds)"
            )
        i = find(state.bonds, name)
        if i is not None:
            raise RuleError(
                f"{state.name} already has a bond with {state.bonds[i].name!r}: The World "
                "changes its favor with favour-changed"
            )
        bond = Bond(name=name, kind=ev.kind, favor=starting_favor(ev.kind))
        return replace(state, bonds=(*state.bonds, bond))

    # --- inventory ------------------------------------------------------------------------

    @applies(ItemAdded)
    def on_item_added(self, state: Character, ev: ItemAdded) -> Character:
        """A new item ("Inventory"): capacity, bag and one-bulky rules enforced."""
        if find(state.items, ev.item) is not None:
            raise RuleError(f"{state.name} already has an item called {ev.item!r}: name it "
                            "differently")
        if ev.durability is not None and ev.durability < 0:
            raise RuleError(f"durability must be 0 or more, not {ev.durability}")
        item = Item(name=ev.item.strip(), location=ev.location, bulky=ev.bulky,
                    consumable=ev.consumable, durability=ev.durability,
                    max_durability=ev.durability, protects_against=ev.protects_against,
                    broken=ev.durability == 0, damage=ev.damage, range=ev.range, harm=ev.harm)
        return with_items(state, (*state.items, item))

    @applies(ItemRemoved)
    def on_item_removed(self, state: Character, ev: ItemRemoved) -> Character:
        """An item used up, dropped or lost."""
        i = need(state.items, ev.item, "item", state.name)
        return replace(state, items=state.items[:i] + state.items[i + 1:])

    @applies(ItemMoved)
    def on_item_moved(self, state: Character, ev: ItemMoved) -> Character:
        """An item moved to hand or bag ("Inventory")."""
        i = need(state.items, ev.item, "item", state.name)
        it = state.items[i]
        if it.location == ev.to:
            where = "carried" if ev.to == "carried" else "in the bag"
            raise RuleError(f"{it.name} is already {where}")
        return with_items(state, replace_at(state.items, i, replace(it, location=ev.to)),
                          check_carried=ev.to == "carried")

    @applies(ItemRepaired)
    def on_item_repaired(self, state: Character, ev: ItemRepaired) -> Character:
        """Broken armour repaired to full durability ("Armor"); destroyed items cannot be."""
        i = need(state.items, ev.item, "item", state.name)
        it = state.items[i]
        if it.destroyed:
            raise RuleError(f"{it.name} was destroyed and is irreparable")
        if it.max_durability is None or not it.broken:
            raise RuleError(f"{it.name} is not broken armour: nothing to repair")
        new = replace(it, durability=it.max_durability, broken=False)
        return replace(state, items=replace_at(state.items, i, new))

    @applies(BagChanged)
    def on_bag(self, state: Character, ev: BagChanged) -> Character:
        """Gain or lose the bag ("Inventory": one bag per character)."""
        if ev.has_bag and state.has_bag:
            raise RuleError(f"{state.name} already carries a bag and may carry only one")
        if not ev.has_bag and not state.has_bag:
            raise RuleError(f"{state.name} has no bag to lose")
        if not ev.has_bag and any(i.location == "bag" for i in state.items):
            raise RuleError("the bag still holds items: move or remove them first")
        return replace(state, has_bag=ev.has_bag)

    # --- harm -----------------------------------------------------------------------------

    @applies(DamageTaken)
    def on_damage(self, state: Character, ev: DamageTaken) -> Character:
        """Damage through armour into a wound ("Armor", "Wounds")."""
        return take_harm(state, ev.amount, ev.armour, ev.desperate, ev.description)

    @applies(AttackResolved)
    def on_attack(self, state: Character, ev: AttackResolved) -> Character:
        """An attack's damage ("Attacking", ruling R5) through armour into a wound."""
        amount = damage_dealt(ev.weapon_damage, ev.outcome, self.options.messy_damage_rounding)
        return take_harm(state, amount, ev.armour, ev.desperate,
                         ev.description or f"{ev.weapon or 'attack'} by {ev.attacker}")

    @applies(ShockRolled)
    def on_shock(self, state: Character, ev: ShockRolled) -> Character:
        """The shock roll settles one owed roll (one is owed per wound received, ruling
        R23); a shock is counted ("Wounds", ruling R9)."""
        if not state.pending_shock:
            raise RuleError(f"{state.name} owes no shock roll")
        owed = max(state.shocks_owed, 1) - 1  # a state from before shocks_owed owed one
        return replace(state, pending_shock=owed > 0, shocks_owed=owed,
                       shocks=state.shocks + int(ev.shock))

    @applies(WoundHealed)
    def on_healed(self, state: Character, ev: WoundHealed) -> Character:
        """Proper care reduces a wound ("Wounds")."""
        if state.dead:
            raise RuleError(f"{state.name} has perished: wounds no longer heal")
        return heal(state, ev.wound, ev.amount)

    @applies(ConditionAdded)
    def on_condition(self, state: Character, ev: ConditionAdded) -> Character:
        """A condition ("Conditions"); a capacity cut may leave the character over capacity
        (shown on the sheet; nothing more can be picked up until fixed)."""
        c = Condition(name=ev.condition.strip(), check_penalty=ev.check_penalty,
                      capacity_delta=ev.capacity_delta, ends_when=ev.ends_when,
                      ends_on=ev.ends_on, ends_at=_ends_at(state, ev.lasts_minutes))
        return self._add_condition(state, c)

    @applies(HiddenConditionAdded)
    def on_hidden_condition(self, state: Character, ev: HiddenConditionAdded) -> Character:
        """A condition only The World knows of (GM-only, ruling R33): its penalty counts in
        checks as a hidden modifier."""
        c = Condition(name=ev.condition.strip(), check_penalty=ev.check_penalty,
                      ends_when=ev.ends_when, hidden=True, ends_on=ev.ends_on,
                      ends_at=_ends_at(state, ev.lasts_minutes))
        return replace(self._add_condition(state, c), gm_view=True)

    def _add_condition(self, state: Character, c: Condition) -> Character:
        if c.check_penalty < 0:
            raise RuleError(f"a check penalty is 0 or more, not {c.check_penalty}")
        if any(o.name.casefold() == c.name.casefold() for o in state.conditions):
            raise RuleError(f"{state.name} already has condition {c.name!r}")
        return replace(state, conditions=(*state.conditions, c))

    @applies(ConditionEnded)
    def on_condition_ended(self, state: Character, ev: ConditionEnded) -> Character:
        """A condition ends ("Conditions"). A hidden one is ended only by the GM-only
        ``hidden-condition-ended``: a public entry naming it would reveal it (ruling R33)."""
        return self._end_condition(state, ev.condition, hidden=False)

    @applies(HiddenConditionEnded)
    def on_hidden_condition_ended(self, state: Character, ev: HiddenConditionEnded
                                  ) -> Character:
        """A hidden condition ends (GM-only, ruling R33); a public condition is ended in
        public, so the players' view of it ends too."""
        return replace(self._end_condition(state, ev.condition, hidden=True), gm_view=True)

    def _end_condition(self, state: Character, name: str, *, hidden: bool) -> Character:
        key = name.strip().casefold()
        found = [c for c in state.conditions if c.name.casefold() == key]
        if not found:
            have = ", ".join(c.name for c in state.conditions) or "none"
            raise RuleError(f"{state.name} has no condition {name!r} (they have: {have})")
        if found[0].hidden != hidden:
            raise RuleError(
                f"{found[0].name} is a hidden condition: end it with `record "
                "hidden-condition-ended`, so its name stays GM-only" if found[0].hidden else
                f"{found[0].name} is a public condition: end it with `record "
                "condition-ended`, so the players' view of it ends too"
            )
        return replace(state, conditions=tuple(c for c in state.conditions if c is not found[0]))

    @applies(Rested)
    def on_rest(self, state: Character, ev: Rested) -> Character:
        """A rest recovers half the jinx, rounded up ("Jinx", ruling R7)."""
        jinx = state.jinx - jinx_recovered(state.jinx, self.options.jinx_recovery)
        after = max(state.rested_after_session, ev.session or 0)
        return _expire(replace(state, jinx=jinx, rested_after_session=after), ("rest",))

    @applies(TimePassed)
    def on_time_passed(self, state: Character, ev: TimePassed) -> Character:
        """In-fiction time passes: the character's clock moves on. What ran out in
        it ends by the events written with it (:meth:`Rules.time_passed`)."""
        return replace(state, clock=state.clock + ev.minutes)

    @applies(SceneEnded)
    def on_scene_ended(self, state: Character, ev: SceneEnded) -> Character:
        """Conditions that last the scene end with it ("Conditions": "temporal
        deadlines"; ``ends_on = "scene"``)."""
        return _expire(state, ("scene",))

    @applies(SessionEnded)
    def on_session_ended(self, state: Character, ev: SessionEnded) -> Character:
        """Conditions that last the scene or the session end with it (``ends_on``)."""
        return _expire(state, ("scene", "session"))

    # --- objectives -----------------------------------------------------------------------

    def _contribute(self, state: Character, name: str, skill: str, band: str) -> Character:
        i = need(state.objectives, name, "objective", state.name)
        _not_shared(state.objectives[i])
        new = contribute(state.objectives[i], skill=skill, band=band,  # type: ignore[arg-type]
                         distinct_skills=self.options.objective_distinct_skills == "enforce")
        return replace(state, objectives=replace_at(state.objectives, i, new))

    @applies(ObjectiveOpened)
    def on_objective(self, state: Character, ev: ObjectiveOpened) -> Character:
        """A new objective ("Objectives"): at least two good checks required."""
        if ev.required_good < 2:
            raise RuleError(
                f"an objective needs at least two good checks, not {ev.required_good}"
            )
        if find(state.objectives, ev.objective) is not None:
            raise RuleError(f"objective {ev.objective!r} already exists: name it differently")
        o = Objective(name=ev.objective.strip(), required_good=ev.required_good,
                      deadline=ev.deadline, due_at=_due_at(state, ev.deadline))
        return replace(state, objectives=(*state.objectives, o))

    @applies(ObjectiveContributed)
    def on_contributed(self, state: Character, ev: ObjectiveContributed) -> Character:
        """A contributing check recorded by hand ("Objectives", ruling R12)."""
        return self._contribute(state, ev.objective, ev.skill, ev.outcome)

    @applies(ObjectiveFailed)
    def on_objective_failed(self, state: Character, ev: ObjectiveFailed) -> Character:
        """An objective failed by an outside factor, e.g. time ("Objectives")."""
        i = need(state.objectives, ev.objective, "objective", state.name)
        _not_shared(state.objectives[i])
        return _failed(state, i, ev.reason)

    # --- shared objectives (campaign stream, ruling R43) -----------------------------------

    @applies(GroupObjectiveOpened)
    def on_group_objective(self, state: Character, ev: GroupObjectiveOpened) -> Character:
        """An objective shared by every character ("Objectives": "groups of players, or
        entire factions can work towards"): at least two good checks; a name any character
        already uses for an objective is refused."""
        if ev.required_good < 2:
            raise RuleError(
                f"an objective needs at least two good checks, not {ev.required_good}"
            )
        name = ev.objective.strip()
        if not name:
            raise RuleError("name the objective, e.g. 'Open the vault'")
        if find(state.objectives, name) is not None:
            raise RuleError(f"objective {name!r} already exists (on {state.name}'s sheet): "
                            "name it differently")
        o = Objective(name=name, required_good=ev.required_good, deadline=ev.deadline,
                      group=True, due_at=_due_at(state, ev.deadline))
        return replace(state, objectives=(*state.objectives, o))

    @applies(GroupObjectiveContributed)
    def on_group_contributed(self, state: Character, ev: GroupObjectiveContributed
                             ) -> Character:
        """A contributing check to a shared objective, folded into every character's state
        alike ("Objectives"; ruling R12 for distinct skills, across the group). On the
        contributor's own state a ``check`` must be a check they made towards it with that
        skill and outcome, counted once. A character who joined after the objective was
        opened does not hold it and is left as they are (ruling R43)."""
        mine = is_self(ev.by, state.id, state.name)
        i = find(state.objectives, ev.objective)
        if i is None or not state.objectives[i].group:
            if mine:
                have = ", ".join(o.name for o in state.objectives if o.group) or "none"
                raise RuleError(f"{state.name} holds no shared objective {ev.objective!r} "
                                f"(shared objectives: {have})")
            return state  # joined after it was opened
        o = state.objectives[i]
        if mine and ev.check is not None:
            state = _match_check(state, o.name, ev)
        new = contribute(o, skill=ev.skill, band=ev.outcome,
                         distinct_skills=self.options.objective_distinct_skills == "enforce")
        new = replace(new, contributors=(*o.contributors, ev.by))
        return replace(state, objectives=replace_at(state.objectives, i, new))

    @applies(GroupObjectiveFailed)
    def on_group_failed(self, state: Character, ev: GroupObjectiveFailed) -> Character:
        """A shared objective failed by an outside factor, e.g. time ("Objectives")."""
        i = find(state.objectives, ev.objective)
        if i is None or not state.objectives[i].group:
            return state  # joined after it was opened (ruling R43)
        return _failed(state, i, ev.reason)


def _failed(state: Character, i: int, reason: str) -> Character:
    o = state.objectives[i]
    if o.status != "open":
        raise RuleError(f"objective {o.name!r} is already {o.status}")
    new = replace(o, status="failed", reason=reason)
    return replace(state, objectives=replace_at(state.objectives, i, new))


def _not_shared(o: Objective) -> None:
    """Refuse a one-character event on a shared objective (ruling R43)."""
    if o.group:
        raise RuleError(
            f"{o.name!r} is a shared objective: record group-objective-contributed or "
            "group-objective-failed (every character holds it)"
        )


def _match_check(state: Character, objective: str, ev: GroupObjectiveContributed
                 ) -> Character:
    """``state`` without the check ``ev`` counts (ruling R43).

    :raises RuleError: the contributor made no such check towards ``objective`` (another
        skill or outcome, a check already counted, or none).
    """
    key = objective.casefold()
    for n, g in enumerate(state.group_checks):
        if g.objective.casefold() == key and g.skill.casefold() == ev.skill.casefold() \
                and g.outcome == ev.outcome and g.check in (0, ev.check):
            return replace(state, group_checks=state.group_checks[:n]
                           + state.group_checks[n + 1:])
    raise RuleError(
        f"check {ev.check} is not a {ev.outcome} {ev.skill} check of {state.name}'s towards "
        f"objective {objective!r} still to count: roll towards the objective, or record the "
        "contribution without a check"
    )
