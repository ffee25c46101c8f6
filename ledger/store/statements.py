"""The SQL both backends share, written once with a placeholder mark (``?`` for SQLite,
``%s`` for PostgreSQL: :meth:`Statements.marked`)."""

from __future__ import annotations

from dataclasses import dataclass, fields

from ledger.chain import COLUMNS
from ledger.store.protocols import ACCESS_FIELDS, SECRET_FIELDS, WEB_SESSION_FIELDS


@dataclass(frozen=True)
class Statements:
    """The statements both backends run with the same text but for the placeholder: written
    once here with ``?`` (SQLite's), :meth:`marked` gives them with psycopg's ``%s``."""

    head: str = (
        "select seq, hash, recorded_at from events where campaign = ? order by seq desc limit 1"
    )
    last_of_types: str = (
        f"select {', '.join(COLUMNS)} from events where campaign = ? and {{types}} "
        "order by seq desc limit 1"
    )
    last_seq_at: str = (
        "select seq from events where campaign = ? and recorded_at <= ? "
        "order by recorded_at desc, seq desc limit 1"
    )
    seq_of_hash: str = (
        "select seq from events where campaign = ? and hash like ? order by seq limit 1"
    )
    engine_rolls: str = (
        "select count(*) from events where campaign = ? and session = ? "
        "and {source} = 'engine'"
    )
    put_secret: str = "insert into secrets (campaign, session, kind, seed) values (?, ?, ?, ?)"
    get_secret: str = "select seed from secrets where campaign = ? and session = ? and kind = ?"
    drop_secret: str = "delete from secrets where campaign = ? and session = ? and kind = ?"
    secret_rows: str = (
        f"select {', '.join(SECRET_FIELDS)} from secrets where campaign = ? "
        "order by kind, session"
    )
    add_access: str = (
        "insert into access (campaign, who, role, characters, token_hash, created_at) "
        "values (?, ?, ?, ?, ?, ?)"
    )
    access_rows: str = (
        f"select {', '.join(ACCESS_FIELDS)} from access where campaign = ? order by id"
    )
    revoke_access: str = (
        "update access set revoked_at = ? where campaign = ? and lower(who) = lower(?) "
        "and revoked_at is null"
    )
    end_revoked_nonces: str = (
        "delete from web_nonces where session_id in (select s.id from web_sessions s "
        "join access a on a.id = s.access_id where s.campaign = ? and a.revoked_at is not null)"
    )
    end_revoked_sessions: str = (
        "delete from web_sessions where campaign = ? and access_id in "
        "(select id from access where campaign = ? and revoked_at is not null)"
    )
    add_web_session: str = (
        "insert into web_sessions (campaign, access_id, sid_hash, device, created_at, "
        "seen_at, tokens, tokens_at) values (?, ?, ?, ?, ?, ?, ?, ?)"
    )
    web_sessions: str = (
        f"select {', '.join(WEB_SESSION_FIELDS)} from web_sessions where campaign = ?"
    )
    touch_web_session: str = "update web_sessions set seen_at = ? where id = ?"
    end_web_session: str = (
        "update web_sessions set ended_at = ? where id = ? and ended_at is null"
    )
    spend_web_tokens: str = (
        "update web_sessions set tokens = ?, tokens_at = ? where id = ? and tokens = ? "
        "and tokens_at = ?"
    )
    add_web_nonce: str = (
        "insert into web_nonces (session_id, nonce_hash, issued_at) values (?, ?, ?)"
    )
    prune_web_nonces: str = (
        "delete from web_nonces where session_id = ? and id not in (select id from "
        "web_nonces where session_id = ? order by id desc limit ?)"
    )
    use_web_nonce: str = (
        "update web_nonces set used_at = ? where session_id = ? and nonce_hash = ? "
        "and used_at is null"
    )
    web_nonce: str = "select used_at from web_nonces where session_id = ? and nonce_hash = ?"
    set_public_url: str = (
        "insert into public_url (campaign, url, set_at, port) values (?, ?, ?, ?) "
        "on conflict (campaign) do update set url = excluded.url, set_at = excluded.set_at, "
        "port = coalesce(excluded.port, public_url.port)"
    )
    public_url: str = "select url from public_url where campaign = ?"
    serve_port: str = "select port from public_url where campaign = ?"
    set_verified: str = (
        "insert into verified (campaign, seq, hash, verified_at) values (?, ?, ?, ?) "
        "on conflict (campaign) do update set seq = excluded.seq, hash = excluded.hash, "
        "verified_at = excluded.verified_at"
    )
    verified: str = "select seq, hash, verified_at from verified where campaign = ?"
    save_snapshot: str = (
        "insert into snapshots (campaign, stream, seq, as_gm, basis, digest, state) "
        "values (?, ?, ?, ?, ?, ?, ?) on conflict (campaign, stream, as_gm, seq, basis) "
        "do update set digest = excluded.digest, state = excluded.state"
    )
    load_snapshot: str = (
        "select seq, state, digest from snapshots where campaign = ? and stream = ? "
        "and as_gm = ? and seq <= ? and seq >= ? and basis = ? order by seq desc limit 1"
    )
    drop_snapshot: str = (
        "delete from snapshots where campaign = ? and stream = ? and seq = ? and as_gm = ? "
        "and basis = ?"
    )
    drop_snapshots: str = "delete from snapshots where campaign = ?"
    snapshot_rows: str = (
        "select stream, as_gm, seq, basis, digest, state from snapshots "
        "where campaign = ? order by seq"
    )

    def marked(self, mark: str) -> Statements:
        """The same statements with ``mark`` for each ``?``."""
        return Statements(**{f.name: getattr(self, f.name).replace("?", mark) for f in fields(self)})
