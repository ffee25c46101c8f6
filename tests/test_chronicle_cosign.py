"""A player's phone cosigns their character's chronicle entry (the player agrees it is
theirs): the cosignature is kept in the log, carried in the passport, shown before this
table, and checked by `campaign verify` and by every table the passport is taken to; a
forged one is refused in one line naming the entry."""

from __future__ import annotations

import base64
import json

import pytest

from ledger.campaign import chronicles
from ledger.campaign.aggregate import open_campaign
from ledger.errors import RuleError
from ledger.events import ChronicleCosigned
from ledger.history import passports
from ledger.store.sqlite import Store
from ledger.trust import chronicle
from ledger.trust.cosignature import Cosigner

from .leaguetools import one_line as _one_line
from .leaguetools import runner as _runner

SHEETS = "campaigns/the-world/characters/"
AT = "2026-12-07T20:00:00Z"


@pytest.fixture
def mara(tmp_path, frozen):
    """Mara's table: Isa (Julian's) and Bram (Theo's) played one session."""
    run = _runner(tmp_path / "mara.db")
    run("new", "mara", "--system", "d20-world")
    run("character", "add", "--sheet", SHEETS + "isa.toml")
    run("character", "add", "--sheet", SHEETS + "bram.toml")
    run("session", "start")
    run("roll", "isa", "Forage", "--time", "--dice", "15")
    run("roll", "bram", "Mending", "--time", "--dice", "14")
    run("session", "end")
    return run


def _cosign(tmp_path, character="isa", phone=None, characters=("isa",), line=None):
    """Julian's phone cosigns ``character``'s newest entry; the phone's key."""
    phone = phone or Cosigner.generate("campaign-ledger-phone/0a1b2c3d4e5f6071")
    store = Store(str(tmp_path / "mara.db"))
    try:
        campaign = open_campaign(store)
        kept = chronicles.kept_entries(campaign, [character])[-1]
        signature = line or chronicle.cosign(kept.text, phone, 1_765_000_000)
        chronicles.cosign_entry(
            campaign, kept.hash, phone.verifier.key(), signature, characters=characters,
            actor="julian", at=AT,
        )  # fmt: skip
    finally:
        store.close()
    return phone.verifier.key()


def test_a_cosigned_entry_travels_in_the_passport_and_verifies(mara, tmp_path):
    vkey = _cosign(tmp_path)
    path = tmp_path / "isa.passport"
    mara("passport", "export", "isa", "-o", str(path))
    entry = json.loads(path.read_bytes())["entries"][0]
    assert entry["cosignature"]["vkey"] == vkey
    store = Store(str(tmp_path / "mara.db"))
    campaign = open_campaign(store)
    found = passports.verify_passport(path.read_bytes(), campaign.system, campaign.codec)
    assert found.cosigners == [vkey]
    store.close()
    assert "OK:" in mara("verify").output
    # Bram's phone never cosigned: his entry carries no cosignature at all
    mara("passport", "export", "bram", "-o", str(tmp_path / "bram.passport"))
    bram = json.loads((tmp_path / "bram.passport").read_bytes())["entries"][0]
    assert "cosignature" not in bram
    # at Oskar's the sheet and the log say which entry the player's phone cosigned
    oskar = _runner(tmp_path / "oskar.db")
    oskar("new", "oskar", "--system", "d20-world")
    oskar("character", "add", "--passport", str(path))
    sheet = " ".join(oskar("sheet", "isa").output.split())  # as wrapped to the terminal
    assert "cosigned by the player's phone campaign-ledger-phone/0a1b2c3d4e5f6071" in sheet
    assert "OK:" in oskar("verify").output


def test_only_the_players_own_entry_and_a_true_cosignature_are_kept(mara, tmp_path):
    with pytest.raises(RuleError, match="no chronicle entry of your characters"):
        _cosign(tmp_path, character="bram", characters=("isa",))
    other = Cosigner.generate("campaign-ledger-phone/ffffffffffffffff")
    store = Store(str(tmp_path / "mara.db"))
    campaign = open_campaign(store)
    text = chronicles.kept_entries(campaign, ["bram"])[-1].text
    store.close()
    forged = chronicle.cosign(text, other, 1_765_000_000)  # a cosignature of Bram's entry
    with pytest.raises(
        RuleError, match="the chronicle entry of isa for session 1: the cosignature does not verify"
    ):
        _cosign(tmp_path, phone=other, line=forged)
    _cosign(tmp_path)
    with pytest.raises(
        RuleError, match="already cosigned by campaign-ledger-phone/0a1b2c3d4e5f6071"
    ):
        _cosign(tmp_path)


def _forge(signature_line):
    name, b64 = signature_line.rsplit(" ", 1)
    raw = bytearray(base64.b64decode(b64))
    raw[-1] ^= 1
    return f"{name} {base64.b64encode(bytes(raw)).decode()}"


def test_a_forged_cosignature_in_a_passport_is_refused_naming_the_entry(mara, tmp_path):
    _cosign(tmp_path)
    path = tmp_path / "isa.passport"
    mara("passport", "export", "isa", "-o", str(path))
    data = json.loads(path.read_bytes())
    data["entries"][0]["cosignature"]["signature"] = _forge(
        data["entries"][0]["cosignature"]["signature"]
    )
    path.write_text(json.dumps(data))
    oskar = _runner(tmp_path / "oskar.db")
    oskar("new", "oskar", "--system", "d20-world")
    line = _one_line(oskar("character", "add", "--passport", str(path), ok=False))
    assert line == (
        "Error: entry 1 (signed by campaign-ledger/mara): its cosignature by the phone "
        "'campaign-ledger-phone/0a1b2c3d4e5f6071' does not verify (the cosignature by "
        "campaign-ledger-phone/0a1b2c3d4e5f6071 is not of this entry): it is forged"
    )


def test_verify_refuses_a_forged_cosignature_in_the_log(mara, tmp_path):
    phone = Cosigner.generate("campaign-ledger-phone/0a1b2c3d4e5f6071")
    store = Store(str(tmp_path / "mara.db"))
    campaign = open_campaign(store)
    kept = chronicles.kept_entries(campaign, ["isa"])[-1]
    line = _forge(chronicle.cosign(kept.text, phone, 1_765_000_000))
    # written past cosign_entry's check, as a GM editing the store could
    campaign.append(
        [ChronicleCosigned(character="isa", entry=kept.hash, session=1, vkey=phone.verifier.key(),
                           signature=line)],
        actor="julian", at=AT,
    )  # fmt: skip
    store.close()
    result = mara("verify", ok=False)
    assert result.exit_code == 1, result.output
    assert (
        "the cosignature of the chronicle entry of isa for session 1 does not verify"
        in result.output
    )
    assert "Traceback" not in result.output


def test_a_cosignature_is_never_one_of_a_checkpoint():
    from ledger.trust.cosignature import CosignatureError, verify_cosignature

    phone = Cosigner.generate("campaign-ledger-phone/0a1b2c3d4e5f6071")
    entry = chronicle.Entry(
        passport="0" * 32, character="isa", name="Isa", table="campaign-ledger/mara",
        checkpoint=(3, bytes(32)), session=1, system="d20-world", options={},
        events=(1, "a" * 64), state="b" * 64, previous=chronicle.NO_PREVIOUS, changed=(),
    )  # fmt: skip
    line = chronicle.cosign(entry.text(), phone, 1)
    assert chronicle.verify_cosignature(phone.verifier.key(), entry.text(), line) == 1
    with pytest.raises(CosignatureError):
        verify_cosignature(phone.verifier.key(), entry.text(), line)


def test_export_and_join_say_how_many_entries_the_phone_cosigned(mara, tmp_path):
    _cosign(tmp_path)
    path = tmp_path / "isa.passport"
    out = mara("passport", "export", "isa", "-o", str(path)).output
    phone = "campaign-ledger-phone/0a1b2c3d4e5f6071"
    assert out == f"Wrote {path}: 1 entry, 1 cosigned by the player's phone ({phone})\n"
    bram = mara("passport", "export", "bram", "-o", str(tmp_path / "bram.passport")).output
    assert bram.endswith(": 1 entry, none cosigned by the player's phone\n")
    oskar = _runner(tmp_path / "oskar.db")
    oskar("new", "oskar", "--system", "d20-world")
    joined = oskar("character", "add", "--passport", str(path)).output
    assert joined.rstrip().endswith(
        f"verified; last entry signed by campaign-ledger/mara; 1 entry, 1 cosigned by the "
        f"player's phone ({phone})"
    )


def test_an_entry_cosignature_is_the_spec_bytes_signed_with_ed25519():
    """Checked with the ``cryptography`` primitive alone, from the C2SP tlog-cosignature/v1
    layout (key ID ‖ 8-byte time ‖ Ed25519 signature of "cosignature/v1\\ntime T\\n" and the
    entry's text), not through ledger.trust."""
    import hashlib

    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    phone = Cosigner.generate("campaign-ledger-phone/0a1b2c3d4e5f6071")
    entry = chronicle.Entry(
        passport="1" * 32, character="isa", name="Isa", table="campaign-ledger/mara",
        checkpoint=(9, bytes(range(32))), session=2, system="d20-world", options={"a": 1},
        events=(2, "c" * 64), state="d" * 64, previous="e" * 64, changed=("Forage +2 xp",),
    )  # fmt: skip
    line = chronicle.cosign(entry.text(), phone, 1_765_000_123)
    name, b64 = line.removeprefix("— ").split(" ")
    raw = base64.b64decode(b64)
    public = base64.b64decode(phone.verifier.key().split("+", 2)[2])
    assert public[0] == 0x04 and name == phone.name
    key_id = hashlib.sha256(name.encode() + b"\n" + public).digest()[:4]
    assert raw[:4] == key_id and int.from_bytes(raw[4:12], "big") == 1_765_000_123
    message = b"cosignature/v1\ntime 1765000123\n" + entry.text().encode()
    Ed25519PublicKey.from_public_bytes(public[1:]).verify(raw[12:], message)  # raises if not


def test_join_as_json_names_each_entrys_phone_key(mara, tmp_path):
    vkey = _cosign(tmp_path)
    path = tmp_path / "isa.passport"
    mara("passport", "export", "isa", "-o", str(path))
    oskar = _runner(tmp_path / "oskar.db")
    oskar("new", "oskar", "--system", "d20-world")
    got = json.loads(oskar("character", "add", "--passport", str(path), "--json").output)
    assert got["cosigned"] == [vkey]
