"""The live log page of ``campaign serve``: its entries, filters and the "recorded"
banner; the live stream (``/events``, :mod:`ledger.web.pages`) renders its entries here too.

An entry is a dict the templates show (``_entry.html.j2``): the words of the event
(:func:`ledger.history.words.line`), the ✔ ◐ ✘ mark of a roll's verdict (the CLI's and the
recap's, :data:`ledger.history.recap.MARKS`), and whether an engine roll is *verifiable*:
its session's seed (or its downtime seed) is revealed, so anyone can recompute its dice
from the log alone (``campaign audit`` and the audit page do; the badge promises no more
than that the check is possible, and it is cheap: one read of the reveals per page).

Filters are query parameters (``?mine=1``, ``?character=ID``, ``?session=N``, ``?rolls=1``)
read by the page itself, so they work without JavaScript; the live page applies the same
filter to the entries the stream brings (``log-page.js``, from the list's ``data-``
attributes). A filtered view never shows a GM-only entry's stub: whether it is of a
character, a session or a roll is the GM's to know, and showing it under a filter would say
so (:func:`ledger.rules.projection.iter_log`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from ledger.events import DowntimeRevealed, SessionEnded, SessionStarted
from ledger.web import access as accessmod
from ledger.web.common import PAGE_ENTRIES, Viewer, render

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: What the "verifiable" badge promises, word for word on the page (its ``title`` and the
#: legend under the log).
VERIFIABLE_PROMISE = (
    "its session's seed is revealed: anyone can recompute these dice from the log alone "
    "(the audit does it)"
)

#: A roll's verdict in words, for the banner and the mark's text alternative.
VERDICT_WORDS = {"success": "success", "mixed": "mixed result", "failure": "failure"}


def revealed_seeds(campaign: Campaign) -> set[tuple[str, int]]:
    """The seeds revealed so far, as ``("session", N)`` (``session.ended``) and
    ``("downtime", N)`` (``downtime.revealed``): public events, one read."""
    out: set[tuple[str, int]] = set()
    for rec in campaign.records(as_gm=False, types=["session.ended", "downtime.revealed"]):
        kind = "session" if rec.type == "session.ended" else "downtime"
        assert isinstance(rec.data, SessionEnded | DowntimeRevealed)
        out.add((kind, int(rec.data.number)))
    return out


def seed_of(rec: Any) -> str | None:
    """The seed an engine roll draws from, as the page names it: ``"session:N"`` or
    ``"downtime:N"`` (``None``: not an engine roll of a session)."""
    from ledger.dice.engine import DOWNTIME_SCHEME

    event = rec.data
    if getattr(event, "source", None) != "engine" or rec.session is None:
        return None
    return f"{'downtime' if event.scheme == DOWNTIME_SCHEME else 'session'}:{rec.session}"


def reveal_of(rec: Any) -> str | None:
    """The seed an event reveals, named as :func:`seed_of` names it (``None``: none)."""
    if rec.type in ("session.ended", "downtime.revealed"):
        return f"{'session' if rec.type == 'session.ended' else 'downtime'}:{rec.data.number}"
    return None


def entry(
    campaign: Campaign,
    rec: Any,
    corrections: Any,
    revealed: set[tuple[str, int]] | None = None,
    names: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """One log line as the templates show it: ``seq``, ``text``, ``gm`` (GM-only), ``mark``
    (retracted/amended), ``entered`` (who entered physical dice), ``roll``, ``session``,
    ``character`` (the character id the event is of, else ``None``), ``verdict``
    (``"success"``, ``"mixed"``, ``"failure"`` or ``None``; of the payload in force, none for
    a retracted roll), ``symbol`` (✔ ◐ ✘ or ``""``) and ``outcome`` (the verdict in words),
    ``seed`` (an engine roll's seed, :func:`seed_of`), ``verifiable`` (that seed is
    revealed: :func:`revealed_seeds`, read here when not given) and ``reveals`` (the seed a
    ``session.ended`` or ``downtime.revealed`` reveals, :func:`reveal_of`).
    ``names``: the campaign's characters (read here when not given).
    """
    from ledger.campaign.corrections import in_force
    from ledger.events import Roll
    from ledger.history.recap import MARKS
    from ledger.history.words import line

    said = line(campaign, rec, corrections)
    is_roll = isinstance(rec.data, Roll)
    entered = rec.actor if is_roll and rec.data.source == "physical" else None
    verdict, seed = None, seed_of(rec) if is_roll else None
    if is_roll:
        now = in_force(campaign, rec, corrections) if corrections is not None else rec.data
        verdict = campaign.system.verdict(now) if now is not None else None
    if seed is not None and revealed is None:
        revealed = revealed_seeds(campaign)
    names = campaign.characters() if names is None else names
    return {
        "seq": said.seq,
        "text": said.text,
        "gm": said.gm,
        "mark": said.mark,
        "entered": entered,
        "roll": is_roll or rec.type == "roll.imported",  # an imported roll is a roll too
        "session": rec.session,
        "character": rec.stream if rec.stream in names else None,
        "verdict": verdict,
        "symbol": MARKS.get(verdict or "", ""),
        "outcome": VERDICT_WORDS.get(verdict or ""),
        "seed": seed,
        "verifiable": seed is not None and tuple_of(seed) in (revealed or set()),
        "reveals": reveal_of(rec),
    }


def tuple_of(seed: str) -> tuple[str, int]:
    """``"session:3"`` as ``("session", 3)`` (:func:`revealed_seeds`' shape)."""
    kind, _, number = seed.partition(":")
    return kind, int(number)


def stub_entry(seq: int) -> dict[str, Any]:
    """A GM-only event in a player's log: its seq and "GM-only entry", nothing else
    (``stub``: the template shows no audit link, no badge, no text of the event)."""
    from ledger.history.words import GM_ONLY_ENTRY

    return {"seq": seq, "stub": True, "text": GM_ONLY_ENTRY, "gm": False, "mark": "",
            "entered": None, "roll": False, "session": None, "character": None,
            "verdict": None, "symbol": "", "outcome": None, "seed": None,
            "verifiable": False, "reveals": None}  # fmt: skip


def log_entries(
    campaign: Campaign, *, as_gm: bool, after: int, upto: int
) -> Iterator[dict[str, Any]]:
    """The log lines of ``after < seq <= upto`` in the view asked for: a player's has a
    :func:`stub_entry` where a GM-only event stands. Each line carries its event's chain
    hashes, ``hash`` and ``prev_hash`` (a stub's too: what a player's export shows of it)."""
    from ledger.rules.projection import GmOnlyEntry, iter_log

    corrections = campaign.corrections()
    revealed = revealed_seeds(campaign)
    names = campaign.characters()
    for rec in iter_log(
        campaign.store, campaign.id, campaign.codec, as_gm=as_gm, after=after, upto=upto
    ):
        if isinstance(rec, GmOnlyEntry):
            line = stub_entry(rec.seq)
            hashes = {"hash": rec.hash, "prev_hash": rec.prev_hash}
        else:
            line = entry(campaign, rec, corrections, revealed, names)
            hashes = {"hash": rec.stored.hash, "prev_hash": rec.stored.prev_hash}
        yield {**line, **hashes}


def entry_html(e: dict[str, Any]) -> str:
    """One log line as HTML on one line (for an SSE ``data:`` field)."""
    return " ".join(render("_entry.html.j2", e=e, promise=VERIFIABLE_PROMISE).split("\n"))


# --- filters ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class LogFilter:
    """What the log page shows: everything, or only the entries of the viewer's characters
    (``mine``), of one ``character`` (an id), of one ``session`` (a number), rolls only
    (``rolls``); the conditions given all hold."""

    mine: bool = False
    character: str | None = None
    session: int | None = None
    rolls: bool = False

    @property
    def active(self) -> bool:
        """Is anything filtered out?"""
        return self.mine or self.rolls or self.character is not None or self.session is not None

    def matches(self, e: Mapping[str, Any], mine: Mapping[str, str]) -> bool:
        """Does entry ``e`` pass? A stub never does once a filter is on (see the module)."""
        if not self.active:
            return True
        if e.get("stub"):
            return False
        if self.mine and e["character"] not in mine:
            return False
        if self.character is not None and e["character"] != self.character:
            return False
        if self.session is not None and e["session"] != self.session:
            return False
        return not (self.rolls and not e["roll"])

    def query(self, **changes: Any) -> str:
        """This filter (with ``changes``) as a query string for a link (``"?rolls=1"``;
        ``""`` for no filter)."""
        f = replace(self, **changes)
        params: dict[str, str] = {}
        if f.mine:
            params["mine"] = "1"
        if f.character is not None:
            params["character"] = f.character
        if f.session is not None:
            params["session"] = str(f.session)
        if f.rolls:
            params["rolls"] = "1"
        return "?" + urlencode(params) if params else ""

    def words(self, names: Mapping[str, str]) -> str:
        """The filter in words: ``"Isa Marrow's rolls in session 2"``."""
        what = "rolls" if self.rolls else "entries"
        if self.character is not None:
            head = f"{names.get(self.character, self.character)}'s {what}"
        elif self.mine:
            head = f"your characters' {what}"
        else:
            head = f"every {what[:-1]}" if not self.rolls else "every roll"
        if self.session is not None:
            head += f" in session {self.session}"
        return head[0].upper() + head[1:]


def _flag(params: Mapping[str, str], name: str) -> bool:
    return params.get(name, "").strip().lower() in ("1", "on", "yes", "true")


def read_filter(
    params: Mapping[str, str],
    visible: Mapping[str, str],
    sessions: Mapping[int, Any],
    mine: Mapping[str, str],
) -> tuple[LogFilter, list[str]]:
    """The filter a request asks for, and a sentence for each part of it that cannot be
    honoured (left out: the page shows what it can and says why).

    :param visible: the characters the viewer may see (``{id: name}``).
    :param sessions: the campaign's session numbers (keys).
    :param mine: the viewer's own characters.
    """
    notes: list[str] = []
    character = params.get("character", "").strip() or None
    if character is not None and character not in visible:
        notes.append(f"There is no character “{character[:40]}” here: showing every character.")
        character = None
    session: int | None = None
    text = params.get("session", "").strip()
    if text:
        if text.isdigit() and len(text) < 10 and int(text) in sessions:
            session = int(text)
        else:
            notes.append(f"There is no session {text[:12]} yet: showing every session.")
    wants_mine = _flag(params, "mine")
    if wants_mine and not mine:
        notes.append("You play no character here: showing everyone's entries.")
        wants_mine = False
    return LogFilter(wants_mine, character, session, _flag(params, "rolls")), notes


def session_spans(campaign: Campaign) -> dict[int, tuple[int, int | None]]:
    """``{number: (seq of session.started, seq of the next session.started or None)}``:
    where each session's entries can be (its downtime follows its end)."""
    starts = [
        (int(rec.data.number), rec.seq)
        for rec in campaign.records(as_gm=False, types=["session.started"])
        if isinstance(rec.data, SessionStarted)
    ]
    out: dict[int, tuple[int, int | None]] = {}
    for i, (number, seq) in enumerate(starts):
        out[number] = (seq, starts[i + 1][1] if i + 1 < len(starts) else None)
    return out


# --- the page --------------------------------------------------------------------------------


def banner(campaign: Campaign, viewer: Viewer, text: str, head: int) -> dict[str, Any] | None:
    """The "Recorded #N — success" confirmation for ``?recorded=N`` (the roll form sends
    the player here after a roll): the entry in the viewer's view, its verdict in words;
    ``None`` for anything else (no such seq, or GM-only to a player: nothing is said)."""
    from ledger.errors import NotFound

    text = text.strip()
    if not text.isdigit() or len(text) > 18 or not 1 <= int(text) <= head:
        return None
    try:
        rec = campaign.record(int(text))
    except NotFound:
        return None
    if rec.visibility == "gm" and not viewer.as_gm:
        return None
    e = entry(campaign, rec, campaign.corrections())
    return e


def log_page(campaign: Campaign, viewer: Viewer, request: Request) -> Response:
    """``/log``: the live log (an ARIA ``role="log"`` list, oldest first, the page opened at
    the newest), filtered as the query asks (:func:`read_filter`), with the "Recorded #N"
    banner for ``?recorded=N``."""
    head = campaign.store.head(campaign.id).seq
    visible = accessmod.visible_characters(campaign, as_gm=viewer.as_gm)
    mine = {} if viewer.as_gm else accessmod.characters_of(campaign, viewer.access)
    spans = session_spans(campaign)
    flt, notes = read_filter(request.query_params, visible, spans, mine)
    after, upto = 0, head
    if flt.session is not None:
        start, following = spans[flt.session]
        after, upto = start - 1, head if following is None else following - 1
    after = max(after, upto - PAGE_ENTRIES)
    entries = [
        e
        for e in log_entries(campaign, as_gm=viewer.as_gm, after=after, upto=upto)
        if flt.matches(e, mine)
    ]
    done = banner(campaign, viewer, request.query_params.get("recorded", ""), head)
    html = render(
        "log.html.j2",
        viewer=viewer,
        campaign=campaign,
        entries=entries,
        head=head,
        flt=flt,
        notes=notes,
        characters=visible,
        mine=mine,
        sessions=sorted(spans),
        recorded=done,
        promise=VERIFIABLE_PROMISE,
    )
    return HTMLResponse(html)
