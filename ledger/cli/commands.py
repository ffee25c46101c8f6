"""Commands for campaigns, characters, sessions and scenes, and the log's integrity."""

from __future__ import annotations

import tomllib
from typing import TYPE_CHECKING, Any

import click
import msgspec

from ledger.cli.base import (
    App,
    cli,
    echo_json,
    json_option,
    now,
    pass_app,
)
from ledger.cli.output import echo_changes, states

if TYPE_CHECKING:
    from ledger.store.protocols import EventStore


def _parse_option(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise click.BadParameter(
            f"{text!r}: write options as KEY=VALUE, e.g. stress_boxes=3", param_hint="--option"
        )
    key, value = text.split("=", 1)
    try:
        parsed: Any = msgspec.json.decode(value)
    except msgspec.DecodeError:
        parsed = value
    return key.strip(), parsed


@cli.command()
@click.argument("name")
@click.option(
    "--system", "system_id", required=True, help="Rule system id (see `campaign systems`)."
)
@click.option("--title", help="A title for people (default: NAME).")
@click.option(
    "--option",
    "options",
    multiple=True,
    metavar="KEY=VALUE",
    help="A campaign option of the rule system (repeatable), e.g. stress_boxes=3.",
)
@json_option
@pass_app
def new(
    app: App, name: str, system_id: str, title: str | None, options: tuple[str, ...], as_json: bool
) -> None:
    """Create a campaign NAME played with a rule system.

    The ledger file (--db) is created if it does not exist; one file may hold several
    campaigns.
    """
    import os

    from ledger.campaign.aggregate import Campaign, load_system
    from ledger.store.base import is_url, shown

    opts = dict(_parse_option(o) for o in options)
    load_system(system_id, opts)  # a bad system or option is refused before a file is made

    def create(store: EventStore) -> Any:
        return Campaign.create(
            store, name, system=system_id, title=title, options=opts, actor=app.actor, at=now()
        )

    path = app.db_path
    if path != ":memory:" and not is_url(path) and not os.path.exists(path):
        from ledger.store.newfile import (
            build_new_file,  # a new file appears whole, or not at all
        )

        campaign = build_new_file(path, create)
    else:
        campaign = create(app.store(create=True))
    if as_json:
        echo_json(
            {"campaign": campaign.id, "system": system_id, "options": campaign.created.options}
        )
    else:
        click.echo(f"Created campaign {campaign.id} ({campaign.system.name}) in {shown(app.db_path)}")


@cli.command()
@click.argument("system_id", metavar="[SYSTEM]", required=False)
@json_option
def systems(system_id: str | None, as_json: bool) -> None:
    """List the installed rule systems, with the distribution and version providing each.

    With SYSTEM: its `roll` and `odds` options (types, ranges, what they do), the events
    `campaign record` writes with their fields, its roll events, and an example roll line
    from its book.
    """
    from ledger.rules.plugins import distribution_of, rule_systems

    installed = rule_systems()
    if system_id is not None:
        if system_id not in installed:
            raise click.UsageError(
                f"no rule system {system_id!r} (installed: {', '.join(sorted(installed))})"
            )
        _system_detail(installed[system_id], as_json)
        return
    rows = []
    for sid, system in sorted(installed.items()):
        dist, version = distribution_of(system)
        rows.append(
            {
                "id": sid,
                "name": system.name,
                "book": system.book_title,
                "source": system.source,
                "distribution": dist,
                "version": version,
            }
        )
    if as_json:
        echo_json(rows)
        return
    for r in rows:
        click.echo(
            f"{r['id']:<15} {r['name']:<22} {r['distribution']} {r['version']}  (rules: {r['book']})"
        )


def _param_row(p: Any) -> dict[str, Any]:
    names = {"str": "text", "int": "integer"}
    kind = "flag" if p.is_flag else names.get(getattr(p.type, "__name__", ""), "text")
    return {
        "option": p.flag,
        "label": p.title,
        "type": kind,
        "min": p.min,
        "max": p.max,
        "repeatable": p.multiple,
        "choices": list(p.choices),
        "values": list(p.suggestions or p.choices),
        "help": p.help,
    }


def _system_detail(system: Any, as_json: bool) -> None:
    """``campaign systems SYSTEM``: everything a GM types for SYSTEM."""
    import msgspec

    from ledger.cli.fields import describe_type, fields_of, option_name, recordable
    from ledger.events import Roll
    from ledger.rules.plugins import distribution_of

    dist, version = distribution_of(system)
    events: dict[str, list[dict[str, Any]]] = {
        short: [
            {
                "field": option_name(name),
                "type": describe_type(t),
                "required": default is msgspec.NODEFAULT,
            }
            for name, t, default in fields_of(cls)
        ]
        for short, cls in sorted(recordable(system).items())
    }
    rolls = sorted(
        str(cls.__struct_config__.tag)  # type: ignore[attr-defined]
        for cls in system.event_types
        if issubclass(cls, Roll)
    )
    line, _, note = system.example_roll.partition("  # ")
    detail: dict[str, Any] = {
        "id": system.id,
        "name": system.name,
        "book": system.book_title,
        "source": system.source,
        "distribution": dist,
        "version": version,
        "roll_options": [_param_row(p) for p in system.roll_params],
        "odds_options": [_param_row(p) for p in system.odds_params],
        "record_events": events,
        "roll_events": rolls,
        "example_roll": f"campaign {line}" if line else "",
        "harm": system.has_harm,
        "initiative": system.initiative_rule or None,  #
        "actions_per_round": system.actions_per_round,
    }
    if as_json:
        echo_json(detail)
        return
    click.echo(f"{system.name} ({system.id}): {dist} {version}, rules from {system.book_title}")
    for title, key in (("campaign roll", "roll_options"), ("campaign odds", "odds_options")):
        click.echo(f"\nOptions of `{title}`:")
        for row in detail[key]:
            kind = str(row["type"])
            low, high = row["min"], row["max"]
            if low is not None or high is not None:
                kind += f" {'' if low is None else low}..{'' if high is None else high}"
            if row["repeatable"]:
                kind += ", repeatable"
            click.echo(f"  {row['option']:<16} {kind:<20} {row['help']}")
            if row["values"]:
                click.echo(f"  {'':<16} {'':<20} values: {', '.join(row['values'])}")
    click.echo("\nEvents of `campaign record EVENT` (fields; * required):")
    for short, fields in events.items():
        listed = " ".join(f["field"] + ("*" if f["required"] else "") for f in fields)
        click.echo(f"  {short:<24} {listed}")
    click.echo("\nRoll events (written by `campaign roll`): " + ", ".join(rolls))
    click.echo(
        "\nHarm: `campaign damage CHARACTER AMOUNT` records it"
        if system.has_harm
        else "\nHarm: recorded with `campaign record` only (no `campaign damage`)"
    )
    click.echo(  # encounters: the text's words, or the GM's order where it is silent
        f"\nInitiative (`campaign encounter start`): {system.initiative_rule}"
        if system.initiative_rule
        else "\nInitiative (`campaign encounter start`): the text gives none; the GM's order"
    )
    if system.actions_per_round:
        click.echo(f"Actions a round (`campaign encounter act`): {system.actions_per_round}")
    if line:
        click.echo(f"\nExample: campaign {line}" + (f"  ({note})" if note else ""))


@cli.group()
def character() -> None:
    """Add, list and show characters."""


@character.command("add")
@click.option(
    "--sheet",
    "sheet_path",
    type=click.Path(dir_okay=False),
    help="A TOML character sheet (docs/sheets.md).",
)
@click.option(
    "--passport",
    "passport_path",
    type=click.Path(dir_okay=False),
    help="A passport from another table (`campaign passport export`): verified, then the "
    "character starts here as it proves them (docs/league.md).",
)
@click.option("--id", "character_id", help="With --passport: the character's id here.")
@click.option(
    "--league",
    "league_url",
    help="With --passport: the league's URL; the passport must end at its newest entry "
    "for the character.",
)
@click.option("--league-key", "league_key", help="With --league: the league's checkpoint key.")
@json_option
@pass_app
def character_add(
    app: App, sheet_path: str | None, passport_path: str | None, character_id: str | None,
    league_url: str | None, league_key: str | None, as_json: bool,
) -> None:  # fmt: skip
    """Validate a character sheet against the rules and add the character, or bring one
    from another table with --passport (checked against a league with --league)."""
    if (sheet_path is None) == (passport_path is None):
        raise click.UsageError("give --sheet FILE (a new character) or --passport FILE")
    if (league_url or league_key) and passport_path is None:
        raise click.UsageError("--league checks a passport: give --passport FILE")
    if bool(league_url) != bool(league_key):
        raise click.UsageError("--league needs --league-key (the league's checkpoint key)")
    if passport_path is not None:
        from ledger.cli.league import add_from_passport

        league = (league_url, league_key) if league_url and league_key else None
        add_from_passport(app, passport_path, character_id, as_json, league)
        return
    assert sheet_path is not None
    sheet = load_sheet(sheet_path)
    rec = app.campaign.add_character(sheet, actor=app.actor, at=now())
    if as_json:
        echo_json({"seq": rec.seq, "character": rec.data.character, "name": rec.data.name})
    else:
        click.echo(f"Added {rec.data.name} (id {rec.data.character}) at seq {rec.seq}")


def load_sheet(path: str) -> dict[str, Any]:
    """A TOML sheet as a dict.

    :raises click.ClickException: unreadable, not TOML, or nested too deeply for the parser.
    """
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise click.ClickException(f"cannot read sheet {path}: {e.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise click.ClickException(f"{path} is not valid TOML: {e}") from None
    except RecursionError:
        raise click.ClickException(
            f"{path} nests tables or arrays too deeply: a character sheet needs a few levels"
        ) from None


@character.command("list")
@json_option
@pass_app
def character_list(app: App, as_json: bool) -> None:
    """List the campaign's characters."""
    chars = app.campaign.characters()
    if as_json:
        echo_json([{"character": cid, "name": name} for cid, name in chars.items()])
        return
    for cid, name in chars.items():
        click.echo(f"{cid:<16} {name}")


@character.command("show")
@click.argument("character_name", metavar="CHARACTER")
@json_option
@click.pass_context
def character_show(ctx: click.Context, character_name: str, as_json: bool) -> None:
    """Show CHARACTER's current sheet (the same as `campaign sheet CHARACTER`)."""
    from ledger.cli.views import sheet

    ctx.invoke(sheet, character_name=character_name, as_of=None, as_json=as_json)


@cli.group()
def session() -> None:
    """Start and end sessions (each with its committed dice seed)."""


@session.command("start")
@json_option
@pass_app
def session_start(app: App, as_json: bool) -> None:
    """Open the next session and publish its seed commitment.

    Paste the commitment into the group chat: at session end the seed is revealed and
    anyone can check every engine roll against it.
    """
    rec = app.campaign.start_session(actor=app.actor, at=now())
    if as_json:
        echo_json(
            {
                "seq": rec.seq,
                "session": rec.data.number,
                "seed_commitment": rec.data.seed_commitment,
            }
        )
    else:
        click.echo(f"Session {rec.data.number} started (seq {rec.seq}).")
        click.echo(f"Seed commitment: {rec.data.seed_commitment}")


@session.command("end")
@click.option("--league", "league_url", help="Submit the chronicle entries to this league.")
@click.option("--league-key", "league_key", help="With --league: the league's checkpoint key.")
@json_option
@pass_app
def session_end(app: App, league_url: str | None, league_key: str | None, as_json: bool) -> None:
    """Close the open session: reveal its seed, commit the downtime seed (advancement dice
    draw from it) and print a receipt to keep."""
    from ledger.campaign import checkpoints
    from ledger.history.report import receipt_of, session_receipt

    campaign = app.campaign
    before = states(app) if not as_json else {}
    rec = campaign.end_session(actor=app.actor, at=now())
    downtime = campaign.record(rec.seq + 1)  # the same batch: downtime.committed
    receipt = session_receipt(campaign, rec)  # the batch's last event, as the recap shows it
    commitment = getattr(downtime.data, "seed_commitment", "")
    made = checkpoints.latest(campaign)  # signed in the same transaction
    signed = [  # the chronicle entries signed after the checkpoint, in the same transaction
        r for r in campaign.records(after=made.size, types=["chronicle.signed"])
    ] if made is not None else []  # fmt: skip
    last = campaign.store.head(campaign.id)
    head = receipt_of(last.seq, last.hash)  # where the log is now: after the entries
    if as_json:
        echo_json(
            {
                "seq": rec.seq,
                "session": rec.data.number,
                "seed_reveal": rec.data.seed_reveal,
                "downtime_commitment": commitment,
                "receipt": receipt,
                "checkpoint": made.note if made else None,
                "chronicles": [
                    {"seq": r.seq, "character": r.data.character} for r in signed
                ],
                "head": head,
            }
        )
    else:
        click.echo(f"Session {rec.data.number} ended (seq {rec.seq}).")
        click.echo(f"Seed revealed: {rec.data.seed_reveal}")
        click.echo(f"Downtime seed commitment (advancement dice): {commitment}")
        click.echo(f"Receipt: {receipt}")
        if made is not None:
            click.echo(f"Checkpoint of {made.size} events signed: `campaign checkpoint` prints it")
        if signed:
            names = campaign.characters()
            who = ", ".join(f"{names.get(r.data.character, r.data.character)} (seq {r.seq})" for r in signed)
            click.echo(f"Chronicle entries signed: {who}; the log's head is now {head}")
        echo_changes(app, before, states(app))
    if league_url:
        from ledger.cli.league import submit_entries

        if not league_key:
            raise click.UsageError("--league needs --league-key (the league's checkpoint key)")
        submit_entries(app, league_url, league_key, session=rec.data.number)


@session.command("abandon")
@click.option("--reason", required=True, help="Why the session is closed without its seed.")
@json_option
@pass_app
def session_abandon(app: App, reason: str, as_json: bool) -> None:
    """Close the open session when its seed is lost (no backup holds it).

    Records session.abandoned with the reason. The session's engine rolls stay in the log,
    reported "unverifiable (session abandoned)" by verify and audit; the next session
    starts as usual. Refused while the seed is still kept: end the session normally. With
    no session open, closes a downtime whose seed was lost (downtime.abandoned).
    """
    rec = app.campaign.abandon_session(reason, actor=app.actor, at=now())
    if as_json:
        echo_json(
            {"seq": rec.seq, "type": rec.type, "session": rec.data.number, "reason": rec.data.reason}
        )
    elif rec.type == "downtime.abandoned":
        click.echo(
            f"The downtime after session {rec.data.number} abandoned (seq {rec.seq}): its seed "
            "was lost."
        )
    else:
        click.echo(f"Session {rec.data.number} abandoned (seq {rec.seq}): its seed was lost.")


@session.command("list")
@json_option
@pass_app
def session_list(app: App, as_json: bool) -> None:
    """List sessions with their commitments and reveals (or why one was abandoned)."""
    from ledger.campaign.aggregate import SESSION_TYPES

    out: dict[int, dict[str, Any]] = {}
    for rec in app.campaign.records(types=[*SESSION_TYPES]):
        s = out.setdefault(rec.data.number, {"session": rec.data.number})
        if rec.type == "session.started":
            s.update(
                started_seq=rec.seq,
                started_at=rec.recorded_at,
                seed_commitment=rec.data.seed_commitment,
            )
        elif rec.type == "session.abandoned":
            s.update(abandoned_seq=rec.seq, abandoned_at=rec.recorded_at, reason=rec.data.reason)
        else:
            s.update(ended_seq=rec.seq, ended_at=rec.recorded_at, seed_reveal=rec.data.seed_reveal)
    rows = list(out.values())
    if as_json:
        echo_json(rows)
        return
    for s in rows:
        state = (
            f"ended at seq {s['ended_seq']}"
            if "ended_seq" in s
            else f"abandoned at seq {s['abandoned_seq']} (seed lost)"
            if "abandoned_seq" in s
            else "open"
        )
        click.echo(f"session {s['session']:<4} started seq {s['started_seq']:<6} {state}")


@cli.group()
def scene() -> None:
    """Start and end scenes (a scene end clears what lasts a scene, e.g. Wyrd stress)."""


@scene.command("start")
@click.argument("title", required=False, default="")
@pass_app
def scene_start(app: App, title: str) -> None:
    """Open a scene (optional TITLE)."""
    rec = app.campaign.scene("start", title, actor=app.actor, at=now())
    click.echo(f"Scene started (seq {rec.seq}).")


@scene.command("end")
@click.argument("title", required=False, default="")
@pass_app
def scene_end(app: App, title: str) -> None:
    """Close the scene: stress, once-per-scene abilities and boons reset; says what changed
    on each sheet."""
    campaign = app.campaign
    before = states(app)
    rec = campaign.scene("end", title, actor=app.actor, at=now())
    click.echo(f"Scene ended (seq {rec.seq}).")
    echo_changes(app, before, states(app))


@cli.command()
@click.argument("text")
@click.option("--character", "character_name", help="The character it is about (id or name).")
@click.option("--blind", is_flag=True, help="A GM-only note.")
@json_option
@pass_app
def note(app: App, text: str, character_name: str | None, blind: bool, as_json: bool) -> None:
    """Record a free-text note for the log and recaps (optionally about a character)."""
    from ledger.events import NoteAdded

    campaign = app.campaign
    if not text.strip():
        raise click.BadParameter("the note is empty", param_hint="TEXT")
    cid = campaign.find_character(character_name) if character_name else None
    rec = campaign.append(
        [NoteAdded(text=text.strip(), character=cid)],
        actor=app.actor,
        at=now(),
        visibility="gm" if blind else None,
    )[0]
    if as_json:
        echo_json(
            {"seq": rec.seq, "character": cid, "text": rec.data.text, "visibility": rec.visibility}
        )
    else:
        from ledger.cli.output import made_mark
        from ledger.text import printable

        click.echo(f"[{rec.seq}] note: {printable(rec.data.text)}{made_mark(rec)}")
