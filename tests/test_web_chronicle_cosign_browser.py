"""The phone's chronicle script (static/chronicle-cosign.js) in Debian's Chromium: an
entry whose signature does not verify with the pinned campaign key is shown as such and
never cosigned; the one that verifies is cosigned with the phone's own key, and the table
keeps it (Python checks what WebCrypto signed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .test_web_browser import CHROMIUM, PHONE, signed_in
from .webtools import Table, live_server

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Debian's chromium is not installed (apt-get install chromium)",
)

SHEETS = "campaigns/the-world/characters/"


def test_an_entry_that_does_not_verify_is_never_offered(tmp_path, browser):
    t = Table(str(tmp_path / "mara.db"))
    t.ok("new", "mara", "--system", "d20-world")
    t.ok("character", "add", "--sheet", SHEETS + "isa.toml")
    t.ok("session", "start")
    t.ok("roll", "isa", "Forage", "--time", "--dice", "15")
    t.ok("session", "end")
    token = t.link("Dana", "isa")
    with live_server(t.db) as base:
        context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        page, errors = signed_in(context, base, token)

        def tampered(route):  # the server now shows an entry the table never signed
            got = json.loads(route.fetch().text())
            got["entries"][0]["note"] = got["entries"][0]["note"].replace(
                '"Isa Marrow"', '"Isa Marow"'
            )
            route.fulfill(json=got)

        page.route("**/chronicle", tampered)
        page.goto(f"{base}/")
        bad = page.locator("#chronicle-cosign li[data-character='isa'][data-state='bad-entry']")
        bad.wait_for(state="visible", timeout=30000)
        assert "does not verify with this table's key" in bad.inner_text()
        assert bad.locator("button").count() == 0
        page.unroute("**/chronicle")
        head = t.head()
        page.goto(f"{base}/")
        good = page.locator("#chronicle-cosign li[data-character='isa'][data-state='offered']")
        good.wait_for(state="visible", timeout=30000)
        assert "Isa Marrow joins the party" in good.inner_text()  # what changed, as signed
        good.locator("button.cosign-entry").tap()
        page.wait_for_selector("#chronicle-cosign li[data-state='cosigned']", timeout=30000)
        assert t.head() == head + 1
        page.goto(f"{base}/")  # cosigned: no longer offered
        page.wait_for_selector("#chronicle-cosign[data-ready='1']", state="attached", timeout=30000)
        assert page.locator("#chronicle-cosign li").count() == 0
        context.close()
    assert "OK:" in t.ok("verify")
    assert not [e for e in errors if "Content Security Policy" in e], errors
