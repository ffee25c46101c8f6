"""``campaign encounter start|next|act|end|show``: the rounds of a fight on the ledger."""

from __future__ import annotations

from typing import Any

import click

from ledger.cli.base import App, cli, echo_json, json_option, now, pass_app


@cli.group("encounter")
def encounter_group() -> None:
    """Run an encounter: turn order (initiative as the rules say), rounds, actions."""


def order_lines(view: dict[str, Any], *, as_gm: bool) -> list[str]:
    """The turn order as lines, the current turn marked ``▶`` (and bold on a terminal)."""
    limit = view["actions_per_round"]
    lines = []
    for i, seat in enumerate(view["order"], 1):
        mark = "▶" if seat["current"] else " "
        how = {"rolled": f"rolled, event {seat['roll']}", "recorded": "recorded"}.get(seat["how"])
        init = f"initiative {seat['initiative']} ({how})" if seat["initiative"] is not None else ""
        acts = f"actions {seat['actions']}/{limit}" if seat["actions"] is not None else ""
        gm = "[GM] hidden" if seat["hidden"] and as_gm else ""
        text = f"{mark} {i}. {seat['name']:<20} " + "  ".join(p for p in (init, acts, gm) if p)
        lines.append(click.style(text.rstrip(), bold=True) if seat["current"] else text.rstrip())
    return lines


def status_line(view: dict[str, Any]) -> str:
    """One line for the table shell: ``Round 2: Julian ▶ · Isadora · Thug``."""
    names = [
        click.style(f"▶ {s['name']}", bold=True, reverse=True) if s["current"] else s["name"]
        for s in view["order"]
    ]
    return f"Round {view['round']}: " + " · ".join(names)


def _show(app: App, as_json: bool, head: str = "") -> None:
    from ledger.campaign.encounters import NONE_RUNNING, NoEncounter, encounter_view

    as_gm = app.as_gm()
    view = encounter_view(app.campaign, as_gm)
    if as_json:
        echo_json(view)
        return
    if view is None:
        raise NoEncounter(NONE_RUNNING)
    if head:
        click.echo(head)
    title = f" — {view['title']}" if view["title"] else ""
    current = view["current"] or "(not yet shown)"
    click.echo(f"Encounter (event {view['seq']}){title}: round {view['round']}, {current}'s turn")
    for line in order_lines(view, as_gm=as_gm):
        click.echo(line)


def _moved(what: str, app: App, records: list[Any]) -> str:
    """``"Next turn (seq 12)."`` and, one a line, what ended with the turn."""
    from ledger.history.words import summary

    lines = [f"{what} (seq {records[0].seq})."]
    as_gm = app.as_gm()
    for rec in records[1:]:
        if as_gm or rec.visibility != "gm":
            lines.append(f"  {summary(app.campaign, rec.data, rec.stream)}")
    return "\n".join(lines)


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str]:
    out = {}
    for text in values:
        name, sep, value = text.partition("=")
        if not sep or not name.strip() or not value.strip():
            raise click.BadParameter(f"{text!r}: give NAME=FACES, e.g. julian=+0-0", param_hint=option)
        out[name.strip()] = value.strip()
    return out


@encounter_group.command("start")
@click.argument("participants", nargs=-1, metavar="[PARTICIPANTS]...")
@click.option("--foe", "foes", multiple=True, metavar="NAME[=N]",
              help="A participant without a sheet (N: initiative rolled at the table).")
@click.option("--hidden", multiple=True, metavar="NAME",
              help="A participant only the GM knows of: GM-only, their rolls blind.")
@click.option("--dice", "faces", multiple=True, metavar="NAME=FACES",
              help="Physical dice for a character's initiative roll, e.g. julian=+0-0.")
@click.option("--gm-order", is_flag=True,
              help="Take the order as listed, no rolls (an ambush, or the GM's reading).")
@click.option("--title", default="", help="What the encounter is, e.g. 'Ambush at the docks'.")
@json_option
@pass_app
def encounter_start(
    app: App, participants: tuple[str, ...], foes: tuple[str, ...], hidden: tuple[str, ...],
    faces: tuple[str, ...], gm_order: bool, title: str, as_json: bool,
) -> None:  # fmt: skip
    """Start an encounter with PARTICIPANTS (NAME or NAME=N), in the GM's order.

    Initiative is what the rule system's text says: a roll where the text makes it one
    (The Wyrd Engine: 4dF + Notice, highest first, ties as listed), otherwise the order
    as listed (or the numbers given as NAME=N). See `campaign systems ID`.

    \b
    Examples:
      campaign encounter start julian isadora --foe thug=2
      campaign encounter start julian --dice julian=+0-0 --foe lurker=3 --hidden lurker
      campaign encounter start isa bram --gm-order --title "Bandits on the road"
    """
    from ledger.campaign.initiative import start

    if not participants and not foes:
        raise click.UsageError("name the participants: `campaign encounter start NAME...`")
    start(
        app.campaign, participants, foes=foes, hidden=hidden, faces=_pairs(faces, "--dice"),
        gm_order=gm_order, title=title.strip(), actor=app.actor, at=now(),
    )  # fmt: skip
    _show(app, as_json, "Encounter started.")


@encounter_group.command("next")
@json_option
@pass_app
def encounter_next(app: App, as_json: bool) -> None:
    """Move to the next turn (a new round after the last participant)."""
    from ledger.campaign.initiative import next_turn

    records = next_turn(app.campaign, actor=app.actor, at=now())
    _show(app, as_json, _moved("Next turn", app, records))


@encounter_group.command("act")
@click.argument("character")
@click.argument("actions", type=click.IntRange(1, 99), default=1)
@click.option("--what", default="", help="What they do, e.g. 'drinks a potion from the bag'.")
@click.option("--blind", is_flag=True, help="GM-only (a hidden participant's action).")
@json_option
@pass_app
def encounter_act(
    app: App, character: str, actions: int, what: str, blind: bool, as_json: bool
) -> None:
    """CHARACTER spends ACTIONS (default 1) this round, counted where the rules count them
    (d20-world: three a round)."""
    from ledger.campaign.initiative import act

    rec = act(app.campaign, character, actions, what.strip(), blind=blind, actor=app.actor,
              at=now())  # fmt: skip
    _show(app, as_json, f"Recorded (seq {rec.seq}).")


@encounter_group.command("end")
@json_option
@pass_app
def encounter_end(app: App, as_json: bool) -> None:
    """End the encounter."""
    from ledger.campaign.initiative import end

    records = end(app.campaign, actor=app.actor, at=now())
    if as_json:
        echo_json({"seq": records[0].seq, "ended": True})
        return
    click.echo(_moved("Encounter ended", app, records))


@encounter_group.command("show")
@json_option
@pass_app
def encounter_show(app: App, as_json: bool) -> None:
    """The turn order, the round and whose turn it is (`--json`: null when none runs)."""
    _show(app, as_json)
