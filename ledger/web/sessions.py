"""Sessions of the web view: signed-in devices kept in the store, their write limits and
the roll form's one-time nonces.

A capability link (:mod:`ledger.web.access`) is exchanged for a session: a random 256-bit id
in an ``HttpOnly`` cookie, kept in the store's ``web_sessions`` table (migration
``m008_web_sessions`` on SQLite and PostgreSQL) as its sha256 only, so a copy of the ledger
holds no usable cookie and a restarted server (or a second one over the same store) knows
every phone that signed in. A session ends when:

- its device signs out (``/logout``);
- it is idle longer than :attr:`SessionPolicy.idle_seconds` (it is deleted when next seen);
- its link is revoked or replaced (:meth:`ledger.store.base.EventStore.revoke_access`
  deletes the sessions of every revoked link);
- its link signs in on more than :attr:`SessionPolicy.max_devices` devices (the least
  recently used one gives way).

The CSRF token of a session is derived from its id (:func:`csrf_of`), so it survives a
restart and is not kept anywhere.

Writes from a player's device are bounded by a token bucket per session
(:attr:`SessionPolicy.burst` writes at once, then one per
:attr:`SessionPolicy.refill_seconds`); the GM's sessions are not limited. The bucket is kept
in the session's row and spent in the same transaction as the write, so a refused write
costs nothing, and a new sign-in of a link starts with what the link's emptiest device has
left (signing in again does not refill it).

Each roll form carries a one-time nonce (:func:`issue_nonce`), kept as its sha256 with the
session; the POST uses it in the same transaction as the append (:func:`use_nonce`), so a
replayed form finds it used and writes nothing.

Every function takes the time as an argument (``now``, an aware UTC ``datetime``): the server
reads its clock once per request (:class:`ledger.web.app.Server`, ``clock=``), so tests
drive it with a fake clock or freezegun and never sleep.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ledger.store.protocols import AccessStore, EventStore

#: The longest session id accepted from a cookie (``secrets.token_urlsafe(32)`` is 43).
MAX_SID = 100


@dataclass(frozen=True)
class SessionPolicy:
    """How long sessions last, how many a link may have, and how fast a player may write.

    :ivar idle_seconds: a session unused this long has ended (default 30 days).
    :ivar max_devices: sessions one link keeps at most (signed-out ones included, so that
        signing out and in again does not refill the write bucket); the least recently used
        gives way to a new sign-in (default 10).
    :ivar burst: writes a player's device may make at once (default 10).
    :ivar refill_seconds: then one more write every this many seconds (default 3: 20 a
        minute).
    :ivar nonces_kept: roll forms a session may hold open at once; an older form's nonce is
        forgotten (default 20).
    :ivar touch_seconds: a session's last use is written at most this often (default 60).
    """

    idle_seconds: float = 30 * 24 * 3600.0
    max_devices: int = 10
    burst: int = 10
    refill_seconds: float = 3.0
    nonces_kept: int = 20
    touch_seconds: float = 60.0


@dataclass(frozen=True)
class Session:
    """One live web session, as read from the store (never its id: only the id's hash).

    :ivar id: its row id. :ivar access_id: the link it signed in with. :ivar sid_hash: the
    sha256 (hex) of the cookie's session id. :ivar device: a label such as ``"Safari on
    iPhone"``. :ivar created_at, seen_at: when it signed in and was last used (stamps as
    :func:`stamp` writes them).
    """

    id: int
    access_id: int
    sid_hash: str
    device: str
    created_at: str
    seen_at: str


class SlowDown(Exception):
    """A player's device wrote faster than its bucket allows; nothing written.

    :ivar wait: seconds until the next write is allowed.
    """

    def __init__(self, wait: float) -> None:
        self.wait = wait
        seconds = max(1, int(-(-wait // 1)))
        super().__init__(
            f"Slow down: this device has sent many rolls in a short time. Wait {seconds} "
            f"second{'s' * (seconds != 1)} and send the form again (nothing was written)."
        )


class FormUsed(Exception):
    """A roll form that was already sent (its nonce used), or one this session no longer
    knows (``expired``: its nonce forgotten or never issued); nothing written."""

    def __init__(self, *, expired: bool = False) -> None:
        self.expired = expired
        super().__init__(
            "This form has expired: reload the page and enter the roll again (nothing was written)."
            if expired
            else "This form was already sent: the roll is in the log. To roll again, reload "
            "the page (nothing more was written)."
        )


# --- small pieces ----------------------------------------------------------------------------


def utcnow() -> datetime:
    """The current time, aware UTC (the server's default clock)."""
    return datetime.now(UTC)


def stamp(moment: datetime) -> str:
    """A time as the store keeps it, ``2026-03-01T19:00:00.000000Z`` (fixed width, so stamps
    compare as text)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse(text: str) -> datetime:
    """A stamp written by :func:`stamp` back as an aware UTC ``datetime``."""
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def hashed(secret: str) -> str:
    """The sha256 (hex) of a session id or nonce: what the store keeps."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def csrf_of(sid: str) -> str:
    """The CSRF token of the session whose id is ``sid`` (sha256 of a labelled id: it
    cannot be worked out from the stored hash of the id, and needs no storage)."""
    return hashlib.sha256(b"ledger-csrf\0" + sid.encode("utf-8", "surrogatepass")).hexdigest()


_BROWSERS = (
    ("Edg/", "Edge"),
    ("EdgiOS", "Edge"),
    ("OPR/", "Opera"),
    ("SamsungBrowser", "Samsung Internet"),
    ("Firefox/", "Firefox"),
    ("FxiOS", "Firefox"),
    ("CriOS", "Chrome"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
)
_SYSTEMS = (
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Android", "Android"),
    ("Windows", "Windows"),
    ("CrOS", "ChromeOS"),
    ("Mac OS X", "macOS"),
    ("Macintosh", "macOS"),
    ("Linux", "Linux"),
)


def device_label(user_agent: str) -> str:
    """A short label of the browser and system a ``User-Agent`` names (``"Safari on
    iPhone"``, ``"Firefox on Linux"``), from a fixed vocabulary: nothing a client sends is
    kept or shown as it is. ``"unknown device"`` when neither is recognised."""
    ua = user_agent[:512]
    browser = next((name for key, name in _BROWSERS if key in ua), "")
    system = next((name for key, name in _SYSTEMS if re.search(re.escape(key), ua)), "")
    if browser and system:
        return f"{browser} on {system}"
    return browser or system or "unknown device"


def tokens_now(row: dict[str, Any], now: datetime, policy: SessionPolicy) -> float:
    """The writes a session's bucket holds at ``now``: what it held at ``tokens_at`` plus one
    per :attr:`SessionPolicy.refill_seconds` since, at most :attr:`SessionPolicy.burst`."""
    elapsed = max(0.0, (now - parse(row["tokens_at"])).total_seconds())
    refill = elapsed / policy.refill_seconds if policy.refill_seconds > 0 else float("inf")
    return float(min(policy.burst, float(row["tokens"]) + refill))


def _session(row: dict[str, Any]) -> Session:
    return Session(
        id=int(row["id"]),
        access_id=int(row["access_id"]),
        sid_hash=row["sid_hash"],
        device=row["device"],
        created_at=row["created_at"],
        seen_at=row["seen_at"],
    )


def _idle(row: dict[str, Any], now: datetime, policy: SessionPolicy) -> bool:
    return (now - parse(row["seen_at"])).total_seconds() > policy.idle_seconds


# --- signing in and out ----------------------------------------------------------------------


def sign_in(
    store: EventStore,
    campaign_id: str,
    access_id: int,
    device: str,
    now: datetime,
    policy: SessionPolicy,
) -> tuple[str, Session]:
    """A new session for the live link ``access_id``, kept in the store (its id hashed).

    In one transaction: the campaign's idle sessions are deleted; if the link already has
    :attr:`SessionPolicy.max_devices` sessions, the least recently used give way; the new
    session's write bucket starts with what the link's emptiest remaining session holds
    (full when it has none).

    :returns: ``(session id for the cookie, the session)``.
    """
    sid = secrets.token_urlsafe(32)
    at = stamp(now)
    with store.transaction():
        rows = store.web_sessions(campaign_id)
        idle = [r["id"] for r in rows if _idle(r, now, policy)]
        rows = [r for r in rows if r["id"] not in set(idle)]
        mine = sorted(
            (r for r in rows if r["access_id"] == access_id), key=lambda r: (r["seen_at"], r["id"])
        )
        extra = len(mine) - max(0, policy.max_devices - 1)
        evicted = [r["id"] for r in mine[: max(0, extra)]]
        store.drop_web_sessions(campaign_id, idle + evicted)
        kept = mine[max(0, extra) :]
        tokens = min([float(policy.burst)] + [tokens_now(r, now, policy) for r in kept])
        session_id = store.add_web_session(campaign_id, access_id, hashed(sid), device, at, tokens)
    return sid, Session(session_id, access_id, hashed(sid), device, at, at)


def find(
    store: AccessStore, campaign_id: str, sid: str, now: datetime, policy: SessionPolicy
) -> Session | None:
    """The live session whose id is ``sid`` (from the cookie), or ``None``: unknown, signed
    out, or idle too long (then it is deleted). Its last use is written when it is older
    than :attr:`SessionPolicy.touch_seconds`. Whether its link is still live is the
    caller's question (:func:`ledger.web.access.still_live`)."""
    if not 20 <= len(sid) <= MAX_SID:
        return None
    rows = store.web_sessions(campaign_id, sid_hash=hashed(sid))
    if not rows or rows[0]["ended_at"] is not None:
        return None
    row = rows[0]
    if _idle(row, now, policy):
        store.drop_web_sessions(campaign_id, [row["id"]])
        return None
    if (now - parse(row["seen_at"])).total_seconds() >= policy.touch_seconds:
        store.touch_web_session(row["id"], stamp(now))
        row = {**row, "seen_at": stamp(now)}
    return _session(row)


def still_on(store: AccessStore, campaign_id: str, session: Session) -> bool:
    """Has the session not ended (signed out, deleted by a revocation or an eviction)?"""
    rows = store.web_sessions(campaign_id, sid_hash=session.sid_hash)
    return bool(rows) and rows[0]["ended_at"] is None


def sign_out(store: AccessStore, session: Session, now: datetime) -> None:
    """End a session (``/logout``): its cookie lets nobody in any more. The row stays, with
    its write bucket, until it is idle long enough to be swept or gives way to a newer one."""
    store.end_web_session(session.id, stamp(now))


def devices(
    store: AccessStore, campaign_id: str, now: datetime, policy: SessionPolicy
) -> dict[int, list[Session]]:
    """``{link id: [its live sessions, oldest first]}`` (signed-out and idle ones left out)."""
    out: dict[int, list[Session]] = {}
    for row in store.web_sessions(campaign_id):
        if row["ended_at"] is None and not _idle(row, now, policy):
            out.setdefault(int(row["access_id"]), []).append(_session(row))
    return out


# --- write limits and form nonces ------------------------------------------------------------


def check_write(
    store: AccessStore, campaign_id: str, session: Session, now: datetime, policy: SessionPolicy
) -> None:
    """Does the session's bucket hold a write now (read only; :func:`spend_write` takes it)?

    :raises SlowDown: it is empty (with how long to wait).
    """
    rows = store.web_sessions(campaign_id, sid_hash=session.sid_hash)
    if rows:
        left = tokens_now(rows[0], now, policy)
        if left < 1.0:
            raise SlowDown((1.0 - left) * policy.refill_seconds)


def spend_write(
    store: EventStore, campaign_id: str, session: Session, now: datetime, policy: SessionPolicy
) -> None:
    """Take one write from the session's bucket. Call inside the transaction of the write
    it pays for: if that rolls back, the write is not charged. The bucket is read and set
    by compare-and-set (:meth:`~ledger.store.base.EventStore.spend_web_tokens`), read again
    when another request of the same device spent from it first.

    :raises SlowDown: the bucket is empty (nothing taken).
    """
    with store.transaction():
        while True:
            rows = store.web_sessions(campaign_id, sid_hash=session.sid_hash)
            if not rows:
                return  # ended meanwhile: the caller's link and session checks answer that
            row = rows[0]
            left = tokens_now(row, now, policy)
            if left < 1.0:
                raise SlowDown((1.0 - left) * policy.refill_seconds)
            was = (float(row["tokens"]), row["tokens_at"])
            if store.spend_web_tokens(session.id, left - 1.0, stamp(now), was=was):
                return


def issue_nonce(store: AccessStore, session: Session, now: datetime, policy: SessionPolicy) -> str:
    """A fresh one-time nonce for a form of this session (kept hashed; the session's
    :attr:`SessionPolicy.nonces_kept` newest are kept)."""
    nonce = secrets.token_urlsafe(18)
    store.add_web_nonce(session.id, hashed(nonce), stamp(now), keep=policy.nonces_kept)
    return nonce


def check_nonce(store: AccessStore, session: Session, nonce: str) -> None:
    """Is ``nonce`` an unused nonce of this session (read only; :func:`use_nonce` uses it)?

    :raises FormUsed: it was used already, or is unknown (``expired``).
    """
    state = store.web_nonce(session.id, hashed(nonce)) if nonce else "unknown"
    if state != "unused":
        raise FormUsed(expired=state == "unknown")


def use_nonce(store: EventStore, session: Session, nonce: str, now: datetime) -> None:
    """Use the form's nonce. Call inside the transaction of the write it guards: one of two
    submits of the same form uses it, the other finds it used; a rollback unuses it.

    :raises FormUsed: it was used already, or is unknown (``expired``).
    """
    if len(nonce) > MAX_SID:
        raise FormUsed(expired=True)
    with store.transaction():
        if not nonce or not store.use_web_nonce(session.id, hashed(nonce), stamp(now)):
            check_nonce(store, session, nonce)
            raise FormUsed()  # used between the two looks


def sign_out_device(
    store: AccessStore, campaign_id: str, session_id: int, now: datetime, policy: SessionPolicy
) -> Session | None:
    """End the live session ``session_id`` of the campaign from the GM's page: the
    device's next request finds no session (the login hint), its open live streams end at
    their next look (``event: ended``). The link stays live: the player opens it again to
    sign back in.

    :returns: the session ended, or ``None`` when the campaign has no such live session
        (already signed out, idle too long, or another campaign's).
    """
    for sessions in devices(store, campaign_id, now, policy).values():
        for session in sessions:
            if session.id == session_id:
                sign_out(store, session, now)
                return session
    return None
