"""Tampering: random changes to stored events, made by an attacker who drops the triggers.

The promise: any change to any stored byte of any event is found by `verify`,
which names the first bad seq. Kinds of change (each picks its target at random):

- ``byte``: one character of an event's ``data`` replaced;
- ``field``: an envelope field changed (stream, version, type, recorded_at, actor, session,
  visibility, campaign);
- ``swap``: two events' places (seqs) swapped, or their payloads swapped;
- ``delete``: a row deleted (inside the log: a gap; the last row: only a receipt shows it);
- ``forge_hash``: a hash (or prev_hash) replaced, with or without the next link repaired;
- ``rechain``: a change, then every later hash recomputed so the chain is consistent again.
  Only a receipt taken after the change can show it; ``verify --receipt SEQ:HASH`` names the
  receipt's seq (the first seq the receipt can vouch for is wrong);
- ``roll``: an engine roll's die face changed and the chain recomputed: the revealed seed
  gives other dice, and verify names the roll's seq.

Every case is checked in the store (:func:`ledger.verify.verify_store`), in the GM's export
(:func:`ledger.verify.verify_rows` over the NDJSON, as an outside verifier would) and, for a
sample, through ``campaign verify --json`` (exit 1, ``bad_seq``).
"""

from __future__ import annotations

import json
import random
import sqlite3
import string
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest
import sqlite_utils
from click.testing import CliRunner

from ledger.cli import cli
from ledger.errors import RuleError
from ledger.exchange.ndjson import export_lines, parse_lines
from ledger.history.verify import verify_rows, verify_store
from ledger.store.sqlite import COLUMNS, Store, chain_hash

CAMPAIGN = "toybox"
KINDS = ("byte", "field", "swap", "delete", "forge_hash", "rechain", "roll")


@pytest.fixture
def base_db(toy_campaign, db_path, tmp_path) -> Path:
    """A toy campaign of ~40 events: two sessions (one ended, one open), engine and physical
    rolls, GM-only secrets and blind rolls, damage, luck, scenes and corrections."""
    invoke = toy_campaign
    for number in (1, 2):
        assert invoke("session", "start").exit_code == 0
        for i in range(4):
            assert invoke("roll", "ann", "brawl", "--client-seed", f"c{i}").exit_code == 0
            assert invoke("roll", "bob", "sneak", "--dice", f"{i + 1},{6 - i}").exit_code == 0
        assert invoke("roll", "bob", "sneak", "--blind").exit_code == 0
        invoke("record", "secret-noted", "--character", "bob", "--value", str(4000 + number))
        invoke("record", "hurt", "--character", "ann", "--amount", "2")
        invoke("record", "luck-used", "--character", "bob")
        invoke("scene", "end")
        assert invoke("correct", "6", "--reason", "misread", "--set", "target=9").exit_code == 0
        if number == 1:
            assert invoke("session", "end").exit_code == 0
    conn = sqlite3.connect(db_path)
    conn.execute("pragma wal_checkpoint(truncate)")
    conn.close()
    assert verify_store(Store(db_path), CAMPAIGN).ok
    return Path(db_path)


def load(base: Path) -> sqlite3.Connection:
    """An in-memory copy of the ledger, its append-only triggers dropped by the attacker."""
    src = sqlite3.connect(base)
    mem = sqlite3.connect(":memory:", isolation_level=None)
    src.backup(mem)
    src.close()
    for (name,) in mem.execute(
        "select name from sqlite_master where type = 'trigger' and tbl_name = 'events'"
    ).fetchall():
        mem.execute(f"drop trigger {name}")
    return mem


def rows_of(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    cur = conn.execute(
        f"select {', '.join(COLUMNS)} from events where campaign = ? order by seq", (CAMPAIGN,)
    )
    return [dict(zip(COLUMNS, r, strict=True)) for r in cur]


def put(conn: sqlite3.Connection, at: int, **values: Any) -> None:
    """Change columns of the event at seq ``at``."""
    sets = ", ".join(f"{k} = ?" for k in values)
    conn.execute(
        f"update events set {sets} where campaign = ? and seq = ?",
        [*values.values(), CAMPAIGN, at],
    )


def rehash_from(conn: sqlite3.Connection, seq: int) -> None:
    """Recompute ``prev_hash`` and ``hash`` of every event from ``seq`` on (a re-chain)."""
    from ledger.codec import canonical_envelope
    from ledger.events import Envelope

    rows = rows_of(conn)
    prev = next((r["hash"] for r in rows if r["seq"] == seq - 1), "0" * 64)
    for r in rows:
        if r["seq"] < seq:
            continue
        fields = {k: v for k, v in r.items() if k != "hash"}
        fields["prev_hash"] = prev
        fields["data"] = msgspec.Raw(r["data"].encode())
        new = chain_hash(prev, canonical_envelope(Envelope(**fields)))
        put(conn, r["seq"], prev_hash=prev, hash=new)
        prev = new


def other_char(c: str, rng: random.Random) -> str:
    pool = string.ascii_letters + string.digits + ' {}[],:"'
    return rng.choice([x for x in pool if x != c])


def mutate(conn: sqlite3.Connection, kind: str, rng: random.Random) -> dict[str, Any]:
    """Apply one random change of ``kind``.

    :returns: ``{"expect": first bad seq, "receipt": (seq, hash) or None, "what": text}``.
    """
    rows = rows_of(conn)
    head = len(rows)
    receipt = None
    s = rng.randint(1, head)
    row = rows[s - 1]
    if kind == "byte":
        data = row["data"]
        i = rng.randrange(len(data))
        put(conn, s, data=data[:i] + other_char(data[i], rng) + data[i + 1 :])
        return {"expect": s, "receipt": None, "what": f"byte {i} of seq {s}'s data"}
    if kind == "field":
        column = rng.choice(
            ["stream", "version", "type", "recorded_at", "actor", "session", "visibility"]
            + ["campaign"]
        )
        value = row[column]
        new: Any
        if column == "version":
            new = rng.choice([-value, value + 1000, 0])  # free (stream, version) slots
        elif column == "session":
            new = None if value is not None else rng.randint(1, 3)
        elif column == "visibility":
            new = "public" if value == "gm" else "gm"
        elif column == "recorded_at":
            new = value.replace("2026", "2025", 1)
        else:
            new = value + rng.choice(["x", "-2", "."])
        put(conn, s, **{column: new})
        if column == "campaign" and s == head:  # moved out: the log is one shorter
            receipt = (head, row["hash"])
        return {"expect": s, "receipt": receipt, "what": f"{column} of seq {s}"}
    if kind == "swap":
        t = rng.choice([x for x in range(1, head + 1) if x != s])
        s, t = min(s, t), max(s, t)
        if rng.random() < 0.5:
            put(conn, s, seq=-1)
            put(conn, t, seq=s)
            conn.execute("update events set seq = ? where campaign = ? and seq = -1", (t, CAMPAIGN))
            return {"expect": s, "receipt": None, "what": f"events {s} and {t} swapped"}
        a, b = rows[s - 1]["data"], rows[t - 1]["data"]
        if a == b:
            return mutate(conn, "byte", rng)
        put(conn, s, data=b)
        put(conn, t, data=a)
        return {"expect": s, "receipt": None, "what": f"payloads of {s} and {t} swapped"}
    if kind == "delete":
        conn.execute("delete from events where campaign = ? and seq = ?", (CAMPAIGN, s))
        if s == head:  # a shorter log is a valid log: only a receipt shows the loss
            receipt = (head, row["hash"])
        return {"expect": s, "receipt": receipt, "what": f"seq {s} deleted"}
    if kind == "forge_hash":
        fake = f"{rng.getrandbits(256):064x}"
        if rng.random() < 0.5 or s == 1:
            put(conn, s, hash=fake)
            if s < head and rng.random() < 0.5:
                put(conn, s + 1, prev_hash=fake)  # repair the next link too
            elif s == head:
                receipt = (head, row["hash"])
            return {"expect": s, "receipt": receipt, "what": f"hash of seq {s} forged"}
        put(conn, s, prev_hash=fake)
        return {"expect": s, "receipt": None, "what": f"prev_hash of seq {s} forged"}
    if kind == "rechain":
        r = rng.randint(s, head)
        receipt = (r, rows[r - 1]["hash"])  # a player kept this receipt before the change
        what = rng.choice(["byte", "field", "delete"])
        if what == "byte":
            data = row["data"]
            i = rng.randrange(len(data))
            put(conn, s, data=data[:i] + other_char(data[i], rng) + data[i + 1 :])
        elif what == "field":
            put(conn, s, actor=row["actor"] + "-forged")
        else:  # delete and renumber the rest
            conn.execute("delete from events where campaign = ? and seq = ?", (CAMPAIGN, s))
            conn.execute(
                "update events set seq = seq - 1 where campaign = ? and seq > ?", (CAMPAIGN, s)
            )
        rehash_from(conn, s)
        return {"expect": None, "at": s, "receipt": receipt, "what": f"seq {s} ({what}) re-chained"}
    if kind == "roll":
        ended = max(r["seq"] for r in rows if r["type"] == "session.ended")
        rolls = [
            r for r in rows if r["seq"] < ended and json.loads(r["data"]).get("source") == "engine"
        ]
        target = rng.choice(rolls)
        payload = json.loads(target["data"])
        die = rng.randrange(len(payload["draws"]))
        sides, value = payload["draws"][die]
        payload["draws"][die] = [sides, value % sides + 1]
        data = json.dumps(payload, sort_keys=True, separators=(",", ":"))
        put(conn, target["seq"], data=data)
        rehash_from(conn, target["seq"])
        return {"expect": target["seq"], "receipt": None, "what": f"roll {target['seq']} die {die}"}
    raise AssertionError(kind)


def check_found(conn: sqlite3.Connection, case: dict[str, Any]) -> int:
    """verify (store and export) finds the change; returns the bad seq it named."""
    store = Store(sqlite_utils.Database(conn))
    report = verify_store(store, CAMPAIGN, receipt=case["receipt"])
    assert not report.ok, f"not found: {case['what']}"
    if case["expect"] is not None:
        assert report.bad_seq == case["expect"], (case["what"], report.bad_seq, report.problem)
    else:
        # re-chained: the receipt shows the log was rewritten up to its seq; when the change
        # leaves a visible inconsistency (data no longer JSON of its type, a stream version
        # skipped) verify names where it shows, between the change and the receipt
        assert case["at"] <= report.bad_seq <= case["receipt"][0], (case["what"], report.problem)
    if case["receipt"] is None:
        # an outside verifier holding only the GM's export finds it too (or cannot parse it)
        try:
            lines = parse_lines(export_lines(store, CAMPAIGN, as_gm=True))
        except RuleError:
            return report.bad_seq
        rows = [{**msgspec.structs.asdict(x), "data": bytes(x.data)} for x in lines]
        outside = verify_rows(iter(rows))
        assert not outside.ok, f"the export hides: {case['what']}"
        assert outside.bad_seq == report.bad_seq
    return report.bad_seq


def run_tamperings(base: Path, tmp_path: Path, count: int, cli_every: int) -> Counter[str]:
    rng = random.Random(count)
    found: Counter[str] = Counter()
    for n in range(count):
        kind = KINDS[n % len(KINDS)]
        conn = load(base)
        case = mutate(conn, kind, rng)
        bad = check_found(conn, case)
        found[kind] += 1
        if n % cli_every == 0:
            path = tmp_path / f"t{n}.db"
            disk = sqlite3.connect(path)
            conn.backup(disk)
            disk.close()
            path.chmod(0o600)  # as `campaign` makes a ledger: the GM's alone
            args = ["--db", str(path), "verify", "--json"]
            if case["receipt"]:
                args += ["--receipt", f"{case['receipt'][0]}:{case['receipt'][1]}"]
            result = CliRunner().invoke(cli, args)
            assert len(result.output.strip().splitlines()) == 1, result.output
            if bad == 1:
                # seq 1 (campaign.created) damaged: the CLI cannot open the campaign; see
                # test_cli_verify_names_damage_to_the_first_event (xfail, a core bug)
                found["cli_seq1_unnamed"] += 1
            else:
                assert result.exit_code == 1, (case["what"], result.output)
                assert json.loads(result.output)["bad_seq"] == bad
                found["cli_named"] += 1
        conn.close()
    return found


def test_untampered_copy_verifies(base_db):
    conn = load(base_db)
    report = verify_store(Store(sqlite_utils.Database(conn)), CAMPAIGN)
    assert report.ok and report.engine_rolls == 5 and report.unverifiable_rolls == 5


@pytest.mark.parametrize("kind", KINDS)
def test_each_kind_is_found(base_db, kind):
    rng = random.Random(kind)
    for _ in range(5):
        conn = load(base_db)
        check_found(conn, mutate(conn, kind, rng))


def test_hundred_tamperings(base_db, tmp_path):
    found = run_tamperings(base_db, tmp_path, 100, cli_every=10)
    assert sum(found[k] for k in KINDS) == 100


@pytest.mark.parametrize("column", ["data", "type", "campaign"])
def test_cli_verify_names_damage_to_the_first_event(base_db, tmp_path, column):
    conn = load(base_db)
    first = rows_of(conn)[0]
    value = first[column][:-1] + "?"
    put(conn, 1, **{column: value})
    path = tmp_path / "first.db"
    disk = sqlite3.connect(path)
    conn.backup(disk)
    disk.close()
    result = CliRunner().invoke(cli, ["--db", str(path), "--campaign", CAMPAIGN, "verify"])
    assert result.exit_code == 1
    assert "verification failed at seq 1" in result.output, result.output


@pytest.mark.slow
def test_thousand_tamperings(base_db, tmp_path):
    """The bar: 1,000 random changes, every one found, the first bad seq named."""
    found = run_tamperings(base_db, tmp_path, 1000, cli_every=10)
    print(f"\ntampering figures: {dict(found)}")
    assert sum(found[k] for k in KINDS) == 1000
