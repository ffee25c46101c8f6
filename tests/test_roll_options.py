"""Each roll option is declared once (``RuleSystem.roll_options``) and every front end reads
that declaration; refusals name options by their labels and carry the option they are
about, never a command-line flag."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from ledger import RollParam, RuleSystem
from ledger.cli.options import system_options
from ledger.dice.engine import DiceError
from ledger.errors import LedgerError, RuleError
from ledger.rules.params import ParamError, pick_params
from ledger.rules.plugins import rule_systems
from ledger.web.roll_help import fields

ROOT = Path(__file__).resolve().parents[1]
SYSTEMS = sorted(rule_systems())
REFUSALS = {"RuleError", "DiceError", "ParamError", "NothingToRoll", "AutomaticResult"}
FLAG = re.compile(r"--[a-z]|--$|^--")  # a flag, or one put together (``"--" + name``)


def refusal_texts(root: Path) -> list[tuple[str, int, str]]:
    """Every string written into a refusal raised under ``root``: ``(file, line, text)``."""
    out = []
    for path in sorted(root.rglob("*.py")):
        if "tests" in path.parts:
            continue
        for call in ast.walk(ast.parse(path.read_text())):
            if not isinstance(call, ast.Call):
                continue
            f = call.func
            name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")
            if name in REFUSALS:
                for arg in call.args:
                    for node in ast.walk(arg):
                        if isinstance(node, ast.Constant) and isinstance(node.value, str):
                            out.append((path.name, call.lineno, node.value))
    return out


@pytest.mark.parametrize("where", ["plugins", "ledger/rules", "ledger/dice"])
def test_no_rule_or_dice_refusal_names_a_command_line_flag(where):
    texts = refusal_texts(ROOT / where)
    assert texts  # the walk finds the refusals it checks
    flagged = [f"{p}:{line}: {t!r}" for p, line, t in texts if FLAG.search(t)]
    assert not flagged, "\n".join(flagged)


def test_the_check_sees_a_flag_in_a_refusal(tmp_path):
    (tmp_path / "bad.py").write_text(
        'raise RuleError(f"give --target {x}")\nraise RuleError(", ".join("--" + w for w in x))\n'
    )
    assert [t for _, _, t in refusal_texts(tmp_path) if FLAG.search(t)] == ["give --target ", "--"]


def test_dice_errors_are_ledger_errors_not_value_errors():
    assert issubclass(DiceError, LedgerError) and not issubclass(DiceError, ValueError)
    assert RuleError("the label", param="time").param == "time"


@pytest.mark.parametrize(
    "old", ["roll_params", "odds_params", "roll_labels", "roll_defaults", "common_roll_params",
            "refusal_fields"],
)  # fmt: skip
def test_a_second_declaration_of_an_option_is_refused(old):
    with pytest.raises(TypeError, match="declare each option once in roll_options"):
        type("Twice", (RuleSystem,), {old: ()})


def test_one_option_declared_twice_is_refused():
    twice = (RollParam("dr", "one"), RollParam("dr", "two", roll=False))
    with pytest.raises(TypeError, match="declares 'dr' twice"):
        type("Twice", (RuleSystem,), {"roll_options": twice})


@pytest.mark.parametrize("sid", SYSTEMS)
def test_no_bundled_system_declares_options_twice(sid):
    for klass in type(rule_systems()[sid]).__mro__:
        assert not {"roll_params", "odds_params", "roll_labels", "refusal_fields"} & set(vars(klass)) - (
            set(vars(RuleSystem)) if klass is RuleSystem else set()
        ), klass


@pytest.mark.parametrize("sid", SYSTEMS)
def test_every_front_end_offers_the_declared_options(sid):
    """The CLI's ``roll``/``request`` and ``odds`` options, the roll form's fields (the GM's
    request form shows the same fields) and ``campaign systems`` rows are the declaration's."""
    from ledger.cli.commands import _param_row

    system = rule_systems()[sid]
    roll = [p.name for p in system.roll_options if p.roll]
    odds = [p.name for p in system.roll_options if p.odds]
    assert roll and odds
    assert {o.name for o in system_options("roll_params", {sid: system})} == set(roll)
    assert {o.name for o in system_options("odds_params", {sid: system})} == set(odds)
    assert sorted(f["name"] for f in fields(system, {}, fresh=True)) == sorted(roll)
    assert [r["option"] for r in map(_param_row, system.roll_params)] == [
        "--" + n.replace("_", "-") for n in roll
    ]
    labels = {f["name"]: f["label"] for f in fields(system, {}, fresh=True)}
    assert all(labels[p.name] == p.title for p in system.roll_params)
    for p in system.roll_params:  # the help a form shows names no flag
        assert "--" not in p.help, p.name


def test_a_closed_choice_is_a_select_and_refused_outside_its_set():
    system = rule_systems()["terran-engine"]
    shown = {f["name"]: f for f in fields(system, {}, fresh=True)}
    assert shown["consequence"]["kind"] == "choice"
    assert shown["consequence"]["choices"] == ["harm", "complication", "fork", "none"]
    assert shown["position"]["kind"] == "choice"
    assert pick_params(system, "roll_params", {"consequence": "Harm", "position": "+1"}) == {
        "consequence": "Harm", "position": 1,
    }  # fmt: skip
    with pytest.raises(ParamError) as bad:
        pick_params(system, "roll_params", {"consequence": "explode"})
    assert bad.value.param == "consequence" and "--" not in str(bad.value)
    assert str(bad.value) == "“Consequence” is one of harm, complication, fork, none, not 'explode'"
    with pytest.raises(ParamError, match=r"“Position .*” takes a number \(-1 to 1\), not 2"):
        pick_params(system, "roll_params", {"position": "2"})


def test_odds_read_the_roll_declaration_with_their_own_help():
    system = rule_systems()["decision-dice"]
    by_name = {p.name: p for p in system.odds_params}
    assert "stat" in by_name and "impossible" not in by_name and "adjust" not in by_name
    assert "stat" not in {p.name for p in system.roll_params}
    assert "every target 2-22" in by_name["target"].help
    assert by_name["modifier"] is next(p for p in system.roll_options if p.name == "modifier")


def test_the_cli_names_the_flag_of_a_refused_option(tmp_path):
    from click.testing import CliRunner

    from ledger.cli import cli

    out = CliRunner().invoke(cli, ["odds", "terran-engine", "--ego-check", "sometimes"])
    assert out.exit_code == 2
    assert "“Ego check” is one of simultaneous, sequential, not 'sometimes' (--ego-check)" in out.output
