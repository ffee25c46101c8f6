"""docs/getting-started.md's evening with two players' phones, in Debian's Chromium.

The GM plays the guide's first session (a physical and an engine roll, an encounter, damage,
a scene's end, a night's sleep) with Mara's and Oskar's phones signed in; Mara's phone
answers a roll request with one tap. Neither phone shows a red box: an encounter or the
clock passing is no failure. Then the GM, at home with the file, changes one die of a roll
of the ended session and rebuilds every hash after it: Mara's phone now shows the red box,
naming the very seq and words of ``campaign verify``, and still lists its own answer.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from ledger.testing.corpus import Verdict, cli_verdict, rehash_from

from .test_web_browser import CHROMIUM, PHONE
from .webtools import PATIENCE, ROOT, Table, free_port, live_server, signed_in_by_answer

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Debian's chromium is not installed (apt-get install chromium)",
)

SHEETS = ROOT / "campaigns" / "grand-casebook" / "characters"


def home(phone, base: str) -> None:
    """Open the phone's home page and wait for its check of its answers."""
    phone.goto(f"{base}/")
    phone.wait_for_selector("#my-answers[data-done='1']", timeout=PATIENCE)


def change_a_die(db: str, seq: int) -> None:
    """What a GM with the file can do: one die of the engine roll at ``seq`` changed, the
    append-only triggers dropped and every hash from it rebuilt."""
    conn = sqlite3.connect(db, isolation_level=None)
    for (name,) in conn.execute("select name from sqlite_master where type = 'trigger'").fetchall():
        conn.execute(f"drop trigger {name}")
    (data,) = conn.execute("select data from events where seq = ?", (seq,)).fetchone()
    payload = json.loads(data)
    sides, face = payload["draws"][0]
    payload["draws"][0] = [sides, face % sides + 1]
    from ledger.chain import encode_canonical

    conn.execute(
        "update events set data = ? where seq = ?", (encode_canonical(payload).decode(), seq)
    )
    conn.execute("delete from snapshots")
    rehash_from(conn, "casebook", seq)
    conn.close()


def test_the_guides_evening_leaves_no_red_box_and_a_changed_die_is_caught(tmp_path, browser):
    t = Table(str(tmp_path / "casebook.db"))
    t.ok("new", "casebook", "--system", "wyrd-engine", "--title", "The Grand Casebook")
    for name in ("julian", "felix", "cornelius"):
        t.ok("character", "add", "--sheet", str(SHEETS / f"{name}.toml"))
    t.ok("npc", "add", "Thug", "--skill", "Fight=2")
    t.ok("session", "start")
    t.ok("roll", "julian", "investigate", "--dr", "good", "--dice", "++-0")
    notice = json.loads(t.ok("roll", "julian", "notice", "--dr", "fair", "--json"))["seq"]
    mara, oskar = t.link("Mara", "julian"), t.link("Oskar", "felix")
    port = free_port()
    with live_server(t.db, port=port) as base:
        context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        phone, errors = signed_in_by_answer(context, base, mara)
        other = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        second, _ = signed_in_by_answer(other, base, oskar)
        phone.wait_for_selector("#requests[data-ready='1']", state="attached", timeout=PATIENCE)
        asked = json.loads(t.ok("request", "julian", "notice", "--dr", "fair", "--json"))["seq"]
        phone.wait_for_selector(f"#r{asked} button.roll-now", state="visible", timeout=PATIENCE)
        phone.tap(f"#r{asked} button.roll-now")
        phone.wait_for_selector(f"#r{asked} .answer-status.ok", timeout=PATIENCE)
        # the rest of the guide's evening: an encounter and a night's sleep
        t.ok("encounter", "start", "julian", "felix", "thug", "--dice", "julian=+--0")
        t.ok("encounter", "next")
        t.ok("damage", "felix", "2")
        t.ok("encounter", "end")
        t.ok("scene", "end")
        t.ok("time", "pass", "a night's sleep")
        t.ok("session", "end")
        assert cli_verdict(file=_export(t, tmp_path)).ok
        for p in (phone, second):
            home(p, base)
            assert p.locator("#answer-flags").is_hidden(), p.inner_text("#answer-flags")
        mine = phone.inner_text("#my-answers")
        assert f"Request #{asked}" in mine and "its dice verify (ledger-roll-v2)" in mine
        context_errors = list(errors)
    change_a_die(t.db, notice)  # the GM did not like Julian's Notice
    verdict = cli_verdict(ledger=_ledger(t))
    assert verdict == cli_verdict(file=_export(t, tmp_path)) and not verdict.ok
    assert verdict.bad_seq == notice
    with live_server(t.db, port=port) as base:  # the same address: the phone's own records
        home(phone, base)
        flags = phone.locator("#answer-flags")
        assert flags.is_visible()
        flag = phone.locator("#answer-flags li.flag").first
        assert flag.get_attribute("data-seq") == str(notice)
        # the same first bad seq as `campaign verify`, in the browser's words for what it
        # checks (the revealed seed gives another die)
        assert f"verification failed at seq {notice}: engine roll of session 1" in flag.inner_text()
        mine = phone.inner_text("#my-answers")  # its own answers are still listed
        assert f"Request #{asked}" in mine and "used exactly your phone's randomness" in mine
        context.close()
        other.close()
    assert not [e for e in context_errors if "Content Security Policy" in e], context_errors


def _export(t: Table, tmp_path: Path) -> Path:
    path = tmp_path / "players.ndjson"
    path.write_text(t.ok("export"))
    return path


def _ledger(t: Table):
    from ledger.testing.corpus import Ledger

    return Ledger("casebook", Path(t.db), "casebook")


def test_the_verdicts_compare_as_values():
    assert Verdict.of(False, 3, "x") == Verdict(False, 3, "verification failed at seq 3: x")
