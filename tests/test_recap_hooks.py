"""Each rule system contributes its own recap lines through the `recap_lines` hook."""

from types import SimpleNamespace

from ledger.dice import PhysicalDice
from ledger.plugins import pm, rule_systems
from ledger.rulesystem import RollRequest


def lines(system_id, event):
    record = SimpleNamespace(data=event, type="", seq=1)
    out = []
    for result in pm.hook.recap_lines(system_id=system_id, record=record, as_gm=False):
        out.extend(result or [])
    return out


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
    assert lines("wyrd-engine", event) == []  # another system's hook stays silent


def test_every_installed_system_implements_the_hook():
    installed = set(rule_systems())  # loads every plugin
    impls = {impl.plugin_name for impl in pm.hook.recap_lines.get_hookimpls()}
    assert installed <= impls
