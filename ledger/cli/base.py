"""The ``campaign`` command-line tool's shared parts: the root group, the per-invocation
:class:`App`, output options and the error handling (click).

Commands are thin: parse, call the engine, echo. Errors are one line on stderr: exit 1 when
the ledger refuses (a rule, a conflict, tampering found), exit 2 for bad usage; nothing is
written when a command fails.
"""

from __future__ import annotations

import contextlib
import functools
import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import click
import msgspec

from ledger.campaign.clock import now
from ledger.cli.lazy import (  # re-exported: where the lazy command table lives
    COMMAND_MODULES,
    LazyCommands,
    load_command_modules,
)
from ledger.dice.engine import DiceError
from ledger.errors import CommitUnknown, ConflictError, RuleError, StoreError

if TYPE_CHECKING:
    from ledger.store.protocols import EventStore

#: The package's version, as pyproject.toml's ``[project] version`` (tests/test_startup.py
#: holds them equal): ``--version`` then reads no installed package's metadata.
VERSION = "0.1.0"


class App:
    """Per-invocation context: where the ledger is and who is acting. Opens lazily."""

    def __init__(self, db_path: str, campaign: str | None, as_: str | None, actor: str) -> None:
        self.db_path = db_path
        self.campaign_id = campaign
        self.as_ = as_
        self.actor = actor
        self._defaults = (as_, actor)

    def begin_entry(self, as_: str | None = None, actor: str | None = None) -> None:
        """Start one entry of ``campaign play``: the shell's ``--as``/``--actor`` unless
        this entry gives its own, and a fresh look at the campaign (another process may
        have written since the last entry); the ledger file stays open."""
        self.as_ = as_ if as_ is not None else self._defaults[0]
        self.actor = actor if actor is not None else self._defaults[1]
        self.__dict__.pop("campaign", None)

    def end_entry(self) -> None:
        """End one entry of ``campaign play``: warn about the clock (:meth:`warn_clock`),
        and go back to the shell's ``--as``/``--actor``, so the prompt shows the view the
        next entry will use (an entry's ``--as gm`` is that entry's only)."""
        self.warn_clock()
        self.say_confirmed()
        self.as_, self.actor = self._defaults

    #: Set by ``campaign play``: commands then never ask a question, since the answer read
    #: would be the next entry typed (:func:`ledger.cli.table.can_ask`).
    in_shell = False

    def as_gm(self) -> bool:
        """Is this the GM's view? Only when asked for by name (``--as gm``): everything a
        command prints may leave the GM's hands, so the default is the player's view."""
        return self.as_ == "gm"

    def store(self, *, create: bool = False) -> EventStore:
        """The ledger file's :class:`~ledger.store.sqlite.Store`, opened once.

        :raises click.ClickException: the file does not exist and ``create`` is false.
        """
        from ledger.store.base import is_url
        from ledger.store.opening import open_store

        if (
            not create
            and self.db_path != ":memory:"
            and not is_url(self.db_path)
            and not os.path.exists(self.db_path)
        ):
            raise click.ClickException(
                f"no ledger at {self.db_path}: create one with `campaign new NAME --system ID` "
                "or point --db (or CAMPAIGN_DB) at your ledger file"
            )
        if self._store is None:
            self._store = open_store(
                self.db_path, synchronous=os.environ.get("CAMPAIGN_SYNCHRONOUS", "NORMAL")
            )
            loose = getattr(self._store, "loose", None)
            if loose:  # a ledger others may read: its seed and signing key are theirs too
                from ledger.store.files import loose_warning

                click.echo(f"Warning: {loose_warning(loose)}", err=True)
        return self._store

    _store: EventStore | None = None

    def warn_clock(self) -> None:
        """Once per invocation (a whole ``campaign play`` is one): when an append was
        stamped with the ledger's last time because this computer's clock is behind it
        (:attr:`ledger.campaign.aggregate.Campaign.clock_behind`), say so on stderr."""
        campaign = self.__dict__.get("campaign")
        behind = getattr(campaign, "clock_behind", None)
        if behind is None or self._clock_warned:
            return
        from ledger.campaign.aggregate import clock_warning

        self._clock_warned = True
        click.echo(f"Warning: {clock_warning(behind)}", err=True)

    _clock_warned = False

    def say_confirmed(self) -> None:
        """For each write whose commit got no answer and that the store found stored when it
        looked afterwards (:attr:`ledger.store.protocols.EventRecorder.confirmed_after_loss`),
        say so on stderr once: it is done, and entering it again would record it twice."""
        confirmed = getattr(self._store, "confirmed_after_loss", None)
        if not confirmed:
            return
        for _, seq in confirmed:
            click.echo(
                f"Note: the connection to the database was lost as entry [{seq}] was being "
                "stored; it was looked up afterwards and is stored (do not enter it again)",
                err=True,
            )
        confirmed.clear()

    def close(self) -> None:
        """Close the ledger file (called when the command ends, so WAL checkpoints happen
        at a known moment, not whenever the garbage collector runs), after
        :meth:`warn_clock` and :meth:`say_confirmed`."""
        self.warn_clock()
        self.say_confirmed()
        if self._store is not None:
            self._store.close()
            self._store = None

    @functools.cached_property
    def campaign(self) -> Any:
        """The chosen campaign (``--campaign``, or the only one in the file)."""
        from ledger.campaign.aggregate import open_campaign

        return open_campaign(self.store(), self.campaign_id)


pass_app = click.make_pass_decorator(App)

SEQ = click.IntRange(1, 2**63 - 1)
"""A seq or session number: a positive 64-bit integer (what SQLite can store)."""

_REFUSED: tuple[type[BaseException], ...] = (
    RuleError,
    DiceError,
    ConflictError,
    StoreError,
    sqlite3.DatabaseError,
)


class LedgerGroup(click.Group):
    """A click group whose every error is one line on stderr.

    Refusals (rules, conflicts, tampering, unreadable files) exit 1; usage errors exit 2.
    An unexpected error is reported in one line too (set CAMPAIGN_DEBUG=1 for the traceback).
    """

    #: Called before click answers a shell's completion request (``None``: click's own
    #: completion). :mod:`ledger.cli` sets it on :data:`cli` to register the classes of
    #: :mod:`ledger.cli.completion`, which complete from the table shell (above this module,
    #: so it is handed in, not imported from here).
    before_completion: Callable[[], None] | None = None

    def main(
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        sys.exit(self.run(args, prog_name, complete_var, **extra))

    def run(
        self,
        args: Any = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        **extra: Any,
    ) -> int:
        """Run one command line and return its exit code (0 done, 1 refused, 2 usage).

        Every error is printed as one line on stderr, as ``main`` does; nothing raises
        (``campaign play`` calls this once per entry, with ``obj=`` its open ledger).
        """
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as e:
            where = e.ctx.command_path if e.ctx else "campaign"
            message = _one_line_text(e.format_message())
            if "--help`)" not in message:  # the error may name a better help already
                message += f" (see `{where} --help`)"
            click.echo(f"Error: {message}", err=True)
            return 2
        except click.ClickException as e:
            click.echo(f"Error: {_one_line_text(e.format_message())}", err=True)
            return e.exit_code
        except BrokenPipeError:  # `campaign log | head`: stop quietly
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
            return 1
        except click.exceptions.Abort:
            click.echo("Aborted.", err=True)
            return 1
        except click.exceptions.Exit as e:  # --help, --version
            return e.exit_code
        except SystemExit as e:  # a command that sets its own exit code (verify)
            return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except Exception as e:
            if os.environ.get("CAMPAIGN_DEBUG"):
                raise
            click.echo(
                f"Error: unexpected {type(e).__name__}: {_one_line(e)} "
                "(nothing was written; CAMPAIGN_DEBUG=1 shows the traceback)",
                err=True,
            )
            return 1
        return rv if isinstance(rv, int) else 0

    def _main_shell_completion(
        self, ctx_args: Any, prog_name: str, complete_var: str | None = None
    ) -> None:
        name = prog_name.replace("-", "_").replace(".", "_")
        if os.environ.get(complete_var or f"_{name}_COMPLETE".upper()):
            # only when completing: the completion classes need the table shell
            if self.before_completion is not None:
                self.before_completion()
        super()._main_shell_completion(ctx_args, prog_name, complete_var)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if self is cli and cmd_name not in COMMAND_MODULES:
            register_plugin_commands()  # a plugin's, most likely: load them before all modules
        command = super().get_command(ctx, cmd_name)
        if command is None and self is cli:  # perhaps a plugin's: load them, then look again
            register_plugin_commands()
            command = super().get_command(ctx, cmd_name)
        return command

    def list_commands(self, ctx: click.Context) -> list[str]:
        if self is cli:
            register_plugin_commands()
        return super().list_commands(ctx)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise
        except (RuleError, DiceError) as e:
            raise click.ClickException(" ".join(flagged(e).split())) from None
        except _REFUSED as e:
            raise click.ClickException(_one_line(_explained(e, ctx))) from None
        except msgspec.ValidationError as e:
            raise click.UsageError(_one_line(e)) from None
        except (OSError, UnicodeDecodeError) as e:
            raise click.ClickException(_one_line(_explained(e, ctx))) from None
        except Exception as e:
            if type(e).__module__.startswith("psycopg"):  # PostgreSQL refused (a lock timeout, ...)
                raise click.ClickException(
                    f"the ledger database cannot be used: {_one_line(e)} (nothing was written)"
                ) from None
            raise


def flagged(e: BaseException) -> str:
    """A refusal in the command line's words: the rules' sentence names an option by its
    label, so the option it is about (its ``param``; the dice for a
    :class:`~ledger.dice.engine.DiceError`) is added as the flag to type: ``"... (--time)"``.
    """
    text = str(e)
    param = "dice" if isinstance(e, DiceError) else getattr(e, "param", None)
    flag = "--" + param.replace("_", "-") if param and param != "skill" else ""
    return f"{text} ({flag})" if flag and flag not in text else text


def _explained(e: BaseException, ctx: click.Context) -> BaseException:
    """A full disk or a read-only ledger said as such (:mod:`ledger.files`), whoever noticed
    it: an ``OSError`` names its file (standard output when it has none), a SQLite error
    the ledger's. Anything else is returned as it is."""
    from ledger.store.files import (
        NO_ROOM,
        DiskFull,
        ReadOnlyLedger,
        disk_full,
        is_readonly_error,
    )

    if isinstance(e, DiskFull | ReadOnlyLedger):
        return e
    if isinstance(e, CommitUnknown):
        stored_as = f" (if it was, it is entry [{e.seq}])" if e.seq is not None else ""
        return CommitUnknown(f"{e}: run `campaign verify` before retrying{stored_as}")
    if isinstance(e, OSError):
        if e.errno in NO_ROOM:
            if e.filename:
                return DiskFull(str(e.filename))
            stdout = _stdout_file()
            if stdout is not None:  # written as it went: what is there is incomplete
                return DiskFull(stdout, incomplete=True)
            app = ctx.find_object(App)
            for where in (app.db_path if app is not None else None, os.getcwd()):
                if where and not where.startswith(("postgres", "file:")) and _low(where):
                    return DiskFull(where)
        return e
    app = ctx.find_object(App)
    db_path = app.db_path if app is not None else None
    if db_path is None or db_path == ":memory:" or db_path.startswith(("postgres", "file:")):
        return e
    if disk_full(e, db_path):
        return DiskFull(db_path)
    if is_readonly_error(e):
        from ledger.store.files import readonly_reason

        return ReadOnlyLedger(db_path, readonly_reason(db_path) or "SQLite opened it read-only")
    return e


def _low(path: str) -> bool:
    """Is the disk holding ``path`` (nearly) full (:data:`ledger.files.LOW_SPACE`)?"""
    from ledger.store.files import LOW_SPACE, free_kb

    free = free_kb(path)
    return 0 <= free * 1024 < LOW_SPACE


def _stdout_file() -> str | None:
    """The file standard output is redirected to, when it is one on a (nearly) full disk
    (Linux: ``/proc/self/fd/1``); else ``None``."""
    try:
        target = os.readlink(f"/proc/self/fd/{sys.stdout.fileno()}")
    except (OSError, ValueError, AttributeError):  # not a real file descriptor, not Linux
        return None
    return target if os.path.isfile(target) and _low(target) else None


def _one_line_text(text: str) -> str:
    return " ".join(text.split())


def _one_line(e: BaseException) -> str:
    text = str(e) or type(e).__name__
    if isinstance(e, sqlite3.DatabaseError):
        text = f"the ledger file cannot be used: {text}"
    return " ".join(text.split())


@contextlib.contextmanager
def progress_bar(length: int, label: str) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr for long work (``length`` steps); silent off a terminal
    and for short work. Yields ``update(steps)``."""
    if length < 20_000 or not sys.stderr.isatty():
        yield lambda steps: None
        return
    with click.progressbar(length=length, label=label, file=sys.stderr) as bar:
        yield bar.update


@contextlib.contextmanager
def spinner(label: str) -> Iterator[None]:
    """A spinner with ``label`` on stderr while slow work runs (a chart: matplotlib alone
    takes about a second to start); nothing off a terminal. rich honours ``NO_COLOR``."""
    if not sys.stderr.isatty():
        yield
        return
    from rich.console import Console

    with Console(stderr=True).status(label):
        yield


def echo_json(value: Any) -> None:
    """Print one JSON document."""
    click.echo(msgspec.json.encode(value).decode())


def json_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--json``: one JSON document instead of the readable table."""
    return click.option("--json", "as_json", is_flag=True, help="Output one JSON document.")(fn)


def view_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--as gm|player`` on a read command (the same as the global ``--as``)."""

    def set_view(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
        if value is not None:
            ctx.find_object(App).as_ = value  # type: ignore[union-attr]

    return click.option(
        "--as",
        "as_view",
        type=click.Choice(["gm", "player"]),
        expose_value=False,
        is_eager=True,
        callback=set_view,
        help="Whose view (as the global --as): player (default) never sees GM-only facts; "
        "gm sees everything, GM-only lines marked [GM].",
    )(fn)


def nl_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--nl``: one JSON object a line."""
    return click.option("--nl", "as_nl", is_flag=True, help="Output one JSON object a line.")(fn)


@click.group(cls=LedgerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=VERSION)
@click.option(
    "--db",
    "db_path",
    envvar="CAMPAIGN_DB",
    default="campaign.db",
    show_default=True,
    help="The ledger: a file, or a postgresql:// URL (env CAMPAIGN_DB).",
)
@click.option("--campaign", "campaign", help="Which campaign in the file (default: the only one).")
@click.option(
    "--as",
    "as_",
    type=click.Choice(["gm", "player"]),
    help="Whose view: player (the default) never sees GM-only facts; gm sees everything, "
    "GM-only lines marked [GM].",
)
@click.option(
    "--actor",
    envvar="CAMPAIGN_ACTOR",
    default="gm",
    show_default=True,
    help="Who records the events (env CAMPAIGN_ACTOR).",
)
@click.pass_context
def cli(
    ctx: click.Context, db_path: str, campaign: str | None, as_: str | None, actor: str
) -> None:
    """Campaign Ledger: the books of a tabletop campaign, as an append-only event log.

    Every roll, wound, experience mark and correction is an immutable event; character
    sheets, recaps and audits are replayed from the log, engine dice are provably fair
    (commit and reveal) and the log is tamper-evident (hash chain).

    \b
    Start:   campaign new casebook --system wyrd-engine
             campaign character add --sheet julian.toml
             campaign session start
             campaign roll julian investigate --dr good --dice ++-0
    """
    if isinstance(ctx.obj, App):  # one entry of `campaign play`: its ledger stays open
        ctx.obj.begin_entry(
            as_ if _given(ctx, "as_") else None, actor if _given(ctx, "actor") else None
        )
        return
    ctx.obj = App(db_path, campaign, as_, actor)
    ctx.call_on_close(ctx.obj.close)


cli.commands = LazyCommands()


def _given(ctx: click.Context, name: str) -> bool:
    """Was option ``name`` typed on this command line (not a default or an env var)?"""
    return ctx.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE


_plugin_commands = False


def register_plugin_commands() -> None:
    """Load every plugin and let each add its commands (once).

    Called when a command is not one of the core's, or when commands are listed: a core
    command on one campaign imports only that campaign's rule system.
    """
    global _plugin_commands
    if _plugin_commands:
        return
    _plugin_commands = True
    from ledger.rules.plugins import load_plugins, pm

    load_plugins()
    pm.hook.register_commands(cli=cli)


__all__ = [
    "COMMAND_MODULES",
    "SEQ",
    "App",
    "cli",
    "echo_json",
    "json_option",
    "load_command_modules",
    "nl_option",
    "now",
    "pass_app",
]
