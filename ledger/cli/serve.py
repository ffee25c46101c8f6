"""The web view's commands: ``serve`` and ``access add|list|revoke``."""

from __future__ import annotations

from typing import Any

import click

from ledger.cli.address import (
    DEFAULT_PORT,
    DEFAULT_URL,
    base_url,
    choose_port,
    is_loopback,
    url_host,
    url_option,
)
from ledger.cli.base import App, cli, echo_json, json_option, now, pass_app


def link_line(access: Any, token: str, base: str) -> str:
    """One printed link: ``GM: URL`` or ``Dana: URL``."""
    who = "GM" if access.is_gm else access.who
    return f"{who}: {base.rstrip('/')}/a/{token}"


def qr_text(link: str) -> str:
    """``link`` as a QR code drawn with block characters for a terminal (segno's compact
    terminal output: two rows of modules per line, a quiet zone of 2 modules)."""
    import io

    import segno

    out = io.StringIO()
    segno.make(link, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue().rstrip("\n")


def _origins(values: tuple[str, ...]) -> tuple[str, ...]:
    """``--api-origin``'s values as browsers send them (:func:`ledger.web.cors.check_origin`),
    each once; a bad one is a usage error."""
    from ledger.web.cors import check_origin

    out: list[str] = []
    for value in values:
        try:
            origin = check_origin(value)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="'--api-origin'") from None
        if origin not in out:
            out.append(origin)
    return tuple(out)


#: ``campaign serve --max-connections`` unless given: plenty for a table of phones (a page
#: and its live log take two or three connections each).
MAX_CONNECTIONS = 256


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=None,
    help="TCP port (0: any free one) [default: the port this campaign was first served at, "
    f"else {DEFAULT_PORT}]. Another port than the kept one is used this once, with a warning.",
)
@click.option(
    "--new-port",
    is_flag=True,
    help="Keep --port as the campaign's port from now on (phones treat the new address as a "
    "new place).",
)
@click.option(
    "--url",
    callback=url_option,
    help="The address players open, when it is not http://HOST:PORT (a reverse proxy for "
    "TLS, the laptop's name on the network): links are printed with it, and requests "
    "naming its host are served.",
)
@click.option(
    "--max-connections",
    type=click.IntRange(8, 100_000),
    default=MAX_CONNECTIONS,
    show_default=True,
    help="Connections open at once (lowered to fit `ulimit -n`). Past it, the connections "
    "that have not sent a whole request are closed first, the longest waiting first.",
)
@click.option(
    "--new-links",
    is_flag=True,
    help="Issue fresh links for the GM and every player (the old ones stop working).",
)
@click.option(
    "--api-origin",
    "api_origins",
    multiple=True,
    callback=lambda ctx, param, value: _origins(value),
    metavar="ORIGIN",
    help="Let pages of ORIGIN (scheme://host[:port], e.g. a Foundry server or "
    "https://www.owlbear.rodeo) call the JSON API /api/v1 from the browser (CORS, bearer "
    "tokens only); repeat for several. None by default.",
)
@click.option(
    "--qr/--no-qr",
    "qr",
    default=None,
    help="Print each newly issued link as a QR code too, for players to scan [default: on "
    "when the output is a terminal].",
)
@pass_app
def serve(
    app: App,
    host: str,
    port: int | None,
    new_port: bool,
    url: str | None,
    max_connections: int,
    new_links: bool,
    api_origins: tuple[str, ...],
    qr: bool | None,
) -> None:
    """Serve the campaign as a live web view for the table (Ctrl-C stops it).

    Listens first, then prints a link for the GM and one per player named on a character
    sheet (`player = "Dana"`) who has none yet; a link once printed is not shown again (only
    its hash is kept): `campaign access add NAME --replace` issues a new one. Players see
    the players' view only and enter physical dice for their own characters. Listens on
    127.0.0.1 unless --host; answers only requests for the addresses it prints (and
    --url's host). The address is kept, so `campaign access add` prints links with it.
    The port is kept too: a phone remembers what it checked per address, so every `serve`
    listens on the campaign's first port (`--port 0` the first time: a free one, kept)
    unless --port names another (this once, warned) or --new-port moves it for good.
    Each new link is also printed as a QR code on a terminal (--no-qr: not; --qr: also
    when the output is not a terminal); the GM's page (/gm) issues a player a new one.
    Delivers the webhooks (`campaign webhook`) while it runs. The JSON API answers
    pages of other origins only for those --api-origin lists (a Foundry module's, an
    Owlbear Rodeo extension's).
    """
    import sys

    from ledger.web import access as accessmod
    from ledger.web import server as webserver
    from ledger.web.app import create_app

    campaign = app.campaign
    store = app.store()
    kept = store.serve_port(campaign.id)
    choice = choose_port(port, kept, new_port=new_port, behind_url=url is not None)
    try:
        sockets = webserver.bind(host, choice.port)
    except webserver.PortInUse as e:
        if kept is not None and choice.port == kept:
            raise click.ClickException(
                f"port {kept} on {host}, where this campaign is kept (phones know it by its "
                "address), is in use (another `campaign serve`?): stop that server, or "
                "`--port N` serves elsewhere this once (phones will treat it as a new place)"
            ) from None
        raise click.ClickException(str(e)) from None
    except webserver.BindError as e:
        raise click.ClickException(str(e)) from None
    try:
        bound = sockets[0].getsockname()[1]
        listening = base_url(host, bound)
        public = url or listening
        store.set_public_url(campaign.id, public, now(), port=bound if choice.keep else None)
        if choice.warning:
            click.echo(choice.warning, err=True)
        live = {a.who.casefold(): a for a in accessmod.live(store, campaign.id)}
        wanted = [accessmod.GM, *accessmod.players_of(campaign, as_gm=True)]
        for who in wanted:
            old = live.get(who.casefold())
            if old is None or new_links:
                access, token = accessmod.grant(store, campaign, who, (), at=now(), replace=True)
                click.echo(link_line(access, token, public))
                if qr if qr is not None else sys.stdout.isatty():
                    click.echo(qr_text(f"{public.rstrip('/')}/a/{token}"))
            else:
                shown = "GM" if old.is_gm else old.who
                click.echo(
                    f"{shown}: link issued {old.created_at[:16].replace('T', ' ')} UTC "
                    f"(a new one: `campaign access add {old.who} --replace`)"
                )
        if not is_loopback(host):
            click.echo(
                f"Warning: listening on {host}, reachable from the network: the links are the "
                "only key, and plain http can be read on the way (docs/serve.md: a reverse "
                "proxy for TLS).",
                err=True,
            )
        limit = webserver.connection_limit(max_connections)
        if limit < max_connections:
            click.echo(
                f"Note: at most {limit} connections at once, to stay within this process's "
                "open-file limit (raise `ulimit -n` for more).",
                err=True,
            )
        also = f" (players open {public})" if url else ""
        if choice.keep:
            click.echo(
                f"Port {bound} is kept for {campaign.id}: the next `campaign serve` listens "
                "here too (phones know the table by its address)."
            )
        if api_origins:
            click.echo(f"The JSON API answers pages of: {', '.join(api_origins)} (CORS).")
        click.echo(f"Serving {campaign.id} at {listening}{also} (Ctrl-C stops)")
        db_path = app.db_path
        campaign_id = campaign.id
        app.close()
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    stop_hooks = _start_webhooks(db_path, campaign_id)
    try:
        webserver.run(
            create_app(db_path, campaign_id, api_origins=api_origins),
            sockets,
            hosts={url_host(listening), url_host(public)},
            max_connections=limit,
        )
    except KeyboardInterrupt:  # Ctrl-C, the way to stop that the line above gives
        click.echo(f"Stopped serving {campaign_id}.", err=True)
    finally:
        stop_hooks()


def _start_webhooks(db_path: str, campaign_id: str) -> Any:
    """Start the webhook delivery thread (:func:`ledger.exchange.webhooks.run_forever`,
    its own store); returns what stops it. A paused hook is logged on stderr."""
    import threading

    from ledger.exchange.webhooks import run_forever
    from ledger.store.opening import StoreSource

    source = StoreSource(db_path, application_name="campaign serve webhooks")
    stop = threading.Event()
    thread = threading.Thread(
        target=run_forever,
        args=(source.own, campaign_id, stop),
        kwargs={"warn": lambda line: click.echo(line, err=True)},
        name="webhooks",
        daemon=True,
    )
    thread.start()

    def stopping() -> None:
        stop.set()
        thread.join(timeout=15)
        source.close()

    return stopping


@cli.group()
def access() -> None:
    """Links to the web view (`campaign serve`): one for the GM, one per player."""


@access.command("add")
@click.argument("who", metavar="PLAYER|gm")
@click.option(
    "--character",
    "characters",
    multiple=True,
    help="A character this player enters rolls for, beyond the sheets naming them (repeatable).",
)
@click.option(
    "--replace",
    is_flag=True,
    help="PLAYER has a live link: issue a new one, and the old one stops working.",
)
@click.option(
    "--url",
    callback=url_option,
    help="Where players reach `campaign serve` [default: the address it last served at, "
    f"else {DEFAULT_URL}].",
)
@click.option(
    "--api",
    is_flag=True,
    help="Issue a bearer token for the JSON API (/api/v1) instead of a link.",
)
@click.option(
    "--scope",
    type=click.Choice(["read", "roll", "gm"]),
    help="With --api: read (the players' view), roll (also roll for their characters), "
    "gm (the GM's token) [default: gm for gm, else read].",
)
@json_option
@pass_app
def access_add(
    app: App,
    who: str,
    characters: tuple[str, ...],
    replace: bool,
    url: str | None,
    api: bool,
    scope: str | None,
    as_json: bool,
) -> None:
    """Issue a link for PLAYER (or `gm`): one live link per person.

    When PLAYER already has one, nothing is issued unless --replace (then the old link stops
    working, open pages included). The link is printed once (only its hash is kept), with
    the address `campaign serve` last served at.

    With --api, a bearer token for the JSON API instead (`Authorization: Bearer TOKEN`),
    printed once; a person may hold several; `access revoke PLAYER --api` stops them.
    """
    from ledger.web import access as accessmod

    campaign = app.campaign
    store = app.store()
    if scope is not None and not api:
        raise click.UsageError("--scope is for API tokens: add --api")
    if api:
        from ledger.web.api import tokens

        if replace:
            raise click.UsageError(
                "--replace is for links: revoke a token with `access revoke --api`"
            )
        chosen = scope or ("gm" if who.strip().casefold() == accessmod.GM else "read")
        issued, secret = tokens.grant(store, campaign, who, chosen, characters, at=now())
        if as_json:
            echo_json({"who": issued.access.who, "scope": issued.scope, "token": secret})
            return
        click.echo(f"API token for {issued.access.who} (scope {issued.scope}), shown once:")
        click.echo(f"  {secret}")
        return
    base = url or store.public_url(campaign.id) or DEFAULT_URL
    found, token = accessmod.grant(store, campaign, who, characters, at=now(), replace=replace)
    mine = accessmod.characters_of(campaign, found)
    if as_json:
        echo_json(
            {
                "who": found.who,
                "role": found.role,
                "link": f"{base}/a/{token}",
                "characters": list(mine),
            }
        )
        return
    click.echo(link_line(found, token, base))
    if not found.is_gm:
        click.echo(
            f"  enters rolls for: {', '.join(mine.values()) or 'no character yet'}"
            + ("" if mine else ' (name the player on a sheet, player = "...", or use --character)')
        )


@access.command("list")
@json_option
@pass_app
def access_list(app: App, as_json: bool) -> None:
    """List the live links: who, their characters, when issued (never the link itself), and
    the devices signed in with each (browser and system, when signed in, last used)."""
    from ledger.web import access as accessmod
    from ledger.web import sessions as sessionsmod

    campaign = app.campaign
    store = app.store()
    signed_in = sessionsmod.devices(
        store, campaign.id, sessionsmod.parse(now()), sessionsmod.SessionPolicy()
    )
    rows: list[dict[str, Any]] = []
    for found in accessmod.live(store, campaign.id):
        mine = accessmod.characters_of(campaign, found)
        rows.append(
            {
                "who": found.who,
                "role": found.role,
                "characters": list(mine.values()) if not found.is_gm else ["(all)"],
                "issued": found.created_at,
                "devices": [
                    {"device": d.device, "signed_in": d.created_at, "last_seen": d.seen_at}
                    for d in signed_in.get(found.id, [])
                ],
            }
        )
    from ledger.web.api import tokens as tokensmod

    api_rows = [
        {"who": t.access.who, "scope": t.scope, "issued": t.access.created_at}
        for t in tokensmod.live(store, campaign.id)
    ]
    if as_json:
        if api_rows:
            rows.extend({"who": r["who"], "role": "api", **r} for r in api_rows)
        echo_json(rows)
        return
    for a in api_rows:
        click.echo(f"{a['who']:<16} api:{a['scope']:<4} {a['issued'][:16]}  (JSON API token)")
    if not rows and not api_rows:
        click.echo("No links yet: `campaign access add gm`, `campaign access add NAME`.")
    for r in rows:
        click.echo(
            f"{r['who']:<16} {r['role']:<7} {r['issued'][:16]}  {', '.join(r['characters'])}"
        )
        for d in r["devices"]:
            click.echo(
                f"  {d['device']}: signed in {d['signed_in'][:16].replace('T', ' ')}, "
                f"last seen {d['last_seen'][:16].replace('T', ' ')} UTC"
            )
        if not r["devices"]:
            click.echo("  no device signed in")


@access.command("revoke")
@click.argument("who", metavar="PLAYER|gm")
@click.option("--api", is_flag=True, help="Revoke PLAYER's JSON API tokens instead of the link.")
@pass_app
def access_revoke(app: App, who: str, api: bool) -> None:
    """Revoke PLAYER's link (or the GM's): it stops at once, open pages included, and every
    device signed in with it is signed out. With --api, PLAYER's API tokens instead."""
    from ledger.web import access as accessmod

    campaign = app.campaign
    if api:
        count = app.store().revoke_api_token(campaign.id, accessmod.check_player(who), now())
        if not count:
            raise click.ClickException(f"{who!r} has no live API token")
        click.echo(f"Revoked {who}'s API tokens ({count}).")
        return
    count = app.store().revoke_access(campaign.id, accessmod.check_player(who), now())
    if not count:
        names = ", ".join(a.who for a in accessmod.live(app.store(), campaign.id)) or "none"
        raise click.ClickException(f"{who!r} has no live link (live: {names})")
    click.echo(f"Revoked {who}'s link ({count}).")
