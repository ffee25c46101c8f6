"""The accessibility harness of ``campaign serve``, in Debian's Chromium.

Every page of the site, as a player and as the GM, on a phone (390x844) and a laptop
(1280x800), in light and dark mode (``color_scheme``; the test run crosses them, each role
at both sizes and in both schemes, and ``-m slow`` adds the other four looks), must have:

- no *serious* or *critical* violation that axe-core finds (axe-playwright-python, which
  ships axe-core: nothing is downloaded at run time);
- every tap target (``a``, ``button``, ``input``, ``select``, ``textarea``, ``summary``,
  ``[role=button]``) at least 44x44 CSS px, or one of its labels at least 44x44 (a tap
  on the label works the control). Not counted: what is not rendered, hidden, or wholly
  off the page (a skip link until it has the focus). A link inside running text is
  exempt: WCAG 2.5.8's inline exception ("the target is in a sentence or its size is
  otherwise constrained by the line-height of non-target text");
- no horizontal overflow: ``document.documentElement.scrollWidth <= innerWidth``.

"Every page" comes from the app's route table (:func:`pages_of`): each GET route whose
answer, for that viewer, is a whole HTML page (fragments, streams, downloads, JSON and
static files are not pages), its path parameters filled from :data:`PARAMS`; so a page
added to ``ledger/web/app.py`` is checked without touching this file, and a new path
parameter fails :func:`test_every_page_route_has_a_value_for_its_parameters` until it is
given a value here.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.base import AXE_SCRIPT
from axe_playwright_python.sync_playwright import DEFAULT_OPTIONS
from starlette.routing import Route

from .test_web_browser import CHROMIUM
from .webtools import client, d20_table, live_server

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(),
    reason="Debian's chromium is not installed (apt-get install chromium)",
)
VIEWPORTS = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 800}}
SCHEMES = ("light", "dark")
ROLES = {"player": "Dana", "gm": "gm"}
#: A value for each path parameter of the routes: a character Dana plays, a session, an
#: event (the roll :func:`table` records at seq 5). ``None``: the route is not a page to visit
#: (``/a/{token}`` exchanges a link for a session).
PARAMS: dict[str, str | None] = {
    "character": "isa",
    "number": "1",
    "seq": "5",
    "token": None,
}
TARGET = 44  # CSS px (WCAG 2.5.5, AAA; asked of every target)

#: The tap targets on a page that are smaller than TARGET x TARGET px, as "tag#id.class
#: 'text' WxH" lines (see the module's docstring for what counts and what is exempt).
SMALL_TARGETS_JS = """
(size) => {
  const out = [];
  const sel = "a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button]";
  for (const el of document.querySelectorAll(sel)) {
    const style = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) { continue; }  // not rendered
    if (style.visibility === "hidden" || el.closest("[hidden], [inert]")) { continue; }
    if (box.right + scrollX <= 0 || box.bottom + scrollY <= 0) { continue; }  // off the page
    const big = (b) => b.width >= size - 0.5 && b.height >= size - 0.5;
    if (big(box) || Array.from(el.labels || []).some((l) => big(l.getBoundingClientRect()))) {
      continue;
    }
    if (el.tagName === "A" && style.display === "inline") {  // WCAG 2.5.8's inline exception
      let block = el.parentElement;
      while (block && getComputedStyle(block).display.startsWith("inline")) {
        block = block.parentElement;
      }
      const around = (block ? block.textContent : "").replace(el.textContent, "").trim();
      if (around.length > 0) { continue; }
    }
    const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
      (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\\s+/).join(".") : "");
    const text = (el.textContent || el.value || el.getAttribute("aria-label") || "").trim().slice(0, 30);
    out.push(name + " '" + text + "' " + Math.round(box.width) + "x" + Math.round(box.height));
  }
  return out;
}
"""


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """The Warden's Vault with a bit of everything a page shows: engine and physical rolls,
    a GM-only note and roll, a correction, session 1 ended (its recap) and session 2 open."""
    t = d20_table(str(tmp_path_factory.mktemp("a11y") / "ledger.db"))
    assert t.head() == 5  # the physical roll PARAMS["seq"] names
    t.ok("roll", "bram", "Brawl", "--time")
    t.ok("roll", "bram", "Brawl", "--time", "--blind")
    t.ok("note", "the vault key is a forgery", "--blind")
    t.ok("note", "The vault door groans open.")
    t.ok("session", "end")
    t.ok("session", "start")
    t.ok("roll", "isa", "Lockpicking", "--time")
    t.ok("note", "Isa hums a tune.")  # undone: the GM page's recent entries show it struck
    t.ok("undo", "--yes", "--reason", "misheard")
    return t


def routes_of(t) -> list[Route]:
    """The app's GET routes (not mounts: ``/static``, the API's own app)."""
    with client(t) as c:
        app = c.server.app  # type: ignore[attr-defined]
    return [r for r in app.routes if isinstance(r, Route) and "GET" in (r.methods or ())]


def fill(route: Route) -> str | None:
    """The route's path with :data:`PARAMS` filled in (``None``: not a page to visit).

    :raises KeyError: a parameter :data:`PARAMS` has no value for.
    """
    path = route.path
    for name in route.param_convertors:
        value = PARAMS[name]
        if value is None:
            return None
        path = re.sub(r"\{" + name + r"(:[^}]*)?\}", value, path)
    return path


def is_page(base: str, path: str, cookie: str) -> bool:
    """Is ``path`` a whole HTML page for the session ``cookie`` (status 200, ``text/html``, a
    document with ``<html``, not a download)? Only the head is read of anything else (the
    live stream never ends)."""
    import http.client
    from urllib.parse import urlsplit

    host = urlsplit(base)
    conn = http.client.HTTPConnection(host.hostname, host.port, timeout=10)
    try:
        conn.request("GET", path, headers={"cookie": cookie})
        r = conn.getresponse()
        if r.status != 200 or not (r.getheader("content-type") or "").startswith("text/html"):
            return False
        if "attachment" in (r.getheader("content-disposition") or ""):
            return False
        return "<html" in r.read(2000).decode("utf-8", "replace").lower()
    finally:
        conn.close()


def pages_of(t, base: str, cookie: str) -> list[str]:
    """The paths of every whole HTML page the session ``cookie`` is shown at ``base``
    (:func:`is_page`), from the route table."""
    paths = [fill(route) for route in routes_of(t)]
    return [p for p in paths if p is not None and is_page(base, p, cookie)]


def session_cookie(context: Any) -> str:
    return "; ".join(f"{c['name']}={c['value']}" for c in context.cookies())


def test_every_page_route_has_a_value_for_its_parameters(table):
    missing = {name for r in routes_of(table) for name in r.param_convertors if name not in PARAMS}
    assert not missing, f"give {sorted(missing)} a value in PARAMS of {__name__}"


#: the pages a viewer must be found to have (the GM has the GM's page too, a player never)
EXPECTED = {"/", "/log", "/sheet/isa", "/recap/1", "/audit/5", "/roll/isa", "/verify"}
#: what is served but not a page: the live stream, the sheet's styles, an export, the worker
NOT_PAGES = {"/events", "/sheet.css", "/export.ndjson", "/sw.js"}


def test_the_pages_found_are_the_sites_pages_for_each_role():
    assert found_problems("player", sorted(EXPECTED)) == []
    assert found_problems("gm", sorted(EXPECTED | {"/gm"})) == []
    assert found_problems("player", sorted(EXPECTED | {"/gm"})) == ["/gm is the GM's only"]
    assert found_problems("gm", ["/", "/log", "/events"]) == [
        "missing pages: /audit/5, /gm, /recap/1, /roll/isa, /sheet/isa, /verify",
        "not pages: /events",
    ]


def found_problems(role: str, paths: list[str]) -> list[str]:
    """What is wrong with the pages :func:`pages_of` found for ``role``: a page of the site
    missing, the GM's page found for a player, something found that is not a page."""
    out = []
    missing = (EXPECTED | ({"/gm"} if role == "gm" else set())) - set(paths)
    if missing:
        out.append(f"missing pages: {', '.join(sorted(missing))}")
    if role != "gm" and "/gm" in paths:
        out.append("/gm is the GM's only")
    if NOT_PAGES & set(paths):
        out.append(f"not pages: {', '.join(sorted(NOT_PAGES & set(paths)))}")
    return out


#: axe-core's run as axe-playwright-python's ``Axe().run(page)`` makes it (violations only),
#: on a page where :func:`with_axe` put axe-core
AXE_RUN = "axe.run(" + json.dumps(DEFAULT_OPTIONS) + ").then(results => {return results;})"


def with_axe(context: Any) -> None:
    """axe-core (the script axe-playwright-python ships) in every page ``context`` opens
    from now on, put there by the browser as each document starts: sent to the browser once,
    not with each page."""
    context.add_init_script(AXE_SCRIPT)


def problems_of(page: Any, path: str) -> list[str]:
    """What ``page`` (at ``path``) breaks: axe's serious and critical violations, small tap
    targets, a layout wider than the viewport. axe-core is put in the page here unless its
    context has it already (:func:`with_axe`)."""
    if page.evaluate("typeof axe") != "object":
        page.evaluate(AXE_SCRIPT)
    assert page.evaluate("typeof axe") == "object", path
    out = []
    for v in page.evaluate(AXE_RUN)["violations"]:
        if v["impact"] in ("serious", "critical"):
            nodes = "; ".join(" ".join(n["target"]) for n in v["nodes"][:4])
            out.append(f"{path}: axe {v['impact']} {v['id']} ({v['help']}): {nodes}")
    for small in page.evaluate(SMALL_TARGETS_JS, TARGET):
        out.append(f"{path}: tap target under {TARGET}px: {small}")
    width, inner = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    if width > inner:
        out.append(f"{path}: {width}px wide in a {inner}px viewport")
    return out


#: each role in both sizes and both schemes, crossed (the player's phone dark, the GM's phone
#: light): every page is checked in each scheme and at each size; the other four looks run
#: with the slow tests (``uv run pytest -m slow``, which CI runs)
CROSSED = {
    ("player", "phone", "dark"),
    ("player", "laptop", "light"),
    ("gm", "phone", "light"),
    ("gm", "laptop", "dark"),
}
LOOKS = [
    pytest.param(
        role,
        viewport,
        scheme,
        id=f"{role}-{viewport}-{scheme}",
        marks=() if (role, viewport, scheme) in CROSSED else pytest.mark.slow,
    )
    for role in ROLES
    for viewport in VIEWPORTS
    for scheme in SCHEMES
]


@pytest.fixture(scope="module")
def base(table) -> Iterator[str]:
    """``campaign serve`` over :func:`table`, for every look."""
    with live_server(table.db) as url:
        yield url


class Viewers:
    """A page of each role's browser at :func:`base`, signed in once and given axe-core
    (:func:`with_axe`), for every look: a look sets its viewport and colour scheme on it."""

    def __init__(self, browser: Any, table: Any, base: str) -> None:
        self.browser, self.table, self.base = browser, table, base
        self.pages: dict[str, Any] = {}

    def page(self, role: str) -> Any:
        if role not in self.pages:
            who = ROLES[role]
            context = self.browser.new_context()
            # the link's answer sets the session cookie (opening a link in the browser is
            # tests/test_web_browser.py's)
            answer = context.request.get(f"{self.base}/a/{self.table.link(who)}")
            assert answer.status == 200 and f"Welcome, {who}" in answer.text(), answer.text()
            with_axe(context)
            self.pages[role] = context.new_page()
        return self.pages[role]


@pytest.fixture(scope="module")
def viewers(table, base, chromium) -> Iterator[Viewers]:
    crowd = Viewers(chromium, table, base)
    try:
        yield crowd
    finally:
        for page in crowd.pages.values():
            page.context.close()


@pytest.mark.parametrize(("role", "viewport", "scheme"), LOOKS)
def test_every_page_is_accessible(table, base, viewers, role, viewport, scheme):
    page = viewers.page(role)
    page.set_viewport_size(VIEWPORTS[viewport])
    page.emulate_media(color_scheme=scheme)
    problems: list[str] = []
    paths = pages_of(table, base, session_cookie(page.context))
    assert found_problems(role, paths) == [], paths  # every page of the site, and only pages
    for path in paths:
        page.goto(base + path)
        page.wait_for_load_state("load")
        assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (
            scheme == "dark"
        )
        assert page.evaluate("[innerWidth, innerHeight]") == list(VIEWPORTS[viewport].values())
        problems += problems_of(page, path)
    assert not problems, "\n".join(problems)
