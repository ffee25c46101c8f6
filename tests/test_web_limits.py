"""Player writes from the web, bounded: a burst then a steady rate per device ("Slow
down", 429, nothing written; the GM unlimited), and a one-time nonce per roll form (a form
sent twice is recorded once: 409 "This form was already sent"). Clocks are fakes or
freezegun: nothing sleeps."""

from __future__ import annotations

import re
import threading
from datetime import UTC, datetime, timedelta

import httpx2
import pytest
from freezegun import freeze_time

from ledger.web.app import Server
from ledger.web.sessions import SessionPolicy

from .webtools import client, csrf, d20_table, live_server, login, nonce, post

ROLL = {"skill": "Lockpicking", "time": "1", "dice": "12"}


class Clock:
    """A fake wall clock for :class:`Server` (``clock=``)."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 19, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "ledger.db"))


def test_a_flood_of_rolls_from_one_phone_writes_only_the_default_burst(table):
    """The issue's case: a script sends 30 rolls in the same instant from one phone. With
    the documented defaults (a burst of 10), 10 are written and the rest get "Slow down"."""
    head = table.head()
    with freeze_time("2026-03-01 19:00:00"), client(table, "Dana") as c:
        codes = [post(c, "/roll/isa", ROLL).status_code for _ in range(30)]
        refused = post(c, "/roll/isa", ROLL)
    assert codes == [303] * 10 + [429] * 20
    assert "Slow down" in refused.text and 'role="alert"' in refused.text
    assert refused.headers["retry-after"] == "3"
    assert table.head() == head + 10


def test_a_burst_then_a_steady_rate_and_the_gm_is_not_limited(table):
    clock = Clock()
    server = Server(table.db, clock=clock, policy=SessionPolicy(burst=3, refill_seconds=10))
    head = table.head()
    with client(table, server=server) as dana:
        login(dana, table.link("Dana"))
        assert [post(dana, "/roll/isa", ROLL).status_code for _ in range(4)] == [303] * 3 + [429]
        clock.advance(9)
        assert post(dana, "/roll/isa", ROLL).status_code == 429
        clock.advance(1)  # one write back every 10 s
        assert [post(dana, "/roll/isa", ROLL).status_code for _ in range(2)] == [303, 429]
        clock.advance(3600)  # a full bucket holds 3, however long the wait
        assert [post(dana, "/roll/isa", ROLL).status_code for _ in range(4)] == [303] * 3 + [429]
        with client(table, server=server) as gm:
            login(gm, table.link("gm"))
            assert {
                post(gm, "/roll/bram", {**ROLL, "skill": "Brawl"}).status_code for _ in range(12)
            } == {303}
    assert table.head() == head + 7 + 12


def test_refused_rolls_cost_nothing_and_signing_in_again_does_not_refill(table):
    clock = Clock()
    server = Server(table.db, clock=clock, policy=SessionPolicy(burst=2, refill_seconds=60))
    token = table.link("Dana")
    with client(table, server=server) as phone:
        login(phone, token)
        for _ in range(5):  # impossible dice: refused by the rules, nothing written
            assert post(phone, "/roll/isa", {**ROLL, "dice": "21"}).status_code == 422
        assert [post(phone, "/roll/isa", ROLL).status_code for _ in range(3)] == [303, 303, 429]
        with client(table, server=server) as again:  # the same link on a new device
            login(again, token)
            assert post(again, "/roll/isa", ROLL).status_code == 429
            again.post(
                "/logout", data={"csrf": csrf(again)}, headers={"origin": "http://testserver"}
            )
        with client(table, server=server) as third:  # signed out and in again
            login(third, token)
            assert post(third, "/roll/isa", ROLL).status_code == 429
            clock.advance(60)
            assert post(third, "/roll/isa", ROLL).status_code == 303


def test_a_replayed_roll_form_is_refused_with_409_and_writes_nothing(table):
    with client(table, "Dana") as c:
        form = {**ROLL, "csrf": csrf(c), "nonce": nonce(c, "/roll/isa")}
        head = table.head()
        first = c.post("/roll/isa", data=form, headers={"origin": "http://testserver"})
        assert first.status_code == 303
        again = c.post("/roll/isa", data=form, headers={"origin": "http://testserver"})
        assert again.status_code == 409
        assert "This form was already sent" in again.text and 'role="alert"' in again.text
        assert table.head() == head + 1
        # without a nonce, or with one this session never had: refused, nothing written
        for bad in ("", "x" * 24, "y" * 500):
            r = c.post(
                "/roll/isa", data={**form, "nonce": bad}, headers={"origin": "http://testserver"}
            )
            assert r.status_code == 409 and "This form has expired" in r.text
        with client(table, "Olu") as olu:  # another session's fresh nonce does not fit
            stolen = nonce(olu, "/roll/bram")
        r = c.post(
            "/roll/isa", data={**form, "nonce": stolen}, headers={"origin": "http://testserver"}
        )
        assert r.status_code == 409
        assert table.head() == head + 1


def test_a_refused_roll_leaves_its_form_usable(table):
    with client(table, "Dana") as c:
        n = nonce(c, "/roll/isa")
        assert post(c, "/roll/isa", {**ROLL, "dice": "21", "nonce": n}).status_code == 422
        assert post(c, "/roll/isa", {**ROLL, "nonce": n}).status_code == 303
        assert post(c, "/roll/isa", {**ROLL, "nonce": n}).status_code == 409


def test_a_session_keeps_only_its_newest_forms(table):
    server = Server(table.db, policy=SessionPolicy(nonces_kept=3))
    with client(table, server=server) as c:
        login(c, table.link("Dana"))
        oldest = nonce(c, "/roll/isa")
        newest = [nonce(c, "/roll/isa") for _ in range(3)]
        r = post(c, "/roll/isa", {**ROLL, "nonce": oldest})
        assert r.status_code == 409 and "This form has expired" in r.text
        # the refusal's page was a new form (a nonce of its own): the newest two still work
        assert post(c, "/roll/isa", {**ROLL, "nonce": newest[-1]}).status_code == 303
        assert post(c, "/roll/isa", {**ROLL, "nonce": newest[-2]}).status_code == 303


def test_the_same_form_sent_twice_at_once_is_recorded_once(store_target):
    """Two submits of one form race (a double tap on a slow network): the nonce is used in
    the append's transaction, so exactly one is written and the other gets 409."""
    t = d20_table(store_target)
    token = t.link("Dana")
    head = t.head()
    with live_server(t.db) as base, httpx2.Client(base_url=base, timeout=30) as h:
        h.get(f"/a/{token}")
        form = h.get("/roll/isa").text
        data = dict(ROLL)
        for name in ("csrf", "nonce"):
            data[name] = re.search(f'name="{name}" value="([^"]+)"', form).group(1)  # type: ignore[union-attr]
        go = threading.Barrier(4)
        codes: list[int] = []

        def send() -> None:
            with httpx2.Client(base_url=base, timeout=30, cookies=h.cookies) as mine:
                go.wait()
                codes.append(
                    mine.post("/roll/isa", data=data, headers={"origin": base}).status_code
                )

        threads = [threading.Thread(target=send) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert sorted(codes) == [303, 409, 409, 409]
    assert t.head() == head + 1


def test_one_devices_rolls_sent_at_once_share_its_bucket(store_target):
    """Four different forms of one device sent at once with one write left in its bucket:
    one is written, three get "Slow down" (the bucket is spent by compare-and-set in the
    append's transaction, so concurrent writers cannot each spend the same write)."""
    t = d20_table(store_target)
    token = t.link("Dana")
    head = t.head()
    policy = SessionPolicy(burst=1, refill_seconds=3600)
    with live_server(t.db, policy=policy) as base, httpx2.Client(base_url=base, timeout=30) as h:
        h.get(f"/a/{token}")
        forms = []
        for _ in range(4):
            page = h.get("/roll/isa").text
            data = dict(ROLL)
            for name in ("csrf", "nonce"):
                data[name] = re.search(f'name="{name}" value="([^"]+)"', page).group(1)  # type: ignore[union-attr]
            forms.append(data)
        go = threading.Barrier(4)
        codes: list[int] = []

        def send(data: dict[str, str]) -> None:
            with httpx2.Client(base_url=base, timeout=30, cookies=h.cookies) as mine:
                go.wait()
                codes.append(
                    mine.post("/roll/isa", data=data, headers={"origin": base}).status_code
                )

        threads = [threading.Thread(target=send, args=(f,)) for f in forms]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert sorted(codes) == [303, 429, 429, 429]
    assert t.head() == head + 1
