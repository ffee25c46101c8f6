"""Audit by proof: ``audit SEQ`` proves one event from the newest signed checkpoint,
the chain from the nearest proven anchor and a snapshot, not by replaying the whole log.

The attacks: a forger with the file edits a roll's payload and recomputes every hash after
it (docs/events.md "Verifying an export"); the checkpoint's signed root still holds the old
hash, so the inclusion proof fails. A roll after the newest checkpoint falls back to the
chain from that checkpoint, whose own hash must still be the one signed.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest

from tests.test_verify_results import forge


def data(result: Any) -> Any:
    return json.loads(result.output)


@pytest.fixture
def played(toy_campaign, db_path):
    """Session 1 ended (7, its downtime seed committed at 8, the checkpoint of size 8 signed
    then, Ann's and Bob's chronicle entries at 9 and 10): Ann's engine roll at 5, Bob's
    physical roll (2, 2) at 6; session 2 open (the downtime seed revealed at 11, started at
    12) with Bob's physical roll (3, 3) at 13."""
    invoke = toy_campaign
    invoke("session", "start")
    invoke("roll", "ann", "brawl")
    invoke("roll", "bob", "sneak", "--dice", "2,2")
    invoke("session", "end")
    invoke("session", "start")
    out = data(invoke("roll", "bob", "sneak", "--dice", "3,3", "--json"))
    assert out["seq"] == 13
    sizes = sqlite3.connect(db_path).execute("select size from checkpoints").fetchall()
    assert sizes == [(8,)]
    return invoke


def test_a_roll_in_a_checkpoint_is_proven_by_inclusion_and_a_short_chain(played):
    out = data(played("audit", "6", "--json"))
    assert out["verdict"] == "recorded" and out["proof"]["verified"] is True
    assert out["proof"]["checkpoint"] == 8
    # the nearest checkpoint at or before 6 is none (the only one is of size 8): from the first
    assert out["chain"] == {"ok": True, "bad_seq": None, "problem": None, "from": 0,
                            "anchor": "genesis", "anchor_seq": 0, "events": 6}  # fmt: skip
    assert out["checked"].startswith(
        "inclusion in checkpoint 1 of size 8 signed by campaign-ledger/toybox; chain from #0"
    )
    text = played("audit", "6").output
    assert "checked: inclusion in checkpoint 1 of size 8" in text
    assert "rules re-derived from" in text


def test_a_roll_after_the_newest_checkpoint_chains_from_it(played):
    out = data(played("audit", "13", "--json"))
    assert out["verdict"] == "recorded"
    assert out["proof"]["checkpoint"] is None
    assert out["chain"]["ok"] and out["chain"]["anchor_seq"] == 8
    assert out["chain"]["anchor"] == "checkpoint"
    # and back from it over what Bob's re-derivation folds: from the first event here
    assert out["chain"]["from"] == 0 and out["chain"]["events"] == 13
    assert out["checked"].startswith(
        "no inclusion (after checkpoint 1 of size 8); chain from #0 through #8 (a signed "
        "checkpoint's last event, 13 events hashed)"
    )


def test_a_forged_roll_with_the_chain_rebuilt_fails_inclusion(played, db_path):
    forge(db_path, "toybox", 6, total=12, outcome="success")  # the dice say 2 + 2 + 1 = 5
    result = played("audit", "6")
    assert result.exit_code == 1
    assert "checkpoint proof: FAILS" in result.output
    out = data(played("audit", "6", "--json"))
    assert out["verdict"] == "tampered"
    assert out["chain"]["ok"]  # the rebuilt chain links: only the signed root catches it
    assert out["proof"]["verified"] is False
    assert "does not follow from its dice" in out["detail"]
    # roll 5's audit path holds leaf 6 as the file now has it: the file no longer matches
    # the signed tree, and its audit says so too (its own chain and dice are fine)
    five = data(played("audit", "5", "--json"))
    assert five["verdict"] == "tampered" and five["chain"]["ok"]
    assert five["proof"]["verified"] is False


def test_an_edit_before_the_roll_after_the_checkpoint_breaks_the_anchor(played, db_path):
    """Event 8 (``downtime.committed``) is the anchor of roll 13: rebuilt, its hash is not
    the one signed at leaf 8 of the checkpoint, so roll 13 does not verify."""
    forge(db_path, "toybox", 8, seed_commitment="00" * 32)
    out = data(played("audit", "13", "--json"))
    assert out["verdict"] == "tampered" and out["chain"]["bad_seq"] == 8
    assert (
        "event 8's hash is not the one signed in the checkpoint of size 8"
        in (out["chain"]["problem"])
    )


def test_an_edit_the_rederivation_folds_is_found_before_the_anchor(played, db_path):
    """Roll 13 chains from the checkpoint's #8, but its re-derivation folds Bob from the
    first event (no snapshot in so short a log): those events are hashed too, back from the
    anchor, so an edit of Bob's roll at 6 (not rehashed: its leaf and the anchor still
    prove) is found."""
    out = data(played("audit", "13", "--json"))
    assert out["chain"]["from"] == 0 and out["chain"]["anchor_seq"] == 8
    assert out["chain"]["events"] == 13
    assert (
        "chain from #0 through #8 (a signed checkpoint's last event, 13 events" in (out["checked"])
    )
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("drop trigger events_no_update")
    (raw,) = conn.execute("select data from events where seq = 6").fetchone()
    conn.execute("update events set data = ? where seq = 6", (raw.replace("2", "3", 1),))
    conn.close()
    out = data(played("audit", "13", "--json"))
    assert out["verdict"] == "tampered" and out["chain"]["bad_seq"] == 6
    assert "changed after it was written" in out["chain"]["problem"]


def test_a_payload_edited_without_rehashing_fails_the_chain(played, db_path):
    conn = sqlite3.connect(db_path, isolation_level=None)
    conn.execute("drop trigger events_no_update")
    (raw,) = conn.execute("select data from events where seq = 12").fetchone()
    assert '"number":2' in raw
    conn.execute(
        "update events set data = ? where seq = 12", (raw.replace('"number":2', '"number":3'),)
    )
    conn.close()
    out = data(played("audit", "13", "--json"))
    assert out["verdict"] == "tampered" and out["chain"]["bad_seq"] == 12
    assert "changed after it was written" in out["chain"]["problem"]


def test_audit_chains_from_what_verify_proved(played, db_path):
    assert played("verify").exit_code == 0
    (row,) = sqlite3.connect(db_path).execute("select seq, hash from verified").fetchall()
    assert row[0] == 13
    played("roll", "ann", "brawl", "--dice", "4,4")  # seq 14, after what verify proved
    out = data(played("audit", "14", "--json"))
    assert out["chain"]["anchor_seq"] == 13 and out["chain"]["anchor"] == "verify"
    assert "through #13 (the head `verify` proved" in out["checked"]
    # the record is used only while the chain still ends there in the hash it proved
    forge(db_path, "toybox", 13, total=4)
    out = data(played("audit", "14", "--json"))
    assert out["verdict"] == "tampered" and out["chain"]["bad_seq"] == 13
    assert "verify last proved has another hash now" in out["chain"]["problem"]


def test_verify_of_a_receipt_keeps_no_record(played, db_path):
    receipt = data(played("verify", "--json"))
    assert receipt["ok"]
    conn = sqlite3.connect(db_path)
    conn.execute("delete from verified")
    conn.commit()
    head = conn.execute("select seq, hash from events where seq = 6").fetchone()
    assert played("verify", "--receipt", f"{head[0]}:{head[1]}").exit_code == 0
    assert conn.execute("select count(*) from verified").fetchone() == (0,)


def test_a_forged_note_anchors_nothing(played, db_path):
    """A kept checkpoint whose note does not open with the campaign's key is no anchor: the
    chain runs from the first event, and a roll inside it fails its inclusion proof."""
    from ledger.trust.notes import Checkpoint, Signer, sign

    forger = Signer("campaign-ledger/toybox", b"\x03" * 32)
    forged = sign(Checkpoint("campaign-ledger/toybox", 8, bytes(32)).text(), forger)
    conn = sqlite3.connect(db_path)
    conn.execute("update checkpoints set note = ? where size = 8", (forged,))
    conn.commit()
    conn.close()
    late = data(played("audit", "13", "--json"))
    assert late["chain"]["ok"] and late["chain"]["anchor"] == "genesis"
    assert late["chain"]["events"] == 13 and late["verdict"] == "recorded"
    inside = data(played("audit", "6", "--json"))
    assert inside["verdict"] == "tampered" and inside["chain"]["ok"]
    assert "the proof against the checkpoint of size 8 fails" in inside["detail"]


def test_the_verified_record_on_every_backend(store_target):
    """``set_verified`` replaces the record; ``verified`` reads it back (SQLite, PostgreSQL:
    migration m013)."""
    from ledger.store.opening import open_store

    store = open_store(store_target)
    assert store.verified("c") is None
    store.set_verified("c", 7, "ab" * 32, "2026-03-01T19:00:00.000000Z")
    store.set_verified("c", 9, "cd" * 32, "2026-03-01T20:00:00.000000Z")
    assert store.verified("c") == (9, "cd" * 32, "2026-03-01T20:00:00.000000Z")
    assert store.verified("other") is None
    store.close()


def test_a_player_audits_past_a_gm_only_event(toy_campaign):
    """The chain to a player's roll hashes a GM-only event before it; the audit names no
    GM-only value (only how many events it hashed)."""
    invoke = toy_campaign
    invoke("session", "start")
    invoke("record", "secret-noted", "--character", "bob", "--value", "8675309")  # 5, GM-only
    invoke("roll", "bob", "sneak", "--dice", "2,2")  # 6
    invoke("session", "end")  # 7, downtime.committed 8, the checkpoint of size 8
    for args in (("--json",), ()):
        result = invoke("--as", "player", "audit", "6", *args)
        assert result.exit_code == 0, result.output
        assert "8675309" not in result.output and "secret" not in result.output
    out = data(invoke("--as", "player", "audit", "6", "--json"))
    assert out["verdict"] == "recorded" and out["proof"]["verified"] is True
    assert out["chain"]["ok"] and out["chain"]["events"] == 6  # the GM-only 5 hashed too
    assert out["checked"].startswith("inclusion in checkpoint 1 of size 8")
