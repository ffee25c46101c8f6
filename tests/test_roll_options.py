"""Each roll option is declared once (``RuleSystem.roll_options``) and every front end reads
that declaration; refusals name options by their labels and carry the option they are
about, never a command-line flag."""

from __future__ import annotations

import ast
import re
import sys
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
REFUSALS = {"RuleError", "DiceError", "ParamError", "NothingToRoll", "AutomaticResult",
            "Refused", "NotFound"}  # fmt: skip
FLAG = re.compile(r"--[a-z]|--$|^--")  # a flag, or one put together (``"--" + name``)


def _own(scope: ast.AST) -> list[ast.AST]:
    """The nodes of a module or function, those of the functions inside it left out."""
    out, todo = [], list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            todo.extend(ast.iter_child_nodes(node))
    return out


def _strings(node: ast.AST, names: dict[str, list[str]]) -> list[str]:
    """The string constants in ``node``, and those assigned to a name it uses (``usage =
    "write --vs as ..."`` then ``RuleError(f"...; {usage}")``) in the same function."""
    out = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            out.append(sub.value)
        elif isinstance(sub, ast.Name):
            out.extend(names.get(sub.id, ()))
    return out


def refusal_texts(root: Path) -> list[tuple[str, int, str]]:
    """Every string written into a refusal raised under ``root`` (``ledger/cli`` left out:
    the command line words flags itself): ``(file, line, text)``."""
    out = []
    for path in sorted(root.rglob("*.py")):
        if (
            "tests" in path.parts
            or path.parent.name == "cli"
            and path.parent.parent.name == "ledger"
        ):
            continue
        tree = ast.parse(path.read_text())
        scopes = [
            tree,
            *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)),
        ]
        for scope in scopes:
            own = _own(scope)
            names: dict[str, list[str]] = {}
            for _ in range(3):  # a name built from names (``hint`` into ``named``)
                assigned = [n for n in own if isinstance(n, ast.Assign)]
                grown: dict[str, list[str]] = {}
                for a in assigned:
                    for t in a.targets:
                        if isinstance(t, ast.Name):
                            grown.setdefault(t.id, []).extend(_strings(a.value, names))
                for call in own:  # problems.append("...") then RuleError(*problems)
                    f = call.func if isinstance(call, ast.Call) else None
                    if isinstance(f, ast.Attribute) and f.attr in ("append", "extend", "insert"):
                        if isinstance(f.value, ast.Name):
                            for arg in call.args:
                                grown.setdefault(f.value.id, []).extend(_strings(arg, names))
                names = grown
            for call in own:
                if not isinstance(call, ast.Call):
                    continue
                f = call.func
                name = f.id if isinstance(f, ast.Name) else getattr(f, "attr", "")
                if name in REFUSALS:
                    for arg in call.args:
                        out.extend((path.name, call.lineno, t) for t in _strings(arg, names))
    return sorted(set(out))


@pytest.mark.parametrize("where", ["plugins", "ledger"])
def test_no_rule_or_dice_refusal_names_a_command_line_flag(where):
    """A rule, dice or core refusal names an option by its label and carries it as
    ``param``; the CLI adds the flag (``ledger.cli.base.flagged``), the form places it by
    the field, the API points at it."""
    texts = refusal_texts(ROOT / where)
    assert texts  # the walk finds the refusals it checks
    flagged = [f"{p}:{line}: {t!r}" for p, line, t in texts if FLAG.search(t)]
    assert not flagged, "\n".join(flagged)


def test_the_check_sees_a_flag_in_a_refusal(tmp_path):
    (tmp_path / "bad.py").write_text(
        'raise RuleError(f"give --target {x}")\nraise RuleError(", ".join("--" + w for w in x))\n'
        'def f(x):\n    usage = "write --vs as S"\n    raise Refused(f"no {x}; {usage}")\n'
        'def g(x):\n    hint = " or --dice"\n    named = f"amend{hint}"\n    raise RuleError(named)\n'
        'def h(x):\n    problems = []\n    problems.append("no --dr")\n    raise RuleError(*problems)\n'
    )
    found = sorted(t for _, _, t in refusal_texts(tmp_path) if FLAG.search(t))
    assert found == sorted(["--", " or --dice", "give --target ", "write --vs as S", "no --dr"])


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
        assert not {"roll_params", "odds_params", "roll_labels", "refusal_fields"} & set(
            vars(klass)
        ) - (set(vars(RuleSystem)) if klass is RuleSystem else set()), klass


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
    assert (
        "“Ego check” is one of simultaneous, sequential, not 'sometimes' (--ego-check)"
        in out.output
    )


@pytest.mark.parametrize(
    "plugin", sorted(p.name for p in (ROOT / "plugins").iterdir() if p.is_dir())
)
def test_each_option_is_constructed_once_in_a_plugins_source(plugin):
    """No second ``RollParam`` of the same name anywhere in a plugin (an odds module's own
    copy of a roll option, a form's): the CLI, the forms, the API's schema and the odds all
    read the one in ``roll_options``, each named by a constant."""
    seen: dict[str, str] = {}
    twice = []
    for path in sorted((ROOT / "plugins" / plugin).rglob("*.py")):
        if "tests" in path.parts:
            continue
        for call in ast.walk(ast.parse(path.read_text())):
            f = call.func if isinstance(call, ast.Call) else None
            if (getattr(f, "id", None) or getattr(f, "attr", None)) != "RollParam":
                continue
            assert isinstance(call, ast.Call)
            first = call.args[0] if call.args else None
            assert isinstance(first, ast.Constant), (
                f"{path.name}:{call.lineno}: name it by a constant"
            )
            where = f"{path.name}:{call.lineno}"
            if first.value in seen:
                twice.append(f"{first.value!r} at {seen[first.value]} and {where}")
            seen.setdefault(first.value, where)
    assert seen and not twice, twice
    declared = (
        [p.name for p in rule_systems()[plugin].roll_options] if plugin in rule_systems() else []
    )
    assert sorted(declared) == sorted(seen)  # every one constructed is the system's declaration


def test_the_one_module_check_sees_a_second_construction(tmp_path, monkeypatch):
    plugin = tmp_path / "plugins" / "twice"
    plugin.mkdir(parents=True)
    (plugin / "odds.py").write_text(
        'A = RollParam("dr", "x")\nB = RollParam("dr", "y", roll=False)\n'
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    with pytest.raises(AssertionError, match="'dr' at odds.py:1 and odds.py:2"):
        test_each_option_is_constructed_once_in_a_plugins_source("twice")
