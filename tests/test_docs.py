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


# --- docs/architecture.md says what the code is -------------------------------------------

ROOT = DOCS.parent
NUMBERS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def architecture() -> str:
    return (DOCS / "architecture.md").read_text(encoding="utf-8")


def test_architecture_names_every_layer_of_the_import_contract():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    packages = [p.strip() for layer in contract["layers"] for p in layer.split("|")]
    diagram = architecture().split("```")[1]
    assert [p for p in packages if not re.search(rf"\b{re.escape(p)}\b", diagram)] == []


def test_architecture_counts_and_names_the_store_protocols_eventstore_joins():
    from typing import Protocol

    from ledger.store.protocols import EventStore

    joined = [b.__name__ for b in EventStore.__bases__ if b is not Protocol]
    text = architecture()
    assert f"the {NUMBERS[len(joined)]} storage protocols" in text
    assert f"EventStore is all {NUMBERS[len(joined)]}" in text
    assert [name for name in joined if name not in text] == []


def test_architecture_has_a_row_for_every_module_of_the_campaign_package():
    table = architecture().split("## One writer", 1)[1].split("\n## ", 1)[0]
    modules = sorted(p.name for p in (ROOT / "ledger" / "campaign").glob("*.py"))
    assert [m for m in modules if m != "__init__.py" and f"| `{m}` |" not in table] == []


# --- the other pages: nothing said twice, nothing promised that is built -----------------


@pytest.mark.parametrize("page", sorted(p.name for p in DOCS.glob("*.md")))
def test_no_page_has_the_same_section_twice(page):
    headings = re.findall(r"^#{2,3} (.+)$", (DOCS / page).read_text(encoding="utf-8"), re.M)
    assert sorted(h for h in set(headings) if headings.count(h) > 1) == []


def test_getting_started_says_once_how_bare_campaign_commands_run():
    text = (DOCS / "getting-started.md").read_text(encoding="utf-8")
    lines = [
        line.strip()
        for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S)
        for line in block.splitlines()
    ]
    first_bare = next(i for i, line in enumerate(lines) if line.startswith("campaign "))
    assert any(line.startswith("source .venv/bin/activate") for line in lines[:first_bare])
    assert "put `uv run` in front" in text


def test_the_readmes_first_two_commands_stay_the_one_command_each():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```bash\n(.*?)```", readme, flags=re.S)
    assert [b.strip() for b in blocks[:2]] == [
        "pip install uv && uv run campaign demo",
        "pip install uv && uv run pytest",
    ]


def test_serve_and_trust_do_not_promise_what_is_built():
    serve = (DOCS / "serve.md").read_text(encoding="utf-8")
    trust = (DOCS / "trust.md").read_text(encoding="utf-8")
    assert "will have its place" not in serve and "campaign encounter next" in serve
    assert "to come" not in trust
    assert "nor served as tiles" not in trust  # the league serves its tiles (docs/league.md)
