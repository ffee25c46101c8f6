"""What the live streams send (``/events``), read from the store and rendered once per
wake-up for every open stream instead of once per stream.

When the hub (:class:`ledger.web.live.Hub`) wakes the streams, each used to read the head,
the links, its session and the new rows, and render them, by itself: 50 phones, 50 times
the same work. :class:`Feed` (one per server) shares it, on the event loop, without locks:

- :meth:`Feed.look` reads what every stream checks (the head, each link's revocation, each
  session's end: :class:`Look`) once per hub *generation*; every stream woken by that
  generation reuses it. A look is taken after its generation began, so it holds every change
  that woke the streams; a change after it moves the generation and wakes them again.
- :meth:`Feed.rendered` renders the new log lines once per **view** and head: the cache key
  is ``(head seq, head hash, as_gm)``, and ``as_gm`` is the only input of the view that the
  lines depend on (:func:`ledger.web.logview.log_entries`: a player's view has a stub where a
  GM-only event stands; which characters a player plays is applied in the browser,
  ``log-page.js``, to the lines every player gets alike). A player's stream only ever reads
  the ``as_gm=False`` lines: a GM line's render never reaches it.

A look is trusted only for what it can tell: a link or session it does not hold (issued
after it) is looked up afresh, and a stream that timed out (its keep-alive) or just opened
looks its link and session up afresh too (:meth:`Feed.frames`' ``fresh``), so a sign-out,
which wakes no stream, is noticed as soon as it was before.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ledger.web.common import Viewer, run_sync
from ledger.web.logview import entry_html, log_entries

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign
    from ledger.store.protocols import EventStore
    from ledger.web.app import Server

logger = logging.getLogger(__name__)

#: The most log lines a view's render cache keeps per head (a stream further behind, such as
#: one resuming from ``after=0`` on a long log, renders its own lines, uncached).
CACHE_ENTRIES = 500
#: How many ``(head, view)`` renders are kept (the newest; two views a head).
CACHE_RENDERS = 4

_MISSING: Any = object()


def frame(e: dict[str, Any]) -> str:
    """One log line ``e`` (:func:`ledger.web.logview.entry`) as a server-sent event:
    ``id`` its seq, ``event: entry``, ``data`` its HTML on one line."""
    return f"id: {e['seq']}\nevent: entry\ndata: {entry_html(e)}\n\n"


def render_lines(
    campaign: Campaign, *, as_gm: bool, after: int, upto: int
) -> list[tuple[int, str]]:
    """The log lines ``after < seq <= upto`` in the view asked for, as ``[(seq, frame)]``
    (:func:`frame`); a player's view (``as_gm=False``) has stubs for GM-only events."""
    return [
        (e["seq"], frame(e)) for e in log_entries(campaign, as_gm=as_gm, after=after, upto=upto)
    ]


@dataclass
class _Render:
    """The lines of one ``(head, view)``, covering ``low < seq <= head``."""

    low: int
    lines: list[tuple[int, str]]


@dataclass(frozen=True)
class Look:
    """What every woken stream checks, read once for a hub generation.

    :ivar generation: the hub's generation it was taken for (or after).
    :ivar head: the campaign's head seq; :ivar hash: its hash.
    :ivar links: ``{access id: revoked_at}`` (``None``: live) of every link of the campaign.
    :ivar sessions: ``{sid hash: ended_at}`` (``None``: on) of every stored web session (the
        oldest row of a hash, as :func:`ledger.web.sessions.still_on` reads it).
    :ivar lines: the new lines rendered in the same read, per view (``as_gm``): those
        after the previous look's head, for the views streams were open in.
    """

    generation: int
    head: int
    hash: str
    links: dict[int, str | None] = field(default_factory=dict)
    sessions: dict[str, str | None] = field(default_factory=dict)
    lines: dict[bool, _Render] = field(default_factory=dict)

    def gone(self, viewer: Viewer) -> str | None:
        """What :meth:`ledger.web.app.Server.gone` would say of ``viewer`` by this look:
        ``"revoked"``, ``"ended"`` or ``""`` (still live); ``None`` when the look does not
        hold the viewer's link or session (newer than the look: ask the store)."""
        revoked = self.links.get(viewer.access.id, _MISSING)
        if revoked is _MISSING:
            return None
        if revoked is not None:
            return "revoked"
        ended = self.sessions.get(viewer.session.sid_hash, _MISSING)
        if ended is _MISSING:
            return None
        return "" if ended is None else "ended"


def read_look(
    campaign: Campaign, generation: int, views: frozenset[bool] = frozenset(), after: int = -1
) -> Look:
    """A :class:`Look` of ``campaign`` now (three reads: the head, the links, the sessions),
    with the lines ``after < seq <= head`` rendered for each view in ``views`` (``as_gm``
    values) when ``after`` is given and no more than :data:`CACHE_ENTRIES` behind."""
    store = campaign.store
    head = store.head(campaign.id)
    links = {int(r["id"]): r["revoked_at"] for r in store.access_rows(campaign.id)}
    sessions: dict[str, str | None] = {}
    for r in store.web_sessions(campaign.id):  # oldest first
        sessions.setdefault(r["sid_hash"], r["ended_at"])
    lines: dict[bool, _Render] = {}
    if 0 <= after < head.seq <= after + CACHE_ENTRIES:
        for as_gm in sorted(views):
            lines[as_gm] = _Render(
                after, render_lines(campaign, as_gm=as_gm, after=after, upto=head.seq)
            )
    return Look(generation, int(head.seq), str(head.hash), links, sessions, lines)


class Feed:
    """The live streams' shared reads and renders (see the module); one per server, used
    from the event loop only (its reads run in worker threads through
    :meth:`~ledger.web.app.Server.attempt`).

    :param server: the running web view.
    """

    def __init__(self, server: Server) -> None:
        self.server = server
        self._look: asyncio.Future[Look] | None = None
        self._look_generation = -1
        self._renders: dict[tuple[int, str, bool], _Render] = {}
        #: the views (as_gm) streams were open in (replaced, never changed: the hub's thread
        #: reads it)
        self._views: frozenset[bool] = frozenset()
        self._hub_campaign: Campaign | None = None  # a campaign over the hub's own store (its thread)
        self._head = -1  # the head of the newest look read
        self._rendering: dict[
            tuple[int, str, bool, int], asyncio.Future[list[tuple[int, str]]]
        ] = {}
        #: how many looks and renders were read from the store (for tests and the bench)
        self.reads = {"looks": 0, "renders": 0}
        server.hub.prepare, server.hub.offer = self.prepare, self.offer

    def prepare(self, store: EventStore, campaign_id: str) -> Look | None:
        """The look the hub's watcher takes in its own thread, on its own store, as soon as
        it saw a change (:attr:`ledger.web.live.Hub.prepare`): the streams it wakes need no
        read of their own. ``None`` when it cannot be read (the streams read it then)."""
        from ledger.campaign.aggregate import open_campaign

        try:
            campaign = self._hub_campaign
            if campaign is None or campaign.store is not store:
                campaign = self._hub_campaign = open_campaign(store, campaign_id)
            campaign.__dict__.pop("_cli_names", None)  # names may have changed since
            return read_look(campaign, -1, self._views, self._head)
        except Exception as e:  # the streams read it themselves
            logger.debug("the hub could not take the live streams' look: %s", e)
            return None

    def offer(self, generation: int, look: Any) -> None:
        """Take ``look`` (:meth:`prepare`'s) as generation ``generation``'s (on the loop,
        before the streams wake: :attr:`ledger.web.live.Hub.offer`)."""
        if not isinstance(look, Look) or generation <= self._look_generation:
            return
        done: asyncio.Future[Look] = asyncio.get_running_loop().create_future()
        done.set_result(replace(look, generation=generation))
        self._look, self._look_generation = done, generation
        self._head = max(self._head, look.head)

    async def look(self, generation: int) -> Look:
        """The :class:`Look` for hub generation ``generation``: the one already taken for
        it (or for a later one: fresher still), else one read now, shared by every stream
        that asks meanwhile.

        :raises StoreUnavailable: the store could not be read (the failed look is dropped:
            the next stream to ask reads again).
        """
        task = self._look
        if task is None or self._look_generation < generation:
            task = asyncio.ensure_future(
                run_sync(
                    self.server.attempt,
                    self._read_look,
                    generation,
                    self._views,
                    self._head,
                )
            )
            self._look, self._look_generation = task, generation
            self.reads["looks"] += 1
            task.add_done_callback(self._looked)
        return await asyncio.shield(task)

    def _read_look(self, generation: int, views: frozenset[bool], after: int) -> Look:
        return read_look(self.server.campaign(), generation, views, after)

    def _looked(self, task: asyncio.Future[Look]) -> None:
        if not task.cancelled() and task.exception() is None:
            self._head = max(self._head, task.result().head)
            return
        if self._look is task:
            self._look, self._look_generation = None, -1

    async def rendered(self, look: Look, *, as_gm: bool, after: int) -> list[str]:
        """The frames of the log lines ``after < seq <= look.head`` in the view ``as_gm``,
        rendered once for every stream of that view at that head.

        :raises StoreUnavailable: the store could not be read.
        """
        if look.head <= after:
            return []
        key = (look.head, look.hash, as_gm)
        if as_gm not in self._views:
            self._views = self._views | {as_gm}
        done = self._renders.get(key)
        pre = look.lines.get(as_gm)
        if pre is not None and (done is None or pre.low < done.low):
            self._keep_render(key, pre)
            done = pre
        if done is not None and done.low <= after:
            return [f for seq, f in done.lines if seq > after]
        if look.head - after > CACHE_ENTRIES:  # far behind: its own lines, not kept
            lines = await run_sync(self.server.attempt, self._render, as_gm, after, look.head)
            return [f for _seq, f in lines]
        job = self._rendering.get((*key, after))
        if job is None:
            job = asyncio.ensure_future(
                run_sync(self.server.attempt, self._render, as_gm, after, look.head)
            )
            self._rendering[(*key, after)] = job
            self.reads["renders"] += 1
            job.add_done_callback(lambda j: self._keep(key, after, j))
        lines = await asyncio.shield(job)
        return [f for seq, f in lines if seq > after]

    def _render(self, as_gm: bool, after: int, upto: int) -> list[tuple[int, str]]:
        return render_lines(self.server.campaign(), as_gm=as_gm, after=after, upto=upto)

    def _keep(
        self,
        key: tuple[int, str, bool],
        after: int,
        job: asyncio.Future[list[tuple[int, str]]],
    ) -> None:
        self._rendering.pop((*key, after), None)
        if job.cancelled() or job.exception() is not None:
            return
        done = self._renders.get(key)
        if done is None or after < done.low:
            self._keep_render(key, _Render(after, job.result()))

    def _keep_render(self, key: tuple[int, str, bool], render: _Render) -> None:
        self._renders[key] = render
        while len(self._renders) > CACHE_RENDERS:  # the oldest first (insertion order)
            del self._renders[next(iter(self._renders))]

    async def frames(
        self, viewer: Viewer, after: int, generation: int, *, fresh: bool
    ) -> tuple[str, list[str], int]:
        """What a stream that has sent everything up to ``after`` sends now, woken by hub
        generation ``generation``: ``(gone, frames, new after)``; ``gone`` is ``"revoked"``
        or ``"ended"`` when the stream must end (no frames then), else ``""``. ``fresh``:
        look the viewer's link and session up in the store rather than in the shared look
        (a stream that just opened or timed out: a sign-out wakes no stream).

        :raises StoreUnavailable: the store could not be read.
        """
        look = await self.look(generation)
        gone = None if fresh else look.gone(viewer)
        if gone is None:
            gone = await run_sync(self.server.attempt, self.server.gone, viewer)
        if gone:
            return gone, [], after
        out = await self.rendered(look, as_gm=viewer.as_gm, after=after)
        return "", out, max(look.head, after)
