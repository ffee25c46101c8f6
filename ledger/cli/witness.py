"""``campaign witness init|trust|list|serve``: a club witness (C2SP tlog-witness).

A witness is run by someone other than the GM (the club, a player's always-on machine). It
keeps, per campaign log it follows, the size and root of the last checkpoint it cosigned,
and cosigns a new checkpoint only with a consistency proof from there: a log rewritten
after the witness saw it can no longer be cosigned.
"""

from __future__ import annotations

from typing import Any

import click

from ledger.cli.base import cli, echo_json, json_option

STATE_HELP = "The witness's state file: logs followed and their last cosigned checkpoints."
KEY_HELP = "The witness's secret key file (made by `campaign witness init`; keep it private)."


def _state_option(fn: Any) -> Any:
    return click.option(
        "--state",
        "state_path",
        envvar="CAMPAIGN_WITNESS_STATE",
        default="witness.json",
        show_default=True,
        type=click.Path(dir_okay=False),
        help=STATE_HELP,
    )(fn)


def _key_option(fn: Any) -> Any:
    return click.option(
        "--key",
        "key_path",
        envvar="CAMPAIGN_WITNESS_KEY",
        default="witness.key",
        show_default=True,
        type=click.Path(dir_okay=False),
        help=KEY_HELP,
    )(fn)


def _refused(e: Exception) -> click.ClickException:
    return click.ClickException(" ".join(str(e).split()))


@cli.group()
def witness() -> None:
    """A club witness: cosigns campaign checkpoints only if history only grew.

    \b
    campaign witness init club.example/witness     make its key and state
    campaign witness trust LOG-VKEY                follow a campaign's log
    campaign witness serve --host 0.0.0.0          answer POST /add-checkpoint
    """


@witness.command("init")
@click.argument("name")
@_key_option
@_state_option
@json_option
def init(name: str, key_path: str, state_path: str, as_json: bool) -> None:
    """Make a witness called NAME: a new key (KEY, never overwritten) and an empty state.

    NAME is how its cosignatures are signed, such as club.example/witness. Prints the
    witness's public key (NAME+KEYID+BASE64), which logs and players pin.
    """
    from ledger.text import check_name
    from ledger.trust.cosignature import Cosigner
    from ledger.trust.notes import NoteError
    from ledger.witness.core import save_cosigner
    from ledger.witness.state import WitnessError, WitnessState

    try:
        check_name(name, "a witness name")
        cosigner = Cosigner.generate(name)
    except NoteError:
        raise click.BadParameter(
            f"{name!r}: a witness name has no spaces and no '+' (such as club.example/witness)",
            param_hint="NAME",
        ) from None
    state = WitnessState(state_path)
    try:
        save_cosigner(key_path, cosigner)
        state.create()
        logs = len(state.read().logs)
    except WitnessError as e:
        raise _refused(e) from None
    if as_json:
        echo_json({"name": name, "key": cosigner.verifier.key(), "key_file": key_path,
                   "state": state_path, "logs": logs})  # fmt: skip
        return
    click.echo(f"Witness {name}: key in {key_path}, state in {state_path}")
    click.echo(f"Its public key: {cosigner.verifier.key()}")
    click.echo("Next: `campaign witness trust LOG-VKEY` for each campaign it follows.")


@witness.command("trust")
@click.argument("vkey", metavar="LOG-VKEY")
@click.option("--origin", help="The checkpoints' origin line, when it is not the key's name.")
@click.option(
    "--same-log",
    is_flag=True,
    help="LOG-VKEY is a new key of a log already followed under this origin.",
)
@_state_option
@json_option
def trust(vkey: str, origin: str | None, same_log: bool, state_path: str, as_json: bool) -> None:
    """Follow a campaign's log: cosign checkpoints signed by LOG-VKEY (NAME+HASH+BASE64,
    as the campaign prints its key). Its first checkpoint is taken as given; each later one
    needs a consistency proof from the last one cosigned. An origin is one log: another key
    for an origin already followed is refused unless it is the same log's (--same-log)."""
    from ledger.witness.core import trust as trust_key
    from ledger.witness.state import WitnessError, WitnessState

    state = WitnessState(state_path)
    try:
        state.read()
        origin, verifier = trust_key(state, vkey, origin, same_log=same_log)
    except WitnessError as e:
        raise _refused(e) from None
    if as_json:
        echo_json({"origin": origin, "key": verifier.key()})
        return
    click.echo(f"Following {origin} (key {verifier.key()})")


@witness.command("list")
@_state_option
@_key_option
@json_option
def list_(state_path: str, key_path: str, as_json: bool) -> None:
    """Show the witness's key and the logs it follows, with the size it last cosigned."""
    from ledger.witness.core import load_cosigner
    from ledger.witness.state import WitnessError, WitnessState

    try:
        cosigner = load_cosigner(key_path)
        logs = WitnessState(state_path).read().logs
    except WitnessError as e:
        raise _refused(e) from None
    rows = [{"origin": o, "keys": e.keys, "size": e.size, "root": e.root} for o, e in logs.items()]
    if as_json:
        echo_json({"name": cosigner.name, "key": cosigner.verifier.key(), "logs": rows})
        return
    from ledger.text import printable

    click.echo(f"Witness {cosigner.name}: {cosigner.verifier.key()}")
    if not rows:
        click.echo("Follows no log yet: `campaign witness trust LOG-VKEY`.")
    for origin, entry in logs.items():
        seen = "nothing cosigned yet" if entry.size is None else f"size {entry.size}"
        click.echo(f"  {printable(origin)}: {seen}")


@witness.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=7380,
    show_default=True,
    help="TCP port (0: any free one).",
)
@_state_option
@_key_option
def serve(host: str, port: int, state_path: str, key_path: str) -> None:
    """Answer C2SP tlog-witness requests until Ctrl-C: POST /add-checkpoint (old size,
    consistency proof, signed checkpoint) returns the witness's cosignature, or 409 with the
    size it last cosigned. Its state is written atomically before each answer."""
    from ledger.witness import server as witness_server
    from ledger.witness.core import Witness, load_cosigner
    from ledger.witness.state import WitnessError, WitnessState

    try:
        cosigner = load_cosigner(key_path)
        state = WitnessState(state_path)
        logs = state.read().logs
        sock = witness_server.bind(host, port)
    except WitnessError as e:
        raise _refused(e) from None
    where = f"http://{host if ':' not in host else f'[{host}]'}:{sock.getsockname()[1]}"
    click.echo(f"Witness {cosigner.name} at {where}, following {len(logs)} log(s) (Ctrl-C stops)")
    click.echo(f"Its public key: {cosigner.verifier.key()}")
    if not logs:
        click.echo("Warning: it follows no log yet: `campaign witness trust LOG-VKEY`.", err=True)
    witness_server.serve(Witness(cosigner, state), sock)
