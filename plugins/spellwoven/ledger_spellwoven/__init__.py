"""Spellwoven: 3d10 roll-under success counting (seed 004_663ae3e4ecc71fd1.txt).

Registers :class:`Spellwoven` through the ``ledger`` entry point, as a third-party plugin
would, and the ``campaign effort`` command (:mod:`.commands`). Modules: :mod:`.events`,
:mod:`.state` (character state, options), :mod:`.rules` (resolve, re-derive; the rules as
pure functions in :mod:`.rules.mechanics` and :mod:`.rules.rolls`), :mod:`.appliers`,
:mod:`.words` (log lines, changes, recap notes), :mod:`.sheet` (creation, sheet view and
layout), :mod:`.odds` (exact distributions and the odds chart), :mod:`.system` (the wiring).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ledger import hookimpl

from .system import Spellwoven

if TYPE_CHECKING:
    from collections.abc import Callable

    import click

    from ledger import RuleSystem

__all__ = ["Spellwoven"]


@hookimpl
def register_rule_systems(register: Callable[[RuleSystem], None]) -> None:
    """Register the Spellwoven rule system."""
    register(Spellwoven())


@hookimpl
def register_commands(cli: click.Group) -> None:
    """Add ``campaign effort CHARACTER`` (spend Effort after a roll)."""
    from .commands import effort

    cli.add_command(effort)
