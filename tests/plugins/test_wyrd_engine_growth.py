"""The Wyrd Engine: growth after creation as events (rulings W-15, W-16, W-17).

The book's own gear and traits (000_60e07241544698f0.txt): "Mastercrafted Rapier – +2 to
Fight in one-on-one duels" and "Hidden Derringer – Once per scene, draw a concealed firearm
unnoticed" ("Example Gear"), "Master Duelist – Gain +2 to Fight when using a rapier or
fencing techniques" ("Example Traits"); Felix Cavendish's sheet ("Example Character").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from freezegun import freeze_time

from ledger.testing import as_json, ok, refused

CAMPAIGN = Path(__file__).resolve().parents[2] / "campaigns" / "grand-casebook"
RAPIER = ("--name", "Mastercrafted Rapier", "--kind", "bonus", "--skill", "Fight",
          "--when", "in one-on-one duels")


def names(db: Path, who: str, key: str) -> list[str]:
    return [t["name"] for t in as_json(db, "sheet", who)[key]]


@pytest.fixture
def casebook(tmp_path: Path) -> Path:
    db = tmp_path / "casebook.db"
    with freeze_time("2026-03-01 19:00:00", tick=True):
        ok(db, "new", "casebook", "--system", "wyrd-engine")
        ok(db, "character", "add", "--sheet", str(CAMPAIGN / "characters" / "felix.toml"))
        ok(db, "npc", "add", "Thug", "--skill", "Fight=1", "--skill", "Athletics=1")
        ok(db, "session", "start")
    return db


@freeze_time("2026-03-01 19:05:00", tick=True)
def test_gear_gained_in_play_is_invoked_like_any_gear(casebook: Path) -> None:
    # Felix's Fight is Average (+0): [0 0 0 0] + 0 + 2 (the rapier) = 2 against Fair (+1)
    ok(casebook, "record", "gear-gained", "--character", "felix", *RAPIER,
       "--reason", "won at cards")
    assert names(casebook, "felix", "gear")[-1] == "Mastercrafted Rapier"
    out = as_json(casebook, "roll", "felix", "fight", "--dr", "fair", "--trait",
                  "Mastercrafted Rapier", "--dice", "0000")
    assert (out["trait_bonus"], out["total"], out["outcome"]) == (2, 2, "success")
    log = ok(casebook, "log", "--character", "felix").output
    assert ("gains gear Mastercrafted Rapier – +2 to Fight in one-on-one duels (won at cards)"
            in log)
    assert "Mastercrafted Rapier" in ok(casebook, "sheet", "felix").output
    recap = ok(casebook, "recap", "--session", "1").output
    assert "Gains gear Mastercrafted Rapier" in recap
    assert ok(casebook, "verify").exit_code == 0


@freeze_time("2026-03-01 19:05:00", tick=True)
def test_an_ability_gear_is_once_per_scene(casebook: Path) -> None:
    ok(casebook, "record", "gear-gained", "--character", "felix", "--name", "Hidden Derringer",
       "--kind", "ability", "--once-per", "scene",
       "--text", "Once per scene, draw a concealed firearm unnoticed.")
    ok(casebook, "record", "trait-ability-used", "--character", "felix", "--trait",
       "Hidden Derringer")
    out = refused(casebook, "record", "trait-ability-used", "--character", "felix", "--trait",
                  "Hidden Derringer")
    assert "Hidden Derringer" in out


@freeze_time("2026-03-01 19:05:00", tick=True)
def test_gear_lost_is_gone_and_losing_what_is_not_held_is_refused(casebook: Path) -> None:
    ok(casebook, "record", "gear-gained", "--character", "felix", *RAPIER)
    ok(casebook, "record", "gear-lost", "--character", "felix", "--gear",
       "mastercrafted rapier", "--reason", "snapped in the duel")
    assert "Mastercrafted Rapier" not in names(casebook, "felix", "gear")
    out = refused(casebook, "roll", "felix", "fight", "--dr", "fair", "--trait",
                  "Mastercrafted Rapier", "--dice", "0000")
    assert "Mastercrafted Rapier" in out
    out = refused(casebook, "record", "gear-lost", "--character", "felix", "--gear",
                  "Mastercrafted Rapier")
    assert "holds no gear called 'Mastercrafted Rapier'" in out
    assert "Clockwork Grappling Hook" in out  # what he does hold
    assert "loses the gear mastercrafted rapier (snapped in the duel)" in ok(
        casebook, "log", "--character", "felix").output


@freeze_time("2026-03-01 19:05:00", tick=True)
@pytest.mark.parametrize("args, message", [
    (("--name", "Clockwork Grappling Hook", "--kind", "permission"), "already has"),
    (("--name", "Master Tinkerer", "--kind", "permission"), "already has"),
    (("--name", "Rapier", "--kind", "bonus"), "name the skill it gives +2 to"),
    (("--name", "Derringer", "--kind", "ability"), "once_per"),
])
def test_new_gear_follows_the_sheet_rules(casebook: Path, args: tuple[str, ...],
                                          message: str) -> None:
    assert message in refused(casebook, "record", "gear-gained", "--character", "felix", *args)


@freeze_time("2026-03-01 19:05:00", tick=True)
def test_a_player_character_keeps_exactly_three_traits(casebook: Path) -> None:
    # "Each player character has exactly three Traits" ("Traits")
    out = refused(casebook, "record", "trait-gained", "--character", "felix", "--name",
                  "Master Duelist", "--kind", "bonus", "--skill", "Fight")
    assert "exactly 3 Traits" in out
    out = refused(casebook, "record", "trait-lost", "--character", "felix", "--trait",
                  "Master Tinkerer")
    assert "exactly 3 Traits" in out
    assert len(names(casebook, "felix", "traits")) == 3


@freeze_time("2026-03-01 19:05:00", tick=True)
def test_a_non_player_character_gains_and_loses_traits(casebook: Path) -> None:
    # "Non-player characters and monsters can have fewer or far more traits": the thug's
    # Fight +1 with "Master Duelist" (+2): [0 0 0 0] + 1 + 2 = 3 against Good (+2)
    ok(casebook, "record", "trait-gained", "--character", "thug", "--name", "Master Duelist",
       "--kind", "bonus", "--skill", "Fight", "--when", "using a rapier or fencing techniques")
    out = as_json(casebook, "roll", "thug", "fight", "--dr", "good", "--trait",
                  "Master Duelist", "--dice", "0000")
    assert (out["total"], out["outcome"]) == (3, "success")
    assert "gains the Trait Master Duelist – +2 to Fight using a rapier" in ok(
        casebook, "log", "--character", "thug").output
    ok(casebook, "record", "trait-lost", "--character", "thug", "--trait", "Master Duelist")
    assert names(casebook, "thug", "traits") == []
    out = refused(casebook, "record", "trait-lost", "--character", "thug", "--trait",
                  "Master Duelist")
    assert "has no Trait called 'Master Duelist'" in out
    assert ok(casebook, "verify").exit_code == 0


@freeze_time("2026-03-01 19:05:00", tick=True)
def test_retracting_gear_gained_keeps_the_sheet_in_sync(casebook: Path) -> None:
    gained = as_json(casebook, "record", "gear-gained", "--character", "felix", *RAPIER)["seq"]
    ok(casebook, "correct", str(gained), "--reason", "he lost the card game after all")
    assert "Mastercrafted Rapier" not in names(casebook, "felix", "gear")
    assert ok(casebook, "verify").exit_code == 0
    # a roll that invoked it keeps the gear from being retracted in silence
    again = as_json(casebook, "record", "gear-gained", "--character", "felix", *RAPIER)["seq"]
    as_json(casebook, "roll", "felix", "fight", "--dr", "fair", "--trait",
            "Mastercrafted Rapier", "--dice", "0000")
    out = refused(casebook, "correct", str(again), "--reason", "x")
    assert "would break 1 event" in out and "no trait or gear called 'Mastercrafted Rapier'" in out
