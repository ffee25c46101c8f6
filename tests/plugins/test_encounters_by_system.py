"""Encounters through each system's rules: initiative as the text says (a roll, or
the GM's order where the text is silent), actions counted where the text limits them, and
what lasts "a single action" or "until the end of the scene" ending by itself.

Each test quotes the passage it is built from and uses the text's own numbers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from freezegun import freeze_time

from ledger.testing import as_json, ok, refused

CAMPAIGNS = Path(__file__).resolve().parents[2] / "campaigns"


@pytest.fixture(autouse=True)
def _frozen():
    with freeze_time("2026-03-01 19:00:00", tick=True):
        yield


def campaign(tmp_path: Path, system: str, folder: str, *sheets: str, session: bool = True) -> Path:
    db = tmp_path / f"{folder}.db"
    ok(db, "new", folder, "--system", system)
    for stem in sheets:
        ok(
            db,
            "character",
            "add",
            "--sheet",
            str(CAMPAIGNS / folder / "characters" / f"{stem}.toml"),
        )
    if session:
        ok(db, "session", "start")
    return db


def view(db: Path, who: str = "gm") -> dict:
    return json.loads(ok(db, "--as", who, "encounter", "show", "--json").stdout)


def seats(db: Path) -> list[tuple[str, int | None, str]]:
    return [(s["name"], s["initiative"], s["how"]) for s in view(db)["order"]]


# --- wyrd-engine: "Initiative: Who Acts First?" ------------------------------------------------


def test_wyrd_engine_rolls_4df_plus_notice_highest_first(tmp_path: Path) -> None:
    """ "If multiple characters are competing to act first, roll 4dF + Notice (or another
    relevant skill). The highest roll acts first" (000_60e07241544698f0.txt). Julian's
    roll is the book's own "Spotting an Ambush": "4dF +2 (Notice) ... + - - [blank] +2
    (Notice). A total of +1"; Felix (Notice 0) rolls + + 0 0, a total of 2, and acts first.
    A thug without a sheet gets the number rolled at the table."""
    db = campaign(tmp_path, "wyrd-engine", "grand-casebook", "julian", "felix")
    ok(db, "encounter", "start", "julian", "felix", "--dice", "julian=+--0",
       "--dice", "felix=++00", "--foe", "Thug=0")  # fmt: skip
    assert seats(db) == [("Felix Cavendish", 2, "rolled"), ("Julian Hargrave", 1, "rolled"),
                         ("Thug", 0, "recorded")]  # fmt: skip
    rolls = [s["roll"] for s in view(db)["order"][:2]]
    log = {e["seq"]: e for e in as_json(db, "log", "--as", "gm")}
    julian = log[rolls[1]]["data"]
    assert (julian["mode"], julian["skill"], julian["total"]) == ("initiative", "Notice", 1)
    assert "OK" in ok(db, "verify").output  # the rolls are rolls: re-derived by verify


def test_wyrd_engine_ties_are_resolved_at_the_table_in_the_order_listed(tmp_path: Path) -> None:
    """ "The highest roll acts first, with ties resolved narratively": a tie keeps the order
    the GM listed (Julian 0 0 0 0 +2 = 2, Felix + + 0 0 +0 = 2)."""
    db = campaign(tmp_path, "wyrd-engine", "grand-casebook", "julian", "felix")
    ok(db, "encounter", "start", "julian", "felix", "--dice", "julian=0000", "--dice", "felix=++00")
    assert [n for n, _, _ in seats(db)] == ["Julian Hargrave", "Felix Cavendish"]


def test_wyrd_engine_ambush_or_readiness_is_the_gms_order(tmp_path: Path) -> None:
    """ "If one side is clearly ambushing the other, they act first. If no clear ambush is
    present, the GM determines turn order based on readiness": --gm-order, no rolls."""
    db = campaign(tmp_path, "wyrd-engine", "grand-casebook", "julian", "felix")
    ok(db, "encounter", "start", "felix", "julian", "--gm-order")
    assert seats(db) == [("Felix Cavendish", None, "gm"), ("Julian Hargrave", None, "gm")]
    assert not [e for e in as_json(db, "log", "--as", "gm") if e["type"].endswith("check_rolled")]


def test_wyrd_engine_a_foe_without_a_sheet_needs_the_number_rolled(tmp_path: Path) -> None:
    db = campaign(tmp_path, "wyrd-engine", "grand-casebook", "julian")
    words = refused(db, "encounter", "start", "julian", "--dice", "julian=0000", "--foe", "Thug")
    assert "Thug has no sheet to roll initiative from: give the roll made at the table" in words


def test_wyrd_engine_engine_initiative_needs_a_session_or_dice(tmp_path: Path) -> None:
    db = campaign(tmp_path, "wyrd-engine", "grand-casebook", "julian", session=False)
    assert "engine rolls need an open session" in refused(db, "encounter", "start", "julian")


def test_wyrd_engine_a_hidden_foes_initiative_roll_is_blind(tmp_path: Path) -> None:
    """A hidden NPC on the ledger rolls blind: players see neither the roll nor the NPC."""
    db = campaign(tmp_path, "wyrd-engine", "grand-casebook", "julian")
    ok(db, "npc", "add", "Lurker", "--skill", "Notice=1")
    ok(db, "encounter", "start", "julian", "lurker", "--hidden", "lurker")
    assert [s["name"] for s in view(db)["order"]] in (
        ["Julian Hargrave", "Lurker"], ["Lurker", "Julian Hargrave"])  # fmt: skip
    assert [s["name"] for s in view(db, "player")["order"]] == ["Julian Hargrave"]
    joined = as_json(db, "log", "--as", "gm")[-1]["seq"] - 3  # roll, roll, start, join, turn
    later = [e for e in as_json(db, "log", "--as", "player") if e["seq"] > joined]
    assert "lurker" not in json.dumps(later).lower()  # the NPC's roll and place: stubs only
    assert "GM-only entry" in ok(db, "--as", "player", "log").output


def test_wyrd_engine_a_boost_lasts_a_single_action(tmp_path: Path) -> None:
    """ "they gain a Boost that applies to their next relevant roll. Boosts typically last
    for a single action" ("Boosts: Optional Rule for Increasing Success"): a +1 Boost
    Julian held as his turn began lapses, unused, when it ends; undoing that turn brings
    it back; one spent on his roll (`roll --boost 1`) is simply spent."""
    db = campaign(tmp_path, "wyrd-engine", "grand-casebook", "julian", "felix")
    ok(db, "encounter", "start", "felix", "julian", "--gm-order")
    ok(db, "record", "boost-gained", "--character", "julian", "--value", "1",
       "--description", "high ground")  # fmt: skip
    ok(db, "encounter", "next")  # Julian's turn begins, the boost held
    ok(db, "record", "boost-gained", "--character", "julian", "--value", "2",
       "--description", "created on this turn")  # fmt: skip
    out = ok(db, "encounter", "next").output  # his turn ends
    assert "a +1 boost lapses unused (it lasts a single action)" in out

    def boosts() -> list[int]:
        return [b["value"] for b in as_json(db, "sheet", "julian", "--as", "gm")["boosts"]]

    assert boosts() == [2]  # the one his turn's action created lasts to his next
    ok(db, "undo", "--yes", "--reason", "not yet")
    assert boosts() == [1, 2]
    assert "OK" in ok(db, "verify").output
    ok(db, "roll", "julian", "notice", "--dr", "fair", "--boost", "1", "--dice", "+--0")
    assert "lapses" not in ok(db, "encounter", "next").output  # spent, nothing lapses
    ok(db, "encounter", "next")  # Felix, then Julian again, holding the +2
    out = ok(db, "encounter", "end").output
    assert boosts() == []  # the +2 he held as this turn began lapsed at the end
    assert "a +2 boost lapses unused" in out


# --- d20-world: "Time" -------------------------------------------------------------------------


def test_d20_world_three_actions_a_round_and_a_fourth_refused(tmp_path: Path) -> None:
    """ "Each round, each character has three actions. ... drinking a potion stored within
    a bag would cost two actions" (001_a3a02f9b7363775f.txt, "Time"): Isa takes the jar of
    lamp oil from her bag (2 actions, recorded on the item's move), draws her picks (1):
    a fourth is refused, and the next round gives her three again."""
    db = campaign(tmp_path, "d20-world", "the-world", "isa", "bram", session=False)
    ok(db, "encounter", "start", "isa", "bram", "--foe", "Warden")
    ok(db, "record", "item-moved", "--character", "isa", "--item", "Lockpicks", "--to", "bag")
    ok(db, "record", "item-moved", "--character", "isa", "--item", "Jar of lamp oil",
       "--to", "carried", "--actions", "2")  # fmt: skip
    ok(db, "encounter", "act", "isa", "--what", "throws the oil")
    assert [s["actions"] for s in view(db)["order"]] == [3, 0, None]
    words = refused(db, "encounter", "act", "isa")
    assert words.strip() == (
        "Error: Isa Marrow has used 3 of 3 actions this round: `campaign encounter next` "
        "moves to the next turn"
    )
    assert "has used 3 of 3 actions" in refused(
        db, "record", "item-moved", "--character", "isa", "--item", "Jar of lamp oil",
        "--to", "bag", "--actions", "1")  # fmt: skip
    ok(db, "encounter", "act", "bram", "2")
    assert "Bram Holloway has 1 of 3 actions left this round, not 2" in refused(
        db, "encounter", "act", "bram", "2"
    )
    for _ in range(3):
        ok(db, "encounter", "next")
    assert (view(db)["round"], [s["actions"] for s in view(db)["order"]]) == (2, [0, 0, None])
    ok(db, "encounter", "act", "isa", "3")


def test_d20_world_undoing_an_action_gives_it_back(tmp_path: Path) -> None:
    db = campaign(tmp_path, "d20-world", "the-world", "isa", session=False)
    ok(db, "encounter", "start", "isa")
    ok(db, "encounter", "act", "isa", "3")
    ok(db, "undo", "--yes", "--reason", "she waited")
    assert view(db)["order"][0]["actions"] == 0
    ok(db, "encounter", "act", "isa", "3")


def test_d20_world_actions_outside_an_encounter_are_not_counted(tmp_path: Path) -> None:
    """Outside an encounter there are no rounds: four actions in a row (two moves of two)
    are recorded, none refused, and an encounter started after them begins with Isa's
    three actions all hers."""
    db = campaign(tmp_path, "d20-world", "the-world", "isa", session=False)
    ok(db, "record", "item-moved", "--character", "isa", "--item", "Lockpicks", "--to", "bag",
       "--actions", "2")  # fmt: skip
    ok(db, "record", "item-moved", "--character", "isa", "--item", "Lockpicks", "--to",
       "carried", "--actions", "2")  # fmt: skip
    moves = [
        e["data"] for e in as_json(db, "log", "--as", "gm") if e["type"].endswith("item_moved")
    ]
    assert [(m["to"], m["actions"]) for m in moves] == [("bag", 2), ("carried", 2)]
    items = {i["name"]: i for i in as_json(db, "sheet", "isa", "--as", "gm")["items"]}
    assert items["Lockpicks"]["location"] == "carried"
    assert json.loads(ok(db, "encounter", "show", "--json").stdout) is None
    ok(db, "encounter", "start", "isa")
    assert [(s["actions"], view(db)["actions_per_round"]) for s in view(db)["order"]] == [(0, 3)]
    ok(db, "encounter", "act", "isa", "3")  # all three are hers


def test_d20_world_order_is_the_worlds(tmp_path: Path) -> None:
    """ "The World is responsible for making sure each player has had chances to spend
    their actions before proceeding to the next round. Actions are not required to be taken
    in any particular order": no initiative roll, The World's order as listed."""
    db = campaign(tmp_path, "d20-world", "the-world", "isa", "bram", session=False)
    ok(db, "encounter", "start", "bram", "isa")
    assert seats(db) == [("Bram Holloway", None, "gm"), ("Isa Marrow", None, "gm")]


# --- the texts that are silent on initiative: the GM's order -----------------------------------


@pytest.mark.parametrize(
    ("system", "folder", "sheets"),
    [
        ("spellwoven", "nimble-jen", ("jen", "housewife")),
        ("decision-dice", "the-salt-road", ("jen", "oskar")),
        ("terran-engine", "the-drowned-marches", ("bo", "kit")),
    ],
)
def test_silent_texts_take_the_gms_order_and_count_no_actions(
    tmp_path: Path, system: str, folder: str, sheets: tuple[str, ...]
) -> None:
    """Spellwoven, Decision Dice and Terran Engine say nothing of initiative or of actions
    a round (docs/rulings): the order is the GM's, as listed, and nothing is counted."""
    db = campaign(tmp_path, system, folder, *sheets, session=False)
    ok(db, "encounter", "start", *reversed(sheets))
    out = view(db)
    assert [s["how"] for s in out["order"]] == ["gm", "gm"]
    assert out["actions_per_round"] is None
    ok(db, "encounter", "act", sheets[0], "5")  # recorded, never refused
    ok(db, "encounter", "act", sheets[0], "5")
    after = view(db)
    assert [s["actions"] for s in after["order"]] == [None, None]  # nothing counted
    assert after["actions_per_round"] is None and after["round"] == out["round"]
    acts = [e for e in as_json(db, "log", "--as", "gm") if e["type"] == "encounter.action"]
    assert len(acts) == 2  # both on the ledger, no limit met


def test_terran_engine_rally_lasts_until_the_end_of_the_scene(tmp_path: Path) -> None:
    """ "Rally: When you rally your allies, a number equal to the number of Dark Dice rolled
    get +1d until the end of the scene" (003_2aeb47bc6ca82a40.txt, "1.4"): `scene end`
    ends it by itself, and undoing the scene's end brings it back."""
    db = campaign(tmp_path, "terran-engine", "the-drowned-marches", "bo", "kit", session=False)
    ok(db, "scene", "start", "The drowned chapel")
    ok(db, "record", "rallied", "--character", "kit")
    assert as_json(db, "sheet", "kit", "--as", "gm")["rallied"] is True
    ok(db, "scene", "end")
    assert as_json(db, "sheet", "kit", "--as", "gm")["rallied"] is False
    ok(db, "undo", "--yes", "--reason", "the scene goes on")
    assert as_json(db, "sheet", "kit", "--as", "gm")["rallied"] is True


def test_systems_says_how_each_text_sets_initiative(tmp_path: Path) -> None:
    wyrd = ok(tmp_path / "x.db", "systems", "wyrd-engine").output
    assert "roll 4dF + Notice (or another relevant skill)" in wyrd
    d20 = as_json(tmp_path / "x.db", "systems", "d20-world")
    assert (d20["initiative"], d20["actions_per_round"]) == (None, 3)
    assert (
        "the text gives none; the GM's order"
        in ok(tmp_path / "x.db", "systems", "spellwoven").output
    )
