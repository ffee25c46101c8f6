"""Every hook of Campaign Ledger, documented in pytest's style.

Plugins implement them with ``@ledger.hookimpl`` and register through the ``"ledger"``
entry-point group (see docs/plugin-hooks.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import click

    from .rulesystem import RuleSystem

hookspec = pluggy.HookspecMarker("ledger")
hookimpl = pluggy.HookimplMarker("ledger")


@hookspec
def register_rule_systems(register: Callable[[RuleSystem], None]) -> None:
    """Register the rule systems this plugin provides.

    :param register: Call ``register(system)`` once per :class:`ledger.RuleSystem` instance.

    Called once by :func:`ledger.plugins.rule_systems` when the first rule system is needed.
    Every implementation runs; two systems with the same ``id`` is an error.
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add commands to the ``campaign`` command-line tool.

    :param cli: The root click group; add commands with ``@cli.command()``.

    Called once, when :mod:`ledger.cli` is imported. Every implementation runs.
    """


@hookspec
def recap_lines(system_id: str, record: object, as_gm: bool) -> list[str] | None:
    """Extra recap lines for one event of a session recap.

    :param system_id: The campaign's rule system.
    :param record: The :class:`ledger.events.Recorded` event.
    :param as_gm: ``True`` for the GM's recap; a player's must not reveal GM-only facts.
    :returns: Lines of Markdown, or ``None`` for no opinion.

    Called by :mod:`ledger.recap` for every event it shows. Every implementation runs and
    the lines are concatenated.
    """
