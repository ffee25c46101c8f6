"""Session recaps, replayed from the log (never from stored summaries).

:func:`build_recap` gathers one session's story: its events in order (each with the rule
system's one-line description, who rolled and with what dice, the corrections touching it),
every character's sheet at the start and end of the session and what changed, the
advancement appended for it, and the seed commitment, reveal and receipt. :func:`render`
turns it into Markdown (pastes cleanly into a chat) or one self-contained HTML page.

Visibility: a player's recap (``as_gm=False``, what ``campaign recap`` gives unless asked
``--as gm``) leaves GM-only events out entirely and compares sheets replayed without them, so
no GM-only value or anything derived from one appears in it. The GM's recap marks GM-only
events and every sheet change players do not see as it is ("[GM]").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ledger.events import Corrected, NoteAdded, Roll
from ledger.history.report import session_receipt
from ledger.history.words import describe_core, generic
from ledger.templating import environment

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign


@dataclass
class Line:
    """One event in a recap's timeline."""

    seq: int
    kind: str  # "roll", "correction", "session", "scene", "advancement", "note", "event"
    character: str | None
    text: str
    source: str | None = None
    dice: list[list[int]] = field(default_factory=list)
    show_dice: bool = False  # the text does not show the dice itself: draw them beside it
    verdict: str | None = None  # a roll's "success", "mixed" or "failure" (RuleSystem.verdict)
    corrections: list[str] = field(default_factory=list)
    struck: bool = False
    extra: list[str] = field(default_factory=list)
    hidden: bool = False  # a GM-only event (only in the GM's recap, marked [GM])


@dataclass
class CharacterChanges:
    """What changed on a character over the session, in the rule system's sentences
    (:meth:`ledger.rules.system.RuleSystem.describe_changes`)."""

    id: str
    name: str
    rolls: int
    changes: list[str]
    gm_only: list[str] = field(default_factory=list)  # sentences players do not see


@dataclass
class Recap:
    """Everything a recap shows (see :func:`build_recap`)."""

    campaign: str
    title: str
    system: str
    system_name: str
    session: int
    as_gm: bool
    started_at: str | None
    ended_at: str | None
    seed_commitment: str | None
    seed_reveal: str | None
    receipt: str | None
    lines: list[Line]
    characters: list[CharacterChanges]
    engine_rolls: int = 0
    physical_rolls: int = 0
    #: the in-fiction time that passed in the session, in words ("1 day 6 h"; "" for none)
    time_passed: str = ""


def build_recap(campaign: Campaign, number: int, *, as_gm: bool) -> Recap:
    """Replay session ``number`` into a :class:`Recap`.

    :raises ledger.errors.NotFound: the session was never started.
    """
    from ledger.campaign.aggregate import NotFound
    from ledger.rules.plugins import pm

    started = ended = None
    bounds: list[int | None] = [None, None]
    for rec in campaign.records(session=number, types=["session.started", "session.ended"]):
        if rec.data.number == number:  # type: ignore[attr-defined]
            if rec.type == "session.started":
                started, bounds[0] = rec, rec.seq
            else:
                ended, bounds[1] = rec, rec.seq
    if started is None:
        raise NotFound(
            f"session {number} has not been played in {campaign.id} "
            f"(sessions: 1 to {campaign.last_session()})"
            if campaign.last_session()
            else f"no session has been played in {campaign.id} yet"
        )
    names = campaign.characters()
    corrections = campaign.corrections()
    system = campaign.system
    lines: list[Line] = []
    rolls_by: dict[str, int] = {}
    engine = physical = 0
    session_seqs = set()
    # the add-ons' hook, called per line only when an add-on implements it (a call with no
    # implementation still costs a microsecond a line)
    add_ons = pm.hook.recap_lines if pm.hook.recap_lines.get_hookimpls() else None
    for rec in campaign.records(as_gm=as_gm, session=number):
        session_seqs.add(rec.seq)
        event = rec.data
        character = rec.stream if rec.stream in names else None
        described = system.describe(event)
        if rec.type in (
            "chronicle.signed",
            "chronicle.cosigned",
            "character.joined",
        ):  # not the signed note itself
            described = describe_core(rec)
        text = described or generic(rec.type, event)
        if rec.type == "contest.opposed":
            roller = getattr(event, "roller", "")
            text = f"opposes {names.get(roller, roller)}'s roll (event {getattr(event, 'roll', '?')})"
        line = Line(
            seq=rec.seq,
            kind="event",
            character=names.get(character or "", None),
            text=named(text, character, names.get(character or "", "")),
            hidden=rec.visibility == "gm",
        )
        if isinstance(event, Roll):
            line.kind = "roll"
            line.source = event.source
            line.dice = [list(d) for d in event.draws]
            line.show_dice = described is None  # a system's line shows its dice itself
            line.verdict = system.verdict(event)
            rolls_by[rec.stream] = rolls_by.get(rec.stream, 0) + 1
            if event.source == "engine":
                engine += 1
            else:
                physical += 1
            line.extra.append(
                f"{event.source} dice, entered by {rec.actor}"
                if event.source == "physical"
                else f"engine roll, nonce {event.nonce}"
            )
        elif isinstance(event, Corrected):
            line.kind = "correction"
            from ledger.history.words import sentence

            line.text = f"Correction: {sentence(campaign, rec)}"
        elif rec.type.startswith("session."):
            line.kind = "session"
            line.text = f"Session {number} " + (
                "started"
                if rec.type == "session.started"
                else f"abandoned, its seed lost: {getattr(event, 'reason', '')}"
                if rec.type == "session.abandoned"
                else "ended"
            )
        elif rec.type.startswith("downtime."):
            line.kind = "session"
            line.text = {
                "downtime.committed": "Downtime seed committed (advancement dice draw from it)",
                "downtime.revealed": "Downtime seed revealed",
            }.get(rec.type, f"Downtime seed lost: {getattr(event, 'reason', '')}")
        elif isinstance(event, NoteAdded):
            line.kind = "note"
            line.text = event.text
            if event.character:
                line.character = names.get(event.character, event.character)
        elif rec.type == "roll.imported":  # another tool's roll, as it said it
            from ledger.history.words import imported_words

            line.text = imported_words(event).split(": ", 1)[-1]
        elif rec.type == "time.passed" or rec.type.startswith("encounter."):  #
            from ledger.history.words import text_of

            line.kind = "scene"
            line.text = text_of(campaign, rec)  # names for ids ("Isa Marrow — spends ...")
        elif rec.type.startswith("scene."):
            line.kind = "scene"
            title = getattr(event, "title", "")
            line.text = f"Scene {'started' if rec.type == 'scene.started' else 'ended'}" + (
                f": {title}" if title else ""
            )
        elif ended is not None and rec.seq > ended.seq:
            line.kind = "advancement"
        for cseq, corr in corrections.by_target.get(rec.seq, []):
            verb = "retracted" if corr.action == "retract" else "amended"
            line.corrections.append(f"{verb} by event {cseq}: {corr.reason}")
        line.struck = rec.seq in corrections.retracted
        line.extra.extend(system.recap_lines(rec, as_gm=as_gm))
        if add_ons:
            for extra in add_ons(system_id=system.id, record=rec, as_gm=as_gm):
                if extra:
                    line.extra.extend(extra)
        lines.append(line)
    start_seq = (bounds[0] or 1) - 1
    end_seq = max(session_seqs) if session_seqs else campaign.store.head(campaign.id).seq
    changes = []
    for cid, name in names.items():
        diff = _changes(campaign, cid, start_seq, end_seq, as_gm)
        if diff is None:
            continue
        seen = set(_changes(campaign, cid, start_seq, end_seq, False) or []) if as_gm else set()
        gm_only = [s for s in diff if as_gm and s not in seen]
        changes.append(CharacterChanges(cid, name, rolls_by.get(cid, 0), diff, gm_only))
    ended_data: Any = ended.data if ended is not None else None
    return Recap(
        campaign=campaign.id,
        title=campaign.created.title,
        system=system.id,
        system_name=system.name,
        session=number,
        as_gm=as_gm,
        started_at=started.recorded_at,
        ended_at=ended.recorded_at if ended else None,
        seed_commitment=started.data.seed_commitment,  # type: ignore[attr-defined]
        seed_reveal=ended_data.seed_reveal if ended_data is not None else None,
        receipt=session_receipt(campaign, ended) if ended else None,
        lines=lines,
        characters=changes,
        engine_rolls=engine,
        physical_rolls=physical,
        time_passed=_time_passed(campaign, number),
    )


def _time_passed(campaign: Campaign, number: int) -> str:
    """The session's in-fiction time in words, or ``""``."""
    from ledger.campaign.timeline import passed_in_session
    from ledger.rules.spans import span_words

    minutes = passed_in_session(campaign, number)
    return span_words(minutes) if minutes else ""


def named(text: str, character: str | None, name: str) -> str:
    """A rule system's line with the character's id at its start made readable: ``"jen:
    ..."`` and ``"jen — ..."`` lose the id (the recap names the character before the line);
    ``"jen sleeps the night"`` becomes ``"Nimble Jen sleeps the night"``."""
    if not character or not name:
        return text
    for sep in (":", " —"):
        if text.lower().startswith(f"{character}{sep}"):
            return text[len(character) + len(sep) :].strip()
    if text.startswith(f"{character} ") or text.startswith(f"{character}'s "):
        return name + text[len(character) :]
    return text


def _changes(
    campaign: Campaign, cid: str, start_seq: int, end_seq: int, as_gm: bool
) -> list[str] | None:
    """A character's changes over the session as the rule system's sentences (``None``: the
    character does not exist at its end)."""
    after = _state(campaign, cid, end_seq, as_gm)
    if after is None:
        return None
    before = _state(campaign, cid, start_seq, as_gm)
    return campaign.system.describe_changes(before, after, as_gm=as_gm)


def _state(campaign: Campaign, cid: str, upto: int, as_gm: bool) -> Any:
    from ledger.campaign.aggregate import NotFound

    try:
        return campaign.state_of(cid, upto=upto, as_gm=as_gm)
    except NotFound:
        return None


FUDGE = {1: "−", 2: "·", 3: "+"}

MARKS = {"success": "✔", "mixed": "◐", "failure": "✘"}
"""A roll's verdict as a mark that reads without colour (recaps, ``campaign log``)."""


def die_label(sides: int, value: int) -> str:
    """A die face for people: Fudge faces as + · −, others as numbers."""
    return FUDGE[value] if sides == 3 else str(value)


def render(recap: Recap, fmt: str) -> str:
    """The recap as ``"md"`` (Markdown) or ``"html"`` (one self-contained page)."""
    env = environment()
    template = env.get_template("recap.html.j2" if fmt == "html" else "recap.md.j2")
    return template.render(recap=recap, die_label=die_label, marks=MARKS)
