"""Journey 12, a West Marches evening, end to end on PostgreSQL: three tables (three
ledgers), one league; Julian's Isa plays at Mara's table on Monday and at Oskar's on
Thursday with her verified sheet; a player who edits his passport's experience is refused
in one line naming the entry; another who brings the same character to two tables on one
night is caught when the second table submits, and both GMs see both entries.

tests/test_journey12_phones.py plays the same evening with the players' phones cosigning
their characters' entries in Chromium, and the GM's page adding a character."""

from __future__ import annotations

import json

from .leaguetools import league_server
from .leaguetools import one_line as _one_line
from .leaguetools import runner as _runner

SHEETS = "campaigns/the-world/characters/"


def test_a_west_marches_evening(ledgers, tmp_path, frozen):
    league_db, *tables = ledgers
    league = _runner(league_db)
    vkey = league("league", "init", "marches").output.rsplit(": ", 1)[1].strip()
    mara, oskar, wren = (_runner(db) for db in tables)
    for name, run in (("mara", mara), ("oskar", oskar), ("wren", wren)):
        run("new", name, "--system", "d20-world")
        league("league", "trust", json.loads(run("checkpoint", "--json").output)["vkey"])
    with league_server(league_db, "marches") as url:
        at_league = ["--league", url, "--league-key", vkey]
        # Monday at Mara's: Julian's Isa and Theo's Bram
        mara("character", "add", "--sheet", SHEETS + "isa.toml")
        mara("character", "add", "--sheet", SHEETS + "bram.toml")
        mara("session", "start")
        mara("roll", "isa", "Forage", "--time", "--dice", "15")
        mara("roll", "bram", "Mending", "--time", "--dice", "14")
        ended = mara("session", "end", *at_league)
        assert ended.output.count("League: accepted") == 2, ended.output
        isa = tmp_path / "isa.passport"
        mara("passport", "export", "isa", "-o", str(isa))
        bram = tmp_path / "bram.passport"
        mara("passport", "export", "bram", "-o", str(bram))
        monday = json.loads(mara("sheet", "isa", "--json").output)

        # Thursday at Oskar's: Isa with her verified sheet
        joined = oskar("character", "add", "--passport", str(isa), *at_league).output
        assert "verified; last entry signed by campaign-ledger/mara" in joined
        sheet = oskar("sheet", "isa").output
        assert "Before this table" in sheet and "signed by campaign-ledger/mara" in sheet
        assert json.loads(oskar("sheet", "isa", "--json").output)["skills"] == monday["skills"]

        # Theo edits his passport's experience before bringing Bram to Wren's
        edited = json.loads(bram.read_bytes())
        for e in edited["entries"][0]["events"]:
            if e["type"] == "d20-world.check_rolled":
                e["data"]["experience"] = 9
        forged = tmp_path / "bram-forged.passport"
        forged.write_text(json.dumps(edited, separators=(",", ":"), sort_keys=True))
        line = _one_line(wren("character", "add", "--passport", str(forged), *at_league, ok=False))
        assert line.startswith("Error: entry 1 (signed by campaign-ledger/mara): event ")
        assert line.endswith("does not match its hash: it was changed after the table signed it")
        assert "bram" not in wren("character", "list").output  # nothing written

        # the same Thursday, Bram (honest passport) sits at both Oskar's and Wren's
        oskar("character", "add", "--passport", str(bram), *at_league)
        wren("character", "add", "--passport", str(bram), *at_league)
        oskar("session", "start")
        oskar("roll", "isa", "Forage", "--time", "--dice", "12")
        oskar("roll", "bram", "Mending", "--time", "--dice", "11")
        wren("session", "start")
        wren("roll", "bram", "Mending", "--time", "--dice", "9")
        wren("session", "end")  # Wren's table is offline tonight: it submits later
        ended = oskar("session", "end", *at_league)
        assert ended.output.count("League: accepted") == 2, ended.output
        late = wren("league", "submit", *at_league)
        refused = [x for x in late.output.splitlines() if x.startswith("League refused")]
        assert len(refused) == 1 and "was played at two tables at once" in refused[0]
        assert "session 1, campaign-ledger/wren" in refused[0]
        assert "campaign-ledger/oskar" in refused[0]
        # both GMs see both entries
        for gm in (wren, oskar):
            shown = gm("league", "submit", *at_league).output
            assert "Conflict: " in shown and "the entry refused:" in shown
            assert "    table campaign-ledger/wren" in shown
            assert "    table campaign-ledger/oskar" in shown
        # the league's record: Isa's two entries, Bram's Monday and Oskar's Thursday
        import urllib.request

        from ledger.trust import chronicle

        notes = [json.loads(isa.read_bytes())["entries"][-1]["note"]]
        pid = chronicle.parse(notes[0][: notes[0].rfind("\n\n") + 1]).passport
        with urllib.request.urlopen(f"{url}/characters/{pid}") as got:
            record = json.loads(got.read())
        assert [e["table"] for e in record["entries"]] == [
            "campaign-ledger/mara", "campaign-ledger/oskar",
        ]  # fmt: skip
    assert "OK:" in oskar("verify").output and "OK:" in wren("verify").output
