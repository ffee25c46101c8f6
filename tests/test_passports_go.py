"""The passport's signed notes, entry chain and inclusion proofs checked by an independent
implementation: Go's golang.org/x/mod/sumdb/note and sumdb/tlog (Debian's
golang-golang-x-mod-dev), through tests/go/passportcheck.go, built here with no network; the
players' phones' cosignatures through sumdb/note with a crypto/ed25519 verifier there."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .test_passports import _export, mara  # noqa: F401 (the fixture)

GOPATH = Path("/usr/share/gocode")
SOURCE = Path(__file__).parent / "go" / "passportcheck.go"


@pytest.fixture(scope="module")
def checker(tmp_path_factory):
    """The Go checker, built in GOPATH mode against the packaged x/mod (no module proxy)."""
    if shutil.which("go") is None or not (GOPATH / "src/golang.org/x/mod/sumdb/tlog").is_dir():
        pytest.skip(
            "needs Go and golang-golang-x-mod-dev (apt-get install golang-go golang-golang-x-mod-dev)"
        )
    out = tmp_path_factory.mktemp("go")
    env = {**os.environ, "GO111MODULE": "off", "GOPATH": str(GOPATH), "GOFLAGS": "",
           "GOCACHE": str(out / "cache"), "GOPROXY": "off"}  # fmt: skip
    binary = out / "passportcheck"
    subprocess.run(
        ["go", "build", "-o", str(binary), str(SOURCE)], env=env, check=True, timeout=300
    )
    return binary


def _check(checker, path):
    return subprocess.run([str(checker), str(path)], capture_output=True, text=True, timeout=60)


def test_go_verifies_every_signature_proof_and_link(checker, mara, tmp_path):  # noqa: F811
    path = _export(mara, tmp_path)
    parsed = json.loads(path.read_bytes())
    result = _check(checker, path)
    assert result.returncode == 0, result.stderr
    events = sum(len(e["events"]) for e in parsed["entries"])
    assert result.stdout.split() == ["ok", str(len(parsed["entries"])), str(events), "0"]


@pytest.mark.parametrize("tamper, words", [
    (lambda p: p["entries"][1].update(note=p["entries"][1]["note"].replace("3/12", "9/12")), "entry 2: invalid signature"),
    (lambda p: p["entries"][1]["proofs"][0].reverse() if len(p["entries"][1]["proofs"][0]) > 1
        else p["entries"][1]["proofs"][0].append(p["entries"][1]["proofs"][0][0]), "entry 2"),
    (lambda p: p["entries"][1]["events"][0].update(seq=p["entries"][1]["events"][0]["seq"] + 1), "entry 2"),
    (lambda p: p["entries"].pop(0), "entry 1: the chain is broken"),
])  # fmt: skip
def test_go_and_the_ledger_both_refuse_a_tampered_passport(checker, mara, tmp_path, tamper, words):  # noqa: F811
    from ledger.campaign.aggregate import open_campaign
    from ledger.history import passports
    from ledger.store.sqlite import Store

    path = _export(mara, tmp_path)
    parsed = json.loads(path.read_bytes())
    tamper(parsed)
    bad = tmp_path / "bad.passport"
    bad.write_text(json.dumps(parsed, separators=(",", ":"), sort_keys=True, ensure_ascii=False))
    result = _check(checker, bad)
    assert result.returncode == 1 and words in result.stderr
    store = Store(str(tmp_path / "mara.db"))
    campaign = open_campaign(store)
    with pytest.raises(passports.PassportError):
        passports.verify_passport(bad.read_bytes(), campaign.system, campaign.codec)
    store.close()


def _cosign_all(tmp_path, character="isa"):
    """Isa's player's phone cosigns each of her entries at Mara's table."""
    from ledger.campaign import chronicles
    from ledger.campaign.aggregate import open_campaign
    from ledger.store.sqlite import Store
    from ledger.trust import chronicle
    from ledger.trust.cosignature import Cosigner

    phone = Cosigner.generate("campaign-ledger-phone/0a1b2c3d4e5f6071")
    store = Store(str(tmp_path / "mara.db"))
    campaign = open_campaign(store)
    for kept in chronicles.kept_entries(campaign, [character]):
        chronicles.cosign_entry(
            campaign, kept.hash, phone.verifier.key(), chronicle.cosign(kept.text, phone, 1_765_000_000 + kept.seq),
            characters=[character], actor="Dana", at="2026-03-01T21:00:00Z",
        )  # fmt: skip
    store.close()


def test_go_checks_the_phones_cosignatures_and_refuses_a_forged_one(checker, mara, tmp_path):  # noqa: F811
    import base64

    from ledger.campaign.aggregate import open_campaign
    from ledger.history import passports
    from ledger.store.sqlite import Store

    _cosign_all(tmp_path)
    path = _export(mara, tmp_path)
    parsed = json.loads(path.read_bytes())
    result = _check(checker, path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[3] == str(len(parsed["entries"])) == "2"
    cosig = parsed["entries"][1]["cosignature"]
    name, b64 = cosig["signature"].rsplit(" ", 1)
    raw = bytearray(base64.b64decode(b64))
    raw[20] ^= 1  # one bit of the Ed25519 signature
    cosig["signature"] = f"{name} {base64.b64encode(bytes(raw)).decode()}"
    bad = tmp_path / "bad.passport"
    bad.write_text(json.dumps(parsed, separators=(",", ":"), sort_keys=True, ensure_ascii=False))
    result = _check(checker, bad)
    assert result.returncode == 1 and "entry 2: cosignature: invalid signature" in result.stderr
    store = Store(str(tmp_path / "mara.db"))
    campaign = open_campaign(store)
    with pytest.raises(passports.PassportError, match="entry 2 .*: its cosignature by the phone"):
        passports.verify_passport(bad.read_bytes(), campaign.system, campaign.codec)
    store.close()
