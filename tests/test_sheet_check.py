"""check_sheet: a sheet read into a msgspec Struct, every problem named with its TOML path."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
import pytest

from ledger import RuleError, check_sheet

Rank = Annotated[int, msgspec.Meta(ge=0, le=5)]


class Item(msgspec.Struct, kw_only=True):
    name: Annotated[str, msgspec.Meta(min_length=1)]
    note: str = ""


class Sheet(msgspec.Struct, kw_only=True):
    skills: Annotated[dict[str, Rank], msgspec.Meta(description="a [skills] table")]
    kind: Literal["pc", "npc"] = "pc"
    equipment: list[Item] = []
    level: int | None = None


def problems(data, **kw) -> list[str]:
    with pytest.raises(RuleError) as err:
        check_sheet(Sheet, data, **kw)
    return err.value.problems


def test_a_good_sheet_is_read_into_the_struct():
    sheet = check_sheet(Sheet, {"skills": {"athletics": 2}, "equipment": [{"name": "Rope"}]})
    assert sheet == Sheet(skills={"athletics": 2}, equipment=[Item(name="Rope")])


def test_three_mistakes_are_three_sentences_with_their_paths():
    assert problems({"skills": {"athletics": "five", "Rifle shot": 7}, "kind": "god"}) == [
        'skills.athletics: expected an integer from 0 to 5, got "five"',
        'skills."Rifle shot": expected an integer from 0 to 5, got 7',
        "kind: expected one of 'pc', 'npc', got \"god\"",
    ]


def test_arrays_count_from_one_and_unknown_and_missing_fields_are_named():
    got = problems({"equipment": [{"name": "Rope"}, {"note": "x"}, 3], "levle": 2})
    assert got == [
        "levle: not a field of the sheet (it has equipment, kind, level, skills); "
        "did you mean 'level'?",
        "skills: missing, expected a [skills] table",
        "equipment[2].name: missing, expected text, not empty",
        "equipment[3]: expected a table of name, note, got 3",
    ]


def test_booleans_are_not_numbers_and_not_a_table_is_one_sentence():
    assert problems({"skills": {"a": True}, "level": 1.5}) == [
        "skills.a: expected an integer from 0 to 5, got true",
        "level: expected an integer, got 1.5",
    ]
    assert problems(["skills"]) == [
        "the sheet: expected a table of skills, kind, equipment, level, got an array"
    ]


def test_rules_see_what_could_be_read_and_add_their_sentences():
    seen = []

    def rules(sheet: Sheet):
        seen.append(sheet)
        if sheet.kind == "pc" and not sheet.equipment:
            yield "equipment: a PC starts with something"

    got = problems({"skills": {"a": 1, "b": 9}}, rules=rules)
    assert got == [
        "skills.b: expected an integer from 0 to 5, got 9",
        "equipment: a PC starts with something",
    ]
    assert seen == [Sheet(skills={"a": 1})]  # the refused entry left out
    seen.clear()
    assert problems({"kind": "pc"}, rules=rules) == ["skills: missing, expected a [skills] table"]
    assert seen == []  # a required field unread: the rules are not asked
