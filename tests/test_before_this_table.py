"""History carried in with a passport, shown as "before this table" with the table that
signed each entry and whether the player's phone cosigned it: the same words
(:func:`ledger.history.passports.before_words`) on the CLI's sheet, log and recap, in
`campaign play`, and on the web's sheet, log and recap pages."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from ledger.campaign import chronicles
from ledger.campaign.aggregate import open_campaign
from ledger.cli import cli
from ledger.store.sqlite import Store
from ledger.trust import chronicle
from ledger.trust.cosignature import Cosigner

from .webtools import Table, client

SHEETS = "campaigns/the-world/characters/"
PHONE = "campaign-ledger-phone/0a1b2c3d4e5f6071"
#: What Isa carried in: Monday's entry at Mara's, its change and its cosignature.
CARRIED = (
    "Before this table: session 1, signed by campaign-ledger/mara: Isa Marrow joins the party "
    f"(cosigned by the player's phone {PHONE})"
)


def _flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture
def oskar(tmp_path, frozen):
    """Isa played Monday at Mara's (her player's phone cosigned the entry) and joins
    Oskar's table in his first session."""
    mara = Table(str(tmp_path / "mara.db"))
    mara.ok("new", "mara", "--system", "d20-world")
    mara.ok("character", "add", "--sheet", SHEETS + "isa.toml")
    mara.ok("session", "start")
    mara.ok("roll", "isa", "Forage", "--time", "--dice", "15")
    mara.ok("session", "end")
    store = Store(mara.db)
    campaign = open_campaign(store)
    kept = chronicles.kept_entries(campaign, ["isa"])[-1]
    phone = Cosigner.generate(PHONE)
    chronicles.cosign_entry(
        campaign, kept.hash, phone.verifier.key(), chronicle.cosign(kept.text, phone, 1),
        characters=["isa"], actor="Dana", at="2026-03-01T19:30:00Z",
    )  # fmt: skip
    store.close()
    path = tmp_path / "isa.passport"
    mara.ok("passport", "export", "isa", "-o", str(path))
    t = Table(str(tmp_path / "oskar.db"))
    t.ok("new", "oskar", "--system", "d20-world")
    t.ok("session", "start")
    t.ok("character", "add", "--passport", str(path))
    return t


def test_the_cli_shows_it_in_the_sheet_the_log_the_recap_and_play(oskar):
    sheet = _flat(oskar.ok("sheet", "isa"))
    assert "Before this table" in sheet
    assert (
        "session 1 signed by campaign-ledger/mara Isa Marrow joins the party (cosigned by the "
        f"player's phone {PHONE})" in sheet
    )
    assert CARRIED in _flat(oskar.ok("log"))
    assert CARRIED in _flat(oskar.ok("recap", "--session", "1"))
    played = CliRunner().invoke(cli, ["--db", oskar.db, "play"], input="log\nrecap --session 1\n")
    assert _flat(played.output).count(CARRIED) == 2, played.output


def test_the_web_shows_it_on_the_sheet_the_log_and_the_recap(oskar):
    with client(oskar, "gm") as c:
        for path in ("/log", "/recap/1"):
            page = c.get(path)
            assert page.status_code == 200
            assert _flat(page.text.replace("&#39;", "'")).count(CARRIED) == 1, path
        sheet = _flat(c.get("/sheet/isa").text.replace("&#39;", "'"))
        assert "Before this table" in sheet and "signed by campaign-ledger/mara" in sheet
        assert f"Isa Marrow joins the party (cosigned by the player's phone {PHONE})" in sheet
