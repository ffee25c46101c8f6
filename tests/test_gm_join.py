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


def _upload(c, path, character_id="", **fields):
    data = {"csrf": csrf(c), "nonce": nonce(c, "/gm"), "form": "join", "id": character_id,
            **fields}  # fmt: skip
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


def test_in_a_league_the_page_and_the_cli_refuse_a_passport_cut_short_alike(tmp_path, frozen):
    """Isa's player brings the passport from before her last session: with the league's
    URL and key the page asks the league, as `--league URL --league-key VKEY` does, and
    both refuse it in the same words; a league that does not answer is refused alike."""
    from .leaguetools import league_server
    from .test_passports import _league, _runner

    mara, oskar = _runner(tmp_path / "mara.db"), _runner(tmp_path / "oskar.db")
    mara("new", "mara", "--system", "d20-world")
    oskar("new", "oskar", "--system", "d20-world")
    db, vkey = _league(tmp_path, mara, oskar)
    t = Table(str(tmp_path / "oskar.db"))
    early = tmp_path / "early.passport"
    with league_server(db, "marches") as url:
        league = ["--league", url, "--league-key", vkey]
        mara("character", "add", "--sheet", SHEETS + "isa.toml")
        for dice in ("15", "3"):
            mara("session", "start")
            mara("roll", "isa", "Forage", "--time", "--dice", dice)
            mara("session", "end", *league)
            if dice == "15":
                mara("passport", "export", "isa", "-o", str(early))
        head = t.head()
        said = _cli_refusal(t, early, *league)
        assert "the passport was cut short" in said
        with client(t, "gm") as c:
            page = _upload(c, early, league=url, league_key=vkey)
            assert page.status_code == 422
            assert worded(Refused(said)) in html.unescape(page.text)
            half = _upload(c, early, league=url)
            assert half.status_code == 422
            assert "Give both the league&#39;s URL and its key, or neither" in half.text
    said = _cli_refusal(t, early, *league)  # the league is gone now
    assert said.startswith("cannot ask the league about the passport: the league at")
    with client(t, "gm") as c:
        page = _upload(c, early, league=url, league_key=vkey)
        assert page.status_code == 422 and worded(Refused(said)) in html.unescape(page.text)
    assert t.head() == head  # nothing written by either
