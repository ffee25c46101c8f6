"""``campaign plugin new``: start a rule-system plugin of your own (:mod:`ledger.rules.scaffold`)."""

from __future__ import annotations

from pathlib import Path

import click

from ledger.cli.base import cli, echo_json, json_option


@cli.group()
def plugin() -> None:
    """Start a rule-system plugin of your own (docs/plugin-guide.md)."""


@plugin.command("new")
@click.argument("name")
@click.option(
    "--dir",
    "directory",
    default=".",
    show_default=True,
    type=click.Path(file_okay=False),
    help="The folder to write NAME/ in.",
)
@json_option
def plugin_new(name: str, directory: str, as_json: bool) -> None:
    """Write NAME/: a small, working rule system (2d6 + skill against a target) in one
    module to make your own: events, sheet, resolve, apply, harm, advance, odds and chart,
    recap lines, and its tests. Install it with `pip install -e 'NAME[test]'`; `campaign
    systems` then lists it."""
    from ledger.errors import RuleError
    from ledger.rules.plugins import rule_systems
    from ledger.rules.scaffold import names, write_plugin

    try:
        names(name)  # a bad name is a usage error, before anything else
    except RuleError as e:
        raise click.BadParameter(str(e), param_hint="NAME") from None
    if name in rule_systems():
        raise RuleError(f"a rule system {name!r} is already installed: give another NAME")
    written = write_plugin(name, Path(directory))
    root = Path(directory) / name
    if as_json:
        echo_json({"system": name, "folder": str(root), "files": [str(p) for p in written]})
        return
    click.echo(f"Wrote the rule system {name} in {root}:")
    for path in written:
        click.echo(f"  {path.relative_to(root)}")
    click.echo(
        f"Next: pip install -e '{root}[test]'  then  campaign systems {name}  and  pytest {root}"
    )
