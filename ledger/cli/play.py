"""``campaign play``: the table shell.

The GM opens the ledger once for a whole session and types the same commands as on the
command line without the ``campaign --db ...`` prefix (``roll julian notice --dr fair``).
Each entry runs through the same click commands, so its answer, its errors (one line) and
what it writes are exactly those of ``campaign``; a refused entry writes nothing and the
shell goes on. ``help`` lists the commands an entry may run (not ``demo``, ``serve`` or
``play``, which run outside the shell: :data:`OUTSIDE_THE_SHELL`). The ledger file stays open between
entries, and each entry takes a fresh look at the campaign (another terminal may write).

Completion (Tab) offers commands, options, characters, the skills of the character being
rolled for, a system's named values (DR names) and event names for ``record``; history is
kept in ``$XDG_STATE_HOME/campaign-ledger/history`` (``--history none`` keeps none).
Off a terminal (a pipe or a file), entries are read one a line, which is how it is tested.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import click

from ledger.cli.base import App, cli, pass_app

EXIT_WORDS = frozenset({"exit", "quit"})
"""Entries that end the shell (as do Ctrl-D and end of input)."""

_FILE_OPTIONS = ("--db", "--campaign")  # the shell's ledger is fixed when it starts

OUTSIDE_THE_SHELL = {
    "play": "you are already at the table (`exit` leaves this shell)",
    "serve": "the web view runs until Ctrl-C: start `campaign serve` in another terminal",
    "demo": "the demo builds its own ledgers: run `campaign demo` outside this shell",
}
"""Commands an entry cannot run, each with the sentence that says why and what to do."""


class TableShell:
    """Runs entries (one command line each) against one open ledger.

    :param app: the ``campaign`` invocation's :class:`~ledger.cli.App` (its ``--db``,
        ``--campaign``, ``--as`` and ``--actor`` are the shell's defaults).
    """

    def __init__(self, app: App) -> None:
        self.app = app
        app.in_shell = True  # an entry never reads a later line as an answer
        self.entries = 0
        self.failures = 0

    def run_line(self, line: str) -> int | None:
        """Run one entry and return its exit code (0 done, 1 refused, 2 usage), or ``None``
        when the entry ends the shell. Blank lines and ``#`` comments do nothing (0)."""
        text = line.strip()
        if not text or text.startswith("#"):
            return 0
        try:
            words = shlex.split(text)
        except ValueError as e:  # an unclosed quote
            click.echo(f"Error: cannot read that line: {e} (close the quote)", err=True)
            return self._done(2)
        if not words:
            return 0
        if words[0] in EXIT_WORDS:
            return None
        if words == ["help"]:
            click.echo(table_help(self.app), nl=False)
            return self._done(0)
        if words[0] == "help":
            words = [*words[1:], "--help"]
        problem = _refused(words)
        if problem:
            click.echo(f"Error: {problem}", err=True)
            return self._done(2)
        try:
            code = cli.run(words, prog_name="campaign", obj=self.app)
            if words[0] != "encounter":  # which shows the order itself
                self._turn_order()
        finally:
            self.app.end_entry()
        return self._done(code)

    def _turn_order(self) -> None:
        """After an entry, while an encounter runs: one line with the turn order, the
        current turn highlighted, as the entry's view (``--as``) sees it."""
        from ledger.cli.encounters import status_line
        from ledger.errors import LedgerError

        try:
            from ledger.campaign.encounters import encounter_view

            view = encounter_view(self.app.campaign, self.app.as_gm())
        except (LedgerError, click.ClickException):
            return
        if view is not None:
            click.echo(status_line(view))

    def _done(self, code: int) -> int:
        self.entries += 1
        if code:
            self.failures += 1
        return code

    def run_lines(self, lines: Iterable[str]) -> int:
        """Run entries until the input ends or an exit word; returns the number of
        refused entries (0 when every entry was done)."""
        for line in lines:
            if self.run_line(line) is None:
                break
        return self.failures


def table_help(app: App) -> str:
    """What ``help`` alone prints in the shell: how an entry is typed, the options an entry
    may give, and every command it may run with its one-line help (the root group's
    commands, plugins' included, but :data:`OUTSIDE_THE_SHELL`)."""
    ctx = click.Context(cli, info_name="campaign", obj=app)
    formatter = ctx.make_formatter()
    formatter.write_text(
        "Type a command as after `campaign`, e.g. `roll julian notice --dr fair`; "
        "`help COMMAND` shows its options; `exit` or Ctrl-D leaves."
    )
    with formatter.section("Options an entry may give (for that entry only)"):
        formatter.write_dl(
            [
                ("--as [gm|player]", "Whose view: player never sees GM-only facts."),
                ("--actor TEXT", "Who records the entry's events."),
            ]
        )
    commands = []
    for name in cli.list_commands(ctx):
        command = cli.get_command(ctx, name)
        if name not in OUTSIDE_THE_SHELL and command is not None and not command.hidden:
            commands.append((name, command))
    limit = formatter.width - 6 - max(len(name) for name, _ in commands)  # as click's own
    with formatter.section("Commands"):
        formatter.write_dl([(name, c.get_short_help_str(limit)) for name, c in commands])
    return formatter.getvalue()


def _refused(words: list[str]) -> str | None:
    """Why an entry cannot run in the shell (``None``: it can)."""
    for word in words:
        if not word.startswith("-"):
            return OUTSIDE_THE_SHELL.get(word)
        if word.split("=", 1)[0] in _FILE_OPTIONS:
            return (
                f"{word.split('=', 1)[0]} is fixed for this shell: "
                "`exit` and start `campaign --db FILE play` on the other ledger"
            )
    return None


# --- completion ---------------------------------------------------------------------------


def candidates(app: App, words: list[str], current: str) -> list[str]:
    """What Tab offers after ``words`` (the complete words before the cursor) for the word
    being typed, ``current``: sorted, each starting with ``current`` (in any case: ``inv`` offers ``Investigate``).

    Commands and sub-commands; a command's options; the values of a choice option; a
    system's named values (``RollParam.suggestions``, e.g. DR names); characters for a
    ``CHARACTER`` argument; the character's skills for ``roll``'s SKILL; event names and
    then their fields for ``record``. Never raises: a campaign that cannot be read offers
    commands and options only.
    """
    typed = current.lower()
    return sorted({c for c in _offers(app, words) if c.lower().startswith(typed)})


def _offers(app: App, words: list[str]) -> Iterator[str]:
    ctx = click.Context(cli, obj=app, info_name="campaign")
    command: click.Command = cli
    rest = list(words)
    while rest and rest[0].startswith("-"):  # global options: --as gm, --actor NAME
        word = rest.pop(0)
        option = _option(cli, ctx, word)
        if option is not None and not option.is_flag and "=" not in word:
            if not rest:  # `--as <Tab>`
                yield from _option_values(option, None)
                return
            rest.pop(0)
    while isinstance(command, click.Group):
        if not rest:
            if command is cli:
                yield from (n for n in cli.list_commands(ctx) if n not in OUTSIDE_THE_SHELL)
                yield from ("help", *EXIT_WORDS)
            else:
                yield from command.list_commands(ctx)
            return
        sub = command.get_command(ctx, rest.pop(0))
        if sub is None:
            return
        command = sub
    system = _system(app)
    params = _params(command, ctx, system)
    previous = rest[-1] if rest else None
    option = _option_in(params, previous) if previous else None
    if option is not None and not option.is_flag and not option.count:
        yield from _option_values(option, system)
        return
    positional = _positional(params, rest)
    arguments = [p for p in params if isinstance(p, click.Argument)]
    if command.name == "record" and positional:
        yield from _record_fields(app, positional[0])
        return
    yield from (o for p in params if isinstance(p, click.Option) for o in p.opts if o != "-h")
    if len(positional) < len(arguments):
        yield from _argument_values(app, arguments[len(positional)], positional, command)


def _system(app: App) -> Any:
    try:
        return app.campaign.system
    except Exception:  # no ledger yet, an unreadable file: complete what needs none
        return None


def _params(command: click.Command, ctx: click.Context, system: Any) -> list[click.Parameter]:
    from ledger.cli.options import SystemParamsCommand

    if isinstance(command, SystemParamsCommand) and system is not None:
        sub = click.Context(command, parent=ctx, info_name=command.name)
        if command.params_attr == "roll_params":
            sub.meta["ledger.system"] = system
        return command.get_params(sub)
    return command.get_params(ctx)


def _option(command: click.Command, ctx: click.Context, word: str) -> click.Option | None:
    return _option_in(command.get_params(ctx), word)


def _option_in(params: list[click.Parameter], word: str) -> click.Option | None:
    name = word.split("=", 1)[0]
    for p in params:
        if isinstance(p, click.Option) and name in (*p.opts, *p.secondary_opts):
            return p
    return None


def _positional(params: list[click.Parameter], rest: list[str]) -> list[str]:
    """The positional words typed so far (options and their values left out)."""
    out = []
    words = iter(rest)
    for word in words:
        if word.startswith("-") and len(word) > 1:
            option = _option_in(params, word)
            if option is not None and not option.is_flag and not option.count and "=" not in word:
                next(words, None)
            continue
        out.append(word)
    return out


def _option_values(option: click.Option, system: Any) -> Iterable[str]:
    if isinstance(option.type, click.Choice):
        return [str(c) for c in option.type.choices]
    if system is not None:
        for param in system.roll_params:
            if param.name == option.name:
                return param.suggestions or param.choices
    return ()


def _argument_values(
    app: App, argument: click.Argument, positional: list[str], command: click.Command
) -> Iterable[str]:
    if isinstance(argument.type, click.Choice):
        return [str(c) for c in argument.type.choices]
    try:
        if argument.name == "character_name":
            return list(app.campaign.characters())
        if argument.name == "skill" and positional:
            campaign = app.campaign
            character = campaign.find_character(positional[0])
            state = campaign.state_of(character)
            return list(campaign.system.skills_of(state))
        if argument.name == "event_type":
            return ["list", *_record_types(app)]
        if argument.name == "system_id":
            from ledger.rules.plugins import rule_systems

            return list(rule_systems())
    except Exception:  # an unknown character, an unreadable ledger: offer nothing
        return ()
    return ()


def _record_types(app: App) -> dict[str, Any]:
    from ledger.events import Roll

    campaign = app.campaign
    prefix = campaign.system.id + "."
    return {
        tag[len(prefix) :].replace("_", "-"): cls
        for tag, cls in campaign.codec.types.items()
        if tag.startswith(prefix) and not issubclass(cls, Roll)
    }


def _record_fields(app: App, event: str) -> Iterable[str]:
    import msgspec

    try:
        cls = _record_types(app).get(event.lower().replace("_", "-"))
    except Exception:
        return ()
    if cls is None:
        return ()
    fields = ["--" + f.encode_name.replace("_", "-") for f in msgspec.structs.fields(cls)]
    return [*fields, "--blind", "--json"]


# --- the prompt -----------------------------------------------------------------------------


def default_history() -> Path:
    """Where entries are remembered: ``$XDG_STATE_HOME/campaign-ledger/history``
    (``~/.local/state/...`` when the variable is unset)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(base) / "campaign-ledger" / "history"


def prompt_lines(app: App, *, history: Path | None, session: Any = None) -> Iterator[str]:
    """Entries typed at a prompt_toolkit prompt (completion, history), until Ctrl-D.

    :param session: a ``PromptSession`` to use (tests pass one wired to a pipe input);
        default: one on the terminal.
    """
    from prompt_toolkit import PromptSession
    from prompt_toolkit.completion import Completer, Completion
    from prompt_toolkit.history import FileHistory, InMemoryHistory

    class LedgerCompleter(Completer):
        def get_completions(self, document: Any, complete_event: Any) -> Iterator[Completion]:
            text = document.text_before_cursor
            try:
                words = shlex.split(text)
            except ValueError:
                return
            current = "" if not text or text[-1].isspace() else (words.pop() if words else "")
            for offer in candidates(app, words, current):
                yield Completion(offer, start_position=-len(current))

    if session is None:
        if history is not None:
            history.parent.mkdir(parents=True, exist_ok=True)
        session = PromptSession(
            history=FileHistory(str(history)) if history is not None else InMemoryHistory(),
            completer=LedgerCompleter(),
            complete_while_typing=False,
        )
    elif session.completer is None:
        session.completer = LedgerCompleter()
    while True:
        try:
            yield session.prompt(_prompt_text(app))
        except KeyboardInterrupt:  # Ctrl-C drops the line being typed, as in a shell
            continue
        except EOFError:  # Ctrl-D
            return


def _prompt_text(app: App) -> str:
    try:
        campaign = app.campaign
        session = campaign.current_session()
    except Exception:
        return "campaign> "
    where = f" s{session}" if session is not None else ""
    view = " [GM]" if app.as_gm() else ""
    return f"{campaign.id}{where}{view}> "


@cli.command()
@click.option(
    "--history",
    "history_path",
    metavar="FILE|none",
    help="Where entries are remembered across sessions "
    "(default $XDG_STATE_HOME/campaign-ledger/history; `none` keeps none).",
)
@pass_app
def play(app: App, history_path: str | None) -> None:
    """The table shell: keep the ledger open and type commands without `campaign --db ...`.

    \b
        $ campaign --db casebook.db play
        casebook s1> roll julian investigate --dr good --dice ++-0
        casebook s1> damage felix 2
        casebook s1> help roll
        casebook s1> exit

    Tab completes commands, options, characters, skills and DR names; Up and Down walk
    the history; Ctrl-C drops the line, Ctrl-D or `exit` leaves. Each entry answers and
    fails exactly as the same `campaign` command would (a refused entry writes nothing and
    the shell goes on). `--as` and `--actor` given to `campaign` are the shell's defaults
    (`campaign --as gm play` shows GM-only facts; the prompt then ends in [GM]); an entry
    may give its own (`--as player sheet isa`), for that entry only: the prompt shows the
    view the next entry uses. An entry never reads the next line as an answer: give
    `undo --reason "..."` (and `roll ... --auto`) in the entry. Piped input runs one entry a
    line (exit status 1 if any entry was refused).
    """
    app.store()  # refuse a missing ledger now, with the usual message
    shell = TableShell(app)
    if sys.stdin.isatty() and sys.stdout.isatty():
        history = None if history_path == "none" else Path(history_path or default_history())
        shell.run_lines(prompt_lines(app, history=history))
        return
    if shell.run_lines(sys.stdin):
        raise SystemExit(1)
