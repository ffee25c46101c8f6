"""Each bundled rule system runs the contract an outside plugin runs (ledger.testing)."""

from __future__ import annotations

import tomllib
from pathlib import Path

from ledger_d20_world.events import ObjectiveOpened
from ledger_terran_engine.events import ChallengeOpened

from ledger.rules.plugins import rule_systems
from ledger.testing import RuleSystemContract

CAMPAIGNS = Path(__file__).resolve().parents[2] / "campaigns"


def sheet(path: str) -> dict:
    return tomllib.loads((CAMPAIGNS / path).read_text())


class TestWyrdEngine(RuleSystemContract):
    system = rule_systems()["wyrd-engine"]
    sheet = sheet("grand-casebook/characters/julian.toml")


class TestD20World(RuleSystemContract):
    system = rule_systems()["d20-world"]
    sheet = sheet("the-world/characters/isa.toml")
    history = [ObjectiveOpened(character="isa", objective="Open the vault", required_good=2)]


class TestDecisionDice(RuleSystemContract):
    system = rule_systems()["decision-dice"]
    sheet = sheet("the-salt-road/characters/jen.toml")


class TestTerranEngine(RuleSystemContract):
    system = rule_systems()["terran-engine"]
    sheet = sheet("the-drowned-marches/characters/jen.toml")
    history = [ChallengeOpened(character="jen", challenge="Greywater ford", level="Dangerous")]
    rolls = [  # campaigns/the-drowned-marches: the Montage's Challenge Effect first
        "roll jen consequence --challenge 'Greywater ford' --consequence complication --dice 5",
        rule_systems()["terran-engine"].example_roll,
    ]


class TestSpellwoven(RuleSystemContract):
    system = rule_systems()["spellwoven"]
    sheet = sheet("nimble-jen/characters/jen.toml")


def test_the_contract_catches_a_system_whose_rolls_do_not_re_derive():
    """A system that reads a roll's inputs back wrong fails the round trip, by name."""
    import msgspec
    import pytest

    wyrd = type(rule_systems()["wyrd-engine"])

    class Forgetful(wyrd):  # type: ignore[misc, valid-type]
        def rederive(self, state, event, **kwargs):
            params = {**event.inputs.params, "dr": "mediocre"}
            wrong = msgspec.structs.replace(event.inputs, params=params)
            return super().rederive(state, msgspec.structs.replace(event, inputs=wrong), **kwargs)

    class Check(TestWyrdEngine):
        system = Forgetful()

    with pytest.raises(AssertionError, match="re-derived"):
        Check().test_resolve_request_of_rederive_round_trip(engine=False)


def test_the_contract_catches_an_event_type_without_a_rule_section():
    import pytest

    d20 = type(rule_systems()["d20-world"])

    class Sectionless(d20):  # type: ignore[misc, valid-type]
        sections = {k: v for k, v in d20.sections.items() if k != "d20-world.check_rolled"}

    class Check(TestD20World):
        system = Sectionless()

    with pytest.raises(AssertionError, match="check_rolled"):
        Check().test_every_event_type_names_its_rule_section()
