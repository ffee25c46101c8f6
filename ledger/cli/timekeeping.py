"""``campaign time pass DURATION``: the campaign's own clock."""

from __future__ import annotations

from typing import Any

import click

from ledger.cli.base import App, cli, echo_json, json_option, now, pass_app
from ledger.cli.output import echo_changes, states
from ledger.errors import RuleError
from ledger.events import Event, event_tag, stream_of
from ledger.rules.spans import FORMS, span_words


@cli.group("time")
def time_group() -> None:
    """Pass in-fiction time: the campaign's own clock, never the computer's."""


def _gm_only(event: Event) -> bool:
    return type(event).visibility == "gm"


@time_group.command("pass")
@click.argument("duration", metavar="DURATION")
@click.option("--rest", is_flag=True, help="The characters rest (sleep) through it.")
@click.option(
    "--care", is_flag=True, help="They have proper care through it (healing that asks for care)."
)
@click.option("--dry-run", is_flag=True, help="List every consequence first; write nothing.")
@json_option
@pass_app
def time_pass(
    app: App, duration: str, rest: bool, care: bool, dry_run: bool, as_json: bool
) -> None:
    """Pass DURATION of in-fiction time, with everything the rules say it brings.

    DURATION is 90m, 8h, 3d, 2w or 1d12h (minutes, hours, days, weeks), or one of the
    rule system's named spans, such as "a night's sleep" (see `campaign systems ID`).
    Conditions whose time ran out end, wounds heal on the book's schedule, a rest
    recovers what the book says; `campaign undo` takes all of it back.

    \b
    Examples:
      campaign time pass 6h
      campaign time pass "a night's sleep"
      campaign time pass 1w --rest --care --dry-run
    """
    from ledger.campaign.timeline import drawn_later, pass_time

    campaign = app.campaign
    try:
        from ledger.rules.spans import parse_duration

        parse_duration(duration, campaign.system.time_spans)
    except RuleError as e:
        raise click.UsageError(str(e)) from None
    as_gm = app.as_gm()
    before = states(app) if not (dry_run or as_json) else {}
    done = pass_time(
        campaign, duration, rest=rest, care=care, dry_run=dry_run, actor=app.actor, at=now()
    )
    from ledger.history.words import summary, time_words

    shown = [e for e in done.consequences if as_gm or not _gm_only(e)]
    lines = [
        f"{event_tag(type(e))} of {stream_of(e)}: rolled when the time passes (not in a dry run)"
        if drawn_later(e, dry_run)
        else summary(campaign, e, stream_of(e))
        for e in shown
    ]
    seqs = [r.seq for r in done.records[1:] if as_gm or r.visibility != "gm"]
    if as_json:
        out: dict[str, Any] = {
            "dry_run": dry_run,
            "minutes": done.span.minutes,
            "words": done.span.words,
            "rest": done.span.rest,
            "care": done.span.care,
            "seq": done.records[0].seq if done.records else None,
            "consequences": [
                {"seq": seqs[i] if i < len(seqs) else None, "type": event_tag(type(e)), "line": text}
                for i, (e, text) in enumerate(zip(shown, lines, strict=True))
            ],
        }
        echo_json(out)
        return
    head = time_words(done.span)
    if dry_run:
        click.echo(f"Would pass: {head} (dry run: nothing written)")
    else:
        click.echo(f"{head} (seq {done.records[0].seq}).")
    if not lines:
        click.echo(f"  Nothing the rules put a time limit on ends within {span_words(done.span.minutes)}.")
    for text in lines:
        click.echo(f"  {text}")
    if not dry_run:
        echo_changes(app, before, states(app))


__all__ = ["FORMS", "time_group", "time_pass"]
