"""The ``campaign`` command-line tool (click).

Commands are thin: parse, call the engine, echo. Errors are one line on stderr: exit 1 when
the ledger refuses (a rule, a conflict, tampering found), exit 2 for bad usage; nothing is
written when a command fails. The root group and what commands share live in
:mod:`ledger.cli.base`; each command's module is imported when that command is first looked
up (:data:`ledger.cli.base.COMMAND_MODULES`), so a one-shot command loads only what it needs.
Shell completion (:mod:`ledger.cli.completion`) answers from the table shell, above the root
group: this package hands it to the group (:attr:`~ledger.cli.base.LedgerGroup.before_completion`).
"""

from __future__ import annotations

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


def _register_completion() -> None:
    """Register the shell-completion classes (:func:`ledger.cli.completion.register`): only
    when a shell asks for completions, since they need the table shell."""
    from ledger.cli import completion

    completion.register()


cli.before_completion = _register_completion


def main() -> None:  # pragma: no cover - console entry point is `cli`
    cli.main(prog_name="campaign")


__all__ = ["SEQ", "App", "cli", "echo_json", "json_option", "nl_option", "now", "pass_app"]

if __name__ == "__main__":  # pragma: no cover
    main()
