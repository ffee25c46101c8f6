"""``campaign serve``: access links, sessions, pages, the player's view, physical dice
from a phone, and the attacks on them (forgery, cross-site posts, revocation, hostile text)."""

from __future__ import annotations

import json

import httpx2
import pytest

from ledger.store.sqlite import Store

from .webtools import apart, client, csrf, d20_table, live_server, login, post, sse_frames

PAGES = ("/", "/log", "/sheet/isa", "/sheet/isa/part", "/recap/1", "/audit/5", "/roll/isa",
         "/export.ndjson", "/verify", "/verifier.html", "/gm", "/events")


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "ledger.db"))


def test_without_a_session_every_page_is_a_login_hint_and_nothing_else(table):
    with client(table) as c:
        for path in PAGES:
            r = c.get(path)
            assert r.status_code == 403, path
            assert "Open the link your GM gave you" in r.text
            for word in ("vault", "Isa", "Bram", "Lockpicking", "Warden"):
                assert word not in r.text, (path, word)


def test_a_link_becomes_an_httponly_strict_session_cookie(table):
    token = table.link("Dana")
    with client(table) as c:
        r = c.get(f"/a/{token}")
        cookie = r.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie
        assert token not in cookie
        assert c.get("/").status_code == 200


def test_tokens_are_128_random_bits_stored_only_as_hashes(table):
    tokens = {table.link("Dana") for _ in range(5)}
    assert len(tokens) == 5 and all(len(t) == 22 for t in tokens)  # 16 bytes, base64url
    from pathlib import Path

    raw = b"".join(p.read_bytes() for p in Path(table.db).parent.iterdir() if p.is_file())
    for token in tokens:
        assert token.encode() not in raw


def test_a_wrong_or_old_token_gets_the_login_hint(table):
    old = table.link("Dana")
    table.link("Dana")  # a new link for Dana replaces the old one
    with client(table) as c:
        for token in (old, "x" * 22, old[:-1] + ("A" if old[-1] != "A" else "B")):
            r = c.get(f"/a/{token}")
            assert r.status_code == 403 and "ledger_session" not in c.cookies


def test_campaign_page_shows_characters_sessions_and_who_plays_whom(table):
    with client(table, "Dana") as c:
        html = c.get("/").text
    assert "Isa Marrow" in html and "played by Dana" in html
    assert "Bram Holloway" in html and "played by Olu" in html
    assert "Session 1" in html
    assert 'href="/roll/isa"' in html and 'href="/roll/bram"' not in html


def test_player_sees_the_players_view_and_the_gm_sees_gm_only_lines_marked(table):
    table.ok("note", "the vault key is a forgery", "--blind")
    with client(table, "Dana") as c:
        log = c.get("/log").text
        assert "forgery" not in log and "GM only" not in log
        assert 'role="log"' in log
        assert c.get("/audit/6").status_code == 404
    with client(table, "gm") as c:
        log = c.get("/log").text
        assert "forgery" in log and "GM only" in log
        assert c.get("/audit/6").status_code == 200


def test_player_enters_physical_dice_for_their_character(table):
    with client(table, "Dana") as c:
        form = c.get("/roll/isa").text
        assert 'name="dice"' in form and 'name="csrf"' in form and 'type="checkbox" name="time"' in form
        r = post(c, "/roll/isa", {"skill": "Lockpicking", "time": "1", "dice": "16"})
        assert r.status_code == 303
        seq = int(r.headers["location"].split("#e")[1])
        log = c.get("/log").text
    assert "entered by Dana (physical dice)" in log
    out = json.loads(table.ok("--as", "gm", "log", "--json"))
    rec = [e for e in out if e["seq"] == seq][0]
    assert rec["actor"] == "Dana" and rec["data"]["source"] == "physical"
    assert rec["data"]["draws"] == [[20, 16]] and rec["visibility"] == "public"


def test_a_refused_roll_is_one_clear_line_and_nothing_is_written(table):
    head = table.head()
    with client(table, "Dana") as c:
        r = post(c, "/roll/isa", {"skill": "Lockpicking", "time": "1", "dice": "21"})
        assert r.status_code == 422 and 'role="alert"' in r.text
        r = post(c, "/roll/isa", {"skill": "Lockpicking", "time": "1"})
        assert r.status_code == 422 and "enter the dice you rolled" in r.text
        r = post(c, "/roll/isa", {"skill": "Lockpicking", "dice": "12", "modifier": "x"})
        assert r.status_code == 422
    assert table.head() == head


def test_roll_options_are_validated_by_the_same_code_as_campaign_roll(table):
    """A bad trait invocation is refused with the CLI's sentence."""
    head = table.head()
    cli = table("roll", "isa", "Lockpicking", "--time", "--dice", "12", "--trait", "Curious:sideways")
    with client(table, "Dana") as c:
        r = post(c, "/roll/isa", {"skill": "Lockpicking", "time": "1", "dice": "12", "trait": "Curious:sideways"})
    assert cli.exit_code == 1 and r.status_code == 422
    # the same sentence: the CLI adds its flag, the form shows it by the field (no CLI text
    # on a phone)
    line = cli.output.split("Error: ")[1].strip()
    assert line.endswith(" (--trait)"), line
    sentence = line.removesuffix(" (--trait)")
    assert "--" not in sentence
    assert sentence.replace("'", "&#39;") in r.text
    assert table.head() == head


def test_forgery_player_cannot_write_for_another_players_character(table):
    head = table.head()
    with client(table, "Dana") as c:
        assert c.get("/roll/bram").status_code == 404
        r = post(c, "/roll/bram", {"skill": "Brawl", "time": "1", "dice": "20"})
        assert r.status_code == 404
    assert table.head() == head


def test_forgery_player_cannot_roll_blind_or_with_engine_dice(table):
    with client(table, "Dana") as c:
        r = post(c, "/roll/isa", {"skill": "Lockpicking", "time": "1", "dice": "9"})
        assert r.status_code == 303
        # a field the player's form does not show is refused, not ignored
        r = post(c, "/roll/isa", {"skill": "Lockpicking", "time": "1", "dice": "9", "blind": "1"})
        assert r.status_code == 422 and "a field the roll form does not show" in r.text
        r = post(c, "/roll/isa", {"skill": "Lockpicking", "time": "1"})
        assert r.status_code == 422
    out = json.loads(table.ok("--as", "gm", "log", "--json"))
    assert out[-1]["visibility"] == "public" and out[-1]["data"]["source"] == "physical"


def test_forgery_there_is_no_way_to_correct_or_record_anything_else(table):
    head = table.head()
    with client(table, "Dana") as c:
        for path in ("/correct/5", "/record", "/audit/5", "/log", "/sheet/isa"):
            r = post(c, path, {"reason": "x", "seq": "5"})
            assert r.status_code in (404, 405), path
    assert table.head() == head


def test_forgery_cross_site_form_posts_are_refused(table):
    head = table.head()
    form = {"skill": "Lockpicking", "time": "1", "dice": "16"}
    with client(table, "Dana") as c:
        token = csrf(c)
        r = c.post("/roll/isa", data={"csrf": token, **form}, headers={"origin": "https://evil.example"})
        assert r.status_code == 403
        r = c.post("/roll/isa", data={"csrf": token, **form})  # no Origin, no Referer
        assert r.status_code == 403
        r = post(c, "/roll/isa", {**form, "csrf": "forged"})
        assert r.status_code == 403
        r = c.post("/roll/isa", content=json.dumps(form), headers={
            "origin": "http://testserver", "content-type": "application/json"})
        assert r.status_code == 413
    with client(table, "Olu") as other:  # another session's token does not fit
        r = other.post("/roll/isa", data={"csrf": token, **form}, headers={"origin": "http://testserver"})
        assert r.status_code == 404
    assert table.head() == head


def test_request_bodies_and_form_values_are_bounded(table):
    head = table.head()
    with client(table, "Dana") as c:
        r = post(c, "/roll/isa", {"skill": "L" * 1001, "dice": "12"})
        assert r.status_code == 413
        r = post(c, "/roll/isa", {"skill": "Lockpicking", "dice": "12", "pad": "x" * 20000})
        assert r.status_code == 413
    assert table.head() == head


def test_error_pages_say_nothing_about_the_campaign(table):
    with client(table, "Dana") as c:
        for path in ("/nothing", "/sheet/nobody", "/recap/99", "/audit/999", "/audit/0"):
            r = c.get(path)
            assert r.status_code == 404, path
            for word in ("vault", "Isa", "Bram", "d20", "Traceback", "session"):
                assert word not in r.text, (path, word)


def test_every_response_has_the_content_security_policy(table):
    with client(table, "gm") as c:
        for path in PAGES[:-1]:
            r = c.get(path)
            csp = r.headers["content-security-policy"]
            assert "script-src 'self'" in csp or csp == "sandbox", path
            assert "unsafe-inline" not in csp and "http" not in csp
            assert r.headers["x-content-type-options"] == "nosniff"
            assert "server" not in r.headers
        for path in ("/", "/log", "/sheet/isa", "/roll/isa", "/verify"):
            html = c.get(path).text
            assert "<script>" not in html and " on" + "click=" not in html


HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def test_hostile_strings_are_escaped_on_every_page(table):
    table.ok("note", HOSTILE)
    table.ok("scene", "start", HOSTILE)
    token = table.link(HOSTILE, "isa")
    with client(table) as c:
        login(c, token)
        post(c, "/roll/isa", {"skill": HOSTILE, "dice": "12"})
        for path in ("/", "/log", "/sheet/isa", "/recap/1", "/audit/6", "/audit/7", "/roll/isa"):
            html = c.get(path).text
            assert "<script>alert" not in html and "<img src=x" not in html, path
        assert "&lt;script&gt;alert" in c.get("/log").text
        r = post(c, "/roll/isa", {"skill": HOSTILE, "dice": "12"})
        assert "<script>alert" not in r.text and "&lt;script&gt;" in r.text


def test_access_commands_add_list_revoke(table):
    out = table.ok("access", "add", "Dana")
    assert out.startswith("Dana: http://127.0.0.1:8000/a/") and "Isa Marrow" in out
    out = table.ok("access", "add", "gm", "--url", "http://table.local:9000")
    assert out.startswith("GM: http://table.local:9000/a/")
    listed = table.ok("access", "list")
    assert "Dana" in listed and "gm" in listed and "/a/" not in listed
    assert table.ok("access", "revoke", "dana").startswith("Revoked")
    r = table("access", "revoke", "dana")
    assert r.exit_code == 1 and "no live link" in r.output
    r = table("access", "add", "gm", "--character", "isa")
    assert r.exit_code == 1 and "naming characters is for players (--character)" in r.output
    r = table("access", "add", "Zed", "--character", "nobody")
    assert r.exit_code == 1 and "no character" in r.output


def test_access_add_character_grants_a_character_without_a_player_on_its_sheet(table):
    token = table.link("Kim", "bram")
    with client(table) as c:
        login(c, token)
        assert c.get("/roll/bram").status_code == 200
        assert c.get("/roll/isa").status_code == 404


def test_revoked_link_stops_at_once_pages_and_live_streams(table):
    with client(table, "Dana") as c:
        assert c.get("/log").status_code == 200
        table.ok("access", "revoke", "Dana")
        assert c.get("/log").status_code == 403
        assert c.get("/events").status_code == 403
    token = table.link("Dana")
    with live_server(table.db, poll_interval=0.05) as base:
        with httpx2.Client(base_url=base, timeout=10) as h:
            assert h.get(f"/a/{token}").status_code == 200
            with h.stream("GET", "/events") as r:
                lines = r.iter_lines()
                assert next(lines) == "retry: 1000"
                table.ok("access", "revoke", "Dana")
                rest = "\n".join(lines)  # the stream ends on its own
            assert "event: revoked" in rest


def test_live_log_sends_each_entry_once_with_its_seq_as_id_and_resumes(table):
    table.ok("note", "secret plan", "--blind")  # seq 6, GM-only
    table.ok("note", "public aside")  # seq 7
    token = table.link("Dana")
    with live_server(table.db, poll_interval=0.05) as base:
        with httpx2.Client(base_url=base, timeout=10) as h:
            h.get(f"/a/{token}")
            frames: list[dict[str, str]] = []
            with h.stream("GET", "/events", headers={"last-event-id": "3"}) as r:
                buffer = ""
                for chunk in r.iter_text():
                    buffer += chunk
                    frames = sse_frames(buffer)
                    if frames and frames[-1].get("id") == "7":
                        break
            # the GM-only note comes as a stub at its place: its seq, nothing of it
            assert [f["id"] for f in frames] == ["4", "5", "6", "7"]
            assert all(f["event"] == "entry" for f in frames)
            assert frames[2]["data"] == (
                '<li id="e6" class="entry stub" data-seq="6"><span class="seq">#6</span> '
                '<span class="text">GM-only entry</span></li>'
            )
            assert "secret plan" not in buffer
            # a phone that slept after seq 5 gets 6 and 7 and nothing before
            with h.stream("GET", "/events", headers={"last-event-id": "5"}) as r:
                buffer = ""
                for chunk in r.iter_text():
                    buffer += chunk
                    if 'id="e7"' in buffer:
                        break
            assert [f["id"] for f in sse_frames(buffer)] == ["6", "7"]


def test_hub_hears_a_commit_made_while_its_thread_starts(table):
    """The hub's baseline is taken when it starts, not on its thread's first look: a commit
    landing before that look still wakes the streams (CI once lost this race under load)."""
    import asyncio

    from ledger.web.app import Hub

    async def scenario() -> bool:
        hub = Hub(table.db, interval=0.3)
        hub.start(asyncio.get_running_loop())
        try:
            seen = hub.generation
            table.ok("roll", "bram", "Brawl", "--time", "--dice", "17")  # before the first look
            return await hub.wait(seen, 3.0)
        finally:
            hub.stop()

    assert apart(asyncio.run, scenario()) is True


def test_live_log_wakes_on_another_process_append(table):
    token = table.link("gm")
    with live_server(table.db, poll_interval=0.05) as base:
        with httpx2.Client(base_url=base, timeout=10) as h:
            h.get(f"/a/{token}")
            with h.stream("GET", "/events") as r:
                lines = r.iter_lines()
                assert next(lines) == "retry: 1000"
                table.ok("roll", "bram", "Brawl", "--time", "--dice", "17")
                for line in lines:
                    if line.startswith("data:"):
                        assert "Bram Holloway" in line and "Brawl" in line
                        break


def test_store_keeps_access_in_its_own_table(table):
    table.link("Dana")
    store = Store(table.db)
    rows = store.access_rows("vault")
    assert [r["who"] for r in rows] == ["Dana"] and len(rows[0]["token_hash"]) == 64


def test_the_servers_own_write_wakes_its_streams_through_its_event_appended_listener(
    table, monkeypatch
):
    """A roll entered on the web wakes the live streams as it commits (the server's
    ``event_appended`` listener), without the hub's watcher; with the watcher's looks (and
    its ``PRAGMA data_version`` checks, tests/test_live_wake.py) 30 s apart, another
    process's write (the CLI) waits for them, and wakes nothing at once."""
    from ledger.rules.plugins import pm
    from ledger.web import live
    from ledger.web.app import Listener, Server

    monkeypatch.setattr(live, "WAKE_SECONDS", 30.0)

    server = Server(table.db, poll_interval=30)
    with client(table, server=server) as c:
        login(c, table.link("Dana"))
        assert any(isinstance(p, Listener) for p in pm.get_plugins())
        before = server.hub.generation
        table.ok("roll", "bram", "Brawl", "--time", "--dice", "17")  # another writer
        c.get("/")  # lets the event loop run any wake-up that was scheduled
        assert server.hub.generation == before
        r = post(c, "/roll/isa", {"skill": "Lockpicking", "time": "on", "dice": "18"})
        assert r.status_code == 303, r.text
        c.get("/")
        assert server.hub.generation == before + 1
    assert not any(isinstance(p, Listener) for p in pm.get_plugins())  # unregistered on stop


def test_sheet_css_is_served_and_linked_from_the_sheet_page(table):
    """The CSP allows no inline style: the sheet page links /sheet.css, the same rules as
    `sheet --format html` (its sheet_css macro), served without a session (no campaign
    data in it)."""
    with client(table) as anon:
        css = anon.get("/sheet.css")
        assert css.status_code == 200 and css.headers["content-type"].startswith("text/css")
        assert ".sheet .box.marked" in css.text and "Isa" not in css.text
    with client(table, "Dana") as c:
        page = c.get("/sheet/isa").text
        assert '<link rel="stylesheet" href="/sheet.css">' in page
        assert page.count("<h1") == 1 and '<section class="part">' in page
