"""``campaign checkpoint``: sign and keep a checkpoint of the log, and have a witness cosign it."""

from __future__ import annotations

import click

from ledger.cli.base import App, cli, echo_json, json_option, now, pass_app


@cli.command()
@click.option(
    "--witness",
    "witness",
    metavar="URL",
    help="Also have the C2SP tlog-witness at URL cosign it (`campaign witness serve`); "
    "needs --witness-key.",
)
@click.option(
    "--witness-key",
    "witness_key",
    metavar="VKEY",
    help="The witness's cosigner key NAME+KEYID+BASE64 (what `campaign witness init` "
    "printed): its cosignature is kept only if it verifies with this key.",
)
@json_option
@pass_app
def checkpoint(app: App, witness: str | None, witness_key: str | None, as_json: bool) -> None:
    """Sign a checkpoint of the log as it is now (a C2SP tlog-checkpoint: origin, size, Merkle
    root, signed with the campaign's key) and keep it; `session end` makes one too. Players'
    phones and `campaign verify FILE --receipt NOTE_FILE` check later logs against it.
    A campaign made before checkpoints gets its key here, recorded by a checkpoint.key event.

    With --witness URL --witness-key VKEY, the witness (which must follow this campaign:
    `campaign witness trust` with the key printed here) is sent the checkpoint and a
    consistency proof from the size it last cosigned; its cosignature is verified and kept,
    and `campaign verify` then names it. If the witness fails, the checkpoint is still kept:
    run the command again to retry."""
    from ledger.campaign import checkpoints
    from ledger.history import witness_cosigning
    from ledger.witness.client import check_witness_url
    from ledger.witness.state import WitnessError

    if (witness is None) != (witness_key is None):
        raise click.UsageError("give --witness URL and --witness-key VKEY together, or neither")
    if witness is not None and witness_key is not None:
        try:  # refused before anything is signed
            check_witness_url(witness)
            witness_cosigning.parse_witness_key(witness_key)
        except WitnessError as e:
            raise click.UsageError(str(e)) from None
    campaign = app.campaign
    made = checkpoints.make_checkpoint(campaign, actor=app.actor, at=now())
    vkey = checkpoints.recorded_key(campaign) or ""
    cosigned: list[witness_cosigning.Cosigned] = []
    if witness is not None and witness_key is not None:
        try:
            cosigned.append(
                witness_cosigning.cosign(campaign, made, witness, witness_key, at=now())
            )
        except WitnessError as e:
            kept = "signed and kept" if made.new else "kept"
            raise click.ClickException(
                f"{e} (the checkpoint of {made.size} events is {kept}; nothing was cosigned: "
                "run `campaign checkpoint --witness ...` again to retry)"
            ) from None
    if as_json:
        echo_json(
            {
                **made.as_dict(vkey),
                "new": made.new,
                "cosignatures": [
                    {
                        "size": c.size,
                        "cosigner": c.name,
                        "signature": c.signature,
                        "old_size": c.old_size,
                        "new": c.new,
                    }  # fmt: skip
                    for c in cosigned
                ],
            }
        )
        return
    click.echo(
        f"Checkpoint of {made.size} events {'signed' if made.new else 'already kept'} "
        f"({made.made_at})."
    )
    click.echo(f"Key: {vkey}")
    click.echo("Keep this note (players: save it as a file for `verify --receipt`):")
    click.echo(made.note, nl=False)
    for c in cosigned:
        click.echo(f"Cosigned by the witness {c.name}: {c.signature}")
