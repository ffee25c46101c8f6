"""The GM's page of ``campaign serve``: ``GET /gm`` and its taps (``POST /gm/ACTION``),
each through the code of the command line (ledger/campaign/recording.py), each undoable with
a reason; who is connected and signing a device out; a player's new link as a QR code; the
terminal's QR codes of ``campaign serve``."""

from __future__ import annotations

import json
import re

import httpx2
import pytest
from freezegun import freeze_time

from ledger.web.sessions import SessionPolicy

from .webtools import client, csrf, d20_table, live_server, login, sse_frames

ORIGIN = {"origin": "http://testserver"}
ANDROID = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/130.0 Mobile Safari/537.36"
)


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "ledger.db"))


def page_nonce(c, path: str = "/gm") -> str:
    found = re.search(r'name="nonce" value="([^"]+)"', c.get(path).text)
    assert found, "no form on the page"
    return found.group(1)


def tap(c, action: str, fields: dict[str, str], *, nonce: str | None = None):
    data = {"csrf": csrf(c), "nonce": nonce or page_nonce(c), **fields}
    return c.post(f"/gm/{action}", data=data, headers=ORIGIN)


def log_json(table) -> list[dict]:
    return list(json.loads(table.ok("log", "--json")))


def done(c, r) -> str:
    """The page a tap's redirect lands on: its "Recorded" panel as text."""
    assert r.status_code == 303, r.text
    page = c.get(r.headers["location"]).text
    found = re.search(r'<section class="done".*?</section>', page, re.S)
    assert found, page
    return re.sub(r"<[^>]+>", " ", found.group(0))


# --- the taps ----------------------------------------------------------------------------------


def test_damage_is_the_same_event_and_words_as_campaign_damage(table, tmp_path):
    twin = d20_table(str(tmp_path / "twin.db"))
    cli = json.loads(twin.ok("damage", "isa", "3", "--json"))
    with client(table, "gm") as gm:
        r = tap(gm, "damage", {"form": "damage-isa", "character": "isa", "amount": "3"})
        assert r.headers["location"] == f"/gm?done={cli['seq']}#c-isa"
        panel = done(gm, r)
    assert f"Recorded #{cli['seq']}" in panel and "Isa Marrow — takes 3 damage" in panel
    for sentence in cli["sentences"]:  # "Wound 1: 3 damage", "Owes a shock roll (...)"
        assert sentence in panel
    last = log_json(table)[-1]
    assert last["type"] == "d20-world.damage_taken" and last["actor"] == "gm"
    assert last["data"] == log_json(twin)[-1]["data"]


@pytest.mark.parametrize(
    ("amount", "said"),
    [("0", "0 damage changes nothing: give an amount of 1 or more"),
     ("-2", "-2 damage changes nothing"),
     ("three", "Give the damage as a whole number, 1 or more")],
)  # fmt: skip
def test_a_bad_amount_is_refused_next_to_its_form_and_writes_nothing(table, amount, said):
    head = table.head()
    with client(table, "gm") as gm:
        r = tap(gm, "damage", {"form": "damage-isa", "character": "isa", "amount": amount})
    assert r.status_code == 422
    found = re.search(r'<p class="error" role="alert" id="err-damage-isa">([^<]*)</p>', r.text)
    assert found and said in found.group(1) and "nothing was written" in found.group(1)
    assert 'id="err-damage-bram"' not in r.text
    assert table.head() == head


def test_an_unknown_character_is_refused_with_a_suggestion(table):
    head = table.head()
    with client(table, "gm") as gm:
        r = tap(gm, "damage", {"form": "damage-isa", "character": "iso", "amount": "2"})
    assert r.status_code == 422
    assert "no character" in r.text.lower() and "isa" in r.text
    assert table.head() == head


def test_conditions_are_added_and_ended_with_the_systems_own_events(table):
    with client(table, "gm") as gm:
        page = gm.get("/gm").text
        # d20-world: condition-added, and its GM-only twin, offered in the book's words
        assert "Add a condition" in page and "Add a hidden condition" in page
        assert "A condition (&#34;Conditions&#34;)" in page or 'A condition ("Conditions")' in page
        r = tap(gm, "record", {"form": "add-isa-condition-added", "character": "isa",
                               "event": "condition-added", "f.condition": "shaken",
                               "f.check_penalty": "1", "f.ends_when": "a night's sleep"})  # fmt: skip
        panel = done(gm, r)
        assert "shaken" in panel
        page = gm.get("/gm").text
        end = re.search(
            r'name="form" value="(end-isa-1)".*?name="event" value="([^"]+)"', page, re.S
        )
        assert end and end.group(2) == "condition-ended"
        r = tap(gm, "record", {"form": "end-isa-1", "character": "isa",
                               "event": "condition-ended", "f.condition": "shaken"})  # fmt: skip
        assert r.status_code == 303
    types = [e["type"] for e in log_json(table)]
    assert types[-2:] == ["d20-world.condition_added", "d20-world.condition_ended"]
    assert "shaken" not in table.ok("sheet", "isa")


def test_a_field_the_event_does_not_take_is_refused_in_the_clis_words(table):
    with client(table, "gm") as gm:
        r = tap(gm, "record", {"form": "add-isa-condition-added", "character": "isa",
                               "event": "condition-added", "f.condition": "shaken",
                               "f.check_penalty": "lots"})  # fmt: skip
    assert r.status_code == 422
    assert "--check-penalty takes an integer" in r.text and "&#39;lots&#39;" in r.text
    # the CLI refuses it with the same words (and its pointer to the help)
    out = table("record", "condition-added", "--character", "isa", "--condition", "shaken",
                "--check-penalty", "lots")  # fmt: skip
    assert out.exit_code == 2 and "--check-penalty takes an integer, not 'lots'" in out.output


def test_experience_is_marked_and_said_in_the_books_words(table):
    with client(table, "gm") as gm:
        assert "Mark experience" in gm.get("/gm").text
        r = tap(gm, "record", {"form": "xp-isa-experience-marked", "character": "isa",
                               "event": "experience-marked", "f.skill": "Lockpicking",
                               "f.amount": "2"})  # fmt: skip
        panel = done(gm, r)
    assert "Lockpicking" in panel and "xp" in panel.lower()
    assert log_json(table)[-1]["type"] == "d20-world.experience_marked"


def test_a_roll_request_reaches_the_players_phone(table):
    with client(table, "gm") as gm:
        r = tap(gm, "request", {"form": "request-isa", "character": "isa",
                                "skill": "Lockpicking", "time": "1"})  # fmt: skip
        panel = done(gm, r)
    seq = int(r.headers["location"].split("done=")[1].split("#")[0])
    assert "Lockpicking" in panel
    with client(table, "Dana") as dana:
        part = dana.get("/requests/part").text
    assert f'id="r{seq}"' in part and "Isa Marrow rolls Lockpicking (with time)" in part


def test_undo_needs_a_reason_and_is_a_correction_in_the_log(table):
    with client(table, "gm") as gm:
        r = tap(gm, "damage", {"form": "damage-bram", "character": "bram", "amount": "2"})
        seq = int(r.headers["location"].split("done=")[1].split("#")[0])
        assert f'<input type="hidden" name="seq" value="{seq}">' in gm.get("/gm").text
        landed = gm.get(r.headers["location"]).text  # the undo beside what was recorded
        assert f'name="form" value="undo-done-{seq}"' in landed
        head = table.head()
        r = tap(gm, "undo", {"form": f"undo-{seq}", "seq": str(seq), "reason": " "})
        assert r.status_code == 422 and "Give the reason" in r.text
        assert table.head() == head
        r = tap(gm, "undo", {"form": f"undo-{seq}", "seq": str(seq), "reason": "wrong target"})
        panel = done(gm, r)
    assert "wrong target" in panel
    last = log_json(table)[-1]
    assert last["type"] == "correction.recorded" and last["data"]["target"] == seq
    assert last["data"]["reason"] == "wrong target"
    assert "Wound 1" not in table.ok("sheet", "bram")


def test_undoing_a_roll_request_withdraws_it(table):
    with client(table, "gm") as gm:
        r = tap(
            gm,
            "request",
            {"form": "request-isa", "character": "isa", "skill": "Lockpicking", "time": "1"},
        )
        seq = int(r.headers["location"].split("done=")[1].split("#")[0])
        r = tap(gm, "undo", {"form": f"undo-{seq}", "seq": str(seq), "reason": "not now"})
        assert r.status_code == 303
    assert log_json(table)[-1]["type"] == "roll.withdrawn"


def test_a_tap_sent_twice_is_written_once(table):
    with client(table, "gm") as gm:
        nonce = page_nonce(gm)
        fields = {"form": "damage-isa", "character": "isa", "amount": "1"}
        assert tap(gm, "damage", fields, nonce=nonce).status_code == 303
        head = table.head()
        again = tap(gm, "damage", fields, nonce=nonce)
    assert again.status_code == 409 and "already sent" in again.text
    assert table.head() == head


def test_a_tap_from_another_site_is_refused(table):
    with client(table, "gm") as gm:
        data = {"csrf": csrf(gm), "nonce": page_nonce(gm), "character": "isa", "amount": "2"}
        r = gm.post("/gm/damage", data=data, headers={"origin": "http://evil.example"})
        assert r.status_code == 403
        r = gm.post("/gm/damage", data={**data, "csrf": "x" * 64}, headers=ORIGIN)
        assert r.status_code == 403
    assert "damage_taken" not in table.ok("log", "--json")


def test_a_players_session_gets_nothing_of_the_gm_page(table):
    head = table.head()
    with client(table, "Dana") as dana:
        r = dana.get("/gm")
        assert r.status_code == 404 and "There is nothing here." in r.text
        assert "GM" not in r.text and "damage" not in r.text.lower()
        data = {"csrf": csrf(dana), "nonce": "x", "character": "isa", "amount": "2"}
        for action in ("damage", "record", "request", "undo", "signout", "link"):
            r = dana.post(f"/gm/{action}", data=data, headers=ORIGIN)
            assert r.status_code == 404, action
        assert 'href="/gm"' not in dana.get("/").text  # no hint in the header either
    with client(table) as nobody:
        assert nobody.get("/gm").status_code == 403
    assert table.head() == head
    with client(table, "gm") as gm:
        assert 'href="/gm"' in gm.get("/").text


# --- who is connected -----------------------------------------------------------------------


def test_the_gm_sees_each_device_and_signs_one_out_at_once(table):
    with freeze_time("2026-03-01 19:00:00"):
        dana = client(table)
        dana.headers["user-agent"] = ANDROID
        with dana:
            login(dana, table.link("Dana"))
            with client(table, "gm") as gm:
                page = gm.get("/gm").text
                section = page.split('id="devices"')[1]
                assert "Dana" in section and "Chrome on Android" in section
                assert "signed in 2026-03-01 19:00 UTC" in section
                session = re.search(
                    r"Chrome on Android.*?name=\"session\" value=\"(\d+)\"", section, re.S
                )
                assert session
                r = tap(gm, "signout", {"form": f"signout-{session.group(1)}",
                                        "session": session.group(1)})  # fmt: skip
                assert r.status_code == 303 and r.headers["location"] == "/gm?out=1#devices"
                assert "Chrome on Android" not in gm.get("/gm").text.split('id="devices"')[1]
                again = tap(gm, "signout", {"form": "x", "session": session.group(1)})
                assert again.status_code == 422 and "not signed in any more" in again.text
            r = dana.get("/")  # the phone's next request
            assert r.status_code == 403 and "Open the link your GM gave you" in r.text
            assert dana.get("/events").text.count("event: entry") == 0


def test_a_new_link_is_shown_once_as_a_qr_code_and_stops_the_old_one(table):
    old = table.link("Dana")
    with client(table) as dana, client(table, "gm") as gm:
        login(dana, old)
        page = gm.get("/gm").text
        assert "New link (QR)" in page and "/a/" not in page  # never a link it cannot know
        r = tap(gm, "link", {"form": "link-Dana", "who": "Dana"})
        assert r.status_code == 200
        found = re.search(r'<img class="qr" src="data:image/svg\+xml[^"]+"', r.text)
        assert found and "QR code of Dana's new link" in r.text
        link = re.search(r"http://testserver/a/([\w-]+)", r.text)
        assert link and link.group(1) != old
        assert "/a/" not in gm.get("/gm").text  # shown once
        assert dana.get("/").status_code == 403  # the old link's device is out
        with client(table) as again:
            login(again, link.group(1))
        r = tap(gm, "link", {"form": "link-x", "who": "gm"})
        assert r.status_code == 422  # the GM's own link: not from this page


# --- live: a tap reaches the other open pages -----------------------------------------------


def test_a_gm_tap_wakes_the_players_open_stream_through_the_servers_listener(table, monkeypatch):
    """The hub's own looks are 30 s apart here, so only the server's ``event_appended``
    listener can bring the entry to Dana's open stream."""
    from ledger.web import live

    monkeypatch.setattr(live, "WAKE_SECONDS", 30.0)
    gm_token, dana_token = table.link("gm"), table.link("Dana")
    with live_server(table.db, poll_interval=30) as base:
        with (
            httpx2.Client(base_url=base, timeout=10) as gm,
            httpx2.Client(base_url=base, timeout=10) as dana,
        ):
            gm.get(f"/a/{gm_token}")
            dana.get(f"/a/{dana_token}")
            with dana.stream("GET", "/events") as stream:
                lines = stream.iter_lines()
                assert next(lines) == "retry: 1000"
                nonce = re.search(r'name="nonce" value="([^"]+)"', gm.get("/gm").text)
                assert nonce
                from ledger.web.sessions import csrf_of

                r = gm.post("/gm/damage", data={
                    "csrf": csrf_of(gm.cookies["ledger_session"]), "nonce": nonce.group(1),
                    "form": "damage-isa", "character": "isa", "amount": "2"},
                    headers={"origin": base})  # fmt: skip
                assert r.status_code == 303, r.text
                buffer = ""
                for line in lines:
                    buffer += line + "\n"
                    if line.startswith("data:"):
                        break
    (frame,) = sse_frames(buffer)
    assert frame["event"] == "entry" and "Isa Marrow — takes 2 damage" in frame["data"]


# --- the terminal's QR codes ----------------------------------------------------------------


@pytest.fixture
def no_serving(monkeypatch):
    """``campaign serve`` returns instead of serving (its sockets closed)."""
    import uvicorn

    runs: list = []

    def run(self, sockets=None) -> None:
        runs.append(self.config)
        self.started = True
        for sock in sockets or []:
            sock.close()

    monkeypatch.setattr(uvicorn.Server, "run", run)
    return runs


def test_serve_prints_each_new_link_as_a_qr_code_when_asked(table, no_serving):
    out = table("serve", "--port", "0")  # not a terminal: no QR code
    assert out.exit_code == 0, out.output
    assert "▀" not in out.output and "█" not in out.output
    out = table("serve", "--port", "0", "--new-links", "--qr")
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    for who in ("GM", "Dana", "Olu"):
        at = next(i for i, line in enumerate(lines) if line.startswith(f"{who}: http"))
        assert "█" in lines[at + 1] or "▀" in lines[at + 1]  # the code follows its link
    out = table("serve", "--port", "0", "--no-qr")
    assert "█" not in out.output and "link issued" in out.output


def test_sessions_policy_is_the_servers(table):
    """The page lists devices by the server's own policy (an idle one is not connected)."""
    with freeze_time("2026-03-01 19:00:00"):
        with client(table) as dana:
            login(dana, table.link("Dana"))
    from ledger.web.app import Server

    server = Server(table.db, policy=SessionPolicy(idle_seconds=60))
    with freeze_time("2026-03-01 20:00:00"), client(table, server=server) as gm:
        login(gm, table.link("gm"))
        devices = gm.get("/gm").text.split('id="devices"')[1]
    assert "Dana" in devices and "no device signed in" in devices.split("Dana")[1]


# --- every rule system ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "system_id", sorted(__import__("ledger.rules.plugins", fromlist=["x"]).rule_systems())
)
def test_every_systems_gm_page_offers_its_own_events_and_takes_damage(tmp_path, system_id):
    """The page of each installed system: its characters, its condition and experience
    events labelled as taps (by :func:`ledger.campaign.recording.kinds_of`), damage where
    the system records harm, and every other recordable event folded away."""
    from ledger.campaign.recording import kinds_of
    from ledger.rules.fields import recordable
    from ledger.rules.plugins import rule_systems
    from ledger.web.gm_forms import words

    from .test_web_leak import build

    t, _ = build(str(tmp_path / "ledger.db"), system_id, secrets=False)
    system = rule_systems()[system_id]
    with client(t, "gm") as gm:
        page = gm.get("/gm")
        assert page.status_code == 200
        kinds = kinds_of(system)
        for key in kinds["condition_add"] + kinds["experience"] + kinds["stress"]:
            assert f'<input type="hidden" name="event" value="{key}">' in page.text
            assert words(key) in page.text
        for key in set(recordable(system)) - set(kinds["condition_end"]):  # ends: on chips
            assert f'name="event" value="{key}"' in page.text, key  # a tap, or folded
        assert ('class="tap damage"' in page.text) == system.has_harm
        if system.has_harm:
            cid = re.search(r'<section class="character" id="c-([^"]+)"', page.text).group(1)
            r = tap(gm, "damage", {"form": f"damage-{cid}", "character": cid, "amount": "1"})
            if r.status_code == 422:  # the rules refuse it: their reason beside the form
                said = re.search(rf'id="err-damage-{cid}">([^<]+)<', r.text)
                assert said and "(nothing was written)" in said.group(1), r.text
                assert system_id == "decision-dice"  # no derived value to take harm from
            else:
                assert "Recorded #" in done(gm, r)


# --- the encounter tracker -----------------------------------------------------------------


def test_the_encounter_tracker_shows_the_order_and_moves_it_as_the_cli_does(table, tmp_path):
    """``campaign encounter start`` on the CLI; the GM's page shows the order with the current
    turn marked (aria-current) and the round; Next turn and End write what ``encounter
    next|end`` write; a player's pages show nothing of a hidden foe."""
    table.ok("encounter", "start", "isa=15", "bram=9", "--foe", "Hound=12", "--foe", "Lurker=20",
             "--hidden", "Lurker")  # fmt: skip
    with client(table, "gm") as gm:
        html = gm.get("/gm").text
        tracker = re.search(r'<section id="encounter-tracker".*?</section>', html, re.S)
        assert tracker, html
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", tracker.group(0)))
        assert "round 1" in text
        for name in ("Isa Marrow", "Bram Holloway", "Hound", "Lurker"):
            assert name in text
        current = re.search(r'<li class="current" aria-current="step">(.*?)</li>', tracker.group(0), re.S)
        shown = json.loads(table.ok("--as", "gm", "encounter", "show", "--json"))
        assert current and shown["current"] in current.group(1)
        r = tap(gm, "next", {"form": "encounter"})
        assert r.status_code == 303 and r.headers["location"].endswith("#encounter-tracker")
        after = json.loads(table.ok("--as", "gm", "encounter", "show", "--json"))
        order = [p["name"] for p in shown["order"]]
        assert after["current"] == order[order.index(shown["current"]) + 1]
        r = tap(gm, "end", {"form": "encounter"})
        assert r.status_code == 303
        assert json.loads(table.ok("encounter", "show", "--json")) is None
        assert 'id="encounter-tracker"' not in gm.get("/gm").text
        # none running now: the CLI's refusal, nothing written
        head = table.head()
        r = tap(gm, "next", {"form": "encounter"})
        assert r.status_code == 422 and table.head() == head
    with client(table, "Dana") as dana:
        for path in ("/", "/log", "/sheet/isa"):
            assert "Lurker" not in dana.get(path).text
