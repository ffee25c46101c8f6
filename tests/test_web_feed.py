"""The live streams' shared reads and renders (:mod:`ledger.web.feed`): one look of
the links and sessions and one render per view for every stream a wake-up wakes, and a look
trusted only for what it holds."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from freezegun import freeze_time

from ledger.campaign.aggregate import open_campaign
from ledger.store.opening import open_store
from ledger.web import access as accessmod
from ledger.web import sessions as sessionsmod
from ledger.web.app import Server
from ledger.web.common import Viewer
from ledger.web.feed import Feed, Look, render_lines

from .webtools import apart, d20_table

NOW = datetime(2026, 3, 1, 19, 0, tzinfo=UTC)


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "vault.db"))


def viewer(table, who: str, token: str | None = None) -> Viewer:
    """A signed-in device of ``who``'s live link (a new link unless ``token`` is given)."""
    token = token or table.link(who)
    store = open_store(table.db)
    try:
        campaign = open_campaign(store)
        link = accessmod.find(store, campaign.id, token)
        assert link is not None
        sid, session = sessionsmod.sign_in(
            store, campaign.id, link.id, "test", NOW, sessionsmod.SessionPolicy(max_devices=100)
        )
        return Viewer(link, sessionsmod.csrf_of(sid), session)
    finally:
        store.close()


def expected(table, *, as_gm: bool, after: int) -> list[str]:
    store = open_store(table.db)
    try:
        campaign = open_campaign(store)
        head = store.head(campaign.id).seq
        return [f for _s, f in render_lines(campaign, as_gm=as_gm, after=after, upto=head)]
    finally:
        store.close()


@freeze_time(NOW)
def test_a_wake_up_reads_once_and_renders_once_per_view_for_every_stream(table):
    dana, olu = table.link("Dana"), table.link("Olu")
    players = [viewer(table, "Dana", dana) for _ in range(6)]
    players += [viewer(table, "Olu", olu) for _ in range(6)]
    gm = viewer(table, "gm")
    start = table.head()
    table.ok("note", "the vault code is 4471", "--blind")
    table.ok("note", "the door creaks")
    server = Server(table.db)

    async def scenario() -> None:
        feed = Feed(server)
        everyone = [*players, gm]
        got = await asyncio.gather(*(feed.frames(v, start, 1, fresh=False) for v in everyone))
        assert feed.reads == {"looks": 1, "renders": 2}  # one look, one render per view
        head = start + 2
        assert all(g[0] == "" and g[2] == head for g in got)
        assert [g[1] for g in got[:-1]] == [expected(table, as_gm=False, after=start)] * 12
        assert got[-1][1] == expected(table, as_gm=True, after=start)
        assert "4471" in "".join(got[-1][1]) and "4471" not in "".join(got[0][1])

        # the next append: the look renders both open views in the same read
        table.ok("note", "a rat scurries")
        got = await asyncio.gather(*(feed.frames(v, head, 2, fresh=False) for v in everyone))
        assert feed.reads == {"looks": 2, "renders": 2}
        assert [g[1] for g in got] == [expected(table, as_gm=False, after=head)] * 12 + [
            expected(table, as_gm=True, after=head)
        ]
        # a stream behind the others gets its own range, still of its own view
        behind = await feed.frames(players[0], start, 2, fresh=False)
        assert behind[1] == expected(table, as_gm=False, after=start)
        assert "4471" not in "".join(behind[1])

    apart(asyncio.run, scenario())
    server.close()


@freeze_time(NOW)
def test_a_look_ends_revoked_and_signed_out_streams_and_asks_the_store_what_it_lacks(table):
    dana = viewer(table, "Dana")
    olu = viewer(table, "Olu")
    server = Server(table.db)
    head = table.head()

    async def scenario() -> None:
        feed = Feed(server)
        assert (await feed.frames(dana, head, 1, fresh=False))[0] == ""
        late = viewer(table, "gm")  # signed in after the look was read
        look = await feed.look(1)
        assert look.gone(late) is None  # not in the look: the store is asked
        assert (await feed.frames(late, head, 1, fresh=False))[0] == ""
        assert feed.reads["looks"] == 1

        table.ok("access", "revoke", "Dana")
        store = open_store(table.db)
        try:
            sessionsmod.sign_out(store, olu.session, NOW)
        finally:
            store.close()
        # the old look still says both are live; a stream that timed out looks afresh
        assert (await feed.frames(olu, head, 1, fresh=False))[0] == ""
        assert (await feed.frames(olu, head, 1, fresh=True))[0] == "ended"
        # the next generation's look knows both
        assert (await feed.frames(dana, head, 2, fresh=False))[0] == "revoked"
        assert (await feed.frames(olu, head, 2, fresh=False))[0] == "ended"
        assert feed.reads["looks"] == 2

    apart(asyncio.run, scenario())
    server.close()


def test_look_gone_reads_only_what_it_holds():
    from ledger.web.access import Access
    from ledger.web.sessions import Session

    def who(link: int, sid: str) -> Viewer:
        return Viewer(Access(link, "Dana", "player"), "c", Session(1, link, sid, "d", "", ""))

    look = Look(3, 9, "h", links={1: None, 2: "2026-03-01"}, sessions={"a": None, "b": "x"})
    assert look.gone(who(1, "a")) == ""
    assert look.gone(who(2, "a")) == "revoked"
    assert look.gone(who(1, "b")) == "ended"
    assert look.gone(who(7, "a")) is None and look.gone(who(1, "z")) is None


def test_the_hub_offers_its_look_only_when_no_wake_up_came_between_its_read_and_its_own():
    """The watcher's look (read in its thread as it saw a change) becomes the new
    generation's only if no other wake-up (the server's own write) came in between: it
    might be older than that one's change, and the streams would miss it."""
    from ledger.web.live import Hub

    hub = Hub("unused.db")
    offered: list[tuple[int, str]] = []
    hub.offer = lambda generation, look: offered.append((generation, look))
    hub._bump("look read at 0", 0)
    hub._bump()  # the server's own write: no look
    hub._bump("look read at 1", 1)  # generation 2 came in between
    hub._bump("look read at 3", 3)
    assert hub.generation == 4
    assert offered == [(1, "look read at 0"), (4, "look read at 3")]
