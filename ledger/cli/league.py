"""Passports and leagues: a character's signed career, carried from table to table.

``campaign passport export CHARACTER -o FILE`` writes a character's passport;
``campaign character add --passport FILE`` (in :mod:`ledger.cli.commands`) verifies one and
starts the character here (:func:`add_from_passport`). docs/league.md describes both.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import click

from ledger.cli.base import App, cli, echo_json, now, pass_app

if TYPE_CHECKING:
    from ledger.store.protocols import EventStore


def _read(path: str, what: str) -> bytes:
    """A file's bytes, or a one-line refusal naming it."""
    try:
        with open(path, "rb") as f:
            return f.read(64 * 1024 * 1024 + 1)
    except OSError as e:
        raise click.ClickException(f"cannot read {what} {path}: {e.strerror}") from None


def add_from_passport(
    app: App, path: str, character_id: str | None, as_json: bool,
    league: tuple[str, str] | None = None,
) -> None:  # fmt: skip
    """``character add --passport FILE``: verify the passport, then add the character from
    the state its last entry proves (:func:`ledger.history.passports.join`). With
    ``league`` (its URL and checkpoint key), the passport must end at the league's newest
    entry for the character: one cut short (to drop a death, say) is refused."""
    from ledger.history.passports import cosigned_words, decode, join

    data = _read(path, "passport")
    newest = None
    if league is not None:
        from ledger.league.joining import LeagueNotAsked, newest_head

        try:
            newest = newest_head(*league)
        except LeagueNotAsked as e:
            raise click.ClickException(str(e)) from None

    created, joined = join(
        app.campaign, data, character=character_id, actor=app.actor, at=now(), newest=newest
    )
    if as_json:
        echo_json(
            {
                "seq": created.seq,
                "character": created.data.character,  # type: ignore[attr-defined]
                "name": created.data.name,  # type: ignore[attr-defined]
                "passport": joined.data.passport,  # type: ignore[attr-defined]
                "head": joined.data.head,  # type: ignore[attr-defined]
                "table": joined.data.table,  # type: ignore[attr-defined]
                "cosigned": [  # per entry, oldest first: the phone key, or null
                    e.cosignature.vkey if e.cosignature else None for e in decode(data).entries
                ],
            }
        )
        return
    data_ = joined.data
    carried = [e.cosignature for e in decode(data).entries]
    click.echo(
        f"Added {created.data.name} (id {created.data.character}) at seq {created.seq} from "  # type: ignore[attr-defined]
        f"passport {data_.passport}: verified; last entry signed by {data_.table}"  # type: ignore[attr-defined]
        f"; {cosigned_words(carried)}"
    )


@cli.group()
def passport() -> None:
    """Export a character's passport: their chronicle entries from every table."""


@passport.command("export")
@click.argument("character_name", metavar="CHARACTER")
@click.option(
    "-o", "--output", required=True, type=click.Path(dir_okay=False),
    help="The passport file to write (not an existing file).",
)  # fmt: skip
@pass_app
def passport_export(app: App, character_name: str, output: str) -> None:
    """Write CHARACTER's passport: every chronicle entry from every table, the events each
    names with their inclusion proofs, and the checkpoints they rest on. It holds only what
    the player may see; another table verifies it with `campaign character add --passport`.
    """
    from ledger.history.passports import cosigned_words, decode, export_passport

    data = export_passport(app.campaign, character_name)
    if os.path.exists(output):
        raise click.ClickException(f"{output} exists: give a new file name")
    with open(output, "xb") as f:
        f.write(data)
    click.echo(f"Wrote {output}: {cosigned_words([e.cosignature for e in decode(data).entries])}")


def submit_entries(app: App, url: str, vkey: str, *, session: int | None = None) -> None:
    """Submit this table's chronicle entries (those of ``session``, or all) to the league
    at ``url``, print each verdict, and show every conflict the league keeps that involves
    this table (both entries). An offline league is a warning: submit later."""
    from ledger.league.client import LeagueClient, LeagueUnreachable
    from ledger.trust.notes import NoteError

    campaign = app.campaign
    try:
        client = LeagueClient(url, vkey)
        client.check()
    except LeagueUnreachable as e:
        click.echo(f"Warning: {e}: run `campaign league submit` when it is back", err=True)
        return
    except NoteError as e:
        raise click.ClickException(f"the league at {url} is not the one --league-key names ({e})") from None
    for rec in campaign.records(types=["chronicle.signed"]):
        if session is not None and rec.data.session != session:
            continue
        verdict = client.submit(rec.data.note)
        who = f"{rec.data.character}, session {rec.data.session}"
        if verdict.get("status") == "accepted":
            click.echo(f"League: accepted the entry of {who}", err=True)
        elif verdict.get("status") == "refused":
            click.echo(f"League refused the entry of {who}: {verdict.get('problem')}", err=True)
    from ledger.campaign.checkpoints import origin

    for conflict in client.refused(origin(campaign.id)):
        click.echo(f"Conflict: {conflict['problem']}", err=True)
        click.echo("  the entry refused:\n" + _indent(conflict["entry"]), err=True)
        click.echo("  the league's entry:\n" + _indent(conflict["conflict"]), err=True)


def _indent(note: str) -> str:
    return "\n".join("    " + line for line in note.rstrip("\n").split("\n"))


@cli.group()
def league() -> None:
    """Run a league (many tables, one record of every character) or submit to one."""


def _league(app: App, name: str | None) -> tuple[EventStore, str]:
    store = app.store()
    names = [c.removeprefix("league-") for c in store.campaign_ids() if c.startswith("league-")]
    if name is None:
        if len(names) != 1:
            raise click.UsageError(
                "name the league with --league NAME" if names else
                "no league here: `campaign league init NAME` makes one"
            )
        name = names[0]
    return store, name


@league.command("init")
@click.argument("name")
@pass_app
def league_init(app: App, name: str) -> None:
    """Make league NAME on this ledger (a SQLite file or a PostgreSQL URL) and its key."""
    from ledger.league.core import League, LeagueError

    try:
        made = League.init(app.store(create=True), name, at=now())
    except LeagueError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"League {name} made. Its checkpoint key (give it to member tables): {made.vkey}")


@league.command("trust")
@click.argument("vkey", metavar="GM-VKEY")
@click.option("--league", "name", help="The league (default: the only one on this ledger).")
@pass_app
def league_trust(app: App, vkey: str, name: str | None) -> None:
    """Add a member table's checkpoint key (`campaign checkpoint --json` gives it)."""
    from ledger.league.core import League, LeagueError

    store, name = _league(app, name)
    try:
        table = League(store, name).trust(vkey, at=now())
    except LeagueError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"League {name} trusts {table}")


@league.command("serve")
@click.option("--league", "name", help="The league (default: the only one on this ledger).")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8765, show_default=True, type=int)
@pass_app
def league_serve(app: App, name: str | None, host: str, port: int) -> None:
    """Serve the league's HTTP API until Ctrl-C (docs/league.md "HTTP API")."""
    import uvicorn

    from ledger.league.server import make_app
    from ledger.store.opening import StoreSource

    _, name = _league(app, name)
    click.echo(f"League {name} at http://{host}:{port} (Ctrl-C stops)")
    uvicorn.run(make_app(StoreSource(app.db_path), name), host=host, port=port, log_level="warning")


@league.command("submit")
@click.option("--league", "url", required=True, help="The league's URL.")
@click.option("--league-key", "vkey", required=True, help="The league's checkpoint key.")
@pass_app
def league_submit(app: App, url: str, vkey: str) -> None:
    """Submit this table's chronicle entries to its league (a table that was offline at
    `session end`); entries the league has are skipped, conflicts are shown."""
    submit_entries(app, url, vkey)


@league.command("tiles")
@click.option("--league", "name", help="The league (default: the only one on this ledger).")
@click.option(
    "--out", "out_dir", required=True, type=click.Path(file_okay=False),
    help="The directory to write (a static web server's, or a mirror's).",
)  # fmt: skip
@pass_app
def league_tiles(app: App, name: str | None, out_dir: str) -> None:
    """Sign a checkpoint of the league's log and write it with the log's tiles (C2SP
    tlog-tiles) under OUT: any web server or mirror serves them as static files, and anyone
    holding a checkpoint recomputes its root from them."""
    from ledger.league.core import League
    from ledger.league.tiles import write_tiles
    from ledger.trust.notes import Checkpoint

    store, name = _league(app, name)
    found = League(store, name)
    note = found.checkpoint()
    size = Checkpoint.parse(note[: note.rfind("\n\n") + 1]).size
    os.makedirs(out_dir, exist_ok=True)
    count = write_tiles(store, found.id, size, note, out_dir)
    click.echo(f"Wrote the checkpoint of {size} entries and {count - 1} tiles to {out_dir}")
