"""``campaign checkpoint``: sign and keep a checkpoint of the log (#26)."""

from __future__ import annotations

import click

from ledger.cli.base import App, cli, echo_json, json_option, now, pass_app


@cli.command()
@click.option(
    "--witness",
    "witness",
    metavar="URL",
    help="Also have the C2SP tlog-witness at URL cosign it (`campaign witness serve`).",
)
@json_option
@pass_app
def checkpoint(app: App, witness: str | None, as_json: bool) -> None:
    """Sign a checkpoint of the log as it is now (a C2SP tlog-checkpoint: origin, size, Merkle
    root, signed with the campaign's key) and keep it; `session end` makes one too. Players'
    phones and `campaign verify FILE --receipt NOTE_FILE` check later logs against it.
    A campaign made before checkpoints gets its key here, recorded by a checkpoint.key event."""
    from ledger.campaign import checkpoints

    campaign = app.campaign
    if witness:
        checkpoints.witness_client()  # refused before anything is signed when it is missing
    made = checkpoints.make_checkpoint(campaign, actor=app.actor, at=now())
    vkey = checkpoints.recorded_key(campaign) or ""
    cosigned: list[str] = []
    if witness:
        cosigned.append(checkpoints.witness_cosign(campaign, made, witness, at=now()))
    if as_json:
        echo_json({**made.as_dict(vkey), "new": made.new, "cosignatures": cosigned})
        return
    click.echo(
        f"Checkpoint of {made.size} events {'signed' if made.new else 'already kept'} "
        f"({made.made_at})."
    )
    click.echo(f"Key: {vkey}")
    click.echo("Keep this note (players: save it as a file for `verify --receipt`):")
    click.echo(made.note, nl=False)
    for line in cosigned:
        click.echo(f"Cosigned by the witness: {line}")
