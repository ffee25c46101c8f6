"""Commands replayed from history: advance (and, later, recap and audit)."""

from __future__ import annotations

from typing import Any

import click
import msgspec

from ..events import Recorded
from . import App, cli, echo_json, json_option, now, pass_app
from .play import describe


@cli.command()
@click.option("--session", "number", type=int, required=True, help="The ended session to advance.")
@click.option(
    "--choice",
    "choices",
    multiple=True,
    metavar="KEY=VALUE",
    help="A choice the rules leave to the player (repeatable); see docs/rulings.",
)
@click.option("--dry-run", is_flag=True, help="Show what would be appended; write nothing.")
@json_option
@pass_app
def advance(app: App, number: int, choices: tuple[str, ...], dry_run: bool, as_json: bool) -> None:
    """End-of-session advancement for every character, replayed from session N's events.

    Appends what the rules give in one batch; running it again appends nothing.
    Advancement dice are engine dice from the session's committed seed.
    """
    from ..advancement import advance as run_advance

    parsed: dict[str, Any] = {}
    for item in choices:
        if "=" not in item:
            raise click.BadParameter(f"{item!r}: write KEY=VALUE", param_hint="--choice")
        key, value = item.split("=", 1)
        parsed[key.strip()] = value
    campaign = app.campaign
    result = run_advance(campaign, number, parsed, actor=app.actor, at=now(), dry_run=dry_run)
    items: list[dict[str, Any]] = []
    lines: list[str] = []
    for entry in result:
        if isinstance(entry, Recorded):
            data = msgspec.to_builtins(entry.data)
            data.pop("type", None)
            items.append({"seq": entry.seq, "type": entry.type, "data": data})
            lines.append(describe(campaign, entry))
        else:
            data = msgspec.to_builtins(entry)
            kind = data.pop("type", None)
            items.append({"seq": None, "type": kind, "data": data})
            lines.append(campaign.system.describe(entry) or f"{kind}: {data}")
    if as_json:
        echo_json({"session": number, "dry_run": dry_run, "events": items})
        return
    if not result:
        click.echo(f"Session {number}: nothing to advance (already applied, or nothing earned).")
        return
    verb = "Would append" if dry_run else "Appended"
    click.echo(f"{verb} {len(result)} advancement events for session {number}:")
    for line in lines:
        click.echo("  " + line)
