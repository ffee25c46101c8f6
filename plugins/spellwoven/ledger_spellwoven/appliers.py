"""How each Spellwoven event changes a character (seed 004_663ae3e4ecc71fd1.txt): one pure
:func:`ledger.applies` method per event type, refusing what does not fit the state."""

from __future__ import annotations

from msgspec.structs import replace

from ledger import (
    Event,
    RuleError,
    RuleSystem,
    SceneEnded,
    SessionEnded,
    applies,
    applying_seq,
    name_in,
)

from . import events as ev
from .rules import check_effort, check_roll
from .rules.mechanics import (
    ATTRIBUTES,
    attribute_named,
    check_rank,
    contest_outcome,
    did_you_mean,
    outcome_of_test,
)
from .state import Character, LastRoll, Options, Skill, Specialisation


class Appliers(RuleSystem[Character, Options]):
    """The appliers of every Spellwoven event type (004_663ae3e4ecc71fd1.txt)."""

    @applies(ev.TestRolled, ev.ContestRolled)
    def on_rolled(self, state: Character, event: ev.TestRolled | ev.ContestRolled) -> Character:
        """A Test or Contest of Skill: spend the Effort spent with it and remember it, with
        its difficulty or the opponent's successes, for Effort spent later
        (004_663ae3e4ecc71fd1.txt, "Test of Skill", "Opposed Roll (Contest of Skill)",
        "Attributes and Effort"; ruling S6). A difficulty of 0 is an automatic hit, on which
        no Effort can be spent ("Static Difficulty from Attributes"). A hand-recorded or
        amended roll whose numbers do not follow from its dice is refused
        (:func:`.rules.check_roll`).
        """
        check_roll(event)
        check_effort(state, event.effort_spent, self.options)
        difficulty = event.difficulty if isinstance(event, ev.TestRolled) else None
        last = LastRoll(
            skill=event.skill,
            attribute=event.attribute,
            successes=event.successes,
            effort_spent=event.effort_spent,
            outcome=event.outcome,
            difficulty=difficulty,
            opponent_successes=getattr(event, "opponent_successes", None),
            automatic=difficulty == 0,
            seq=applying_seq(),
        )
        return replace(
            state,
            effort=state.effort - event.effort_spent,
            last_roll=last,
            scene_rolls=[*state.scene_rolls, last],
        )

    @applies(ev.EffortSpent)
    def on_effort_spent(self, state: Character, event: ev.EffortSpent) -> Character:
        """1 Effort spent after the latest roll (or roll ``roll`` of the scene): its successes
        + the Attribute, outcome judged again (004_663ae3e4ecc71fd1.txt, "Attributes and
        Effort", "Example: Opposed Roll"; ruling S6, S7). Replayed after a correction, the
        same checks hold: Effort spent on a roll that was retracted, or whose recorded result
        after the Effort no longer follows from the corrected roll, is refused, never
        refunded in silence (ruling SW8).
        """
        last, at = state.last_roll, len(state.scene_rolls) - 1
        on = f" on roll {event.roll}" if event.roll is not None else ""
        if last is None:
            spent = f" (this Effort was spent{on})" if on else ""
            raise RuleError(
                f"{state.name} has no roll in this scene to spend Effort on{spent}; roll first"
            )
        if event.roll is not None and not event.latest and event.roll != last.seq:
            found = [i for i, r in enumerate(state.scene_rolls) if r.seq == event.roll]
            if not found:
                theirs = ", ".join(str(r.seq) for r in state.scene_rolls if r.seq) or "none"
                raise RuleError(
                    f"roll {event.roll} is not one of {state.name}'s rolls in this scene "
                    f"(theirs: {theirs}); Effort is spent on the character's own roll, "
                    "before the scene ends"
                )
            at, last = found[-1], state.scene_rolls[found[-1]]
        if last.automatic:
            raise RuleError(
                f"the latest roll was an automatic hit: no Effort{on} can be spent on it"
            )
        check_effort(state, 1, self.options, already=last.effort_spent)
        bonus = state.attributes[attribute_named(event.attribute or last.attribute)]
        successes = last.successes + bonus
        if last.opponent_successes is not None:
            outcome: str = contest_outcome(successes, last.opponent_successes)
        else:
            outcome = outcome_of_test(successes, last.difficulty or 0)
        for field, given, computed in (
            ("bonus", event.bonus, bonus),
            ("successes", event.successes, successes),
            ("outcome", event.outcome, outcome),
        ):
            if given is not None and given != computed:
                raise RuleError(
                    f"the Effort{on} recorded {field} {given}, but {state.name}'s latest roll "
                    f"({last.skill}, {last.successes} successes) gives {computed}"
                )
        spent_on = replace(
            last, successes=successes, effort_spent=last.effort_spent + 1, outcome=outcome
        )
        rolls = list(state.scene_rolls)
        if rolls:
            rolls[at] = spent_on
        latest = spent_on if last is state.last_roll else state.last_roll
        return replace(state, effort=state.effort - 1, scene_rolls=rolls, last_roll=latest)

    @applies(ev.ContestEffortSpent)
    def on_contest_effort_spent(self, state: Character, event: ev.ContestEffortSpent) -> Character:
        """The opponent spends a point of Effort on their side of a Contest of Skill and adds
        their relevant Attribute (004_663ae3e4ecc71fd1.txt, "Attributes and Effort": "you
        spend a point of **Effort** ... and add the relevant Attribute bonus to your number
        of successes"; ruling SW10): refused without Effort left or with another bonus than
        that Attribute's rating.
        """
        attribute = attribute_named(event.attribute)
        check_effort(state, 1, self.options)
        if event.bonus != state.attributes[attribute]:
            raise RuleError(
                f"{state.name}'s Effort on roll {event.roll} adds {attribute} "
                f"{state.attributes[attribute]}, not {event.bonus}"
            )
        return replace(state, effort=state.effort - 1)

    @applies(ev.EffortLost)
    def on_effort_lost(self, state: Character, event: ev.EffortLost) -> Character:
        """Effort lost as the cost of a failure (004_663ae3e4ecc71fd1.txt, "Degrees of
        Failure": "it costs you an Effort"). A cost the character cannot pay is refused, not
        cut down to what is left (ruling SW9): Effort never drops below 0 and an event never
        says more was lost than was.
        """
        if event.amount < 1:
            raise RuleError(f"Effort lost must be 1 or more, not {event.amount}")
        if event.amount > state.effort:
            raise RuleError(
                f"{state.name} has {state.effort} Effort left and cannot lose {event.amount}; "
                "the GM picks another cost of the failure"
            )
        return replace(state, effort=state.effort - event.amount)

    @applies(ev.Slept)
    def on_slept(self, state: Character, event: ev.Slept) -> Character:
        """A night's sleep refreshes Effort to the pool (004_663ae3e4ecc71fd1.txt,
        "Attributes and Effort")."""
        return replace(state, effort=state.effort_max)

    @applies(ev.WeaknessExploited)
    def on_weakness_exploited(self, state: Character, event: ev.WeaknessExploited) -> Character:
        """Record that a Weakness was used; the character must have it
        (004_663ae3e4ecc71fd1.txt, "Weaknesses")."""
        if event.weakness not in state.weaknesses:
            raise RuleError(f"{state.name} has no {event.weakness} Weakness to exploit")
        return state

    @applies(ev.SkillChanged)
    def on_skill_changed(self, state: Character, event: ev.SkillChanged) -> Character:
        """Set a skill's rank (GM-granted; ranks of 10+ use the 10+ table; ruling S1, S10); a
        new skill needs its Attribute, and an Attribute is not a skill."""
        check_rank(event.rank, self.options, event.skill)
        existing = name_in(event.skill, state.skills)
        attribute = attribute_named(event.attribute) if event.attribute else None
        if name_in(event.skill, ATTRIBUTES):
            raise RuleError(f"{event.skill!r} is an Attribute, not a skill")
        attribute = attribute or (state.skills[existing].attribute if existing else None)
        if attribute is None:
            raise RuleError(
                f"{state.name} has no skill {event.skill!r}: give its Attribute to add it as a "
                f"new skill{did_you_mean(event.skill, state.skills)}"
            )
        skill = Skill(rank=event.rank, attribute=attribute)
        return replace(state, skills={**state.skills, existing or event.skill: skill})

    @applies(ev.SpecialisationLearned)
    def on_specialisation_learned(
        self, state: Character, event: ev.SpecialisationLearned
    ) -> Character:
        """A new Specialisation of a skill on the sheet, with its own rank, rolled by name
        with the parent's Attribute (004_663ae3e4ecc71fd1.txt, "Example: Opposed Roll": "The
        housewife does not have any relevant Specialisations (either **Brawling** or
        **One-Handed Bludgeon** might have been suitable)"; rulings S3, SW11). Its name is
        new to the sheet (no specialisation, skill or Attribute has it).
        """
        name = event.specialisation.strip()
        if not name:
            raise RuleError("a specialisation needs a name, e.g. Brawling")
        held = name_in(name, state.specialisations)
        if held is not None:
            raise RuleError(
                f"{state.name} already has the specialisation {held} "
                f"({state.specialisations[held].rank}); it is learned once"
            )
        if name_in(name, state.skills) or name_in(name, ATTRIBUTES):
            raise RuleError(
                f"{name!r} is already a skill or an Attribute of {state.name}, "
                "not a specialisation; name it apart"
            )
        parent = name_in(event.skill, state.skills)
        if parent is None:
            raise RuleError(
                f"{state.name} has no skill {event.skill!r} to specialise in"
                f"{did_you_mean(event.skill, state.skills)}; learn the skill first "
                "(skill-changed with its Attribute)"
            )
        check_rank(event.rank, self.options, name)
        specs = {**state.specialisations, name: Specialisation(rank=event.rank, skill=parent)}
        return replace(state, specialisations=specs)

    @applies(ev.ConditionAdded)
    def on_condition_added(self, state: Character, event: ev.ConditionAdded) -> Character:
        """Add a narrated condition, not empty and not already present
        (004_663ae3e4ecc71fd1.txt, "Degrees of Failure")."""
        text = event.condition.strip()
        if not text:
            raise RuleError("a condition needs a description")
        if name_in(text, state.conditions):
            raise RuleError(f"{state.name} already has the condition {text!r}")
        return replace(state, conditions=[*state.conditions, text])

    @applies(ev.ConditionRemoved)
    def on_condition_removed(self, state: Character, event: ev.ConditionRemoved) -> Character:
        """Remove a condition the character has (004_663ae3e4ecc71fd1.txt, "Degrees of
        Failure")."""
        found = name_in(event.condition.strip(), state.conditions)
        if found is None:
            raise RuleError(
                f"{state.name} has no condition {event.condition!r}"
                + did_you_mean(event.condition, state.conditions)
            )
        return replace(state, conditions=[c for c in state.conditions if c != found])

    @applies(SceneEnded, SessionEnded)
    def on_scene_ended(self, state: Character, event: Event) -> Character:
        """The moment of a roll has passed: Effort can no longer be added to it (ruling S6:
        Effort is spent after the roll, before the outcome is narrated)."""
        if state.last_roll is None and not state.scene_rolls:
            return state
        return replace(state, last_roll=None, scene_rolls=[])
