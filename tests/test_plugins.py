"""The plugin machinery: every hook exercised, and guards every rule system must pass."""

import inspect
import json
import tomllib
from pathlib import Path

import click
import msgspec
import pytest
from click.testing import CliRunner

from ledger import RuleSystem, hookimpl
from ledger.events import CORE_EVENT_TYPES, Event, event_tag
from ledger.rules import hookspecs
from ledger.rules.plugins import distribution_of, pm, rule_systems

ROOT = Path(__file__).parent.parent
SYSTEMS = ["wyrd-engine", "d20-world", "decision-dice", "terran-engine", "spellwoven"]


def hooks():
    return sorted(
        n for n, f in inspect.getmembers(hookspecs, inspect.isfunction) if hasattr(f, "ledger_spec")
    )


def test_every_hook_has_a_test():
    tested = {n.removeprefix("test_hook_") for n in globals() if n.startswith("test_hook_")}
    assert set(hooks()) == tested


def test_hook_register_rule_systems():
    assert set(SYSTEMS) <= set(rule_systems())
    for sid in SYSTEMS:
        assert isinstance(rule_systems()[sid], RuleSystem)
        assert rule_systems()[sid].id == sid


def test_hook_register_commands():
    class Plugin:
        @hookimpl
        def register_commands(self, cli):
            @cli.command(name="hello-test")
            def hello():
                """Say hello (a test command)."""
                click.echo("hello from a plugin")

    from ledger.cli import cli

    pm.register(Plugin(), name="hello-test")
    try:
        pm.hook.register_commands(cli=cli)
        result = CliRunner().invoke(cli, ["hello-test"])
        assert result.output == "hello from a plugin\n"
    finally:
        pm.unregister(name="hello-test")
        cli.commands.pop("hello-test", None)


def test_hook_recap_lines(toy_campaign):
    class Plugin:
        @hookimpl
        def recap_lines(self, system_id, record, as_gm):
            if record.type == "toy.hurt":
                return [f"ouch ({system_id}, {'gm' if as_gm else 'player'})"]
            return None

    invoke = toy_campaign
    invoke("session", "start")
    invoke("record", "hurt", "--character", "ann", "--amount", "1")
    pm.register(Plugin(), name="recap-test")
    try:
        assert "ouch (toy, player)" in invoke("--as", "player", "recap", "--session", "1").output
    finally:
        pm.unregister(name="recap-test")


def test_hook_event_appended(toy_campaign):
    """More cases (every write path, rollbacks, failing listeners): test_event_appended.py."""
    seen = []

    class Plugin:
        @hookimpl
        def event_appended(self, campaign, events):
            seen.append((campaign.id, [(e.seq, e.type, e.visibility) for e in events]))

    invoke = toy_campaign
    pm.register(Plugin(), name="appended-test")
    try:
        invoke("record", "hurt", "--character", "ann", "--amount", "1")
        invoke("record", "secret-noted", "--character", "bob", "--value", "3")
        invoke("record", "hurt", "--character", "ann", "--amount", "-1")  # refused
    finally:
        pm.unregister(name="appended-test")
    assert seen == [
        ("toybox", [(4, "toy.hurt", "public")]),
        ("toybox", [(5, "toy.secret_noted", "gm")]),
    ]


@pytest.mark.parametrize("sid", SYSTEMS)
def test_each_system_registers_through_an_entry_point(sid):
    folder = ROOT / "plugins" / sid
    meta = tomllib.loads((folder / "pyproject.toml").read_text())
    module = "ledger_" + sid.replace("-", "_")
    assert meta["project"]["name"] == f"ledger-{sid}"
    assert meta["project"]["entry-points"]["ledger"] == {sid: module}
    assert distribution_of(rule_systems()[sid])[0] == f"ledger-{sid}"


def test_every_plugin_folder_is_a_known_system():
    assert sorted(p.name for p in (ROOT / "plugins").iterdir() if p.is_dir()) == sorted(SYSTEMS)


def test_core_never_imports_a_plugin():
    for path in (ROOT / "ledger").rglob("*.py"):
        assert "ledger_" not in "".join(
            line
            for line in path.read_text().splitlines(keepends=True)
            if line.lstrip().startswith(("import ", "from "))
        ), path


def all_event_types():
    for sid in SYSTEMS:
        for cls in rule_systems()[sid].event_types:
            yield sid, cls


@pytest.mark.parametrize(
    "sid,cls", list(all_event_types()), ids=lambda x: getattr(x, "__name__", x)
)
def test_plugin_events_are_frozen_keyword_only_and_namespaced(sid, cls):
    assert cls.__struct_config__.frozen, cls
    assert all(p.kind is p.KEYWORD_ONLY for p in inspect.signature(cls).parameters.values()), cls
    assert issubclass(cls, Event)
    assert event_tag(cls).startswith(sid + "."), event_tag(cls)
    assert cls.__doc__, f"{cls.__name__} needs a docstring"


def test_core_events_are_frozen_keyword_only():
    for cls in CORE_EVENT_TYPES:
        assert cls.__struct_config__.frozen
        assert all(p.kind is p.KEYWORD_ONLY for p in inspect.signature(cls).parameters.values())
        assert "." in event_tag(cls)


@pytest.mark.parametrize("sid", SYSTEMS)
def test_each_system_cites_its_seed(sid):
    system = rule_systems()[sid]
    assert (ROOT.parent / "shared" / "seeds" / system.source).exists() or system.source.endswith(
        ".txt"
    )
    assert system.name and system.roll_params
    configured = system.configure({})
    assert isinstance(configured.options, system.options_type)


@pytest.mark.parametrize("sid", SYSTEMS)
def test_each_system_refuses_unknown_options(sid):
    with pytest.raises(Exception, match="option"):
        rule_systems()[sid].configure({"no_such_option_anywhere": 1})


def test_upcaster_reads_an_old_shape(toy_system, db_path, invoke, frozen):
    """A stored payload of an older shape is upcast on read, never rewritten."""
    from ledger.campaign.aggregate import open_campaign
    from ledger.store.sqlite import Store

    invoke("new", "toybox", "--system", "toy")
    store = Store(db_path)
    toy = rule_systems()["toy"]
    old = {"type": "toy.hurt", "character": "ann", "damage": 3}  # v1 called it damage
    try:
        type(toy).upcasters = {
            "toy.hurt": lambda d: {
                "type": d["type"],
                "character": d["character"],
                "amount": d.pop("damage", d.get("amount")),
            }
        }
        campaign = open_campaign(store)
        event = campaign.codec.decode(json.dumps(old, sort_keys=True), "toy.hurt")
        assert event.amount == 3
    finally:
        type(toy).upcasters = {}
    assert msgspec.json.decode(b'{"a":1}') == {"a": 1}


@pytest.mark.parametrize(
    "sid,cls", list(all_event_types()), ids=lambda x: getattr(x, "__name__", x)
)
def test_every_plugin_event_names_its_rule_section(sid, cls):
    """`campaign audit` shows the rule text an event came from: seed and section."""
    system = rule_systems()[sid]
    section = system.sections.get(event_tag(cls))
    assert section, f"{event_tag(cls)} has no section in {sid}.sections"
    assert set(system.sections) <= {event_tag(t) for t in system.event_types}


def test_audit_names_seed_and_section(tmp_path, frozen):
    from ledger.cli import cli

    db = str(tmp_path / "a.db")
    runner = CliRunner()
    sheet = ROOT / "campaigns" / "grand-casebook" / "characters" / "julian.toml"
    for args in (
        ["new", "c", "--system", "wyrd-engine"],
        ["character", "add", "--sheet", str(sheet)],
    ):
        assert runner.invoke(cli, ["--db", db, *args]).exit_code == 0
    runner.invoke(
        cli, ["--db", db, "roll", "julian", "investigate", "--dr", "good", "--dice", "++-0"]
    )
    out = json.loads(runner.invoke(cli, ["--db", db, "audit", "3", "--json"]).output)
    assert out["rule"] == {
        "system": "wyrd-engine",
        "book": "The Wyrd Engine Core Mechanics",
        "seed": "000_60e07241544698f0.txt",
        "section": rule_systems()["wyrd-engine"].sections["wyrd-engine.check_rolled"],
    }
    assert "Passive Opposition" in out["rule"]["section"]
    text = runner.invoke(cli, ["--db", db, "audit", "3"]).output  # people read the book
    assert "rules: The Wyrd Engine Core Mechanics, " in text and "000_" not in text
