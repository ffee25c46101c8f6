"""The live stream's keep-alives on a fixed cadence: a GM-only append wakes every
stream, and a player's stream then sends nothing; it must not move the player's next
``: still here`` either, or a player timing the keep-alives learns when the GM did something
hidden. The cadence runs on a fake monotonic clock and a fake hub ``wait`` that jumps the
clock instead of sleeping."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ledger.web.app import Server

from .webtools import client, d20_table, login, sse_frames

KEEPALIVE = 15.0


class FakeTime:
    """A monotonic clock and a hub ``wait`` over it: ``wait(seen, timeout)`` runs the next
    scheduled change (an append, a revocation) if it falls within ``timeout`` and reports a
    wake-up, else moves the clock to the deadline and reports a timeout."""

    def __init__(self, server: Server, schedule: list[tuple[float, Callable[[], object]]]):
        self.now = 0.0
        self.server = server
        self.schedule = sorted(schedule, key=lambda item: item[0])
        self.timeouts: list[float] = []  # when each wait ran out: a keep-alive goes out then

    def monotonic(self) -> float:
        return self.now

    async def wait(self, seen: int, timeout: float) -> bool:
        deadline = self.now + timeout
        if self.schedule and self.schedule[0][0] <= deadline:
            when, change = self.schedule.pop(0)
            self.now = max(self.now, when)
            change()
            self.server.hub.generation += 1  # as the hub's poll would on the new head
            return True
        self.now = deadline
        self.timeouts.append(self.now)
        return False


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "ledger.db"))


def player_stream(table, changes: list[tuple[float, Callable[[], object]]]) -> tuple[str, list]:
    """Dana's ``/events`` from its start to her link's revocation at t = 50 s, with
    ``changes`` made on the way; returns the body and when the waits ran out."""
    token = table.link("Dana")
    server = Server(table.db, poll_interval=3600)
    fake = FakeTime(server, [*changes, (50.0, lambda: table.ok("access", "revoke", "Dana"))])
    server.monotonic = fake.monotonic  # type: ignore[method-assign]
    server.keepalive = KEEPALIVE
    server.hub.wait = fake.wait  # type: ignore[method-assign]
    with client(table, server=server) as c:
        login(c, token)
        body = c.get("/events").text  # ends with the revocation
    return body, fake.timeouts


def test_a_hidden_append_does_not_move_a_players_next_keep_alive(table):
    quiet, quiet_times = player_stream(table, [])
    hidden, hidden_times = player_stream(
        table, [(5.0, lambda: table.ok("note", "the key is a forgery", "--blind"))]
    )
    assert quiet == "retry: 1000\n\n" + ": still here\n\n" * 3 + "event: revoked\ndata: \n\n"
    # the GM-only entry arrives as its stub, nothing of it, and the keep-alives
    # go out at the same moments as on the quiet stream
    (stub,) = [f for f in sse_frames(hidden) if f.get("event") == "entry"]
    assert "GM-only entry" in stub["data"] and "forgery" not in hidden and "note" not in stub["data"]
    assert hidden.replace(f"id: {stub['id']}\nevent: entry\ndata: {stub['data']}\n\n", "") == quiet
    assert hidden_times == quiet_times == [15.0, 30.0, 45.0]


def test_keep_alives_keep_their_cadence_around_visible_entries(table):
    body, times = player_stream(
        table,
        [
            (14.9, lambda: table.ok("note", "the door creaks")),
            (31.0, lambda: table.ok("note", "the key is a forgery", "--blind")),
            (31.5, lambda: table.ok("note", "a draught")),
        ],
    )
    assert times == [15.0, 30.0, 45.0]
    frames = sse_frames(body)
    assert [f.get("event") for f in frames] == ["entry", "entry", "entry", "revoked"]
    assert "GM-only entry" in frames[1]["data"]  # the hidden note as its stub
    assert "forgery" not in body
    pings = body.split("\n\n")
    assert pings.count(": still here") == 3
