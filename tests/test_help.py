"""Help that follows the campaign: `roll --help` shows the campaign's system only, with a
line from its book; `record EVENT --help` explains the event; `record` parses each value by
the field's declared type; `campaign systems SYSTEM` lists everything a GM types."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from ledger.rules.plugins import rule_systems

CAMPAIGNS = Path(__file__).resolve().parent.parent / "campaigns"
WORLD = CAMPAIGNS / "the-world" / "characters" / "isa.toml"


@pytest.fixture
def world(invoke, frozen):
    assert invoke("new", "vault", "--system", "d20-world").exit_code == 0
    assert invoke("character", "add", "--sheet", str(WORLD)).exit_code == 0
    return invoke


def events(invoke):
    return [e["type"] for e in json.loads(invoke("--as", "gm", "log", "--json").output)]


def test_roll_help_in_a_campaign_shows_its_system_and_a_book_example(world):
    out = world("roll", "--help").output
    assert "--objective" in out and "--time" in out  # d20-world's
    assert "--dr" not in out and "--difficulty" not in out  # other systems' are not
    assert "[d20-world]" not in out  # one system: no per-system tags
    assert "campaign roll isa Lockpicking --time --objective 'Open the vault' --dice 16" in out
    assert '("Objectives": 16 + 3 = 19, good)' in out


def test_roll_help_without_a_campaign_shows_every_system(invoke):
    out = invoke("roll", "--help", db="no-such.db").output
    assert "[wyrd-engine]" in out and "[d20-world]" in out and "[spellwoven]" in out
    assert "Example (" not in out
    assert not Path("no-such.db").exists()


@pytest.mark.parametrize("system_id", sorted(rule_systems()))
def test_each_systems_example_roll_uses_only_its_own_options(system_id):
    system = rule_systems()[system_id]
    line, _, note = system.example_roll.partition("  # ")
    words = shlex.split(line)
    assert words[0] == "roll" and note
    own = {"--" + p.name.replace("_", "-") for p in system.roll_params}
    used = {w for w in words if w.startswith("--")}
    assert used <= own | {"--dice", "--blind", "--client-seed"}


def test_record_event_help_lists_fields_types_and_allowed_values(world):
    result = world("record", "favour-changed", "--help")
    assert result.exit_code == 0
    out = result.output
    assert "Usage: campaign record favour-changed" in out
    assert "--delta                an integer (required)" in out
    assert "--reason               text (optional)" in out
    assert "Bonds" in out  # the event's own description
    assert "d20-world.favour_changed" not in events(world)  # help writes nothing


def test_record_event_help_names_allowed_values(invoke, frozen):
    assert invoke("new", "salt", "--system", "decision-dice").exit_code == 0
    out = invoke("record", "condition-added", "--help").output
    assert "--kind" in out
    line = next(x for x in out.splitlines() if x.strip().startswith("--kind"))
    assert "one of: advantage, bonus, disadvantage, modifier, penalty" in line


def test_record_parses_each_value_by_the_fields_declared_type(world):
    result = world(
        "record", "favour-changed", "--character", "isa", "--bond", "the Guild",
        "--delta", "2", "--reason", "2", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["delta"] == 2 and out["reason"] == "2"  # text stays text


def test_record_names_the_option_the_value_and_what_it_takes(world):
    before = events(world)
    result = world("record", "favour-changed", "--character", "isa", "--bond", "the Guild",
                   "--delta", "two")  # fmt: skip
    assert result.exit_code == 2
    assert "--delta takes an integer, not 'two'" in result.output
    assert "campaign record favour-changed --help" in result.output
    assert "Expected" not in result.output  # never the library's words
    result = world("record", "favour-changed", "--character", "isa", "--delta", "1")
    assert result.exit_code == 2 and "give --bond" in result.output
    result = world("record", "favour-changed", "--character", "isa", "--bond")
    assert result.exit_code == 2 and "--bond needs a value" in result.output
    assert events(world) == before


def test_record_kind_values_are_matched_in_any_case(invoke, frozen):
    assert invoke("new", "salt", "--system", "decision-dice").exit_code == 0
    sheet = CAMPAIGNS / "the-salt-road" / "characters"
    first = sorted(sheet.glob("*.toml"))[0]
    assert invoke("character", "add", "--sheet", str(first)).exit_code == 0
    who = json.loads(invoke("character", "list", "--json").output)[0]["character"]
    result = invoke("record", "condition-added", "--character", who, "--condition", "Fog",
                    "--kind", "Disadvantage", "--rolls", "1", "--json")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["kind"] == "disadvantage"
    result = invoke("record", "condition-added", "--character", who, "--condition", "Fog",
                    "--kind", "bad")  # fmt: skip
    assert result.exit_code == 2
    assert "--kind takes one of: advantage, bonus, disadvantage, modifier, penalty" in (
        result.output
    )


def test_systems_system_lists_options_events_and_an_example(invoke):
    out = invoke("systems", "wyrd-engine").output
    assert "Options of `campaign roll`:" in out
    assert "--boost" in out and "integer 1..2" in out
    assert "values: trivial, simple, terrible" in out
    assert "damage-taken             --character* --amount*" in out
    assert "Roll events (written by `campaign roll`): wyrd-engine.check_rolled" in out
    assert "Example: campaign roll julian investigate --dr good --dice ++-0" in out
    data = json.loads(invoke("systems", "d20-world", "--json").output)
    assert data["id"] == "d20-world"
    assert "favour-changed" in data["record_events"]
    delta = [f for f in data["record_events"]["favour-changed"] if f["field"] == "--delta"][0]
    assert delta == {"field": "--delta", "type": "an integer", "required": True}
    assert {r["option"] for r in data["roll_options"]} >= {"--time", "--tools"}


def test_systems_unknown_system_is_a_usage_error(invoke):
    result = invoke("systems", "fate")
    assert result.exit_code == 2
    assert "no rule system 'fate'" in result.output and "wyrd-engine" in result.output


@pytest.mark.parametrize(
    "system_id, option, said",
    [
        ("wyrd-engine", "stress_boxes=x",
         "--option stress_boxes takes an integer (not 'x'), e.g. --option stress_boxes=5"),
        ("wyrd-engine", "damage_rounding=up",
         "--option damage_rounding takes one of: ceil, floor (not 'up')"),
        ("wyrd-engine", "minor_cost_margins=two",
         "--option minor_cost_margins takes a JSON list of integers (not 'two'), "
         "e.g. --option minor_cost_margins=[1,2]"),
        ("d20-world", "jinx_before_check=maybe",
         "--option jinx_before_check takes true or false (not 'maybe')"),
        ("terran-engine", "complication_over_17=5",
         "--option complication_over_17 takes one of: 3, 4 (not '5')"),
    ],
)  # fmt: skip
def test_a_bad_campaign_option_is_named_with_what_it_takes(invoke, db_path, system_id, option, said):
    result = invoke("new", "x", "--system", system_id, "--option", option)
    assert result.exit_code == 1
    assert result.output.startswith(f"Error: bad option for {system_id}: {said}")
    assert len(result.output.splitlines()) == 1
    assert "Expected" not in result.output and "$." not in result.output  # not msgspec's words
    assert not Path(db_path).exists()  # nothing written: not even an empty ledger file


# --- no issue numbers or seed file names in what people read -------------------------

ISSUE_OR_SEED = re.compile(r"\(#\d+\)|(?<![\w&])#\d+\b|\b\d{3}_[0-9a-f]{16}(?:\.txt)?\b")


def _command_paths(command: click.Command, path: list[str]) -> Iterator[list[str]]:
    yield path
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None:
                yield from _command_paths(sub, [*path, name])


def test_no_help_shows_an_issue_number_or_a_seed_file_name(invoke, tmp_path, frozen):
    from ledger.cli.base import cli, register_plugin_commands
    from ledger.cli.fields import recordable

    register_plugin_commands()
    seeds = {s.source for s in rule_systems().values()}
    assert seeds and all(ISSUE_OR_SEED.search(seed) for seed in seeds)  # the pattern sees them
    said: dict[str, str] = {}
    for path in _command_paths(cli, []):
        said[" ".join([*path, "--help"])] = invoke(*path, "--help").output
    said["systems"] = invoke("systems").output
    for sid, system in rule_systems().items():  # in a campaign: its options, events, book
        db = str(tmp_path / f"{sid}.db")
        assert invoke("new", "x", "--system", sid, db=db).exit_code == 0
        asks = [["systems", sid], ["odds", sid, "--help"], ["roll", "--help"], ["record", "list"]]
        asks += [["record", name, "--help"] for name in recordable(system)]
        for args in asks:
            said[f"[{sid}] {' '.join(args)}"] = invoke(*args, db=db).output
    assert len(said) > 100
    found = {
        name: line.strip()
        for name, text in said.items()
        for line in text.splitlines()
        if ISSUE_OR_SEED.search(line)
    }
    assert found == {}
    assert "rules: Terran Engine SRD v0.4.5" in said["systems"]
    assert "rules from Spellwoven: Rules for the Game" in said["[spellwoven] systems spellwoven"]
    assert (
        '(Spellwoven: Rules for the Game, "Degrees of Failure")'
        in said["[spellwoven] record condition-removed --help"]
    )
