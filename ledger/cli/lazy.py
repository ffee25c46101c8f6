"""The root group's command table, each command module imported when its command is first
looked up (docs/performance.md, "Start-up"). No module of :mod:`ledger.cli` is imported
here by name: each is loaded by :func:`importlib.import_module`, the way plugins are, so
this module sits below every command module and imports none of them statically.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

#: Where each core command is defined: a one-shot ``campaign roll`` imports
#: :mod:`ledger.cli.recording` alone, not every command module and their libraries
#: (docs/performance.md, "Start-up"). A command missing here is still found (every module
#: of :mod:`ledger.cli` is imported on a miss), only slower; tests/test_startup.py holds
#: this table to the commands the modules define.
COMMAND_MODULES: dict[str, str] = {
    "access": "serve",
    "advance": "history",
    "audit": "history",
    "backup": "transfer",
    "character": "commands",
    "checkpoint": "checkpoints",
    "copy": "transfer",
    "correct": "recording",
    "damage": "recording",
    "demo": "demo",
    "encounter": "encounters",
    "export": "transfer",
    "fairness": "pictures",
    "import": "transfer",
    "log": "views",
    "new": "commands",
    "note": "commands",
    "npc": "table",
    "league": "league",
    "odds": "views",
    "passport": "league",
    "play": "play",
    "plugin": "plugin",
    "proof": "history",
    "recap": "history",
    "record": "recording",
    "request": "recording",
    "roll": "recording",
    "scene": "commands",
    "serve": "serve",
    "session": "commands",
    "sheet": "views",
    "systems": "commands",
    "time": "timekeeping",
    "undo": "table",
    "verify": "history",
    "webhook": "webhooks",
    "withdraw": "recording",
    "witness": "witness",
}

#: Modules of :mod:`ledger.cli` that define no command.
_NOT_COMMANDS = frozenset({"base", "completion", "fields", "lazy", "options", "output"})


def load_command_modules() -> None:
    """Import every command module of :mod:`ledger.cli` (each adds its commands to
    :data:`cli`): for listing every command (``--help``, completion, the table shell)."""
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if info.name not in _NOT_COMMANDS:
            importlib.import_module(f"ledger.cli.{info.name}")


class LazyCommands(dict[str, click.Command]):
    """The root group's commands, each module imported when its command is first asked for.

    Looking one name up (``get``, ``[]``, ``in``) imports only the module that defines it
    (:data:`COMMAND_MODULES`; every module when the name is not there); listing them all
    (iterating, ``len``, ``items``...) imports every command module first. Click itself
    fills the dict as each module's decorators run.
    """

    _all_loaded = False

    def _load(self, name: object) -> None:
        if dict.__contains__(self, name) or self._all_loaded or not isinstance(name, str):
            return
        module = COMMAND_MODULES.get(name)
        if module is not None:
            importlib.import_module(f"ledger.cli.{module}")
        if not dict.__contains__(self, name):
            self._load_all()

    def _load_all(self) -> None:
        if not self._all_loaded:
            self._all_loaded = True
            load_command_modules()

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        self._load(name)
        return dict.get(self, name, default)

    def __getitem__(self, name: str) -> click.Command:
        self._load(name)
        return dict.__getitem__(self, name)

    def __contains__(self, name: object) -> bool:
        self._load(name)
        return dict.__contains__(self, name)

    def __iter__(self) -> Iterator[str]:
        self._load_all()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._load_all()
        return dict.__len__(self)

    def keys(self) -> Any:
        self._load_all()
        return dict.keys(self)

    def values(self) -> Any:
        self._load_all()
        return dict.values(self)

    def items(self) -> Any:
        self._load_all()
        return dict.items(self)
