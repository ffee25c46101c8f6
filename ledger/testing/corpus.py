"""A corpus of ledgers and of their tamperings, for checking that every verifier agrees.

A :class:`Play` is an evening written as ``campaign`` command lines (the table's own
commands, run in-process through the CLI); :func:`build` plays it into a SQLite ledger:
sessions, engine and physical rolls, GM-only entries, roll requests answered with a phone's
entropy and withdrawn, encounters, time passing, corrections and undos, a Foundry import,
checkpoints and a cosignature. :data:`TAMPERS` lists what a dishonest GM with the file can
do to it; :func:`tamper` does one to a copy. :func:`verdicts` gives what ``campaign verify``
(on the ledger) and ``campaign verify FILE`` (on the GM's and the players' export) say of a
ledger, and :func:`generic_verdict` what the in-browser verifier must say of an export
(:func:`ledger.history.verify.verify_rows` with ``rules=False``, then the checkpoints).

A plugin's tests run their own :class:`Play` through the same checks::

    from ledger.testing.corpus import Play, build, tamper, verdicts

    PLAY = Play("my-system", ["new demo --system my-system", ..., "session end"])

    def test_every_tampering_is_found(tmp_path):
        ledger = build(PLAY, tmp_path / "demo.db")
        for kind in TAMPERS:
            bad = tamper(ledger, kind, tmp_path / f"{kind}.db")
            assert not verdicts(bad)["ledger"].ok

A ``Play`` line may use ``{request}`` (the seq of the last ``request`` line) and
``{entropy}`` (32 fixed bytes as hex, what a phone sends); ``@cosign`` cosigns the newest
checkpoint with a fixed witness key, ``@foundry CHARACTER`` imports a Foundry chat log with
one roll said by that character's name.
"""

from __future__ import annotations

import json
import shlex
import shutil
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: What a dishonest GM with the ledger file can do, each to a public event (so a player's
#: export shows it as well as the GM's): ``payload`` one event's data changed, nothing
#: re-hashed; ``result`` a roll's result changed and every hash from it rebuilt (only the
#: rules, or a signed checkpoint, see it); ``seed`` a session's revealed seed changed, hashes
#: rebuilt; ``rehashed`` a note changed and the whole chain rebuilt (only a signed checkpoint
#: sees it); ``truncated`` the log cut back to an earlier checkpoint, a later one kept;
#: ``reordered`` two neighbouring events swapped; ``checkpoint-swapped`` two checkpoints'
#: signed notes swapped; ``cosignature-moved`` a cosignature filed under another checkpoint.
TAMPERS = (
    "payload",
    "result",
    "seed",
    "rehashed",
    "truncated",
    "reordered",
    "checkpoint-swapped",
    "cosignature-moved",
)

#: The entropy every ``{entropy}`` stands for (a phone's 32 random bytes, fixed here).
ENTROPY = "5e" * 32
#: The witness that cosigns at ``@cosign``: its name and its fixed Ed25519 seed.
WITNESS = ("corpus.example/witness", bytes(range(32)))
#: When a play starts, for a frozen clock (``build(..., clock=...)``).
START = "2026-03-01 19:00:00"


@dataclass(frozen=True)
class Play:
    """An evening in ``campaign`` command lines (without ``campaign`` and ``--db``), run as
    the GM, in order; every line must succeed.

    :ivar name: the ledger's name in reports (the rule system's id, say).
    :ivar lines: the command lines (see the module's doc for ``{request}``, ``{entropy}``,
        ``@cosign`` and ``@foundry``).
    :ivar cwd: where relative paths in the lines start (sheets).
    """

    name: str
    lines: Sequence[str]
    cwd: Path | None = None


@dataclass
class Ledger:
    """A ledger file built by :func:`build` (or tampered by :func:`tamper`).

    :ivar name: the play's name, with ``/KIND`` for a tampered copy.
    :ivar path: the SQLite file. :ivar campaign: its campaign's id.
    :ivar rolls: the seqs of its rolls (engine, physical and imported), for ``audit``.
    :ivar requests: ``{request seq: (character, entropy)}`` of requests answered with
        :data:`ENTROPY` (what the phone that answered keeps).
    :ivar tamper: the tampering done (``None``: none) and ``target``, the seq it changed.
    """

    name: str
    path: Path
    campaign: str
    rolls: list[int] = field(default_factory=list)
    requests: dict[int, str] = field(default_factory=dict)
    tamper: str | None = None
    target: int | None = None


def _run(db: Path, line: str, cwd: Path | None) -> str:
    """One command line as the GM; returns its output. :raises AssertionError: it failed."""
    import os

    from click.testing import CliRunner

    from ledger.cli import cli

    here = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        result = CliRunner().invoke(cli, ["--db", str(db), "--as", "gm", *shlex.split(line)])
    finally:
        os.chdir(here)
    if result.exit_code != 0:
        raise AssertionError(f"`campaign {line}` failed ({result.exit_code}): {result.output}")
    return result.output


def _foundry_log(name: str) -> str:
    """A Foundry VTT chat log (its JSON export) with one public d20 roll said by ``name``."""
    roll = {
        "class": "Roll", "options": {}, "dice": [], "formula": "1d20 + 2",
        "terms": [
            {"class": "Die", "options": {}, "evaluated": True, "number": 1, "faces": 20,
             "modifiers": [], "results": [{"result": 13, "active": True}]},
            {"class": "OperatorTerm", "options": {}, "evaluated": True, "operator": "+"},
            {"class": "NumericTerm", "options": {}, "evaluated": True, "number": 2},
        ],
        "total": 15, "evaluated": True,
    }  # fmt: skip
    message = {
        "_id": "corpusRoll000001", "type": "base", "style": 0, "author": "u1",
        "timestamp": 1772391600000, "flavor": "Perception Check", "content": "15",
        "speaker": {"scene": "s1", "actor": "a1", "token": "t1", "alias": name},
        "whisper": [], "blind": False, "rolls": [json.dumps(roll)], "sound": None,
        "emote": False, "flags": {},
    }  # fmt: skip
    return json.dumps([message])


def build(play: Play, path: Path, *, clock: Any = None) -> Ledger:
    """Play ``play`` into a new SQLite ledger at ``path``, as the GM.

    :param clock: a context manager the play runs in, e.g. freezegun's
        ``freeze_time(START, tick=True)`` for the same times every run (default: none, the
        real clock).
    :raises AssertionError: a line failed (its output is in the message).
    """
    import contextlib

    from ledger.campaign.aggregate import open_campaign
    from ledger.store.opening import open_store

    path = Path(path)
    request: int | None = None
    requests: dict[int, str] = {}
    with clock if clock is not None else contextlib.nullcontext():
        for raw in play.lines:
            line = raw.format(request=request, entropy=ENTROPY)
            if line.startswith("@cosign"):
                _cosign(path)
                continue
            if line.startswith("@foundry "):
                character = line.split(" ", 1)[1]
                log = path.with_suffix(".foundry.json")
                log.write_text(_foundry_log(character))
                _run(path, f"import --from foundry {shlex.quote(str(log))}", None)
                continue
            if line.startswith("request "):
                out = _run(path, line + " --json", play.cwd)
                request = int(json.loads(out)["seq"])
                continue
            _run(path, line, play.cwd)
            if "--answer" in line and request is not None:
                requests[request] = line.split()[1]
    store = open_store(str(path))
    try:
        campaign = open_campaign(store)
        rolls = [
            r.seq
            for r in store.rows(campaign.id)
            if r.type == "roll.imported" or '"draws":' in r.data
        ]
        return Ledger(play.name, path, campaign.id, rolls, requests)
    finally:
        store.close()


def _cosign(path: Path) -> None:
    """The :data:`WITNESS` cosigns the newest kept checkpoint (as a phone or a club's
    witness does, kept after it verifies)."""
    from ledger.campaign.aggregate import open_campaign
    from ledger.campaign.checkpoints import add_cosignature
    from ledger.store.opening import open_store
    from ledger.trust.cosignature import Cosigner

    store = open_store(str(path))
    try:
        campaign = open_campaign(store)
        latest = store.latest_checkpoint(campaign.id)
        assert latest is not None, "@cosign needs a checkpoint first"
        witness = Cosigner(*WITNESS)
        signature = witness.cosign(str(latest["note"]), 1772391600)
        add_cosignature(campaign, int(latest["size"]), witness.verifier.key(), signature,
                        at="2026-03-01T19:00:00.000000Z")  # fmt: skip
    finally:
        store.close()


# --- tampering --------------------------------------------------------------------------


def _open(path: Path) -> sqlite3.Connection:
    """The ledger with its append-only triggers dropped (what a GM with the file can do)."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("pragma journal_mode=delete")
    for (name,) in conn.execute("select name from sqlite_master where type = 'trigger'").fetchall():
        conn.execute(f"drop trigger {name}")
    return conn


def _rows(conn: sqlite3.Connection, campaign: str) -> list[dict[str, Any]]:
    from ledger.store.sqlite import COLUMNS

    cur = conn.execute(
        f"select {', '.join(COLUMNS)} from events where campaign = ? order by seq", (campaign,)
    )
    return [dict(zip(COLUMNS, r, strict=True)) for r in cur]


def _put(conn: sqlite3.Connection, campaign: str, seq: int, **values: Any) -> None:
    sets = ", ".join(f"{k} = ?" for k in values)
    conn.execute(
        f"update events set {sets} where campaign = ? and seq = ?",
        [*values.values(), campaign, seq],
    )


def rehash_from(conn: sqlite3.Connection, campaign: str, seq: int) -> None:
    """Rebuild ``prev_hash`` and ``hash`` of every event from ``seq`` on, so the chain holds
    again (what a forger does after changing an event)."""
    import msgspec

    from ledger.chain import canonical_envelope
    from ledger.events import Envelope
    from ledger.store.sqlite import chain_hash

    rows = _rows(conn, campaign)
    prev = next((r["hash"] for r in rows if r["seq"] == seq - 1), "0" * 64)
    for r in rows:
        if r["seq"] < seq:
            continue
        fields = {k: v for k, v in r.items() if k != "hash"}
        fields["prev_hash"] = prev
        fields["data"] = msgspec.Raw(r["data"].encode())
        new = chain_hash(prev, canonical_envelope(Envelope(**fields)))
        _put(conn, campaign, r["seq"], prev_hash=prev, hash=new)
        prev = new


#: The payload fields a roll's result is in, tried in order (``result`` changes the first
#: integer one found; a system without any names none, and the tamper picks another roll).
RESULT_FIELDS = ("total", "successes", "shifts", "margin", "highest", "result", "effect", "value")


def _canonical(payload: dict[str, Any]) -> str:
    from ledger.chain import encode_canonical

    return encode_canonical(payload).decode()


def tamper(ledger: Ledger, kind: str, path: Path) -> Ledger:
    """A copy of ``ledger`` at ``path`` with one tampering of ``kind`` (:data:`TAMPERS`).

    :raises ValueError: an unknown kind, or a ledger without what the kind needs (a public
        note, a physical roll with a result, two checkpoints, a cosignature).
    """
    if kind not in TAMPERS:
        raise ValueError(f"unknown tampering {kind!r}: one of {', '.join(TAMPERS)}")
    path = Path(path)
    shutil.copyfile(ledger.path, path)
    for ext in ("-wal", "-shm"):
        if Path(str(ledger.path) + ext).exists():
            shutil.copyfile(str(ledger.path) + ext, str(path) + ext)
    conn = _open(path)
    try:
        target = _tamper(conn, ledger.campaign, kind)
        conn.execute("delete from snapshots")  # a cache: the next reads rebuild it
    finally:
        conn.close()
    return Ledger(f"{ledger.name}/{kind}", path, ledger.campaign, ledger.rolls,
                  ledger.requests, kind, target)  # fmt: skip


def _public(rows: list[dict[str, Any]], type_: str) -> list[dict[str, Any]]:
    return [r for r in rows if r["visibility"] == "public" and r["type"] == type_]


def _tamper(conn: sqlite3.Connection, campaign: str, kind: str) -> int | None:
    rows = _rows(conn, campaign)
    checkpoints = [int(s) for (s,) in conn.execute(
        "select size from checkpoints where campaign = ? order by size", (campaign,))]  # fmt: skip
    notes = _public(rows, "note.added")
    if kind in ("payload", "rehashed"):
        if not notes:
            raise ValueError("the ledger has no public note to change")
        row = notes[0]
        payload = json.loads(row["data"])
        payload["text"] = payload["text"] + " (and the butler did it)"
        _put(conn, campaign, row["seq"], data=_canonical(payload))
        if kind == "rehashed":
            rehash_from(conn, campaign, row["seq"])
        return int(row["seq"])
    if kind == "result":
        for row in rows:
            if row["visibility"] != "public" or '"source":"physical"' not in row["data"]:
                continue
            payload = json.loads(row["data"])
            name = next((f for f in RESULT_FIELDS if type(payload.get(f)) is int), None)
            if name is None:
                continue
            payload[name] += 1
            _put(conn, campaign, row["seq"], data=_canonical(payload))
            rehash_from(conn, campaign, row["seq"])
            return int(row["seq"])
        raise ValueError("the ledger has no public physical roll with a result to change")
    if kind == "seed":
        row = _public(rows, "session.ended")[0]
        payload = json.loads(row["data"])
        reveal = payload["seed_reveal"]
        payload["seed_reveal"] = reveal[:-1] + ("0" if reveal[-1] != "0" else "1")
        _put(conn, campaign, row["seq"], data=_canonical(payload))
        rehash_from(conn, campaign, row["seq"])
        return int(row["seq"])
    if kind == "truncated":
        if len(checkpoints) < 2:
            raise ValueError("truncating needs two checkpoints")
        cut = checkpoints[0]
        conn.execute("delete from events where campaign = ? and seq > ?", (campaign, cut))
        return cut + 1
    if kind == "reordered":
        middle = [r for r in rows if r["visibility"] == "public"][len(rows) // 2 :]
        a, b = next(
            (x, y) for x, y in zip(middle, middle[1:], strict=False) if y["seq"] == x["seq"] + 1
        )
        for old, new in ((a["seq"], -1), (b["seq"], a["seq"]), (-1, b["seq"])):
            conn.execute(
                "update events set seq = ? where campaign = ? and seq = ?", (new, campaign, old)
            )
        return int(a["seq"])
    if kind == "checkpoint-swapped":
        if len(checkpoints) < 2:
            raise ValueError("swapping checkpoints needs two")
        first, second = checkpoints[0], checkpoints[1]
        kept = {
            size: conn.execute(
                "select note, root from checkpoints where campaign = ? and size = ?",
                (campaign, size),
            ).fetchone()
            for size in (first, second)
        }
        for size, other in ((first, second), (second, first)):
            conn.execute(
                "update checkpoints set note = ?, root = ? where campaign = ? and size = ?",
                (*kept[other], campaign, size),
            )
        return first
    # cosignature-moved
    co = conn.execute(
        "select size from cosignatures where campaign = ? order by size", (campaign,)
    ).fetchone()
    others = [s for s in checkpoints if co is not None and s != co[0]]
    if co is None or not others:
        raise ValueError("moving a cosignature needs one and another checkpoint")
    conn.execute(
        "update cosignatures set size = ? where campaign = ? and size = ?",
        (others[0], campaign, co[0]),
    )
    return others[0]


# --- what the verifiers say -------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """One verifier's verdict: ``ok``, the first ``bad_seq`` (``None`` when it passes) and
    ``words``, the sentence it gives for a failure (``None`` when it passes)."""

    ok: bool
    bad_seq: int | None
    words: str | None

    @classmethod
    def of(
        cls, ok: bool, bad_seq: int | None, problem: str | None, *, file: bool = False
    ) -> Verdict:
        """The verdict of a report's ``ok``, ``bad_seq`` and ``problem`` (of an exported
        file when ``file``)."""
        from ledger.history.report import failure_words

        if ok:
            return cls(True, None, None)
        return cls(False, bad_seq, failure_words(bad_seq, str(problem), file=file))

    def __str__(self) -> str:
        return "OK" if self.ok else str(self.words)


def exports(ledger: Ledger, folder: Path) -> dict[str, Path]:
    """The GM's and the players' export of ``ledger`` as files in ``folder``:
    ``{"gm": path, "player": path}``. The checkpoint lines are every kept checkpoint's (a
    truncated log's file still carries the checkpoints the GM signed)."""
    from ledger.exchange.ndjson import export_line, stub_line
    from ledger.exchange.trust_lines import trust_lines
    from ledger.store.opening import open_store

    store = open_store(str(ledger.path))
    out = {}
    try:
        import msgspec

        encode = msgspec.json.encode
        rows = list(store.rows(ledger.campaign))
        trust = b"".join(trust_lines(store, ledger.campaign, 1 << 62))
        for view in ("gm", "player"):
            lines = [
                encode(
                    stub_line(r) if view == "player" and r.visibility == "gm" else export_line(r)
                )
                + b"\n"
                for r in rows
            ]
            path = Path(folder) / f"{ledger.name.replace('/', '-')}-{view}.ndjson"
            path.write_bytes(b"".join(lines) + trust)
            out[view] = path
    finally:
        store.close()
    return out


def cli_verdict(ledger: Ledger | None = None, file: Path | None = None) -> Verdict:
    """``campaign verify --json`` of the ledger, or ``campaign verify FILE --json``."""
    from click.testing import CliRunner

    from ledger.cli import cli

    args = ["verify", str(file), "--json"] if file is not None else [
        "--db", str(ledger.path if ledger else ""), "verify", "--json"]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    if result.exit_code not in (0, 1):
        raise AssertionError(f"`campaign {' '.join(args)}` crashed: {result.output}")
    out = json.loads(result.stdout)
    return Verdict.of(out["ok"], out["bad_seq"], out["problem"], file=file is not None)


def generic_verdict(file: Path) -> Verdict:
    """What the in-browser verifier must say of an export: the chain, the seeds, every engine
    draw (``verify_rows(rules=False)``), then the signed checkpoints and cosignatures."""
    from ledger.exchange.ndjson import parse_lines, verify_export
    from ledger.history import checkpoint_checks

    trust: list[Any] = []
    with open(file, "rb") as f:
        lines = parse_lines(f, trust)
    _, report = verify_export(lines, rules=False)
    if report.ok:
        seen = checkpoint_checks.check_file(lines, trust)
        if not seen.ok:
            report.fail(seen.bad_size or 0, str(seen.problem))
    return Verdict.of(report.ok, report.bad_seq, report.problem, file=True)


def audits(ledger: Ledger) -> dict[int, dict[str, Any]]:
    """``audit SEQ`` (the GM's view) of every roll of the ledger: ``{seq: its dict}``
    (:func:`ledger.history.audit.audit`, what ``campaign audit --json`` and the audit page
    show); an event gone is ``{"verdict": "missing"}``, one the rules refuse to reach
    (a forged result before it) ``{"verdict": "refused", "detail": the refusal}``."""
    from ledger.campaign.aggregate import NotFound, open_campaign
    from ledger.errors import RuleError
    from ledger.history.audit import audit
    from ledger.store.opening import open_store

    store = open_store(str(ledger.path))
    try:
        campaign = open_campaign(store)
        out = {}
        for seq in ledger.rolls:
            try:
                out[seq] = audit(campaign, seq, as_gm=True)
            except NotFound:
                out[seq] = {"verdict": "missing", "detail": "no such event", "chain": {}}
            except RuleError as e:  # the rules refuse to fold the log up to it
                out[seq] = {"verdict": "refused", "detail": str(e), "chain": {}}
        return out
    finally:
        store.close()


#: The audit verdicts that vouch for a roll.
GOOD_AUDITS = frozenset({"verified", "pending", "recorded", "imported"})
