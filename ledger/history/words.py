"""Words: the one place an event becomes a line a person reads (CLI, recap, web).

:func:`describe` asks the campaign's rule system first (:meth:`RuleSystem.describe`), then
the core's table (:func:`describe_core`), else a generic ``type: field=value`` line.
"""

from __future__ import annotations

from typing import Any

import msgspec


def describe(campaign: Any, rec: Any) -> str:
    """One human line for an event: the rule system's, the core's, else a generic one.

    A line that starts with the character id (``"julian: ..."``, the plugin convention)
    starts with the character's name instead: ``"Julian Hargrave — ..."``.
    """
    if rec.type == "correction.recorded":
        from ledger.campaign.corrections import sentence

        return f"[{rec.seq}] Correction: {sentence(campaign, rec)}"
    text = campaign.system.describe(rec.data) or describe_core(rec)
    if rec.type == "contest.opposed":
        roller = rec.data.roller
        text = f"{rec.stream}: opposes {_names(campaign).get(roller, roller)}'s roll (event {rec.data.roll})"
    if text:
        stream = rec.stream
        if text.startswith(f"{stream}:"):
            names = _names(campaign)
            if stream in names:
                text = f"{names[stream]} — {text[len(stream) + 1 :].strip()}"
        return f"[{rec.seq}] {text}"
    data = msgspec.to_builtins(rec.data)
    data.pop("type", None)
    fields = ", ".join(f"{k}={v}" for k, v in data.items() if k not in ("draws", "scheme"))
    return f"[{rec.seq}] {rec.type}: {fields}"


def _names(campaign: Any) -> dict[str, str]:
    """The campaign's character names, read once per campaign object."""
    names = getattr(campaign, "_cli_names", None)
    if names is None:
        names = campaign._cli_names = campaign.characters()
    return names


def describe_core(rec: Any) -> str | None:
    """Lines for the core's own events (``None`` for others)."""
    d = rec.data
    match rec.type:
        case "campaign.created":
            return f"Campaign {d.title!r} created ({d.system})"
        case "character.created":
            player = f", played by {d.player}" if d.player else ""
            return f"{d.name} joins the campaign (id {d.character}{player})"
        case "session.started":
            return f"Session {d.number} started (seed commitment {d.seed_commitment[:16]}…)"
        case "session.ended":
            return f"Session {d.number} ended (seed revealed: {d.seed_reveal[:16]}…)"
        case "session.abandoned":
            return f"Session {d.number} abandoned, its seed lost: {d.reason}"
        case "downtime.committed":
            return (
                f"Downtime seed after session {d.number} committed "
                f"({d.seed_commitment[:16]}…; advancement dice draw from it)"
            )
        case "downtime.revealed":
            return f"Downtime seed after session {d.number} revealed: {d.seed_reveal[:16]}…"
        case "downtime.abandoned":
            return f"Downtime seed after session {d.number} abandoned, lost: {d.reason}"
        case "scene.started" | "scene.ended":
            verb = "started" if rec.type == "scene.started" else "ended"
            return f"Scene {verb}" + (f": {d.title}" if d.title else "")
        case "note.added":
            return (f"{d.character}: " if d.character else "") + f"Note: {d.text}"
        case "contest.opposed":
            return f"{d.character}: opposes the roll of {d.roller} (event {d.roll})"
        case "correction.recorded":
            verb = "retracted" if d.action == "retract" else f"amended ({d.data})"
            return f"Correction: event {d.target} {verb} — {d.reason}"
    return None
