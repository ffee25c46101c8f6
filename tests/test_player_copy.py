"""A player's export: stubs keep only what the chain needs, and the project's own verifier
accepts hidden (blind) engine rolls in it.

Seen: the player's export said `d20-world.favour_changed`, stream `isa`, session 1 for a
GM-only event; `campaign verify` of a player's copy with a blind engine roll in it said
"engine roll has nonce 2, expected 1".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ledger.exchange.ndjson import parse_lines, verify_export
from tests.test_cli import rechain

STUB_KEYS = {"seq", "campaign", "prev_hash", "hash", "redacted"}


@pytest.fixture
def blind(toy_campaign):
    """Session 1 (ended): Ann's public engine roll (seq 5, nonce 0), Bob's blind engine roll
    (6, nonce 1), Ann's public engine roll (7, nonce 2), a GM-only secret (8); end (9), its
    downtime seed (10), Ann's and Bob's chronicle entries (11, 12)."""
    invoke = toy_campaign
    invoke("session", "start")
    for args in (("ann", "brawl"), ("bob", "sneak", "--blind"), ("ann", "brawl")):
        assert invoke("roll", *args).exit_code == 0
    invoke("record", "secret-noted", "--character", "bob", "--value", "77")
    invoke("session", "end")
    return invoke


def player_lines(invoke) -> list[str]:
    lines = invoke("export").output.splitlines()
    return [x for x in lines if not x.startswith('{"kind"')]  # events, not checkpoints


def test_stubs_keep_only_what_the_chain_needs(blind):
    lines = [json.loads(x) for x in player_lines(blind)]
    stubs = [x for x in lines if x.get("redacted")]
    assert [x["seq"] for x in stubs] == [6, 8]
    assert all(set(x) == STUB_KEYS for x in stubs)
    text = "\n".join(player_lines(blind))
    assert "toy.secret_noted" not in text and '"blind' not in text


def test_the_projects_verifier_accepts_hidden_engine_rolls(blind, tmp_path):
    path = tmp_path / "player.ndjson"
    path.write_text("\n".join(player_lines(blind)) + "\n")
    gm_receipt = json.loads(blind("verify", "--json").output)["receipt"]
    out = json.loads(blind("verify", str(path), "--json").output)
    assert out["ok"], out["problem"]
    assert (out["engine_rolls_verified"], out["results_rederived"], out["redacted"]) == (2, 2, 2)
    assert out["receipt"] == gm_receipt  # the player's copy ends in the GM's head hash
    held = blind("verify", str(path), "--receipt", gm_receipt)
    assert held.exit_code == 0 and "2 GM-only, checked through their hashes" in held.output


def test_a_nonce_gap_no_stub_explains_is_refused(blind, tmp_path):
    lines = player_lines(blind)
    # drop the blind roll's stub entirely and renumber: the gap in nonces is unexplained
    events = [json.loads(x) for x in lines]
    kept = []
    for event in events:
        if event["seq"] == 6:
            continue
        if event["seq"] > 6:
            event["seq"] -= 1
        kept.append(json.dumps(event, separators=(",", ":"), ensure_ascii=False))
    report = verify_export(parse_lines(x.encode() for x in rechain(kept).splitlines()))[1]
    assert not report.ok and report.bad_seq == 6
    assert report.problem == "engine roll has nonce 2, expected 1"


def test_a_gap_wider_than_the_stubs_before_it_is_refused(blind):
    lines = [json.loads(x) for x in player_lines(blind)]
    ann = next(x for x in lines if x["seq"] == 7)
    ann["data"]["nonce"] = 3  # one stub (seq 6) can hide one roll, not two
    forged = [json.dumps(x, separators=(",", ":"), ensure_ascii=False) for x in lines]
    report = verify_export(parse_lines(x.encode() for x in rechain(forged).splitlines()))[1]
    assert not report.ok and report.bad_seq == 7
    assert report.problem.startswith("engine roll has nonce 3, expected 1 (or up to 2")


def test_stream_versions_may_skip_only_as_many_as_the_stubs_before(blind):
    lines = [json.loads(x) for x in player_lines(blind)]
    # Ann's second roll (seq 7) follows Bob's stub: a version skip there is explained
    ann = next(x for x in lines if x["seq"] == 7)
    later = [x for x in lines if x.get("stream") == "ann" and x["seq"] >= 7]
    assert [x["type"] for x in later] == ["toy.rolled", "chronicle.signed"]  # her entry: 11
    for x in later:  # the skip carries on to her later events
        x["version"] += 1
    ok = [json.dumps(x, separators=(",", ":"), ensure_ascii=False) for x in lines]
    assert verify_export(parse_lines(x.encode() for x in rechain(ok).splitlines()))[1].ok
    # two skips after one stub are not
    ann["version"] += 1
    bad = [json.dumps(x, separators=(",", ":"), ensure_ascii=False) for x in lines]
    report = verify_export(parse_lines(x.encode() for x in rechain(bad).splitlines()))[1]
    assert not report.ok and report.bad_seq == 7 and "version 5 should be 3 (or up to 4" in report.problem
    # and a skip before any stub is not either
    lines = [json.loads(x) for x in player_lines(blind)]
    lines[4]["version"] += 1  # seq 5, Ann's first roll
    bad = [json.dumps(x, separators=(",", ":"), ensure_ascii=False) for x in lines]
    report = verify_export(parse_lines(x.encode() for x in rechain(bad).splitlines()))[1]
    assert not report.ok and report.bad_seq == 5


def test_a_stub_with_anything_more_is_not_a_stub(blind, tmp_path: Path):
    lines = player_lines(blind)
    stub = json.loads(lines[5])
    stub["type"] = "toy.secret_noted"  # a stub with a type but no data: neither shape
    lines[5] = json.dumps(stub)
    path = tmp_path / "odd.ndjson"
    path.write_text("\n".join(lines) + "\n")
    result = blind("verify", str(path))
    assert result.exit_code == 1 and "line 6 is not an exported event" in result.output


def test_an_older_player_export_with_whole_envelope_stubs_still_verifies(blind, tmp_path):
    gm = [json.loads(x) for x in blind("--as", "gm", "export").output.splitlines()
          if not x.startswith('{"kind"')]  # fmt: skip
    old = []
    for event in gm:
        if event["visibility"] == "gm":
            event = {**event, "data": None, "redacted": True}
        old.append(json.dumps(event, separators=(",", ":"), ensure_ascii=False))
    report = verify_export(parse_lines(x.encode() for x in old))[1]
    assert report.ok and report.stubs == 2 and report.engine_rolls == 2
