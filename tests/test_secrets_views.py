"""Secrets stay secret, through the CLI with the d20-world rules: what leaves the GM's
hands is the players' view unless the GM asks for theirs by name (no player's view holds a
GM-only fact: docs/trust.md "A player's view never holds a GM fact").

A d20-world table (Isa and Bram of campaigns/the-world) with a blind roll, a bond's favour
change and a GM-only note between public rolls; every read command is run without ``--as``
(what a GM types to send something to the group) and with ``--as gm``.
"""

from __future__ import annotations

import json
import re

import pytest
from freezegun import freeze_time

from .webtools import THE_WORLD as CAMPAIGN
from .webtools import Table


@pytest.fixture
def table(tmp_path):
    with freeze_time("2026-03-01 19:00:00", tick=True):
        t = Table(str(tmp_path / "ledger.db"))
        t.ok("new", "vault", "--system", "d20-world")
        for name in ("isa", "bram"):
            t.ok("character", "add", "--sheet", str(CAMPAIGN / "characters" / f"{name}.toml"))
        t.ok("session", "start")
        yield t


def play_secrets(t: Table) -> dict[str, str]:
    """Public rolls around a blind roll, a favour change and a GM-only note; session 1
    ended. Returns what each GM-only entry answered when it was made."""
    t.ok("roll", "isa", "Lockpicking", "--time", "--dice", "12")
    made = {
        "blind roll": t.ok("roll", "bram", "Brawl", "--time", "--dice", "17", "--blind"),
        "favour": t.ok(
            "record",
            "favour-changed",
            "--character",
            "isa",
            "--bond",
            "the Guild",
            "--delta",
            "-2",
            "--reason",
            "missed the tithe",
        ),
        "note": t.ok("note", "the vault key is a forgery", "--blind"),
        "blind record": t.ok(
            "record",
            "bond-called",
            "--character",
            "bram",
            "--bond",
            "the Warden",
            "--request",
            "a quiet word",
            "--blind",
        ),
    }
    t.ok("roll", "bram", "Brawl", "--time", "--dice", "9")
    t.ok("session", "end")
    return made


SECRETS = ("tithe", "favour", "favor", "forgery", "quiet word", "[17]", "d20 17", " 17: ")


def test_recap_sent_to_the_group_is_the_players_view(table):
    """#13 "Seen: `recap --session 14 --format html > recap.html`, the command a GM sends to
    the group chat, contains the blind roll and the favour change, unmarked"."""
    play_secrets(table)
    for fmt in ("html", "md"):
        text = table.ok("recap", "--session", "1", "--format", fmt)
        assert "players" in text
        for secret in SECRETS:
            assert secret not in text, (fmt, secret)
        assert "[GM]" not in text
        assert text == table.ok("--as", "player", "recap", "--session", "1", "--format", fmt)
    data = json.loads(table.ok("recap", "--session", "1", "--json"))
    assert data["as_gm"] is False and not any(line["hidden"] for line in data["lines"])


def test_gm_recap_is_asked_for_by_name_and_marks_gm_only_lines(table):
    play_secrets(table)
    md = table.ok("--as", "gm", "recap", "--session", "1")
    assert "GM's recap" in md
    favour = next(line for line in md.splitlines() if "tithe" in line)
    assert favour.startswith("- **[") and "**[GM]**" in favour
    blind = next(line for line in md.splitlines() if "d20 17" in line)
    assert "**[GM]**" in blind
    public = next(line for line in md.splitlines() if "d20 12" in line)
    assert "[GM]" not in public
    assert "- **[GM]** Favor of the Guild −2 (now −1)" in md  # a change players do not see
    html = table.ok("recap", "--session", "1", "--format", "html", "--as", "gm")
    assert '<span class="gm">[GM]</span>' in html and "tithe" in html


def test_log_sheet_audit_and_fairness_default_to_the_players_view(table):
    play_secrets(table)
    for args in (
        ["log"],
        ["log", "--json"],
        ["log", "--nl"],
        ["sheet", "isa"],
        ["sheet", "isa", "--json"],
        ["fairness", "--json"],
    ):
        out = table.ok(*args)
        for secret in ("tithe", "favor", "forgery", "quiet word", '"visibility":"gm"', "[GM]"):
            assert secret not in out, (args, secret)
    blind_seq = next(
        e["seq"]
        for e in json.loads(table.ok("--as", "gm", "log", "--json"))
        if e["type"] == "d20-world.blind_check_rolled" and e["visibility"] == "gm"
    )
    refused = table("audit", str(blind_seq))
    assert refused.exit_code == 1 and "GM-only" in refused.output
    assert "[GM]" in table.ok("--as", "gm", "audit", str(blind_seq))


def test_gm_log_and_sheet_mark_gm_only_lines(table):
    play_secrets(table)
    log = table.ok("--as", "gm", "log").splitlines()
    marked = [line for line in log if line.endswith("[GM]")]
    assert len(marked) == 4 and any("tithe" in line for line in marked)
    assert all(not line.endswith("[GM]") for line in log if "d20 12" in line)
    sheet = table.ok("sheet", "isa", "--as", "gm").splitlines()
    guild = next(line for line in sheet if line.startswith("the Guild"))
    assert re.search(r"(?i)favou?r\s*[-−]1", guild) and guild.endswith("[GM]")
    old_maren = next(line for line in sheet if "Old Maren" in line)
    assert old_maren.endswith("[GM]")  # its favor is shown too: not what players see
    assert sheet[0] == "Isa Marrow (isa)"  # the name is no secret
    assert not any(line.endswith("[GM]") for line in sheet if "Lockpicking" in line)


def test_blind_entries_say_gm_only_when_made(table):
    made = play_secrets(table)
    for what, answer in made.items():
        assert answer.rstrip().endswith("[GM only]"), (what, answer)
    table.ok("session", "start")
    public = table.ok("roll", "isa", "Lockpicking", "--time", "--dice", "3")
    assert "GM" not in public
    blind = json.loads(table.ok("roll", "isa", "Lockpicking", "--time", "--blind", "--json"))
    assert blind["visibility"] == "gm"


def test_blind_condition_is_one_unexplained_hidden_modifier_for_players(table):
    """#13 "Seen: a blind condition-added with --check-penalty 3, then a public roll shows
    '−3 conditions' in the player's log while the player's sheet shows no condition"
    (ruling R33: a blind condition is a hidden condition)."""
    made = table.ok(
        "record", "condition-added", "--character", "isa", "--condition", "Cursed",
        "--check-penalty", "3", "--ends-when", "the bell tolls", "--blind",
    )
    assert "hidden condition 'Cursed'" in made and made.rstrip().endswith("[GM only]")
    check = json.loads(table.ok("roll", "isa", "Lockpicking", "--time", "--dice", "14", "--json"))
    assert (check["condition_penalty"], check["hidden_modifier"], check["total"]) == (0, 3, 14)
    table.ok("session", "end")
    player = {
        "log": table.ok("log"),
        "log --json": table.ok("log", "--json"),
        "recap": table.ok("recap", "--session", "1"),
        "recap html": table.ok("recap", "--session", "1", "--format", "html"),
        "recap --json": table.ok("recap", "--session", "1", "--json"),
        "sheet": table.ok("sheet", "isa"),
        "sheet --json": table.ok("sheet", "isa", "--json"),
        "export": table.ok("export"),
        "audit": table.ok("audit", str(check["seq"])),
    }
    for what, out in player.items():
        for secret in ("Cursed", "bell", "−3 conditions", "−3 to all checks"):
            assert secret not in out, (what, secret)
        if what != "export":  # a stub's type is the stub format's business
            assert "hidden_condition" not in out, what
    assert "−3 hidden modifier = 14: messy" in player["log"]
    assert "−3 hidden modifier = 14: messy" in player["recap"]
    sheet = json.loads(player["sheet --json"])
    assert sheet["conditions"] == [] and sheet["derived"]["check_penalty"] == 0
    gm_log = table.ok("--as", "gm", "log")
    assert "hidden condition 'Cursed' until the bell tolls: −3 to all checks" in gm_log
    assert table.ok("verify").startswith("OK")
    # ending it blind ends the hidden condition; a public end would name it and is refused
    table.ok("session", "start")
    refused = table("record", "condition-ended", "--character", "isa", "--condition", "Cursed")
    assert refused.exit_code == 1 and "hidden-condition-ended" in refused.output
    ended = table.ok(
        "record", "condition-ended", "--character", "isa", "--condition", "Cursed", "--blind"
    )
    assert ended.rstrip().endswith("[GM only]")
    check = json.loads(table.ok("roll", "isa", "Lockpicking", "--time", "--dice", "14", "--json"))
    assert "hidden_modifier" not in check and check["total"] == 17


@pytest.mark.parametrize(
    "args",
    [
        ["record", "condition-added", "--character", "isa", "--condition", "Lamed",
         "--check-penalty", "1", "--capacity-delta", "-1"],
        ["record", "damage-taken", "--character", "isa", "--amount", "2"],
        ["record", "experience-marked", "--character", "isa", "--skill", "Lockpicking",
         "--amount", "9"],
        ["record", "rested", "--character", "bram"],
    ],
)
def test_blind_facts_later_public_checks_would_itemise_are_refused(table, args):
    before = table.ok("--as", "gm", "log", "--json")
    refused = table(*args, "--blind")
    assert refused.exit_code == 1, refused.output
    assert refused.output.startswith("Error: ") and len(refused.output.splitlines()) == 1
    assert "Traceback" not in refused.output and "blind" in refused.output
    assert table.ok("--as", "gm", "log", "--json") == before


def test_a_blind_check_changes_nothing_a_later_public_check_would_show(table):
    """A blind check's experience raised Lockpicking to +4 in the GM's state only, so the
    next public check showed "+4" to players whose sheet said +3: the blind result leaked
    (found by tests/test_secrets_property.py). A blind check changes nothing on the sheet
    (ruling R34)."""
    table.ok("record", "experience-marked", "--character", "isa", "--skill", "Lockpicking",
             "--amount", "12")
    blind = json.loads(
        table.ok("roll", "isa", "Lockpicking", "--time", "--dice", "2", "--blind", "--json")
    )
    assert blind["visibility"] == "gm" and blind["experience"] == 2 and blind["total"] == 5
    gm = json.loads(table.ok("--as", "gm", "sheet", "isa", "--json"))
    assert next(s for s in gm["skills"] if s["name"] == "Lockpicking")["experience"] == 12
    public = json.loads(table.ok("roll", "isa", "Lockpicking", "--time", "--dice", "10",
                                 "--json"))
    assert (public["proficiency"], public["total"]) == (3, 13)
    table.ok("session", "end")
    assert table.ok("verify").startswith("OK")
    assert "[GM]" in table.ok("--as", "gm", "audit", str(blind["seq"]))
    table.ok("damage", "isa", "3")  # a wound: a shock roll is owed, in public
    refused = table("roll", "isa", "--shock", "--dice", "3", "--blind")
    assert refused.exit_code == 1 and "cannot be recorded blind" in refused.output
    table.ok("roll", "isa", "--shock", "--dice", "3")
