"""After a write commits: every ``event_appended`` listener hears of it, none can undo it."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from ledger.rules.plugins import pm

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign
    from ledger.events import Recorded

log = logging.getLogger("ledger.rules.plugins")


def notify_appended(campaign: Campaign, events: list[Recorded]) -> None:
    """Call every ``event_appended`` listener with one committed write (see the hookspec).

    Each implementation runs on its own: one that raises is logged as a one-line warning
    on ``ledger.rules.plugins`` (with its traceback at DEBUG level) and the rest still run;
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
