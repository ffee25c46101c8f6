"""Commands for campaigns, characters, sessions and scenes, and the log's integrity."""

from __future__ import annotations

import sys
import tomllib
from typing import Any

import click
import msgspec

from ledger.cli.base import (
    App,
    cli,
    echo_json,
    json_option,
    now,
    pass_app,
    progress_bar,
    view_option,
)
from ledger.cli.output import echo_changes, states


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

    def create(store: Any) -> Any:
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
        "option": "--" + p.name.replace("_", "-"),
        "type": kind,
        "min": p.min,
        "max": p.max,
        "repeatable": p.multiple,
        "values": list(p.suggestions),
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
        str(msgspec.inspect.type_info(cls).tag)  # type: ignore[attr-defined]
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
    if line:
        click.echo(f"\nExample: campaign {line}" + (f"  ({note})" if note else ""))


@cli.group()
def character() -> None:
    """Add, list and show characters."""


@character.command("add")
@click.option(
    "--sheet",
    "sheet_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="A TOML character sheet (docs/sheets.md).",
)
@json_option
@pass_app
def character_add(app: App, sheet_path: str, as_json: bool) -> None:
    """Validate a character sheet against the rules and add the character."""
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
@json_option
@pass_app
def session_end(app: App, as_json: bool) -> None:
    """Close the open session: reveal its seed, commit the downtime seed (advancement dice
    draw from it) and print a receipt to keep."""
    from ledger.history.verify import session_receipt

    campaign = app.campaign
    before = states(app) if not as_json else {}
    rec = campaign.end_session(actor=app.actor, at=now())
    downtime = campaign.record(rec.seq + 1)  # the same batch: downtime.committed
    receipt = session_receipt(campaign, rec)  # the batch's last event, as the recap shows it
    commitment = getattr(downtime.data, "seed_commitment", "")
    if as_json:
        echo_json(
            {
                "seq": rec.seq,
                "session": rec.data.number,
                "seed_reveal": rec.data.seed_reveal,
                "downtime_commitment": commitment,
                "receipt": receipt,
            }
        )
    else:
        click.echo(f"Session {rec.data.number} ended (seq {rec.seq}).")
        click.echo(f"Seed revealed: {rec.data.seed_reveal}")
        click.echo(f"Downtime seed commitment (advancement dice): {commitment}")
        click.echo(f"Receipt: {receipt}")
        echo_changes(app, before, states(app))


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
@click.argument("file", required=False, type=click.File("rb"))
@click.option(
    "--receipt",
    help="SEQ:HASH from an earlier receipt (all 64 hex digits, or the first 16 or more): "
    "prove the log up to SEQ is unchanged.",
)
@click.option(
    "--drop-snapshots",
    is_flag=True,
    help="Delete the campaign's snapshots (a cache of states; the next reads rebuild them).",
)
@json_option
@pass_app
def verify(app: App, file: Any, receipt: str | None, drop_snapshots: bool, as_json: bool) -> None:
    """Recompute the hash chain, every engine roll of every ended session and every roll's
    result (what its rule system gives for its recorded inputs and dice), and check every
    snapshot in use against a replay.

    With FILE, check an export instead of the ledger (a GM's or a player's copy, as
    `campaign export` writes it; --db is not read): players verify without Python. A
    player's copy is checked as far as it can be: GM-only events through their hashes.
    Exit 0 and print a receipt (head seq and hash), or exit 1 naming the first bad seq.
    """
    from ledger.history.verify import (
        ReceiptError,
        clock_note,
        parse_receipt,
        pending_lines,
        verify_store,
    )

    parsed = None
    if receipt is not None:
        try:
            parsed = parse_receipt(receipt)
        except ReceiptError as e:
            raise click.BadParameter(str(e), param_hint="--receipt") from None
    if file is not None:
        from ledger.exchange.backup import split_backup
        from ledger.exchange.ndjson import BadLine, parse_lines, verify_export

        _, rest = split_backup(file)
        try:
            lines = parse_lines(rest)
        except BadLine as e:
            if not as_json:
                raise
            # --json answers in JSON even when the file is not an export at all
            echo_json({"ok": False, "campaign": None, "bad_seq": None,
                       "bad_line": e.number, "problem": str(e)})  # fmt: skip
            sys.exit(1)
        campaign_id, report = verify_export(lines, receipt=parsed)
        stubs = report.stubs
    else:
        store = app.store()
        # verify reads the stored rows only: a damaged first event must be reported, not
        # stop the campaign from opening
        campaign_id = app.campaign_id
        if campaign_id is None:
            ids = store.campaign_ids()
            if len(ids) != 1:
                campaign_id = app.campaign.id  # the usual "no campaign" / "several" error
            else:
                campaign_id = ids[0]
        length = parsed[0] if parsed else store.head(campaign_id).seq
        with progress_bar(length, "Verifying") as update:
            report = verify_store(store, campaign_id, receipt=parsed, progress=update)
        stubs = 0
        if drop_snapshots:
            click.echo(f"Dropped {store.drop_snapshots(campaign_id)} snapshots.", err=True)
        elif report.ok:  # every snapshot in use must be what a replay gives (ledger.rules.snapshots)
            from ledger.history.verify import verify_snapshots

            problem = verify_snapshots(store, campaign_id)
            if problem:
                report.fail(*problem)
    if as_json:
        echo_json(
            {
                "ok": report.ok,
                "campaign": campaign_id,
                "receipt": report.receipt,
                "events": report.events,
                "redacted": stubs,
                "engine_rolls_verified": report.engine_rolls,
                "engine_rolls_unverifiable": report.unverifiable_rolls,
                "engine_rolls_abandoned": report.abandoned_rolls,
                "results_rederived": report.results_checked,
                "results_unchecked": report.results_unchecked,
                "bad_seq": report.bad_seq,
                "problem": report.problem,
                "clock_back": report.clock.json(),
            }
        )
    if not report.ok:
        if not as_json:
            where = f"at seq {report.bad_seq}" if report.bad_seq else "in the database file"
            click.echo(f"error: verification failed {where}: {report.problem}", err=True)
        sys.exit(1)
    if not as_json:
        extra = f" (receipt {receipt.strip()} holds)" if receipt else ""
        hidden = f" ({stubs} GM-only, checked through their hashes)" if stubs else ""
        click.echo(
            f"OK: {report.events} events{hidden}, {report.engine_rolls} engine rolls verified, "
            f"{report.results_checked} roll results re-derived{extra}"
        )
        if report.results_unchecked:
            click.echo(f"Roll results not checked: {report.results_unchecked}")
        for line in pending_lines(report):
            click.echo(line)
        note = clock_note(report.clock)
        if note:
            click.echo(note)
        click.echo(f"Receipt: {report.receipt}")


@cli.command("export")
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False), help="Write to a file (default stdout)."
)
@click.option(
    "--verifier",
    type=click.Path(dir_okay=False),
    help="Also write the in-browser verifier, one self-contained HTML file that checks an "
    "export with WebCrypto alone (then the export itself only with -o).",
)
@view_option
@pass_app
def export_(app: App, output: str | None, verifier: str | None) -> None:
    """Export the campaign as NDJSON, one event a line, oldest first.

    The default view is --as player: a GM-only event becomes a stub of only what the chain
    needs (seq, campaign, prev_hash, hash, "redacted": true) and the chain still verifies.
    `campaign --as gm export` holds every event but no unrevealed seed: made during an open
    session, it cannot restore that session (it could neither roll nor end). Only
    `campaign backup FILE` carries the seeds: use it for backups.
    """
    from ledger.exchange.ndjson import export_lines

    if verifier:
        from ledger.cli.output import atomic_file
        from ledger.web.verifier import verifier_html

        with atomic_file(verifier, db_path=app.db_path) as f:
            f.write(verifier_html().encode())
        click.echo(f"Wrote the verifier to {verifier}: open it in a browser", err=True)
        if not output:
            return

    as_gm = app.as_gm()
    open_session = app.campaign.current_session() if as_gm else None
    lines = export_lines(app.store(), app.campaign.id, as_gm=as_gm)
    if output:
        from ledger.cli.output import atomic_file

        with atomic_file(output, db_path=app.db_path) as f:
            f.writelines(lines)
    else:
        out = sys.stdout.buffer
        for line in lines:
            out.write(line)
        out.flush()
    if open_session is not None:  # said once the export is written (a refusal says nothing)
        click.echo(
            f"Warning: session {open_session} is open and this GM export does not carry its "
            "seed: a ledger restored from it can neither roll nor end that session, and "
            "`campaign import` refuses it once the session has engine rolls. Only "
            "`campaign backup FILE` carries the seed.",
            err=True,
        )


@cli.command("import")
@click.argument("file", type=click.File("rb"))
@click.option(
    "--abandon-open-session",
    is_flag=True,
    help="When the file's last session is open and the file lacks its seed (a GM export, "
    "not a backup): import anyway and close that session as abandoned, its engine rolls "
    "unverifiable.",
)
@json_option
@pass_app
def import_(app: App, file: Any, abandon_open_session: bool, as_json: bool) -> None:
    """Import a GM backup (`campaign backup`) or a GM export (NDJSON) into this ledger file.

    A backup restores everything, the open session's seed included (each secret checked
    against its commitment in the log). A GM export holds no seed: when its last session is
    open with engine rolls, it is refused (restored, that session could neither roll nor
    end, and its rolls could never be verified) unless --abandon-open-session closes that
    session as abandoned. Refused, with nothing written, when the chain or a roll does not
    verify, when the file is a player's export, or when the campaign already exists here.
    A new ledger file is built privately, checked on the disk, and appears whole, only when
    the import succeeds.
    """
    import os

    from ledger.exchange.backup import split_backup
    from ledger.exchange.ndjson import Imported, import_lines, parse_lines
    from ledger.store.base import is_url

    backup, rest = split_backup(file)
    lines = parse_lines(rest)

    def fill(store: Any) -> Imported:
        return import_lines(
            store,
            lines,
            backup=backup,
            abandon_open_session=abandon_open_session,
            actor=app.actor,
            at=now(),
        )

    if app.db_path != ":memory:" and not is_url(app.db_path) and not os.path.exists(app.db_path):
        from ledger.store.newfile import build_new_file

        done = build_new_file(app.db_path, fill)
    else:
        done = fill(app.store(create=True))
    if as_json:
        echo_json(
            {
                "campaign": done.campaign,
                "events": done.events,
                "secrets": done.secrets,
                "abandoned_session": done.abandoned,
                "engine_rolls_unverifiable": done.unverifiable_rolls,
            }
        )
        _note_clock_back(lines)
        return
    if done.open_without_seed is not None:
        click.echo(
            f"Warning: session {done.open_without_seed} is open and the file does not hold its "
            "seed (only a GM backup, `campaign backup FILE`, does): it can neither roll nor "
            'end; close it with `campaign session abandon --reason "..."`',
            err=True,
        )
    if done.abandoned is not None:
        k = done.unverifiable_rolls
        click.echo(
            f"Session {done.abandoned} was open without its seed: abandoned at import, its {k} "
            f"engine roll{'s are' if k != 1 else ' is'} unverifiable (only a GM backup, "
            "`campaign backup FILE`, carries an open session's seed)."
        )
    secrets = done.secrets
    kept = f" and {secrets} unrevealed seed{'s' if secrets != 1 else ''}" if secrets else ""
    click.echo(
        f"Imported campaign {done.campaign}: {done.events} events{kept}, chain and rolls verified."
    )
    _note_clock_back(lines)


def _note_clock_back(lines: Any) -> None:
    """After an import: where the imported log's ``recorded_at`` goes back in time, if
    anywhere (kept as written: the times are in the chain; :func:`ledger.history.verify.clock_note`)."""
    from ledger.history.verify import ClockBack, clock_note

    clock = ClockBack()
    for line in lines:
        clock.feed(line.seq, getattr(line, "recorded_at", None))
    note = clock_note(clock)
    if note:
        click.echo(note, err=True)


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@json_option
@pass_app
def backup(app: App, file: str, as_json: bool) -> None:
    """Write a GM backup of the campaign to FILE: everything `import` needs to restore it.

    FILE holds the GM's export (every event, line for line as `campaign --as gm export`)
    after a first line with the unrevealed seeds (the open session's, and any downtime
    seed). Anyone who reads it can foresee the open session's engine rolls: it is written
    readable by you only; keep it private and share `campaign export` instead.
    """
    from ledger.cli.output import atomic_file
    from ledger.exchange.ndjson import backup_lines

    store = app.store()
    campaign = app.campaign
    with atomic_file(file, db_path=app.db_path, private=True) as f, store.transaction():
        lines = 0
        for line in backup_lines(store, campaign.id):
            f.write(line)
            lines += 1
        secrets = len(store.secret_rows(campaign.id))
    if as_json:
        echo_json({"campaign": campaign.id, "file": file, "events": lines - 1, "secrets": secrets})
    else:
        click.echo(
            f"Backed up {campaign.id} to {file}: {lines - 1} events and {secrets} unrevealed "
            f"seed{'s' if secrets != 1 else ''} (keep this file private)."
        )


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
