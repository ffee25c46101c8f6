"""The GM's page in Debian's Chromium at a phone's size: damage applied with a tap is
recorded and said on the page in the book's words, under the page's CSP, and a player's
open log shows it; no layout wider than the phone, every button at least 44 px tall.
The page's screenshots are journey 7's (tests/test_web_journeys.py, LEDGER_SCREENSHOTS=1)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_web_browser import CHROMIUM, PHONE, signed_in_by_cookie
from .webtools import PATIENCE, d20_table, live_server, wait_live

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Debian's chromium is not installed (apt-get install chromium)",
)


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "ledger.db"))


def test_the_gm_applies_damage_on_a_phone_and_sees_it_on_the_page(table, browser):
    gm_token, dana_token = table.link("gm"), table.link("Dana")
    with live_server(table.db) as base:
        context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        gm, errors = signed_in_by_cookie(context, base, gm_token)
        dana, _ = signed_in_by_cookie(browser.new_context(viewport=PHONE), base, dana_token)
        dana.goto(f"{base}/log")
        wait_live(dana)
        gm.goto(f"{base}/gm")
        assert gm.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        for button in gm.locator("section.character button:visible").all():
            box = button.bounding_box()
            assert box is not None and box["height"] >= 44, button.inner_text()
        gm.fill("#amount-isa", "3")
        gm.locator("#c-isa button.apply").tap()
        gm.wait_for_url("**/gm?done=*")
        panel = gm.inner_text("#done")
        assert "Isa Marrow — takes 3 damage" in panel and "Wound 1: 3 damage" in panel
        seq = int(gm.url.split("done=")[1].split("#")[0])
        dana.wait_for_selector(f"#e{seq}", timeout=PATIENCE)  # the player's open log has it
        assert "takes 3 damage" in dana.inner_text(f"#e{seq}")
        assert gm.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        assert not errors, errors  # no CSP violation, no script error
        context.close()
