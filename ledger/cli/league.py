"""Passports and leagues: a character's signed career, carried from table to table.

``campaign passport export CHARACTER -o FILE`` writes a character's passport;
``campaign character add --passport FILE`` (in :mod:`ledger.cli.commands`) verifies one and
starts the character here (:func:`add_from_passport`). docs/league.md describes both.
"""

from __future__ import annotations

import os

import click

from ledger.cli.base import App, cli, echo_json, now, pass_app


def _read(path: str, what: str) -> bytes:
    """A file's bytes, or a one-line refusal naming it."""
    try:
        with open(path, "rb") as f:
            return f.read(64 * 1024 * 1024 + 1)
    except OSError as e:
        raise click.ClickException(f"cannot read {what} {path}: {e.strerror}") from None


def add_from_passport(app: App, path: str, character_id: str | None, as_json: bool) -> None:
    """``character add --passport FILE``: verify the passport, then add the character from
    the state its last entry proves (:func:`ledger.history.passports.join`)."""
    from ledger.history.passports import join

    data = _read(path, "passport")
    created, joined = join(app.campaign, data, character=character_id, actor=app.actor, at=now())
    if as_json:
        echo_json(
            {
                "seq": created.seq,
                "character": created.data.character,  # type: ignore[attr-defined]
                "name": created.data.name,  # type: ignore[attr-defined]
                "passport": joined.data.passport,  # type: ignore[attr-defined]
                "head": joined.data.head,  # type: ignore[attr-defined]
                "table": joined.data.table,  # type: ignore[attr-defined]
            }
        )
        return
    data_ = joined.data
    click.echo(
        f"Added {created.data.name} (id {created.data.character}) at seq {created.seq} from "  # type: ignore[attr-defined]
        f"passport {data_.passport}: verified; last entry signed by {data_.table}"  # type: ignore[attr-defined]
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
    from ledger.history.passports import export_passport

    data = export_passport(app.campaign, character_name)
    if os.path.exists(output):
        raise click.ClickException(f"{output} exists: give a new file name")
    with open(output, "xb") as f:
        f.write(data)
    click.echo(f"Wrote {output}")
