"""d20 The World, second pass: rules a GM still kept by hand.

Numbers are the book's (001_a3a02f9b7363775f.txt): the shock 1d6 against the sum of the
wounds' damage ("Wounds"), armour durability ("Armor"), help from "an ally who also has
time, tools, or skill" ("Checks"), conditions that say how they end ("Conditions"). Isa
Marrow and Bram Holloway are the sheets of campaigns/the-world.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from freezegun import freeze_time

from ledger.testing import as_json, ok, refused

CAMPAIGN = Path(__file__).resolve().parents[2] / "campaigns" / "the-world"


def sheet(db: Path, who: str = "isa") -> dict[str, Any]:
    return as_json(db, "sheet", who, "--as", "gm")


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_a_shock_roll_is_owed_for_each_wound(world: Path) -> None:
    """"When a character receives a wound, they must roll 1d6. If the result is less than or
    equal to the sum damage of that character's wounds, they go into shock": two wounds of 1,
    two rolls; a 2 against the total 2 is a shock, a 5 is not; a third roll is refused."""
    ok(world, "record", "damage-taken", "--character", "isa", "--amount", "1")
    ok(world, "record", "damage-taken", "--character", "isa", "--amount", "1")
    assert (sheet(world)["pending_shock"], sheet(world)["shocks_owed"]) == (True, 2)
    first = as_json(world, "roll", "isa", "--shock", "--dice", "2")
    assert (first["die"], first["wound_total"], first["shock"]) == (2, 2, True)
    assert (sheet(world)["pending_shock"], sheet(world)["shocks_owed"]) == (True, 1)
    second = as_json(world, "roll", "isa", "--shock", "--dice", "5")
    assert second["shock"] is False
    assert (sheet(world)["pending_shock"], sheet(world)["shocks_owed"], sheet(world)["shocks"]) \
        == (False, 0, 1)  # fmt: skip
    assert "owes no shock roll" in refused(world, "roll", "isa", "--shock", "--dice", "1")
    assert "OK" in ok(world, "verify").output


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_armour_from_the_starting_sheet_is_repaired_like_armour_added_later(world: Path) -> None:
    """Isa's Leather coat (durability 2 on her sheet) spends 2 on a 3-damage bite and
    breaks: "Once an item reaches zero durability, it is broken and needs repairs"; repaired,
    it is back to 2 ("Armor")."""
    ok(world, "record", "damage-taken", "--character", "isa", "--amount", "3",
       "--armour", "Leather coat:2")  # fmt: skip
    coat = next(i for i in sheet(world)["items"] if i["name"] == "Leather coat")
    assert coat.get("broken") is True
    ok(world, "record", "item-repaired", "--character", "isa", "--item", "Leather coat")
    coat = next(i for i in sheet(world)["items"] if i["name"] == "Leather coat")
    assert coat["durability"] == 2 and not coat.get("broken")
    assert sheet(world)["wounds"][0]["damage"] == 1  # 3 − 2 reached her


@freeze_time("2026-03-01 19:10:00", tick=True)
@pytest.mark.parametrize("helper", ["isa", "Isa Marrow", "ISA", "isa marrow"])
def test_a_character_cannot_help_their_own_check(world: Path, helper: str) -> None:
    output = refused(world, "roll", "isa", "Lockpicking", "--time", "--help-from", helper,
                     "--dice", "12,7")  # fmt: skip
    assert "cannot help their own check" in output
    out = as_json(world, "roll", "isa", "Lockpicking", "--time", "--help-from", "bram",
                  "--dice", "12,7")  # fmt: skip
    assert out["help_from"] == "bram"


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_conditions_end_on_what_ends_them(world: Path) -> None:
    """"sick for six hours" ends at the next rest; "panicked until torch is relit" is
    ended by The World; a scene's or a session's condition ends with it."""
    for name, ends in (("sick", "rest"), ("dazzled", "scene"), ("shaken", "session")):
        ok(world, "record", "condition-added", "--character", "isa", "--condition", name,
           "--check-penalty", "1", "--ends-on", ends)  # fmt: skip
    ok(world, "record", "condition-added", "--character", "isa", "--condition", "panicked",
       "--check-penalty", "1", "--ends-when", "until torch is relit")  # fmt: skip
    ok(world, "record", "hidden-condition-added", "--character", "isa", "--condition", "cursed",
       "--check-penalty", "1", "--ends-on", "scene")  # fmt: skip

    def names() -> list[str]:
        return [c["name"] for c in sheet(world)["conditions"]]

    assert names() == ["sick", "dazzled", "shaken", "panicked", "cursed"]
    ok(world, "record", "rested", "--character", "isa")
    assert names() == ["dazzled", "shaken", "panicked", "cursed"]
    ok(world, "scene", "end")
    assert names() == ["shaken", "panicked"]
    ok(world, "session", "end")
    assert names() == ["panicked"]
    assert "--ends-on" in refused(world, "record", "condition-added", "--character", "isa",
                                  "--condition", "x", "--ends-on", "dawn")  # fmt: skip


@freeze_time("2026-03-01 19:10:00", tick=True)
@pytest.mark.parametrize(("die", "band", "harm"), [(19, "good", 2), (12, "messy", 1), (2, "bad", 0)])
def test_an_attacks_weapon_damage_comes_from_the_item(
    world: Path, die: int, band: str, harm: int
) -> None:
    """Bram's Cudgel deals 2 ("Weapons": "Each weapon specifies the amount of damage it
    deals"). Isa hinders, so Bram makes a Brawl (+3) check with tools and skill: "On a good
    outcome, the full weapon damage is dealt. On a messy outcome, half the weapon damage is
    dealt. On a bad outcome, no damage is dealt at all" ("Attacking"; ≤ 8 bad, 9–17 messy,
    ≥ 18 good; half of 2 is 1). --apply records it on Isa in the same batch."""
    out = as_json(world, "roll", "bram", "brawl", "--tools", "--vs-character", "isa",
                  "--weapon", "cudgel", "--apply", "--dice", str(die))  # fmt: skip
    assert (out["vs_character"], out["weapon"], out["weapon_damage"]) == ("isa", "Cudgel", 2)
    assert (out["total"], out["outcome"]) == (die + 3, band)
    kinds = [(e["type"], e["stream"], e.get("amount")) for e in out["batch"]]
    assert kinds == [("contest.opposed", "isa", None)] + (
        [("d20-world.damage_taken", "isa", harm)] if harm else [])  # fmt: skip
    assert sum(w["damage"] for w in sheet(world)["wounds"]) == harm
    assert sheet(world)["shocks_owed"] == (1 if harm else 0)
    assert "OK" in ok(world, "verify").output


@freeze_time("2026-03-01 19:10:00", tick=True)
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--vs-character", "isa"), "names the weapon item it uses"),
        (("--vs-character", "isa", "--weapon", "Chalk and thread"), "not a weapon"),
        (("--vs-character", "isa", "--weapon", "sword"), "sword"),
        (("--weapon", "cudgel"), "name the target on the ledger"),
    ],
)
def test_an_attack_needs_a_weapon_with_damage(
    world: Path, args: tuple[str, ...], words: str
) -> None:
    output = refused(world, "roll", "bram", "brawl", "--tools", *args, "--dice", "12")
    assert words in output
