"""``campaign serve --db postgresql://...``, on the PostgreSQL backend (ledger/store/postgres.py).

- access links live in the store on both backends (migration ``m006_access``): issue, find,
  revoke, and ``campaign access add|list|revoke`` (``store_target``: a SQLite file and a
  fresh PostgreSQL schema, as tests/test_conformance.py runs every store check);
- served from PostgreSQL: a link logs in, a player's live log shows an entry another
  connection appends, a revoked link ends the stream, a roll entered on the web reaches
  the GM's open stream, and a player's link serves nothing of a GM-only event
  (tests/test_web_leak.py's crawl, on d20-world, whose GM-only types cover every kind).

The PostgreSQL half skips with its reason when no server answers (tests/conftest.py:
``CAMPAIGN_TEST_POSTGRES``; a server at 127.0.0.1:5432 is used when there is one).
"""

from __future__ import annotations

import time
from typing import Any

import httpx2
import pytest

from ledger.campaign.aggregate import open_campaign
from ledger.store.opening import open_store
from ledger.web import access

from .test_web_leak import served_to_a_player_leaks_nothing
from .webtools import AT, d20_table, live_server, sse_frames


def test_access_links_are_kept_by_both_backends(store_target):
    table = d20_table(store_target)
    store = open_store(store_target)
    try:
        assert "m006_access" in store.migrations()
        campaign = open_campaign(store)
        dana, token = access.grant(store, campaign, "Dana", (), at=AT)
        kim, kim_token = access.grant(store, campaign, "Kim", ("bram",), at=AT)
        assert access.find(store, campaign.id, token) == dana
        assert access.find(store, campaign.id, kim_token).granted == ("bram",)
        assert access.find(store, campaign.id, token + "x") is None
        rows = store.access_rows(campaign.id)
        assert [r["who"] for r in rows] == ["Dana", "Kim"]
        assert all(len(r["token_hash"]) == 64 and token not in r.values() for r in rows)
        # a second link is refused unless it replaces the old; a revoked one stops
        with pytest.raises(access.LinkExists):
            access.grant(store, campaign, "dana", (), at=AT)
        assert access.find(store, campaign.id, token) == dana
        again, new_token = access.grant(store, campaign, "dana", (), at=AT, replace=True)
        assert access.find(store, campaign.id, token) is None
        assert access.still_live(store, campaign.id, again.id) is not None
        assert store.revoke_access(campaign.id, "DANA", AT) == 1
        assert access.find(store, campaign.id, new_token) is None
        assert access.still_live(store, campaign.id, again.id) is None
        assert [a.who for a in access.live(store, campaign.id)] == ["Kim"]
    finally:
        store.close()
    assert table.ok("access", "add", "Dana").startswith("Dana: http://127.0.0.1:8000/a/")
    assert "Dana" in table.ok("access", "list")
    assert table.ok("access", "revoke", "Dana").startswith("Revoked")


def test_serve_on_postgresql_streams_another_connections_append_and_stops_on_revoke(
    postgres_url,
):
    table = d20_table(postgres_url)
    token = table.link("Dana")
    with live_server(postgres_url, poll_interval=0.05) as base:
        with httpx2.Client(base_url=base, timeout=10) as h:
            assert h.get("/log").status_code == 403  # no link, nothing but a login hint
            assert h.get(f"/a/{token}").status_code == 200
            assert "Isa Marrow" in h.get("/").text
            with h.stream("GET", "/events") as r:
                lines = r.iter_lines()
                assert next(lines) == "retry: 1000"
                table.ok("roll", "bram", "Brawl", "--time", "--dice", "17")  # another connection
                for line in lines:
                    if line.startswith("data:"):
                        assert "Bram Holloway" in line and "Brawl" in line
                        break
                table.ok("access", "revoke", "Dana")
                rest = "\n".join(lines)  # the stream ends on its own
            assert "event: revoked" in rest
            assert h.get("/log").status_code == 403


def test_serve_on_postgresql_a_roll_entered_on_the_web_reaches_the_gms_stream(postgres_url):
    table = d20_table(postgres_url)
    gm, dana = table.link("gm"), table.link("Dana")
    with live_server(postgres_url, poll_interval=30) as base:  # only the listener wakes it
        with (
            httpx2.Client(base_url=base, timeout=10) as g,
            httpx2.Client(base_url=base, timeout=10) as p,
        ):
            g.get(f"/a/{gm}")
            p.get(f"/a/{dana}")
            page = p.get("/roll/isa").text
            csrf = page.split('name="csrf" value="')[1].split('"')[0]
            nonce = page.split('name="nonce" value="')[1].split('"')[0]
            with g.stream("GET", "/events") as r:
                buffer = ""
                chunks = r.iter_text()
                buffer += next(chunks)
                sent = p.post(
                    "/roll/isa",
                    data={
                        "csrf": csrf,
                        "nonce": nonce,
                        "skill": "Lockpicking",
                        "time": "on",
                        "dice": "18",
                    },
                    headers={"origin": base},
                )
                assert sent.status_code == 303, sent.text
                seq = sent.headers["location"].split("#e")[1]
                for chunk in chunks:
                    buffer += chunk
                    if f"id: {seq}\n" in buffer:
                        break
            frames = [f for f in sse_frames(buffer) if f.get("id") == seq]
            assert "entered by Dana (physical dice)" in frames[0]["data"]
    assert f"[{seq}] ✔ Isa Marrow — Lockpicking +3, d20 18" in table.ok("log")


def test_serve_on_postgresql_leaks_nothing_gm_only_to_a_player(postgres_url):
    served_to_a_player_leaks_nothing(postgres_url, "d20-world")


def test_campaign_serve_db_postgresql_prints_links_and_runs_the_app(postgres_url, monkeypatch):
    import uvicorn

    table = d20_table(postgres_url)
    ran = {}

    def run(server: Any, sockets: Any = None) -> None:  # bound, not served
        ran.update(app=server.config.app.app)
        for sock in sockets:
            sock.close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    out = table.ok("serve", "--port", "0")
    port = out.split("Serving vault at http://127.0.0.1:")[1].split()[0]
    assert f"GM: http://127.0.0.1:{port}/a/" in out and "Dana: http" in out
    assert ran["app"].state.server.db_path == postgres_url
    assert store_url(postgres_url) == f"http://127.0.0.1:{port}"
    store = open_store(postgres_url)
    try:
        assert [a.who for a in access.live(store, "vault")] == ["gm", "Dana", "Olu"]
    finally:
        store.close()


def store_url(target: str) -> str | None:
    """The public URL the ledger at ``target`` keeps for ``vault``."""
    store = open_store(target)
    try:
        return store.public_url("vault")
    finally:
        store.close()


def test_an_append_on_postgresql_wakes_the_live_log_by_notification(postgres_url):
    """The watcher LISTENs (ledger_appended): with its look at the campaign only once
    an hour, another connection's append still reaches an open stream, because the append's
    commit notifies it (how fast: bench/serve.py)."""
    table = d20_table(postgres_url)
    token = table.link("Dana")
    with live_server(postgres_url, poll_interval=3600) as base:  # no look in the test's time
        with httpx2.Client(base_url=base, timeout=60) as h:  # 60 s only bounds a hang
            assert h.get(f"/a/{token}").status_code == 200
            with h.stream("GET", "/events") as r:
                lines = r.iter_lines()
                assert next(lines) == "retry: 1000"
                time.sleep(0.3)  # the stream is waiting on the hub
                table.ok("roll", "bram", "Brawl", "--time", "--dice", "17")  # another connection
                for line in lines:  # arrives at all: only the notification can have woken it
                    if line.startswith("data:") and "Brawl" in line:
                        break
                else:
                    raise AssertionError("the stream ended without the roll")


def test_wait_appended_hears_its_campaign_and_only_its_campaign(postgres_url):
    """``PostgresStore.wait_appended``: ``True`` for an append to the campaign committed by
    another connection, ``False`` when the time is up, and an append to another campaign of
    the same database does not count."""
    from ledger.campaign.aggregate import Campaign
    from ledger.events import NoteAdded

    writer = open_store(postgres_url)
    listener = open_store(postgres_url)
    try:
        ours = Campaign.create(writer, "ours", system="d20-world", actor="gm", at=AT)
        theirs = Campaign.create(writer, "theirs", system="d20-world", actor="gm", at=AT)
        listener.listen()  # type: ignore[attr-defined]
        assert listener.wait_appended(ours.id, 0.1) is False  # type: ignore[attr-defined]
        theirs.append([NoteAdded(text="elsewhere")], actor="gm", at=AT)
        assert listener.wait_appended(ours.id, 0.2) is False  # type: ignore[attr-defined]
        ours.append([NoteAdded(text="here")], actor="gm", at=AT)
        assert listener.wait_appended(ours.id, 60.0) is True  # type: ignore[attr-defined]
    finally:
        writer.close()
        listener.close()
