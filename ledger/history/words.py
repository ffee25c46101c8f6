"""Words: the one place an event becomes a line a person reads (CLI, recap, web).

:func:`line` asks the campaign's rule system first (:meth:`RuleSystem.describe`), then the
core's table (:data:`CORE_WORDS`), else a generic ``type: field=value`` line, and gives a
:class:`LogLine` (seq, text, GM-only, correction mark) that the CLI, the recap and the web
view render; none of them parses text back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.campaign.corrections import RANDOMNESS_FIELDS, in_force, input_fields, payload_of
from ledger.events import CharacterCreated, ContestOpposed, Corrected, Recorded, Roll
from ledger.rules.projection import companions_of

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign


#: How a players' view of the log shows a GM-only event at its place (its seq, nothing else).
GM_ONLY_ENTRY = "GM-only entry"


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


def line(campaign: Campaign, rec: Any, corrections: Any = None) -> LogLine:
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


def text_of(campaign: Campaign, rec: Any) -> str:
    """:attr:`LogLine.text` of one event (see :func:`line`)."""
    if rec.type == "correction.recorded":
        return f"Correction: {sentence(campaign, rec)}"
    text = campaign.system.describe(rec.data) or describe_core(rec)
    if rec.type == "roll.requested":
        text = request_words(campaign.system, rec.data)
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


def describe(campaign: Campaign, rec: Any) -> str:
    """One human line for an event, with its seq: ``"[12] Julian Hargrave — ..."``
    (``str`` of :func:`line`)."""
    return str(line(campaign, rec))


def _names(campaign: Campaign) -> dict[str, str]:
    """The campaign's character names, read once per campaign object."""
    names: dict[str, str] | None = getattr(campaign, "_cli_names", None)
    if names is None:
        names = campaign.characters()
        setattr(campaign, "_cli_names", names)  # noqa: B010 - a cache on the object, not a member
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
    "roll.requested": lambda d: request_words(None, d),  # the campaign's words: text_of
    "time.passed": lambda d: time_words(d),
    "roll.withdrawn": lambda d: f"{d.character}: roll request {d.request} withdrawn — {d.reason}",
    "checkpoint.key": lambda d: f"Checkpoint key recorded: {d.vkey}",
    "encounter.started": lambda d: encounter_words(d),
    "encounter.hidden_joined": lambda d: (
        f"Encounter {d.encounter}: {d.participant.name} joins, hidden"
        + (f" (initiative {d.participant.initiative})" if d.participant.initiative is not None else "")
    ),
    "encounter.turn": lambda d: f"Round {d.round}: {d.turn}'s turn",
    "encounter.hidden_turn": lambda d: f"Round {d.round}: {d.turn}'s turn (hidden)",
    "encounter.action": lambda d: (
        f"{d.character}: spends {d.actions} action{'s' if d.actions != 1 else ''}"
        + (f": {d.what}" if d.what else "")
    ),
    "encounter.ended": lambda d: f"Encounter ended in round {d.round}",
    "roll.imported": lambda d: imported_words(d),
    "chronicle.signed": lambda d: (
        f"{d.character}: chronicle entry for session {d.session} signed on the checkpoint of "
        f"{d.checkpoint} events (passport {d.passport[:8]}…)"
    ),
    "chronicle.cosigned": lambda d: (
        f"{d.character}: the player's phone {d.vkey.split('+', 1)[0]} cosigned the chronicle "
        f"entry for session {d.session} ({d.entry[:16]}…)"
    ),
    "character.joined": lambda d: joined_words(d),
}


def joined_words(d: Any) -> str:
    """A ``character.joined`` in words, then the history it carried in ("Before this
    table: ...", :func:`ledger.history.passports.before_line`): the log, ``campaign
    play`` and the recap all show it so."""
    from ledger.history.passports import before_line

    carried = before_line(d.text)
    return (
        f"{d.character}: joins from passport {d.passport[:8]}…, signed by {d.table} "
        f"(its last entry {d.head[:16]}…)" + (f". {carried}" if carried else "")
    )


#: Each tool an imported roll comes from, as its name is written.
TOOL_NAMES = {"foundry": "Foundry VTT", "roll20": "Roll20"}


def request_words(system: Any, d: Any) -> str:
    """A ``roll.requested`` in words, its options as the book names them
    (:meth:`~ledger.rules.form.RollForm.roll_words`): ``"isa: asked to roll Forage (with
    time and tools), of Dana: waiting for the answer from their device"``. Without a
    ``system`` the options are named by their labels' defaults (``help_from`` → "help
    from")."""
    if system is None:
        from ledger.rules.form import RollForm

        system = RollForm()
    said = system.roll_words(d.params)
    return (
        f"{d.character}: asked to roll"
        + (f" {d.skill}" if d.skill else "")
        + (f" ({said})" if said else "")
        + (f", of {d.asked}" if d.asked else "")
        + ": waiting for the answer from their device"
    )


def imported_words(d: Any) -> str:
    """A ``roll.imported`` in words, always saying where it came from:
    ``"ann: rolled 1d20+5 = 19 (faces 14) — Perception; imported from Roll20, not
    verifiable"``."""
    faces = f" (faces {' '.join(str(f) for _, f in d.dice)})" if d.dice else ""
    total = f" = {d.total}" if d.total is not None else ""
    label = f" — {d.label}" if d.label else ""
    tool = TOOL_NAMES.get(d.tool, d.tool)
    return (
        f"{d.character}: rolled {d.formula}{total}{faces}{label}; imported from {tool}, "
        "not verifiable"
    )


def encounter_words(d: Any) -> str:
    """An ``encounter.started`` in words: ``"Encounter begins: Julian (3), Thug (2)"``."""
    who = ", ".join(
        p.name + (f" ({p.initiative})" if p.initiative is not None else "") for p in d.participants
    )
    return "Encounter begins" + (f" ({d.title})" if d.title else "") + f": {who}"


def time_words(d: Any) -> str:
    """A ``time.passed`` in words: ``"Time passes: a night's sleep (8 h, resting)"``."""
    from ledger.rules.spans import span_words

    said = span_words(d.minutes)
    how = [said] if said.replace(" ", "") != d.words.replace(" ", "") else []
    how += ["resting"] if d.rest else []
    how += ["with care"] if d.care else []
    return f"Time passes: {d.words}" + (f" ({', '.join(how)})" if how else "")


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


#: The longest generic one-line summary of an event's fields.
_LONGEST = 160


def _show(value: Any) -> str:
    """A field value as a person reads it: faces and lists joined, None as —."""
    if value is None:
        return "—"
    if isinstance(value, list):
        return " ".join(_show(v) for v in value) or "—"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_show(v)}" for k, v in value.items()) or "—"
    return str(value)


def _changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """``"field old → new"`` for each changed field (sheets flattened, faces for draws)."""
    from ledger.rules.changes import flatten

    out = []
    for key in before.keys() | after.keys():
        old, new = before.get(key), after.get(key)
        if old == new or key in ("nonce", "client_seed", "scheme", "source"):
            continue
        if key == "draws":
            out.append(
                f"faces {_show([v for _, v in old or []])} → {_show([v for _, v in new or []])}"
            )
        elif isinstance(old, dict) and isinstance(new, dict):
            fo, fn = flatten(old, key), flatten(new, key)
            out.extend(
                f"{k} {fo.get(k, '—')} → {fn.get(k, '—')}"
                for k in sorted(fo.keys() | fn.keys())
                if fo.get(k) != fn.get(k)
            )
        else:
            out.append(f"{key} {_show(old)} → {_show(new)}")
    return sorted(out)


def summary(campaign: Campaign, event: Any, stream: str) -> str:
    """One line for an event's payload: the system's description, else its fields."""
    text = campaign.system.describe(event)
    tag = type(event).__struct_config__.tag
    if not text and isinstance(tag, str) and tag.startswith("encounter."):  #
        text = CORE_WORDS[tag](event)
    if not text and isinstance(event, CharacterCreated):
        text = f"{event.name} joins the campaign (id {event.character})"
    if not text:
        fields = payload_of(event)
        text = ", ".join(f"{k} {_show(v)}" for k, v in fields.items() if k not in RANDOMNESS_FIELDS)
        if len(text) > _LONGEST:
            text = text[: _LONGEST - 1] + "…"
    if text.startswith(f"{stream}:"):
        name = campaign.characters(include_retracted=True).get(stream, stream)
        text = f"{name} — {text[len(stream) + 1 :].strip()}"
    return " ".join(text.split())


def sentence(campaign: Campaign, crec: Recorded) -> str:
    """What a correction changed, and the result after it, in one line.

    ``"event 88 amended by gm (typo): dr 1 → 2; now outcome failure, margin -1"``;
    ``"event 9 retracted by gm (never happened); it no longer counts (was: Ann — hurt 3)"``.
    For an amended roll the changed inputs come first, then ``now`` and the re-derived
    results that changed.
    """
    corr = crec.data
    assert isinstance(corr, Corrected)
    target = campaign.record(corr.target)
    head = f"event {corr.target} {corr.action}ed by {crec.actor} ({corr.reason})"
    before_corr = campaign.corrections(crec.seq - 1)
    before = in_force(campaign, target, before_corr)
    if target.type == "correction.recorded":
        assert isinstance(target.data, Corrected)
        return f"{head}: correction {target.seq} of event {target.data.target} is undone"
    if corr.action == "retract":
        was = f" (was: {summary(campaign, before, target.stream)})" if before is not None else ""
        return f"{head}; it no longer counts{was}" + _companion_words(campaign, corr)
    return _amended_sentence(campaign, corr, target, head, before) + _companion_words(
        campaign, corr
    )


def _companion_words(campaign: Campaign, corr: Corrected) -> str:
    """What a correction did to the harm and follow-ups of its roll (``""``: nothing)."""
    words = []
    for seq, data in companions_of(corr).items():
        link = campaign.record(seq - 1).data
        what = "its harm" if isinstance(link, ContestOpposed) and link.harm == seq else "with it"
        if data is None:
            words.append(f"; {what} (event {seq}) no longer counts")
        else:
            rec = campaign.record(seq)
            now = campaign.codec.amended(rec.type, data)
            words.append(f"; {what} (event {seq}) now: {summary(campaign, now, rec.stream)}")
    return "".join(words)


def _amended_sentence(
    campaign: Campaign, corr: Corrected, target: Recorded, head: str, before: Any
) -> str:
    """The sentence of an amendment: the inputs changed, then the results that follow."""
    after = payload_of(campaign.codec.amended(target.type, corr.data or {}))
    old = payload_of(before) if before is not None else {}
    if isinstance(before, Roll):
        inputs = input_fields(campaign.system, before) or set()
        inputs |= {"draws"}
        given = {k: v for k, v in after.items() if k in inputs}
        derived = {k: v for k, v in after.items() if k not in inputs}
        changed = _changes({k: old.get(k) for k in given}, given)
        now = [
            f"{k} {_show(v)}"
            for k, v in derived.items()
            if v != old.get(k) and k not in RANDOMNESS_FIELDS
        ]
        text = f"{head}: {', '.join(changed) or 'no input changed'}"
        return text + (f"; now {', '.join(now)}" if now else "; the result stands")
    changed = _changes(old, after)
    return f"{head}: {', '.join(changed) or 'nothing changed'}"
