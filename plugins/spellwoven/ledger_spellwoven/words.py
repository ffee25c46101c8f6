"""What Spellwoven rolls and changes read like to a person (seed 004_663ae3e4ecc71fd1.txt;
the other events' lines are their ``line`` templates, skills in the sheet's notation through
the system's ``line_names``): what changed on a character in the rule text's words ("Effort
1 → 0 (of 2)", "Climb rose to 5"; "Attributes and Effort", "Skill level 10+", "Degrees of
Failure") and a recap's notes ("Advantage & Disadvantage").
"""

from __future__ import annotations

from typing import Any

from ledger import Recorded, RuleSystem, counted, describes, entry_changes

from . import events as ev
from .rules.mechanics import DIFFICULTIES
from .state import Character, Options

HANDLED = (
    "id",
    "name",
    "attributes",
    "skills",
    "specialisations",
    "effort",
    "effort_max",
    "conditions",
    "last_roll",
    "scene_rolls",
)
"""Fields :meth:`Words.describe_changes` words itself (the rest get the generic wording of
:meth:`ledger.RuleSystem.generic_changes`); ``last_roll`` and ``scene_rolls`` are bookkeeping
for ``campaign effort`` and never worded."""


def _faces(faces: list[int], kept: list[int] | None) -> str:
    text = "[" + " ".join(str(f) for f in faces) + "]"
    if kept is not None:
        text += " keep [" + " ".join(str(f) for f in kept) + "]"
    return text


def _plural(n: int) -> str:
    return counted(n, "success", "successes")


def _difficulty(required: int) -> str:
    return f"{DIFFICULTIES[required]} ({required})" if required in DIFFICULTIES else str(required)


def _mine(event: ev.SkillRoll) -> str:
    """The roller's side of a roll: skill, Skill Level, mode, dice, successes and Effort."""
    level = event.skill_level
    text = f"{event.character} — {event.skill} {level}"
    if event.mode != "normal":
        text += f" at {event.mode}" + (" (Weakness)" if event.weakness else "")
    text += f", dice {_faces(event.dice, event.kept)} = {_plural(event.dice_successes)}"
    if event.effort_spent:
        text += f", +{event.effort_bonus} Effort ({event.attribute}) = {event.successes}"
    return text


class Words(RuleSystem[Character, Options]):
    """The words of every Spellwoven event type, of a character's changes and of a recap's
    notes (004_663ae3e4ecc71fd1.txt)."""

    @describes(ev.TestRolled)
    def describe_test(self, event: ev.TestRolled) -> str:
        """``"jen — Sprint 5, dice [6 6 10] = 0 successes vs Normal (1): fail"``; an
        automatic hit says why no dice were rolled (004_663ae3e4ecc71fd1.txt, "Test of
        Skill", "Static Difficulty from Attributes")."""
        if event.difficulty == 0:
            return (
                f"{event.character} — {event.skill}: automatic hit, the target's Attribute "
                f"{event.target_attribute} gives difficulty 0 (no roll)"
            )
        return f"{_mine(event)} vs {_difficulty(event.difficulty)}: {event.outcome}"

    @describes(ev.ContestRolled)
    def describe_contest(self, event: ev.ContestRolled) -> str:
        """Both sides of a Contest of Skill, the opponent's Effort included
        (004_663ae3e4ecc71fd1.txt, "Opposed Roll (Contest of Skill)"; ruling SW10)."""
        who = event.opponent or "the opponent"
        mode = "" if event.opponent_mode == "normal" else f" at {event.opponent_mode}"
        theirs = _plural(event.opponent_successes)
        if event.vs_effort_spent:
            theirs = (
                f"{_plural(event.opponent_successes - (event.vs_effort_bonus or 0))}, "
                f"+{event.vs_effort_bonus} Effort ({event.vs_attribute}) = "
                f"{event.opponent_successes}"
            )
        return (
            f"{_mine(event)} vs {who} ({event.opponent_skill_level}{mode}), dice "
            f"{_faces(event.opponent_dice, event.opponent_kept)} = {theirs}: {event.outcome}"
        )

    def describe_changes(
        self, before: Character | None, after: Character, *, as_gm: bool
    ) -> list[str]:
        """What changed on a character in the rule text's words: a new character joins the
        story; Attributes and skill ranks rose or fell; Effort spent and refreshed
        (004_663ae3e4ecc71fd1.txt, "Attributes and Effort"); conditions gained and lost.
        The fields outside :data:`HANDLED` get the generic wording. Nothing is GM-only.
        """
        if before is None:
            return [f"{after.name} joins the story"]
        out = entry_changes(before.attributes, after.attributes, changed="{name} {moved} to {now}")
        for kind, old, new in (
            ("skill", before.skills, after.skills),
            ("specialisation", before.specialisations, after.specialisations),
        ):
            out += entry_changes(
                old,
                new,
                value=lambda entry: entry.rank,
                new=f"new {kind} {{name}} {{now}}",
                changed="{name} {moved} to {now}",
                gone=f"{kind} {{name}} lost",
            )
        if (after.effort, after.effort_max) != (before.effort, before.effort_max):
            if after.effort == after.effort_max and after.effort > before.effort:
                out.append(f"Effort refreshed ({after.effort}/{after.effort_max})")
            else:
                out.append(f"Effort {before.effort} → {after.effort} (of {after.effort_max})")
        out += entry_changes(
            before.conditions, after.conditions, new="now {name}", gone="no longer {name}"
        )
        own = [s[:1].upper() + s[1:] for s in out]
        return own + self.generic_changes(before, after, skip=HANDLED)

    def recap_lines(self, record: Recorded, *, as_gm: bool) -> list[str]:
        """Rule notes for a roll in a recap: dice kept at advantage or disadvantage
        (004_663ae3e4ecc71fd1.txt, "Advantage & Disadvantage"), Effort spent by the roller
        or the opponent ("Attributes and Effort"); ``[]`` for any other event."""
        event: Any = record.data
        if not isinstance(event, ev.SkillRoll):
            return []
        notes = []
        if event.kept is not None:
            notes.append(f"four dice rolled at {event.mode}, three kept")
        if event.effort_spent:
            notes.append(f"Effort spent: +{event.effort_bonus} successes")
        if isinstance(event, ev.ContestRolled) and event.vs_effort_spent:
            notes.append(
                f"{event.opponent or event.vs_character} spent Effort: "
                f"+{event.vs_effort_bonus} successes ({event.vs_attribute})"
            )
        return notes
