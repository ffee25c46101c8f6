"""Hostile numbers: every numeric input has a range; deep nesting and far dates get
one clear line, never "Error: unexpected ..."."""

from __future__ import annotations

import json

import pytest

from ledger.rules.plugins import rule_systems


def one_line_error(result, code=(1, 2)) -> str:
    assert result.exit_code in code, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error:"), result.output
    assert "unexpected" not in lines[0]
    return lines[0]


def test_every_numeric_param_of_every_system_has_a_range():
    for sid, system in rule_systems().items():
        for attr in ("roll_params", "odds_params"):
            for p in getattr(system, attr):
                if p.type is int:
                    assert p.min is not None and p.max is not None, (sid, attr, p.name)


@pytest.mark.parametrize(
    "args",
    [
        ["odds", "terran-engine", "--pool", "100000"],  # Seen: ValueError
        ["odds", "decision-dice", "--stat", "99999999999999999999"],  # Seen: never returned
        ["odds", "decision-dice", "--stat", "100000"],  # Seen: took 6 s
        ["odds", "decision-dice", "--modifier", "1", "--modifier", "-101"],
        ["odds", "spellwoven", "--skill", "21"],
        ["odds", "wyrd-engine", "--skill", "-11"],
        ["odds", "d20-world", "--proficiency", "9" * 5000],
    ],
)
def test_odds_refuse_numbers_out_of_range_without_hanging(invoke, args):
    import time

    start = time.perf_counter()
    line = one_line_error(invoke(*args), code=(2,))
    assert time.perf_counter() - start < 60  # bounds a hang (a 5000-digit power), not speed
    assert "--" in line


def test_help_shows_the_ranges(invoke):
    text = invoke("odds", "decision-dice", "--help").output
    assert "-100<=x<=100" in text


def test_roll_params_are_bounded_by_the_campaign_system(tmp_path, invoke, frozen):
    from ledger.cli.demo import bundled_campaigns

    sheet = next((bundled_campaigns() / "grand-casebook" / "characters").glob("*.toml"))
    assert invoke("new", "case", "--system", "wyrd-engine").exit_code == 0
    assert invoke("character", "add", "--sheet", str(sheet)).exit_code == 0
    assert invoke("session", "start").exit_code == 0
    cid = json.loads(invoke("character", "list", "--json").output)[0]["character"]
    line = one_line_error(invoke("roll", cid, "athletics", "--boost", "3"), code=(2,))
    assert "--boost" in line and "1<=x<=2" in line


def test_as_of_past_the_year_9999_is_refused(toy_campaign):
    # Seen: --as-of 9999-12-31T23:59:59-14:00 ended in OverflowError
    line = one_line_error(toy_campaign("sheet", "ann", "--as-of", "9999-12-31T23:59:59-14:00"))
    assert "9999" in line


def test_deeply_nested_import_is_refused(toy_campaign, tmp_path, db_path):
    # Seen: an import with JSON nested 50,000 deep ended in RecursionError
    from .test_reliability_fuzz import fingerprint

    deep = "[" * 50_000 + "]" * 50_000
    line = {"seq": 1, "campaign": "toybox", "data": "X"}
    path = tmp_path / "deep.ndjson"
    path.write_text(json.dumps(line).replace('"X"', deep) + "\n")
    before = fingerprint(db_path)
    assert "too deeply" in one_line_error(toy_campaign("import", str(path)))
    assert fingerprint(db_path) == before


def test_deeply_nested_sheet_is_refused(toy_campaign, tmp_path, db_path):
    # Seen: a TOML sheet nested 5,000 deep ended in RecursionError
    from .test_reliability_fuzz import fingerprint

    path = tmp_path / "deep.toml"
    path.write_text('name = "Deep"\nskills = ' + "[" * 5000 + "]" * 5000 + "\n")
    before = fingerprint(db_path)
    assert "too deeply" in one_line_error(toy_campaign("character", "add", "--sheet", str(path)))
    assert fingerprint(db_path) == before
