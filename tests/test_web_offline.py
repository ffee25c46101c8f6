"""Installable and readable offline: the manifest, the icons, the service worker.

- ``/manifest.webmanifest`` names the campaign, starts at the live log, is standalone, has
  192, 512 and maskable icons that exist at those sizes; it needs a session like any page;
- ``/sw.js`` is served from the site's root with the package's version in its cache name;
  the CSP stays strict and allows only the site's own worker and manifest;
- in Debian's Chromium: the manifest is read (with the session) and nothing but the test's
  incognito context stands in the way of installing; a player's log, opened once, is still there with the server
  stopped, marked "Offline — showing the log as of HH:MM; nothing you enter now is
  recorded", and a roll sent then says "Not recorded" (nothing is written); signing out
  forgets the pages; a GM's kept log is forgotten when a player signs in on the same device.
"""

from __future__ import annotations

import io
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from PIL import Image

from ledger.web import offline
from ledger.web.app import CSP

from .test_web_accessibility import problems_of
from .test_web_browser import CHROMIUM, PHONE, signed_in
from .webtools import client, d20_table, live_server

ROOT = Path(__file__).resolve().parent.parent
needs_chromium = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Debian's chromium is not installed (apt-get install chromium)",
)
NOTE = re.compile(
    r"^Offline — showing the log as of (\d\d:\d\d); nothing you enter now is recorded\."
)


@pytest.fixture
def table(tmp_path):
    return d20_table(str(tmp_path / "ledger.db"))


def test_the_manifest_names_the_campaign_and_starts_at_the_live_log(table):
    with client(table, "Dana") as c:
        r = c.get("/manifest.webmanifest")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/manifest+json"
    m = json.loads(r.text)
    assert (m["name"], m["start_url"], m["display"], m["scope"]) == (
        "vault",
        "/log",
        "standalone",
        "/",
    )
    assert m["theme_color"] == offline.LIGHT["theme"]
    assert {(i["sizes"], i["purpose"]) for i in m["icons"]} == {
        ("192x192", "any"),
        ("512x512", "any"),
        ("512x512", "maskable"),
    }


def test_the_manifest_needs_a_session_like_every_page(table):
    with client(table) as c:
        r = c.get("/manifest.webmanifest")
    assert r.status_code == 403
    assert "vault" not in r.text


def test_every_icon_the_manifest_names_is_a_png_of_its_size_served_without_a_session(table):
    with client(table) as c:
        for name, size, purpose in offline.ICONS:
            r = c.get(f"/static/icons/{name}")
            assert r.status_code == 200 and r.headers["content-type"] == "image/png"
            with Image.open(io.BytesIO(r.content)) as image:
                assert image.format == "PNG" and image.size == (size, size)
                if purpose == "maskable":  # opaque to the edges: a mask cuts nothing away
                    assert image.convert("RGBA").getpixel((0, 0))[3] == 255


def test_long_titles_get_a_short_name_for_the_home_screen():
    m = offline.manifest_of("The Warden's Vault of Endless Night")
    assert m["name"] == "The Warden's Vault of Endless Night"
    assert m["short_name"] == "The Warden'…" and len(m["short_name"]) <= 12


def test_the_worker_is_served_from_the_root_with_the_version_in_its_cache_name(table):
    with client(table) as c:
        r = c.get("/sw.js")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/javascript")
    assert r.headers["service-worker-allowed"] == "/"
    version = offline.version()
    assert version.startswith("0.1.0-") and re.fullmatch(r"[0-9a-f]{8}", version[-8:])
    assert f'const VERSION = "{version}";' in r.text
    assets = json.loads(re.search(r"const ASSETS = (\[.*\]);", r.text).group(1))
    assert "/static/site.css" in assets and "/static/icons/maskable-512.png" in assets
    assert "/sheet.css" in assets and "/static/sw.js" not in assets
    assert "__VERSION__" not in r.text and "__ASSETS__" not in r.text


def test_the_csp_stays_strict_and_allows_only_the_sites_own_worker_and_manifest(table):
    with client(table, "Dana") as c:
        r = c.get("/log")
    csp = r.headers["content-security-policy"]
    assert csp == CSP
    assert "worker-src 'self'" in csp and "manifest-src 'self'" in csp
    assert "unsafe" not in csp and "default-src 'none'" in csp
    assert (
        '<link rel="manifest" href="/manifest.webmanifest" crossorigin="use-credentials">' in r.text
    )
    assert '<script src="/static/offline.js" defer></script>' in r.text


# --- in Chromium -------------------------------------------------------------------------------


def kept(page, path: str) -> bool:
    """Does the worker keep a copy of ``path`` (in this browser context's caches)?"""
    return bool(
        page.evaluate(
            "async (p) => { const c = await caches.open('ledger-pages');"
            " return !!(await c.match(new URL(p, location.href).href)); }",
            path,
        )
    )


def kept_paths(page) -> list[str]:
    """Every path the worker keeps, in any cache, but the static files (``/static/...``,
    ``/sheet.css``)."""
    every = page.evaluate(
        "async () => { const out = []; for (const n of await caches.keys()) {"
        " for (const r of await (await caches.open(n)).keys()) { out.push(new URL(r.url).pathname); } }"
        " return out; }"
    )
    return [p for p in every if not p.startswith("/static/") and p != "/sheet.css"]


def controlled(page, reload: bool = True) -> None:
    """Wait until the worker is activated and controls ``page``.

    A document created while the worker was activating can be missed by its
    ``clients.claim()`` (the navigation began before the worker was active, the document came
    after the claim): such a page stays uncontrolled until the next visit, as on a phone. With
    ``reload``, that next visit is made; without it, the page must have been claimed."""
    page.evaluate(
        "navigator.serviceWorker.ready.then((r) => r.active.state === 'activated' ? true :"
        " new Promise((ok) => r.active.addEventListener('statechange', () => {"
        " if (r.active.state === 'activated') { ok(true); } })))"
    )
    if reload and not page.evaluate("!!navigator.serviceWorker.controller"):
        page.reload()
    for _ in range(1200):  # ≤ 60 s (wait_for_function evaluates a string: the CSP forbids it)
        if page.evaluate("!!navigator.serviceWorker.controller"):
            return
        page.wait_for_timeout(50)
    raise AssertionError("the service worker does not control the page")


def wait_kept(page, path: str) -> None:
    for _ in range(300):  # 15 s: the worker fetches the page again, on a machine maybe busy
        if kept(page, path):
            return
        page.wait_for_timeout(50)
    raise AssertionError(f"the worker did not keep {path}")


@needs_chromium
def test_offline_the_log_is_still_there_marked_and_a_roll_is_not_recorded(table, browser, shots):
    token = table.link("Dana")
    context = browser.new_context(
        viewport=PHONE, is_mobile=True, has_touch=True, timezone_id="UTC", device_scale_factor=1
    )
    with live_server(table.db) as base:
        page, errors = signed_in(context, base, token)
        page.goto(f"{base}/log")
        controlled(page)
        wait_kept(page, "/log")  # the first visit, kept at offline.js's request
        assert page.locator("#offline-note").count() == 0
        online_log = page.inner_text("#log")
        page.goto(f"{base}/roll/isa")
        assert not kept(page, "/roll/isa")  # a form with a one-time nonce is never kept
        head = table.head()
    # the server is stopped: the table's laptop cannot be reached
    # the journey-7 roll (Lockpicking, d20 14), sent as the form sends it
    if page.locator("input#skill").count():
        page.fill("#skill", "Lockpicking")
    page.fill("#dice", "14")
    with page.expect_navigation():
        page.eval_on_selector("form[action^='/roll/']", "f => f.submit()")
    assert "Not recorded: the table's laptop cannot be reached" in page.inner_text("body")
    assert "Recorded #" not in page.inner_text("body")
    assert not problems_of(page, "the Not recorded page")
    page.screenshot(path=str(shots / "offline-not-recorded.png"))
    assert table.head() == head  # nothing was written

    page.goto(f"{base}/log")
    note = page.locator("#offline-note")
    assert note.is_visible()
    assert page.title().startswith("Offline · ")
    text = note.inner_text()
    shown = NOTE.match(text)
    assert shown, text
    at = int(note.get_attribute("data-kept-at")) / 1000
    assert shown.group(1) == datetime.fromtimestamp(at, UTC).strftime("%H:%M")
    assert page.inner_text("#log") == online_log  # the last log, as it was
    assert "Lockpicking" in online_log
    assert not problems_of(page, "/log, offline")  # axe, 44 px targets, no overflow
    page.screenshot(path=str(shots / "offline-log.png"))

    page.goto(f"{base}/recap/1")  # never opened on this device: not kept, said so
    assert "was not kept on this device" in page.inner_text("body")
    assert not [e for e in errors if "Content Security Policy" in e], errors
    context.close()


@needs_chromium
def test_a_page_open_when_the_worker_first_activates_is_kept_without_being_asked(table, browser):
    """The first visit's page is fetched before any worker could see it. offline.js asks the
    worker to keep it, but that ask can come too early or not at all (a page claimed between
    its fetch and its script); the worker keeps the pages open when it activates, too."""
    token = table.link("Dana")
    context = browser.new_context(viewport=PHONE)
    context.route("**/static/offline.js", lambda route: route.abort())  # no ask is ever sent
    with live_server(table.db) as base:
        page, _ = signed_in(context, base, token)
        page.goto(f"{base}/log")
        assert not page.evaluate("!!navigator.serviceWorker.controller")
        page.evaluate("navigator.serviceWorker.register('/sw.js', {scope: '/'}).then(() => true)")
        controlled(page, reload=False)  # the open page is claimed, never fetched again
        wait_kept(page, "/log")
    page.reload()  # offline now: the copy kept at activation
    assert page.locator("#offline-note").is_visible()
    context.close()


@needs_chromium
def test_chromium_reads_the_manifest_and_finds_the_site_installable(table, browser):
    token = table.link("Dana")
    context = browser.new_context(viewport=PHONE)
    with live_server(table.db) as base:
        page, errors = signed_in(context, base, token)
        page.goto(f"{base}/log")
        controlled(page)
        cdp = context.new_cdp_session(page)
        found = cdp.send("Page.getAppManifest")
        assert found["url"] == f"{base}/manifest.webmanifest" and found["errors"] == []
        assert json.loads(found["data"])["name"] == "vault"  # fetched with the session
        assert found["manifest"]["startUrl"] == f"{base}/log"
        assert found["manifest"]["display"] == "kStandalone"
        blockers = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
        # a Playwright context is an incognito one: nothing else stands in the way
        assert {b["errorId"] for b in blockers} <= {"in-incognito"}, blockers
        assert not errors, errors
    context.close()


@needs_chromium
def test_signing_out_forgets_every_kept_page(table, browser):
    token = table.link("Dana")
    context = browser.new_context(viewport=PHONE)
    with live_server(table.db) as base:
        page, _ = signed_in(context, base, token)
        page.goto(f"{base}/log")
        controlled(page)
        # the first page is kept when offline.js asks the ready worker to: wait for it
        # before leaving the page (leaving at once can come before the ask is sent)
        wait_kept(page, "/log")
        page.goto(f"{base}/sheet/isa")
        wait_kept(page, "/sheet/isa")
        with page.expect_navigation():  # the form as its button sends it (in a menu or not)
            page.eval_on_selector("form.logout", "f => f.requestSubmit()")
        assert "You are signed out on this device" in page.inner_text("body")
        assert not kept(page, "/log") and not kept(page, "/sheet/isa")
    page.goto(f"{base}/sheet/isa")
    assert "was not kept on this device" in page.inner_text("body")
    assert "Isa" not in page.inner_text("body")
    context.close()


@needs_chromium
def test_a_gms_kept_log_is_forgotten_when_a_player_signs_in_on_the_same_device(table, browser):
    table.ok("note", "the vault key is a forgery", "--blind")
    gm_token, dana_token = table.link("gm"), table.link("Dana")
    context = browser.new_context(viewport=PHONE)
    with live_server(table.db) as base:
        page, _ = signed_in(context, base, gm_token)
        page.goto(f"{base}/log")
        controlled(page)
        wait_kept(page, "/log")
        assert "the vault key is a forgery" in page.inner_text("#log")
        for path in ("/gm", "/roll/isa", "/audit/5", "/verify", "/sheet/isa"):
            page.goto(base + path)  # the GM page where it is served, and the others
        wait_kept(page, "/sheet/isa")
        assert {"/log", "/sheet/isa"} <= set(kept_paths(page)) <= {"/", "/log", "/sheet/isa"}
        page.goto(f"{base}/a/{dana_token}")  # the same device, now the player's
        page.wait_for_url(f"{base}/")
        assert not kept(page, "/log")
        page.goto(f"{base}/log")
        wait_kept(page, "/log")
    page.goto(f"{base}/log")  # offline: the player's own copy, no GM-only fact in it
    assert page.locator("#offline-note").is_visible()
    assert "forgery" not in page.content()
    context.close()
