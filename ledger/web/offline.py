"""Installable and readable offline: the web app manifest and the service worker.

- ``/manifest.webmanifest`` (a live session only, like every page: it names the campaign):
  the campaign's title as the app's name, the live log as where it starts, standalone, the
  site's colours, the icons of ``static/icons/`` (192 and 512 px PNGs and a maskable one,
  drawn by ``docs/make_icons.py``).
- ``/sw.js``: ``static/sw.js`` served from the site's root, so its scope is the whole site,
  with :func:`version` and the list of static files written in. It keeps the last log,
  home page, sheets and recaps a device opened (network first, the copy when the table's
  laptop cannot be reached, marked as such), and static files cache-first under a cache
  named after :func:`version`; it never keeps a POST, the live stream, the API, a roll form
  or a GM page (``/gm...``), and it forgets every page on sign-out and sign-in. It holds no
  campaign data itself, so it is served without a session, like ``/static``.
"""

from __future__ import annotations

import functools
import hashlib
import json
from importlib import metadata
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response

from ledger.web.common import HERE, Viewer
from ledger.web.pages import viewed

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

__all__ = ["ICONS", "LIGHT", "DARK", "manifest", "manifest_of", "service_worker", "version"]

#: The browser's colours around the app (the header's ink), light and dark.
LIGHT = {"theme": "#2b2118", "background": "#fbf7ef"}
DARK = {"theme": "#17120d", "background": "#17120d"}
#: The app's icons: ``(file under static/icons, size in px, purpose)``.
ICONS = (
    ("icon-192.png", 192, "any"),
    ("icon-512.png", 512, "any"),
    ("maskable-512.png", 512, "maskable"),
)
STATIC = HERE / "static"


def _package_version() -> str:
    try:
        return metadata.version("campaign-ledger")
    except metadata.PackageNotFoundError:  # pragma: no cover - run from a bare checkout
        return "0"


@functools.cache
def version() -> str:
    """The static files' version: the package's version and the first 8 hex digits of a
    sha256 over the static files (name and bytes), e.g. ``"0.1.0-3fa9c2d1"``: a new release
    or an edited file names a new cache, so a device never runs stale scripts."""
    digest = hashlib.sha256()
    for path in sorted(STATIC.rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(STATIC).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return f"{_package_version()}-{digest.hexdigest()[:8]}"


def assets() -> list[str]:
    """The URLs the worker keeps on install: every static file but the worker itself, and
    ``/sheet.css`` (the sheets' stylesheet)."""
    found = sorted(
        "/static/" + p.relative_to(STATIC).as_posix()
        for p in STATIC.rglob("*")
        if p.is_file() and p.name != "sw.js"
    )
    return [*found, "/sheet.css"]


def manifest_of(title: str) -> dict[str, Any]:
    """The web app manifest of a campaign called ``title`` (a JSON object)."""
    short = title if len(title) <= 12 else title[:11].rstrip() + "…"
    return {
        "id": "/",
        "name": title,
        "short_name": short,
        "description": f"{title}: the live log, sheets and recaps of the table.",
        "start_url": "/log",
        "scope": "/",
        "display": "standalone",
        "orientation": "any",
        "theme_color": LIGHT["theme"],
        "background_color": LIGHT["background"],
        "icons": [
            {"src": f"/static/icons/{name}", "sizes": f"{size}x{size}", "type": "image/png",
             "purpose": purpose}
            for name, size, purpose in ICONS
        ],
    }  # fmt: skip


@viewed
def manifest(campaign: Campaign, viewer: Viewer, request: Request) -> Response:
    """``/manifest.webmanifest``: :func:`manifest_of` the campaign's title, as
    ``application/manifest+json``."""
    body = json.dumps(manifest_of(campaign.created.title), ensure_ascii=False, indent=1)
    return Response(body, media_type="application/manifest+json")


def service_worker(request: Request) -> Response:
    """``/sw.js``: ``static/sw.js`` with :func:`version` and :func:`assets` written in, as
    JavaScript, scope ``/`` (``Service-Worker-Allowed: /``), ``no-cache`` so a device
    looks for a new one on every visit."""
    source = (STATIC / "sw.js").read_text(encoding="utf-8")
    source = source.replace('"__VERSION__"', json.dumps(version()))
    source = source.replace('["__ASSETS__"]', json.dumps(assets()))
    return Response(
        source,
        media_type="text/javascript",
        headers={"service-worker-allowed": "/", "cache-control": "no-cache"},
    )
