"""Sessions of the web view kept in the store: a restart (or a second server over the
same store) logs nobody out; idle expiry, ``/logout``, a bound per link, revocation ends
them, and ``campaign access list`` shows the devices signed in with each link. On both
backends where it matters (``store_target``: a SQLite file and a fresh PostgreSQL schema)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ledger.store.opening import open_store
from ledger.web.app import Server
from ledger.web.sessions import SessionPolicy, device_label

from .webtools import client, csrf, d20_table, login, post

IPHONE = (
    "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 "
    "(KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
)
PIXEL = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/124.0.0.0 Mobile Safari/537.36"
)


class Clock:
    """A fake wall clock for :class:`Server` (``clock=``): moved by hand, never slept on."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 19, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "ledger.db"))


def sessions_of(db: str) -> list[dict]:
    store = open_store(db)
    try:
        return store.web_sessions("vault")
    finally:
        store.close()


def test_a_cookie_from_one_server_works_on_another_over_the_same_store(store_target):
    """A restart logs nobody out: the session is in the store, not in the first server's
    memory; its CSRF token and a form from the second server work there too."""
    t = d20_table(store_target)
    with client(t, "Dana", server=Server(t.db)) as first:
        cookie = first.cookies["ledger_session"]
        assert first.get("/").status_code == 200
    with client(t, server=Server(t.db)) as second:  # a new process over the same store
        second.cookies.set("ledger_session", cookie)
        page = second.get("/")
        assert page.status_code == 200 and "Isa Marrow" in page.text
        head = t.head()
        r = post(second, "/roll/isa", {"skill": "Lockpicking", "time": "1", "dice": "14"})
        assert r.status_code == 303, r.text
        assert t.head() == head + 1
    rows = sessions_of(t.db)
    assert len(rows) == 1 and rows[0]["sid_hash"] != cookie and len(rows[0]["sid_hash"]) == 64


def test_the_session_id_and_its_csrf_token_are_never_stored(table):
    with client(table, "Dana") as c:
        sid = c.cookies["ledger_session"]
        token = csrf(c)
        c.get("/roll/isa")
    raw = b"".join(p.read_bytes() for p in Path(table.db).parent.iterdir() if p.is_file())
    assert sid.encode() not in raw and token.encode() not in raw


def test_an_idle_session_ends_and_a_used_one_lasts(table):
    clock = Clock()
    policy = SessionPolicy(idle_seconds=30 * 24 * 3600)
    with client(table, server=Server(table.db, clock=clock, policy=policy)) as used:
        login(used, table.link("Dana"))
        with client(table, server=used.server) as idle:  # type: ignore[attr-defined]
            login(idle, table.link("gm"))
            for _ in range(3):  # the player comes back every 20 days
                clock.advance(days=20)
                assert used.get("/").status_code == 200
            # the GM's device, unused for 60 days, has ended
            assert idle.get("/").status_code == 403
    rows = sessions_of(table.db)
    assert len(rows) == 1  # the idle session was deleted when it was next seen


def test_logout_ends_the_session_on_every_server_and_clears_the_cookie(table):
    with client(table, "Dana") as c:
        cookie = c.cookies["ledger_session"]
        assert 'action="/logout"' in c.get("/").text
        assert c.get("/logout").status_code == 405  # a link cannot sign anyone out
        r = c.post("/logout", data={"csrf": "forged"}, headers={"origin": "http://testserver"})
        assert r.status_code == 403 and c.get("/").status_code == 200
        r = c.post("/logout", data={"csrf": csrf(c)}, headers={"origin": "http://testserver"})
        assert r.status_code == 200 and "signed out" in r.text
        assert 'ledger_session=""' in r.headers["set-cookie"]
    with client(table) as again:
        again.cookies.set("ledger_session", cookie)
        assert again.get("/").status_code == 403
        assert again.get("/events").status_code == 403
    assert table.ok("access", "list").count("no device signed in") == 1


def test_a_link_keeps_at_most_max_devices_sessions_the_least_recent_gives_way(table):
    clock = Clock()
    server = Server(table.db, clock=clock, policy=SessionPolicy(max_devices=3))
    token = table.link("Dana")
    phones = [client(table, server=server) for _ in range(4)]
    for phone in phones:
        with phone:
            clock.advance(minutes=5)
            login(phone, token)
    with phones[1], phones[2], phones[3], phones[0]:
        assert phones[0].get("/").status_code == 403
        assert all(p.get("/").status_code == 200 for p in phones[1:])
    assert len(sessions_of(table.db)) == 3


def test_revoking_or_replacing_a_link_ends_and_deletes_its_sessions(table):
    with client(table, "Dana") as dana, client(table, "Olu") as olu:
        assert len(sessions_of(table.db)) == 2
        table.ok("access", "revoke", "Dana")
        assert dana.get("/").status_code == 403
        assert olu.get("/").status_code == 200
        assert len(sessions_of(table.db)) == 1
        table.ok("access", "add", "Olu", "--replace")  # a new link: the old one and its devices end
        assert olu.get("/").status_code == 403
    assert sessions_of(table.db) == []


def test_access_list_shows_the_devices_signed_in_with_each_link(table):
    token = table.link("Dana")
    with client(table) as phone, client(table) as tablet:
        phone.headers["user-agent"] = IPHONE
        tablet.headers["user-agent"] = PIXEL + '<script>alert("x")</script>'
        login(phone, token)
        login(tablet, token)
        listed = table.ok("access", "list")
        assert "Safari on iPhone: signed in" in listed and "Chrome on Android" in listed
        assert "<script>" not in listed
        rows = json.loads(table.ok("access", "list", "--json"))
        dana = [r for r in rows if r["who"] == "Dana"][0]
        assert sorted(d["device"] for d in dana["devices"]) == [
            "Chrome on Android",
            "Safari on iPhone",
        ]
        assert all(set(d) == {"device", "signed_in", "last_seen"} for d in dana["devices"])
        phone.post("/logout", data={"csrf": csrf(phone)}, headers={"origin": "http://testserver"})
        rows = json.loads(table.ok("access", "list", "--json"))
        dana = [r for r in rows if r["who"] == "Dana"][0]
        assert [d["device"] for d in dana["devices"]] == ["Chrome on Android"]


@pytest.mark.parametrize(
    ("agent", "label"),
    [
        (IPHONE, "Safari on iPhone"),
        (PIXEL, "Chrome on Android"),
        (
            "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
            "Firefox on Linux",
        ),
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0",
            "Edge on Windows",
        ),
        ("curl/8.5.0", "unknown device"),
        ("", "unknown device"),
    ],
)
def test_device_labels_come_from_a_fixed_vocabulary(agent, label):
    assert device_label(agent) == label


def test_store_keeps_web_sessions_and_nonces_on_both_backends(store_target):
    """The store's session methods (ledger/eventstore.py) and migration m008_web_sessions."""
    t = d20_table(store_target)
    t.link("Dana")
    store = open_store(store_target)
    try:
        assert "m008_web_sessions" in store.migrations()
        link = store.access_rows("vault")[0]["id"]
        at = "2026-03-01T19:00:00.000000Z"
        sid = store.add_web_session("vault", link, "a" * 64, "Safari on iPhone", at, 10)
        other = store.add_web_session("vault", link, "b" * 64, "Firefox on Linux", at, 10)
        assert [r["id"] for r in store.web_sessions("vault")] == [sid, other]
        (row,) = store.web_sessions("vault", sid_hash="a" * 64)
        assert row["device"] == "Safari on iPhone" and row["ended_at"] is None
        assert row["tokens"] == 10.0 and row["seen_at"] == at
        later = "2026-03-01T19:05:00.000000Z"
        store.touch_web_session(sid, later)
        assert store.spend_web_tokens(sid, 2.5, later, was=(10.0, at)) is True
        assert store.spend_web_tokens(sid, 1.5, later, was=(10.0, at)) is False  # stale
        (row,) = store.web_sessions("vault", sid_hash="a" * 64)
        assert (row["seen_at"], row["tokens"], row["tokens_at"]) == (later, 2.5, later)
        # nonces: used once; the newest `keep` kept
        for n in range(4):
            store.add_web_nonce(sid, f"{n:064d}", at, keep=3)
        assert store.web_nonce(sid, f"{0:064d}") == "unknown"  # forgotten
        assert store.web_nonce(other, f"{1:064d}") == "unknown"  # another session's
        assert store.use_web_nonce(sid, f"{1:064d}", later) is True
        assert store.use_web_nonce(sid, f"{1:064d}", later) is False
        assert store.web_nonce(sid, f"{1:064d}") == "used"
        with pytest.raises(RuntimeError), store.transaction():  # a rollback unuses it
            assert store.use_web_nonce(sid, f"{2:064d}", later) is True
            raise RuntimeError("the append failed")
        assert store.web_nonce(sid, f"{2:064d}") == "unused"
        assert store.end_web_session(sid, later) == 1 and store.end_web_session(sid, later) == 0
        assert store.drop_web_sessions("vault", [other]) == 1
        assert store.revoke_access("vault", "dana", later) == 1
        assert store.web_sessions("vault") == []  # a revoked link's sessions are gone
        assert store.web_nonce(sid, f"{2:064d}") == "unknown"
    finally:
        store.close()


def test_signing_out_ends_the_devices_open_live_streams(table):
    """An open ``/events`` of the session ends with ``event: ended`` at its next look (a
    keep-alive or a wake-up); live.js then says so and stops reconnecting."""
    import httpx2

    from .webtools import live_server

    token = table.link("Dana")
    with live_server(table.db, keepalive=0.2) as base:
        with httpx2.Client(base_url=base, timeout=10) as h:
            assert h.get(f"/a/{token}").status_code == 200
            page = h.get("/log").text
            token_csrf = page.split('name="csrf" value="')[1].split('"')[0]
            with h.stream("GET", "/events") as r:
                lines = r.iter_lines()
                assert next(lines) == "retry: 1000"
                with httpx2.Client(base_url=base, timeout=10, cookies=h.cookies) as other:
                    out = other.post("/logout", data={"csrf": token_csrf}, headers={"origin": base})
                    assert out.status_code == 200
                rest = "\n".join(lines)  # the stream ends on its own
            assert "event: ended" in rest and "event: revoked" not in rest
