"""The campaign's checkpoint key and signed checkpoints: made at `campaign new`,
signed at `session end` and by `campaign checkpoint`, all kept; attacks first."""

from __future__ import annotations

import json
import sqlite3

import pytest

from ledger.campaign import checkpoints
from ledger.campaign.aggregate import open_campaign
from ledger.events import CampaignCreated
from ledger.history import tree_proofs
from ledger.store.base import Pending
from ledger.store.sqlite import Store
from ledger.trust import merkle
from ledger.trust.notes import Checkpoint, NoteError, Signer, UnverifiedNote, open_note, sign


def _store(db_path):
    return Store(db_path)


def test_a_new_campaign_names_its_key_and_keeps_it_secret(toy_campaign, db_path):
    store = _store(db_path)
    campaign = open_campaign(store)
    vkey = campaign.created.checkpoint_key
    assert vkey.startswith("campaign-ledger/toybox+")
    kept = store.get_secret("toybox", 0, "checkpoint")
    assert kept is not None and Signer("campaign-ledger/toybox", kept).verifier.key() == vkey
    export = toy_campaign("--as", "gm", "export").output
    assert kept.hex() not in export and vkey in export  # public key only, even for the GM
    store.close()


def test_checkpoint_signs_the_tree_of_the_whole_log(toy_campaign, db_path):
    out = json.loads(toy_campaign("checkpoint", "--json").output)
    store = _store(db_path)
    leaves = tree_proofs.leaves(store, "toybox", store.head("toybox").seq)
    assert out["size"] == len(leaves) == 3 and out["new"] is True
    checkpoint = checkpoints.open_checkpoint(out["note"], out["vkey"])
    assert checkpoint == Checkpoint("campaign-ledger/toybox", 3, merkle.root(leaves))
    assert out["made_at"].startswith("2026-03-01T19:00:00.")  # the frozen clock
    again = json.loads(toy_campaign("checkpoint", "--json").output)
    assert again["new"] is False and again["note"] == out["note"]  # one per size, kept
    assert [c["size"] for c in store.checkpoints("toybox")] == [3]
    store.close()


def test_session_end_signs_a_checkpoint_in_its_transaction(toy_campaign, db_path):
    toy_campaign("session", "start")
    toy_campaign("roll", "ann", "brawl")
    result = toy_campaign("session", "end", "--json")
    out = json.loads(result.output)
    store = _store(db_path)
    head = store.head("toybox").seq - 1  # Ann's chronicle entry follows, resting on it
    assert [r.type for r in store.rows("toybox", after=head)] == ["chronicle.signed"]
    (kept,) = store.checkpoints("toybox")
    assert kept["size"] == head and out["checkpoint"] == kept["note"]
    assert kept["root"] == merkle.root(tree_proofs.leaves(store, "toybox", head))
    store.close()


def test_a_forged_note_and_another_campaigns_note_are_refused(toy_campaign, db_path):
    out = json.loads(toy_campaign("checkpoint", "--json").output)
    forger = Signer("campaign-ledger/toybox", b"\x07" * 32)  # same name, another key
    forged = sign(Checkpoint.parse(out["note"].split("\n\n")[0] + "\n").text(), forger)
    with pytest.raises(UnverifiedNote):
        checkpoints.open_checkpoint(forged, out["vkey"])
    other = Signer("campaign-ledger/other", b"\x08" * 32)
    theirs = sign(Checkpoint("campaign-ledger/other", 3, bytes(32)).text(), other)
    with pytest.raises(NoteError):
        checkpoints.open_checkpoint(theirs, out["vkey"])
    # a note of this campaign's key that claims another origin is refused too
    (key,) = [Signer("campaign-ledger/toybox", _store(db_path).get_secret("toybox", 0, "checkpoint"))]
    odd = sign(Checkpoint("campaign-ledger/other", 3, bytes(32)).text(), key)
    with pytest.raises(NoteError, match="origin"):
        checkpoints.open_checkpoint(odd, out["vkey"])
    # a changed size or root breaks the signature
    tampered = out["note"].replace("\n3\n", "\n4\n", 1)
    with pytest.raises(NoteError, match="invalid signature"):
        open_note(tampered, [Signer("campaign-ledger/toybox", key.seed).verifier])


def test_the_key_never_changes(toy_campaign, db_path):
    from ledger.errors import RuleError
    from ledger.events import CheckpointKey

    store = _store(db_path)
    campaign = open_campaign(store)
    mine = Signer("campaign-ledger/toybox", b"\x09" * 32).verifier.key()
    with pytest.raises(RuleError, match="never changes"):
        campaign.append([CheckpointKey(vkey=mine)], actor="gm", at="2026-03-01T19:00:00.000000Z")
    assert store.head("toybox").seq == 3
    store.close()


def test_an_old_campaign_gets_its_key_by_an_event_at_its_first_checkpoint(db_path, frozen, toy_system):
    store = _store(db_path)
    old = CampaignCreated(id="toybox", title="toybox", system="toy")  # before checkpoints
    store.append("toybox", [Pending(old)], actor="gm", recorded_at="2026-03-01T18:00:00.000000Z",
                 session=None)  # fmt: skip
    store.close()
    from ledger.testing import run_cli

    out = json.loads(run_cli(db_path, "checkpoint", "--json").output)
    assert out["size"] == 2  # campaign.created, checkpoint.key: the key is in the signed tree
    log = json.loads(run_cli(db_path, "--as", "player", "log", "--json").output)
    assert log[-1]["type"] == "checkpoint.key" and log[-1]["data"]["vkey"] == out["vkey"]
    checkpoints.open_checkpoint(out["note"], out["vkey"])


def test_a_players_copy_cannot_sign(toy_campaign, db_path, tmp_path):
    export = tmp_path / "p.ndjson"
    toy_campaign("export", "-o", str(export))
    copy = str(tmp_path / "copy.db")
    assert toy_campaign("import", str(export), db=copy).exit_code == 0
    result = toy_campaign("checkpoint", db=copy)
    assert result.exit_code == 1 and "does not keep the campaign's checkpoint key" in result.output
    conn = sqlite3.connect(copy)
    assert conn.execute("select count(*) from checkpoints").fetchone() == (0,)
    assert conn.execute("select count(*) from secrets").fetchone() == (0,)
    conn.close()


def test_audit_shows_the_rolls_proof_against_the_newest_checkpoint(toy_campaign, db_path):
    toy_campaign("session", "start")
    roll = json.loads(toy_campaign("roll", "ann", "brawl", "--json").output)
    seq = roll["seq"] if "seq" in roll else 5
    before = json.loads(toy_campaign("audit", str(seq), "--json").output)["proof"]
    assert before["checkpoint"] is None and "no checkpoint" in before["problem"]
    toy_campaign("session", "end")
    out = json.loads(toy_campaign("audit", str(seq), "--json").output)
    proof = out["proof"]
    assert proof["checkpoint"] == 7 and proof["verified"] is True and proof["index"] == seq - 1
    store = _store(db_path)
    (kept,) = store.checkpoints("toybox")
    import base64

    merkle.verify_inclusion(
        seq - 1, 7, merkle.leaf_hash(bytes.fromhex(out["hash"])),
        [base64.b64decode(h) for h in proof["proof"]], kept["root"],
    )  # fmt: skip
    store.close()
    assert "checkpoint proof: leaf 4 of the signed checkpoint of 7 events" in toy_campaign(
        "audit", str(seq)
    ).output


def test_audit_fails_when_the_kept_checkpoint_was_forged(toy_campaign, db_path):
    toy_campaign("session", "start")
    toy_campaign("roll", "ann", "brawl")
    toy_campaign("session", "end")
    conn = sqlite3.connect(db_path)
    forger = Signer("campaign-ledger/toybox", b"\x03" * 32)
    forged = sign(Checkpoint("campaign-ledger/toybox", 7, bytes(32)).text(), forger)
    conn.execute("update checkpoints set note = ? where size = 7", (forged,))
    conn.commit()
    conn.close()
    result = toy_campaign("audit", "5")
    assert result.exit_code == 1 and "checkpoint proof: FAILS" in result.output


def test_an_old_campaigns_key_event_must_name_its_own_origin(db_path, frozen, toy_system):
    from ledger.errors import RuleError
    from ledger.events import CheckpointKey

    store = _store(db_path)
    old = CampaignCreated(id="toybox", title="toybox", system="toy")
    store.append("toybox", [Pending(old)], actor="gm", recorded_at="2026-03-01T18:00:00.000000Z",
                 session=None)  # fmt: skip
    campaign = open_campaign(store)
    theirs = Signer("campaign-ledger/other", b"\x04" * 32).verifier.key()
    with pytest.raises(RuleError, match="must name the key 'campaign-ledger/toybox'"):
        campaign.append([CheckpointKey(vkey=theirs)], actor="gm", at="2026-03-01T19:00:00.000000Z")
    with pytest.raises(RuleError, match="checkpoint.key: malformed"):
        campaign.append([CheckpointKey(vkey="nonsense")], actor="gm", at="2026-03-01T19:00:00.000000Z")
    assert store.head("toybox").seq == 1
    store.close()


def test_witness_without_its_key_is_a_usage_error_and_signs_nothing(toy_campaign, db_path):
    result = toy_campaign("checkpoint", "--witness", "http://127.0.0.1:9/")
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert _store(db_path).checkpoints("toybox") == []  # nothing signed
