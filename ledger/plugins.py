"""The plugin manager: ``pm``, :func:`load_plugins` and :func:`rule_systems`."""

from __future__ import annotations

import functools
import importlib.metadata

import pluggy

from . import hookspecs
from .rulesystem import RuleSystem

pm = pluggy.PluginManager("ledger")
pm.add_hookspecs(hookspecs)

_loaded = False


def load_plugins() -> None:
    """Load every ``"ledger"`` entry point once (sqlite-utils style), then check them."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    pm.load_setuptools_entrypoints("ledger")
    pm.check_pending()


@functools.cache
def rule_systems() -> dict[str, RuleSystem]:
    """Installed rule systems by id. Loads plugins on first use.

    :raises RuntimeError: two plugins register the same system id.
    """
    load_plugins()
    found: dict[str, RuleSystem] = {}

    def register(system: RuleSystem) -> None:
        if system.id in found:
            raise RuntimeError(f"two plugins register the rule system {system.id!r}")
        found[system.id] = system

    pm.hook.register_rule_systems(register=register)
    return found


def distribution_of(system: RuleSystem) -> tuple[str, str]:
    """``(distribution name, version)`` that provides ``system`` (``("?", "?")`` if unknown)."""
    module = type(system).__module__.split(".")[0]
    for dist in importlib.metadata.distributions():
        for ep in dist.entry_points:
            if ep.group == "ledger" and ep.value.split(":")[0].split(".")[0] == module:
                return dist.metadata["Name"], dist.version
    return "?", "?"
