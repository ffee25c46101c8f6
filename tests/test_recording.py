"""One code path for the GM's writes: ``ledger/campaign/recording.py`` validates and
builds what ``campaign damage`` and ``campaign record`` write and what the GM's page writes;
the command line keeps its words and exit codes."""

from __future__ import annotations

import json

import pytest

from ledger.campaign import recording
from ledger.campaign.aggregate import open_campaign
from ledger.errors import NotFound, RuleError
from ledger.store.opening import open_store

from .webtools import d20_table


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "ledger.db"))


@pytest.fixture
def campaign(table):
    store = open_store(table.db)
    try:
        yield open_campaign(store)
    finally:
        store.close()


def test_the_cli_refuses_bad_damage_in_its_own_words_and_writes_nothing(table):
    head = table.head()
    out = table("damage", "isa", "0")
    assert out.exit_code == 2
    assert out.output.startswith(
        "Error: damage isa 0 changes nothing: give an AMOUNT of 1 or more (to heal, see "
        "`campaign record list`) (see `"
    )
    out = table("damage", "isa", "2", "--affects", "Athletics")
    assert out.exit_code == 2
    assert "--affects: d20-world wounds name no skills; leave it out" in out.output
    out = table("damage", "nobody", "2")
    assert out.exit_code == 1 and "nobody" in out.output
    assert table.head() == head


def test_harm_is_the_systems_harm_event_and_refuses_as_the_cli_does(campaign):
    event = recording.harm(campaign, "Isa Marrow", 3)
    assert type(event).__name__ == "DamageTaken"
    assert (event.character, event.amount) == ("isa", 3)  # type: ignore[attr-defined]
    with pytest.raises(recording.AmountError) as refused:
        recording.harm(campaign, "isa", 0)
    assert refused.value.field == "amount"
    assert refused.value.command.startswith("damage isa 0 changes nothing")
    assert "`" not in refused.value.message  # the page's words name no command
    with pytest.raises(recording.FieldError, match="wounds name no skills"):
        recording.harm(campaign, "isa", 2, ["Athletics"])
    with pytest.raises(NotFound):
        recording.harm(campaign, "iso", 2)


def test_record_event_parses_fields_by_their_declared_types(campaign):
    event = recording.record_event(
        campaign,
        "condition-added",
        {
            "character": "Isa Marrow",
            "condition": "shaken",
            "check_penalty": "1",
            "ends_on": "rest",
        },  # fmt: skip
    )
    assert event.character == "isa" and event.check_penalty == 1  # type: ignore[attr-defined]
    assert event.ends_on == "rest"  # type: ignore[attr-defined]
    damage = recording.record_event(
        campaign, "damage_taken", {"character": "isa", "amount": "4", "armour": "shield:1, helm:1"}
    )
    assert damage.armour == ["shield:1", "helm:1"]  # type: ignore[attr-defined]
    with pytest.raises(recording.FieldError) as bad:
        recording.record_event(campaign, "condition-added", {"character": "isa",
                                                              "condition": "x",
                                                              "check_penalty": "lots"})  # fmt: skip
    assert bad.value.message == "--check-penalty takes an integer, not 'lots'"
    assert bad.value.field == "check_penalty"
    with pytest.raises(recording.FieldError, match="condition-added: give --condition"):
        recording.record_event(campaign, "condition-added", {"character": "isa"})
    with pytest.raises(recording.FieldError, match="is a roll, written by `campaign roll`"):
        recording.record_event(campaign, "check-rolled", {})
    with pytest.raises(recording.FieldError, match="did you mean 'condition-added'"):
        recording.record_event(campaign, "condition-add", {})


def test_write_appends_and_says_what_changed_as_campaign_damage_does(table, campaign, tmp_path):
    twin = d20_table(str(tmp_path / "twin.db"))
    said = json.loads(twin.ok("damage", "isa", "3", "--json"))["sentences"]
    written = recording.write(
        campaign, recording.harm(campaign, "isa", 3), actor="gm", at="2026-03-01T19:30:00.000000Z"
    )
    assert written.character == "isa" and written.sentences == said
    assert written.rec.seq == table.head()
    with pytest.raises(RuleError):
        recording.write(
            campaign,
            recording.record_event(
                campaign, "condition-ended", {"character": "isa", "condition": "never had"}
            ),  # fmt: skip
            actor="gm",
            at="2026-03-01T19:31:00.000000Z",
        )
    assert table.head() == written.rec.seq


def test_kinds_of_finds_each_systems_conditions_and_experience():
    from ledger.rules.plugins import rule_systems

    systems = rule_systems()
    assert recording.kinds_of(systems["d20-world"]) == {
        "condition_add": ["condition-added", "hidden-condition-added"],
        "condition_end": ["condition-ended", "hidden-condition-ended"],
        "experience": ["experience-marked"],
        "stress": [],
    }
    assert recording.kinds_of(systems["terran-engine"])["experience"] == ["experience-gained"]
    assert recording.kinds_of(systems["decision-dice"])["stress"] == ["harm-taken", "recovered"]
    assert recording.kinds_of(systems["wyrd-engine"])["stress"] == ["stress-cleared"]
