"""The plugin manager: ``pm``, :func:`load_plugins` and :func:`rule_systems`."""

from __future__ import annotations

import functools
import importlib.metadata
import logging
from typing import TYPE_CHECKING, Any

import pluggy

from . import hookspecs
from .rulesystem import RuleSystem

if TYPE_CHECKING:
    from .campaign import Campaign
    from .events import Recorded

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
    for ep in importlib.metadata.entry_points(group="ledger", name=system_id):
        module = ep.load()
        if pm.get_plugin(ep.name) is None:
            pm.register(module, name=ep.name)
        found: dict[str, RuleSystem] = {}
        hook = getattr(module, "register_rule_systems", None)
        if callable(hook):
            hook(register=functools.partial(_keep, found))
        if system_id in found:
            _single[system_id] = found[system_id]
            if ep.dist is not None:
                _dists[type(found[system_id]).__module__.split(".")[0]] = (
                    ep.dist.name,
                    ep.dist.version,
                )
            return found[system_id]
    return rule_systems().get(system_id)


def distribution_of(system: RuleSystem) -> tuple[str, str]:
    """``(distribution name, version)`` that provides ``system`` (``("?", "?")`` if unknown)."""
    module = type(system).__module__.split(".")[0]
    for dist in importlib.metadata.distributions():
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


log = logging.getLogger("ledger.plugins")


def notify_appended(campaign: Campaign, events: list[Recorded]) -> None:
    """Call every ``event_appended`` listener with one committed write (see the hookspec).

    Each implementation runs on its own: one that raises is logged as a one-line warning
    on ``ledger.plugins`` (with its traceback at DEBUG level) and the rest still run;
    nothing is raised to the writer.
    """
    if not events:
        return
    kwargs: dict[str, Any] = {"campaign": campaign, "events": events}
    for impl in reversed(pm.hook.event_appended.get_hookimpls()):  # pluggy's call order
        try:
            impl.function(*[kwargs[name] for name in impl.argnames])
        except Exception as e:
            log.warning(
                "warning: the event_appended listener of plugin %r failed (%s: %s); "
                "the events are written (seq %d to %d)",
                impl.plugin_name,
                type(e).__name__,
                str(e).splitlines()[0][:200] if str(e) else "",
                events[0].seq,
                events[-1].seq,
            )
            log.debug("event_appended listener %r failed", impl.plugin_name, exc_info=True)
