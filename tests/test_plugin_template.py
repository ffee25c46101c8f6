"""`campaign plugin new`: the template a stranger starts from, built as a stranger would.

The generated package is one module (events, state, the system class, the registration
hook), under 300 lines, with its pyproject, README and tests. Type-checked with mypy
outside this repository it has no errors (the core ships ``py.typed`` and
``ledger.testing`` is typed for plugin authors), and its own tests pass, the shipped
``RuleSystemContract`` among them. Imported and registered in process, the sixth system
gets every read and write of the core with no code beyond the template: sheet, log,
recap, verify, audit, odds and their chart, a correction, `campaign record`, and the web
roll form. The slow test builds it in a fresh virtual environment (core from this repo,
the plugin with plain editable install), runs its own tests, and checks that `campaign
systems` lists it and `campaign odds NAME --plot` draws its own chart.
"""

from __future__ import annotations

import html
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ledger.rules.scaffold import TEMPLATES, names, write_plugin
from ledger.testing import registered

from .test_public_api import PUBLIC, ledger_imports

ROOT = Path(__file__).parent.parent
#: what `campaign plugin new coin-flip` writes, relative to its folder
FILES = ["README.md", "ledger_coin_flip/__init__.py", "pyproject.toml", "tests/test_coin_flip.py"]


def test_the_template_is_one_module_in_under_300_lines(tmp_path):
    written = write_plugin("coin-flip", tmp_path)
    root = tmp_path / "coin-flip"
    assert sorted(p.relative_to(root).as_posix() for p in written) == FILES
    code = (root / "ledger_coin_flip" / "__init__.py").read_text()
    assert len(code.splitlines()) < 300
    parts = (
        "class Rolled(Roll", "class Hurt(Event", "class State(msgspec.Struct",
        "class Options(msgspec.Struct", "class CoinFlip(RuleSystem[State, Options])",
        "def resolve", "def rederive", "def advance", "def harm_event",
        "def skills_of", "@applies(Hurt)", "@describes(Rolled)", "def verdict",
        "def describe_changes", "def recap_lines", "def create_sheet", "def initial_state",
        "def npc_sheet", "def sheet_layout", "def odds(", "def odds_series(self",
        "def draw_odds(self", "sections =", "example_roll =", "has_harm = True",
        "min=2, max=15", "suggestions=", "def register_rule_systems",
    )  # fmt: skip
    assert [p for p in parts if p not in code] == []
    assert "def request_of" not in code  # each roll keeps its inputs: the default reads them
    tests = (root / "tests" / "test_coin_flip.py").read_text()
    assert "class TestContract(RuleSystemContract):" in tests
    assert "tool.uv" not in (TEMPLATES / "pyproject.toml.j2").read_text()  # plain pip
    readme = (root / "README.md").read_text()
    assert "pip install -e '.[test]'" in readme  # pytest comes with the test extra


def _outside(tmp_path: Path) -> Path:
    """The generated coin-flip folder, in a temporary folder outside this repository."""
    assert not tmp_path.resolve().is_relative_to(ROOT.resolve())
    write_plugin("coin-flip", tmp_path)
    return tmp_path / "coin-flip"


def test_mypy_passes_on_the_untouched_template_outside_the_repo(tmp_path):
    """This environment's mypy, with the core on its path as an installed package and
    nothing new installed: no error in the package or its (annotated) tests."""
    pytest.importorskip("mypy")
    folder = _outside(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("MYPYPATH", "PYTHONPATH")}
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull,
         "ledger_coin_flip", "tests"],
        cwd=folder, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success: no issues found in 2 source files" in done.stdout


def test_the_untouched_templates_own_tests_pass_outside_the_repo(tmp_path):
    """Its tests, run from its folder with the package registered as its entry point
    would register it (nothing installed): the contract's checks and the five examples."""
    folder = _outside(tmp_path)
    script = (
        "import sys, pytest\n"
        "import ledger_coin_flip\n"
        "from ledger.testing import registered\n"
        "with registered(ledger_coin_flip.CoinFlip()):\n"
        "    sys.exit(pytest.main(['-q', '-rA', '-p', 'no:cacheprovider', 'tests']))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(folder)
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=folder, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "15 passed" in done.stdout  # the contract's 10 checks and the template's 5 tests
    for check in ("test_verdict_words", "test_time_passing_is_pure_and_gives_the_systems_events"):
        assert f"::TestContract::{check} PASSED" in done.stdout or (
            f"PASSED tests/test_coin_flip.py::TestContract::{check}" in done.stdout
        )


def test_the_generated_plugin_imports_only_the_public_api(tmp_path):
    write_plugin("coin-flip", tmp_path)
    bad = []
    for path in sorted((tmp_path / "coin-flip").rglob("*.py")):
        for line, module, imported in ledger_imports(path):
            exported = PUBLIC.get(module, ())
            if module not in PUBLIC or (exported is not None and set(imported) - set(exported)):
                bad.append(f"{path.name}:{line}: {module} {imported}")
    assert bad == []


def test_the_generated_plugin_passes_the_repos_lint(tmp_path):
    """ruff with this repository's rules, run in the generated folder (where ``ledger`` is
    a third-party package, as for a stranger)."""
    pytest.importorskip("ruff")
    write_plugin("coin-flip", tmp_path)
    args = ["check", "--no-cache", "--select", "E,F,W,I,UP,B", "--ignore", "E501"]
    args += ["--line-length", "100", "--target-version", "py311", "."]
    done = subprocess.run(
        [sys.executable, "-m", "ruff", *args],
        cwd=tmp_path / "coin-flip",
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_names_from_the_system_id():
    assert names("coin-flip") == {
        "id": "coin-flip",
        "module": "coin_flip",
        "package": "ledger_coin_flip",
        "title": "Coin Flip",
        "cls": "CoinFlip",
    }


def test_plugin_new_writes_the_package(invoke, tmp_path):
    result = invoke("plugin", "new", "coin-flip", "--dir", str(tmp_path), "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert (
        sorted(Path(f).relative_to(tmp_path / "coin-flip").as_posix() for f in out["files"])
        == FILES
    )
    for path in (tmp_path / "coin-flip").rglob("*.py"):
        source = path.read_text()
        compile(source, path.name, "exec")
        assert "{{" not in source and "{%" not in source, path
    module = (tmp_path / "coin-flip" / "ledger_coin_flip" / "__init__.py").read_text()
    assert 'tag="coin-flip.rolled"' in module


@pytest.mark.parametrize(
    "name, code, message",
    [
        ("Coin", 2, "must be lower-case letters and digits"),
        ("coin_flip", 2, "words joined by -"),
        ("coin-", 2, "must be lower-case"),
        ("9lives", 2, "must be lower-case"),
        ("x" * 41, 2, "at most 40 characters"),
        ("spellwoven", 1, "a rule system 'spellwoven' is already installed"),
    ],
)
def test_plugin_new_refuses(invoke, tmp_path, name, code, message):
    result = invoke("plugin", "new", name, "--dir", str(tmp_path))
    assert result.exit_code == code
    assert message in result.output and "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_plugin_new_never_overwrites(invoke, tmp_path):
    (tmp_path / "coin-flip").mkdir()
    (tmp_path / "coin-flip" / "notes.txt").write_text("mine")
    result = invoke("plugin", "new", "coin-flip", "--dir", str(tmp_path))
    assert result.exit_code == 1 and "already exists" in result.output
    assert [p.name for p in (tmp_path / "coin-flip").iterdir()] == ["notes.txt"]
    missing = invoke("plugin", "new", "coin-flip", "--dir", str(tmp_path / "nope"))
    assert missing.exit_code == 1 and "does not exist" in missing.output


@pytest.mark.slow  # a fresh venv and a pip install: `uv run pytest -m slow`, CI's second step
def test_the_generated_plugin_in_a_fresh_venv(tmp_path):
    """What CI checks: a stranger's install, with nothing from this repo's environment."""
    from click.testing import CliRunner

    from ledger.cli import cli

    result = CliRunner().invoke(cli, ["plugin", "new", "coin-flip", "--dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python, bindir = venv / "bin" / "python", venv / "bin"
    plugin = tmp_path / "coin-flip"
    packages = ["-e", str(ROOT), "-e", str(plugin), "pytest"]
    if shutil.which("uv"):  # uses uv's cache: no download of what the repo already has
        install = ["uv", "pip", "install", "--quiet", "--python", str(python), *packages]
    else:
        install = [str(python), "-m", "pip", "install", "--quiet", *packages]
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    subprocess.run(install, check=True, env=env)

    def run(*args: str) -> str:
        done = subprocess.run(args, cwd=tmp_path, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    tests = run(str(python), "-m", "pytest", "-rA", "-p", "no:cacheprovider", str(plugin / "tests"))
    assert "15 passed" in tests  # the contract's 10 checks and the template's 5 tests
    assert "::TestContract::test_resolve_request_of_rederive_round_trip[engine]" in tests
    assert "coin-flip" in run(str(bindir / "campaign"), "systems")
    run(str(bindir / "campaign"), "odds", "coin-flip", "--target", "9", "--plot", "odds.svg")
    svg = (tmp_path / "odds.svg").read_text()
    assert "Coin Flip: 2d6 + skill against 9" in svg  # its own chart, not the generic bars


# --- a sixth system, registered in process: every read and write with no further code -------


@pytest.fixture
def sixth(tmp_path: Path) -> Iterator[ModuleType]:
    """The generated ``coin-flip`` package, imported from ``tmp_path`` and registered as a
    plugin (``ledger.testing.registered``) for one test; forgotten after it."""
    (tmp_path / "src").mkdir()
    write_plugin("coin-flip", tmp_path / "src")
    sys.path.insert(0, str(tmp_path / "src" / "coin-flip"))
    try:
        package = importlib.import_module("ledger_coin_flip")
        with registered(package.CoinFlip()):
            yield package
    finally:
        sys.path.remove(str(tmp_path / "src" / "coin-flip"))
        for name in [m for m in sys.modules if m.split(".")[0] == "ledger_coin_flip"]:
            del sys.modules[name]


@pytest.fixture
def table(sixth: ModuleType, tmp_path: Path, frozen: object) -> Any:
    """A coin-flip campaign: Ann Vance (climb 1, swim 2) and the NPC Old Tom, session 1
    open, Ann's physical climb roll at seq 5 (3 + 5 + 1 = 9 against 8: success)."""
    from .webtools import Table

    t = Table(str(tmp_path / "ledger.db"))
    (tmp_path / "ann.toml").write_text('name = "Ann Vance"\n[skills]\nclimb = 1\nswim = 2\n')
    t.ok("new", "heights", "--system", "coin-flip")
    t.ok("character", "add", "--sheet", str(tmp_path / "ann.toml"))
    t.ok("npc", "add", "Old Tom", "--skill", "climb=2")
    t.ok("session", "start")
    assert "climb 3 + 5 + 1 = 9 vs 8: success" in t.ok(
        "roll", "ann", "climb", "--target", "8", "--dice", "3,5"
    )
    return t


def test_a_sixth_system_gets_every_read_and_write(table, tmp_path):
    """Sheet, log, recap, verify, audit, odds and chart, corrections, record and advance
    of the system the template generates, with no code beyond the template."""
    t = table
    assert "swim 2 + 3 + 2 = 7 vs 9: cost" in t.ok(
        "roll", "ann", "swim", "--target", "9", "--dice", "2,3"
    )
    t.ok("roll", "ann", "climb")  # engine dice
    assert "Hit points 10 → 8" in t.ok("damage", "ann", "2")
    assert "Hit points 8 → 7" in t.ok("record", "hurt", "--character", "ann", "--amount", "1")
    sheet = t.ok("sheet", "ann")
    assert "Swim   +2" in sheet and "Climb  +1" in sheet and "Hit points  7" in sheet
    assert "Hit points" in t.ok("sheet", "ann", "--format", "html")
    assert json.loads(t.ok("sheet", "Old Tom", "--json"))["skills"] == {"climb": 2}
    log = t.ok("log")
    assert "[5] ✔ Ann Vance — climb 3 + 5 + 1 = 9 vs 8: success" in log
    assert "[6] ◐ Ann Vance — swim 2 + 3 + 2 = 7 vs 9: cost" in log
    audit = t.ok("audit", "6")
    assert 'rules: Coin Flip, "Rolling"' in audit and "draws in order: d6:2 d6:3" in audit
    # a correction: the misread faces amended, the rules resolve the roll again
    t.ok("correct", "6", "--dice", "1,2", "--reason", "misread")
    assert (
        "event 6 amended by gm (misread): faces 2 3 → 1 2; now dice 1 2, total 5, outcome failure"
        in t.ok("log")
    )
    t.ok("correct", "5", "--set", "target=10", "--reason", "the wall was higher")
    recap = t.ok("recap", "--session", "1")
    assert "success at a cost: the GM says what it costs" in recap
    assert "- Hit points 10 → 7" in recap
    t.ok("session", "end")
    advanced = t.ok("advance", "--session", "1")
    assert "climb improves" in advanced or "climb stays" in advanced
    head = t.head()
    t.ok("advance", "--session", "1")
    assert t.head() == head  # advance appends nothing twice
    verify = t.ok("verify")
    assert verify.startswith("OK:") and "roll results re-derived" in verify
    odds = t.ok("odds", "coin-flip", "--target", "8", "--plot", str(tmp_path / "odds.svg"))
    assert "skill 1:\n  success: 7/12 (58.3%)\n  cost: 1/4 (25.0%)" in odds
    assert "Coin Flip: 2d6 + skill against 8" in (tmp_path / "odds.svg").read_text()


def test_record_names_the_command_that_writes_a_roll(table):
    """`campaign record` of a roll event says `campaign roll` writes it, not that the
    system has no such event; nothing is written."""
    head = table.head()
    for event in ("rolled", "improved", "ROLLED"):
        result = table("record", event, "--character", "ann")
        assert result.exit_code == 2, result.output
        assert "is a roll, written by `campaign roll`" in result.output
        assert "has no event" not in result.output and "Traceback" not in result.output
    assert "coin-flip.improved is a roll" in table("record", "improved", "--help").output
    assert "has no event 'leaped'" in table("record", "leaped").output  # unknown: as before
    assert table.head() == head


def test_a_sixth_system_gets_the_web_roll_form(table):
    """The phone's roll form is built from the template's RollParam (range, suggestions)
    and example roll, and records a player's physical roll through the same rules."""
    from .webtools import client, post

    with client(table, "gm") as gm:
        assert "Hit points" in gm.get("/sheet/ann").text
    token = table.link("Dana", "ann")
    with client(table) as c:
        assert c.get(f"/a/{token}").status_code == 200
        form = c.get("/roll/ann").text
        assert 'name="target" type="number"' in form and 'min="2"' in form and 'max="15"' in form
        shown = re.sub(r"<script.*?</script>|<[^>]+>", " ", form.split("<main", 1)[1], flags=re.S)
        assert "--" not in html.unescape(shown)  # no command line on a phone (a nonce may hold --)
        assert 'name="skill" value="climb"' in form and 'name="skill" value="swim"' in form
        refused = post(c, "/roll/ann", {"skill": "climb", "target": "16", "dice": "3,5"})
        assert refused.status_code == 422
        refused = post(c, "/roll/ann", {"skill": "fly", "target": "8", "dice": "3,5"})
        assert refused.status_code == 422 and "Ann Vance has no skill &#39;fly&#39;" in refused.text
        r = post(c, "/roll/ann", {"skill": "swim", "target": "8", "dice": "4,4"})
        assert r.status_code == 303, r.text
        seq = int(r.headers["location"].split("#e")[1])
        assert "swim 4 + 4 + 2 = 10 vs 8: success" in c.get("/log").text
    rec = [e for e in json.loads(table.ok("log", "--json")) if e["seq"] == seq][0]
    assert rec["actor"] == "Dana" and rec["data"]["draws"] == [[6, 4], [6, 4]]
    assert table.ok("verify").startswith("OK:")
