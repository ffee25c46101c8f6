"""Moving a campaign in and out of a ledger: ``export``, ``import``, ``backup`` and ``copy``
(between ledgers and backends, every hash unchanged)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

import click

from ledger.cli.base import App, cli, echo_json, json_option, now, pass_app, view_option

if TYPE_CHECKING:
    from ledger.store.protocols import EventStore


@cli.command("copy")
@click.argument("src")
@click.argument("dst")
@json_option
@pass_app
def copy(app: App, src: str, dst: str, as_json: bool) -> None:
    """Copy campaigns from the ledger SRC to the ledger DST (each a file or a postgresql://
    URL): every event byte for byte, so every hash is the same, and the unrevealed seeds.

    Copies every campaign of SRC, or only the one named by the global --campaign. DST is
    created when it is a file that does not exist yet (built privately, and there only once
    it reads back whole from the disk). Each copy is verified in DST (chain,
    seeds, rolls) before anything is committed; refused, with nothing written, when a
    campaign is already in DST or does not verify. Snapshots are not copied (a cache).

    \b
    campaign copy casebook.db postgresql://ledger@db.example.org/ledger
    campaign --campaign casebook copy postgresql://ledger@db/ledger casebook-copy.db
    """
    from ledger.exchange.copying import copy_campaigns
    from ledger.store.base import is_url, shown
    from ledger.store.opening import open_store

    synchronous = os.environ.get("CAMPAIGN_SYNCHRONOUS", "NORMAL")
    if not is_url(src) and not os.path.exists(src):
        raise click.ClickException(
            f"no ledger at {src}: give an existing file or a postgresql:// URL"
        )
    if src == dst or (
        not is_url(src) and not is_url(dst) and os.path.exists(dst) and os.path.samefile(src, dst)
    ):
        raise click.UsageError("SRC and DST are the same ledger: give another DST")
    source = open_store(src, synchronous=synchronous)
    try:
        ids = [app.campaign_id] if app.campaign_id else source.campaign_ids()
        if not ids:
            raise click.ClickException(f"{shown(src)} holds no campaign: nothing to copy")
        if not is_url(dst) and not os.path.exists(dst):
            # a new file is built privately and appears whole, checked on the disk
            from ledger.store.newfile import build_new_file

            done = build_new_file(dst, lambda target: copy_campaigns(source, target, ids))
        else:
            target = open_store(dst, synchronous=synchronous)
            try:
                done = copy_campaigns(source, target, ids)
            finally:
                target.close()
    finally:
        source.close()
    if as_json:
        echo_json(
            [
                {
                    "campaign": c.campaign,
                    "events": c.events,
                    "secrets": c.secrets,
                    "receipt": f"{c.head_seq}:{c.head_hash}",
                }
                for c in done
            ]
        )
        return
    for c in done:
        seeds = (
            f" and {c.secrets} unrevealed seed{'s' if c.secrets != 1 else ''}" if c.secrets else ""
        )
        click.echo(
            f"Copied {c.campaign} ({c.events} events{seeds}) from {shown(src)} to {shown(dst)}: "
            f"verified there, receipt {c.head_seq}:{c.head_hash}"
        )


@cli.command("export")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option(
    "-o", "--output", type=click.Path(dir_okay=False), help="Write to a file (default stdout)."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["ndjson", "sqlite"]),
    default="ndjson",
    show_default=True,
    help="sqlite: a players' copy safe to open in Datasette or share (FILE, and "
    "FILE.metadata.json describing its tables).",
)
@click.option(
    "--verifier",
    type=click.Path(dir_okay=False),
    help="Also write the in-browser verifier, one self-contained HTML file that checks an "
    "export with WebCrypto alone (then the export itself only with -o).",
)
@view_option
@pass_app
def export_(
    app: App, file: str | None, output: str | None, fmt: str, verifier: str | None
) -> None:
    """Export the campaign as NDJSON, one event a line, oldest first (to FILE, -o or stdout).

    The default view is --as player: a GM-only event becomes a stub of only what the chain
    needs (seq, campaign, prev_hash, hash, "redacted": true) and the chain still verifies.
    `campaign --as gm export` holds every event but no unrevealed seed: made during an open
    session, it cannot restore that session (it could neither roll nor end). Only
    `campaign backup FILE` carries the seeds: use it for backups.

    --format sqlite FILE writes the players' view as a SQLite file to open in Datasette or
    share (the ledger file itself is the GM's: Datasette would show its seeds and GM-only
    events): an events table with each log line in a `text` column, GM-only events as stubs
    of their seq and hashes, no secrets; and FILE.metadata.json describing it
    (`datasette FILE -m FILE.metadata.json`).
    """
    from ledger.exchange.ndjson import export_lines

    if file and output:
        raise click.UsageError("give FILE or -o/--output, not both")
    output = output or file
    if fmt == "sqlite":
        _export_sqlite(app, output, verifier)
        return

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


def _export_sqlite(app: App, output: str | None, verifier: str | None) -> None:
    """``campaign export --format sqlite FILE``: the players' copy and its metadata."""
    import json

    from ledger.cli.output import atomic_file, atomic_path
    from ledger.exchange.spreadsheet import metadata, write_players_copy

    if not output:
        raise click.UsageError("--format sqlite writes a file: give FILE")
    if verifier:
        raise click.UsageError("--verifier goes with the NDJSON export")
    if app.as_gm():
        raise click.UsageError(
            "--format sqlite writes the players' copy only (a GM's copy is the ledger file)"
        )
    meta_path = f"{output}.metadata.json"
    campaign = app.campaign
    with atomic_path(output, db_path=app.db_path, option="FILE") as tmp:
        done = write_players_copy(campaign, tmp)
    stem = os.path.splitext(os.path.basename(output))[0]
    with atomic_file(meta_path, db_path=app.db_path, text=True, option="FILE") as f:
        f.write(json.dumps(metadata(campaign, stem), indent=2, ensure_ascii=False) + "\n")
    click.echo(
        f"Wrote the players' copy of {campaign.id} to {output}: {done.events} events "
        f"({done.gm_only} GM-only as stubs), {done.characters} characters, no secrets; "
        f"Datasette metadata in {meta_path}"
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
@click.option(
    "--from",
    "tool",
    type=click.Choice(["foundry", "roll20"]),
    help="FILE is another tool's chat log: Foundry VTT's Export Chat Log (or ChatMessage "
    "JSON), or a saved Roll20 Chat Archive page. Its rolls join this campaign as imported "
    "rolls (never verified).",
)
@click.option(
    "--map",
    "maps",
    multiple=True,
    metavar='"SPEAKER=CHARACTER"',
    help="With --from: the character (id or name) a speaker of the chat log is (repeatable). "
    "A speaker named like a character, or mapped by an earlier import, needs none.",
)
@click.option(
    "--unmapped",
    type=click.Choice(["refuse", "skip"]),
    default="refuse",
    show_default=True,
    help="With --from: refuse a file with a speaker no character matches, or skip their rolls.",
)
@click.option(
    "--gm-only",
    is_flag=True,
    help="With --from: record every imported roll GM-only (Foundry's text export does not "
    "say which messages were whispered).",
)
@json_option
@pass_app
def import_(
    app: App,
    file: Any,
    abandon_open_session: bool,
    tool: str | None,
    maps: tuple[str, ...],
    unmapped: str,
    gm_only: bool,
    as_json: bool,
) -> None:
    """Import a GM backup (`campaign backup`) or a GM export (NDJSON) into this ledger file;
    with --from, the rolls of another tool's chat log into this campaign.

    A backup restores everything, the open session's seed included (each secret checked
    against its commitment in the log). A GM export holds no seed: when its last session is
    open with engine rolls, it is refused (restored, that session could neither roll nor
    end, and its rolls could never be verified) unless --abandon-open-session closes that
    session as abandoned. Refused, with nothing written, when the chain or a roll does not
    verify, when the file is a player's export, or when the campaign already exists here.
    A new ledger file is built privately, checked on the disk, and appears whole, only when
    the import succeeds.

    --from foundry|roll20 (docs/imports.md): each roll becomes a roll.imported event of the
    character its speaker maps to, keeping the original text, formula, dice, total and
    time; whispered and blind rolls are recorded GM-only. Every message is reported:
    imported, already imported, not a roll, or refused with its reason (a total its dice
    do not give, a total not whole, a message the file ends inside). A roll imported
    before (same message) is not imported again.

    \b
    campaign import --from roll20 "Chat Log for Casebook.html" --map "Nate=julian"
    campaign import --from foundry fvtt-log-Thu-Nov-26-2026.txt --unmapped skip
    """
    if tool is not None:
        if abandon_open_session:
            raise click.UsageError("--abandon-open-session goes with a backup or export, not --from")
        _import_foreign(app, file, tool, maps, unmapped == "skip", gm_only, as_json)
        return
    if maps or unmapped != "refuse" or gm_only:
        raise click.UsageError("--map, --unmapped and --gm-only go with --from foundry|roll20")
    import os

    from ledger.exchange.backup import split_backup
    from ledger.exchange.ndjson import Imported, import_lines, parse_lines
    from ledger.store.base import is_url

    backup, rest = split_backup(file)
    trust: list[Any] = []  # its signed checkpoints and cosignatures
    lines = parse_lines(rest, trust)

    def fill(store: EventStore) -> Imported:
        return import_lines(
            store,
            lines,
            trust=trust,
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


def _import_foreign(
    app: App, file: Any, tool: str, maps: tuple[str, ...], skip: bool, gm_only: bool,
    as_json: bool,
) -> None:  # fmt: skip
    """``campaign import --from TOOL FILE``: parse as it streams, map the speakers, append,
    and report every message of the file."""
    from ledger.exchange import foreign

    try:
        mapping = foreign.parse_map(maps)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--map") from None
    name = os.path.basename(getattr(file, "name", "FILE"))
    if tool == "foundry":
        from ledger.exchange import foundry as reader
    else:
        from ledger.exchange import roll20 as reader  # type: ignore[no-redef]
    parsed = reader.parse(file, name)
    done = foreign.import_rolls(
        app.campaign, parsed.rolls, mapping=mapping, skip_unmapped=skip, actor=app.actor,
        at=now(), gm_only=gm_only,
    )  # fmt: skip
    rows = foreign.report(parsed, done)
    counts = {status: 0 for status in foreign.STATUSES}
    for row in rows:
        counts[row.status] += 1
    tool_name = {"foundry": "Foundry VTT", "roll20": "Roll20"}[tool]
    if as_json:
        echo_json(
            {
                "campaign": app.campaign.id,
                "from": tool,
                "messages": len(rows),
                "rolls": len(parsed.rolls),
                "new": done.new,
                "already_imported": done.already,
                "gm_only_rolls": done.gm_only,
                "unmapped_skipped": done.unmapped,
                "first_seq": done.first_seq,
                "gm_only": gm_only,
                "speakers": done.speakers,
                "counts": counts,
                "report": [
                    {"status": r.status, "id": r.source, "where": r.where, "reason": r.reason,
                     "rolls": r.rolls}
                    for r in rows
                ],  # fmt: skip
            }
        )
        return
    from ledger.text import printable

    rolls = len(parsed.rolls)
    click.echo(
        f"Imported from {tool_name}{' GM-only' if gm_only else ''}: {done.new} new, "
        f"{done.already} already imported "
        f"({rolls} roll{'s' if rolls != 1 else ''} in "
        f"{len(rows)} message{'s' if len(rows) != 1 else ''}); not verifiable: "
        "the ledger never saw these dice."
    )
    click.echo(
        f"  messages: {counts['imported']} imported, {counts['already imported']} already "
        f"imported, {counts['not a roll']} not a roll, {counts['refused']} refused"
    )
    for speaker, cid in done.speakers.items():
        click.echo(printable(f"  {speaker} → {cid}"))
    if done.gm_only and not gm_only:
        click.echo(f"  {done.gm_only} whispered, blind or private roll(s) recorded GM-only")
    for speaker, count in done.unmapped.items():
        click.echo(printable(f"  {count} roll(s) of {speaker} skipped (--unmapped skip)"))
    for row in rows:
        if row.status == "refused":
            click.echo(printable(f"  refused: {row.where}: {row.reason}"))


def _note_clock_back(lines: Any) -> None:
    """After an import: where the imported log's ``recorded_at`` goes back in time, if
    anywhere (kept as written: the times are in the chain; :func:`ledger.history.verify.clock_note`)."""
    from ledger.history.report import ClockBack, clock_note

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
        rows = store.secret_rows(campaign.id)
        lines = store.head(campaign.id).seq + 1  # its events (then its checkpoints)
    secrets = sum(1 for r in rows if r["kind"] in ("session", "downtime"))  # not a key or hook
    key = any(r["kind"] == "checkpoint" for r in rows)  # the checkpoint signing key
    if as_json:
        echo_json(
            {"campaign": campaign.id, "file": file, "events": lines - 1, "secrets": secrets,
             "checkpoint_key": key}  # fmt: skip
        )
    else:
        click.echo(
            f"Backed up {campaign.id} to {file}: {lines - 1} events and {secrets} unrevealed "
            f"seed{'s' if secrets != 1 else ''}{' and the checkpoint key' if key else ''} "
            "(keep this file private)."
        )
