"""Read commands: sheet, log, odds; and demo, the main job on the bundled campaigns."""

from __future__ import annotations

import collections
import re
from typing import Any

import click
import msgspec

from . import SEQ, App, cli, echo_json, json_option, nl_option, pass_app, view_option
from .pictures import check_plot, plot_odds, plot_option
from .play import OddsCommand, describe, pick_params


@cli.command()
@click.argument("character_name", metavar="CHARACTER")
@click.option(
    "--as-of",
    "as_of",
    metavar="SEQ|session:N|ISO-TIME",
    help="The sheet as it was then: after event SEQ, at the end of session N, or at a time.",
)
@json_option
@view_option
@pass_app
def sheet(app: App, character_name: str, as_of: str | None, as_json: bool) -> None:
    """Show CHARACTER's sheet, replayed from the log (now, or --as-of a past moment).

    The players' sheet unless --as gm; the GM's marks [GM] every line players see
    otherwise or not at all.
    """
    campaign = app.campaign
    cid = campaign.find_character(character_name)
    upto = campaign.resolve_as_of(as_of)
    as_gm = app.as_gm()
    state = campaign.state_of(cid, upto=upto, as_gm=as_gm)
    view = campaign.system.sheet_view(state, as_gm=as_gm)
    if as_json:
        echo_json({"character": cid, "as_of": upto, **view})
        return
    click.echo(f"{campaign.characters()[cid]} ({cid}) — as of seq {upto}")
    if not as_gm:
        _print_tree(view, 1)
        return
    # the GM's sheet marks every line the players' sheet does not show as it is
    player = campaign.system.sheet_view(campaign.state_of(cid, upto=upto, as_gm=False), as_gm=False)
    shown = collections.Counter(_tree_lines(player, 1))
    for line in _tree_lines(view, 1):
        if shown[line] > 0:
            shown[line] -= 1
            click.echo(line)
        else:
            click.echo(f"{line} [GM]")


def _print_tree(value: Any, indent: int) -> None:
    for line in _tree_lines(value, indent):
        click.echo(line)


def _tree_lines(value: Any, indent: int) -> list[str]:
    """A JSON-like value as indented readable lines (dicts as ``key: value``, lists as
    ``- item``)."""
    pad = "  " * indent
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            if isinstance(v, dict | list) and v and not _flat(v):
                out.append(f"{pad}{k}:")
                out.extend(_tree_lines(v, indent + 1))
            else:
                out.append(f"{pad}{k}: {_inline(v)}")
    elif isinstance(value, list):
        for v in value:
            if isinstance(v, dict):
                out.append(f"{pad}- " + ", ".join(f"{k}={_inline(x)}" for k, x in v.items()))
            else:
                out.append(f"{pad}- {_inline(v)}")
    return out


def _with_percent(value: Any, key: str = "") -> Any:
    """Fractions ``"n/d"`` for people: a probability with its percentage (``"31/81
    (38.3%)"``), an expectation (a ``mean`` or ``expected_...`` key, or any value outside
    0..1) as a number (``"23/20 = 1.15"``; ``"9/1"`` is ``9``)."""
    if isinstance(value, dict):
        return {k: _with_percent(v, str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [_with_percent(v, key) for v in value]
    if isinstance(value, str) and FRACTION.fullmatch(value):
        n, d = (int(x) for x in value.split("/"))
        if d:
            expectation = key == "mean" or key.startswith(("expected", "mean_", "average"))
            if expectation or not 0 <= n <= d:
                if n % d == 0:
                    return str(n // d)
                return f"{value} = {n / d:.2f}"
            return f"{value} ({100 * n / d:.1f}%)"
    return value


FRACTION = re.compile(r"-?\d+/\d+")


def _flat(v: Any) -> bool:
    return isinstance(v, list) and all(not isinstance(x, dict | list) for x in v)


def _inline(v: Any) -> str:
    if isinstance(v, list):
        return ", ".join(str(x) for x in v) or "—"
    if isinstance(v, dict):
        return ", ".join(f"{k}={x}" for k, x in v.items()) or "—"
    return "—" if v is None else str(v)


@cli.command()
@click.option("--session", "session_number", type=SEQ, help="Only events of session N.")
@click.option("--character", "character_name", help="Only events of this character.")
@click.option("--type", "types", multiple=True, help="Only events of this type (repeatable).")
@json_option
@nl_option
@view_option
@pass_app
def log(
    app: App,
    session_number: int | None,
    character_name: str | None,
    types: tuple[str, ...],
    as_json: bool,
    as_nl: bool,
) -> None:
    """Show the event log, oldest first (the players' view unless --as gm).

    The GM's log marks GM-only events [GM].

    Free text shows on its entry's line: a newline as ⏎, control characters escaped
    (--json and --nl give the text exactly).
    """
    from ..text import printable

    campaign = app.campaign
    as_gm = app.as_gm()
    stream = campaign.find_character(character_name) if character_name else None
    corrections = campaign.corrections()
    corrected_by: dict[int, list[int]] = {}
    for target, items in corrections.by_target.items():
        corrected_by[target] = [seq for seq, _ in items]
    out = []
    for rec in campaign.records(as_gm=as_gm, stream=stream, types=list(types) or None):
        if session_number is not None and rec.session != session_number:
            continue
        data = msgspec.to_builtins(rec.data)
        data.pop("type", None)
        item = {
            "seq": rec.seq,
            "type": rec.type,
            "stream": rec.stream,
            "session": rec.session,
            "recorded_at": rec.recorded_at,
            "actor": rec.actor,
            "visibility": rec.visibility,
            "data": data,
            "hash": rec.hash,
        }
        if rec.seq in corrected_by:
            item["corrected_by"] = corrected_by[rec.seq]
        if as_nl:
            echo_json(item)
        elif as_json:
            out.append(item)
        else:
            mark = ""
            if rec.seq in corrections.retracted:
                mark = "  (retracted)"
            elif rec.seq in corrections.amended:
                mark = "  (amended)"
            gm = " [GM]" if rec.visibility == "gm" else ""
            click.echo(f"{printable(describe(campaign, rec))}{gm}{mark}")
    if as_json:
        echo_json(out)


@cli.command(cls=OddsCommand)
@click.argument("system_id", metavar="SYSTEM")
@json_option
@plot_option
def odds(system_id: str, as_json: bool, plot: str | None, **params: Any) -> None:
    """Exact probabilities of SYSTEM's mechanic (fractions in --json).

    --plot FILE also draws the system's odds chart (.png, .svg or .pdf).

    Options below marked [system] apply to that rule system.
    """
    from ..campaign import load_system

    check_plot(plot)
    system = load_system(system_id)
    given = pick_params(system, "odds_params", params)
    result = system.odds(given)
    if plot is not None:
        plot_odds(system, given, plot)
    if as_json:
        echo_json(result)
        return
    _print_tree(_with_percent(result), 0)
    if plot is not None:
        click.echo(f"Chart: {plot}")
