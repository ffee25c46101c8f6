"""Appliers: how each event changes one character's state (pure; docs/rulings/wyrd-engine.md).

The :class:`Appliers` mixin of :class:`ledger_wyrd_engine.system.WyrdEngine`; each
``@applies`` method takes ``(state, event)`` and returns a new
:class:`~ledger_wyrd_engine.state.Character`, or raises :class:`ledger.RuleError` when the
event is impossible for that state (the engine then refuses to append it). Source:
000_60e07241544698f0.txt, sections named per method.
"""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from ledger import RuleError, RuleSystem, SceneEnded, SessionEnded, TimePassed, applies

from .events import (
    BoonGranted,
    BoonUsed,
    BoostGained,
    BoostUsed,
    CheckRolled,
    DamageTaken,
    DeathRecorded,
    GearGained,
    GearLost,
    StressCleared,
    TraitAbilityUsed,
    TraitGained,
    TraitLost,
    WoundDescribed,
    WoundHealed,
    WoundInflicted,
)
from .rules import absorb, check_healing, check_total, damage_units, find_boon, find_trait
from .sheet import TRAIT_COUNT, _trait
from .state import SEVERITIES, WOUND_CAPACITY, Boon, Boost, Character, Options, Trait, Wound


def roll_problems(event: CheckRolled) -> list[str]:
    """Arithmetic a roll event must satisfy, as sentences (empty when consistent).

    Guards hand-recorded or amended rolls: the four faces match the first four draws, the
    roll is their sum, the total is ``roll + rating + trait_bonus + boost + teamwork −
    wound_penalty``, and the margin and band follow from the total
    (000_60e07241544698f0.txt, "Conflict resolution at a glance"; docs/rulings/wyrd-engine.md).
    """
    problems = []
    faces = [{1: -1, 2: 0, 3: 1}.get(v) for _sides, v in event.draws[:4]]
    if len(event.dice) != 4 or any(f not in (-1, 0, 1) for f in event.dice):
        problems.append("a roll has four Fudge faces, each -1, 0 or +1")
    elif faces != list(event.dice) or any(sides != 3 for sides, _v in event.draws[:4]):
        problems.append("the roll's dice do not match its recorded draws")
    if event.roll != sum(event.dice):
        problems.append(f"the dice sum to {sum(event.dice)}, not {event.roll}")
    total = check_total(event.roll, event.rating, event.trait_bonus, event.boost,
                        event.teamwork, event.wound_penalty, event.situational)  # fmt: skip
    if event.total != total:
        problems.append(f"the roll's modifiers give a total of {total}, not {event.total}")
    if event.mode == "passive" and event.dr is not None:
        expected = event.total - event.dr
        if event.margin not in (expected, expected - 1):
            problems.append(f"total {event.total} against DR {event.dr} is not margin "
                            f"{event.margin}")  # fmt: skip
    elif event.opposition_total is not None and event.margin != (
        event.total - event.opposition_total
    ):
        problems.append("the margin is not the difference of the two totals")
    return problems


def _alive(state: Character, what: str) -> None:
    if state.dead:
        raise RuleError(f"{state.name} is dead: no {what} can be recorded for them")


def _without_boost(state: Character, value: int) -> tuple[Boost, ...]:
    for i, boost in enumerate(state.boosts):
        if boost.value == value:
            return state.boosts[:i] + state.boosts[i + 1 :]
    held = ", ".join(f"+{b.value}" for b in state.boosts) or "none"
    raise RuleError(
        f"{state.name} holds no +{value} boost (held: {held}); "
        "record one with `campaign record boost-gained` first"
    )


def _scene_reset(state: Character) -> Character:
    """Resets at the end of a scene (docs/rulings/wyrd-engine.md)."""
    return replace(
        state,
        stress=0,
        overflow=0,
        used_this_scene=(),
        boons=(),
        boosts=(),
        taken_out=False,
    )


class Appliers(RuleSystem[Character, Options]):
    """The ``@applies`` methods of the Wyrd Engine (a mixin; reads ``self.options``)."""

    @applies(CheckRolled)
    def on_check_rolled(self, state: Character, event: CheckRolled) -> Character:
        """A roll consumes the boost it used and the boon it invoked (docs/rulings/wyrd-engine.md
        ``check_rolled``; "Boosts", "Active Opposition"); nothing else changes."""
        _alive(state, "roll")
        problems = roll_problems(event)
        if problems:
            raise RuleError(*problems)
        changes: dict[str, Any] = {}
        if event.boost:
            changes["boosts"] = _without_boost(state, event.boost)
        if event.trait_kind == "boon" and event.trait:
            i = find_boon(state, event.trait)
            if i is None:
                raise RuleError(f"{state.name} holds no boon called {event.trait!r}")
            changes["boons"] = state.boons[:i] + state.boons[i + 1 :]
        elif event.trait and find_trait(state, event.trait) is None:
            # gear or a Trait gained in play and since retracted or lost (ruling W-15)
            raise RuleError(f"{state.name} has no trait or gear called {event.trait!r} to invoke")
        return replace(state, **changes) if changes else state

    def _apply_units(
        self, state: Character, units: int, skills: list[str], description: str
    ) -> Character:
        result = absorb(
            units, state.stress, state.stress_max, state.wounds, self.options.death_risk_trigger
        )
        wounds = dict(state.wounds)
        for severity, soaked in result.wounds_taken:
            wounds[severity] = Wound(
                absorbed=soaked, affected_skills=tuple(skills), description=description
            )
        return replace(
            state,
            stress=result.stress,
            wounds=wounds,
            overflow=result.overflow,
            taken_out=state.taken_out or result.taken_out,
            at_risk_of_death=state.at_risk_of_death or result.at_risk_of_death,
        )

    @applies(DamageTaken)
    def on_damage_taken(self, state: Character, event: DamageTaken) -> Character:
        """Convert damage to units by the ratio, then soak it: stress first, then wounds
        (docs/rulings/wyrd-engine.md; "Damage: Stress and Wounds", "Attacking and Defending").

        :raises RuleError: negative damage, a ratio outside 1…3, or a dead character.
        """
        _alive(state, "damage")
        ratio = event.ratio if event.ratio is not None else self.options.damage_ratio
        units = damage_units(event.amount, ratio, self.options.damage_rounding)
        return self._apply_units(state, units, list(event.affected_skills), event.description)

    @applies(WoundInflicted)
    def on_wound_inflicted(self, state: Character, event: WoundInflicted) -> Character:
        """Take a wound slot directly ("Firearms can inflict instant Wounds"); if it is
        already taken, its capacity goes through the absorption algorithm as damage units
        (docs/rulings/wyrd-engine.md ``wound_inflicted`` ruling)."""
        _alive(state, "wound")
        if event.severity in state.wounds:
            return self._apply_units(
                state,
                WOUND_CAPACITY[event.severity],
                list(event.affected_skills),
                event.description,
            )
        severe_before = "severe" in state.wounds
        wounds = {
            **state.wounds,
            event.severity: Wound(
                absorbed=WOUND_CAPACITY[event.severity],
                affected_skills=tuple(event.affected_skills),
                description=event.description,
            ),
        }
        taken_out = state.stress == state.stress_max and all(s in wounds for s in SEVERITIES)
        trigger = self.options.death_risk_trigger
        at_risk = severe_before and (trigger != "taken_out_only" or taken_out)
        return replace(
            state,
            wounds=wounds,
            taken_out=state.taken_out or taken_out,
            at_risk_of_death=state.at_risk_of_death or at_risk,
        )

    @applies(WoundDescribed)
    def on_wound_described(self, state: Character, event: WoundDescribed) -> Character:
        """Name the skills a taken wound affects ("Example Wound": −2 to Athletics and Fight).

        :raises RuleError: the wound is not taken.
        """
        wound = state.wounds.get(event.severity)
        if wound is None:
            raise RuleError(f"{state.name} has no {event.severity} wound to describe")
        new = replace(
            wound,
            affected_skills=tuple(event.affected_skills),
            description=event.description or wound.description,
        )
        return replace(state, wounds={**state.wounds, event.severity: new})

    @applies(TimePassed)
    def on_time_passed(self, state: Character, event: TimePassed) -> Character:
        """Rest counts towards healing every wound taken ("Healing and Recovery"); a
        wound healed by it is the ``wound_healed`` written with the span."""
        if not event.rest or not state.wounds:
            return state
        wounds = {k: replace(w, rested=w.rested + event.minutes) for k, w in state.wounds.items()}
        return replace(state, wounds=wounds)

    @applies(WoundHealed)
    def on_wound_healed(self, state: Character, event: WoundHealed) -> Character:
        """Clear a wound slot by an allowed method ("Healing and Recovery"); a healed
        Severe wound ends the risk of death; fewer than three wounds is no longer taken out.

        :raises RuleError: the wound is not taken, or the method is too light for it.
        """
        if event.severity not in state.wounds:
            raise RuleError(f"{state.name} has no {event.severity} wound to heal")
        check_healing(event.severity, event.method)
        wounds = {k: v for k, v in state.wounds.items() if k != event.severity}
        return replace(
            state,
            wounds=wounds,
            taken_out=False,
            at_risk_of_death=state.at_risk_of_death and event.severity != "severe",
        )

    @applies(StressCleared)
    def on_stress_cleared(self, state: Character, event: StressCleared) -> Character:
        """Every stress box clears ("automatically cleared after a fight"; ruling C10)."""
        return replace(state, stress=0, overflow=0, taken_out=False)

    @applies(TraitAbilityUsed)
    def on_trait_ability_used(self, state: Character, event: TraitAbilityUsed) -> Character:
        """Mark a once-per-scene/session ability used ("How Traits Work", "Example 3").

        :raises RuleError: no such trait or gear, it is not an ability, or it was already
            used this scene/session.
        """
        _alive(state, "ability")
        trait = find_trait(state, event.trait)
        if trait is None:
            names = ", ".join(t.name for t in (*state.traits, *state.gear)) or "none"
            raise RuleError(
                f"{state.name} has no trait or gear called {event.trait!r} (has: {names})"
            )
        if trait.kind != "ability" or trait.once_per is None:
            raise RuleError(
                f"{trait.name} is a {trait.kind} trait, not a once-per-scene/session ability"
            )
        if trait.once_per == "scene":
            if trait.name in state.used_this_scene:
                raise RuleError(f"{state.name} already used {trait.name} this scene")
            return replace(state, used_this_scene=(*state.used_this_scene, trait.name))
        if trait.name in state.used_this_session:
            raise RuleError(f"{state.name} already used {trait.name} this session")
        return replace(state, used_this_session=(*state.used_this_session, trait.name))

    @applies(BoonGranted)
    def on_boon_granted(self, state: Character, event: BoonGranted) -> Character:
        """Add a one-use +2 boon for this scene ("Active Opposition")."""
        _alive(state, "boon")
        if not event.boon.strip():
            raise RuleError("a boon needs a name: 'what it is'")
        if find_boon(state, event.boon) is not None or find_trait(state, event.boon):
            raise RuleError(f"{state.name} already has a trait or boon called {event.boon!r}")
        return replace(state, boons=(*state.boons, Boon(name=event.boon, skill=event.skill)))

    @applies(BoonUsed)
    def on_boon_used(self, state: Character, event: BoonUsed) -> Character:
        """Spend a held boon ("Active Opposition": one use).

        :raises RuleError: no boon of that name is held.
        """
        i = find_boon(state, event.boon)
        if i is None:
            held = ", ".join(b.name for b in state.boons) or "none"
            raise RuleError(f"{state.name} holds no boon called {event.boon!r} (held: {held})")
        return replace(state, boons=state.boons[:i] + state.boons[i + 1 :])

    @applies(BoostGained)
    def on_boost_gained(self, state: Character, event: BoostGained) -> Character:
        """Hold a +1 or +2 boost for the next relevant roll ("Boosts: Optional Rule").

        :raises RuleError: a value other than 1 or 2.
        """
        _alive(state, "boost")
        if event.value not in (1, 2):
            raise RuleError(f"a boost is +1 or +2, not {event.value}")
        boost = Boost(value=event.value, description=event.description)
        return replace(state, boosts=(*state.boosts, boost))

    @applies(BoostUsed)
    def on_boost_used(self, state: Character, event: BoostUsed) -> Character:
        """Spend a held boost of that value.

        :raises RuleError: none of that value is held.
        """
        return replace(state, boosts=_without_boost(state, event.value))

    @applies(DeathRecorded)
    def on_death_recorded(self, state: Character, event: DeathRecorded) -> Character:
        """The GM's decision that the character dies ("Death and the End of Combat")."""
        _alive(state, "death")
        return replace(state, dead=True)

    def _new_trait(self, state: Character, event: GearGained | TraitGained, word: str) -> Trait:
        """The trait or gear ``event`` describes, checked as a sheet's would be (ruling W-1).

        :raises RuleError: a name the character already has among traits and gear, or a
            shape the sheet rules refuse (a bonus without its skill, ...).
        """
        if find_trait(state, event.name) is not None:
            raise RuleError(
                f"{state.name} already has a trait or gear called {event.name!r}: give the "
                "new one another name"
            )
        problems: list[str] = []
        fields = ("name", "kind", "skill", "instead_of", "once_per", "when", "text")
        entry = {f: getattr(event, f) for f in fields if getattr(event, f) not in (None, "")}
        known = [*self.options.skill_list, *state.skills]
        out = _trait(entry, word, known, problems)
        if problems:
            raise RuleError(*problems)
        return Trait(**out)

    @applies(GearGained)
    def on_gear_gained(self, state: Character, event: GearGained) -> Character:
        """New gear after creation: "Each character begins with **three pieces of gear**"
        and "Each piece of gear functions like a Trait" (000_60e07241544698f0.txt, "Gear as
        Traits", "Step 4: Select Gear"; ruling W-15).

        :raises RuleError: a name already held, a trait shape the sheet rules refuse.
        """
        _alive(state, "gear")
        return replace(state, gear=(*state.gear, self._new_trait(state, event, "Gear")))

    @applies(GearLost)
    def on_gear_lost(self, state: Character, event: GearLost) -> Character:
        """Gear the character holds is gone (ruling W-15).

        :raises RuleError: no such gear (the sentence names what they hold).
        """
        key = event.gear.strip().lower()
        if not any(g.name.lower() == key for g in state.gear):
            held = ", ".join(g.name for g in state.gear) or "none"
            raise RuleError(f"{state.name} holds no gear called {event.gear!r} (gear: {held})")
        return replace(state, gear=tuple(g for g in state.gear if g.name.lower() != key))

    @applies(TraitGained)
    def on_trait_gained(self, state: Character, event: TraitGained) -> Character:
        """A non-player character gains a Trait ("Non-player characters and monsters can
        have fewer or far more traits"); a player character "has exactly **three Traits**"
        (000_60e07241544698f0.txt, "Traits"; ruling W-16).

        :raises RuleError: a player character; a name already held; a bad trait shape.
        """
        if not state.npc:
            raise RuleError(
                f"{state.name} is a player character, who has exactly {TRAIT_COUNT} Traits "
                "(\"Traits\"): a fourth is not gained; the text gives no advancement"
            )
        return replace(state, traits=(*state.traits, self._new_trait(state, event, "Trait")))

    @applies(TraitLost)
    def on_trait_lost(self, state: Character, event: TraitLost) -> Character:
        """A non-player character loses a Trait (000_60e07241544698f0.txt, "Traits";
        ruling W-16).

        :raises RuleError: a player character (exactly three Traits); no such trait.
        """
        if not state.npc:
            raise RuleError(
                f"{state.name} is a player character, who has exactly {TRAIT_COUNT} Traits "
                "(\"Traits\"): none is lost"
            )
        key = event.trait.strip().lower()
        if not any(t.name.lower() == key for t in state.traits):
            held = ", ".join(t.name for t in state.traits) or "none"
            raise RuleError(f"{state.name} has no Trait called {event.trait!r} (Traits: {held})")
        return replace(state, traits=tuple(t for t in state.traits if t.name.lower() != key))

    @applies(SceneEnded)
    def on_scene_ended(self, state: Character, event: SceneEnded) -> Character:
        """Scene end: stress clears ("Healing and Recovery"), once-per-scene abilities
        reset, boons expire ("Active Opposition"), unused boosts lapse (ruling C15), taken
        out clears (docs/rulings/wyrd-engine.md)."""
        return _scene_reset(state)

    @applies(SessionEnded)
    def on_session_ended(self, state: Character, event: SessionEnded) -> Character:
        """Session end: the scene resets plus once-per-session abilities (docs/rulings/wyrd-engine.md)."""
        return replace(_scene_reset(state), used_this_session=())
