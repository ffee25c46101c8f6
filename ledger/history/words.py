"""Words: the one place an event becomes a line a person reads (CLI, recap, web).

:func:`line` asks the campaign's rule system first (:meth:`RuleSystem.describe`), then the
core's table (:data:`CORE_WORDS`), else a generic ``type: field=value`` line, and gives a
:class:`LogLine` (seq, text, GM-only, correction mark) that the CLI, the recap and the web
view render; none of them parses text back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec


@dataclass(frozen=True)
class LogLine:
    """One entry of the log as a person reads it (``campaign log``, the table shell, the web
    view's live log, recaps).

    :ivar seq: the event's place in the log.
    :ivar text: the words, without the seq (``"Julian Hargrave — Investigate +3, ..."``).
    :ivar gm: a GM-only event (its text is the GM's: never shown to players).
    :ivar mark: ``"retracted"`` or ``"amended"`` when a correction in force says so, else ``""``.
    """

    seq: int
    text: str
    gm: bool = False
    mark: str = ""

    def __str__(self) -> str:
        return f"[{self.seq}] {self.text}"


def line(campaign: Any, rec: Any, corrections: Any = None) -> LogLine:
    """One event as a :class:`LogLine`: the rule system's words first
    (:meth:`~ledger.rules.system.RuleSystem.describe`), then the core's (:data:`CORE_WORDS`),
    else the event's type and fields (:func:`generic`).

    A line that starts with the character id (``"julian: ..."``, the plugin convention)
    starts with the character's name instead: ``"Julian Hargrave — ..."``.

    :param corrections: the corrections in force (:meth:`Campaign.corrections`), to mark a
        retracted or amended entry; ``None``: no mark.
    """
    mark = ""
    if corrections is not None:
        if rec.seq in corrections.retracted:
            mark = "retracted"
        elif rec.seq in corrections.amended:
            mark = "amended"
    return LogLine(rec.seq, text_of(campaign, rec), rec.visibility == "gm", mark)


def text_of(campaign: Any, rec: Any) -> str:
    """:attr:`LogLine.text` of one event (see :func:`line`)."""
    if rec.type == "correction.recorded":
        from ledger.campaign.corrections import sentence

        return f"Correction: {sentence(campaign, rec)}"
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
        return str(text)
    data = msgspec.to_builtins(rec.data)
    data.pop("type", None)
    fields = ", ".join(f"{k}={v}" for k, v in data.items() if k not in ("draws", "scheme"))
    return f"{rec.type}: {fields}"


def describe(campaign: Any, rec: Any) -> str:
    """One human line for an event, with its seq: ``"[12] Julian Hargrave — ..."``
    (``str`` of :func:`line`)."""
    return str(line(campaign, rec))


def _names(campaign: Any) -> dict[str, str]:
    """The campaign's character names, read once per campaign object."""
    names = getattr(campaign, "_cli_names", None)
    if names is None:
        names = campaign._cli_names = campaign.characters()
    return names


def _correction(d: Any) -> str:
    verb = "retracted" if d.action == "retract" else f"amended ({d.data})"
    return f"Correction: event {d.target} {verb} — {d.reason}"


#: The core's own events in words, by type tag: ``{tag: fn(payload) -> text}``.
CORE_WORDS: dict[str, Callable[[Any], str]] = {
    "campaign.created": lambda d: f"Campaign {d.title!r} created ({d.system})",
    "character.created": lambda d: (
        f"{d.name} joins the campaign (id {d.character}"
        + (f", played by {d.player}" if d.player else "")
        + ")"
    ),
    "session.started": lambda d: (
        f"Session {d.number} started (seed commitment {d.seed_commitment[:16]}…)"
    ),
    "session.ended": lambda d: f"Session {d.number} ended (seed revealed: {d.seed_reveal[:16]}…)",
    "session.abandoned": lambda d: f"Session {d.number} abandoned, its seed lost: {d.reason}",
    "downtime.committed": lambda d: (
        f"Downtime seed after session {d.number} committed "
        f"({d.seed_commitment[:16]}…; advancement dice draw from it)"
    ),
    "downtime.revealed": lambda d: (
        f"Downtime seed after session {d.number} revealed: {d.seed_reveal[:16]}…"
    ),
    "downtime.abandoned": lambda d: (
        f"Downtime seed after session {d.number} abandoned, lost: {d.reason}"
    ),
    "scene.started": lambda d: "Scene started" + (f": {d.title}" if d.title else ""),
    "scene.ended": lambda d: "Scene ended" + (f": {d.title}" if d.title else ""),
    "note.added": lambda d: (f"{d.character}: " if d.character else "") + f"Note: {d.text}",
    "contest.opposed": lambda d: (
        f"{d.character}: opposes the roll of {d.roller} (event {d.roll})"
    ),
    "correction.recorded": _correction,
}


def describe_core(rec: Any) -> str | None:
    """Words for the core's own events (:data:`CORE_WORDS`; ``None`` for others)."""
    words = CORE_WORDS.get(rec.type)
    return words(rec.data) if words is not None else None


def generic(type_: str, event: Any) -> str:
    """An event no rule system describes, as a recap words it: its type in words and its
    non-empty fields (``"trait gained: trait Brave"``)."""
    data = msgspec.to_builtins(event)
    data.pop("type", None)
    fields = ", ".join(
        f"{k.replace('_', ' ')} {v}"
        for k, v in data.items()
        if k not in ("draws", "scheme") and v not in (None, "", [], {})
    )
    words = type_.split(".", 1)[-1].replace("_", " ")
    return f"{words}: {fields}" if fields else words
