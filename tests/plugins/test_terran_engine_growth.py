"""Terran Engine: growth after creation is an event (ruling T26; seed
003_2aeb47bc6ca82a40.txt, characters.html "1.1 Archetypes": "It is expected you will evolve
beyond these initial Archetypes towards unique narratives").

Kit Ashdown of The Drowned Marches begins a Hero ("Embodies courage and strength, often the
protagonist fighting against the odds") and grows beyond it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from freezegun import freeze_time
from ledger_terran_engine import TerranEngine
from ledger_terran_engine.events import ArchetypeEvolved, HarmTaken

from ledger import RuleError
from ledger.cli import cli

CAMPAIGN = Path(__file__).resolve().parents[2] / "campaigns" / "the-drowned-marches"
WARDEN = "Warden of the Greywater ford"


@pytest.fixture
def run(tmp_path: Path) -> Any:
    db = str(tmp_path / "ledger.db")
    runner = CliRunner()

    def invoke(*args: str, ok: bool = True) -> Result:
        result = runner.invoke(cli, ["--db", db, *args])
        if ok:
            assert result.exit_code == 0, result.output
        return result

    with freeze_time("2026-03-01 19:00:00", tick=True):
        invoke("new", "marches", "--system", "terran-engine")
        invoke("character", "add", "--sheet", str(CAMPAIGN / "characters" / "kit.toml"))
        invoke("session", "start")
    return invoke


def sheet(run: Any) -> dict[str, Any]:
    return json.loads(run("sheet", "kit", "--json").output)


@freeze_time("2026-03-01 19:30:00", tick=True)
def test_a_character_evolves_beyond_their_archetype(run: Any) -> None:
    assert (sheet(run)["archetype"], sheet(run)["evolved"]) == ("Hero", None)
    out = run("record", "archetype-evolved", "--character", "kit", "--narrative", WARDEN).output
    assert f"kit evolves beyond their Archetype: {WARDEN}" in out
    assert f"Evolves beyond the Hero Archetype: {WARDEN}" in out
    after = sheet(run)
    assert (after["archetype"], after["evolved"]) == ("Hero", WARDEN)  # where he began stays
    assert f"Hero, evolved beyond it: {WARDEN}" in run("sheet", "kit").output
    assert WARDEN in run("recap", "--session", "1").output
    assert run("verify").exit_code == 0


@freeze_time("2026-03-01 19:30:00", tick=True)
def test_retracting_the_evolution_restores_the_archetype(run: Any) -> None:
    run("record", "archetype-evolved", "--character", "kit", "--narrative", WARDEN)
    seq = json.loads(run("log", "--json").output)[-1]["seq"]
    run("correct", str(seq), "--reason", "not yet: the ford still stands")
    assert sheet(run)["evolved"] is None
    assert run("verify").exit_code == 0


@freeze_time("2026-03-01 19:30:00", tick=True)
def test_an_evolution_must_say_something_new(run: Any) -> None:
    for narrative, needle in (("  ", "the narrative"), ("hero", "already Hero")):
        bad = run("record", "archetype-evolved", "--character", "kit", "--narrative", narrative,
                  ok=False)
        assert bad.exit_code == 1 and needle in bad.output and "Traceback" not in bad.output
    run("record", "archetype-evolved", "--character", "kit", "--narrative", WARDEN)
    bad = run("record", "archetype-evolved", "--character", "kit", "--narrative",
              WARDEN.upper(), ok=False)
    assert bad.exit_code == 1 and "already" in bad.output


def test_the_dead_evolve_no_more() -> None:
    # "1.3.1": Kit's HP_max is 1 + 1 + 2 = 4; an Effect of 4 takes it to 0 (Critically
    # Wounded), a second makes him Mortally Wounded, a third kills him
    system = TerranEngine().configure({})
    kit = system.initial_state("kit", "Kit Ashdown", system.create_sheet({
        "archetype": "Hero",
        "attributes": {"Strength": 1, "Agility": 1, "Insight": 1, "Charisma": 1},
        "skills": {"Violence": 2, "Survival": 2},
    }))
    fns = system.appliers()
    for _ in range(3):
        kit = fns[HarmTaken](kit, HarmTaken(character="kit", effect=4))
    assert kit.wound == "dead"
    with pytest.raises(RuleError, match="dead"):
        fns[ArchetypeEvolved](kit, ArchetypeEvolved(character="kit", narrative=WARDEN))
