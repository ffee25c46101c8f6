"""`ledger/` never knows a rule system: no system id, no plugin package and no
system-specific code in the core. What a plugin's game needs, it supplies through the
`RuleSystem` interface (charts, recap lines, sheet layout, harm, contests)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "ledger"
PLUGINS = sorted(p.name for p in (ROOT / "plugins").iterdir() if p.is_dir())
#: every bundled system's id, its package name and its id with underscores
NAMES = {n for p in PLUGINS for n in (p, "ledger_" + p.replace("-", "_"), p.replace("-", "_"))}
#: finds whether a lower-cased word holds any of :data:`NAMES` (one scan, not one a name)
ANY_NAME = re.compile("|".join(map(re.escape, sorted(NAMES))))


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string nodes that are docstrings (prose may give an example system)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def _help_texts(tree: ast.AST) -> set[int]:
    """ids of the strings given as ``help=``/``epilog=`` to click (examples for a person)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg in ("help", "epilog"):
            out.update(id(n) for n in ast.walk(node.value) if isinstance(n, ast.Constant))
    return out


def _code_mentions(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(), str(path))
    prose = _docstrings(tree) | _help_texts(tree)
    found = []
    for node in ast.walk(tree):
        words: list[str] = []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in prose:
            words = [node.value]
        elif isinstance(node, ast.Name):
            words = [node.id]
        elif isinstance(node, ast.Attribute):
            words = [node.attr]
        elif isinstance(node, ast.alias):
            words = [node.name]
        for word in words:
            if not ANY_NAME.search(word.lower()):
                continue
            hits = sorted(n for n in NAMES if n in word.lower())
            if hits:
                found.append(f"{path.relative_to(root)}:{getattr(node, 'lineno', '?')}: {hits}")
    return found


def test_the_bundled_systems_are_known():
    assert {"wyrd-engine", "d20-world", "decision-dice", "terran-engine", "spellwoven"} <= NAMES


@pytest.mark.parametrize("path", sorted(CORE.rglob("*.py")), ids=lambda p: str(p.relative_to(CORE)))
def test_no_core_module_names_a_rule_system_in_its_code(path):
    assert _code_mentions(path) == []


def test_no_core_template_names_a_rule_system():
    for path in sorted((CORE / "templates").rglob("*.j2")):
        if "plugin" in path.relative_to(CORE / "templates").parts[:1]:
            continue  # the template of a new plugin names no bundled system either, but is prose
        text = path.read_text().lower()
        assert not [n for n in NAMES if n in text], path


def test_the_check_finds_a_system_id_in_code(tmp_path):
    """The test above could fail: a string or a name with a system id in code is found."""
    bad = tmp_path / "bad.py"
    bad.write_text('"""Docs may say wyrd-engine."""\nif system.id == "wyrd-engine":\n    pass\n')
    assert len(_code_mentions(bad, tmp_path)) == 1

