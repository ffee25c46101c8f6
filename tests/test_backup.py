"""GM backups restore everything; an open session whose seed is lost can be abandoned."""

from __future__ import annotations

import json
import os
import stat

import pytest

from ledger.exchange.backup import BACKUP_KEY

from .test_outputs import refused, run


@pytest.fixture
def open_session(toy_campaign, db_path):
    """The toy campaign in session 2 (session 1 ended, Ann's chronicle entry signed), with an
    engine roll in each."""
    invoke = toy_campaign
    for args in (
        ["session", "start"],
        ["roll", "ann", "brawl"],
        ["session", "end"],
        ["session", "start"],
        ["roll", "bob", "sneak"],
        ["record", "secret-noted", "--character", "bob", "--value", "5"],
    ):
        assert invoke(*args).exit_code == 0, args
    return db_path


def test_backup_restores_the_open_sessions_seed(open_session, tmp_path):
    # Seen: restoring the GM's export of a campaign with an open session lost its seed for
    # good ("the seed of session 2 is missing"; "session 2 is still open")
    backup = tmp_path / "toybox.backup"
    result = run(open_session, "backup", str(backup))
    assert result.exit_code == 0, result.output
    assert "1 unrevealed seed" in result.output and "private" in result.output
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    restored = str(tmp_path / "restored.db")
    result = run(restored, "import", str(backup))
    assert result.exit_code == 0, result.output
    assert "1 unrevealed seed" in result.output
    assert run(restored, "roll", "ann", "brawl").exit_code == 0
    ended = run(restored, "session", "end")
    assert ended.exit_code == 0, ended.output
    assert run(restored, "verify").exit_code == 0
    assert run(restored, "session", "start").exit_code == 0


def test_backup_lines_are_the_gm_exports_lines(open_session, tmp_path):
    backup, export = tmp_path / "b.ndjson", tmp_path / "e.ndjson"
    assert run(open_session, "backup", str(backup)).exit_code == 0
    assert run(open_session, "--as", "gm", "export", "-o", str(export)).exit_code == 0
    first, *events = backup.read_bytes().splitlines(keepends=True)
    assert events == export.read_bytes().splitlines(keepends=True)
    record = json.loads(first)
    assert record[BACKUP_KEY] == 1 and record["campaign"] == "toybox"
    assert "private" in record["warning"]
    assert [s["session"] for s in record["secrets"] if s["kind"] != "checkpoint"] == [2]
    (key,) = [s for s in record["secrets"] if s["kind"] == "checkpoint"]  # the GM's key
    assert key["session"] == 0 and len(key["seed"]) == 64


def test_a_backup_whose_secret_was_changed_is_refused(open_session, tmp_path):
    backup = tmp_path / "b.ndjson"
    assert run(open_session, "backup", str(backup)).exit_code == 0
    first, rest = backup.read_bytes().split(b"\n", 1)
    record = json.loads(first)
    (seed,) = [s for s in record["secrets"] if s["kind"] != "checkpoint"]
    seed["seed"] = "00" * 32
    backup.write_bytes(json.dumps(record).encode() + b"\n" + rest)
    target = tmp_path / "r.db"
    refused(run(str(target), "import", str(backup)), "matches no seed commitment")
    assert not target.exists()


def test_a_backup_whose_checkpoint_key_was_swapped_is_refused(open_session, tmp_path):
    """A forger who swaps in a key of their own cannot restore it: the key must be the one
    whose verifier key the log records."""
    backup = tmp_path / "b.ndjson"
    assert run(open_session, "backup", str(backup)).exit_code == 0
    first, rest = backup.read_bytes().split(b"\n", 1)
    record = json.loads(first)
    (key,) = [s for s in record["secrets"] if s["kind"] == "checkpoint"]
    key["seed"] = "11" * 32
    backup.write_bytes(json.dumps(record).encode() + b"\n" + rest)
    target = tmp_path / "r.db"
    refused(run(str(target), "import", str(backup)), "not the key the log records")
    assert not target.exists()


def test_importing_a_player_copy_names_the_backup_command(open_session, tmp_path):
    player = tmp_path / "p.ndjson"
    assert run(open_session, "export", "-o", str(player)).exit_code == 0
    refused(run(str(tmp_path / "r.db"), "import", str(player)), "campaign backup FILE")


def test_abandon_closes_a_session_whose_seed_is_lost(open_session):
    from ledger.store.sqlite import Store

    store = Store(open_session)  # the seed is lost (a ledger restored without a backup)
    store.drop_secret("toybox", 2)
    store.conn.close()
    refused(run(open_session, "session", "end"), "seed of session 2 is missing")
    refused(run(open_session, "session", "abandon", "--reason", "  "), "why")
    result = run(open_session, "session", "abandon", "--reason", "lost the laptop")
    assert result.exit_code == 0, result.output
    assert "Session 2 abandoned (seq 13)" in result.output
    log = run(open_session, "log").output
    assert "[13] Session 2 abandoned, its seed lost: lost the laptop" in log
    assert "abandoned at seq 13 (seed lost)" in run(open_session, "session", "list").output
    assert run(open_session, "session", "start").exit_code == 0
    assert run(open_session, "roll", "ann", "brawl").exit_code == 0
    assert run(open_session, "session", "end").exit_code == 0
    refused(run(open_session, "correct", "13", "--reason", "oops"), "cannot be corrected")
    recap = run(open_session, "recap", "--session", "2").output
    assert "Session 2 abandoned, its seed lost: lost the laptop" in recap


def test_abandon_is_refused_while_the_seed_is_kept(open_session, db_path):
    from .test_reliability_fuzz import fingerprint

    before = fingerprint(db_path)
    refused(run(db_path, "session", "abandon", "--reason", "bored"), "campaign session end")
    assert fingerprint(db_path) == before
    assert run(db_path, "session", "end").exit_code == 0
    refused(run(db_path, "session", "abandon", "--reason", "x"), "no session is open")


def test_backup_refuses_to_overwrite_the_ledger(open_session):
    from .test_reliability_fuzz import fingerprint

    before = fingerprint(open_session)
    refused(run(open_session, "backup", open_session), "the open ledger")
    assert fingerprint(open_session) == before


def test_importing_a_gm_export_mid_session_is_refused_or_abandoned(open_session, tmp_path):
    # an export (not a backup) holds no seed: the imported open session could never draw or
    # verify an engine roll (it used to import with a warning and stay "pending"):
    # import refuses it naming `campaign backup`; --abandon-open-session closes it at import
    gm = tmp_path / "gm.ndjson"
    assert run(open_session, "--as", "gm", "export", "-o", str(gm)).exit_code == 0
    restored = str(tmp_path / "restored.db")
    refused(run(restored, "import", str(gm)), "campaign backup", "--abandon-open-session")
    assert not os.path.exists(restored)
    result = run(restored, "import", "--abandon-open-session", str(gm))
    assert result.exit_code == 0, result.output
    assert "Session 2 was open without its seed: abandoned at import" in result.output
    assert "its 1 engine roll is unverifiable" in result.output
    result = run(restored, "verify")
    assert result.exit_code == 0, result.output
    assert "1 engine rolls are unverifiable (session abandoned" in result.output
    assert run(restored, "session", "start").exit_code == 0


def test_a_campaign_with_webhooks_backs_up_and_restores(open_session, tmp_path):
    # Seen: a ledger with a webhook (and one mid-rotation) backed up, and the backup refused
    # at import ("secret 2 of the backup (webhook seed of session 1) matches no seed
    # commitment"): the hook's signing secrets rode in the backup without the hook
    assert run(open_session, "webhook", "add", "https://x.example/h", "--channel", "gm").exit_code == 0
    assert run(open_session, "webhook", "rotate", "1").exit_code == 0
    backup = tmp_path / "b.ndjson"
    assert run(open_session, "backup", str(backup)).exit_code == 0
    record = json.loads(backup.read_bytes().splitlines()[0])
    assert {s["kind"] for s in record["secrets"]} == {"session", "checkpoint"}
    restored = str(tmp_path / "restored.db")
    result = run(restored, "import", str(backup))
    assert result.exit_code == 0, result.output
    assert run(restored, "verify").exit_code == 0


def test_an_earlier_backup_holding_a_webhook_secret_restores(open_session, tmp_path):
    # a backup written before backups left the hooks' secrets out still imports: the secret
    # of a hook it does not carry is passed over, never restored
    backup = tmp_path / "b.ndjson"
    assert run(open_session, "backup", str(backup)).exit_code == 0
    first, rest = backup.read_bytes().split(b"\n", 1)
    record = json.loads(first)
    record["secrets"].append({"kind": "webhook", "session": 1, "seed": "ab" * 32})
    older = tmp_path / "older.ndjson"
    older.write_bytes(json.dumps(record, separators=(",", ":")).encode() + b"\n" + rest)
    restored = str(tmp_path / "restored.db")
    result = run(restored, "import", str(older))
    assert result.exit_code == 0, result.output
    assert run(restored, "webhook", "list", "--json").output.strip() in ("[]", "")
