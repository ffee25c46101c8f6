"""The docs say what the code does: every hook and command documented, snippets that run."""

import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ledger.cli.base import cli, register_plugin_commands
from ledger.rules import hookspecs

register_plugin_commands()

DOCS = Path(__file__).parent.parent / "docs"


def hook_names():
    return [
        n for n, f in inspect.getmembers(hookspecs, inspect.isfunction) if hasattr(f, "ledger_spec")
    ]


@pytest.mark.parametrize("name", hook_names())
def test_every_hook_is_documented(name):
    spec = getattr(hookspecs, name)
    args = ", ".join(inspect.signature(spec).parameters)
    assert f"## {name}({args})" in (DOCS / "plugin-hooks.md").read_text()
    assert spec.__doc__ and ":param" in spec.__doc__


def commands(group, path=()):
    for name, command in group.commands.items():
        yield " ".join((*path, name))
        if hasattr(command, "commands"):
            yield from commands(command, (*path, name))


@pytest.mark.parametrize("path", sorted(commands(cli)))
def test_every_command_is_in_the_reference(path):
    assert f"## campaign {path}\n" in (DOCS / "cli.md").read_text()


@pytest.mark.parametrize("path", sorted(commands(cli)))
def test_every_command_has_a_docstring(path):
    command = cli
    for part in path.split():
        command = command.commands[part]
    assert command.help and len(command.help.strip()) > 10


def run_recipe(tmp_path: Path, export: Path, tail: str) -> str:
    """Run docs/events.md's two Python recipes (chain check, engine-dice ``faces``) and then
    ``tail`` on ``export``, as an outside script would; returns what it printed."""
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / "events.md").read_text(), re.S)
    script = tmp_path / "check.py"
    script.write_text(blocks[0] + "\n" + blocks[1] + tail)
    return subprocess.run(
        [sys.executable, str(script), str(export)], capture_output=True, text=True, check=True
    ).stdout


def test_export_check_snippets_run_on_a_real_export(toy_campaign, tmp_path):
    invoke = toy_campaign
    invoke("session", "start")
    rolled = json.loads(invoke("roll", "ann", "brawl", "--json").output)
    invoke("record", "secret-noted", "--character", "bob", "--value", "5")
    invoke("session", "end")
    export = tmp_path / "player.ndjson"
    export.write_text(invoke("export").output)
    out = run_recipe(tmp_path, export, """
ended = [json.loads(l) for l in open(sys.argv[1]) if '"session.ended"' in l][0]
roll = [json.loads(l) for l in open(sys.argv[1]) if '"source":"engine"' in l][0]["data"]
seed = bytes.fromhex(ended["data"]["seed_reveal"])
print(faces(seed, "toybox", 1, roll["nonce"], roll["client_seed"], roll["draws"]) == roll["draws"])
""")
    assert "chain OK" in out and out.strip().endswith("True")
    assert rolled["draws"]


def test_the_downtime_recipe_recomputes_advancement_rolls(toy_campaign, tmp_path):
    invoke = toy_campaign
    invoke("session", "start")
    invoke("roll", "ann", "brawl", "--dice", "3,4")
    invoke("session", "end")
    assert invoke("advance", "--session", "1").exit_code == 0
    export = tmp_path / "player.ndjson"
    export.write_text(invoke("export").output)
    out = run_recipe(tmp_path, export, """
events = [json.loads(l) for l in open(sys.argv[1]) if not l.startswith('{"kind"')]
revealed = [e["data"] for e in events if e["type"] == "downtime.revealed"][0]
rolls = [e for e in events if (e["data"] or {}).get("scheme") == "ledger-downtime-v1"]
seed = bytes.fromhex(revealed["seed_reveal"])
for e in rolls:
    r = e["data"]
    print(faces(seed, "toybox", e["session"], r["nonce"], r["client_seed"], r["draws"],
                scheme="ledger-downtime-v1") == r["draws"], r["nonce"])
""")
    assert "chain OK" in out and out.strip().splitlines()[1:] == ["True 1"]
