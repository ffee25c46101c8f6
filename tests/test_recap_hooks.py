"""Each rule system writes its own recap lines as a `RuleSystem.recap_lines` method;
the `recap_lines` hook is left for add-ons' extras."""

from pathlib import Path
from types import SimpleNamespace

from ledger.dice.engine import PhysicalDice
from ledger.rules.plugins import pm, rule_systems
from ledger.rules.roll_inputs import RollRequest
from ledger.rules.system import RuleSystem

PLUGINS = Path(__file__).parents[1] / "plugins"


def lines(system_id, event):
    record = SimpleNamespace(data=event, type="", seq=1)
    return rule_systems()[system_id].recap_lines(record, as_gm=False)


def test_spellwoven_notes_kept_dice_and_effort():
    system = rule_systems()["spellwoven"].configure({})
    sheet = system.create_sheet(
        {
            "attributes": {"Behest": 2, "Fortitude": 2, "Presence": 2, "Quickness": 3, "Wits": 2},
            "skills": {"Climb": {"rank": 6, "attribute": "Quickness"}},
            "weaknesses": {"combat": "Slow to draw", "social": "Blunt"},
        }
    )
    state = system.initial_state("jen", "Nimble Jen", sheet)
    event = system.resolve(
        state,
        RollRequest("jen", "Nimble Jen", "Climb", {"advantage": True, "difficulty": 1}),
        PhysicalDice(["3", "7", "9", "2"]),
    )
    assert "four dice rolled at advantage, three kept" in lines("spellwoven", event)
    assert lines("wyrd-engine", event) == []  # another system's method ignores it


def test_every_installed_system_writes_its_own_recap_lines_and_change_sentences():
    for sid, system in rule_systems().items():
        cls = type(system)
        assert cls.recap_lines is not RuleSystem.recap_lines, sid
        assert cls.describe_changes is not RuleSystem.describe_changes, sid


def test_no_plugin_implements_the_hook_for_its_own_system():
    rule_systems()  # loads every plugin
    assert pm.hook.recap_lines.get_hookimpls() == []  # the hook is for add-ons
    for path in PLUGINS.glob("*/ledger_*/*.py"):
        assert "system_id !=" not in path.read_text(encoding="utf-8"), path
