"""d20 The World: objectives shared by several characters (ruling R43).

Seed 001_a3a02f9b7363775f.txt, "Objectives": "Objectives are challenges which individual
players, groups of players, or entire factions can work towards over time by making checks.
Each contributing check must be unique in some way (the same skill shouldn't be used more
than once per objective) ... An objective is completed upon reaching a certain number of
contributing checks with a good outcome ... no less than two. The first three contributing
checks with a messy outcome are "close calls" ... An objective is failed upon the third
contributing check with a bad outcome". Checks: 8 or less bad, 9–17 messy, 18 or more good.

Isa Marrow (Lockpicking +3, Forage +2, Sing +1) and Bram Holloway (Brawl +3, Stargazing +1)
are the sheets of campaigns/the-world; Wren Tallow is a copy of Isa's sheet, a third
character who makes no check.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time

from ledger.testing import as_json, ok, refused
from ledger.testing import run_cli as run

CAMPAIGN = Path(__file__).resolve().parents[2] / "campaigns" / "the-world"
VAULT = "Open the vault"


def wren_sheet(tmp_path: Path, name: str = "Wren Tallow") -> Path:
    text = (CAMPAIGN / "characters" / "isa.toml").read_text()
    path = tmp_path / f"{name.split()[0].lower()}.toml"
    path.write_text(text.replace('name = "Isa Marrow"', f'name = "{name}"'))
    return path


@pytest.fixture
def world_extra_sheets(tmp_path: Path) -> list[Path]:
    """Wren Tallow joins Isa and Bram before the session (a third sheet to compare)."""
    return [wren_sheet(tmp_path)]


def objective(db: Path, who: str, as_: str = "gm") -> dict[str, Any]:
    found = [o for o in as_json(db, "sheet", who, "--as", as_)["objectives"] if o["name"] == VAULT]
    assert len(found) == 1
    return found[0]


def check(db: Path, who: str, skill: str, die: int) -> dict[str, Any]:
    """A check with time and skill (two factors: one d20), towards the vault."""
    return as_json(db, "roll", who, skill, "--time", "--objective", VAULT, "--dice", str(die))


def play_the_vault(db: Path) -> list[dict[str, Any]]:
    """A group objective split between two characters: required 3; good, messy, good, bad,
    good with five different skills."""
    ok(db, "record", "group-objective-opened", "--objective", VAULT, "--required-good", "3")
    return [
        check(db, "isa", "Lockpicking", 16),  # 16 + 3 = 19 good
        check(db, "bram", "Brawl", 12),  # 12 + 3 = 15 messy: close call 1
        check(db, "bram", "Stargazing", 17),  # 17 + 1 = 18 good
        check(db, "isa", "Sing", 3),  # 3 + 1 = 4 bad
        check(db, "isa", "Forage", 16),  # 16 + 2 = 18 good: the third good
    ]


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_two_characters_complete_a_shared_objective_every_sheet_shows(world: Path) -> None:
    checks = play_the_vault(world)
    assert [c["outcome"] for c in checks] == ["good", "messy", "good", "bad", "good"]
    # each check's batch holds its contribution, on the campaign stream, naming the check
    for c in checks:
        follow = c["batch"]
        assert [(e["type"], e["stream"], e["check"], e["by"]) for e in follow] == \
            [("d20-world.group_objective_contributed", "campaign", c["seq"], c["character"])]  # fmt: skip
    vault = objective(world, "wren")
    assert (vault["status"], vault["good"], vault["messy"], vault["bad"],
            vault["close_calls"]) == ("completed", 3, 1, 1, 1)  # fmt: skip
    assert vault["skills_used"] == ["Lockpicking", "Brawl", "Stargazing", "Sing", "Forage"]
    assert vault["contributors"] == ["isa", "bram", "bram", "isa", "isa"]
    for who in ("isa", "bram"):
        assert objective(world, who) == vault
    assert objective(world, "wren", "player") == vault
    text = " ".join(ok(world, "sheet", "wren").output.split())
    assert "Open the vault (shared) completed good 3/3, messy 1, bad 1" in text
    assert "skills used: Lockpicking (isa), Brawl (bram), Stargazing (bram)" in text
    recap = ok(world, "recap", "--session", "1").output
    assert recap.count("Shared objective 'Open the vault' completed (3/3 good checks)") == 3
    log = ok(world, "log").output
    assert "isa: Forage good towards shared objective 'Open the vault'" in log
    assert "objective 'Open the vault' is already completed" in refused(
        world, "roll", "bram", "Brawl", "--time", "--objective", VAULT, "--dice", "19")
    assert "OK" in ok(world, "verify").output
    ok(world, "audit", str(checks[-1]["seq"]))


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_a_retracted_contribution_uncounts_it_everywhere(world: Path) -> None:
    checks = play_the_vault(world)
    last = checks[-1]
    contribution = last["batch"][0]["seq"]
    ok(world, "correct", str(contribution), "--reason", "the lock was already open")
    for who in ("isa", "bram", "wren"):
        vault = objective(world, who)
        assert (vault["status"], vault["good"]) == ("open", 2)
        assert vault["skills_used"] == ["Lockpicking", "Brawl", "Stargazing", "Sing"]
    assert "OK" in ok(world, "verify").output
    # the check still stands; it may be counted again, as it was, by hand
    assert "not a bad Forage check" in refused(
        world, "record", "group-objective-contributed", "--objective", VAULT, "--by", "isa",
        "--skill", "Forage", "--outcome", "bad", "--check", str(last["seq"]))  # fmt: skip
    ok(world, "record", "group-objective-contributed", "--objective", VAULT, "--by", "isa",
       "--skill", "Forage", "--outcome", "good", "--check", str(last["seq"]))  # fmt: skip
    assert objective(world, "wren")["status"] == "completed"
    assert "OK" in ok(world, "verify").output


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_a_counted_check_is_corrected_with_its_contribution(world: Path) -> None:
    """A check's contribution is part of it (core follow-ups): retracting the check
    uncounts it on every sheet, undoing that counts it again, and re-rolling the check
    (16 + 3 = 19 good misread for 3 + 3 = 6 bad) amends its contribution to bad."""
    ok(world, "record", "group-objective-opened", "--objective", VAULT, "--required-good", "2")
    first = check(world, "isa", "Lockpicking", 16)
    contribution = first["batch"][0]["seq"]
    assert objective(world, "bram")["good"] == 1
    output = ok(world, "correct", str(first["seq"]), "--reason", "never happened").output
    assert f"with it (event {contribution}) no longer counts" in output
    assert objective(world, "bram")["good"] == 0 and objective(world, "isa")["good"] == 0
    assert "OK" in ok(world, "verify").output
    retraction = as_json(world, "log")[-1]["seq"]
    ok(world, "correct", str(retraction), "--reason", "it happened after all")
    assert objective(world, "bram")["good"] == 1
    output = ok(world, "correct", str(first["seq"]), "--dice", "3", "--reason", "misread").output
    assert f"with it (event {contribution}) now:" in output and "bad" in output
    assert objective(world, "bram")["good"] == 0 and objective(world, "isa")["good"] == 0
    assert "OK" in ok(world, "verify").output
    # the contribution alone can still be uncounted; the check then stands
    ok(world, "correct", str(contribution), "--reason", "did not help")
    assert "OK" in ok(world, "verify").output


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_faction_contributions_and_what_the_rules_refuse(world: Path) -> None:
    """"entire factions can work towards" an objective: The World records the Guild's
    check by hand. The same skill twice, fewer than two good checks, a blind check, and a
    forged --check are refused."""
    assert "at least two good checks" in refused(
        world, "record", "group-objective-opened", "--objective", VAULT, "--required-good", "1")
    ok(world, "record", "group-objective-opened", "--objective", VAULT, "--required-good", "2")
    assert "already exists" in refused(
        world, "record", "group-objective-opened", "--objective", "open the VAULT",
        "--required-good", "2")  # fmt: skip
    ok(world, "record", "group-objective-contributed", "--objective", VAULT, "--by",
       "the Guild", "--skill", "Bribery", "--outcome", "good")  # fmt: skip
    assert objective(world, "wren")["good"] == 1
    check(world, "isa", "Lockpicking", 5)  # 5 + 3 = 8 bad
    assert "lockpicking already contributed" in refused(
        world, "record", "group-objective-contributed", "--objective", VAULT, "--by", "wren",
        "--skill", "lockpicking", "--outcome", "good")  # fmt: skip
    assert "Lockpicking already contributed" in refused(
        world, "roll", "bram", "Lockpicking", "--practice", "--time", "--tools", "--objective",
        VAULT, "--dice", "12")  # fmt: skip
    assert "record group-objective-contributed without rolling" in refused(
        world, "roll", "bram", "Brawl", "--time", "--tools", "--objective", VAULT)
    assert "a blind check contributes to no objective" in refused(
        world, "roll", "isa", "Forage", "--time", "--objective", VAULT, "--dice", "16",
        "--blind")  # fmt: skip
    assert "not a good Forage check" in refused(
        world, "record", "group-objective-contributed", "--objective", VAULT, "--by", "isa",
        "--skill", "Forage", "--outcome", "good", "--check", "3")  # fmt: skip
    assert "shared objective" in refused(
        world, "record", "objective-contributed", "--character", "isa", "--objective", VAULT,
        "--skill", "Forage", "--outcome", "good")  # fmt: skip
    ok(world, "record", "group-objective-failed", "--objective", VAULT, "--reason",
       "the watch came at midnight")  # fmt: skip
    for who in ("isa", "bram", "wren"):
        assert objective(world, who)["status"] == "failed"
    assert "Shared objective 'Open the vault' failed: the watch came at midnight" in \
        ok(world, "recap", "--session", "1").output  # fmt: skip
    assert "OK" in ok(world, "verify").output


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_a_character_who_joins_later_holds_it_and_counts(world: Path, tmp_path: Path) -> None:
    """A character added after the objective was opened, and after Isa's good check, holds
    it as everyone does ("groups of players ... can work towards"): the same progress on
    their sheet, their own check counts for all, and verify, export and import agree."""
    ok(world, "record", "group-objective-opened", "--objective", VAULT, "--required-good", "2")
    check(world, "isa", "Lockpicking", 16)  # 16 + 3 = 19 good
    ok(world, "character", "add", "--sheet", str(wren_sheet(tmp_path, "Cole Ashby")))
    assert objective(world, "cole") == objective(world, "bram")
    assert objective(world, "cole")["good"] == 1
    assert objective(world, "cole", "player") == objective(world, "bram", "player")
    check(world, "cole", "Forage", 16)  # 16 + 2 = 18 good: the second good completes it
    assert [objective(world, who)["status"] for who in ("isa", "bram", "cole")] == [
        "completed"
    ] * 3
    assert "OK" in ok(world, "verify").output
    # the same from a GM export, imported into a new file
    out = tmp_path / "world.ndjson"
    ok(world, "export", "-o", str(out))
    copy = tmp_path / "copy.db"
    ok(copy, "import", str(out))
    assert as_json(copy, "sheet", "cole")["objectives"] == as_json(world, "sheet", "cole")[
        "objectives"
    ]
    # an objective retracted before Cole joined is not his either
    ok(world, "record", "group-objective-opened", "--objective", "Find the key",
       "--required-good", "2")  # fmt: skip
    opened = as_json(world, "log")[-1]["seq"]
    ok(world, "correct", str(opened), "--reason", "no such key")
    ok(world, "character", "add", "--sheet", str(wren_sheet(tmp_path, "Dell Fenn")))
    assert [o["name"] for o in as_json(world, "sheet", "dell")["objectives"]] == [VAULT]


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_a_campaign_with_shared_objectives_exports_and_imports(world: Path, tmp_path: Path
                                                               ) -> None:
    play_the_vault(world)
    export = ok(world, "export", "--as", "gm").stdout  # the open-session warning is on stderr
    path = tmp_path / "gm.ndjson"
    path.write_text(export)
    other = tmp_path / "other.db"
    ok(other, "import", str(path))
    assert objective(other, "wren") == objective(world, "wren")


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_a_forged_correction_of_a_counted_check_is_caught(world: Path) -> None:
    """A correction (appended past the rules, chained) that retracts a check but leaves its
    contribution counted as good, or that re-counts it as good, is named by verify."""
    from ledger.campaign.aggregate import open_campaign
    from ledger.events import Corrected
    from ledger.store.sqlite import Pending, Store

    ok(world, "record", "group-objective-opened", "--objective", VAULT, "--required-good", "2")
    first = check(world, "isa", "Lockpicking", 16)
    contribution = as_json(world, "log")[-1]
    payload = {k: v for k, v in contribution["data"].items() if k != "type"}
    forged = Corrected(target=first["seq"], action="retract", reason="x",
                       companions={str(contribution["seq"]): {**payload, "outcome": "messy"}})  # fmt: skip
    store = Store(str(world))
    with store.transaction():
        store.append(open_campaign(store).id, [Pending(forged)], actor="forger",
                     recorded_at="2026-03-01T19:20:00.000000Z", session=1)  # fmt: skip
    result = run(world, "verify")
    assert result.exit_code == 1
    assert f"sets event {contribution['seq']}, written with roll {first['seq']}" in result.output
