"""Quick fixes at the table: ``campaign undo`` and ``campaign npc add``.

``undo`` is a correction like any other (a retraction with a reason, checked by the rules,
shown in the log); ``npc add`` builds the rule system's sheet for a non-player character
from a name and a few skills, checked by the system's rules for NPCs.
"""

from __future__ import annotations

import sys

import click

from ledger.cli.base import App, cli, echo_json, json_option, now, pass_app


def _interactive() -> bool:
    """Is stdin a terminal?"""
    return sys.stdin.isatty()


def can_ask(app: App) -> bool:
    """Can a command ask the person at the keyboard a question? On a terminal, and never
    inside ``campaign play``: there the answer read would be the next entry typed (a
    command would become an undo's permanent reason), so an entry carries its answers."""
    return _interactive() and not app.in_shell


@cli.command()
@click.option(
    "--reason",
    help="Why it is undone, kept in the log (asked for on a terminal when not given; "
    "required in `campaign play`).",
)
@click.option("--yes", "-y", is_flag=True, help="Do not ask before undoing.")
@json_option
@pass_app
def undo(app: App, reason: str | None, yes: bool, as_json: bool) -> None:
    """Take back the last entry you (--actor) wrote, whole: a roll with the harm and
    follow-ups it brought, a `time pass` with its consequences, a turn with what ended with
    it. A correction with a reason, like `campaign correct SEQ --reason ...`: the original
    stays in the log, marked; an open roll request is withdrawn instead. Run it again to
    undo the entry before. A session start or end cannot be undone.

    In `campaign play` the entry carries its reason (`undo --reason "..."`) and nothing is
    asked: typing it is the confirmation.
    """
    from ledger.campaign.undo import last_target
    from ledger.campaign.undo import undo as take_back
    from ledger.history.words import describe

    campaign = app.campaign
    target = last_target(campaign, app.actor)
    line = describe(campaign, target.entry)
    if app.in_shell:
        if reason is None:
            raise click.UsageError(
                f'give the reason in the same entry: undo --reason "..." (it takes back '
                f"event {target.entry.seq}, the last entry {app.actor} wrote, whole)"
            )
        yes = True  # the entry was typed with its reason: nothing is asked
    interactive = can_ask(app)
    if not yes:
        if not interactive:
            raise click.UsageError(f"undo {line}? give --yes to undo without being asked")
        click.confirm(f"Undo {line}?", abort=True)
    if reason is None:
        if not interactive:
            raise click.UsageError('give --reason "..." (a correction needs a reason)')
        reason = click.prompt("Reason", type=str)
    rec = take_back(campaign, target, reason, actor=app.actor, at=now())
    if as_json:
        echo_json(
            {"seq": rec.seq, "target": target.entry.seq, "action": target.action, "reason": reason}
        )
    else:
        click.echo(f"Undone: {line}")
        click.echo(describe(campaign, rec))


@cli.group()
def npc() -> None:
    """Non-player characters, quickly (`npc add NAME --skill X=N`)."""


@npc.command("add")
@click.argument("name")
@click.option(
    "--skill",
    "skills",
    multiple=True,
    metavar="SKILL=RATING",
    help="A skill and its rating, as the system rates skills (repeatable).",
)
@json_option
@pass_app
def npc_add(app: App, name: str, skills: tuple[str, ...], as_json: bool) -> None:
    """Add a non-player character NAME with a few skills, by the system's rules for NPCs
    (`character add --sheet` takes a full sheet)."""
    ratings: dict[str, int] = {}
    for item in skills:
        skill, eq, value = item.partition("=")
        try:
            if not eq or not skill.strip():
                raise ValueError
            ratings[skill.strip()] = int(value)
        except ValueError:
            raise click.BadParameter(
                f"{item!r}: write SKILL=RATING, e.g. Fight=2", param_hint="--skill"
            ) from None
    campaign = app.campaign
    sheet = campaign.system.npc_sheet(name, ratings)
    rec = campaign.add_character(sheet, actor=app.actor, at=now())
    if as_json:
        echo_json({"seq": rec.seq, "character": rec.data.character, "name": rec.data.name})
    else:
        click.echo(f"Added NPC {rec.data.name} (id {rec.data.character}) at seq {rec.seq}")
