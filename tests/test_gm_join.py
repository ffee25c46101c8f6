"""The GM's page adds a character from a passport file, through the code of `campaign
character add --passport` (ledger.history.passports.join): the same checks on the same
file give the same refusal, in one line on the CLI and next to the form on the page, and
nothing is written; an honest passport adds the character from the state it proves."""

from __future__ import annotations

import html
import json

import pytest

from ledger.errors import Refused
from ledger.web.gm import worded

from .webtools import Table, client, csrf, nonce

SHEETS = "campaigns/the-world/characters/"


@pytest.fixture
def passports(tmp_path, frozen):
    """Isa's passport from Mara's table, and a copy whose experience her player edited."""
    mara = Table(str(tmp_path / "mara.db"))
    mara.ok("new", "mara", "--system", "d20-world")
    mara.ok("character", "add", "--sheet", SHEETS + "isa.toml")
    mara.ok("session", "start")
    mara.ok("roll", "isa", "Forage", "--time", "--dice", "15")
    mara.ok("session", "end")
    honest = tmp_path / "isa.passport"
    mara.ok("passport", "export", "isa", "-o", str(honest))
    edited = json.loads(honest.read_bytes())
    for e in edited["entries"][0]["events"]:
        if e["type"] == "d20-world.check_rolled":
            e["data"]["experience"] = 9
    forged = tmp_path / "isa-edited.passport"
    forged.write_text(json.dumps(edited))
    return honest, forged


def _upload(c, path, character_id=""):
    data = {"csrf": csrf(c), "nonce": nonce(c, "/gm"), "form": "join", "id": character_id}
    files = {"passport": (path.name, path.read_bytes(), "application/json")}
    return c.post("/gm/join", data=data, files=files, headers={"origin": "http://testserver"})


def _cli_refusal(t, path, *args):
    result = t("character", "add", "--passport", str(path), *args)
    assert result.exit_code == 1, result.output
    line = result.output.strip()
    assert "\n" not in line and "Traceback" not in line and line.startswith("Error: ")
    return line.removeprefix("Error: ")


def test_the_page_and_the_cli_refuse_the_same_passport_alike(passports, tmp_path):
    honest, forged = passports
    t = Table(str(tmp_path / "oskar.db"))
    t.ok("new", "oskar", "--system", "d20-world")
    head = t.head()
    said = _cli_refusal(t, forged)
    assert said.startswith("entry 1 (signed by campaign-ledger/mara): event ")
    with client(t, "gm") as c:
        page = _upload(c, forged)
        assert page.status_code == 422
        shown = html.unescape(page.text)
        assert 'id="err-join"' in page.text and worded(Refused(said)) in shown
        assert t.head() == head  # nothing written by either
        # an honest passport: added from the state it proves, shown before this table
        added = _upload(c, honest)
        assert added.status_code == 303, added.text
        assert added.headers["location"].endswith("#c-isa")
        sheet = html.unescape(c.get("/sheet/isa").text)
        assert "Before this table" in sheet and "signed by campaign-ledger/mara" in sheet
        # the same passport again: the CLI's refusal, word for word, on the page
        said = _cli_refusal(t, honest)
        again = _upload(c, honest)
        assert again.status_code == 422 and worded(Refused(said)) in html.unescape(again.text)
    assert "OK:" in t.ok("verify")
    assert json.loads(t.ok("sheet", "isa", "--json"))["name"] == "Isa Marrow"


def test_the_page_refuses_a_form_without_a_file_or_from_a_player(passports, tmp_path):
    honest, _ = passports
    t = Table(str(tmp_path / "oskar.db"))
    t.ok("new", "oskar", "--system", "d20-world")
    with client(t, "gm") as c:
        data = {"csrf": csrf(c), "nonce": nonce(c, "/gm"), "form": "join"}
        empty = c.post("/gm/join", data=data, files={"passport": ("x", b"", "application/json")},
                       headers={"origin": "http://testserver"})  # fmt: skip
        assert empty.status_code == 422
        assert "Choose the passport file the player brought (nothing was written)." in empty.text
    with client(t, "Dana") as c:
        assert _upload(c, honest).status_code == 404  # only the GM's page has the form
    assert "isa" not in t.ok("character", "list")
