"""The public API for plugin authors: what `ledger` exports, and that plugins use nothing else."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

import ledger
import ledger.testing
from ledger import RuleError

ROOT = Path(__file__).parent.parent
#: the modules a plugin may import from (docs/plugin-guide.md "Public API")
PUBLIC = {"ledger": ledger.__all__, "ledger.rules.charts": None, "ledger.testing": ledger.testing.__all__}


def ledger_imports(path: Path):
    """``(line, module, names)`` of every import of ``ledger`` or a submodule in ``path``."""
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "ledger" or alias.name.startswith("ledger."):
                    yield node.lineno, alias.name, []
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "ledger" or node.module.startswith("ledger."):
                yield node.lineno, node.module, [a.name for a in node.names]


def plugin_files():
    return sorted((ROOT / "plugins").rglob("*.py"))


def test_plugins_import_only_the_public_api():
    bad = []
    for path in plugin_files():
        for line, module, names in ledger_imports(path):
            where = f"{path.relative_to(ROOT)}:{line}"
            if module not in PUBLIC:
                bad.append(f"{where}: imports {module} (use ledger, ledger.rules.charts, ledger.testing)")
                continue
            exported = PUBLIC[module]
            for name in names:
                if exported is not None and name not in exported:
                    bad.append(f"{where}: {module}.{name} is not in {module}.__all__")
    assert bad == []
    assert len(plugin_files()) > 20  # the scan sees the plugins


def test_the_scan_catches_an_internal_import(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text(
        "from ledger.dice import PhysicalDice\n"
        "import ledger.store\n"
        "def f():\n    from ledger.cli.play import describe\n"
        "from . import ledger_helpers\n"
    )
    assert [m for _, m, _ in ledger_imports(path)] == ["ledger.dice", "ledger.store", "ledger.cli.play"]


def test_every_public_name_resolves_and_is_documented():
    guide = (ROOT / "docs" / "plugin-guide.md").read_text()
    section = guide.split("## Public API", 1)[1].split("\n## ", 1)[0]
    for name in ledger.__all__:
        assert getattr(ledger, name) is not None
        assert f"`{name}`" in section, f"{name} is not in docs/plugin-guide.md Public API"
    for name in ledger.testing.__all__:
        assert f"`{name}`" in section, name
    assert "`ledger.rules.charts`" in section
    with pytest.raises(AttributeError, match="no attribute 'Ledger'"):
        ledger.Ledger  # noqa: B018


def test_import_ledger_stays_lean():
    code = "import sys, ledger; print(sorted(m for m in ('ledger.cli', 'ledger.campaign.aggregate', 'click', 'matplotlib') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_testing_roll_and_apply_with_the_toy_system():
    from ledger.testing import apply, roll
    from tests.toy import Hurt, Toy

    system = Toy().configure({})
    state = system.initial_state("ann", "Ann", system.create_sheet({"skills": {"brawl": 2}}))
    event = roll(system, state, "brawl", "3,4", character="ann", name="Ann", target=9)
    assert (event.total, event.outcome) == (9, "success")
    assert apply(system, state, event, Hurt(character="ann", amount=3)).hp == 7
    with pytest.raises(ledger.DiceError):
        roll(system, state, "brawl", "3,4,5")  # a face left over
    with pytest.raises(RuleError):
        apply(system, state, Hurt(character="ann", amount=-1))


def test_testing_roll_names_a_result_that_does_not_rederive():
    import msgspec

    from ledger.testing import roll
    from tests.toy import Toy

    class Cheat(Toy):
        def resolve(self, state, request, dice):
            event = super().resolve(state, request, dice)
            return msgspec.structs.replace(event, total=event.total + 1)

        def rederive(self, state, event, *, name):
            return Toy.resolve(self, state, self.request_of(event), ledger.ReplayDice(event))

    system = Cheat().configure({})
    state = system.initial_state("ann", "Ann", {"skills": {"brawl": 2}})
    with pytest.raises(AssertionError, match="does not re-derive: recorded total 10"):
        roll(system, state, "brawl", "3,4")


def test_testing_registered_and_campaign_cli(tmp_path):
    from ledger.testing import campaign_cli, registered
    from tests.toy import Toy

    campaign = campaign_cli(tmp_path / "ledger.db")
    with registered(Toy()):
        assert campaign("new", "box", "--system", "toy").exit_code == 0
        assert "toy" in campaign("systems").output
    result = campaign("systems")
    assert "toy" not in result.output.split()  # unregistered after the block


def third_party_imports(folder: Path) -> set[str]:
    """Top-level names of the modules imported in ``folder`` that are neither the standard
    library, ``ledger``, nor the folder's own packages."""
    own = {p.name for p in folder.iterdir() if p.is_dir()}
    found = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            found |= {n.split(".")[0] for n in names}
    return {n for n in found if n not in sys.stdlib_module_names and n != "ledger" and n not in own}


def declared(pyproject: Path, extra: str | None = None) -> set[str]:
    """The distributions a pyproject requires (and its optional ``extra``), as import names."""
    import re
    import tomllib

    project = tomllib.loads(pyproject.read_text())["project"]
    deps = project["dependencies"] + (project["optional-dependencies"][extra] if extra else [])
    return {re.split(r"[<>=!~ \[;]", d, maxsplit=1)[0].replace("-", "_") for d in deps}


@pytest.mark.parametrize("folder", sorted(p for p in (ROOT / "plugins").iterdir() if p.is_dir()))
def test_each_plugin_declares_what_it_imports(folder):
    assert third_party_imports(folder) <= declared(folder / "pyproject.toml")


def test_the_core_declares_what_it_imports_and_no_plugins_library():
    core = declared(ROOT / "pyproject.toml")
    imported = third_party_imports(ROOT / "ledger")
    names = {"sqlite_utils": "sqlite_utils", "prompt_toolkit": "prompt_toolkit"}
    # ledger.testing's contracts are pytest classes: pytest is the `testing` extra's
    assert {names.get(n, n) for n in imported} <= core | {"pytest"}
    assert "pytest" not in core and "pytest" in declared(ROOT / "pyproject.toml", "testing")
    for path in (ROOT / "ledger").rglob("*.py"):  # and only ledger.testing imports it
        if "testing" not in path.relative_to(ROOT / "ledger").parts:
            assert not re.search(r"^\s*(import|from) pytest\b", path.read_text(), re.M), path
    assert "icepool" not in imported and "icepool" not in core  # spellwoven's, declared there
