"""Start-up: a one-shot ``campaign`` command imports only what it needs.

Behaviour, not timing (figures are in docs/performance.md, "Start-up"): each check runs a
fresh interpreter and looks at ``sys.modules``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: Libraries no one-shot command should pay for unless it uses them.
HEAVY = (
    "matplotlib",
    "scipy",
    "numpy",
    "starlette",
    "uvicorn",
    "psycopg",
    "prompt_toolkit",
    "rich",
    "cryptography",
    "jinja2",
    "sqlite_utils",
    "markdown_it",
    "pygments",
)

ROOT = Path(__file__).resolve().parents[1]


def modules_after(code: str, *args: str, cwd: Path = ROOT) -> set[str]:
    """The top-level and ``ledger.cli.*`` modules a fresh interpreter holds after ``code``."""
    probe = (
        f"{code}\nimport json, sys\n"
        "print(json.dumps(sorted(m for m in sys.modules)), file=sys.__stderr__)"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], cwd=cwd, capture_output=True, text=True
    )
    last = done.stderr.strip().splitlines()[-1]
    return set(json.loads(last))


def heavy_in(modules: set[str]) -> list[str]:
    return sorted(h for h in HEAVY if h in modules)


def command_modules_in(modules: set[str]) -> list[str]:
    skip = {"ledger.cli.base", "ledger.cli.lazy"}
    return sorted(m for m in modules if m.startswith("ledger.cli.") and m not in skip)


def test_importing_the_cli_imports_no_heavy_library_and_no_command_module() -> None:
    modules = modules_after("import ledger.cli")
    assert heavy_in(modules) == []
    assert command_modules_in(modules) == []


def test_version_imports_no_command_module() -> None:
    code = (
        "import sys\nfrom ledger.cli import cli\n"
        "try:\n    cli.main(['--version'], prog_name='campaign')\nexcept SystemExit:\n    pass"
    )
    modules = modules_after(code)
    assert command_modules_in(modules) == []
    assert heavy_in(modules) == []


def test_a_roll_imports_its_own_command_module_only(tmp_path: Path) -> None:
    """``campaign roll`` on a real ledger: the play commands' module and what they use, never
    the web view, the pictures, the table shell or the other commands' modules."""
    from click.testing import CliRunner

    from ledger.cli import cli

    db = str(tmp_path / "c.db")
    runner = CliRunner()
    sheet = ROOT / "campaigns" / "grand-casebook" / "characters" / "julian.toml"
    for line in (
        ["new", "casebook", "--system", "wyrd-engine"],
        ["character", "add", "--sheet", str(sheet)],
        ["session", "start"],
    ):
        done = runner.invoke(cli, ["--db", db, *line])
        assert done.exit_code == 0, done.output
    code = (
        "from ledger.cli import cli\n"
        f"rc = cli.run(['--db', {db!r}, 'roll', 'julian', 'investigate', '--dr', 'good',"
        " '--dice', '++-0'], prog_name='campaign')\n"
        "assert rc == 0, rc"
    )
    modules = modules_after(code, cwd=tmp_path)
    assert "ledger.cli.recording" in modules
    assert command_modules_in(modules) == [
        m for m in command_modules_in(modules) if m.rsplit(".", 1)[1] in ALLOWED_WITH_PLAY
    ]
    assert heavy_in(modules) == []
    # the campaign's one rule system is found without importlib.metadata (10-25 ms)
    assert "importlib.metadata" not in modules


#: What ``ledger.cli.recording`` itself imports: its helpers, no other command's module.
ALLOWED_WITH_PLAY = {"recording", "fields", "options", "output"}


def test_every_core_command_is_in_the_table_of_command_modules() -> None:
    """:data:`ledger.cli.base.COMMAND_MODULES` names, for each core command, the module
    that defines it (a missing or stale row: update the table)."""
    code = (
        "import json, sys\nfrom ledger.cli.base import cli, load_command_modules\n"
        "load_command_modules()\n"
        "print(json.dumps({n: c.callback.__module__ for n, c in dict.items(cli.commands)}),"
        " file=sys.__stdout__)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    defined = json.loads(done.stdout.strip().splitlines()[-1])
    from ledger.cli.base import COMMAND_MODULES

    assert {n: f"ledger.cli.{m}" for n, m in COMMAND_MODULES.items()} == defined


@pytest.mark.parametrize("name", ["roll", "serve", "verify", "nonesuch"])
def test_looking_one_command_up_gives_the_same_command_as_listing_them_all(name: str) -> None:
    from ledger.cli.base import cli

    found = cli.commands.get(name)
    assert (found is None) == (name == "nonesuch")
    assert (name in cli.commands) == (name != "nonesuch")
    assert sorted(cli.commands) == sorted(dict.keys(cli.commands))
    assert "roll" in list(cli.commands)


def test_the_version_shown_is_the_installed_package_version() -> None:
    import importlib.metadata

    from click.testing import CliRunner

    from ledger.cli import cli
    from ledger.cli.base import VERSION

    assert importlib.metadata.version("campaign-ledger") == VERSION
    done = CliRunner().invoke(cli, ["--version"], prog_name="campaign")
    assert done.exit_code == 0
    assert done.output == f"campaign, version {VERSION}\n"


def test_version_reads_no_package_metadata() -> None:
    code = (
        "from ledger.cli import cli\n"
        "try:\n    cli.main(['--version'], prog_name='campaign')\nexcept SystemExit:\n    pass"
    )
    assert "importlib.metadata" not in modules_after(code)


@pytest.mark.parametrize(
    "system_id",
    ["wyrd-engine", "d20-world", "decision-dice", "terran-engine", "spellwoven", "no-such-system"],
)
def test_the_fast_entry_point_reader_agrees_with_importlib_metadata(system_id: str) -> None:
    """``ledger.rules.entrypoints.find`` gives what ``importlib.metadata`` gives: module,
    attribute, distribution name (as METADATA spells it) and version, or nothing."""
    from importlib import metadata

    from ledger.rules import entrypoints

    found = entrypoints.find("ledger", system_id)
    expected = list(metadata.entry_points(group="ledger", name=system_id))
    if not expected:
        assert found is None
        return
    ep = expected[0]
    assert found is not None
    assert (found.module, found.attr) == (ep.module, ep.attr or "")
    assert ep.dist is not None
    assert (found.name, found.version) == (ep.dist.name, ep.dist.version)


def test_the_fast_entry_point_reader_reads_what_installers_write(tmp_path: Path) -> None:
    """A dist-info with an attribute, extras and comments; a legacy egg-info declaring the
    name sends the caller to importlib.metadata (``None``); the first path entry wins."""
    from ledger.rules import entrypoints

    def dist(where: Path, stem: str, name: str, text: str, suffix: str = ".dist-info") -> None:
        d = where / f"{stem}{suffix}"
        d.mkdir(parents=True)
        (d / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\n\nName: not this\n")
        (d / "entry_points.txt").write_text(text)

    first, second = tmp_path / "a", tmp_path / "b"
    dist(first, "toy_rules-1.2.3", "toy-rules", "# hi\n[console_scripts]\ntoy = x:y\n\n"
         "[ledger]\ntoy = toy_rules.plugin:Plugin.hooks [fast]\n")
    dist(second, "other-9.9", "other", "[ledger]\ntoy = other_rules\n")
    found = entrypoints.find("ledger", "toy", path=[str(first), str(second)])
    assert found == entrypoints.Found("toy_rules.plugin", "Plugin.hooks", "toy-rules", "1.2.3")
    assert entrypoints.find("ledger", "toy", path=[str(second), str(first)]) == (
        entrypoints.Found("other_rules", "", "other", "9.9")
    )
    assert entrypoints.find("ledger", "console", path=[str(first)]) is None
    legacy = tmp_path / "c"
    dist(legacy, "old_rules-0.1", "old-rules", "[ledger]\ntoy = old\n", suffix=".egg-info")
    assert entrypoints.find("ledger", "toy", path=[str(legacy), str(first)]) is None
    assert entrypoints.find("ledger", "toy", path=[str(tmp_path / "missing"), str(first)]) == found
