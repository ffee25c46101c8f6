"""Terran Engine: a Challenge the group shares (ruling T25; seed 003_2aeb47bc6ca82a40.txt,
rules.html "2.2 Challenges": "Challenges have Disposition, which measures how much Effect
they take to be overcame"; table: "Dangerous 10 1d").

Jen, Kit and Bo of The Drowned Marches face one Dangerous Challenge; Jen's and Kit's Effects
wear it down on all three sheets; `verify`, `import`, `audit` and `correct` keep them in step.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time

CAMPAIGN = Path(__file__).resolve().parents[2] / "campaigns" / "the-drowned-marches"
TROLL = "Bog troll"


@pytest.fixture
def troll(run: Any) -> Any:
    """Jen, Kit and Bo; session 1 open; the group faces a Dangerous Bog troll (10, 1d)."""
    with freeze_time("2026-03-01 19:00:00", tick=True):
        run("new", "marches", "--system", "terran-engine")
        for who in ("jen", "kit", "bo"):
            run("character", "add", "--sheet", str(CAMPAIGN / "characters" / f"{who}.toml"))
        run("session", "start")
        out = run("record", "shared-challenge-opened", "--challenge", TROLL, "--level",
                  "Dangerous").output
        assert "The group faces Bog troll together: Dangerous (Disposition 10, Effect 1d)" in out
    return run


def challenge(run: Any, who: str) -> dict[str, Any]:
    sheet = json.loads(run("sheet", who, "--json").output)
    [found] = [c for c in sheet["challenges"] if c["name"] == TROLL]
    return found


def count(run: Any) -> int:
    return len(json.loads(run("log", "--json").output))


def jen_hits(run: Any, faces: str = "4", *, text: bool = False) -> Any:
    """Jen: Agility 2 + Survival 2 = 4 Light Dice [1 2 3 6], a 6 (success); then her sword
    (1d) on the troll."""
    run("roll", "jen", "Survival", "--attribute", "Agility", "--dice", "1,2,3,6")
    args = ("roll", "jen", "effect", "--weapon", "sword", "--challenge", TROLL, "--dice", faces)
    return run(*args).output if text else json.loads(run(*args, "--json").output)


@freeze_time("2026-03-01 19:30:00", tick=True)
def test_every_sheet_holds_the_one_disposition(troll: Any) -> None:
    for who in ("jen", "kit", "bo"):
        c = challenge(troll, who)
        assert (c["disposition"], c["level"], c["status"], c["shared"]) == (
            10, "Dangerous", "open", True)
    text = troll("sheet", "bo").output
    assert "Bog troll" in text and "Disposition 10" in text and "shared by the group" in text


@freeze_time("2026-03-01 19:30:00", tick=True)
def test_two_characters_effects_wear_one_challenge_down(troll: Any) -> None:
    out = jen_hits(troll)  # sword 1d shows 4: Disposition 10 → 6
    assert (out["value"], out["challenge"]) == (4, TROLL)
    [follow] = out["batch"]
    assert follow["type"] == "terran-engine.shared_disposition_reduced"
    assert (follow["amount"], follow["by"], follow["roll"]) == (4, "jen", out["seq"])
    assert [challenge(troll, w)["disposition"] for w in ("jen", "kit", "bo")] == [6, 6, 6]
    # Kit: Strength 1 + Violence 2 = 3 Light [1 2 5], a 5 (success with a cost); his axe
    # (1d) shows a 6, which explodes ("every time the result is a natural 6, re-roll and
    # accumulate"): 6 + 3 = 9 ≥ 6 left, the troll is overcome on every sheet
    troll("roll", "kit", "Violence", "--attribute", "Strength", "--dice", "1,2,5")
    out = json.loads(troll("roll", "kit", "effect", "--weapon", "axe", "--challenge", TROLL,
                           "--dice", "6,3", "--json").output)
    assert out["value"] == 9
    for who in ("jen", "kit", "bo"):
        c = challenge(troll, who)
        assert (c["disposition"], c["status"]) == (0, "overcome")
    log = troll("log").output
    assert "Effect 4 by jen on the shared Challenge Bog troll" in log
    assert "Effect 9 by kit on the shared Challenge Bog troll" in log
    recap = troll("recap", "--session", "1").output
    assert recap.count("Challenge Bog troll overcome") == 3  # Jen, Kit and Bo
    assert troll("verify").exit_code == 0


@freeze_time("2026-03-01 19:30:00", tick=True)
def test_an_effect_on_a_closed_challenge_is_refused(troll: Any) -> None:
    troll("record", "shared-challenge-closed", "--challenge", TROLL, "--status", "abandoned")
    assert [challenge(troll, w)["status"] for w in ("jen", "kit", "bo")] == ["abandoned"] * 3
    troll("roll", "jen", "Survival", "--attribute", "Agility", "--dice", "1,2,3,6")
    before = count(troll)
    bad = troll("roll", "jen", "effect", "--weapon", "sword", "--challenge", TROLL,
                "--dice", "4", ok=False)
    assert bad.exit_code == 1 and "already abandoned" in bad.output
    assert "Traceback" not in bad.output and count(troll) == before
    again = troll("record", "shared-challenge-closed", "--challenge", TROLL, ok=False)
    assert again.exit_code == 1 and "already abandoned" in again.output


@freeze_time("2026-03-01 19:30:00", tick=True)
def test_an_overcome_challenge_takes_no_more_effect(troll: Any) -> None:
    troll("record", "shared-disposition-reduced", "--challenge", TROLL, "--amount", "10",
          "--by", "a hired spear")  # an Effect rolled at the table, entered by hand
    assert challenge(troll, "bo")["status"] == "overcome"
    troll("roll", "kit", "Violence", "--attribute", "Strength", "--dice", "1,2,5")
    bad = troll("roll", "kit", "effect", "--weapon", "axe", "--challenge", TROLL,
                "--dice", "3", ok=False)
    assert bad.exit_code == 1 and "already overcome" in bad.output


@freeze_time("2026-03-01 19:30:00", tick=True)
def test_retracting_the_effect_restores_the_disposition_everywhere(troll: Any) -> None:
    """The count toward the troll is part of its Effect roll (core follow-ups):
    retracting the roll retracts it, undoing that counts it again, an amended roll (4
    misread for 2) amends it, and the count alone can still be retracted."""
    out = jen_hits(troll)
    roll_seq, follow_seq = out["seq"], out["batch"][0]["seq"]
    assert [challenge(troll, w)["disposition"] for w in ("jen", "kit", "bo")] == [6, 6, 6]
    said = troll("correct", str(roll_seq), "--reason", "wrong target").output
    assert f"with it (event {follow_seq}) no longer counts" in said
    assert [challenge(troll, w)["disposition"] for w in ("jen", "kit", "bo")] == [10, 10, 10]
    assert troll("verify").exit_code == 0
    undo = count(troll)
    troll("correct", str(undo), "--reason", "right target after all")
    assert challenge(troll, "bo")["disposition"] == 6
    said = troll("correct", str(roll_seq), "--dice", "2", "--reason", "misread").output
    assert f"with it (event {follow_seq}) now:" in said
    assert [challenge(troll, w)["disposition"] for w in ("jen", "kit", "bo")] == [8, 8, 8]
    assert troll("verify").exit_code == 0
    troll("correct", str(follow_seq), "--reason", "the troll was out of reach")
    assert [challenge(troll, w)["disposition"] for w in ("jen", "kit", "bo")] == [10, 10, 10]
    assert troll("verify").exit_code == 0


@freeze_time("2026-03-01 19:30:00", tick=True)
def test_a_forged_count_is_refused(troll: Any) -> None:
    out = jen_hits(troll)
    bad = troll("record", "shared-disposition-reduced", "--challenge", TROLL, "--amount", "4",
                "--by", "jen", "--roll", str(out["seq"]), ok=False)  # the same Effect twice
    assert bad.exit_code == 1
    assert challenge(troll, "kit")["disposition"] == 6


@freeze_time("2026-03-01 19:30:00", tick=True)
def test_one_characters_events_cannot_split_the_shared_challenge(troll: Any) -> None:
    bad = troll("record", "disposition-reduced", "--character", "jen", "--challenge", TROLL,
                "--amount", "3", ok=False)
    assert bad.exit_code == 1 and "shared-disposition-reduced" in bad.output
    bad = troll("record", "challenge-closed", "--character", "kit", "--challenge", TROLL,
                ok=False)
    assert bad.exit_code == 1 and "shared-challenge-closed" in bad.output
    bad = troll("record", "challenge-opened", "--character", "bo", "--challenge", TROLL,
                "--level", "Trivial", ok=False)
    assert bad.exit_code == 1 and "already faces" in bad.output
    # a Montage resolves a Challenge one character faces
    troll("roll", "jen", "consequence", "--challenge", TROLL, "--consequence", "complication",
          "--dice", "2")
    bad = troll("roll", "jen", "Survival", "--attribute", "Agility", "--montage",
                "--challenge", TROLL, "--dice", "1,2,3,6", ok=False)
    assert bad.exit_code == 1 and "Montage" in bad.output
    assert [challenge(troll, w)["disposition"] for w in ("jen", "kit", "bo")] == [10, 10, 10]


@freeze_time("2026-03-01 19:30:00", tick=True)
def test_export_import_and_audit_replay_the_shared_challenge(troll: Any, tmp_path: Path) -> None:
    out = jen_hits(troll)
    backup = tmp_path / "marches.ndjson"
    troll("--as", "gm", "export", "-o", str(backup))
    other = str(tmp_path / "other.db")
    troll("import", str(backup), db_path=other)
    sheet = json.loads(troll("sheet", "bo", "--json", db_path=other).output)
    assert [c["disposition"] for c in sheet["challenges"]] == [6]
    audit = troll("audit", str(out["seq"])).output
    assert "2.2 Challenges" in audit
    # the scene ends: the troll stays on every sheet while open
    troll("scene", "end")
    assert challenge(troll, "kit")["disposition"] == 6


@freeze_time("2026-03-01 19:30:00", tick=True)
def test_the_roll_answer_says_what_the_effect_did(troll: Any) -> None:
    out = jen_hits(troll, text=True)
    assert "Effect 4 by jen on the shared Challenge Bog troll" in out
    assert "Bog troll's Disposition 10 → 6" in out


@freeze_time("2026-03-01 19:30:00", tick=True)
def test_a_challenge_is_not_opened_gm_only_and_players_see_the_shared_one(troll: Any) -> None:
    for what in ("shared-challenge-opened", "challenge-opened --character jen"):
        bad = troll("record", *what.split(), "--challenge", "Hidden eel", "--level", "Trivial",
                    "--blind", ok=False)
        assert bad.exit_code == 1 and "cannot be opened GM-only" in bad.output
    jen_hits(troll)
    player = json.loads(troll("--as", "player", "sheet", "bo", "--json").output)
    assert [c["disposition"] for c in player["challenges"]] == [6]


@freeze_time("2026-03-01 19:30:00", tick=True)
def test_a_character_who_joins_later_faces_the_shared_challenge(troll: Any, tmp_path: Path) -> None:
    """After Jen's Effect of 4 (Disposition 10 → 6) a fourth character joins: they face the
    same troll at 6, and their Effect wears it down for everyone."""
    jen_hits(troll)
    sheet = (CAMPAIGN / "characters" / "kit.toml").read_text().replace('name = "Kit', 'name = "Wren')
    path = tmp_path / "wren.toml"
    path.write_text(sheet)
    troll("character", "add", "--sheet", str(path))
    wren = [c["character"] for c in json.loads(troll("character", "list", "--json").output)
            if c["name"].startswith("Wren")][0]
    assert challenge(troll, wren)["disposition"] == 6
    assert challenge(troll, wren) == challenge(troll, "bo")
    # Wren's Risky Action succeeds (1 2 6), then the axe's 1d shows 2: 6 → 4 on every sheet
    troll("roll", wren, "Survival", "--attribute", "Agility", "--dice", "1,2,6")
    troll("roll", wren, "effect", "--weapon", "axe", "--challenge", TROLL, "--dice", "2")
    assert [challenge(troll, w)["disposition"] for w in ("jen", "kit", "bo", wren)] == [4] * 4
    assert troll("verify").exit_code == 0
