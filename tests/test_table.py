"""`campaign undo`, `campaign npc add` and writes that change nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ledger.cli import table

SHEETS = Path(__file__).resolve().parent.parent / "campaigns" / "grand-casebook" / "characters"


@pytest.fixture
def casebook(invoke, frozen):
    assert invoke("new", "casebook", "--system", "wyrd-engine").exit_code == 0
    assert invoke("character", "add", "--sheet", str(SHEETS / "felix.toml")).exit_code == 0
    return invoke


def log(invoke):
    return json.loads(invoke("--as", "gm", "log", "--json").output)


def test_undo_retracts_the_actors_last_entry_with_a_reason(casebook):
    invoke = casebook
    assert invoke("damage", "felix", "2").exit_code == 0
    assert invoke("--actor", "maria", "note", "Felix is limping").exit_code == 0
    result = invoke("undo", "--yes", "--reason", "it was Julian")
    assert result.exit_code == 0, result.output
    assert "Undone: [3] Felix Cavendish — takes 2 damage" in result.output
    last = log(invoke)[-1]
    assert last["type"] == "correction.recorded" and last["actor"] == "gm"
    assert last["data"]["target"] == 3 and last["data"]["action"] == "retract"
    assert last["data"]["reason"] == "it was Julian"
    sheet = json.loads(invoke("sheet", "felix", "--json").output)
    assert sheet["stress"]["marked"] == 0  # the damage is gone from the sheet
    # maria's note is hers: undoing as maria takes the note, not the gm's entries
    result = invoke("--actor", "maria", "undo", "--yes", "--reason", "wrong table", "--json")
    assert json.loads(result.output)["target"] == 4


def test_undo_again_undoes_the_entry_before(casebook):
    invoke = casebook
    assert invoke("damage", "felix", "1").exit_code == 0
    assert invoke("damage", "felix", "2").exit_code == 0
    first = json.loads(invoke("undo", "--yes", "--reason", "a", "--json").output)
    second = json.loads(invoke("undo", "--yes", "--reason", "b", "--json").output)
    assert (first["target"], second["target"]) == (4, 3)


def test_undo_stops_at_a_session_start_and_at_nothing(casebook):
    invoke = casebook
    result = invoke("--actor", "nobody", "undo", "--yes", "--reason", "x")
    assert result.exit_code == 1 and "nobody has written nothing that can be undone" in (
        result.output
    )
    assert invoke("session", "start").exit_code == 0
    before = log(invoke)
    result = invoke("undo", "--yes", "--reason", "x")
    assert result.exit_code == 1
    assert "event 3 (session.started), which cannot be undone" in result.output
    assert log(invoke) == before


def test_undo_off_a_terminal_needs_yes_and_a_reason(casebook):
    invoke = casebook
    assert invoke("damage", "felix", "1").exit_code == 0
    before = log(invoke)
    result = invoke("undo")
    assert result.exit_code == 2 and "give --yes" in result.output
    assert "[3] Felix Cavendish — takes 1 damage" in result.output  # says what it would undo
    result = invoke("undo", "--yes")
    assert result.exit_code == 2 and "give --reason" in result.output
    assert log(invoke) == before


def test_undo_on_a_terminal_asks_first(casebook, monkeypatch):
    invoke = casebook
    monkeypatch.setattr(table, "_interactive", lambda: True)
    assert invoke("damage", "felix", "1").exit_code == 0
    before = log(invoke)
    result = invoke("undo", input="n\n")
    assert result.exit_code == 1 and "Aborted" in result.output
    assert log(invoke) == before
    result = invoke("undo", input="y\nmisread the die\n")
    assert result.exit_code == 0, result.output
    assert log(invoke)[-1]["data"]["reason"] == "misread the die"


def test_npc_add_makes_a_wyrd_npc_that_can_take_damage(casebook):
    invoke = casebook
    result = invoke("npc", "add", "Thug", "--skill", "Fight=2", "--skill", "Athletics=1")
    assert result.exit_code == 0, result.output
    assert "Added NPC Thug (id thug)" in result.output
    sheet = json.loads(invoke("sheet", "thug", "--json").output)
    assert sheet["npc"] is True
    assert {s["skill"]: s["rating"] for s in sheet["skills"]} == {"Fight": 2, "Athletics": 1}
    assert invoke("damage", "thug", "2").exit_code == 0
    result = invoke("roll", "thug", "fight", "--dr", "fair", "--dice", "+0-0", "--json")
    assert json.loads(result.output)["total"] == 2


def test_npc_add_refuses_bad_skills_and_systems_without_npc_rules(casebook, invoke, tmp_path):
    result = casebook("npc", "add", "Thug", "--skill", "Fight")
    assert result.exit_code == 2 and "write SKILL=RATING" in result.output
    result = casebook("npc", "add", "Thug", "--skill", "Fight=lots")
    assert result.exit_code == 2
    other = str(tmp_path / "world.db")
    assert invoke("new", "vault", "--system", "d20-world", db=other).exit_code == 0
    result = invoke("npc", "add", "Guard", "--skill", "Brawl=2", db=other)
    assert result.exit_code == 1
    assert "gives no rules for non-player characters" in result.output
    assert "add one with a character sheet" in result.output


def test_damage_that_changes_nothing_is_refused(casebook):
    before = log(casebook)
    result = casebook("damage", "felix", "0")
    assert result.exit_code == 2
    assert "changes nothing" in result.output
    assert log(casebook) == before


def test_scene_end_and_session_end_say_what_cleared(casebook):
    # Seen: `scene end` printed only "Scene ended (seq 51)." although stress cleared
    invoke = casebook
    assert invoke("session", "start").exit_code == 0
    assert invoke("damage", "felix", "2").exit_code == 0
    out = invoke("scene", "end").output
    assert out.startswith("Scene ended (seq 5).\nFelix Cavendish:\n")
    assert "  Stress cleared\n" in out  # in the book's words, not a field path
    assert invoke("scene", "end").output == "Scene ended (seq 6).\n"  # nothing changed: no more
    assert "Felix Cavendish:" not in invoke("session", "end").output


def test_damage_goes_through_the_systems_declared_harm(toy_campaign):
    invoke = toy_campaign
    result = invoke("damage", "ann", "2")  # the toy declares no harm
    assert result.exit_code == 1
    assert "Toy records harm differently: see `campaign record list`" in result.output
    assert "Harm: recorded with `campaign record` only" in invoke("systems", "toy").output


def test_every_system_that_declares_harm_makes_a_harm_event():
    from ledger import RuleError, RuleSystem
    from ledger.rules.plugins import rule_systems

    for sid, system in rule_systems().items():
        overridden = type(system).harm_event is not RuleSystem.harm_event
        assert system.has_harm == overridden, sid
        if not system.has_harm:
            with pytest.raises(RuleError, match="records harm differently"):
                system.harm_event(None, "x", 1)


def test_damage_in_d20_world_is_its_damage_taken(invoke, frozen):
    world = SHEETS.parent.parent / "the-world" / "characters" / "bram.toml"
    assert invoke("new", "world", "--system", "d20-world").exit_code == 0
    assert invoke("character", "add", "--sheet", str(world)).exit_code == 0
    result = invoke("damage", "bram", "2", "--json")
    assert result.exit_code == 0, result.output
    assert log(invoke)[-1]["type"] == "d20-world.damage_taken"
    assert log(invoke)[-1]["data"]["amount"] == 2
    assert json.loads(invoke("systems", "d20-world", "--json").output)["harm"] is True
