"""What the GM's page (:mod:`ledger.web.gm`) shows: per character the taps of the night
(damage, conditions, experience, a roll request), the rest of the rule system's events as
folded forms built from their msgspec fields, the recent entries with their undo, who is
connected, and a player's new link as a QR code. Pure reads of the GM's view: nothing here
writes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from ledger.campaign import recording
from ledger.rules.fields import describe_type, fields_of, is_list, item_type

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: Recent log entries the page lists with an undo.
RECENT = 8


def said(campaign: Campaign, rec: Any) -> str:
    """An event as the log words it (:func:`ledger.history.words.line`), without its seq
    (the page shows ``#seq``)."""
    from ledger.history.words import line

    return line(campaign, rec).text


def words(short: str) -> str:
    """An event's name as a tap's label: ``hidden-condition-added`` → ``Add a hidden
    condition``, ``experience-marked`` → ``Mark experience``, ``favour-changed`` →
    ``Favour changed``."""
    verbs = {"added": "Add", "taken": "Take", "gained": "Gain", "marked": "Mark",
             "ended": "End", "removed": "End", "cleared": "Clear"}  # fmt: skip
    *rest, last = short.split("-")
    if rest and last in verbs:
        noun = " ".join(rest)
        article = "" if noun.endswith(("experience", "xp", "harm", "stress", "damage")) else "a "
        return f"{verbs[last]} {article}{noun}"
    text = short.replace("-", " ")
    return text[:1].upper() + text[1:]


def book_words(system: Any, cls: type) -> str:
    """The first sentence of an event type's docstring: its help, naming the book and
    section."""
    doc = " ".join((cls.__doc__ or "").split("\n\n")[0].split())
    first = doc.split(". ")[0].rstrip(".")
    return first + "." if first else ""


def field_rows(cls: type, *, skip: tuple[str, ...] = ("character",)) -> list[dict[str, Any]]:
    """One form field per msgspec field of ``cls`` (but ``skip``): ``name``, ``label``,
    ``kind`` (``number``, ``flag``, ``choice``, ``text``), ``choices``, ``required``,
    ``help`` (the type in words, :func:`ledger.rules.fields.describe_type`), ``list``."""
    rows = []
    for name, t, default in fields_of(cls):
        if name in skip:
            continue
        one = item_type(t)
        kinds = one.types if isinstance(one, msgspec.inspect.UnionType) else (one,)
        choices: list[str] = []
        kind = "text"
        for k in kinds:
            if isinstance(k, msgspec.inspect.LiteralType):
                choices += [str(v) for v in k.values]
                kind = "choice"
            elif isinstance(k, msgspec.inspect.EnumType):
                choices += [str(m.value) for m in k.cls]
                kind = "choice"
        if kind == "text" and any(isinstance(k, msgspec.inspect.BoolType) for k in kinds):
            kind = "flag"
        elif kind == "text" and any(isinstance(k, msgspec.inspect.IntType) for k in kinds):
            kind = "number"
        many = is_list(t)
        rows.append(
            {
                "name": name,
                "label": name.replace("_", " "),
                "kind": "text" if many else kind,
                "choices": choices,
                "required": default is msgspec.NODEFAULT,
                "help": describe_type(t).replace(" (repeat the option)", "")
                + (" (several: separate with commas)" if many else ""),
                "list": many,
            }
        )
    return rows


def event_form(
    system: Any, short: str, *, skip: tuple[str, ...] = ("character",)
) -> dict[str, Any]:
    """A recordable event as a form: ``key``, ``label`` (its name in words), ``book`` (what
    the book says it is), ``fields`` (required first; the optional ones are folded)."""
    cls = recording.event_class(system, short)
    rows = field_rows(cls, skip=skip)
    return {
        "key": short,
        "label": words(short),
        "book": book_words(system, cls),
        "required": [r for r in rows if r["required"]],
        "optional": [r for r in rows if not r["required"]],
        "gm_only": getattr(cls, "visibility", "public") == "gm",
        "has_character": any(name == "character" for name, _, _ in fields_of(cls)),
    }


def conditions_of(state: Any) -> list[dict[str, Any]]:
    """The character's conditions as the state holds them: ``name`` and ``hidden`` (a
    GM-only one); ``[]`` for a state without ``conditions``."""
    out = []
    for c in getattr(state, "conditions", None) or ():
        name = c if isinstance(c, str) else getattr(c, "name", None)
        if isinstance(name, str):
            out.append({"name": name, "hidden": bool(getattr(c, "hidden", False))})
    return out


def end_event(kinds: dict[str, list[str]], hidden: bool) -> str | None:
    """The event that ends a condition (a hidden one by its hidden twin when there is one)."""
    ends = kinds["condition_end"]
    hidden_ends = [k for k in ends if k.startswith("hidden-")]
    open_ends = [k for k in ends if not k.startswith("hidden-")]
    if hidden and hidden_ends:
        return hidden_ends[0]
    return open_ends[0] if open_ends else None


def character_cards(campaign: Campaign) -> list[dict[str, Any]]:
    """Per character (the GM's view): ``id``, ``name``, ``player``, ``conditions`` (each
    with the event that ends it), ``skills`` (for a roll request), ``affects`` (its wounds
    name skills)."""
    from ledger.web.access import players_of

    system = campaign.system
    kinds = recording.kinds_of(system)
    players = {
        name: player for player, names in players_of(campaign, as_gm=True).items() for name in names
    }
    cards = []
    for cid, name in campaign.characters().items():
        state = campaign.state_of(cid, save_snapshots=False)
        conditions = conditions_of(state)
        for c in conditions:
            c["ends_with"] = end_event(kinds, c["hidden"])
        affects = False
        if system.has_harm:
            try:
                harm_type = type(system.harm_event(state, cid, 1))
                affects = "affected_skills" in harm_type.__struct_fields__
            except Exception:  # noqa: BLE001 - a state the rules cannot harm: no field
                affects = False
        cards.append(
            {
                "id": cid,
                "name": name,
                "player": players.get(name),
                "conditions": conditions,
                "skills": sorted(system.skills_of(state)),
                "affects": affects,
            }
        )
    return cards


def taps(campaign: Campaign) -> dict[str, Any]:
    """The forms every character card has: ``condition_add``, ``experience`` and ``stress``
    (event forms), ``roll`` (the options of "Ask for a roll": the roll form's fields,
    :func:`ledger.web.roll_help.fields`), ``others`` (every other recordable event, folded,
    with a character field)."""
    system = campaign.system
    kinds = recording.kinds_of(system)
    tapped = {k for names in kinds.values() for k in names}
    from ledger.rules.fields import recordable
    from ledger.web.roll_help import fields as roll_fields

    return {
        "harm": system.has_harm,
        # "Ask for a roll" offers the roll form's options: one declaration, the same fields
        "roll": roll_fields(system, {}, fresh=True),
        "condition_add": [event_form(system, k) for k in kinds["condition_add"]],
        "experience": [event_form(system, k) for k in kinds["experience"]],
        "stress": [event_form(system, k) for k in kinds["stress"]],
        "others": [
            event_form(system, k, skip=()) for k in sorted(recordable(system)) if k not in tapped
        ],
    }


def recent(campaign: Campaign) -> list[dict[str, Any]]:
    """The newest :data:`RECENT` entries of the log (GM's view), newest first: ``seq``,
    ``text`` (a physical roll's ends with who entered its dice, as the live log says it),
    ``undo`` (what undoing it does, :func:`ledger.campaign.undo.undo_target`: ``"retract"``,
    ``"withdraw"`` for an open roll request, or ``""``: it cannot be undone) and
    ``undo_seq`` (the entry that goes: the roll a harm came with, the ``time pass`` a
    consequence came with)."""
    from ledger.campaign.undo import undo_target
    from ledger.errors import Refused
    from ledger.events import Roll

    corrections = campaign.corrections()
    out = []
    for rec in campaign.store.rows(campaign.id, descending=True, limit=RECENT):
        full = campaign.record(rec.seq)
        undo: str
        try:
            target = undo_target(campaign, rec.seq)
            undo, undo_seq = target.action, target.entry.seq
        except Refused:
            undo, undo_seq = "", 0
        text = said(campaign, full)
        if isinstance(full.data, Roll) and full.data.source == "physical":
            text += f" — entered by {full.actor} (physical dice)"
        out.append({"seq": rec.seq, "text": text, "undo": undo, "undo_seq": undo_seq,
                    "gm": rec.visibility == "gm", "retracted": rec.seq in corrections.retracted})  # fmt: skip
    return out


def changes_of(campaign: Campaign, seq: int) -> tuple[str, list[str], str | None]:
    """Event ``seq`` in words, what it changed on its character (the GM's view), as
    ``campaign damage`` prints it, and the character; ``("", [], None)`` for no such
    event."""
    from ledger.errors import RuleError

    try:
        rec = campaign.record(seq)
    except RuleError:
        return "", [], None
    cid = getattr(rec.data, "character", None)
    sentences: list[str] = []
    if isinstance(cid, str) and cid in campaign.characters():
        try:
            before = campaign.state_before(rec, campaign.corrections(), cid)
        except RuleError:
            before = None
        after = campaign.state_of(cid, upto=seq, save_snapshots=False)
        sentences = campaign.system.describe_changes(before, after, as_gm=True)
    return said(campaign, rec), sentences, cid if isinstance(cid, str) else None


def connected(campaign: Campaign, now: Any, policy: Any, mine: int = 0) -> list[dict[str, Any]]:
    """Who is connected: per live link (the GM's first), ``who``, ``role``, ``issued`` and
    its signed-in ``devices`` (``id``, ``device``, ``signed_in``, ``seen``, ``mine``: the
    session ``mine``, the page's own), plus each player named on a sheet who has no link
    yet (``issued`` empty)."""
    from ledger.web import access as accessmod
    from ledger.web import sessions as sessionsmod

    signed_in = sessionsmod.devices(campaign.store, campaign.id, now, policy)
    rows = []
    known = set()
    for link in sorted(accessmod.live(campaign.store, campaign.id), key=lambda a: not a.is_gm):
        known.add(link.who.casefold())
        rows.append(
            {
                "who": "GM" if link.is_gm else link.who,
                "name": link.who,
                "gm": link.is_gm,
                "issued": _when(link.created_at),
                "devices": [
                    {
                        "id": s.id,
                        "device": s.device,
                        "signed_in": _when(s.created_at),
                        "seen": _when(s.seen_at),
                    }  # fmt: skip
                    for s in signed_in.get(link.id, [])
                ],
            }
        )
    for player in accessmod.players_of(campaign, as_gm=True):
        if player.casefold() not in known:
            rows.append({"who": player, "name": player, "gm": False, "issued": "", "devices": []})
    return rows


def _when(stamp: str) -> str:
    """``2026-03-01T19:00:00.000000Z`` → ``2026-03-01 19:00 UTC``."""
    return f"{stamp[:16].replace('T', ' ')} UTC" if stamp else ""


def qr_data_uri(text: str) -> str:
    """``text`` (a link) as an SVG QR code in a ``data:`` URI (an ``<img>`` the page's CSP
    allows: no inline style or script)."""
    import segno

    return str(segno.make(text, error="m").svg_data_uri(scale=6, border=2))
