"""Read commands: sheet, log, odds; and demo, the main job on the bundled campaigns."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import click
import msgspec

from ledger.cli.base import SEQ, App, cli, echo_json, json_option, nl_option, pass_app, view_option
from ledger.cli.options import OddsCommand, pick_params
from ledger.cli.pictures import check_plot, plot_odds, plot_option
from ledger.history.words import describe

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign


@cli.command()
@click.argument("character_name", metavar="CHARACTER")
@click.option(
    "--as-of",
    "as_of",
    metavar="SEQ|session:N|day:N|ISO-TIME",
    help="The sheet as it was then: after event SEQ, at the end of session N, once N days "
    "of in-fiction time had passed (`campaign time pass`), or at a UTC time (every event "
    "recorded by then; see docs/events.md \"Time\").",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "html"]),
    default="text",
    show_default=True,
    help="Text for the terminal (colour on a terminal, plain when piped or NO_COLOR is set) "
    "or one self-contained HTML page (the web view's template).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    help="Write the HTML page to FILE (with --format html; never onto the ledger or an "
    "existing file that is not .html).",
)
@json_option
@view_option
@pass_app
def sheet(
    app: App, character_name: str, as_of: str | None, fmt: str, output: str | None, as_json: bool
) -> None:
    """Show CHARACTER's sheet, replayed from the log (now, or --as-of a past moment).

    Laid out by the campaign's rule system in its book's words. The players' sheet unless
    --as gm; the GM's marks [GM] every fact players see otherwise or not at all. --json
    gives the sheet's fields as data.

    \b
    campaign sheet julian
    campaign sheet julian --format html -o julian.html   # one page, readable on a phone
    """
    if output is not None:
        _check_sheet_output(output, fmt=fmt, as_json=as_json, db_path=app.db_path)
    elif as_json and fmt == "html":
        raise click.UsageError("--json and --format html: choose one")
    campaign = app.campaign
    cid = campaign.find_character(character_name)
    upto = campaign.resolve_as_of(as_of)
    as_gm = app.as_gm()
    if as_json:
        state = campaign.state_of(cid, upto=upto, as_gm=as_gm)
        view = campaign.system.sheet_view(state, as_gm=as_gm)
        echo_json({"character": cid, "as_of": upto, **view})
        return
    layout = headed(campaign, cid, upto, as_gm)
    if fmt == "html":
        from ledger.rules.sheets import render_html

        page = render_html(layout)
        if output:
            from ledger.cli.output import atomic_file

            with atomic_file(output, db_path=app.db_path, text=True) as f:
                f.write(page)
            click.echo(f"Wrote {output}")
        else:
            click.echo(page, nl=False)
        return
    from ledger.rules.sheets import render_text

    color = _color()
    click.echo(render_text(layout, color=color), nl=False, color=color)


def headed(campaign: Campaign, cid: str, upto: int, as_gm: bool) -> Any:
    """The sheet the viewer may see (:func:`ledger.campaign.viewing.sheet_for`: a players'
    sheet without any GM-only item, the GM's with them marked), headed with the character's
    name and id and the seq it is as of."""
    import msgspec

    from ledger.campaign.viewing import sheet_for

    layout = sheet_for(campaign, cid, as_gm=as_gm, upto=upto)
    from ledger.history.passports import before_section

    before = before_section(campaign, cid)  # a character who joined from a passport
    if before is not None:
        layout = msgspec.structs.replace(layout, sections=(*layout.sections, before))
    name = campaign.characters()[cid]
    head = f"{name} ({cid})" if name != cid else cid
    view = "the GM's sheet" if as_gm else ""
    sub = " · ".join(p for p in (layout.subtitle, f"as of seq {upto}", view) if p)
    return msgspec.structs.replace(layout, title=head, subtitle=sub)


def _color() -> bool:
    """Colour only on a terminal, and never when ``NO_COLOR`` is set (no-color.org)."""
    import os
    import sys

    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _check_sheet_output(output: str, *, fmt: str, as_json: bool, db_path: str) -> None:
    """Refuse ``-o`` (exit 2, nothing written) unless it writes HTML to a safe place: not
    the ledger or any SQLite file (:func:`ledger.cli.output.check_target`, as ``recap -o``),
    not an existing file whose name does not end in ``.html``/``.htm``."""
    import os

    from ledger.cli.output import check_target

    if fmt != "html" or as_json:
        raise click.UsageError("-o writes the HTML sheet: add --format html (and drop --json)")
    check_target(output, db_path=db_path)
    if os.path.exists(output) and not output.lower().endswith((".html", ".htm")):
        raise click.BadParameter(
            f"{output!r} exists and is not an .html file: write to another file "
            "(nothing was written)",
            param_hint="-o/--output",
        )


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

    The GM's log marks GM-only events [GM]. The players' view shows each GM-only event at
    its place as "GM-only entry", with its seq and nothing else ({"seq", "hash",
    "redacted": true} in --json, as a player's export has it); filtered by --session,
    --character or --type it leaves them out, since showing one there would say which.

    Free text shows on its entry's line: a newline as ⏎, control characters escaped
    (--json and --nl give the text exactly). Each --nl line has the entry's words in a
    `text` field ("GM-only entry" for a players' stub), as `campaign log` prints them.
    """
    from ledger.events import Roll
    from ledger.history.recap import MARKS
    from ledger.history.words import GM_ONLY_ENTRY, text_of
    from ledger.rules.projection import GmOnlyEntry, iter_log
    from ledger.text import printable

    campaign = app.campaign
    as_gm = app.as_gm()
    stream = campaign.find_character(character_name) if character_name else None
    corrections = campaign.corrections()
    corrected_by: dict[int, list[int]] = {}
    for target, items in corrections.by_target.items():
        corrected_by[target] = [seq for seq, _ in items]
    out: list[Any] = []
    follows: tuple[int, str, str] | None = None  # (seq, recorded_at, actor) of a contest's batch
    filtered = stream is not None or bool(types) or session_number is not None
    if as_gm or filtered:
        entries: Any = campaign.records(
            as_gm=as_gm, stream=stream, types=list(types) or None, session=session_number
        )
    else:
        entries = iter_log(campaign.store, campaign.id, campaign.codec, as_gm=False)
    for rec in entries:
        if isinstance(rec, GmOnlyEntry):
            stub = {"seq": rec.seq, "hash": rec.hash, "redacted": True}
            if as_nl:  # the line players read, for jq users
                echo_json({**stub, "text": GM_ONLY_ENTRY})
            elif as_json:
                out.append(stub)
            else:
                click.echo(f"[{rec.seq}] {GM_ONLY_ENTRY}")
            follows = None
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
        if as_nl:  # the log line, as `log` and the web view say it
            echo_json({**item, "text": text_of(campaign, rec)})
        elif as_json:
            out.append(item)
        else:
            mark = ""
            if rec.seq in corrections.retracted:
                mark = "  (retracted)"
            elif rec.seq in corrections.amended:
                mark = "  (amended)"
            gm = " [GM]" if rec.visibility == "gm" else ""
            line = printable(describe(campaign, rec))
            verdict = campaign.system.verdict(rec.data) if isinstance(rec.data, Roll) else None
            if verdict:  # ✔ ◐ ✘: success and failure read apart without colour
                seq, _, rest = line.partition(" ")
                line = f"{seq} {MARKS[verdict]} {rest}"
            # one entry per contest: its opponent's side and any harm applied
            joined = rec.type == "contest.opposed" or (
                follows == (rec.seq, rec.recorded_at, rec.actor)
                and not isinstance(rec.data, Roll)
            )
            follows = (rec.seq + 1, rec.recorded_at, rec.actor) if joined else None
            indent = "  ↳ " if joined else ""
            click.echo(f"{indent}{line}{gm}{mark}")
    if as_json:
        echo_json(out)


@cli.command(cls=OddsCommand)
@click.argument("system_id", metavar="SYSTEM")
@json_option
@plot_option
def odds(system_id: str, as_json: bool, plot: str | None, **params: Any) -> None:
    """Exact probabilities of SYSTEM's mechanic (fractions in --json).

    --plot FILE also draws the system's odds chart (.png, .svg or .pdf). With --campaign
    NAME (of that system) the odds follow the campaign's options.

    Options below marked [system] apply to that rule system.
    """
    from ledger.campaign.aggregate import load_system

    check_plot(plot)
    system = load_system(system_id)
    app = click.get_current_context().find_object(App)
    if app is not None and app.campaign_id is not None and app.campaign.system.id == system.id:
        system = app.campaign.system  # --campaign: the odds follow its options
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
