"""Every write answers with what changed, in the book's words: `damage` says where the
harm landed and what it does now, `scene end` what cleared, a roll that raises a skill says
so where it happens."""

import json

import pytest


@pytest.fixture
def built(bundled, invoke):
    def make(name):
        db = str(bundled(name))

        def run(*args):
            result = invoke(*args, db=db)
            assert result.exit_code == 0, result.output
            return result.output

        return run

    return make


def test_damage_says_where_it_landed_and_scene_end_what_cleared(built):
    """000_60e07241544698f0.txt "Damage: Stress and Wounds": stress boxes first, then a
    wound; stress clears at the end of a scene."""
    run = built("grand-casebook")
    run("session", "start")
    run("scene", "start", "The brawl")
    assert run("damage", "felix", "4").splitlines()[1:] == ["  Stress 4/5 [x][x][x][x][ ]"]
    landed = run("damage", "felix", "3").splitlines()[1:]
    assert landed == [
        "  Stress 5/5 [x][x][x][x][x]",
        "  Moderate Wound (absorbs 2 of 2): −2 to relevant skill rolls (the GM names them)",
    ]
    data = json.loads(run("damage", "felix", "2", "--json"))
    assert {"seq", "character", "amount", "changes", "sheet"} <= set(data)  # kept
    assert data["sentences"] == [
        "Severe Wound (absorbs 2 of 3): −3 to all physical actions",
        "Wound penalties now: Moderate −2 to relevant skill rolls (the GM names them); "
        "Severe −3 to all physical actions",
    ]
    for sentence in data["sentences"]:
        assert "wounds." not in sentence and "None" not in sentence
    ended = run("scene", "end").splitlines()
    assert ended[1:] == ["Felix Cavendish:", "  Stress cleared"]


def test_a_roll_that_raises_a_skill_says_so(built):
    """001_a3a02f9b7363775f.txt "Skills": Forage +2 rises at 10 + 2 = 12 experience; a bad
    check with a natural 1 and a trait invoked to hinder marks 2 + 1 + 2 = 5."""
    run = built("the-world")  # Isa's Forage has 5 experience after session 1
    run("session", "start")
    first = run("roll", "isa", "Forage", "--time", "--dice", "1,3", "--trait", "Wiry:hinder")
    assert first.splitlines()[1:] == ["  Forage +5 xp (10/12)"]
    second = run("roll", "isa", "Forage", "--time", "--dice", "1,2", "--trait", "Wiry:hinder")
    assert second.splitlines()[1:] == ["  Forage rose to +3 (0/13 xp)"]
    log = run("log").splitlines()
    assert log[-1].startswith(f"[{second[1:].split(']')[0]}] ✘ Isa Marrow — Forage")


def test_record_says_what_changed_and_a_gm_only_change_stays_marked(built):
    """001_a3a02f9b7363775f.txt "Conditions": a condition's penalty counts on every check;
    "Bonds": favor is The World's, so its change is said only in the GM's view, marked."""
    run = built("the-world")
    run("session", "start")
    cold = run(
        "record",
        "condition-added",
        "--character",
        "isa",
        "--condition",
        "cold",
        "--check-penalty",
        "1",
        "--ends-when",
        "a warm fire",
    )
    assert cold.splitlines()[1:] == [
        "  Now cold: −1 to checks until a warm fire",
        "  Checks now at −1 (conditions −1)",
    ]
    gm = run(
        "--as",
        "gm",
        "record",
        "favour-changed",
        "--character",
        "isa",
        "--bond",
        "the Guild",
        "--delta",
        "1",
        "--reason",
        "paid",
    )
    assert gm.splitlines()[1:] == ["  Favor of the Guild +1 (now +0) [GM only]"]
    player = run(
        "record",
        "favour-changed",
        "--character",
        "isa",
        "--bond",
        "the Guild",
        "--delta",
        "1",
        "--reason",
        "paid",
    )
    assert len(player.splitlines()) == 1 and "now" not in player
