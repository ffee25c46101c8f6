"""verify, import and audit prove what people read: every roll's recorded result re-derives.

Not only the draws: seen, an engine roll's ``dice``, ``total``, ``margin`` and ``outcome``
changed (the draws untouched) and the hashes recomputed as docs/events.md describes:
``import`` said "chain and rolls verified", ``verify`` was OK and ``audit`` printed the real
draws beside the fake result.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner, Result
from freezegun import freeze_time

from ledger.campaign.aggregate import Campaign
from ledger.cli import cli
from ledger.codec import canonical_envelope
from ledger.events import Envelope
from ledger.exchange.ndjson import export_lines, parse_lines
from ledger.history.verify import verify_rows, verify_store
from ledger.rules.system import RuleSystem
from ledger.store.sqlite import COLUMNS, Store, chain_hash
from tests.toy import Improved, Toy

CASEBOOK = Path(__file__).resolve().parents[1] / "campaigns" / "grand-casebook"


def forge(db: str, campaign: str, seq: int, **fields: Any) -> None:
    """What a forger with the file does: drop the triggers, change fields of event ``seq``'s
    data and recompute every hash from there (docs/events.md "Verifying an export")."""
    conn = sqlite3.connect(db, isolation_level=None)
    for (name,) in conn.execute("select name from sqlite_master where type = 'trigger'").fetchall():
        conn.execute(f"drop trigger {name}")
    (data,) = conn.execute(
        "select data from events where campaign = ? and seq = ?", (campaign, seq)
    ).fetchone()
    payload = {**json.loads(data), **fields}
    conn.execute(
        "update events set data = ? where campaign = ? and seq = ?",
        (msgspec.json.encode(payload, order="sorted").decode(), campaign, seq),
    )
    rows = [
        dict(zip(COLUMNS, r, strict=True))
        for r in conn.execute(
            f"select {', '.join(COLUMNS)} from events where campaign = ? order by seq", (campaign,)
        )
    ]
    prev = rows[seq - 2]["hash"] if seq > 1 else "0" * 64
    for r in rows[seq - 1 :]:
        values = {k: v for k, v in r.items() if k != "hash"}
        values.update(prev_hash=prev, data=msgspec.Raw(r["data"].encode()))
        new = chain_hash(prev, canonical_envelope(Envelope(**values)))
        conn.execute(
            "update events set prev_hash = ?, hash = ? where campaign = ? and seq = ?",
            (prev, new, campaign, r["seq"]),
        )
        prev = new
    conn.close()


def run(db: str, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--db", db, *args])


def ok_json(db: str, *args: str) -> Any:
    result = run(db, *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def refused_everywhere(db: str, seq: int, tmp_path: Path) -> None:
    """verify, import (of the GM's export) and audit each name ``seq``'s forged result."""
    result = run(db, "verify")
    assert result.exit_code == 1, result.output
    assert f"verification failed at seq {seq}: the recorded result does not follow" in (
        result.output
    )
    export = run(db, "--as", "gm", "export")
    assert export.exit_code == 0
    path = tmp_path / "forged.ndjson"
    path.write_bytes(export.stdout_bytes)
    imported = run(str(tmp_path / "imported.db"), "import", str(path))
    assert imported.exit_code == 1, imported.output
    assert f"does not verify: seq {seq}: the recorded result does not follow" in imported.output
    assert "Traceback" not in imported.output
    assert not (tmp_path / "imported.db").exists()
    audit = run(db, "--as", "gm", "audit", str(seq))
    assert audit.exit_code == 1
    assert "the recorded result does not follow from its dice" in audit.output


@pytest.fixture
def played(toy_campaign, db_path):
    """A toy campaign: an ended session with one engine roll of Ann's (seq 5) and a
    physical roll of Bob's (seq 6)."""
    invoke = toy_campaign
    invoke("session", "start")
    engine = json.loads(invoke("roll", "ann", "brawl", "--json").output)
    physical = json.loads(invoke("roll", "bob", "sneak", "--dice", "2,2", "--json").output)
    invoke("session", "end")
    assert (engine["seq"], physical["seq"]) == (5, 6)
    return engine


def test_honest_rolls_verify_with_results_rederived(played, db_path):
    out = ok_json(db_path, "verify")
    assert out["ok"] and out["results_rederived"] == 2 and out["results_unchecked"] is None
    text = run(db_path, "verify").output
    assert "1 engine rolls verified, 2 roll results re-derived" in text
    audit = run(db_path, "audit", "5").output
    assert "its result is what the rules give for them" in audit


def test_a_forged_engine_result_is_found_by_verify_import_and_audit(played, db_path, tmp_path):
    """The Seen: dice, total and outcome changed, draws untouched, hashes recomputed."""
    real = [v for _, v in played["draws"]]
    fake = [6, 6] if real != [6, 6] else [1, 1]
    total = sum(fake) + 2
    forge(db_path, "toybox", 5, dice=fake, total=total,
          outcome="success" if total >= 7 else "failure")  # fmt: skip
    refused_everywhere(db_path, 5, tmp_path)
    # the draws alone still verify: only the result is forged
    report = verify_store(Store(db_path), "toybox")
    assert report.bad_seq == 5 and f"recorded dice {fake!r}" in (report.problem or "")
    assert f"the rules give dice {real!r}" in (report.problem or "")


def test_a_forged_physical_result_is_found(played, db_path, tmp_path):
    forge(db_path, "toybox", 6, total=12, outcome="success")  # the dice say 2 + 2 + 1 = 5
    refused_everywhere(db_path, 6, tmp_path)
    audit = run(db_path, "audit", "6").output
    assert "recorded outcome 'success', total 12; the rules give outcome 'failure', total 5" in (
        audit
    )


def test_an_outside_verifier_of_the_export_finds_it_too(played, db_path):
    forge(db_path, "toybox", 6, total=12, outcome="success")
    lines = parse_lines(export_lines(Store(db_path), "toybox", as_gm=True))
    rows = [{**msgspec.structs.asdict(x), "data": bytes(x.data)} for x in lines]
    report = verify_rows(iter(rows))
    assert report.bad_seq == 6 and "does not follow from its dice" in (report.problem or "")


def test_results_are_checked_against_the_state_with_corrections_then_in_force(
    toy_system, db_path, tmp_path
):
    """A retracted advancement lowers the skill for later rolls: verify folds the state again
    after the correction (in the store and in an export), as the roll was resolved."""
    at = "2026-03-01T19:00:00.000000Z"
    store = Store(db_path)
    campaign = Campaign.create(store, "toybox", system="toy", actor="gm", at=at)
    campaign.add_character({"name": "Ann", "skills": {"brawl": 2}}, actor="gm", at=at)
    improved = Improved(
        character="ann", skill="brawl", for_session=1, die=6, improved=True,
        source="physical", draws=[(6, 6)],
    )  # fmt: skip
    campaign.append([improved], actor="gm", at=at)  # seq 3: brawl 3
    first = campaign.roll("ann", "brawl", {}, faces="3,4", actor="gm", at=at).roll  # seq 4
    campaign.correct(3, "entered by mistake", actor="gm", at=at)  # seq 5: brawl 2 again
    second = campaign.roll("ann", "brawl", {}, faces="3,4", actor="gm", at=at).roll  # seq 6
    assert (first.data.total, second.data.total) == (10, 9)  # type: ignore[attr-defined]
    report = verify_store(store, "toybox")
    assert report.ok and report.results_checked == 3, report.problem
    lines = parse_lines(export_lines(store, "toybox", as_gm=True))
    rows = [{**msgspec.structs.asdict(x), "data": bytes(x.data)} for x in lines]
    assert verify_rows(iter(rows)).ok
    store.conn.close()
    forge(db_path, "toybox", 6, total=10, outcome="success")  # as if brawl were still 3
    report = verify_store(Store(db_path), "toybox")
    assert report.bad_seq == 6 and "recorded total 10; the rules give total 9" in (
        report.problem or ""
    )


def test_a_system_that_cannot_rederive_a_roll_fails_verify(played, db_path, monkeypatch):
    """Strict: every roll's result must re-derive (every installed system implements it)."""
    monkeypatch.setattr(Toy, "request_of", RuleSystem.request_of)
    monkeypatch.setattr(Toy, "rederive", RuleSystem.rederive)
    result = run(db_path, "verify")
    assert result.exit_code == 1
    assert "seq 5: the recorded result does not follow from its dice: the rules refuse" in (
        result.output
    )
    assert "toy cannot re-derive toy.rolled events" in result.output


@pytest.fixture
def casebook(tmp_path: Path) -> str:
    db = str(tmp_path / "casebook.db")
    with freeze_time("2026-03-01 19:00:00", tick=True):
        ok_json(db, "new", "casebook", "--system", "wyrd-engine")
        for stem in ("julian", "felix"):
            ok_json(db, "character", "add", "--sheet",
                    str(CASEBOOK / "characters" / f"{stem}.toml"))  # fmt: skip
        ok_json(db, "session", "start")
    return db


def test_wyrd_engine_forged_engine_result_is_found(casebook, tmp_path):
    """The Seen in a real system: dice, total, margin and outcome of an engine roll."""
    with freeze_time("2026-03-01 19:05:00", tick=True):
        roll = ok_json(casebook, "roll", "Julian", "investigate", "--dr", "good")
        ok_json(casebook, "session", "end")
        assert ok_json(casebook, "verify")["results_rederived"] == 1
        fake = [1, 1, 1, 1] if roll["dice"] != [1, 1, 1, 1] else [-1, -1, -1, -1]
        total = roll["total"] - sum(roll["dice"]) + sum(fake)
        forge(casebook, "casebook", roll["seq"], dice=fake, total=total,
              margin=total - roll["dr"], outcome="success_with_style")  # fmt: skip
        refused_everywhere(casebook, roll["seq"], tmp_path)
