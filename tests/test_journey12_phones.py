"""Journey 12 with the players' phones: a West Marches evening on PostgreSQL (three tables,
one league) where Isa's and Bram's players keep their phones in Chromium and cosign their
characters' chronicle entries with one tap after each session's end.

Isa plays at Mara's table on Monday and at Oskar's on Thursday, where Oskar adds her on his
GM page from the passport file her player brings; each table's entry carries
the cosignature of the phone her player used there, Oskar's sheet and log say so, and
`campaign verify` re-checks every cosignature. The cheats are refused, each with its own
line: an edited experience, a forged cosignature, the same character at two tables on one
night. (tests/test_journey12.py plays the same evening from the command line alone.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .leaguetools import league_server
from .leaguetools import one_line as _one_line
from .leaguetools import runner as _runner
from .test_web_browser import CHROMIUM, PHONE
from .webtools import Table, live_server, signed_in_by_answer

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Debian's chromium is not installed (apt-get install chromium)",
)

SHEETS = "campaigns/the-world/characters/"


def _cosign_on_the_phone(page, base, character):
    """The player opens their home page after the session's end and taps "This is mine"
    on their character's entry; the phone key that cosigned it (from the table's answer)."""
    page.goto(f"{base}/")
    item = page.locator(f"#chronicle-cosign li[data-character='{character}'][data-state='offered']")
    item.wait_for(state="visible", timeout=30000)
    assert "chronicle entry for session" in item.inner_text()
    item.locator("button.cosign-entry").tap()
    page.wait_for_selector(
        f"#chronicle-cosign li[data-character='{character}'][data-state='cosigned']", timeout=30000
    )


def test_a_west_marches_evening_with_the_players_phones(ledgers, tmp_path, browser):
    league_db, *tables = ledgers
    league = _runner(league_db)
    vkey = league("league", "init", "marches").output.rsplit(": ", 1)[1].strip()
    mara, oskar, wren = (_runner(db) for db in tables)
    for name, run in (("mara", mara), ("oskar", oskar), ("wren", wren)):
        run("new", name, "--system", "d20-world")
        league("league", "trust", json.loads(run("checkpoint", "--json").output)["vkey"])
    phones = [browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True) for _ in range(2)]
    errors: list[str] = []
    with league_server(league_db, "marches") as url:
        at_league = ["--league", url, "--league-key", vkey]
        # Monday at Mara's: Isa (Dana's) and Bram (Olu's), both players with their phones
        mara("character", "add", "--sheet", SHEETS + "isa.toml")
        mara("character", "add", "--sheet", SHEETS + "bram.toml")
        links = Table(tables[0])
        dana_link, olu_link = links.link("Dana", "isa"), links.link("Olu", "bram")
        with live_server(tables[0]) as base:
            dana, dana_errors = signed_in_by_answer(phones[0], base, dana_link)
            olu, olu_errors = signed_in_by_answer(phones[1], base, olu_link)
            mara("session", "start")
            mara("roll", "isa", "Forage", "--time", "--dice", "15")
            mara("roll", "bram", "Mending", "--time", "--dice", "14")
            ended = mara("session", "end", *at_league)
            assert ended.output.count("League: accepted") == 2, ended.output
            _cosign_on_the_phone(dana, base, "isa")
            _cosign_on_the_phone(olu, base, "bram")
            errors += dana_errors + olu_errors
            dana.close()
            olu.close()
        assert "OK:" in mara("verify").output  # every cosignature re-checked
        log = " ".join(mara("log").output.split())
        assert (
            "the player's phone campaign-ledger-phone/" in log
            and "cosigned the chronicle entry" in log
        )
        isa, bram = tmp_path / "isa.passport", tmp_path / "bram.passport"
        mara("passport", "export", "isa", "-o", str(isa))
        mara("passport", "export", "bram", "-o", str(bram))
        monday_phone = json.loads(isa.read_bytes())["entries"][0]["cosignature"]["vkey"]
        assert monday_phone.startswith("campaign-ledger-phone/")

        # Thursday at Oskar's: Oskar adds Isa on his GM page from the file Dana brings
        oskar_links = Table(tables[1])
        gm_context = browser.new_context()
        with live_server(tables[1]) as base:
            gm, gm_errors = signed_in_by_answer(gm_context, base, oskar_links.link("gm"), "/gm")
            gm.click("#join summary")
            gm.set_input_files("#passport-file", str(isa))
            gm.fill("#join-league", url)  # the page asks the league, as --league does
            gm.fill("#join-league-key", vkey)
            gm.click("#join button[type=submit]")
            gm.wait_for_url("**/gm?done=*", timeout=30000)
            gm.goto(f"{base}/sheet/isa")
            shown = " ".join(gm.inner_text("main").split())
            assert "Before this table" in shown and "signed by campaign-ledger/mara" in shown
            errors += gm_errors
        gm_context.close()
        sheet = " ".join(oskar("sheet", "isa").output.split())
        assert "Before this table" in sheet and "signed by campaign-ledger/mara" in sheet
        assert f"cosigned by the player's phone {monday_phone.split('+')[0]}" in sheet

        # Olu edits his passport's experience before bringing Bram to Wren's
        edited = json.loads(bram.read_bytes())
        for e in edited["entries"][0]["events"]:
            if e["type"] == "d20-world.check_rolled":
                e["data"]["experience"] = 9
        forged = tmp_path / "bram-edited.passport"
        forged.write_text(json.dumps(edited, separators=(",", ":"), sort_keys=True))
        line = _one_line(wren("character", "add", "--passport", str(forged), *at_league, ok=False))
        assert line.startswith("Error: entry 1 (signed by campaign-ledger/mara): event ")
        assert line.endswith("does not match its hash: it was changed after the table signed it")
        # ... and then claims a cosignature his phone never made
        faked = json.loads(bram.read_bytes())
        cosig = faked["entries"][0]["cosignature"]
        name, b64 = cosig["signature"].rsplit(" ", 1)
        cosig["signature"] = f"{name} {b64[:-6]}{'AAAAAA' if b64[-6:] != 'AAAAAA' else 'BBBBBB'}"
        faked_path = tmp_path / "bram-cosigned.passport"
        faked_path.write_text(json.dumps(faked))
        line = _one_line(
            wren("character", "add", "--passport", str(faked_path), *at_league, ok=False)
        )
        assert line.startswith(
            "Error: entry 1 (signed by campaign-ledger/mara): its cosignature by the phone"
        )
        assert line.endswith("it is forged")
        assert "bram" not in wren("character", "list").output  # nothing written

        # the same Thursday, Bram (honest passport) sits at both Oskar's and Wren's
        oskar("character", "add", "--passport", str(bram), *at_league)
        wren("character", "add", "--passport", str(bram), *at_league)
        with live_server(tables[1]) as base:
            dana, dana_errors = signed_in_by_answer(
                phones[0], base, oskar_links.link("Dana", "isa")
            )
            oskar("session", "start")
            oskar("roll", "isa", "Forage", "--time", "--dice", "12")
            oskar("roll", "bram", "Mending", "--time", "--dice", "11")
            wren("session", "start")
            wren("roll", "bram", "Mending", "--time", "--dice", "9")
            wren("session", "end")  # Wren's table is offline tonight: it submits later
            ended = oskar("session", "end", *at_league)
            assert ended.output.count("League: accepted") == 2, ended.output
            _cosign_on_the_phone(dana, base, "isa")
            errors += dana_errors
        late = wren("league", "submit", *at_league)
        refused = [x for x in late.output.splitlines() if x.startswith("League refused")]
        assert len(refused) == 1 and "was played at two tables at once" in refused[0]
        assert "session 1, campaign-ledger/wren" in refused[0]

    # Isa's passport now: Monday's entry and Thursday's, each cosigned by her player's phone
    oskar("passport", "export", "isa", "-o", str(tmp_path / "isa-thursday.passport"))
    entries = json.loads((tmp_path / "isa-thursday.passport").read_bytes())["entries"]
    assert [e["cosignature"]["vkey"].startswith("campaign-ledger-phone/") for e in entries] == [
        True,
        True,
    ]
    assert "OK:" in oskar("verify").output and "OK:" in wren("verify").output
    for p in phones:
        p.close()
    assert not [e for e in errors if "Content Security Policy" in e], errors
