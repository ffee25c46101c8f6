"""What a Spellwoven event means at the table, and what changed on a character, in the rule
text's words (004_663ae3e4ecc71fd1.txt): "Attributes and Effort", "Advantage &
Disadvantage", "Skills", "Conditions".

:func:`recap_notes` gives the notes a recap shows beside an event; :func:`change_sentences`
the sentences of :meth:`ledger.RuleSystem.describe_changes` ("Effort 1/2", "Climb rose to
5", "now Embarrassed").
"""

from __future__ import annotations

from typing import Any

from .events import ContestRolled, TestRolled
from .sheet import Character

HANDLED = ("id", "name", "attributes", "skills", "specialisations", "effort", "effort_max",
           "conditions", "last_roll", "scene_rolls")
"""Fields :func:`change_sentences` words itself (the rest get the generic wording of
:meth:`ledger.RuleSystem.generic_changes`); ``last_roll`` and ``scene_rolls`` are bookkeeping
for ``campaign effort`` and never worded."""


def recap_notes(record: Any) -> list[str]:
    """Rule notes for one recorded event (``[]`` when there is nothing to add)."""
    event = record.data
    notes = []
    if isinstance(event, TestRolled | ContestRolled):
        if event.kept is not None:
            notes.append(f"four dice rolled at {event.mode}, three kept")
        if event.effort_spent:
            notes.append(f"Effort spent: +{event.effort_bonus} successes")
        if isinstance(event, ContestRolled) and event.vs_effort_spent:
            notes.append(
                f"{event.opponent or event.vs_character} spent Effort: "
                f"+{event.vs_effort_bonus} successes ({event.vs_attribute})"
            )
    return notes


def change_sentences(before: Character | None, after: Character, *, as_gm: bool) -> list[str]:
    """What changed between two states of one character, as sentences (see module doc);
    fields outside :data:`HANDLED` are left to the generic wording."""
    if before is None:
        return [f"{after.name} joins the story"]
    out: list[str] = []
    for attr, value in after.attributes.items():
        was = before.attributes.get(attr)
        if was is not None and was != value:
            out.append(f"{attr} {'rose' if value > was else 'fell'} to {value}")
    for kind, old, new in (("skill", before.skills, after.skills),
                           ("specialisation", before.specialisations, after.specialisations)):
        for name, entry in new.items():
            was_e = old.get(name)
            if was_e is None:
                out.append(f"new {kind} {name} {entry.rank}")
            elif was_e.rank != entry.rank:
                verb = "rose" if entry.rank > was_e.rank else "fell"
                out.append(f"{name} {verb} to {entry.rank}")
        out.extend(f"{kind} {name} lost" for name in old if name not in new)
    if (after.effort, after.effort_max) != (before.effort, before.effort_max):
        if after.effort == after.effort_max and after.effort > before.effort:
            out.append(f"Effort refreshed ({after.effort}/{after.effort_max})")
        else:
            out.append(f"Effort {before.effort} → {after.effort} (of {after.effort_max})")
    out.extend(f"now {c}" for c in after.conditions if c not in before.conditions)
    out.extend(f"no longer {c}" for c in before.conditions if c not in after.conditions)
    return [s[:1].upper() + s[1:] for s in out]
