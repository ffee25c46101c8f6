"""`campaign encounter start|next|act|end|show`: the turn order, the round and whose
turn it is, kept on the campaign stream; refusals are one line with nothing written; undo
takes an encounter's events back; a hidden participant never reaches a player.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from freezegun import freeze_time

from ledger.testing import as_json, ok, refused
from ledger.testing import run_cli as run

CAMPAIGNS = Path(__file__).resolve().parents[1] / "campaigns"


@pytest.fixture
def casebook(tmp_path: Path) -> Path:
    """A wyrd-engine campaign: Julian (Notice Good, +2), Felix (Notice 0), a session open."""
    db = tmp_path / "casebook.db"
    with freeze_time("2026-03-01 19:00:00", tick=True):
        ok(db, "new", "casebook", "--system", "wyrd-engine")
        for stem in ("julian", "felix"):
            ok(db, "character", "add", "--sheet",
               str(CAMPAIGNS / "grand-casebook" / "characters" / f"{stem}.toml"))  # fmt: skip
        ok(db, "session", "start")
    return db


@pytest.fixture
def roads(tmp_path: Path) -> Path:
    """A decision-dice campaign (the text gives no initiative: the GM's order)."""
    db = tmp_path / "roads.db"
    with freeze_time("2026-03-01 19:00:00", tick=True):
        ok(db, "new", "roads", "--system", "decision-dice")
        for stem in ("jen", "oskar"):
            ok(db, "character", "add", "--sheet",
               str(CAMPAIGNS / "the-salt-road" / "characters" / f"{stem}.toml"))  # fmt: skip
    return db


def view(db: Path, who: str = "gm") -> dict:
    return json.loads(ok(db, "--as", who, "encounter", "show", "--json").stdout)


def order(db: Path, who: str = "gm") -> list[tuple[str, bool]]:
    return [(s["name"], s["current"]) for s in view(db, who)["order"]]


@freeze_time("2026-03-01 20:00:00", tick=True)
def test_gm_order_as_listed_and_next_moves_round_by_round(roads: Path) -> None:
    """Where the text is silent the order is the GM's, as listed; `next` goes down it and
    starts round 2 after the last."""
    ok(roads, "encounter", "start", "oskar", "jen", "--foe", "Raider")
    out = view(roads)
    assert [(s["name"], s["how"], s["initiative"]) for s in out["order"]] == [
        ("Brother Oskar", "gm", None), ("Nimble Jen", "gm", None), ("Raider", "gm", None)]  # fmt: skip
    assert (out["round"], out["current"]) == (1, "Brother Oskar")
    ok(roads, "encounter", "next")
    assert order(roads) == [("Brother Oskar", False), ("Nimble Jen", True), ("Raider", False)]
    ok(roads, "encounter", "next")
    ok(roads, "encounter", "next")
    assert (view(roads)["round"], view(roads)["current"]) == (2, "Brother Oskar")
    ok(roads, "encounter", "end")
    assert view(roads) is None  # --json: null when none runs


@freeze_time("2026-03-01 20:00:00", tick=True)
def test_recorded_numbers_sort_highest_first_ties_as_listed(roads: Path) -> None:
    ok(roads, "encounter", "start", "jen=2", "oskar=5", "--foe", "Raider=2")
    assert [(s["name"], s["initiative"], s["how"]) for s in view(roads)["order"]] == [
        ("Brother Oskar", 5, "recorded"), ("Nimble Jen", 2, "recorded"), ("Raider", 2, "recorded")]  # fmt: skip


@freeze_time("2026-03-01 20:00:00", tick=True)
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (
            ["encounter", "next"],
            "no encounter is running: start one with `campaign encounter start",
        ),
        (["encounter", "end"], "no encounter is running"),
        (["encounter", "act", "jen"], "no encounter is running"),
        (["encounter", "show"], "no encounter is running"),
        (["encounter", "start", "jne"], "no character 'jne' in roads; did you mean 'jen'?"),
        (["encounter", "start"], "name the participants"),
        (["encounter", "start", "jen", "jen"], "listed twice"),
        (["encounter", "start", "jen=3", "oskar"], "Oskar has no initiative: give every participant one"),
        (["encounter", "start", "jen", "--hidden", "thug"], "the hidden 'thug' is not a participant: list them too (--hidden)"),
        (["encounter", "start", "jen=1", "--gm-order"], "the GM's order takes the order as listed: leave out the numbers (--gm-order)"),
        (["encounter", "start", "jen", "--dice", "jen=3"], "they roll no initiative here"),
        (["encounter", "start", "jen", "--title", "a\x1b[2Jb"], "invisible character"),
    ],
)
def test_refusals_are_one_line_and_write_nothing(roads: Path, args: list[str], words: str) -> None:
    assert words in refused(roads, *args)


@freeze_time("2026-03-01 20:00:00", tick=True)
def test_one_encounter_at_a_time(roads: Path) -> None:
    ok(roads, "encounter", "start", "jen", "oskar")
    assert "an encounter is already running (event" in refused(roads, "encounter", "start", "jen")
    assert "`campaign encounter end` ends it first" in refused(roads, "encounter", "start", "jen")


@freeze_time("2026-03-01 20:00:00", tick=True)
def test_undo_takes_back_a_turn_then_the_whole_start(roads: Path) -> None:
    """`undo` retracts the last turn; then the start with its first turn; the log verifies."""
    ok(roads, "encounter", "start", "jen", "oskar")
    ok(roads, "encounter", "next")
    ok(roads, "undo", "--yes", "--reason", "too soon")
    assert view(roads)["current"] == "Nimble Jen"
    ok(roads, "undo", "--yes", "--reason", "no fight after all")
    assert view(roads) is None
    assert "OK" in ok(roads, "verify").output
    ok(roads, "encounter", "start", "oskar", "jen")  # a new one may start
    assert view(roads)["current"] == "Brother Oskar"


@freeze_time("2026-03-01 20:00:00", tick=True)
def test_the_first_turn_and_a_hidden_join_are_corrected_only_with_their_start(roads: Path) -> None:
    ok(roads, "encounter", "start", "jen", "--foe", "Lurker", "--hidden", "lurker")
    log = as_json(roads, "log", "--as", "gm")
    first = [e for e in log if e["type"] in ("encounter.turn", "encounter.hidden_turn")][-1]
    started = [e for e in log if e["type"] == "encounter.started"][-1]
    words = refused(roads, "correct", str(first["seq"]), "--reason", "x")
    assert f"correct event {started['seq']} instead" in words
    assert "cannot be amended" in refused(
        roads, "correct", str(started["seq"]), "--set", "title=x", "--reason", "x"
    )


def test_append_refuses_a_turn_out_of_order_and_a_start_not_as_written(roads: Path) -> None:
    """Nothing writes a turn but `next`, nor a start but `encounter start`: the one writer's
    check refuses a turn naming the wrong participant, a second start, a lone hidden join."""
    from ledger import RuleError
    from ledger.campaign.aggregate import open_campaign
    from ledger.events import EncounterHiddenJoined, EncounterStarted, EncounterTurn, Participant
    from ledger.store.opening import open_store

    with freeze_time("2026-03-01 20:00:00", tick=True):
        ok(roads, "encounter", "start", "jen", "oskar")
    campaign = open_campaign(open_store(str(roads)))
    seq = view(roads)["seq"]
    at = "2026-03-01T20:05:00.000000Z"
    with pytest.raises(RuleError, match="the next turn is Brother Oskar's \\(round 1\\)"):
        campaign.append(
            [EncounterTurn(encounter=seq, round=1, turn="Nimble Jen")], actor="gm", at=at
        )
    with pytest.raises(RuleError, match="already running"):
        campaign.append([EncounterStarted(participants=[Participant(name="X")])], actor="gm", at=at)
    lone = EncounterHiddenJoined(encounter=seq, participant=Participant(name="X"), position=0)
    with pytest.raises(RuleError, match="written by `campaign encounter start`"):
        campaign.append([lone], actor="gm", at=at)
    with pytest.raises(RuleError, match="belongs to encounter 1"):
        campaign.append(
            [EncounterTurn(encounter=1, round=1, turn="Brother Oskar")], actor="gm", at=at
        )


@freeze_time("2026-03-01 20:00:00", tick=True)
def test_a_hidden_foe_never_reaches_a_player(roads: Path) -> None:
    """A foe only the GM knows of (a player's view never holds a GM fact): the GM's view has
    them and their turn; a player's view, log and export hold neither name nor place."""
    ok(roads, "encounter", "start", "jen", "--foe", "Lurker in the Reeds", "--foe", "Raider",
       "--hidden", "Lurker in the Reeds", "--title", "Reeds")  # fmt: skip
    assert order(roads) == [("Nimble Jen", True), ("Lurker in the Reeds", False), ("Raider", False)]
    ok(roads, "encounter", "next")
    assert view(roads)["current"] == "Lurker in the Reeds"
    assert [s["hidden"] for s in view(roads)["order"]] == [False, True, False]
    # the player's view: no lurker; the current turn stays the last one they could see
    assert order(roads, "player") == [("Nimble Jen", True), ("Raider", False)]
    ok(roads, "encounter", "next")
    assert order(roads, "player") == [("Nimble Jen", False), ("Raider", True)]
    for args in (["encounter", "show"], ["log"], ["export"], ["recap", "--session", "0"]):
        out = run(roads, "--as", "player", *args).output
        assert "Lurker" not in out, args
    assert "Lurker" in ok(roads, "--as", "gm", "encounter", "show").output
    assert "[GM] hidden" in ok(roads, "--as", "gm", "encounter", "show").output


def test_encounter_view_is_a_pure_answer_for_pages(roads: Path) -> None:
    from ledger.campaign.aggregate import open_campaign
    from ledger.campaign.encounters import encounter_view
    from ledger.store.opening import open_store

    with freeze_time("2026-03-01 20:00:00", tick=True):
        ok(roads, "encounter", "start", "jen", "--foe", "Lurker", "--hidden", "Lurker")
    store = open_store(str(roads))
    campaign = open_campaign(store)
    head = store.head(campaign.id).seq
    gm = encounter_view(campaign, True)
    player = encounter_view(campaign, False)
    assert store.head(campaign.id).seq == head  # nothing written
    assert gm is not None and player is not None
    assert [s["name"] for s in gm["order"]] == ["Nimble Jen", "Lurker"]
    assert [s["name"] for s in player["order"]] == ["Nimble Jen"]
    assert (gm["round"], gm["current"], player["current"]) == (1, "Nimble Jen", "Nimble Jen")
    assert "Lurker" not in json.dumps(player)


@freeze_time("2026-03-01 20:00:00", tick=True)
def test_the_table_shell_shows_the_order_with_the_current_turn_after_each_entry(
    roads: Path,
) -> None:
    """`campaign play`: while an encounter runs, each entry ends with the turn order, the
    current turn marked; a player's view (`--as player`) of it has no hidden foe."""
    entries = "\n".join(
        [
            'note "before any encounter"',
            "encounter start jen oskar --foe Lurker --hidden Lurker",
            'note "the reeds rustle"',
            "encounter next",
            "encounter next",
            '--as player note "a player looks"',
        ]
    )
    out = run(roads, "--as", "gm", "play", input=entries + "\n").output
    lines = out.splitlines()
    assert not any(line.startswith("Round") for line in lines[:2])
    assert "Round 1: ▶ Nimble Jen · Brother Oskar · Lurker" in out
    assert "▶ 3. Lurker               [GM] hidden" in out  # the GM's view
    assert lines[-1] == "Round 1: Nimble Jen · ▶ Brother Oskar"  # the player's


@freeze_time("2026-03-01 20:00:00", tick=True)
def test_recaps_tell_the_encounter_and_keep_the_hidden_foe_for_the_gm(roads: Path) -> None:
    ok(roads, "session", "start")
    ok(roads, "encounter", "start", "jen", "--foe", "Lurker", "--hidden", "Lurker",
       "--foe", "Raider")  # fmt: skip
    ok(roads, "encounter", "act", "jen", "2", "--what", "climbs the wall")
    ok(roads, "encounter", "next")
    ok(roads, "encounter", "next")
    ok(roads, "encounter", "end")
    ok(roads, "session", "end")
    players = ok(roads, "recap", "--session", "1").output
    assert "Nimble Jen — spends 2 actions: climbs the wall" in players
    assert "Encounter begins: Nimble Jen, Raider" in players
    assert "Round 1: Raider's turn" in players and "Encounter ended in round 1" in players
    assert "Lurker" not in players
    gm = ok(roads, "--as", "gm", "recap", "--session", "1").output
    assert "Round 1: Lurker's turn (hidden)" in gm


@freeze_time("2026-03-01 20:00:00", tick=True)
def test_a_hidden_foe_who_acts_first_shows_players_no_turn_yet(roads: Path) -> None:
    """Lurker (5) acts before Jen (1): the first turn is GM-only, so a player's view has no
    current turn until Jen's; then it is hers."""
    ok(roads, "encounter", "start", "jen=1", "--foe", "Lurker=5", "--hidden", "Lurker")
    assert view(roads)["current"] == "Lurker"
    player = view(roads, "player")
    assert player["current"] is None and [s["name"] for s in player["order"]] == ["Nimble Jen"]
    assert "(not yet shown)" in ok(roads, "--as", "player", "encounter", "show").output
    ok(roads, "encounter", "next")
    assert view(roads, "player")["current"] == "Nimble Jen"
    ok(roads, "encounter", "next")  # round 2: Lurker again, hidden
    assert (view(roads)["round"], view(roads)["current"]) == (2, "Lurker")
    assert (view(roads, "player")["round"], view(roads, "player")["current"]) == (1, "Nimble Jen")
    ok(roads, "undo", "--yes", "--reason", "wrong")
    ok(roads, "undo", "--yes", "--reason", "wrong")
    ok(roads, "undo", "--yes", "--reason", "no fight")  # the start, its join and first turn
    assert view(roads) is None and view(roads, "player") is None
