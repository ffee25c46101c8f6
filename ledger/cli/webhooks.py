"""``campaign webhook add|list|rotate|remove|resume|deliver``: the log posted to a group chat.

The delivery itself is :mod:`ledger.exchange.webhooks` (shared with ``campaign serve``'s
delivery thread).
"""

from __future__ import annotations

from typing import Any

import click

from ledger.cli.base import SEQ, App, cli, echo_json, json_option, pass_app


def _url(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from ledger.errors import RuleError
    from ledger.exchange.webhooks import check_url

    try:
        return check_url(value)
    except RuleError as e:
        raise click.BadParameter(str(e)) from None


def _when(stamp: str | None) -> str:
    return stamp[:19].replace("T", " ") + " UTC" if stamp else "—"


@cli.group()
def webhook() -> None:
    """Post each new entry of the log to a group chat (Discord, or any HTTP receiver)."""


@webhook.command("add")
@click.argument("url", callback=_url)
@click.option(
    "--channel",
    type=click.Choice(["public", "gm"]),
    required=True,
    help="public: the players' entries only (GM-only entries are never posted); gm: every entry.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["json", "discord"]),
    default="json",
    show_default=True,
    help="json (docs/api.md, Webhooks) or discord (a Discord channel's webhook URL).",
)
@json_option
@pass_app
def webhook_add(app: App, url: str, channel: str, fmt: str, as_json: bool) -> None:
    """Post each entry appended from now on to URL (http or https).

    Every delivery is signed as Standard Webhooks says (webhook-id, webhook-timestamp,
    webhook-signature; docs/api.md): the secret (whsec_...) is printed once, here; keep it
    where the receiver checks signatures (`campaign webhook rotate` makes a new one).
    Deliveries run in `campaign serve` and in `campaign webhook deliver`.
    """
    from ledger.campaign.clock import now
    from ledger.exchange.webhooks import add, shown_url

    campaign = app.campaign
    hook_id, secret = add(app.store(), campaign.id, url, channel, fmt, at=now())
    if as_json:
        echo_json({"id": hook_id, "url": url, "channel": channel, "format": fmt, "secret": secret})
        return
    click.echo(
        f"Webhook {hook_id}: {channel} entries of {campaign.id} to {shown_url(url)} ({fmt})."
    )
    click.echo(f"Signing secret, shown once: {secret}")


@webhook.command("list")
@click.option("--deliveries", type=click.IntRange(0, 50), default=5, show_default=True,
              help="How many of each hook's last deliveries to show.")  # fmt: skip
@json_option
@pass_app
def webhook_list(app: App, deliveries: int, as_json: bool) -> None:
    """List the webhooks: channel, format, state (ok, failing, paused), the last seq
    delivered, and each hook's last deliveries (seq, HTTP status or error, attempt)."""
    from ledger.campaign.clock import now
    from ledger.exchange.webhooks import rotating, shown_url, state_of

    at = now()
    campaign = app.campaign
    store = app.store()
    rows: list[dict[str, Any]] = []
    for hook in store.webhooks(campaign.id):
        rows.append(
            {
                "id": hook["id"],
                "url": shown_url(hook["url"]),
                "channel": hook["channel"],
                "format": hook["format"],
                "state": state_of(hook),
                "added": hook["created_at"],
                "delivered_upto": hook["last_seq"],
                "attempts": hook["attempts"],
                "failing_since": hook["failing_since"],
                "next_attempt_at": hook["next_attempt_at"],
                "paused_at": hook["paused_at"],
                "last_error": hook["last_error"],
                "old_secret_until": hook["rotated_until"] if rotating(hook, at) else None,
                "deliveries": store.webhook_log(hook["id"], deliveries) if deliveries else [],
            }
        )
    if as_json:
        echo_json(rows)
        return
    if not rows:
        click.echo("No webhooks: `campaign webhook add URL --channel public|gm`.")
    for r in rows:
        click.echo(
            f"{r['id']}  {r['channel']:<6} {r['format']:<7} {r['state']:<7} {r['url']}  "
            f"(delivered up to entry {r['delivered_upto']})"
        )
        if r["paused_at"]:
            click.echo(
                f"  paused {_when(r['paused_at'])} after failing since {_when(r['failing_since'])}"
                f": {r['last_error']} (`campaign webhook resume {r['id']}`)"
            )
        elif r["attempts"]:
            click.echo(
                f"  failing since {_when(r['failing_since'])} ({r['attempts']} attempts: "
                f"{r['last_error']}); next attempt {_when(r['next_attempt_at'])}"
            )
        if r["old_secret_until"]:
            click.echo(
                f"  rotating: the old secret signs too until {_when(r['old_secret_until'])} "
                f"(`campaign webhook rotate {r['id']} --finish` ends it now)"
            )
        for d in r["deliveries"]:
            result = f"HTTP {d['status']}" if d["status"] is not None else "no answer"
            if d["error"] and d["status"] is None:
                result = d["error"]
            click.echo(f"  [{d['seq']}] {_when(d['at'])}  {result}, attempt {d['attempt']}")


@webhook.command("rotate")
@click.argument("hook_id", metavar="ID", type=SEQ)
@click.option(
    "--finish",
    is_flag=True,
    help="End the overlap now: the old secret signs no more (no new secret is made).",
)
@json_option
@pass_app
def webhook_rotate(app: App, hook_id: int, finish: bool, as_json: bool) -> None:
    """Give webhook ID a new signing secret, printed once. For 24 hours each delivery is
    signed with both the new and the old secret (two signatures in webhook-signature), so
    the receiver can take the new one at any moment of it; then with the new one only.
    Once the receiver has it, `--finish` ends the overlap at once."""
    from ledger.campaign.clock import now
    from ledger.exchange.webhooks import find, finish_rotation, rotate, shown_url

    campaign = app.campaign
    store = app.store()
    hook = find(store, campaign.id, hook_id)
    if finish:
        finish_rotation(store, campaign.id, hook_id)
        if as_json:
            echo_json({"id": hook_id, "old_secret_until": None})
            return
        click.echo(
            f"Webhook {hook_id} ({shown_url(hook['url'])}): the old secret is forgotten; "
            "deliveries are signed with the new one only."
        )
        return
    secret, until = rotate(store, campaign.id, hook_id, at=now())
    if as_json:
        echo_json({"id": hook_id, "secret": secret, "old_secret_until": until})
        return
    click.echo(f"Webhook {hook_id} ({shown_url(hook['url'])}): a new signing secret.")
    click.echo(f"Signing secret, shown once: {secret}")
    click.echo(
        f"Until {_when(until)} every delivery is signed with the old secret too: put the new "
        f"one in the receiver, then `campaign webhook rotate {hook_id} --finish`."
    )


@webhook.command("remove")
@click.argument("hook_id", metavar="ID", type=SEQ)
@pass_app
def webhook_remove(app: App, hook_id: int) -> None:
    """Stop posting to webhook ID and forget it (its secret and delivery log too)."""
    from ledger.exchange.webhooks import find, shown_url

    campaign = app.campaign
    store = app.store()
    hook = find(store, campaign.id, hook_id)
    store.remove_webhook(campaign.id, hook_id)
    click.echo(f"Removed webhook {hook_id} ({shown_url(hook['url'])}).")


@webhook.command("resume")
@click.argument("hook_id", metavar="ID", type=SEQ)
@pass_app
def webhook_resume(app: App, hook_id: int) -> None:
    """Resume webhook ID after a pause (or retry a failing one now): delivery starts again
    at the first entry it has not delivered."""
    from ledger.exchange.webhooks import find

    campaign = app.campaign
    store = app.store()
    hook = find(store, campaign.id, hook_id)
    store.resume_webhook(campaign.id, hook_id)
    was = "paused" if hook["paused_at"] else "not paused"
    click.echo(
        f"Resumed webhook {hook_id} ({was}): the next delivery starts after entry "
        f"{hook['last_seq']}."
    )


@webhook.command("deliver")
@json_option
@pass_app
def webhook_deliver(app: App, as_json: bool) -> None:
    """Deliver what is pending on every webhook now, and exit (for cron or CI; `campaign
    serve` delivers on its own). A failing hook waits out its backoff; exit 1 if any
    delivery failed."""
    from ledger.exchange.webhooks import Deliverer, pause_warning, shown_url

    campaign = app.campaign
    passes = Deliverer().run_once(app.store(), campaign.id)
    if as_json:
        echo_json(
            [
                {
                    "id": p.id,
                    "outcome": p.outcome,
                    "delivered": p.delivered,
                    "skipped": p.skipped,
                    "error": p.error or None,
                    "next_attempt_at": p.next_attempt_at,
                }  # fmt: skip
                for p in passes
            ]
        )
    else:
        if not passes:
            click.echo("No webhooks: `campaign webhook add URL --channel public|gm`.")
        for p in passes:
            url = shown_url(p.url)
            words = {
                "ok": "caught up",
                "failed": f"failed ({p.error}); next attempt {_when(p.next_attempt_at)}",
                "paused": "paused",
                "was-paused": f"paused (`campaign webhook resume {p.id}`)",
                "waiting": f"failing; next attempt {_when(p.next_attempt_at)}",
                "busy": "being delivered by another process",
                "removed": "removed meanwhile",
            }[p.outcome]
            click.echo(f"Webhook {p.id} ({url}): {p.delivered} delivered, {words}.")
    for p in passes:
        if p.outcome == "paused":
            click.echo(pause_warning(p), err=True)
    if any(p.outcome in ("failed", "paused") for p in passes):
        raise SystemExit(1)
