"""`campaign plugin new`: the template a stranger starts from, built as a stranger would.

The slow test builds the generated plugin in a fresh virtual environment (core from this
repo, the plugin with plain editable install), runs its own tests, and checks that
`campaign systems` lists it and `campaign odds NAME --plot` draws its own chart.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.rules.scaffold import TEMPLATES, names

ROOT = Path(__file__).parent.parent


def test_the_template_is_small_and_complete():
    files = sorted(TEMPLATES.rglob("*.j2"))
    assert sum(len(f.read_text().splitlines()) for f in files) < 300
    system = (TEMPLATES / "package" / "system.py.j2").read_text()
    for part in ("def create_sheet", "def resolve", "@applies", "def advance", "def odds(",
                 "def odds_series", "def draw_odds", "def recap_lines", "def harm_event"):  # fmt: skip
        assert part in system, part
    assert "tool.uv" not in (TEMPLATES / "pyproject.toml.j2").read_text()  # plain pip


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
    assert sorted(Path(f).relative_to(tmp_path / "coin-flip").as_posix() for f in out["files"]) == [
        "README.md",
        "ledger_coin_flip/__init__.py",
        "ledger_coin_flip/system.py",
        "pyproject.toml",
        "tests/test_coin_flip.py",
    ]
    source = (tmp_path / "coin-flip" / "ledger_coin_flip" / "system.py").read_text()
    compile(source, "system.py", "exec")
    assert 'tag="coin-flip.rolled"' in source and "class CoinFlip(RuleSystem)" in source
    assert "{{" not in source


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

    assert "passed" in run(str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(plugin / "tests"))
    assert "coin-flip" in run(str(bindir / "campaign"), "systems")
    run(str(bindir / "campaign"), "odds", "coin-flip", "--target", "9", "--plot", "odds.svg")
    svg = (tmp_path / "odds.svg").read_text()
    assert "Coin Flip: 2d6 + skill against 9" in svg  # its own chart, not the generic bars
