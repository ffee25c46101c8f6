"""Webhooks to the group chat: each new entry of the log, posted to the hooks allowed
to see it, signed, in order, at least once.

What ``campaign webhook deliver`` and the thread of ``campaign serve`` share. A hook has a
cursor (the last seq delivered, stored); a pass reads the log after it by seq, so entries
appended by any process (CLI, table shell, web, API) are delivered:

- A ``public`` hook gets the public entries only: a GM-only entry is skipped (its cursor
  moves past it, nothing is posted; not even a "GM-only entry" stub, so a group chat learns
  nothing of it, not even when). A ``gm`` hook gets every entry.
- The body (:func:`body`) is JSON, or Discord's ``{"content": ...}``. It is sent as the
  Standard Webhooks spec (standardwebhooks.com) says (:func:`headers`): ``webhook-id``
  (the entry's delivery id, ``"<campaign>:<seq>"``, the same at every retry),
  ``webhook-timestamp`` (Unix seconds) and ``webhook-signature`` (:func:`signature`:
  ``v1,`` and the base64 HMAC-SHA256 of ``"<id>.<timestamp>.<body>"``), so a receiver
  checks it with any Standard Webhooks library. A hook's secret is shown as ``whsec_`` and
  the base64 of the key (:func:`secret_text`).
- ``campaign webhook rotate`` gives a hook a new secret (:func:`rotate`); for
  :data:`ROTATION_OVERLAP` (or until ``rotate --finish``) each delivery carries two
  signatures, the new secret's and the old one's, so the receiver can change its secret at
  any moment of the overlap; after it, the new secret's only.
- A 2xx answer moves the cursor; anything else (a status, no answer within
  :data:`TIMEOUT`) is retried after an exponential backoff (:func:`backoff`, capped), the
  entries after it waiting their turn. A hook failing without a break for
  :data:`PAUSE_AFTER` is paused until ``campaign webhook resume ID``.
- Two deliverers at once (``serve`` and a cron ``webhook deliver``) share the work by a
  lease on the hook's row (:meth:`~ledger.store.hooks.WebhookKeeper.claim_webhook`): one
  posts, the other passes.

Nothing here runs inside an append: a failing or slow receiver never blocks a write.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import hmac
import json
import secrets
import threading
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ledger.campaign.clock import now as clock_now
from ledger.errors import NotFound, RuleError
from ledger.events import Recorded, Roll
from ledger.history.recap import MARKS
from ledger.history.words import describe
from ledger.store.hooks import HOOK_SECRET, PREVIOUS_HOOK_SECRET
from ledger.store.protocols import EventStore
from ledger.text import printable

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: The channels a hook may be for, and what each gets.
CHANNELS = ("public", "gm")
#: The body formats: ``json`` (:func:`body`) or ``discord`` (``{"content": text}``).
FORMATS = ("json", "discord")
#: Seconds to wait for a receiver's answer before counting the attempt failed.
TIMEOUT = 10.0
#: The first retry's delay, doubled at each failure in a row up to :data:`BACKOFF_CAP`.
BACKOFF_BASE = datetime.timedelta(seconds=2)
#: The longest delay between two attempts.
BACKOFF_CAP = datetime.timedelta(minutes=5)
#: A hook failing without a success for this long is paused.
PAUSE_AFTER = datetime.timedelta(hours=1)
#: How long a deliverer's lease on a hook lasts (renewed before each post).
LEASE = datetime.timedelta(seconds=60)
#: Discord's limit on a message's ``content``, in characters.
DISCORD_LIMIT = 2000
#: The headers of a delivery (Standard Webhooks).
ID_HEADER = "webhook-id"
TIMESTAMP_HEADER = "webhook-timestamp"
SIGNATURE_HEADER = "webhook-signature"
#: How a secret is written: this prefix, then the base64 of the HMAC key's bytes.
SECRET_PREFIX = "whsec_"
#: The bytes of a new hook's key (Standard Webhooks asks for 24 to 64).
SECRET_BYTES = 32
#: How long a rotated hook's old secret signs beside the new one.
ROTATION_OVERLAP = datetime.timedelta(hours=24)
#: How many entries a pass reads at once.
PAGE = 200

#: ``(status or None, error or "")`` of one POST; ``status`` ``None``: no answer.
Posted = tuple[int | None, str]
#: ``post(url, body, headers)``: send one delivery (:func:`post`; tests pass their own).
Poster = Callable[[str, bytes, dict[str, str]], Posted]


# --- adding, finding -----------------------------------------------------------------------


def check_url(url: str) -> str:
    """``url`` if a hook may post to it: ``http`` or ``https``, with a host, no user or
    password, printable, at most 2000 characters.

    :raises RuleError: why not, in one line.
    """
    if len(url) > 2000 or any(ch.isspace() or not ch.isprintable() for ch in url):
        raise RuleError(
            f"{printable(url[:80])!r} is not a URL a webhook can post to: "
            "give one http(s) URL, without spaces"
        )
    parts = urllib.parse.urlsplit(url)
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise RuleError(
            f"{url[:80]!r} is not an http(s) URL: give the receiver's address, "
            "e.g. https://discord.com/api/webhooks/ID/TOKEN"
        )
    if "@" in parts.netloc:
        raise RuleError(f"{url[:80]!r} holds a user or password: give the URL without them")
    return url


def add(
    store: EventStore, campaign: str, url: str, channel: str, fmt: str, *, at: str
) -> tuple[int, str]:
    """Add a hook to ``campaign`` that gets the entries appended from now on.

    :returns: ``(hook id, secret)``: the secret (:func:`secret_text`, ``whsec_...``) signs
        every delivery; it is shown once, and its key kept as a secret of kind
        ``"webhook"``.
    :raises RuleError: a bad URL, channel or format.
    """
    check_url(url)
    if channel not in CHANNELS:
        raise RuleError(f"no channel {channel!r}: a webhook is for 'public' or 'gm'")
    if fmt not in FORMATS:
        raise RuleError(f"no format {fmt!r}: a webhook posts 'json' or 'discord'")
    key = secrets.token_bytes(SECRET_BYTES)
    with store.transaction():
        head = store.head(campaign).seq
        hook_id = store.add_webhook(campaign, url, channel, fmt, key, at, head)
    return hook_id, secret_text(key)


def rotate(store: EventStore, campaign: str, hook_id: int, *, at: str) -> tuple[str, str]:
    """Give hook ``hook_id`` a new secret; its old one signs too until :data:`ROTATION_OVERLAP`
    after ``at`` (or :func:`finish_rotation`). Rotating again during an overlap drops the
    oldest secret: the one being replaced signs beside the new one, as above.

    :returns: ``(secret, until)``: the new secret (:func:`secret_text`, shown once) and the
        stored UTC stamp the overlap ends at.
    :raises NotFound: no such hook.
    """
    key = secrets.token_bytes(SECRET_BYTES)
    until = _stamp(_parse(at) + ROTATION_OVERLAP)
    if not store.rotate_webhook(campaign, hook_id, key, until):
        find(store, campaign, hook_id)  # no such hook: raises, naming those there are
    return secret_text(key), until


def finish_rotation(store: EventStore, campaign: str, hook_id: int) -> None:
    """End hook ``hook_id``'s overlap now: its old secret is forgotten and signs no more.

    :raises NotFound: no such hook.
    :raises RuleError: it is not being rotated.
    """
    find(store, campaign, hook_id)
    if not store.end_webhook_rotation(campaign, hook_id):
        raise RuleError(
            f"webhook {hook_id} is not being rotated, nothing to finish: "
            f"`campaign webhook rotate {hook_id}` gives it a new secret"
        )


def rotating(hook: dict[str, Any], now: str) -> bool:
    """Does the hook's old secret still sign (its overlap runs at ``now``)?"""
    return bool(hook["rotated_until"]) and hook["rotated_until"] > now


def signing_keys(store: EventStore, campaign: str, hook: dict[str, Any], now: str) -> list[bytes]:
    """The keys that sign the hook's deliveries at ``now``: its secret's, then, during a
    rotation's overlap, the previous one's. A previous secret whose overlap has ended is
    forgotten here.

    :raises RuleError: the hook's secret is missing from the store.
    """
    key = store.get_secret(campaign, hook["id"], HOOK_SECRET)
    if key is None:
        raise RuleError(f"webhook {hook['id']} has lost its secret: remove it and add it again")
    keys = [key]
    if rotating(hook, now):
        old = store.get_secret(campaign, hook["id"], PREVIOUS_HOOK_SECRET)
        if old is not None:
            keys.append(old)
    elif hook["rotated_until"]:
        store.end_webhook_rotation(campaign, hook["id"], at=now)
    return keys


def secret_text(key: bytes) -> str:
    """A hook's secret as it is shown and as receivers' libraries take it: ``"whsec_"`` and
    the base64 (standard alphabet, padded) of the key's bytes."""
    return SECRET_PREFIX + base64.b64encode(key).decode("ascii")


def find(store: EventStore, campaign: str, hook_id: int) -> dict[str, Any]:
    """A hook of ``campaign`` (as :meth:`~ledger.store.hooks.WebhookKeeper.webhooks`).

    :raises NotFound: no such hook (names those there are).
    """
    hooks = store.webhooks(campaign)
    for hook in hooks:
        if hook["id"] == hook_id:
            return hook
    there = ", ".join(str(h["id"]) for h in hooks)
    raise NotFound(
        f"no webhook {hook_id} in campaign {campaign!r} "
        + (f"(it has: {there}; see `campaign webhook list`)" if there else "(it has none)")
    )


def state_of(hook: dict[str, Any]) -> str:
    """``"paused"``, ``"failing"`` (retried after a backoff) or ``"ok"``."""
    if hook["paused_at"]:
        return "paused"
    return "failing" if hook["attempts"] else "ok"


# --- what is posted ------------------------------------------------------------------------


def entry_text(campaign: Campaign, rec: Recorded) -> str:
    """The entry's line as ``campaign log`` prints it in the view that may see it:
    ``"[12] ✔ Julian Hargrave — Investigate +3, ..."``, a GM-only entry ending in ``[GM]``."""
    line = printable(describe(campaign, rec))
    verdict = campaign.system.verdict(rec.data) if isinstance(rec.data, Roll) else None
    if verdict:
        seq, _, rest = line.partition(" ")
        line = f"{seq} {MARKS[verdict]} {rest}"
    return line + (" [GM]" if rec.visibility == "gm" else "")


def body(
    campaign: Campaign, rec: Recorded, fmt: str, characters: dict[str, str] | None = None
) -> bytes:
    """The bytes posted for one entry.

    ``json``: ``{"id": "<campaign>:<seq>", "campaign", "seq", "type", "text" (the log's
    line), "hash" (the entry's chain hash), "at" (recorded_at, UTC), "character" (the
    character id, or null), "visibility"}``, keys sorted, UTF-8. ``discord``:
    ``{"content": text, "allowed_mentions": {"parse": []}}``, the text cut to
    :data:`DISCORD_LIMIT` characters and no ``@everyone`` or role ping taken from a note.

    :param characters: the campaign's ``{id: name}`` (read from the campaign if not given).
    """
    text = entry_text(campaign, rec)
    if fmt == "discord":
        if len(text) > DISCORD_LIMIT:
            text = text[: DISCORD_LIMIT - 1] + "…"
        doc: dict[str, Any] = {"content": text, "allowed_mentions": {"parse": []}}
    else:
        if characters is None:
            characters = campaign.characters()
        doc = {
            "id": delivery_id(rec.campaign, rec.seq),
            "campaign": rec.campaign,
            "seq": rec.seq,
            "type": rec.type,
            "text": text,
            "hash": rec.hash,
            "at": rec.recorded_at,
            "character": rec.stream if rec.stream in characters else None,
            "visibility": rec.visibility,
        }
    return json.dumps(doc, ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode()


def delivery_id(campaign: str, seq: int) -> str:
    """The id of an entry's delivery (``webhook-id``, signed), the same at every retry:
    ``"<campaign>:<seq>"``."""
    return f"{campaign}:{seq}"


def signature(keys: Sequence[bytes], ident: str, timestamp: int, payload: bytes) -> str:
    """The ``webhook-signature`` value: for each key (the current first), ``"v1,"`` and the
    base64 of the HMAC-SHA256, keyed with the key's bytes, of ``"<ident>.<timestamp>."``
    followed by the body's bytes (``ident``: the ``webhook-id``; ``timestamp``: the
    ``webhook-timestamp``, Unix seconds), separated by single spaces."""
    signed = f"{ident}.{timestamp}.".encode() + payload
    return " ".join(
        "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode("ascii")
        for key in keys
    )


def headers(keys: Sequence[bytes], ident: str, timestamp: int, payload: bytes) -> dict[str, str]:
    """The headers of one delivery: content type, and the Standard Webhooks three (its id,
    timestamp and signatures, :func:`signature`)."""
    return {
        "Content-Type": "application/json",
        "User-Agent": "campaign-ledger-webhook",
        ID_HEADER: ident,
        TIMESTAMP_HEADER: str(timestamp),
        SIGNATURE_HEADER: signature(keys, ident, timestamp, payload),
    }


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a 3xx is an answer that is not 2xx: a failed attempt


_opener = urllib.request.build_opener(_NoRedirects)


def post(url: str, payload: bytes, head: dict[str, str]) -> Posted:
    """POST ``payload`` to ``url`` (urllib, :data:`TIMEOUT`, no redirects followed).

    :returns: ``(status, "")`` for any answer (``(status, reason)`` when not 2xx), or
        ``(None, why)`` when none came (refused, timed out, a bad certificate).
    """
    request = urllib.request.Request(url, data=payload, headers=head, method="POST")
    try:
        with _opener.open(request, timeout=TIMEOUT) as answer:
            answer.read(65536)
            return int(answer.status), ""
    except urllib.error.HTTPError as e:
        return int(e.code), f"HTTP {e.code} {e.reason}"[:200]
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", e)
        return None, f"no answer: {reason}"[:200]


# --- delivering ----------------------------------------------------------------------------


def _parse(stamp: str) -> datetime.datetime:
    return datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.UTC)


def _stamp(moment: datetime.datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def backoff(attempts: int) -> datetime.timedelta:
    """The delay before the next attempt after ``attempts`` failures in a row:
    2 s, 4 s, 8 s, ... up to :data:`BACKOFF_CAP` (5 minutes)."""
    return min(BACKOFF_BASE * (2 ** min(max(attempts - 1, 0), 20)), BACKOFF_CAP)


@dataclass
class HookPass:
    """What one pass did for one hook.

    :ivar outcome: ``"ok"`` (caught up), ``"failed"`` (to be retried at ``next_attempt_at``),
        ``"paused"`` (paused in this pass), ``"was-paused"``, ``"waiting"`` (its backoff
        runs), ``"busy"`` (another deliverer holds it), ``"removed"`` (during the pass).
    """

    id: int
    url: str
    outcome: str = "ok"
    delivered: int = 0
    skipped: int = 0
    error: str = ""
    next_attempt_at: str | None = None


@dataclass
class Deliverer:
    """Delivers a campaign's pending entries, hook by hook (:meth:`run_once`).

    :ivar post: how a body is sent (:func:`post`).
    :ivar clock: the time as stored (:func:`ledger.campaign.clock.now`).
    :ivar owner: this deliverer's name in a lease (unique per deliverer).
    """

    post: Poster = post
    clock: Callable[[], str] = clock_now
    owner: str = field(default_factory=lambda: uuid.uuid4().hex)

    def run_once(self, store: EventStore, campaign_id: str) -> list[HookPass]:
        """Deliver what is pending on every hook of the campaign, in seq order per hook,
        until each is caught up or fails; returns a :class:`HookPass` per hook."""
        from ledger.campaign.aggregate import open_campaign

        hooks = store.webhooks(campaign_id)
        if not hooks:  # `serve` asks every 2 seconds: no campaign read for nothing
            return []
        campaign = open_campaign(store, campaign_id)
        return [self.run_hook(store, campaign, hook) for hook in hooks]

    def run_hook(self, store: EventStore, campaign: Campaign, hook: dict[str, Any]) -> HookPass:
        """One hook's pass (see :meth:`run_once`)."""
        done = HookPass(hook["id"], hook["url"])
        now = self.clock()
        if hook["paused_at"]:
            done.outcome = "was-paused"
            return done
        if hook["next_attempt_at"] and hook["next_attempt_at"] > now:
            done.outcome, done.next_attempt_at = "waiting", hook["next_attempt_at"]
            return done
        if not self._claim(store, hook["id"]):
            done.outcome = "busy"
            return done
        try:
            self._deliver(store, campaign, done)
        except NotFound:  # removed (`webhook remove`) while this pass held it
            done.outcome = "removed"
        finally:
            store.release_webhook(hook["id"], self.owner)
        return done

    def _claim(self, store: EventStore, hook_id: int) -> bool:
        now = self.clock()
        return store.claim_webhook(hook_id, self.owner, now, _stamp(_parse(now) + LEASE))

    def _deliver(self, store: EventStore, campaign: Campaign, done: HookPass) -> None:
        hook = find(store, campaign.id, done.id)  # as it is now that we hold it
        characters = campaign.characters(include_retracted=True)
        while True:
            page = list(store.rows(campaign.id, after=hook["last_seq"], limit=PAGE))
            if not page:
                return
            for stored in page:
                if hook["channel"] == "public" and stored.visibility == "gm":
                    if not store.advance_webhook(hook["id"], self.owner, stored.seq):
                        done.outcome = _lost(store, campaign.id, done.id)
                        return
                    done.skipped += 1
                    continue
                if not self._claim(store, hook["id"]):  # renew the lease before posting
                    done.outcome = _lost(store, campaign.id, done.id)
                    return
                rec = Recorded(stored, campaign.codec.decode(stored.data, stored.type))
                payload = body(campaign, rec, hook["format"], characters)
                now = self.clock()
                hook = find(store, campaign.id, done.id)  # a rotation may have come meanwhile
                keys = signing_keys(store, campaign.id, hook, now)
                head = headers(keys, delivery_id(campaign.id, stored.seq),
                               int(_parse(now).timestamp()), payload)  # fmt: skip
                status, error = self.post(hook["url"], payload, head)
                at = self.clock()
                if status is not None and 200 <= status < 300:
                    if not store.advance_webhook(
                        hook["id"], self.owner, stored.seq, logged=(at, status)
                    ):
                        done.outcome = _lost(store, campaign.id, done.id)
                        return
                    done.delivered += 1
                    continue
                hook = find(store, campaign.id, done.id)  # its failures as they are now
                self._failed(store, hook, stored.seq, at, status, error or f"HTTP {status}", done)
                return
            hook = find(store, campaign.id, done.id)

    def _failed(
        self,
        store: EventStore,
        hook: dict[str, Any],
        seq: int,
        at: str,
        status: int | None,
        error: str,
        done: HookPass,
    ) -> None:
        attempts = int(hook["attempts"]) + 1
        since = _parse(hook["failing_since"] or at)
        moment = _parse(at)
        pause = moment - since >= PAUSE_AFTER
        next_at = _stamp(moment + backoff(attempts))
        store.webhook_failed(hook["id"], self.owner, seq, at=at, status=status, error=error,
                             next_attempt_at=next_at, pause=pause)  # fmt: skip
        done.outcome = "paused" if pause else "failed"
        done.error, done.next_attempt_at = error, None if pause else next_at


def _lost(store: EventStore, campaign: str, hook_id: int) -> str:
    """Why a lease was lost: ``"removed"`` (the hook is gone) or ``"busy"`` (taken over)."""
    return "busy" if any(h["id"] == hook_id for h in store.webhooks(campaign)) else "removed"


def pause_warning(done: HookPass) -> str:
    """The warning for a hook paused in a pass (``serve`` logs it, ``webhook deliver``
    prints it)."""
    return (
        f"Warning: webhook {done.id} ({shown_url(done.url)}) has failed for an hour "
        f"({done.error}) and is paused: fix the receiver, then `campaign webhook resume {done.id}`"
    )


def shown_url(url: str) -> str:
    """``url`` as lists and logs show it: without its query, and a long last path part (a
    Discord webhook's token) cut to its first 4 characters."""
    parts = urllib.parse.urlsplit(url)
    path = parts.path
    head, _, last = path.rpartition("/")
    if len(last) > 16:
        path = f"{head}/{last[:4]}…"
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def run_forever(
    open_store: Callable[[], EventStore],
    campaign_id: str,
    stop: threading.Event,
    *,
    interval: float = 2.0,
    warn: Callable[[str], None],
    deliverer: Deliverer | None = None,
) -> None:
    """``campaign serve``'s delivery thread: a pass every ``interval`` seconds until
    ``stop`` is set. A hook paused in a pass is reported through ``warn``; an error of the
    store is reported the same way (once while it repeats) and the store opened again at
    the next pass."""
    deliverer = deliverer or Deliverer()
    store: EventStore | None = None
    said = ""  # the last error said, not repeated at every pass while it lasts
    while not stop.is_set():
        try:
            if store is None:
                store = open_store()
            with store.connected():
                for done in deliverer.run_once(store, campaign_id):
                    if done.outcome == "paused":
                        warn(pause_warning(done))
            said = ""
        except Exception as e:  # the thread must live on: say it and try again
            line = f"Warning: webhook delivery: {type(e).__name__}: {e}"
            if line != said:
                warn(line)
            said = line
            if store is not None:
                try:
                    store.close()
                finally:
                    store = None
        stop.wait(interval)
    if store is not None:
        store.close()
