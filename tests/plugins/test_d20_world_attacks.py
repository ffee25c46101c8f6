"""d20 The World: a named weapon is the attack's tools (ruling R44).

Seed 001_a3a02f9b7363775f.txt, "Harm" → "Attacking": "Like all challenges, no rolls are
necessary for attacks if the attacker has time, tools (a weapon), and skill (to use that
weapon). However, if the target of an attack is aware of it, they may spend an action to
hinder that attack by dodging, blocking, etc. When they do so, the attacker is no longer
considered to have time to make the attack, forcing them to make a check at best, or
outright missing at worst. On a good outcome, the full weapon damage is dealt. On a messy
outcome, half the weapon damage is dealt. On a bad outcome, no damage is dealt at all."

"Checks": "If you have two of time, tools, or skill, neither success nor failure are
certain. You may make a check." "If you have time, tools, and skill, success is certain.
No check is required." Step 5: "8 or less indicates a bad outcome, 9 to 17 indicates a
messy outcome, and 18 or more indicates a good outcome."

Nia Vell fences (+3) with a Mace (3 damage); Ox is the aware target who dodges, so Nia has
tools (the Mace) and skill but no time: one d20 check. Half of 3 is 2 (ruling R5, rounded up).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import msgspec
import pytest
from freezegun import freeze_time
from ledger_d20_world import D20World
from ledger_d20_world.events import CheckRolled

from ledger import Opponent, RollRequest
from ledger.codec import Codec
from ledger.dice.engine import EngineDice
from ledger.rules.results import result_problem
from ledger.testing import as_json, ok, refused

NIA = """\
name = "Nia Vell"
id = "nia"
player = "Rui"
traits = [{name = "Long-armed", kind = "body"}, {name = "Proud", kind = "personality"},
          {name = "Duellist's scar", kind = "free"}]
bonds = [{name = "the Fencing Hall", kind = "faction"}, {name = "Old Marek", kind = "mentor"},
         {name = "Ox", kind = "rival"}]
skills = [{name = "Fencing", proficiency = 3, via_bond = "the Fencing Hall"},
          {name = "Climb", proficiency = 2}, {name = "Sing", proficiency = 1}]
items = [{name = "Hall token", for_bond = "the Fencing Hall"},
         {name = "Marek's letter", for_bond = "Old Marek"},
         {name = "Ox's broken tooth", for_bond = "Ox"},
         {name = "Mace", for_skill = "Fencing", damage = 3, harm = "crushing blows"},
         {name = "Rope", for_skill = "Climb"}, {name = "Lute", for_skill = "Sing"},
         {name = "Jar of lamp oil", consumable = true}]
"""
OX = """\
name = "Ox"
id = "ox"
player = "Ama"
traits = [{name = "Huge", kind = "body"}, {name = "Wary", kind = "personality"},
          {name = "Bell-deaf", kind = "free"}]
bonds = [{name = "the Dockers", kind = "faction"}, {name = "Ma Brell", kind = "friend"},
         {name = "Nia Vell", kind = "rival"}]
skills = [{name = "Brawl", proficiency = 3, via_bond = "the Dockers"},
          {name = "Haul", proficiency = 2}, {name = "Cook", proficiency = 1}]
items = [{name = "Docker's hook", for_bond = "the Dockers"},
         {name = "Brell's ladle", for_bond = "Ma Brell"},
         {name = "Nia's glove", for_bond = "Nia Vell"},
         {name = "Knuckles", for_skill = "Brawl", damage = 1},
         {name = "Strap", for_skill = "Haul"}, {name = "Pot", for_skill = "Cook"},
         {name = "Salt pork", consumable = true}]
"""
ATTACK = ("roll", "nia", "Fencing", "--vs-character", "ox", "--weapon", "Mace")


@pytest.fixture
def world_extra_sheets(tmp_path: Path) -> list[Path]:
    """Nia and Ox join Isa and Bram (tests/plugins/conftest.py ``world``)."""
    paths = []
    for stem, text in (("nia", NIA), ("ox", OX)):
        path = tmp_path / f"{stem}.toml"
        path.write_text(text)
        paths.append(path)
    return paths


def wounds(db: Path, who: str = "ox") -> int:
    return sum(w["damage"] for w in as_json(db, "sheet", who, "--as", "gm")["wounds"])


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_the_weapon_is_the_tools_against_an_aware_target_one_d20_check(world: Path) -> None:
    """The issue's command line: tools (the Mace) and skill (Fencing +3), no time (Ox
    dodges): "two of time, tools, or skill": one d20, 12 + 3 = 15, messy (9-17), 1 xp."""
    out = as_json(world, *ATTACK, "--dice", "12")
    assert (out["time"], out["tools"], out["has_skill"], out["gate"]) == (
        False,
        True,
        True,
        "normal",
    )
    assert (out["dice"], out["kept"], out["total"], out["outcome"], out["experience"]) == (
        [12],
        12,
        15,
        "messy",
        1,
    )
    assert (out["vs_character"], out["weapon"], out["weapon_damage"]) == ("ox", "Mace", 3)
    assert "OK" in ok(world, "verify").output


@freeze_time("2026-03-01 19:10:00", tick=True)
@pytest.mark.parametrize(
    ("die", "total", "band", "harm"), [(15, 18, "good", 3), (12, 15, "messy", 2), (5, 8, "bad", 0)]
)
def test_the_checks_band_sets_the_weapons_damage(
    world: Path, die: int, total: int, band: str, harm: int
) -> None:
    """ "On a good outcome, the full weapon damage is dealt. On a messy outcome, half the
    weapon damage is dealt. On a bad outcome, no damage is dealt at all": the Mace's 3,
    ceil(3/2) = 2 (ruling R5), 0."""
    out = as_json(world, *ATTACK, "--apply", "--dice", str(die))
    assert (out["gate"], out["total"], out["outcome"]) == ("normal", total, band)
    assert wounds(world) == harm
    assert "OK" in ok(world, "verify").output


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_an_unaware_target_is_hit_without_a_roll(world: Path) -> None:
    """With time too (Ox does not see it coming), "no rolls are necessary": an automatic
    success that deals the Mace's full 3. Faces typed for it are refused with the reason."""
    words = refused(world, *ATTACK, "--time", "--dice", "12")
    assert "no check is made" in words and "time, tools (Mace) and skill" in words
    assert "automatic success" in words and len(words.strip().splitlines()) == 1
    out = as_json(world, *ATTACK, "--time", "--apply", "--auto")
    assert (out["gate"], out["tools"], out["dice"], out["outcome"]) == (
        "auto_success",
        True,
        [],
        "good",
    )
    assert wounds(world) == 3
    assert "OK" in ok(world, "verify").output


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_a_weapon_without_skill_or_time_is_one_factor(world: Path) -> None:
    """The Mace alone (Nia practises Brawl, which she lacks; Ox dodges): one factor and no
    help, an automatic failure (ruling R1), shown with the weapon as its tools."""
    words = refused(world, "roll", "nia", "Brawl", "--practice", "--vs-character", "ox",
                    "--weapon", "Mace")  # fmt: skip
    assert "has tools (Mace) and no help" in words and "automatic failure" in words
    with_time = as_json(world, "roll", "nia", "Brawl", "--practice", "--time",
                        "--vs-character", "ox", "--weapon", "Mace", "--dice", "7")  # fmt: skip
    assert (with_time["gate"], with_time["total"], with_time["outcome"]) == ("normal", 7, "bad")


@freeze_time("2026-03-01 19:10:00", tick=True)
def test_a_shock_roll_against_a_character_is_refused_in_one_line(world: Path) -> None:
    """The shock roll is the wounded character's own 1d6 ("Wounds": "When a character
    receives a wound, they must roll 1d6"): it opposes no one."""
    ok(world, "record", "damage-taken", "--character", "nia", "--amount", "1")
    words = refused(world, "roll", "nia", "--shock", "--vs-character", "ox", "--dice", "2")
    assert "shock roll" in words and "against no character on the ledger (--shock)" in words
    assert "unexpected" not in words and len(words.strip().splitlines()) == 1


def _states() -> tuple[D20World, Any, Any]:
    system = D20World().configure({})
    made = []
    for text in (NIA, OX):
        sheet = tomllib.loads(text)
        name, cid = sheet.pop("name"), sheet.pop("id")
        sheet.pop("player")
        made.append(system.initial_state(cid, name, system.create_sheet(sheet)))
    return system, made[0], made[1]


#: Two attacks as the ledger recorded them before a named weapon was the attack's tools
#: (``roll --json`` of the main branch then, the envelope left out): with ``--time`` a normal
#: check (time and skill), without it an automatic failure (skill alone). The Mace was not yet the tools.
BEFORE_24 = [
    {
        "source": "physical",
        "draws": [[20, 12]],
        "nonce": None,
        "client_seed": None,
        "time": True,
        "gate": "normal",
        "dice": [12],
        "kept": 12,
        "total": 15,
        "outcome": "messy",
        "experience": 1,
    },
    {
        "source": "engine",
        "draws": [],
        "nonce": 0,
        "client_seed": "",
        "time": False,
        "gate": "auto_fail",
        "dice": [],
        "kept": None,
        "total": None,
        "outcome": "bad",
        "experience": 0,
    },
]
COMMON = {
    "scheme": "ledger-roll-v1",
    "character": "nia",
    "skill": "Fencing",
    "proficiency": 3,
    "known": True,
    "tools": False,
    "has_skill": True,
    "help_from": "",
    "mode": "normal",
    "invocations": [],
    "advantages": [],
    "disadvantages": [],
    "wound_penalty": 0,
    "condition_penalty": 0,
    "jinx_penalty": 0,
    "spell": False,
    "miscast": False,
    "objective": None,
    "vs_character": "ox",
    "weapon": "Mace",
    "weapon_damage": 3,
}


@pytest.mark.parametrize("recorded", BEFORE_24, ids=["time-normal", "auto-fail"])
def test_an_attack_recorded_before_24_still_re_derives(recorded: dict[str, Any]) -> None:
    """``verify``, ``import`` and ``audit`` re-derive an old attack as it was ruled then
    (``tools`` false with a weapon: its inputs, rebuilt as it is read, give ``tools`` as
    false), so an honest old log still verifies; the same inputs today count the Mace as
    tools."""
    system, nia, ox = _states()
    codec = Codec(system.event_types, system.upcasters)
    stored = msgspec.json.encode({**COMMON, **recorded})
    event = codec.decode(stored, "d20-world.check_rolled")
    assert isinstance(event, CheckRolled)
    opponent = Opponent("ox", name="Ox", state=ox)
    assert result_problem(system, nia, event, name="Nia Vell", opponent=opponent) is None
    request = system.request_of(event)
    assert request.params["tools"] is False and request.params["weapon"] == "Mace"
    today = RollRequest("nia", "Nia Vell", "Fencing", {"weapon": "Mace", "time": True}, opponent)
    again = system.resolve(nia, today, EngineDice(b"\x01" * 32, "vault", 1, 0, ""))
    assert again.tools is True and again.gate == "auto_success"
