"""Character sheets per rule system, compared with golden text (reviewed by eye once).

Every character of every bundled campaign (campaigns/*), built once per run with a fixed
clock and fixed session seeds (tests/bundled.py; each test reads a copy), is printed by
``campaign sheet NAME`` as plain text (piped: no colour), in the players' view and the GM's,
one file per campaign and view under tests/golden/sheets/. Regenerate after a deliberate
change with ``UPDATE_GOLDEN=1 uv run pytest tests/test_sheet_golden.py`` and read the diff.
"""

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from ledger.cli import cli

from .bundled import NAMES as CAMPAIGNS

GOLDEN = Path(__file__).parent / "golden" / "sheets"


def sheets(db: str, view: str) -> str:
    """Every character's sheet in ``view``, as ``campaign sheet`` prints them."""
    runner = CliRunner()
    listed = runner.invoke(cli, ["--db", db, "character", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    out = []
    for row in json.loads(listed.output):
        result = runner.invoke(cli, ["--db", db, "--as", view, "sheet", row["character"]])
        assert result.exit_code == 0, result.output
        out.append(result.output)
    return "\n\n".join(out)


@pytest.mark.parametrize("name", CAMPAIGNS)
def test_sheets_match_golden(name, bundled, monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    db = str(bundled(name))
    for view in ("player", "gm"):
        text = sheets(db, view)
        assert "\x1b" not in text
        if view == "player":
            assert "[GM]" not in text
        path = GOLDEN / f"{name}.{view}.txt"
        if os.environ.get("UPDATE_GOLDEN"):
            GOLDEN.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        assert path.exists(), f"no golden file {path.name}: run with UPDATE_GOLDEN=1 and review it"
        assert text == path.read_text(encoding="utf-8")


#: Per bundled campaign: a GM-only entry (``record ... --blind``) and the words it puts on
#: the GM's sheet. d20-world has GM-only facts of its own (bond favor, hidden conditions);
#: the others have none, so the secret is an event recorded blind.
SECRETS = {
    "grand-casebook": (
        "julian",
        ["boon-granted", "--character", "julian", "--boon", "Secret Ally"],
        ["Secret Ally"],
    ),
    "nimble-jen": (
        "jen",
        ["condition-added", "--character", "jen", "--condition", "Moon-cursed"],
        ["Moon-cursed"],
    ),
    "the-drowned-marches": (
        "jen",
        ["condition-taken", "--character", "jen", "--condition", "Battle-Scarred",
         "--detail", "hidden scar"],
        ["Battle-Scarred", "hidden scar"],
    ),
    "the-salt-road": (
        "jen",
        ["condition-added", "--character", "jen", "--condition", "Slow poison",
         "--kind", "penalty", "--value", "-1"],
        ["Slow poison"],
    ),
    "the-world": (
        "isa",
        ["condition-added", "--character", "isa", "--condition", "Cursed",
         "--check-penalty", "3", "--ends-when", "the bell tolls"],
        ["Cursed", "the bell tolls", "−3", "favor"],
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", CAMPAIGNS)
def test_gm_only_facts_never_reach_the_players_sheet(name, bundled):
    """The players' sheet (text, HTML, layout) holds no GM-only fact; the GM's shows each,
    on lines marked [GM]."""
    from ledger.campaign.aggregate import open_campaign
    from ledger.store.sqlite import Store

    who, record, words = SECRETS[name]
    db = str(bundled(name))
    runner = CliRunner()
    made = runner.invoke(cli, ["--db", db, "record", *record, "--blind"])
    assert made.exit_code == 0, made.output

    def run(*args: str) -> str:
        result = runner.invoke(cli, ["--db", db, *args])
        assert result.exit_code == 0, result.output
        return result.output

    players = {
        "text": run("sheet", who),
        "html": run("sheet", who, "--format", "html"),
        "as player": run("--as", "player", "sheet", who),
    }
    for what, out in players.items():
        for word in words:
            assert word not in out, (what, word)
        assert "[GM]" not in out, what
    campaign = open_campaign(Store(db))
    layout = campaign.system.sheet_layout(campaign.state_of(who, as_gm=False), as_gm=False)
    assert list(layout.gm_items()) == []
    assert not any(word in layout.text() for word in words)

    gm = run("--as", "gm", "sheet", who)
    for word in words:
        lines = [line for line in gm.splitlines() if word in line]
        assert lines, word
        assert all(line.endswith("[GM]") for line in lines), lines
    gm_html = run("--as", "gm", "sheet", who, "--format", "html")
    assert '<span class="gm">[GM]</span>' in gm_html and words[0] in gm_html
