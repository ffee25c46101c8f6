"""Moving a campaign in and out of a ledger: ``export``, ``import``, ``backup`` and ``copy``
(between ledgers and backends, every hash unchanged)."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from ledger.cli.base import App, cli, echo_json, json_option, now, pass_app, view_option


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
            # a new file is built privately and appears whole, checked on the disk (#24)
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
    trust: list[Any] = []  # its signed checkpoints and cosignatures (#26)
    lines = parse_lines(rest, trust)

    def fill(store: Any) -> Imported:
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
        lines = store.head(campaign.id).seq + 1  # its events (then its checkpoints, #26)
    secrets = sum(1 for r in rows if r["kind"] in ("session", "downtime"))  # not a key or hook
    key = any(r["kind"] == "checkpoint" for r in rows)  # the checkpoint signing key (#26)
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
