"""Every hook of Campaign Ledger, documented in pytest's style.

Plugins implement them with ``@ledger.hookimpl`` and register through the ``"ledger"``
entry-point group (see docs/plugin-hooks.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import pluggy

if TYPE_CHECKING:
    import click

    from ledger.events import Event, Recorded, Visibility
    from ledger.rules.system import RuleSystem
    from ledger.store.protocols import EventStore

hookspec = pluggy.HookspecMarker("ledger")
hookimpl = pluggy.HookimplMarker("ledger")


class WrittenCampaign(Protocol):
    """What a listener may use of the campaign it is handed (:func:`event_appended`): a
    :class:`ledger.campaign.aggregate.Campaign`, named here by what it offers. A Protocol,
    not the class, because this layer stands below :mod:`ledger.campaign`: import-linter
    forbids importing upward even for type checking (the layers contract counts those)."""

    @property
    def id(self) -> str:
        """The campaign's id."""
        ...

    @property
    def store(self) -> EventStore:
        """The store holding its log."""
        ...

    @property
    def system(self) -> RuleSystem:
        """Its rule system, configured."""
        ...

    def records(self, *, as_gm: bool = True, **filters: Any) -> Iterator[Recorded]:
        """Its stored events, oldest first (corrections not applied); filters as
        :meth:`ledger.store.protocols.EventRecorder.rows`."""
        ...

    def characters(self, *, include_retracted: bool = False) -> dict[str, str]:
        """``{character id: name}`` in creation order, corrections honoured."""
        ...

    def state_of(
        self, character: str, *, upto: int | None = None, as_gm: bool = True,
        save_snapshots: bool = True,
    ) -> Any:  # fmt: skip
        """One character's state as of ``upto`` (default: head).

        :raises NotFound: the character did not exist at ``upto``."""
        ...

    def append(
        self,
        events: Sequence[Event],
        *,
        actor: str,
        at: str,
        visibility: Visibility | None = None,
        expected_versions: dict[str, int] | None = None,
        session: int | None = None,
    ) -> list[Recorded]:
        """Validate ``events`` against the rules and append them as one batch (the one door
        to the store; a new, separate write).

        :raises RuleError: an event the rules refuse (nothing written).
        :raises ledger.errors.ConflictError: a stale expected version (nothing written).
        """
        ...


@hookspec
def register_rule_systems(register: Callable[[RuleSystem], None]) -> None:
    """Register the rule systems this plugin provides.

    :param register: Call ``register(system)`` once per :class:`ledger.RuleSystem` instance.

    Called once by :func:`ledger.rules.plugins.rule_systems` when the first rule system is needed.
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
    """Extra recap lines for one event of a session recap, from an add-on (a house-rule
    plugin, a table's notifier); a rule system writes its own notes as
    :meth:`ledger.rules.system.RuleSystem.recap_lines` instead.

    :param system_id: The campaign's rule system.
    :param record: The :class:`ledger.events.Recorded` event.
    :param as_gm: ``True`` for the GM's recap; a player's must not reveal GM-only facts.
    :returns: Short sentences (shown as text, never as markup), or ``None`` for no opinion.

    Called by :mod:`ledger.history.recap` for every event it shows, after the rule system's own
    :meth:`~ledger.rules.system.RuleSystem.recap_lines`. Every implementation runs and the
    lines are concatenated.
    """


@hookspec
def event_appended(campaign: WrittenCampaign, events: list[Recorded]) -> None:
    """A listener: events were appended to a campaign's log and committed.

    :param campaign: The :class:`ledger.campaign.aggregate.Campaign` written to (read from it as you
        like; appending from here starts a new, separate write); :class:`WrittenCampaign`
        names what it offers.
    :param events: The :class:`ledger.Recorded` events of the write, oldest first, exactly
        as stored: ``seq``, ``type``, ``data``, ``actor``, ``session`` and ``visibility``.
        GM-only events are included with ``visibility == "gm"``: a listener that tells
        players anything (a chat webhook, a player's web view) must skip them.

    Called once per write, after its transaction commits, from every write path of
    :class:`ledger.campaign.aggregate.Campaign`: ``create``, ``append`` (rolls, records, notes,
    scenes, characters, corrections and undo, advancement), session start, end and abandon.
    A write nested in a larger transaction is reported when the outermost one commits; a
    write that is refused or rolled back calls nothing. ``campaign import`` builds a new
    file without a campaign object and calls nothing.

    Every implementation runs, each on its own: one that raises is reported as a
    one-line warning on the ``ledger.rules.plugins`` logger (stderr, unless logging is
    configured) and the others still run. The write stays committed and the command
    succeeds: a listener cannot undo, refuse or hide a write (object to events before
    they are written through the rule system instead). Listeners run in the writing
    process, synchronously: keep them quick, or hand the work to a thread or queue.
    """
