"""`campaign checkpoint --witness URL --witness-key VKEY`: a real club witness
(ledger.witness) on a free loopback port in a thread cosigns the campaign's checkpoints;
its cosignature is verified against the pinned key and kept, and `campaign verify` names it.
Attacks first: a wrong key, a witness down, a witness ahead of the log."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from ledger.campaign.aggregate import open_campaign
from ledger.store.sqlite import Store
from ledger.trust.cosignature import Cosigner, verify_cosignature
from ledger.witness.core import trust
from ledger.witness.state import WitnessState
from tests.test_witness import Running

WITNESS = "club.example/witness"


@pytest.fixture
def vkey(toy_campaign, db_path) -> str:
    store = Store(db_path)
    key = open_campaign(store).created.checkpoint_key
    store.close()
    return key


@pytest.fixture
def witness(tmp_path: Path, vkey: str):
    state = WitnessState(tmp_path / "witness.json")
    state.create()
    trust(state, vkey)
    r = Running(tmp_path / "witness.json", Cosigner(WITNESS, bytes(range(32))))
    yield r
    r.stop()


def _checkpoint(invoke, r: Running, *extra: str, key: str | None = None):
    return invoke(
        "checkpoint", "--witness", r.url, "--witness-key", key or r.cosigner.verifier.key(),
        *extra,
    )  # fmt: skip


def _cosigs(db_path):
    store = Store(db_path)
    try:
        return store.cosignatures("toybox")
    finally:
        store.close()


def _witness_size(r: Running) -> int | None:
    (entry,) = r.state.read().logs.values()
    return entry.size


def test_first_cosignature_is_verified_kept_and_named_by_verify(toy_campaign, witness, db_path):
    result = _checkpoint(toy_campaign, witness, "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    (co,) = out["cosignatures"]
    assert co["size"] == out["size"] == 3 and co["old_size"] == 0 and co["new"] is True
    assert co["cosigner"] == WITNESS and co["signature"].startswith(f"— {WITNESS} ")
    verify_cosignature(witness.cosigner.verifier.key(), out["note"], co["signature"])
    (kept,) = _cosigs(db_path)
    assert kept["size"] == 3 and kept["cosigner"] == WITNESS
    assert kept["vkey"] == witness.cosigner.verifier.key() and kept["signature"] == co["signature"]
    assert _witness_size(witness) == 3
    verified = toy_campaign("verify")
    assert verified.exit_code == 0, verified.output
    assert f"cosigned by {WITNESS}" in verified.output


def test_growth_sends_a_consistency_proof_from_the_last_cosigned_size(
    toy_campaign, witness, db_path
):
    assert _checkpoint(toy_campaign, witness).exit_code == 0
    toy_campaign("session", "start")
    toy_campaign("roll", "ann", "brawl")
    result = _checkpoint(toy_campaign, witness, "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    (co,) = out["cosignatures"]
    assert co["old_size"] == 3 and co["size"] == out["size"] > 3
    assert _witness_size(witness) == out["size"]
    assert [c["size"] for c in _cosigs(db_path)] == [3, out["size"]]
    # the same checkpoint again: the witness cosigns it again from its own size, kept once
    again = json.loads(_checkpoint(toy_campaign, witness, "--json").output)
    assert again["new"] is False and again["cosignatures"][0]["new"] is False
    assert len(_cosigs(db_path)) == 2
    assert toy_campaign("verify").exit_code == 0


def test_a_conflict_is_retried_once_from_the_witness_size(toy_campaign, witness, db_path):
    assert _checkpoint(toy_campaign, witness).exit_code == 0  # the witness holds 3
    store = Store(db_path)  # this ledger forgets its cosignature (a restored older backup)
    store.conn.execute("delete from cosignatures")
    store.conn.commit()
    store.close()
    toy_campaign("session", "start")
    result = _checkpoint(toy_campaign, witness, "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    (co,) = out["cosignatures"]
    assert co["old_size"] == 3 and co["size"] == out["size"] == 4  # asked from 0, told 3
    assert [c["size"] for c in _cosigs(db_path)] == [4]


def test_a_witness_ahead_of_the_log_is_refused_in_one_line(toy_campaign, witness, db_path):
    backup = Path(db_path).read_bytes()  # the GM's backup of 3 events
    toy_campaign("session", "start")
    assert _checkpoint(toy_campaign, witness).exit_code == 0  # the witness holds 4
    Path(db_path).write_bytes(backup)  # the ledger is rolled back to its backup
    result = _checkpoint(toy_campaign, witness)
    assert result.exit_code == 1 and "Traceback" not in result.output
    (line,) = result.output.strip().splitlines()
    assert "already cosigned this log at size 4" in line and "checkpoint of 3 events" in line
    assert _cosigs(db_path) == [] and _witness_size(witness) == 4


def test_a_wrong_witness_key_stores_nothing_but_keeps_the_checkpoint(
    toy_campaign, witness, db_path
):
    impostor = Cosigner(WITNESS, b"\x07" * 32).verifier.key()  # same name, another key
    result = _checkpoint(toy_campaign, witness, key=impostor)
    assert result.exit_code == 1 and "Traceback" not in result.output
    (line,) = result.output.strip().splitlines()
    assert "without a valid cosignature by" in line and impostor in line
    assert "the checkpoint of 3 events is signed and kept" in line
    assert _cosigs(db_path) == []
    store = Store(db_path)
    assert [c["size"] for c in store.checkpoints("toybox")] == [3]
    store.close()


def test_a_witness_down_is_one_line_and_the_checkpoint_is_kept(toy_campaign, witness, db_path):
    with socket.socket() as s:  # a free port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = toy_campaign(
        "checkpoint", "--witness", f"http://127.0.0.1:{port}",
        "--witness-key", witness.cosigner.verifier.key(),
    )  # fmt: skip
    assert result.exit_code == 1 and "Traceback" not in result.output
    (line,) = result.output.strip().splitlines()
    assert "did not answer" in line and "is signed and kept" in line
    assert _cosigs(db_path) == []
    store = Store(db_path)
    assert len(store.checkpoints("toybox")) == 1
    store.close()


def test_a_witness_that_does_not_follow_the_campaign_refuses(toy_campaign, tmp_path, db_path):
    state = WitnessState(tmp_path / "w2.json")
    state.create()  # trusts no log
    r = Running(tmp_path / "w2.json", Cosigner(WITNESS, bytes(range(32))))
    try:
        result = _checkpoint(toy_campaign, r)
    finally:
        r.stop()
    assert result.exit_code == 1
    (line,) = result.output.strip().splitlines()
    assert "does not follow this log" in line and "campaign witness trust" in line
    assert _cosigs(db_path) == []


@pytest.mark.parametrize(
    "args, words",
    [
        (["--witness", "http://127.0.0.1:9"], "together"),
        (["--witness-key", "x+01020304+AAAA"], "together"),
        (["--witness", "ftp://x", "--witness-key", "K"], "not a witness URL"),
        (["--witness", "http://127.0.0.1:9", "--witness-key", "nonsense"], "--witness-key"),
    ],
)
def test_bad_witness_options_are_usage_errors_and_sign_nothing(toy_campaign, db_path, args, words):
    result = toy_campaign("checkpoint", *args)
    assert result.exit_code == 2 and "Traceback" not in result.output
    (line,) = result.output.strip().splitlines()
    assert words in line
    store = Store(db_path)
    assert store.checkpoints("toybox") == []
    store.close()
