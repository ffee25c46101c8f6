"""Terran Engine: an NPC on the ledger is a Challenge, not the opponent of a roll (T27).

Seed 003_2aeb47bc6ca82a40.txt, index.html "Taxonomy": "“Challenge” is used to represent
anything that is antagonistic to you, be that an NPC, the environment, etc." rules.html
"2.1 Risky Actions": "Take a number of Light Dice equal to your Attribute (and Skill, if
applicable). If you are in an advantageous or precarious position, the GM may give you
±1d." "Roll the dice and look for the outcome of the highest value." ... "6 You succeed."
Nothing of a Risky Action is read from whoever opposes it, so ``--vs-character`` on one is
refused in one line (exit 1, nothing written); the NPC is played as a Challenge
(``--challenge``) and harmed by an Effect against them (T24).

Jen Marrow (Agility 2, Survival 2) and Bo are sheets of campaigns/the-drowned-marches; Hollow
Voss (Strength 2, Agility 1: HP_max 5, "1.3.1") is an NPC written here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time

from ledger.testing import ok, refused

CAMPAIGN = Path(__file__).resolve().parents[2] / "campaigns" / "the-drowned-marches"
HV = """\
name = "Hollow Voss"
id = "hv"
archetype = "Outlaw"
[attributes]
Strength = 2
Agility = 1
Insight = 1
Charisma = 0
[skills]
Violence = 3
Survival = 1
[weapons]
"rusty cleaver" = "1d"
"""
RISKY = ("roll", "jen", "Survival", "--attribute", "Agility")


@pytest.fixture
def marsh(tmp_path: Path) -> Path:
    """A Terran campaign with Jen, Bo (Attributes not rolled yet) and the NPC Hollow Voss,
    session 1 open."""
    db = tmp_path / "marsh.db"
    sheet = tmp_path / "hv.toml"
    sheet.write_text(HV)
    with freeze_time("2026-03-01 19:00:00", tick=True):
        ok(db, "new", "marsh", "--system", "terran-engine")
        for who in ("jen", "bo"):
            ok(db, "character", "add", "--sheet", str(CAMPAIGN / "characters" / f"{who}.toml"))
        ok(db, "character", "add", "--sheet", str(sheet))
        ok(db, "session", "start")
    return db


def one_line(words: str) -> str:
    assert len(words.strip().splitlines()) == 1, words
    assert "unexpected" not in words and "TypeError" not in words
    return words


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_a_risky_action_against_an_npc_is_refused_in_one_line(marsh: Path) -> None:
    """The issue's command line: exit 1, nothing written, one line that says the NPC is a
    Challenge (Taxonomy) and how to play it."""
    words = one_line(refused(marsh, *RISKY, "--vs-character", "hv", "--dice", "1,1,1,6"))
    assert "Risky Action is not rolled against a character" in words
    assert "Hollow Voss is a Challenge" in words and "be that an NPC" in words
    assert "naming the Challenge" in words and "harm Hollow Voss with an effect roll" in words


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_the_npc_is_played_as_a_challenge_and_harmed_by_an_effect(marsh: Path) -> None:
    """The way the refusal names: Hollow Voss as a Dangerous Challenge (Disposition 10, "2.2"
    table); Agility 2 + Survival 2 = 4 Light Dice [1 1 1 6], highest 6: "6 You succeed";
    Jen's sword (1d) shows 4 against Hollow Voss (T24): HP 5 − 4 = 1 (no armour)."""
    ok(marsh, "record", "challenge-opened", "--character", "jen", "--challenge",
       "Hollow Voss", "--level", "Dangerous")  # fmt: skip
    out = json.loads(ok(marsh, *RISKY, "--challenge", "Hollow Voss", "--dice", "1,1,1,6",
                        "--json").stdout)  # fmt: skip
    assert (out["light"], out["highest"], out["outcome"], out["challenge"]) == (
        [1, 1, 1, 6], 6, "success", "Hollow Voss")
    ok(marsh, "roll", "jen", "effect", "--weapon", "sword", "--vs-character", "hv", "--apply",
       "--dice", "4")  # fmt: skip
    hv: dict[str, Any] = json.loads(ok(marsh, "sheet", "hv", "--json").stdout)
    assert (hv["hp_max"], hv["hp"]) == (5, 1)
    assert "OK" in ok(marsh, "verify").output


@freeze_time("2026-03-01 19:10:00", tick=True)
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("roll", "jen", "fortune", "--fortune", "1-3 the bridge holds", "--dice", "2"),
         "the Fortune die is the GM's 1d"),
        (("roll", "bo", "Strength", "--creation", "--dice", "2,3"), "rolled once, at creation"),
    ],
)
def test_other_rolls_against_no_one_are_refused_in_one_line(
    marsh: Path, args: tuple[str, ...], words: str
) -> None:
    """The Fortune die ("2.3": "define the chances and roll 1d") and a creation roll ("1.2")
    oppose no one either."""
    said = one_line(refused(marsh, *args, "--vs-character", "hv"))
    assert words in said and "roll it against no character on the ledger" in said
