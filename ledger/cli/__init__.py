"""The ``campaign`` command-line tool (click).

Commands are thin: parse, call the engine, echo. Errors are one line on stderr: exit 1 when
the ledger refuses (a rule, a conflict, tampering found), exit 2 for bad usage; nothing is
written when a command fails. The root group and what commands share live in
:mod:`ledger.cli.base`; importing this package registers every command module on it.
"""

from __future__ import annotations

from ledger.cli import (  # noqa: F401  (modules add commands)
    checkpoints,
    commands,
    demo,
    history,
    pictures,
    play,
    plugin,
    serve,
    shell,
    table,
    timekeeping,
    transfer,
    views,
    witness,
)
from ledger.cli.base import (
    SEQ,
    App,
    cli,
    echo_json,
    json_option,
    nl_option,
    now,
    pass_app,
)
from ledger.cli.completion import register as _register_completion

_register_completion()


def main() -> None:  # pragma: no cover - console entry point is `cli`
    cli.main(prog_name="campaign")


__all__ = ["SEQ", "App", "cli", "echo_json", "json_option", "nl_option", "now", "pass_app"]

if __name__ == "__main__":  # pragma: no cover
    main()
