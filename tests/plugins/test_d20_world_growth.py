"""d20 The World: growth after creation is an event, not a retcon.

Seed 001_a3a02f9b7363775f.txt: "Traits describe a character's nature, such as physical
features, personality, culture, or even the lasting corruption of magic" ("Traits"); "Each
bond has favor ... Favor and any changes to it are tracked by The World and is not public
knowledge" ("Bonds"); rulings R39–R42 in docs/rulings/d20-world.md. Isa Marrow and Bram
Holloway are the sheets of campaigns/the-world (Isa: Wiry, Stubborn, Hears the dead;
Lockpicking +3; bonds the Guild, Old Maren, Captain Voss. Bram knows the spell Mending +2).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from freezegun import freeze_time

from ledger.testing import as_json, ok, refused

CAMPAIGN = Path(__file__).resolve().parents[2] / "campaigns" / "the-world"


def sheet(db: Path, who: str = "isa", as_: str = "gm") -> dict[str, Any]:
    return as_json(db, "sheet", who, "--as", as_)


def traits(db: Path, who: str = "isa") -> list[tuple[str, str]]:
    return [(t["name"], t["kind"]) for t in sheet(db, who)["traits"]]


def seq_of(result: Result) -> int:
    return int(result.output.split("]", 1)[0].strip("["))


START = [("Wiry", "body"), ("Stubborn", "personality"), ("Hears the dead", "free")]


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_a_trait_gained_in_play_helps_like_a_starting_one(world: Path) -> None:
    """A fourth trait (the three are a creation rule) is ready to help: invoked on a
    Lockpicking (+3) check with time and skill (a check), the check has advantage, d20
    [7, 15] keeps 15: 15 + 3 = 18, good ("Traits": "If the trait was invoked to help, they gain advantage")."""
    out = ok(world, "record", "trait-gained", "--character", "isa", "--trait", "Scarred",
             "--kind", "body", "--reason", "the bite in the crypt")  # fmt: skip
    assert "New trait Scarred (body)" in out.output
    assert traits(world) == [*START, ("Scarred", "body")]
    check = as_json(world, "roll", "isa", "Lockpicking", "--time", "--trait", "Scarred:help",
                    "--dice", "7,15")  # fmt: skip
    assert (check["mode"], check["kept"], check["total"], check["outcome"]) == \
        ("advantage", 15, 18, "good")  # fmt: skip
    assert sheet(world)["traits"][3]["can_help"] is False
    output = refused(world, "correct", "5", "--reason", "never scarred")
    assert str(check["seq"]) in output  # the check that invoked it would break
    log = ok(world, "log", "--as", "player").output
    assert "gains the body trait 'Scarred' (the bite in the crypt)" in log


@freeze_time("2026-03-01 19:10:00", tick=True)
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("trait-gained", "--trait", "wiry", "--kind", "body"), "already has the trait 'Wiry'"),
        (("trait-gained", "--trait", "Scarred", "--kind", "scar"), "--kind"),
        (("trait-gained", "--trait", " ", "--kind", "body"), "name the trait"),
        (("trait-lost", "--trait", "Brave"), "no trait called 'Brave'"),
        (("bond-formed", "--bond", "Isa Marrow", "--kind", "friend"), "bond with themself"),
        (("bond-formed", "--bond", "isa", "--kind", "rival"), "bond with themself"),
        (("bond-formed", "--bond", "the guild", "--kind", "faction"), "already has a bond"),
        (("bond-formed", "--bond", "the Lamplighters", "--kind", "patron"), "--kind"),
        (("corruption-marked", "--trait", "Ashen fingers", "--spell", "Sing"),
         "not a spell Isa Marrow knows"),
        (("corruption-marked", "--trait", "Stubborn"), "already has the trait"),
    ],
)
def test_growth_the_rules_refuse(world: Path, args: tuple[str, ...], words: str) -> None:
    output = refused(world, "record", args[0], "--character", "isa", *args[1:])
    assert words in output


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_a_lost_trait_can_no_longer_be_invoked(world: Path) -> None:
    ok(world, "record", "trait-lost", "--character", "isa", "--trait", "stubborn",
       "--reason", "she learned to bend")  # fmt: skip
    assert traits(world) == [("Wiry", "body"), ("Hears the dead", "free")]
    output = refused(world, "roll", "isa", "Lockpicking", "--time", "--trait",
                     "Stubborn:hinder", "--dice", "7,15")  # fmt: skip
    assert "no trait called 'Stubborn'" in output


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_the_lasting_corruption_of_magic_is_a_trait(world: Path) -> None:
    """Bram casts Mending (+2, a spell): d20 10 + 2 = 12, messy, a miscast ("If the result
    is messy or bad, the spell is miscast") and one jinx. The World marks a lasting
    corruption from it; it hinders like a trait (disadvantage, +2 experience) and is lost
    only with a reason."""
    cast = as_json(world, "roll", "bram", "Mending", "--time", "--spell", "--dice", "10")
    assert (cast["total"], cast["outcome"], cast["miscast"]) == (12, "messy", True)
    out = ok(world, "record", "corruption-marked", "--character", "bram", "--trait",
             "Ashen fingers", "--spell", "mending")  # fmt: skip
    assert "Marked by the lasting corruption of magic from Mending: trait Ashen fingers" \
        in out.output  # fmt: skip
    ash = sheet(world, "bram")["traits"][3]
    assert (ash["name"], ash["kind"], ash["spell"]) == ("Ashen fingers", "corruption", "Mending")
    text = ok(world, "sheet", "bram", "--as", "player").output
    assert "corruption of magic" in text and "lasting from Mending" in text
    check = as_json(world, "roll", "bram", "Brawl", "--time", "--help-from", "isa",
                    "--trait", "Ashen fingers:hinder", "--dice", "12")  # fmt: skip
    # advantage (help) and disadvantage (hinder) cancel (R3): one die, 12 + 3 = 15 messy,
    # 1 + 2 (hinder) experience
    assert (check["mode"], check["total"], check["outcome"], check["experience"]) == \
        ("normal", 15, "messy", 3)  # fmt: skip
    assert "say what lifts it" in refused(world, "record", "trait-lost", "--character", "bram",
                                          "--trait", "Ashen fingers")  # fmt: skip
    out = ok(world, "record", "trait-lost", "--character", "bram", "--trait", "Ashen fingers",
             "--reason", "the Lantern Circle's rite")  # fmt: skip
    assert "No longer Ashen fingers (its corruption lifted)" in out.output
    assert "OK" in ok(world, "verify").output


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_a_new_bonds_favour_is_the_worlds(world: Path) -> None:
    """A new bond starts at +1 (faction, mentor, friend) or −1 (rival, enemy) as at
    creation (R11); The World moves it with the GM-only favour-changed; players see the
    bond, never its favor ("Favor and any changes to it are tracked by The World and is not
    public knowledge")."""
    out = ok(world, "record", "bond-formed", "--character", "isa", "--bond", "the Lamplighters",
             "--kind", "faction")  # fmt: skip
    assert "New bond: the Lamplighters (faction)" in out.output and "favor" not in out.output
    ok(world, "record", "bond-formed", "--character", "isa", "--bond", "Sister Ash",
       "--kind", "enemy")  # fmt: skip
    ok(world, "record", "favour-changed", "--character", "isa", "--bond", "Sister Ash",
       "--delta", "-2", "--reason", "Qzsecret grudge")  # fmt: skip
    gm = {b["name"]: b["favor"] for b in sheet(world)["bonds"]}
    assert (gm["the Lamplighters"], gm["Sister Ash"], gm["the Guild"]) == (1, -3, 1)
    player = sheet(world, as_="player")
    assert [b["name"] for b in player["bonds"]][3:] == ["the Lamplighters", "Sister Ash"]
    assert all("favor" not in b for b in player["bonds"])
    seen = json.dumps(as_json(world, "log", "--as", "player")) + json.dumps(player) + \
        ok(world, "log", "--as", "player").output + \
        ok(world, "sheet", "isa", "--as", "player").output  # fmt: skip
    assert "Sister Ash" in seen
    for secret in ("Qzsecret", "favor", "−3", "-3"):
        assert secret not in seen
    assert "favor −3 (hostile) [GM]" in ok(world, "sheet", "isa", "--as", "gm").output
    recap = ok(world, "recap", "--session", "1", "--as", "gm").output
    assert "**[GM]** New bond: the Lamplighters (faction, favor +1)" in recap
    recap = ok(world, "recap", "--session", "1", "--as", "player").output
    assert "New bond: Sister Ash (enemy)" in recap
    assert "Qzsecret" not in recap and "favor" not in recap
    ok(world, "record", "bond-called", "--character", "isa", "--bond", "the lamplighters")


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_growth_verifies_and_a_retraction_puts_the_sheet_back(world: Path) -> None:
    gained = seq_of(ok(world, "record", "trait-gained", "--character", "isa", "--trait",
                       "Scarred", "--kind", "body"))  # fmt: skip
    formed = seq_of(ok(world, "record", "bond-formed", "--character", "isa", "--bond",
                       "the Lamplighters", "--kind", "friend"))  # fmt: skip
    ok(world, "record", "favour-changed", "--character", "isa", "--bond", "the Lamplighters",
       "--delta", "1")  # fmt: skip
    marked = seq_of(ok(world, "record", "corruption-marked", "--character", "bram", "--trait",
                       "Ashen fingers"))  # fmt: skip
    lost = seq_of(ok(world, "record", "trait-lost", "--character", "isa", "--trait", "Wiry"))
    assert "OK" in ok(world, "verify").output
    ok(world, "audit", str(lost))  # exit 0: the log verifies up to it

    ok(world, "correct", str(lost), "--reason", "she kept it after all")
    ok(world, "correct", str(gained), "--reason", "typed on the wrong sheet")
    assert traits(world) == START
    # the bond's favour change depends on the bond: retracting it alone is refused, named
    output = refused(world, "correct", str(formed), "--reason", "never met them")
    assert "the Lamplighters" in output
    ok(world, "correct", str(formed + 1), "--reason", "never met them")
    ok(world, "correct", str(formed), "--reason", "never met them")
    assert [b["name"] for b in sheet(world)["bonds"]] == ["the Guild", "Old Maren",
                                                          "Captain Voss"]  # fmt: skip
    ok(world, "correct", str(marked), "--reason", "not yet")
    assert [t["name"] for t in sheet(world, "bram")["traits"]] == \
        ["Broad-shouldered", "Curious", "Moth-marked"]  # fmt: skip
    assert "OK" in ok(world, "verify").output
