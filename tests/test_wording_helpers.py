"""The core's helpers for a rule system's words: ``fill`` (event ``line`` templates),
``entry_changes`` (what came, changed and went in a named collection), ``name_in`` and
``closest_name`` (a typed name among a sheet's names) and ``signed``."""

from __future__ import annotations

import jinja2
import msgspec
import pytest

from ledger import (
    Event,
    RuleError,
    closest_name,
    counted,
    entry_changes,
    fill,
    find_name,
    name_in,
    signed,
)
from ledger.rules.wording import Wording


def test_fill_formats_plain_templates_and_jinja_ones():
    assert (
        fill("{character} loses {item}", {"character": "ann", "item": "rope"}) == "ann loses rope"
    )
    assert fill("{dice[0]} {value:+d}", {"dice": [4, 2], "value": 3}) == "4 +3"
    jinja = "{{ who }} takes {{ n }}{% if why %} ({{ why }}){% endif %}"
    assert fill(jinja, {"who": "ann", "n": 2, "why": ""}) == "ann takes 2"
    assert fill(jinja, {"who": "ann", "n": 2, "why": "a fall"}) == "ann takes 2 (a fall)"
    assert fill("{{ '%+d' % d }}{{ xs | join(', ') }}", {"d": -1, "xs": ["a", "b"]}) == "-1a, b"
    assert fill("  {{ a }}\n", {"a": "<b>"}) == "  <b>\n"  # nothing escaped, spaces kept
    with pytest.raises(KeyError):
        fill("{missing}", {})
    with pytest.raises(jinja2.UndefinedError):
        fill("{{ missing }}", {})


class Fell(Event, frozen=True, kw_only=True, tag="test-words.fell"):
    line = "{{ character }} falls{% if metres %} {{ metres }} m{% endif %}"
    character: str
    metres: int = 0


def test_an_event_line_in_jinja_is_filled_by_describe():
    assert Wording().describe(Fell(character="ann")) == "ann falls"
    assert Wording().describe(Fell(character="ann", metres=3)) == "ann falls 3 m"


class Leapt(Event, frozen=True, kw_only=True, tag="test-words.leapt"):
    line = "{{ character }} leaps {{ feet(metres) }}; {{ metres }} m"
    character: str
    metres: int


def test_a_line_calls_the_systems_line_names_and_a_field_wins_over_one():
    class Words(Wording):
        line_names = {"feet": lambda m: f"{round(m * 3.28)} ft", "metres": "not a field"}

    assert Words().describe(Leapt(character="ann", metres=3)) == "ann leaps 10 ft; 3 m"


def test_entry_changes_of_a_mapping_in_order():
    said = entry_changes(
        {"Might": 1, "Grit": 2, "Wits": 0},
        {"Grit": 1, "Luck": 0, "Might": 3, "Wits": 0},
        new="new stat {name} {now:+d}",
        changed="{name} {moved} to {now:+d} (was {was})",
        gone="{name} gone",
    )
    assert said == ["Grit fell to +1 (was 2)", "new stat Luck +0", "Might rose to +3 (was 1)"]
    assert entry_changes({"a": 1}, {"b": 2}, gone="{name} gone (was {was})") == ["a gone (was 1)"]
    assert entry_changes({"m": "x"}, {"m": "y"}, changed="{name} {moved}") == ["m changed"]
    assert entry_changes({"m": 1}, {"m": 2}) == []  # nothing said when nothing is asked


class Item(msgspec.Struct, frozen=True):
    name: str
    die: str | None = None


def test_entry_changes_of_named_entries_values_and_functions():
    before = [Item("Kit", "d8"), Item("Rope"), Item("Lamp", "d6")]
    after = [Item("Lamp", "d6"), Item("Kit", "d6"), Item("Axe", "d4")]
    said = entry_changes(
        before,
        after,
        value=lambda item: item.die,
        new="gains {{ name }}{% if now %} ({{ now }}){% endif %}",
        changed=lambda name, was, now: f"{name} {was} → {now}",
        gone=lambda name, was: None if name == "Rope" else f"loses {name}",
    )
    assert said == ["Kit d8 → d6", "gains Axe (d4)"]
    assert entry_changes(
        ["Tired"], ["Sore", "Tired"], new="now {name}", gone="no longer {name}"
    ) == ["now Sore"]
    assert entry_changes(["Tired"], [], new="now {name}", gone="no longer {name}") == [
        "no longer Tired"
    ]


def test_name_in_and_closest_name():
    names = ["Might", "Agility", "Wits"]
    assert name_in("might", names) == "Might"
    assert name_in("AGILITY", iter(names)) == "Agility"
    assert name_in(" might", names) is None  # spaces are the caller's to strip
    assert name_in("Luck", names) is None
    assert name_in("strasse", ["Straße"]) == "Straße"  # casefold
    assert closest_name("Agilty", names) == "Agility"
    assert closest_name("AGILTY", names) == "Agility"  # then ignoring case
    assert closest_name("Zzz", names) is None
    assert closest_name("x", []) is None


def test_find_name():
    names = ["Might", "Agility", "Wits"]
    assert find_name(" might ", names, "stat") == "Might"
    with pytest.raises(RuleError) as err:
        find_name("Mght", iter(names), "stat")
    assert (
        str(err.value)
        == "no stat named 'Mght' (known: Might, Agility, Wits); did you mean 'Might'?"
    )
    with pytest.raises(RuleError, match=r"no tracker named 'Ammo' \(known: none\)$"):
        find_name("Ammo", [], "tracker")


def test_counted():
    assert [counted(n, "roll") for n in (0, 1, 2)] == ["0 rolls", "1 roll", "2 rolls"]
    assert counted(1, "success", "successes") == "1 success"
    assert counted(-1, "success", "successes") == "-1 successes"


def test_signed():
    assert [signed(n) for n in (2, 0, -1)] == ["+2", "0", "−1"]
