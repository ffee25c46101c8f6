"""`campaign verify FILE`: players check an export (GM's or player's copy) without Python.

The promise: `campaign verify FILE` checks an export file, a GM or a player copy, `--receipt`
too; a receipt that does not match prints both full hashes and says which side is likely
wrong; a malformed receipt (not 64 hex digits) is a usage error, not "the log was
rewritten".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import rechain


@pytest.fixture
def played(toy_campaign, tmp_path):
    """Session 1 ended: Ann's engine roll (5), Bob's physical roll (6), a GM-only secret (7);
    then a hurt (12) after the session (8 ends it, 9 commits the downtime seed, 10 and 11 are
    Ann's and Bob's chronicle entries)."""
    invoke = toy_campaign
    invoke("session", "start")
    invoke("roll", "ann", "brawl")
    invoke("roll", "bob", "sneak", "--dice", "2,2")
    invoke("record", "secret-noted", "--character", "bob", "--value", "5551234")
    invoke("session", "end")
    invoke("record", "hurt", "--character", "ann", "--amount", "1")
    return invoke


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def verify_file(invoke, path: str, *args: str):
    # the ledger file is not read: --db names one that does not exist
    return invoke("verify", path, *args, db="/nonexistent/ledger.db")


def test_gm_and_player_copies_verify_with_the_ledgers_receipt(played, tmp_path):
    invoke = played
    receipt = json.loads(invoke("verify", "--json").output)["receipt"]
    gm = write(tmp_path, "gm.ndjson", invoke("--as", "gm", "export").output)
    player = write(tmp_path, "player.ndjson", invoke("export").output)
    out = json.loads(verify_file(invoke, gm, "--json").output)
    assert out["ok"] and out["receipt"] == receipt and out["campaign"] == "toybox"
    assert (out["engine_rolls_verified"], out["results_rederived"], out["redacted"]) == (1, 2, 0)
    text = verify_file(invoke, player).output
    assert "OK: 12 events (1 GM-only, checked through their hashes), 1 engine rolls verified, " in (
        text
    )
    assert "2 roll results re-derived" in text and f"Receipt: {receipt}" in text
    held = verify_file(invoke, player, "--receipt", receipt)
    assert held.exit_code == 0 and "holds" in held.output


def test_a_forged_result_in_a_file_is_named(played, tmp_path):
    invoke = played
    lines = invoke("--as", "gm", "export").output.splitlines()
    forged = [
        line.replace('"total":5', '"total":12').replace('"failure"', '"success"')
        if json.loads(line).get("seq") == 6
        else line
        for line in lines
    ]
    path = write(tmp_path, "forged.ndjson", rechain(forged))
    result = verify_file(invoke, path)
    assert result.exit_code == 1
    assert "verification failed at seq 6: the recorded result does not follow from its dice" in (
        result.output
    )
    forged_draws = []
    for line in lines:
        event = json.loads(line)
        if event.get("seq") == 5:
            sides, value = event["data"]["draws"][0]
            event["data"]["draws"][0] = [sides, value % sides + 1]
            event["data"]["dice"][0] = value % sides + 1
            event["data"]["total"] += 1 if value < sides else 1 - sides
            total = event["data"]["total"]
            event["data"]["outcome"] = "success" if total >= event["data"]["target"] else "failure"
            line = json.dumps(event, separators=(",", ":"), sort_keys=True)
        forged_draws.append(line)
    path = write(tmp_path, "draws.ndjson", rechain(forged_draws))
    result = verify_file(invoke, path, "--json")
    out = json.loads(result.output)
    assert result.exit_code == 1 and out["bad_seq"] == 5 and "the seed gives" in out["problem"]


def test_receipt_mismatches_name_both_hashes_and_the_likely_side(played, tmp_path):
    invoke = played
    gm_lines = invoke("--as", "gm", "export").output.splitlines()
    events = [json.loads(x) for x in gm_lines]
    head = f"12:{events[11]['hash']}"
    older = write(tmp_path, "older.ndjson", "\n".join(gm_lines[:7]) + "\n")
    result = verify_file(invoke, older, "--receipt", head)
    assert result.exit_code == 1
    assert "the file ends at seq 7, before the receipt's seq 12" in result.output
    assert "older than the receipt or was cut short" in result.output
    full = write(tmp_path, "full.ndjson", "\n".join(gm_lines) + "\n")
    wrong_seq = f"6:{events[11]['hash']}"  # the hash of 12 written down as seq 6
    result = verify_file(invoke, full, "--receipt", wrong_seq)
    assert result.exit_code == 1
    assert events[5]["hash"] in result.output and events[11]["hash"] in result.output
    assert "the receipt's seq is likely wrong (it was issued at seq 12)" in result.output
    rewritten = "\n".join(
        x.replace('"amount":1', '"amount":3') if '"amount":1' in x else x for x in gm_lines
    )
    path = write(tmp_path, "rewritten.ndjson", rechain(rewritten.splitlines()))
    result = verify_file(invoke, path, "--receipt", head)
    assert result.exit_code == 1
    assert events[11]["hash"] in result.output  # the receipt's full hash
    assert "the log was rewritten since the receipt was issued" in result.output
    # the ledger itself: both full hashes too
    forged = f"5:{'ab' * 32}"
    result = invoke("verify", "--receipt", forged)
    assert result.exit_code == 1 and "ab" * 32 in result.output
    assert events[4]["hash"] in result.output and "rewritten" in result.output


@pytest.mark.parametrize(
    "receipt",
    ["9:" + "zz" * 32, "9:" + "ab" * 33, "nine:" + "ab" * 32, "0:" + "ab" * 32, "9", "ab" * 32],
)
def test_a_malformed_receipt_is_a_usage_error(played, tmp_path, receipt):
    invoke = played
    path = write(tmp_path, "gm.ndjson", invoke("--as", "gm", "export").output)
    for result in (verify_file(invoke, path, "--receipt", receipt),
                   invoke("verify", "--receipt", receipt)):  # fmt: skip
        assert result.exit_code == 2, result.output
        assert "is not a receipt" in result.output and "rewritten" not in result.output


@pytest.mark.parametrize("digits", [16, 40, 64])
def test_a_receipt_may_give_the_first_16_hex_digits_of_its_hash(played, tmp_path, digits):
    """The docs and summaries show receipts short: a prefix of 16 or more hex digits
    of the hash is checked like the whole hash, in the ledger and in an export, and a
    rewritten log is still caught through it."""
    invoke = played
    path = write(tmp_path, "gm.ndjson", invoke("--as", "gm", "export").output)
    events = [json.loads(line) for line in Path(path).read_text().splitlines()]
    short = f"5:{events[4]['hash'][:digits]}"
    for result in (verify_file(invoke, path, "--receipt", short),
                   invoke("verify", "--receipt", short + "…")):  # fmt: skip
        assert result.exit_code == 0, result.output
        assert f"(receipt {short}" in result.output
    wrong = f"5:{events[3]['hash'][:digits]}"  # event 4's hash at seq 5: the seq is wrong
    result = invoke("verify", "--receipt", wrong)
    assert result.exit_code == 1 and "the receipt's seq is likely wrong" in result.output
    assert "event 4's hash" in result.output


@pytest.mark.parametrize("receipt", ["9:abc", "9:" + "ab" * 7 + "c"])
def test_a_receipt_with_fewer_than_16_hex_digits_is_refused_saying_so(played, receipt):
    result = played("verify", "--receipt", receipt)
    assert result.exit_code == 2, result.output
    digits = len(receipt) - 2
    assert f"has {digits} hex digits: give at least 16" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_files_that_are_not_exports_are_refused_in_one_line(played, tmp_path):
    invoke = played
    garbage = write(tmp_path, "garbage.ndjson", "not json\n")
    result = verify_file(invoke, garbage)
    assert result.exit_code == 1 and "line 1 is not an exported event" in result.output
    assert "Traceback" not in result.output
    missing = verify_file(invoke, str(tmp_path / "missing.ndjson"))
    assert missing.exit_code == 2
    # --json answers in JSON for a script, naming the line
    bad = write(tmp_path, "bad.ndjson", '{"seq": 1}\nnot json\n')
    as_json = verify_file(invoke, bad, "--json")
    assert as_json.exit_code == 1
    answer = json.loads(as_json.output)
    assert answer["ok"] is False and answer["bad_line"] == 1
    assert answer["problem"].startswith("line 1 is not an exported event")
