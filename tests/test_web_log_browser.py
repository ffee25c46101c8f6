"""The live log on a phone, in Debian's Chromium at 390×844: it opens at the newest
entry, follows the game as rolls land from another connection (a toast, a vibration), and
when the player has scrolled up to read it shows a "new entries" pill instead of jumping.
The header stays on one line; the theme follows the phone or the player's choice, set
before the page is drawn. ``LEDGER_SCREENSHOTS=1`` writes the screenshots into docs/img/.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .test_web_browser import CHROMIUM, PHONE, signed_in_by_cookie
from .webtools import PATIENCE, d20_table, free_port, live_server

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed (apt-get install chromium)"
)

#: navigator.vibrate recorded instead of felt
BUZZ = "window.buzzed = []; navigator.vibrate = function (p) { window.buzzed.push(p); return true; };"
#: the theme on <html> when <body> first appears: set before anything is drawn
FIRST_THEME = """
new MutationObserver(function (changes, watcher) {
  if (document.body) { window.firstTheme = document.documentElement.dataset.theme || "auto"; watcher.disconnect(); }
}).observe(document, {childList: true, subtree: true});
"""
IN_VIEW = """s => { const r = document.querySelector(s).getBoundingClientRect();
  const top = document.querySelector('.top').getBoundingClientRect().bottom;
  return r.top >= top - 1 && r.bottom <= window.innerHeight + 1; }"""


@pytest.fixture
def table(tmp_path):
    """The d20 table with a dozen rolls more, so the log is longer than a phone's screen."""
    t = d20_table(str(tmp_path / "ledger.db"))
    for face in range(3, 15):
        t.ok("roll", "bram" if face % 2 else "isa", "Brawl" if face % 2 else "Lockpicking",
             "--time", "--dice", str(face))  # fmt: skip
    return t


@pytest.fixture(scope="module")
def phones(chromium):
    """Two phones' browser contexts for this file's tests, a touch phone's (``"touch"``,
    mobile, with touch) and a plain one at a phone's size (``"plain"``): each test serves
    its table at a port of its own (another origin: no storage of an earlier test is met)
    and opens pages of its own, with its own init scripts and colour scheme."""
    contexts = {
        "touch": chromium.new_context(viewport=PHONE, is_mobile=True, has_touch=True),
        "plain": chromium.new_context(viewport=PHONE, device_scale_factor=1),
    }
    yield contexts
    for context in contexts.values():
        context.close()


@pytest.fixture
def phone(phones):
    """:func:`phones` for one test: cookies cleared first, its pages closed after it."""
    for context in phones.values():
        context.clear_cookies()
    yield phones
    for context in phones.values():
        for page in context.pages:
            page.close()

#: scroll to the top, answering once the page's own scroll listener has run (a listener
#: added after it, of the same event; at the top already, there is nothing to wait for)
SCROLL_TO_TOP = """() => new Promise((ok) => {
  if (window.scrollY === 0) { ok(true); return; }
  window.addEventListener("scroll", () => ok(true), {once: true, passive: true});
  window.scrollTo(0, 0);
})"""


def in_view(page, selector: str) -> bool:
    return bool(page.evaluate(f"({IN_VIEW})({selector!r})"))


def wait_until(page, expression: str, timeout: float = 10.0) -> None:
    """Poll ``expression`` in the page until it is true (``wait_for_function`` compiles its
    predicate with ``eval``, which the pages' CSP refuses)."""
    import time

    end = time.monotonic() + timeout
    while not page.evaluate(expression):
        assert time.monotonic() < end, f"still false after {timeout} s: {expression}"
        page.wait_for_timeout(25)


def test_the_log_follows_new_rolls_and_offers_a_pill_when_scrolled_away(table, phone):
    token = table.link("Dana")
    with live_server(table.db, poll_interval=0.05) as base:
        page, errors = signed_in_by_cookie(phone["touch"], base, token, init_script=BUZZ)
        page.goto(f"{base}/log")
        wait_until(page, "document.getElementById('status').textContent.startsWith('Live')")
        head = table.head()
        assert in_view(page, f"#e{head}"), "the newest entry is in view on open"
        assert not in_view(page, "#e1")
        page.tap("#newest")  # the player touched the page: the browser lets it vibrate
        # a roll lands from another connection: followed, announced, felt
        table.ok("roll", "isa", "Lockpicking", "--time", "--dice", "18")
        page.wait_for_selector(f"#e{head + 1}")
        wait_until(page, f"document.getElementById('toast').textContent.startsWith('#{head + 1}')")
        toast = page.inner_text("#toast")
        assert "success" in toast and "Isa Marrow — Lockpicking +3, d20 18" in toast
        assert page.get_attribute("#toast", "role") == "status"
        wait_until(page, f"({IN_VIEW})('#e{head + 1}')")
        assert page.evaluate("window.buzzed.length") == 1
        assert page.is_hidden("#new-entries")
        # scrolled up to read: the page stays put and a pill says what landed below
        page.evaluate(SCROLL_TO_TOP)  # returns once the page has seen the scroll
        table.ok("note", "The vault door groans open.")
        table.ok("roll", "bram", "Brawl", "--time", "--dice", "2")
        page.wait_for_selector(f"#e{head + 3}", state="attached")
        wait_until(page, "document.getElementById('new-entries').textContent === '2 new entries ↓'")
        assert page.is_visible("#new-entries")
        assert page.evaluate("window.scrollY") == 0
        assert not in_view(page, f"#e{head + 3}")
        page.click("#new-entries")
        wait_until(page, f"({IN_VIEW})('#e{head + 3}')")
        assert page.is_hidden("#new-entries")
        # an engine roll becomes verifiable on the open page when its session's seed is revealed
        table.ok("roll", "bram", "Brawl", "--time")
        page.wait_for_selector(f"#e{head + 4}[data-seed='session:1']")
        assert page.locator(f"#e{head + 4} .badge.verified").count() == 0
        table.ok("session", "end")
        page.wait_for_selector(f"#e{head + 4} .badge.verified")
        assert page.inner_text(f"#e{head + 4} .badge.verified") == "✓ verifiable"
        assert not errors, errors  # no CSP violation, no script error


def test_a_filtered_live_log_takes_only_the_matching_new_entries(table, phone):
    token = table.link("Dana")
    with live_server(table.db, poll_interval=0.05) as base:
        page, errors = signed_in_by_cookie(phone["touch"], base, token)
        page.goto(f"{base}/log?character=isa&rolls=1")
        wait_until(page, "document.getElementById('status').textContent.startsWith('Live')")
        head = table.head()
        table.ok("roll", "bram", "Brawl", "--time", "--dice", "9")  # not Isa's
        table.ok("note", "Isa hums.", "--blind")  # GM-only: never in a filtered view
        table.ok("roll", "isa", "Lockpicking", "--time", "--dice", "7")
        page.wait_for_selector(f"#e{head + 3}")
        assert page.locator(f"#e{head + 1}").count() == 0
        assert page.locator(f"#e{head + 2}").count() == 0
        assert not errors, errors


def test_an_open_log_follows_the_game_again_once_the_server_is_back(table, phone):
    """The GM stops the server (Ctrl-C ends every open stream at once) and starts it again at
    the same address: the open page says it is reconnecting, keeps asking, and takes what
    was rolled meanwhile and what is rolled next, with no reload."""
    token = table.link("Dana")
    port = free_port()
    head = table.head()
    with live_server(table.db, port=port, poll_interval=0.05) as base:
        page, _ = signed_in_by_cookie(phone["plain"], base, token)
        page.goto(f"{base}/log")
        wait_until(page, "document.getElementById('status').textContent.startsWith('Live')")
        shown = page.locator("#log > li").count()
    wait_until(page, "document.getElementById('status').textContent === 'Reconnecting…'")
    table.ok("roll", "isa", "Lockpicking", "--time", "--dice", "11")  # while the server is away
    with live_server(table.db, port=port, poll_interval=0.05):
        page.wait_for_selector(f"#e{head + 1}", timeout=PATIENCE)
        wait_until(page, "document.getElementById('status').textContent.startsWith('Live')")
        table.ok("roll", "bram", "Brawl", "--time", "--dice", "4")
        page.wait_for_selector(f"#e{head + 2}")
    assert page.locator("#log > li").count() == shown + 2  # each once


def test_header_on_one_line_and_the_theme_set_before_the_page_is_drawn(table, phone, tmp_path):
    token = table.link("Dana")
    table.ok("session", "end")  # Bram's engine rolls: none here, but the seed is revealed
    with live_server(table.db) as base:
        page, errors = signed_in_by_cookie(
            phone["touch"], base, token, init_script=FIRST_THEME, color_scheme="light"
        )
        page.goto(f"{base}/log")
        bar = page.locator(".bar").bounding_box()
        assert bar is not None and bar["height"] <= 56, bar
        lines = page.evaluate("""() => { const r = document.createRange();
            r.selectNodeContents(document.querySelector('.who')); return r.getClientRects().length; }""")
        assert lines == 1, "the player's name is on one line, not broken"
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        small = page.evaluate("""() => [...document.querySelectorAll(
              '.bar a, .bar summary, .filters a, .filters summary, .log .seq, #new-entries')]
            .map(e => [e.textContent.trim(), e.getBoundingClientRect().height])
            .filter(([, h]) => h > 0 && h < 44)""")
        assert small == [], f"tap targets under 44 px: {small}"
        light = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert page.evaluate("window.firstTheme") == "auto"
        page.click(".menu summary")
        page.click("#theme-toggle")  # as the phone → dark
        assert page.evaluate("document.documentElement.dataset.theme") == "dark"
        dark = page.evaluate("getComputedStyle(document.body).backgroundColor")
        assert dark != light
        assert "dark" in page.inner_text("#theme-toggle")
        page.goto(f"{base}/audit/5")
        assert page.evaluate("window.firstTheme") == "dark", "dark before the page is drawn"
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") == dark
        assert not errors, errors
        # another phone, dark, that never chose: dark as the phone is
        other, _ = signed_in_by_cookie(phone["plain"], base, token, color_scheme="dark")
        other.goto(f"{base}/log")
        assert other.evaluate("getComputedStyle(document.body).backgroundColor") == dark


def test_phone_screenshots_of_the_log_and_the_audit_light_and_dark(table, phone, shots):
    """docs/img/phone-log-light.png, phone-log-dark.png, phone-audit.png (with
    ``LEDGER_SCREENSHOTS=1``; else into a temporary folder): the log after a roll, with its
    banner, and the audit of an engine roll whose seed is revealed."""
    table.ok("roll", "bram", "Brawl", "--time")
    engine = table.head()
    table.ok("note", "The GM's secret", "--blind")
    table.ok("session", "end")
    table.ok("session", "start")
    table.ok("roll", "isa", "Lockpicking", "--time", "--dice", "14")
    out = shots
    token = table.link("Dana")
    with live_server(table.db) as base:
        for scheme in ("light", "dark"):
            page, errors = signed_in_by_cookie(phone["plain"], base, token, color_scheme=scheme)
            page.goto(f"{base}/log?recorded={table.head()}#e{table.head()}")
            wait_until(page, "document.getElementById('status').textContent.startsWith('Live')")
            page.screenshot(path=str(out / f"phone-log-{scheme}.png"))
            if scheme == "light":
                page.goto(f"{base}/audit/{engine}")
                page.screenshot(path=str(out / "phone-audit.png"))
            assert not errors, errors
            page.close()
    for name in ("phone-log-light", "phone-log-dark", "phone-audit"):
        assert (out / f"{name}.png").stat().st_size > 5000
