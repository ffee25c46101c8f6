"""The plugin manager: ``pm``, :func:`load_plugins`, :func:`rule_systems` and
:func:`load_system` (one installed system, configured)."""

from __future__ import annotations

import functools
import importlib
from typing import Any

import pluggy

from ledger.errors import NotFound
from ledger.rules import entrypoints, hookspecs
from ledger.rules.system import RuleSystem

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
    _single.clear()
    found: dict[str, RuleSystem] = {}

    def register(system: RuleSystem) -> None:
        if system.id in found:
            raise RuntimeError(f"two plugins register the rule system {system.id!r}")
        found[system.id] = system

    pm.hook.register_rule_systems(register=register)
    return found


_single: dict[str, RuleSystem] = {}


def _keep(found: dict[str, RuleSystem], system: RuleSystem) -> None:
    found.setdefault(system.id, system)


def rule_system(system_id: str) -> RuleSystem | None:
    """One installed rule system, importing as little as possible.

    Before every plugin is loaded, only the entry point named ``system_id`` is imported
    (a command on one campaign needs one system: start-up stays lean). A plugin whose
    entry-point name is not its system id is found by loading every plugin.

    :returns: the system, or ``None`` when no installed plugin registers it.
    """
    if _loaded:
        return rule_systems().get(system_id)
    if system_id in _single:
        return _single[system_id]
    fast = entrypoints.find("ledger", system_id)
    if fast is not None:
        module = importlib.import_module(fast.module)
        if fast.attr:
            for part in fast.attr.split("."):
                module = getattr(module, part)
        return _register_single(system_id, system_id, module, (fast.name, fast.version))
    from importlib import metadata

    for ep in metadata.entry_points(group="ledger", name=system_id):
        dist = None if ep.dist is None else (ep.dist.name, ep.dist.version)
        system = _register_single(system_id, ep.name, ep.load(), dist)
        if system is not None:
            return system
    return rule_systems().get(system_id)


def _register_single(
    system_id: str, name: str, module: Any, dist: tuple[str, str] | None
) -> RuleSystem | None:
    """Register the plugin ``module`` (entry point ``name``) and return its system
    ``system_id``, recording its distribution, or ``None`` when it registers no such system."""
    if pm.get_plugin(name) is None:
        pm.register(module, name=name)
    found: dict[str, RuleSystem] = {}
    hook = getattr(module, "register_rule_systems", None)
    if callable(hook):
        hook(register=functools.partial(_keep, found))
    if system_id not in found:
        return None
    _single[system_id] = found[system_id]
    if dist is not None:
        _dists[type(found[system_id]).__module__.split(".")[0]] = dist
    return found[system_id]


def distribution_of(system: RuleSystem) -> tuple[str, str]:
    """``(distribution name, version)`` that provides ``system`` (``("?", "?")`` if unknown)."""
    from importlib import metadata

    module = type(system).__module__.split(".")[0]
    for dist in metadata.distributions():
        for ep in dist.entry_points:
            if ep.group == "ledger" and ep.value.split(":")[0].split(".")[0] == module:
                return dist.metadata["Name"], dist.version
    return "?", "?"


_dists: dict[str, tuple[str, str]] = {}


def system_distribution(system: RuleSystem) -> tuple[str, str]:
    """``(distribution name, version)`` of the plugin that provides ``system``: recorded when
    :func:`rule_system` loaded it, else looked up once per module (``("?", "?")`` for a
    system registered without a distribution, as tests do)."""
    module = type(system).__module__.split(".")[0]
    found = _dists.get(module)
    if found is None:
        found = _dists[module] = distribution_of(system)
    return found


def load_system(system_id: str, options: dict[str, Any] | None = None) -> RuleSystem:
    """The installed rule system ``system_id`` configured with ``options``.

    :raises NotFound: no such system installed (names the installed ones).
    :raises RuleError: bad options.
    """
    system = rule_system(system_id)
    if system is None:
        systems = rule_systems()
        raise NotFound(
            f"no rule system {system_id!r} is installed (installed: {', '.join(sorted(systems)) or 'none'}); "
            "see `campaign systems`"
        )
    return system.configure(options)
