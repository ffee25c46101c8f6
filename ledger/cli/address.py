"""Where ``campaign serve`` is reached: the port kept per campaign, the address it listens
on, and the public URL players open (``--url``)."""

from __future__ import annotations

from dataclasses import dataclass

import click

#: The port of a campaign's first ``campaign serve`` without ``--port``.
DEFAULT_PORT = 8000
DEFAULT_URL = f"http://127.0.0.1:{DEFAULT_PORT}"


@dataclass(frozen=True)
class PortChoice:
    """Where ``campaign serve`` listens, from :func:`choose_port`.

    :ivar port: the port to bind (1 to 65535, or 0: any free one).
    :ivar keep: keep the port bound as the campaign's from now on.
    :ivar warning: one line for stderr when the phones' address changes (else ``None``).
    """

    port: int
    keep: bool
    warning: str | None = None


def choose_port(
    asked: int | None, kept: int | None, *, new_port: bool = False, behind_url: bool = False
) -> PortChoice:
    """The port ``campaign serve`` listens on: one port per campaign, kept in the ledger.

    A phone remembers what it checked per web address, port included, so a campaign is
    served at the same port every time unless the GM moves it on purpose:

    - nothing kept yet: ``asked`` (``None``: :data:`DEFAULT_PORT`; 0: any free one), kept
      once bound;
    - ``asked`` ``None`` or 0, or the kept port itself: the kept port;
    - another port: served there this once, with a warning that phones treat it as a new
      place (nothing kept); with ``new_port``, kept from now on (still warned).

    :param asked: ``--port`` (0 to 65535) or ``None`` when not given.
    :param kept: the port kept for the campaign (:meth:`EventStore.serve_port`) or ``None``.
    :param new_port: ``--new-port``: keep the asked port (``--port 0``: a new free one).
    :param behind_url: ``--url`` is given: players open that address, not the port.
    :raises click.UsageError: ``new_port`` without ``asked``.
    """
    if new_port and asked is None:
        raise click.UsageError(
            "--new-port keeps the --port you give: add --port N (--port 0: any free one)"
        )
    if kept is None:
        return PortChoice(DEFAULT_PORT if asked is None else asked, keep=True)
    if asked is None or asked == kept or (asked == 0 and not new_port):
        return PortChoice(kept, keep=False)
    where = "a free port" if asked == 0 else f"port {asked}"
    if behind_url:
        effect = "point the proxy of --url at it"
    else:
        effect = "phones treat the new address as a new place and do not recall what they checked"
    if new_port:
        return PortChoice(
            asked,
            keep=True,
            warning=f"Warning: moving from port {kept} to {where} for good: {effect}.",
        )
    return PortChoice(
        asked,
        keep=False,
        warning=f"Warning: this campaign is kept at port {kept}; serving at {where} this once: "
        f"{effect} (`--port {asked} --new-port` moves it for good).",
    )


def is_loopback(host: str) -> bool:
    """Does ``host`` listen on this machine only (127.0.0.0/8, ::1, localhost)?"""
    import ipaddress

    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def base_url(host: str, port: int) -> str:
    """The address players open: ``http://HOST:PORT`` (for a wildcard host, this machine's
    name on the network)."""
    import socket

    shown = host
    if host in ("0.0.0.0", "::", ""):
        shown = socket.gethostname()
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}"


def check_url(url: str) -> str:
    """A public base URL as players open it: ``http(s)://HOST[:PORT]``, returned without a
    trailing slash.

    :raises ValueError: another scheme, no host, a bad port, or a path, query, fragment or
        user name (the web view is served from the root of its address).
    """
    from urllib.parse import urlsplit

    parts = urlsplit(url.strip())
    try:
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        raise ValueError("its port is not a number from 1 to 65535") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("it must start with http:// or https:// and name a host")
    if parts.path not in ("", "/") or parts.query or parts.fragment or "@" in parts.netloc:
        raise ValueError("the web view is served from the root of its address: leave out the path")
    return f"{parts.scheme}://{parts.netloc}"


def url_option(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Click callback of ``--url``: :func:`check_url`, a usage error (exit 2) if bad."""
    if value is None:
        return None
    try:
        return check_url(value)
    except ValueError as e:
        raise click.BadParameter(
            f"{value!r}: {e} (such as https://table.example.org or http://192.168.1.5:8000)"
        ) from None


def url_host(url: str) -> str:
    """The host of a URL :func:`check_url` or :func:`base_url` made."""
    from urllib.parse import urlsplit

    return urlsplit(url).hostname or ""
