"""A players' copy as a SQLite file, safe to open in Datasette or a spreadsheet.

The ledger file itself is the GM's: its ``secrets`` table holds the open session's seed
(and the checkpoint signing key), and Datasette or any SQLite browser shows it in the
clear, as it shows every GM-only event. :func:`write_players_copy` writes what can be
shared instead: the players' view of the log (:func:`ledger.rules.projection.iter_log`,
``as_gm=False``), each event with the line a player reads (``text``,
:func:`ledger.history.words.line`), each GM-only event a stub of its seq and hashes only,
no secret, no snapshot, no access token; and :func:`metadata`, the Datasette
``metadata.json`` describing its tables and columns. The ``text`` column has a full-text
index (``events_fts``, FTS5 over ``events``), so Datasette shows a search box on the
events table; the wide hash columns come last, after what a reader looks at.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ledger.history.words import GM_ONLY_ENTRY, line
from ledger.rules.projection import GmOnlyEntry, iter_log

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: Columns of the ``events`` table: ``{name: (SQL type, description)}``.
EVENT_COLUMNS: dict[str, tuple[str, str]] = {
    "seq": ("INTEGER PRIMARY KEY", "Position in the campaign's log, from 1"),
    "type": ("TEXT", "The event's type (campaign.created, roll.imported, ...); empty for a GM-only entry"),
    "stream": ("TEXT", "The character id the event belongs to, or 'campaign'"),
    "character": ("TEXT", "The character's name, when the event is a character's"),
    "session": ("INTEGER", "The session it was recorded in"),
    "recorded_at": ("TEXT", "When it was recorded (UTC, ISO 8601)"),
    "actor": ("TEXT", "Who recorded it"),
    "text": ("TEXT", "The log line as players read it (campaign log, the web view)"),
    "mark": ("TEXT", "'retracted' or 'amended' when a later correction says so"),
    "gm_only": ("INTEGER", "1: a GM-only entry, shown as its seq and hashes only"),
    "data": ("TEXT", "The event's payload as stored (JSON); empty for a GM-only entry"),
    "prev_hash": ("TEXT", "The previous event's hash (SHA-256, hex)"),
    "hash": ("TEXT", "This event's hash: the chain a verifier checks (docs/trust.md)"),
}
CHARACTER_COLUMNS: dict[str, tuple[str, str]] = {
    "id": ("TEXT PRIMARY KEY", "The character's id (the stream of its events)"),
    "name": ("TEXT", "The character's name"),
}
CAMPAIGN_COLUMNS: dict[str, tuple[str, str]] = {
    "id": ("TEXT PRIMARY KEY", "The campaign's id"),
    "title": ("TEXT", "The campaign's title"),
    "system": ("TEXT", "The rule system it plays"),
    "head_seq": ("INTEGER", "The last event's seq when the copy was made"),
    "head_hash": ("TEXT", "The last event's hash: the receipt `campaign verify --receipt` checks"),
}


@dataclass(frozen=True)
class CopySummary:
    """What :func:`write_players_copy` wrote: events (``gm_only`` of them stubs), characters."""

    events: int
    gm_only: int
    characters: int
    head_seq: int
    head_hash: str


def _create(conn: sqlite3.Connection, table: str, columns: dict[str, tuple[str, str]]) -> None:
    cols = ", ".join(f"[{name}] {sql}" for name, (sql, _) in columns.items())
    conn.execute(f"create table [{table}] ({cols})")


def _index_text(conn: sqlite3.Connection) -> None:
    """The full-text index of ``events.text``: an FTS5 table ``events_fts`` with
    ``content=[events]`` (the rows' text is not stored twice), filled once (the file is
    never written again, so no triggers). Datasette finds it by that name and content."""
    import sqlite_utils  # imports numpy when installed: only when a copy is written

    sqlite_utils.Database(conn).table("events").enable_fts(["text"], create_triggers=False)


def write_players_copy(campaign: Campaign, path: str) -> CopySummary:
    """Write the players' copy of ``campaign`` to a new SQLite file at ``path`` (the caller
    makes it appear whole, as `campaign export --format sqlite` does: written to a temporary
    name beside it, then renamed).

    Tables: ``campaign`` (one row), ``characters`` (the public ones), ``events`` (every seq;
    a GM-only event as a stub: ``gm_only`` 1, its hashes, ``text`` "GM-only entry",
    nothing else) and its full-text index ``events_fts`` (of ``text``). No ``secrets``
    table, no snapshots, no tokens.
    """
    corrections = campaign.corrections()
    names: dict[str, str] = {}
    rows: list[dict[str, Any]] = []
    gm = 0
    head_seq, head_hash = 0, ""
    created = campaign.record(1).data
    known = campaign.characters(include_retracted=True)
    for rec in iter_log(campaign.store, campaign.id, campaign.codec, as_gm=False):
        head_seq, head_hash = rec.seq, rec.hash
        if isinstance(rec, GmOnlyEntry):
            gm += 1
            rows.append({"seq": rec.seq, "text": GM_ONLY_ENTRY, "gm_only": 1,
                         "prev_hash": rec.prev_hash, "hash": rec.hash})  # fmt: skip
            continue
        if rec.type == "character.created":
            names[rec.stream] = known.get(rec.stream, getattr(rec.data, "name", rec.stream))
        said = line(campaign, rec, corrections)
        rows.append(
            {
                "seq": rec.seq,
                "type": rec.type,
                "stream": rec.stream,
                "character": names.get(rec.stream),
                "session": rec.session,
                "recorded_at": rec.recorded_at,
                "actor": rec.actor,
                "text": said.text,
                "mark": said.mark or None,
                "gm_only": 0,
                "data": rec.stored.data,
                "prev_hash": rec.prev_hash,
                "hash": rec.hash,
            }
        )
    conn = sqlite3.connect(path)
    try:
        _create(conn, "campaign", CAMPAIGN_COLUMNS)
        _create(conn, "characters", CHARACTER_COLUMNS)
        _create(conn, "events", EVENT_COLUMNS)
        conn.execute(
            "insert into campaign values (?, ?, ?, ?, ?)",
            (campaign.id, getattr(created, "title", ""), campaign.system.id, head_seq, head_hash),
        )
        conn.executemany("insert into characters values (?, ?)", list(names.items()))
        cols = list(EVENT_COLUMNS)
        conn.executemany(
            f"insert into events ({', '.join(cols)}) values ({', '.join('?' * len(cols))})",
            [tuple(r.get(c) for c in cols) for r in rows],
        )
        conn.execute("create index events_type on events(type)")
        conn.execute("create index events_stream on events(stream)")
        conn.commit()
        _index_text(conn)
    finally:
        conn.close()
    return CopySummary(len(rows), gm, len(names), head_seq, head_hash)


def metadata(campaign: Campaign, database: str) -> dict[str, Any]:
    """The Datasette ``metadata.json`` of a players' copy named ``database`` (the file's
    name without ``.db``/``.sqlite``): a title, where it came from, and every table's and
    column's description."""

    def table(description: str, columns: dict[str, tuple[str, str]]) -> dict[str, Any]:
        return {"description": description, "columns": {k: d for k, (_, d) in columns.items()}}

    return {
        "title": f"{campaign.id}: the players' copy",
        "description": (
            "The players' view of a Campaign Ledger log: every event with the line players "
            "read, GM-only events as stubs (seq and hashes only), no seed or other secret. "
            "Written by `campaign export --format sqlite`; the ledger file itself is the GM's."
        ),
        "source": "Campaign Ledger",
        "databases": {
            database: {
                "tables": {
                    "campaign": table("The campaign, and the head of its log when copied", CAMPAIGN_COLUMNS),
                    "characters": table("The campaign's characters", CHARACTER_COLUMNS),
                    "events": table(
                        "The log, oldest first: one row per event, GM-only ones as stubs",
                        EVENT_COLUMNS,
                    ),
                }
            }
        },
    }
