"""``campaign copy SRC DST``: campaigns between ledgers and backends (a SQLite file, a
PostgreSQL URL), every hash unchanged (#19)."""

from __future__ import annotations

import os

import click

from ledger.cli.base import App, cli, echo_json, json_option, pass_app


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
