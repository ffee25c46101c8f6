"""Pictures: ``campaign fairness`` (dice against a fair die) and the charts of ``--plot``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click
import msgspec

from ledger.cli.base import App, cli, echo_json, json_option, pass_app

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign


def plot_option(fn: Any) -> Any:
    """``--plot FILE``: also draw a chart into FILE (.png, .svg or .pdf)."""
    return click.option(
        "--plot",
        "plot",
        metavar="FILE",
        help="Also draw a chart into FILE (.png, .svg or .pdf).",
    )(fn)


def check_plot(plot: str | None) -> None:
    """Refuse a bad ``--plot`` file name before any work (usage error, exit 2): another
    suffix than .png/.svg/.pdf, a missing folder, or a target :func:`~.output.check_target`
    refuses (the ledger, a SQLite file, a folder)."""
    if plot is None:
        return
    from ledger.cli.output import check_target, current_db
    from ledger.rules.charts import ChartError, check_path

    check_target(plot, db_path=current_db(), option="--plot")
    try:
        check_path(plot)
    except ChartError as e:
        raise click.BadParameter(str(e), param_hint="--plot") from None


def save_chart(fig: Any, path: str) -> None:
    """Write a chart to ``path`` through a temporary file renamed into place (nothing is
    left behind when drawing fails). :raises click.BadParameter: see :func:`check_plot`."""
    from ledger.cli.base import spinner
    from ledger.cli.output import atomic_path, current_db
    from ledger.rules.charts import save

    with (
        spinner(f"Drawing {path}…"),
        atomic_path(path, db_path=current_db(), option="--plot") as tmp,
    ):
        save(fig, tmp)


def plot_odds(system: Any, params: dict[str, Any], path: str) -> None:
    """Draw ``system``'s odds chart for ``params`` into ``path``.

    :raises click.ClickException: the chart cannot be drawn (one line, exit 1).
    """
    from ledger.cli.base import spinner
    from ledger.rules.charts import ChartError, odds_figure

    try:
        with spinner(f"Working out the odds for {path}…"):
            fig = odds_figure(system, params)
        save_chart(fig, path)
    except ChartError as e:
        raise click.ClickException(str(e)) from None


def collect_rolls(campaign: Campaign, *, as_gm: bool) -> list[Any]:
    """Every roll of ``campaign`` as :class:`ledger.dice.fairness.RollDraws`, corrections honoured
    (a retracted roll is left out, an amended one counts with its amended dice); a player's
    view leaves out GM-only (blind) rolls."""
    from ledger.dice.fairness import roll_draws
    from ledger.events import Roll

    roll_types = [tag for tag, cls in campaign.codec.types.items() if issubclass(cls, Roll)]
    roll_types.append("roll.imported")  # counted apart, as source "imported"
    corrections = campaign.corrections()

    def rows() -> Any:
        for seq, type_, stream, session, visibility, data in campaign.rows(
            types=roll_types, columns="seq, type, stream, session, visibility, data"
        ):
            if not as_gm and visibility == "gm":
                continue
            if seq in corrections.retracted:
                continue
            payload = corrections.amended.get(seq) or msgspec.json.decode(data)
            if type_ == "roll.imported":
                payload = {"source": "imported", "draws": payload.get("dice") or []}
            yield seq, stream, session, payload

    return list(roll_draws(rows()))


@cli.command()
@click.option("--character", "character_name", help="Only this character's rolls.")
@click.option(
    "--source",
    type=click.Choice(["engine", "physical", "imported"]),
    help="Only engine rolls, only physical dice, or only rolls imported from another tool.",
)
@click.option("--session", "session_number", type=click.IntRange(min=1), help="Only session N.")
@plot_option
@json_option
@pass_app
def fairness(
    app: App,
    character_name: str | None,
    source: str | None,
    session_number: int | None,
    plot: str | None,
    as_json: bool,
) -> None:
    """Are the dice fair? Face counts of every die size and roller against a fair die.

    For each die size, source (engine, physical, or imported from another tool's chat
    log: never mixed with the ledger's own) and roller: how often each face came
    up, what a fair die would give, Pearson's chi-square test (p-value) and a verdict in
    plain words. Fewer than 5 dice expected per face is "too few to judge"; p below 0.001
    is flagged as unlikely to be fair. Corrections are honoured: a retracted roll does not
    count, an amended one counts with its amended dice.
    """
    from ledger.campaign import roll_requests as requestsmod
    from ledger.dice import fairness as fair

    check_plot(plot)
    campaign = app.campaign
    roller = campaign.find_character(character_name) if character_name else None
    if session_number is not None and session_number > campaign.last_session():
        raise click.ClickException(
            f"session {session_number} has not been played in {campaign.id} "
            f"(sessions so far: {campaign.last_session()})"
        )
    rolls = list(
        fair.select(
            collect_rolls(campaign, as_gm=app.as_gm()),
            roller=roller,
            source=source,
            session=session_number,
        )
    )
    reports = fair.report(rolls)
    names = campaign.characters()
    asked = requestsmod.tally(campaign, as_gm=app.as_gm(), character=roller, session=session_number)
    filters = {"character": roller, "source": source, "session": session_number}
    if plot is not None:
        if not reports:
            raise click.ClickException("no dice match these filters: no chart to draw")
        from ledger.rules.charts import fairness_figure

        shown = ", ".join(f"{k} {v}" for k, v in filters.items() if v is not None)
        title = f"Dice fairness: {campaign.id}" + (f" ({shown})" if shown else "")
        save_chart(fairness_figure(reports, title, names), plot)
    if as_json:
        echo_json(
            {
                "campaign": campaign.id,
                "filters": filters,
                "rolls": len(rolls),
                "flag_below_p": fair.FLAG_P,
                "watch_below_p": fair.WATCH_P,
                "min_expected_per_face": fair.MIN_EXPECTED,
                "predictable": fair.by_predictability(rolls),
                "requests": asked,
                "groups": [{**r.as_dict(), "roller_name": names.get(r.roller)} for r in reports],
            }
        )
        return
    if not reports:
        click.echo("No dice match: no roll in the log has these filters.")
        return
    dice = sum(r.dice for r in reports if r.roller != fair.EVERYONE)
    click.echo(
        f"Dice fairness in {campaign.id}: {dice:,} {_dice(dice)} from {len(rolls):,} "
        f"roll{'s' if len(rolls) != 1 else ''}, "
        f"{len(reports)} group{'s' if len(reports) != 1 else ''} "
        "(corrections honoured; flagged below p = 0.001)"
    )
    from ledger.dice.engine import PREDICTABILITY

    click.echo("Who could have known the dice in advance:")
    for code, count in fair.by_predictability(rolls).items():
        click.echo(f"  {count:>6,} roll{'s' if count != 1 else ' '}  {PREDICTABILITY[code]}")
    if asked["asked"]:
        click.echo(requests_line(asked))
    for r in reports:
        who = "everyone" if r.roller == fair.EVERYONE else f"{names.get(r.roller, r.roller)}"
        mark = "  [FLAGGED]" if r.flagged else ""
        click.echo("")
        from_ = f"{r.rolls:,} roll{'s' if r.rolls != 1 else ''}"
        click.echo(f"{r.source} {r.die}, {who}: {r.dice:,} {_dice(r.dice)} from {from_}{mark}")
        labels = ["−", "0", "+"] if r.sides == 3 else [str(i) for i in range(1, r.sides + 1)]
        cells = [f"{lab:>3}:{n:>5}" for lab, n in zip(labels, r.observed, strict=True)]
        for i in range(0, len(cells), 10):
            click.echo("  " + " ".join(cells[i : i + 10]))
        if r.chi2 is not None and r.p is not None:
            click.echo(
                f"  expected {r.expected:,.1f} per face; chi² {r.chi2:.2f} "
                f"({r.sides - 1} df), p = {fair.format_p(r.p)}"
            )
        click.echo(f"  {r.verdict}")
    if plot is not None:
        click.echo(f"\nChart: {plot}")


def requests_line(asked: dict[str, int]) -> str:
    """The fairness report's words on the roll requests (:func:`ledger.campaign.roll_requests.tally`):
    how each was answered, and any answer thrown away that the ledger shows."""
    n = asked["asked"]
    text = (
        f"Roll requests: {n} asked; {asked['answered_with_entropy']} answered with the "
        f"roller's entropy, {asked['answered_with_dice']} with physical dice, "
        f"{asked['withdrawn']} withdrawn before an answer, {asked['open']} open."
    )
    thrown = asked["withdrawn_after_answer"] + asked["answered_twice"]
    if thrown:
        text += (
            f" FLAGGED: {asked['withdrawn_after_answer']} withdrawn after their answer and "
            f"{asked['answered_twice']} answered twice: the ledger was changed behind its back."
        )
    else:
        text += (
            " An answered request stands (a withdrawal after it cannot be written); a log "
            "rebuilt without an answer is caught by the phone that sent it."
        )
    return text


def _dice(n: int) -> str:
    return "die" if n == 1 else "dice"
