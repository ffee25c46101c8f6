"""The phones' chronicle endpoints: ``GET /chronicle`` lists the entries of the characters a
player's link plays, ``POST /chronicle/cosignature`` keeps a cosignature once it verifies;
the GM's link, another player's character, a forged line, another origin or content type
are refused and nothing is written."""

from __future__ import annotations

import pytest

from ledger.trust import chronicle
from ledger.trust.cosignature import Cosigner

from .webtools import Table, client

SHEETS = "campaigns/the-world/characters/"
ORIGIN = {"origin": "http://testserver"}


@pytest.fixture
def table(tmp_path, frozen):
    t = Table(str(tmp_path / "mara.db"))
    t.ok("new", "mara", "--system", "d20-world")
    t.ok("character", "add", "--sheet", SHEETS + "isa.toml")
    t.ok("character", "add", "--sheet", SHEETS + "bram.toml")
    t.ok("session", "start")
    t.ok("roll", "isa", "Forage", "--time", "--dice", "15")
    t.ok("roll", "bram", "Mending", "--time", "--dice", "14")
    t.ok("session", "end")
    return t


def _signed(entry, phone, line=None):
    return {
        "entry": entry["hash"],
        "vkey": phone.verifier.key(),
        "signature": line
        or chronicle.cosign(entry["note"][: entry["note"].rfind("\n\n") + 1], phone, 7),
    }


def test_a_player_lists_and_cosigns_only_their_own_entries(table):
    phone = Cosigner.generate("campaign-ledger-phone/00112233aabbccdd")
    with client(table, "Dana") as dana:  # Isa's player, by her sheet
        got = dana.get("/chronicle").json()
        assert [(e["character"], e["session"], e["cosigned"]) for e in got["entries"]] == [
            ("isa", 1, None)
        ]
        (entry,) = got["entries"]
        head = table.head()
        r = dana.post("/chronicle/cosignature", json=_signed(entry, phone), headers=ORIGIN)
        assert r.status_code == 204, r.text
        assert table.head() == head + 1
        assert dana.get("/chronicle").json()["entries"][0]["cosigned"] == phone.verifier.key()
        again = dana.post("/chronicle/cosignature", json=_signed(entry, phone), headers=ORIGIN)
        assert again.status_code == 400
        assert "already cosigned by campaign-ledger-phone/00112233aabbccdd" in again.json()["error"]
    with client(table, "Olu") as olu:  # Bram's player cannot cosign Isa's entry
        r = olu.post("/chronicle/cosignature", json=_signed(entry, phone), headers=ORIGIN)
        assert r.status_code == 400
        assert r.json()["error"] == "no chronicle entry of your characters has that hash"
    assert "OK:" in table.ok("verify")


def test_forged_or_misdirected_cosignatures_write_nothing(table):
    phone = Cosigner.generate("campaign-ledger-phone/00112233aabbccdd")
    with client(table, "gm") as gm:
        refused = gm.get("/chronicle")
        assert refused.status_code == 403
        assert refused.json()["error"] == (
            "only a player's phone cosigns their character's chronicle entries"
        )
    with client(table, "Dana") as dana:
        (entry,) = dana.get("/chronicle").json()["entries"]
        head = table.head()
        other = Cosigner.generate("campaign-ledger-phone/ffeeddccbbaa9988")
        forged = _signed(
            entry,
            phone,
            chronicle.cosign(entry["note"][: entry["note"].rfind("\n\n") + 1], other, 7),
        )
        r = dana.post("/chronicle/cosignature", json=forged, headers=ORIGIN)
        assert r.status_code == 400
        assert r.json()["error"].startswith(
            "the chronicle entry of isa for session 1: the cosignature does not verify ("
        )
        ok = _signed(entry, phone)
        assert dana.post("/chronicle/cosignature", json=ok,
                         headers={"origin": "http://evil.example"}).status_code == 403  # fmt: skip
        assert dana.post("/chronicle/cosignature", data=ok, headers=ORIGIN).status_code == 415
        bad = dana.post("/chronicle/cosignature", json={"entry": "x"}, headers=ORIGIN)
        assert bad.status_code == 400 and "send {" in bad.json()["error"]
        assert table.head() == head  # nothing written
