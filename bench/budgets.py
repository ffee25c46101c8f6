"""Budgets on how the ledger does its work, where the tests only check what it does.

    uv run python bench/budgets.py                          # SQLite, and PostgreSQL if it answers
    uv run python bench/budgets.py --postgres postgresql://postgres@127.0.0.1:5432/test
    uv run python bench/budgets.py --no-postgres --json budgets.json

Counts, never times (so a busy machine cannot move them):

- **round trips** to PostgreSQL for each kind of append, counted from libpq's own trace of
  the messages (``PQtrace``): one round trip is the client sending (``F`` lines) then
  waiting for the server's answer (``B`` lines). The append's design (the head read, the
  lock and the write each riding with another statement) is in ledger/store/pgwrite.py;
- **query plans** SQLite makes for each read filter of ``store.rows``: the index each one
  uses (never a scan of the whole campaign), the ``--as-of TIME`` seek;
- **folds**: how often a roll folds its character's events into a state (once: resolving
  and validating share it);
- **reads**: the work SQLite does (virtual-machine steps, in tens) for ``session list``,
  ``recap``, ``advance --dry-run`` and ``log --session`` of session 2, on two ledgers whose
  session 2 is the same and whose other sessions hold 20 or 600 events: the larger may cost
  at most a quarter more (a scan of the campaign, or a fold from its first event, would cost
  about 30 times as much);
- **lines** of the module wiring each bundled plugin's system class (``system.py`` or the
  package's ``__init__.py``; wiring only: at most 150).

Prints one line per budget (what, measured, budget) and exits 1 when any is over it (2 for
bad arguments). With ``--postgres`` the server must answer; without it, the PostgreSQL half
runs when ``CAMPAIGN_TEST_POSTGRES`` (or a server at 127.0.0.1:5432, database ``test``)
answers within a second, and is skipped (said so) otherwise. Each run works in a schema of
its own, dropped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
AT = "2026-03-01T19:00:00.000000Z"
DEFAULT_POSTGRES = "postgresql://postgres@127.0.0.1:5432/test"


@dataclass
class Budget:
    """One budget: ``what`` is counted, ``measured`` against ``budget`` (both as printed),
    ``ok`` when within it."""

    group: str
    what: str
    measured: str
    budget: str
    ok: bool


def at_most(group: str, what: str, measured: int, budget: int) -> Budget:
    return Budget(group, what, str(measured), f"≤ {budget}", measured <= budget)


# --- PostgreSQL: round trips ----------------------------------------------------------------


def traced(store: Any, fn: Callable[[], Any]) -> tuple[Any, list[list[str]]]:
    """``fn()``'s result and what the client sent in each round trip (the message names of
    each run of ``F`` lines the server answered), from libpq's trace of ``store``'s
    connection."""
    from psycopg.pq import Trace

    raw = store.conn.raw
    with tempfile.TemporaryFile("w+") as f:
        raw.pgconn.trace(f.fileno())
        raw.pgconn.set_trace_flags(Trace.SUPPRESS_TIMESTAMPS | Trace.REGRESS_MODE)
        try:
            result = fn()
        finally:
            raw.pgconn.untrace()
        f.seek(0)
        lines = [line.split("\t") for line in f.read().splitlines() if line]
    trips: list[list[str]] = []
    sending = False
    for direction, _length, message, *rest in lines:
        if direction == "F":
            if not sending:
                trips.append([])
                sending = True
            trips[-1].append(message + (rest[0] if message in ("Parse", "Query") else ""))
        else:
            sending = False
    return result, trips


@contextmanager
def schema_of(url: str) -> Iterator[str]:
    """A URL whose ``search_path`` is a fresh schema, dropped afterwards."""
    import psycopg

    name = f"budgets_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"create schema {name}")
    sep = "&" if "?" in url else "?"
    try:
        yield f"{url}{sep}options=-csearch_path%3D{name}"
    finally:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(f"drop schema {name} cascade")


def postgres_budgets(url: str) -> list[Budget]:
    """The round trips of each kind of append on PostgreSQL (see the module's docstring)."""
    from ledger.campaign.aggregate import Campaign, open_campaign
    from ledger.errors import ConflictError
    from ledger.events import NoteAdded
    from ledger.store.base import Pending
    from ledger.store.postgres import INSERT_ROWS, PostgresStore

    def notes(n: int, prefix: str = "n") -> list[Pending]:
        return [Pending(NoteAdded(text=f"{prefix}{i}")) for i in range(n)]

    out: list[Budget] = []
    group = "PostgreSQL round trips"
    with schema_of(url) as scoped:
        store = PostgresStore(scoped)
        fresh = PostgresStore(scoped)
        try:
            Campaign.create(store, "c", system="decision-dice", actor="gm", at=AT)

            def append(s: Any, n: int, **kw: Any) -> Any:
                return s.append("c", notes(n), actor="gm", recorded_at=AT, session=None, **kw)

            _, trips = traced(store, lambda: append(store, 3))
            out.append(at_most(group, "a small append, head unknown", len(trips), 2))
            version = store.stream_version("c", "campaign")
            _, trips = traced(
                store, lambda: append(store, 2, expected_versions={"campaign": version})
            )
            out.append(at_most(group, "an append after reading the version", len(trips), 1))
            _, trips = traced(store, lambda: append(store, 1))
            out.append(at_most(group, "the next append of the same store", len(trips), 1))

            def refused() -> None:
                try:
                    append(store, 1, expected_versions={"campaign": 999})
                except ConflictError:
                    return
                raise AssertionError("the stale expected version was not refused")

            _, trips = traced(store, refused)
            out.append(at_most(group, "an expected-version conflict", len(trips), 1))

            def in_transaction(n: int) -> Any:
                with fresh.transaction():
                    fresh.head("c")
                    return append(fresh, n)

            _, trips = traced(fresh, lambda: in_transaction(2))
            out.append(at_most(group, "read-check-append in a transaction", len(trips), 3))
            _, trips = traced(fresh, lambda: in_transaction(1))
            out.append(at_most(group, "the same at the store's own head", len(trips), 2))
            _, trips = traced(store, lambda: append(store, INSERT_ROWS + 1))
            out.append(at_most(group, f"a batch of {INSERT_ROWS + 1} (COPY)", len(trips), 4))

            sheet = {"equipment": [{"name": "rope", "supply": "d6", "note": "x"}]}
            camp = open_campaign(store, "c")
            for name in ("Ana", "Bo"):
                camp.add_character(
                    {"name": name, **sheet, "stats": {"Might": 1}}, actor="gm", at=AT
                )
            camp, trips = traced(store, lambda: open_campaign(store, "c"))
            out.append(at_most(group, "opening a campaign", len(trips), 1))
            _, trips = traced(store, lambda: camp.append([NoteAdded(text="c")], actor="gm", at=AT))
            # one more when psycopg prepares a statement it has run five times
            out.append(at_most(group, "Campaign.append, cold", len(trips), 5))
            _, trips = traced(store, lambda: camp.append([NoteAdded(text="w")], actor="gm", at=AT))
            out.append(at_most(group, "Campaign.append, warm (its own head)", len(trips), 2))
        finally:
            store.close()
            fresh.close()
    return out


def postgres_url(asked: str | None, off: bool) -> tuple[str | None, str]:
    """The server to count on, or ``None`` and why not."""
    if off:
        return None, "--no-postgres"
    url = asked or os.environ.get("CAMPAIGN_TEST_POSTGRES") or DEFAULT_POSTGRES
    if url.lower() in {"off", "0", "no"}:
        return None, "CAMPAIGN_TEST_POSTGRES=off"
    if not asked and url == DEFAULT_POSTGRES:
        try:
            socket.create_connection(("127.0.0.1", 5432), timeout=1).close()
        except OSError:
            return None, "no server at 127.0.0.1:5432 (give --postgres URL)"
    return url, ""


# --- SQLite: query plans, folds -------------------------------------------------------------

#: each read filter of ``store.rows`` and the index its plan must use
PLANS: list[tuple[dict[str, Any], str]] = [
    ({"session": 3}, "events_session_seq (campaign=? AND session=? AND seq>?)"),
    ({"session": 3, "types": ["session.ended"]}, "events_session_seq"),
    (
        {"types": ["session.started", "session.ended"]},
        "COVERING INDEX events_session_marks (campaign=? AND seq>?)",
    ),
    ({"types": ["session.abandoned"], "descending": True}, "events_session_marks"),
    ({"types": ["session.started", "note.added"]}, "events_type (campaign=? AND type=?"),
    ({"types": ["character.created"], "upto": 10}, "events_type"),
    ({"stream": "julian"}, "events_stream (campaign=? AND stream=? AND seq>?)"),
    ({"stream": "julian", "session": 2}, "events_session_seq"),
    (
        {"types": ["session.started", "session.ended", "session.abandoned"]},
        "COVERING INDEX events_session_marks (campaign=? AND seq>?)",
    ),
]
#: what a plan that reads the whole campaign shows
WHOLE_CAMPAIGN = "sqlite_autoindex_events_1 (campaign=?)"


def sqlite_budgets(folder: Path) -> list[Budget]:
    """The index each read filter uses, the ``--as-of`` seek, and a roll's folds."""
    from ledger.store.sqlite import Store

    out: list[Budget] = []
    store = Store(str(folder / "plans.db"))
    try:
        for filters, index in PLANS:
            query = store.rows("c", **filters)
            rows = store.conn.execute(f"explain query plan select seq{query.tail}", query.args)
            found = " | ".join(r[-1] for r in rows)
            ok = index in found and WHOLE_CAMPAIGN not in found
            if "session.abandoned" in filters.get("types", ()):  # the session list
                ok = ok and "TEMP B-TREE" not in found  # already in seq order
            args = ", ".join(f"{k}={v!r}" for k, v in filters.items())
            out.append(Budget("SQLite query plans", f"rows({args})", found, index, ok))
        found = " | ".join(
            r[-1]
            for r in store.conn.execute(
                "explain query plan select seq from events where campaign = ? and "
                "recorded_at <= ? order by recorded_at desc, seq desc limit 1",
                ("c", AT),
            )
        )
        index = "events_time (campaign=? AND recorded_at<?)"
        ok = index in found and "TEMP B-TREE" not in found
        out.append(Budget("SQLite query plans", "--as-of TIME", found, f"{index}, no sort", ok))
    finally:
        store.conn.close()
    out.append(at_most("folds", "a roll folds its character", roll_folds(folder), 1))
    return out + read_budgets(folder)


# --- SQLite: a read's work does not grow with the other sessions ------------------------------

#: The reads of session 2 counted by :func:`read_budgets`, each given an open campaign.
READS: dict[str, Callable[[Any], Any]] = {
    "session list": lambda c: list(c.records(types=["session.started", "session.ended"])),
    "recap --session 2": lambda c: _recap(c),
    "advance --session 2 --dry-run": lambda c: _advance(c),
    "log --session 2": lambda c: list(c.records(as_gm=False, session=2)),
}


def _recap(campaign: Any) -> Any:
    from ledger.history.recap import build_recap

    return build_recap(campaign, 2, as_gm=False)


def _advance(campaign: Any) -> Any:
    from ledger.history.advancement import preview

    return preview(campaign, 2, {})


def _casebook(path: str, sizes: list[int]) -> None:
    """A Wyrd Engine campaign with Julian (grand-casebook) and closed sessions, session ``n``
    holding ``sizes[n - 1]`` notes about him and a scene end every 10 (which folds every
    character)."""
    import hashlib

    from ledger.events import NoteAdded, SceneEnded, SessionEnded, SessionStarted
    from ledger.store.base import Pending
    from ledger.store.sqlite import Store

    _julian(path)
    store = Store(path)
    for n, size in enumerate(sizes, 1):
        seed = hashlib.sha256(b"seed %d" % n).digest()
        batch = [Pending(SessionStarted(number=n, seed_commitment=hashlib.sha256(seed).hexdigest()))]
        for i in range(size):
            note = NoteAdded(text=f"n{i}", character="julian")
            batch.append(Pending(SceneEnded(title="") if i % 10 == 9 else note))
        batch.append(Pending(SessionEnded(number=n, seed_reveal=seed.hex())))
        store.append("casebook", batch, actor="gm", recorded_at=AT, session=n)
    store.close()


def _steps(path: str, read: Callable[[Any], Any]) -> int:
    """SQLite virtual-machine steps (in tens) of ``read`` on a freshly opened campaign, after
    the same read once (which leaves the snapshots a first read leaves)."""
    from ledger.campaign.aggregate import open_campaign
    from ledger.store.sqlite import Store

    read(open_campaign(Store(path)))
    camp = open_campaign(Store(path))
    count = [0]

    def step() -> int:
        count[0] += 1
        return 0

    camp.store.conn.set_progress_handler(step, 10)
    read(camp)
    camp.store.conn.set_progress_handler(None, 10)
    camp.store.close()
    return count[0]


def read_budgets(folder: Path) -> list[Budget]:
    """Each read of :data:`READS` on the small and the large ledger: the large within a
    quarter (and 50 steps) of the small."""
    small, large = str(folder / "small.db"), str(folder / "large.db")
    _casebook(small, [20, 40, 20])
    _casebook(large, [600, 40, 600])
    out = []
    for what, read in READS.items():
        a, b = _steps(small, read), _steps(large, read)
        limit = int(a * 1.25) + 5
        out.append(Budget("reads", f"{what}: 600-event sessions beside it, against 20",
                          f"{b} against {a}", f"≤ {limit}", b <= limit))  # fmt: skip
    return out


def _julian(db: str) -> None:
    """A new Wyrd Engine campaign ``casebook`` in ``db`` with Julian (grand-casebook) added,
    as ``campaign new`` and ``campaign character add`` make it."""
    from click.testing import CliRunner

    from ledger.cli import cli

    sheet = ROOT / "campaigns" / "grand-casebook" / "characters" / "julian.toml"
    for args in (
        ["new", "casebook", "--system", "wyrd-engine"],
        ["character", "add", "--sheet", str(sheet)],
    ):
        result = CliRunner().invoke(cli, ["--db", db, *args])
        if result.exit_code != 0:
            raise RuntimeError(f"campaign {' '.join(args)}: {result.output}")


def roll_folds(folder: Path) -> int:
    """How many times a Wyrd Engine roll of Julian's (grand-casebook) folds a character."""

    from ledger.campaign.aggregate import open_campaign
    from ledger.campaign.reading import StateReader
    from ledger.store.sqlite import Store

    db = str(folder / "folds.db")
    _julian(db)
    store = Store(db)
    camp = open_campaign(store)  # as a fresh process opens it: nothing cached
    folds: list[str] = []
    real = StateReader.state_of

    def counted(self: Any, character: str, **kw: Any) -> Any:
        folds.append(character)
        return real(self, character, **kw)

    StateReader.state_of = counted  # type: ignore[method-assign]
    try:
        from datetime import UTC, datetime

        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        camp.roll("julian", "investigate", {"dr": "fair"}, faces="+0-0", actor="gm", at=now)
    finally:
        StateReader.state_of = real  # type: ignore[method-assign]
        store.close()
    return len(folds)


# --- the plugins' system.py -----------------------------------------------------------------


def system_lines() -> list[Budget]:
    """Lines of the module of each bundled plugin that wires its system class (``system.py``,
    or the package's ``__init__.py``; at most 150: wiring only)."""
    import inspect

    from ledger.rules.plugins import rule_systems

    bundled = (ROOT / "plugins").resolve()
    out = []
    wiring = {Path(inspect.getsourcefile(type(s)) or "") for s in rule_systems().values()}
    for path in sorted(p for p in wiring if p.resolve().is_relative_to(bundled)):
        lines = len(path.read_text().splitlines())
        out.append(at_most("lines", str(path.resolve().relative_to(ROOT.resolve())), lines, 150))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--postgres", metavar="URL", help="the PostgreSQL server to count on")
    parser.add_argument("--no-postgres", action="store_true", help="skip the PostgreSQL half")
    parser.add_argument("--json", metavar="FILE", help="also write the budgets as JSON")
    args = parser.parse_args(argv)
    if args.postgres and args.no_postgres:
        parser.error("--postgres and --no-postgres exclude each other")
    with tempfile.TemporaryDirectory(prefix="budgets-") as scratch:
        budgets = sqlite_budgets(Path(scratch)) + system_lines()
    url, why = postgres_url(args.postgres, args.no_postgres)
    if url is not None:
        budgets += postgres_budgets(url)
    width = max(len(b.what) for b in budgets)
    group = ""
    for b in budgets:
        if b.group != group:
            group = b.group
            print(f"\n{group}")
        mark = "ok  " if b.ok else "OVER"
        print(f"  {mark} {b.what:<{width}}  {b.measured}   (budget {b.budget})")
    if url is None:
        print(f"\nPostgreSQL round trips: skipped ({why})")
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(b) for b in budgets], indent=2) + "\n")
    over = [b for b in budgets if not b.ok]
    print(f"\n{len(budgets) - len(over)} of {len(budgets)} within budget")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
