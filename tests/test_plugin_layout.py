"""Plugins alike: a bundled rule system split into modules keeps to the rooms of
docs/architecture.md "A rule-system plugin", and its system.py is wiring only. No room is
required: a small system is one module (what `campaign plugin new` writes)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the modules a plugin package split by meaning may have (a module may be a package)
LAYOUT = ("__init__", "events", "state", "rules", "appliers", "words", "sheet", "odds", "system")
#: what a plugin may add: its own CLI commands
OPTIONAL = ("commands",)
CONVERTED = ["d20-world", "decision-dice", "terran-engine", "wyrd-engine", "spellwoven"]


def package(sid: str) -> Path:
    return ROOT / "plugins" / sid / ("ledger_" + sid.replace("-", "_"))


def rooms(folder: Path) -> set[str]:
    return {p.stem for p in folder.glob("*.py")} | {
        p.name for p in folder.iterdir() if p.is_dir() and (p / "__init__.py").exists()
    }


@pytest.mark.parametrize("sid", CONVERTED)
def test_a_split_plugin_keeps_to_the_named_rooms(sid):
    found = rooms(package(sid))
    assert "__init__" in found
    assert found <= set(LAYOUT) | set(OPTIONAL), (
        f"{sid} has {sorted(found - set(LAYOUT) - set(OPTIONAL))}"
    )


@pytest.mark.parametrize("sid", CONVERTED)
def test_the_system_class_is_wiring_only(sid):
    """No method that only hands over to a function elsewhere: the system class composes
    the mixins and sets its attributes, in ``system.py`` or in the package's ``__init__.py``
    (its module's length is a budget of bench/budgets.py)."""
    import inspect

    from ledger.rules.plugins import rule_systems

    system = type(rule_systems()[sid])
    path = Path(inspect.getsourcefile(system) or "")
    assert path.parent == package(sid) and path.stem in ("system", "__init__"), path
    (cls,) = [
        n for n in ast.parse(path.read_text()).body
        if isinstance(n, ast.ClassDef) and n.name == system.__name__
    ]  # fmt: skip
    methods = [n.name for n in cls.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    assert methods == [], f"{sid}'s {path.name} defines methods {methods}"


@pytest.mark.parametrize("sid", CONVERTED)
def test_describing_and_applying_go_through_the_decorators(sid):
    """No plugin overrides RuleSystem.describe (the base dispatches through @describes), and
    every odds chart is wired by ``chart``, not by overriding odds_series/draw_odds."""
    from ledger.rules.plugins import rule_systems
    from ledger.rules.system import RuleSystem

    system = type(rule_systems()[sid])
    assert system.describe is RuleSystem.describe, f"{sid} overrides describe"
    assert system.odds_series is RuleSystem.odds_series and system.draw_odds is RuleSystem.draw_odds
    assert system.chart == ".odds"
    assert system.describers(rule_systems()[sid]), f"{sid} has no @describes method"
