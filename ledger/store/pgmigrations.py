"""The PostgreSQL schema's migrations, in order (the SQLite twins are in
:mod:`ledger.store.sqlite`). Never edit a released one; add the next."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ledger.store.hooks import SECRET_KINDS_V5, SECRET_KINDS_V6, WEBHOOK_TABLES
from ledger.store.tree import M010_TABLES, SECRET_KINDS, fill_trees

_TEXT = 'text collate "C" not null'
#: A step of a migration: a statement, or a function of the connection (m010's fill).
Step = str | Callable[[Any], None]
MIGRATIONS: tuple[tuple[str, tuple[Step, ...]], ...] = (
    (
        "m001_events",
        (
            f"""
            create table events (
                campaign {_TEXT},
                seq bigint not null,
                stream {_TEXT},
                version bigint not null,
                type {_TEXT},
                data text not null,
                recorded_at {_TEXT},
                actor {_TEXT},
                session bigint,
                visibility text not null check (visibility in ('public', 'gm')),
                prev_hash {_TEXT},
                hash {_TEXT},
                primary key (campaign, seq),
                unique (campaign, stream, version)
            )
            """,
            "create index events_type on events (campaign, type, seq)",
            "create index events_stream on events (campaign, stream, seq)",
            "create index events_session on events (campaign, session)",
            "create index events_created on events (campaign) where seq = 1",
            """
            create function events_append_only() returns trigger language plpgsql as $$
            begin raise exception 'events are append-only'; end $$
            """,
            "create trigger events_no_update before update on events "
            "for each row execute function events_append_only()",
            "create trigger events_no_delete before delete on events "
            "for each row execute function events_append_only()",
            "create trigger events_no_truncate before truncate on events "
            "for each statement execute function events_append_only()",
        ),
    ),
    (
        "m002_secrets_snapshots",
        (
            f"create table secrets (campaign {_TEXT}, session bigint not null, "
            "seed text not null, primary key (campaign, session))",
            f"create table snapshots (campaign {_TEXT}, stream {_TEXT}, seq bigint not null, "
            "as_gm integer not null, state bytea not null, "
            "primary key (campaign, stream, as_gm, seq))",
        ),
    ),
    (
        "m003_snapshot_fingerprints",
        (
            "drop table snapshots",
            f"create table snapshots (campaign {_TEXT}, stream {_TEXT}, seq bigint not null, "
            f"as_gm integer not null, basis {_TEXT}, digest text not null, "
            "state bytea not null, primary key (campaign, stream, as_gm, seq, basis))",
        ),
    ),
    (
        "m004_secret_kinds",
        (
            "alter table secrets add column kind text not null default 'session' "
            "check (kind in ('session', 'downtime'))",
            "alter table secrets drop constraint secrets_pkey",
            "alter table secrets add primary key (campaign, kind, session)",
        ),
    ),
    (
        "m005_read_indexes",
        (
            "create index events_session_seq on events (campaign, session, seq)",
            "drop index events_session",
            "create index events_time on events (campaign, recorded_at, seq)",
        ),
    ),
    (
        # access links of the web view, as ledger.store.sqlite.m006_access: the token kept only
        # as its sha256; a revoked link keeps its row with revoked_at set
        "m006_access",
        (
            "create table access (id bigint generated always as identity primary key, "
            f"campaign {_TEXT}, who text not null, "
            "role text not null check (role in ('gm', 'player')), "
            "characters text not null default '[]', token_hash text not null unique, "
            "created_at text not null, revoked_at text)",
            "create index access_campaign on access (campaign, id)",
        ),
    ),
    (
        # web sessions and form nonces, as ledger.store.sqlite.m008_web_sessions (m007 is
        # SQLite's alone): only the session id's and the nonce's sha256 are kept
        "m008_web_sessions",
        (
            "create table web_sessions (id bigint generated always as identity primary key, "
            f"campaign {_TEXT}, access_id bigint not null, sid_hash text not null unique, "
            "device text not null, created_at text not null, seen_at text not null, "
            "ended_at text, tokens double precision not null, tokens_at text not null)",
            "create index web_sessions_campaign on web_sessions (campaign, access_id)",
            "create table web_nonces (id bigint generated always as identity primary key, "
            "session_id bigint not null, nonce_hash text not null unique, "
            "issued_at text not null, used_at text)",
            "create index web_nonces_session on web_nonces (session_id, id)",
        ),
    ),
    (
        # where players reach the web view, as ledger.store.m009_public_url
        "m009_public_url",
        (
            f"create table public_url (campaign {_TEXT} primary key, url text not null, "
            "set_at text not null)",
        ),
    ),
    (
        # each campaign's Merkle tree, checkpoints and cosignatures, as
        # ledger.store.sqlite_migrations.m010_merkle_checkpoints; the trees of the events
        # already stored are built once; secrets may hold the campaign's checkpoint key
        "m010_merkle_checkpoints",
        (
            "alter table secrets drop constraint if exists secrets_kind_check",
            "alter table secrets add constraint secrets_kind_check check (kind in ("
            + ", ".join(f"'{k}'" for k in SECRET_KINDS)
            + "))",
            *(sql.format(text=_TEXT, blob="bytea") for sql in M010_TABLES),
            lambda conn: fill_trees(conn, "%s"),
        ),
    ),
    (
        # bearer tokens of the JSON API, as ledger.store.sqlite_migrations.m011_api_tokens
        "m011_api_tokens",
        (
            "create table api_tokens (id bigint generated always as identity primary key, "
            f"campaign {_TEXT}, who text not null, "
            "scope text not null check (scope in ('read', 'roll', 'gm')), "
            "characters text not null default '[]', token_hash text not null unique, "
            "created_at text not null, revoked_at text)",
            "create index api_tokens_campaign on api_tokens (campaign, id)",
        ),
    ),
    (
        # webhooks to the group chat, as ledger.store.sqlite_migrations.m012_webhooks:
        # hooks, their delivery log, and secrets of kind "webhook" (a hook's signing secret)
        "m012_webhooks",
        (
            "alter table secrets drop constraint if exists secrets_kind_check",
            "alter table secrets add constraint secrets_kind_check check (kind in ("
            + ", ".join(f"'{k}'" for k in SECRET_KINDS_V5)
            + "))",
            *(
                sql.format(text=_TEXT, id="bigint generated always as identity primary key")
                for sql in WEBHOOK_TABLES
            ),
        ),
    ),
    (
        # what `campaign verify` last proved, as ledger.store.sqlite_migrations.m013_verified
        "m013_verified",
        (
            f"create table verified (campaign {_TEXT} primary key, seq bigint not null, "
            "hash text not null, verified_at text not null)",
        ),
    ),
    (
        # the port `campaign serve` keeps for each campaign, as
        # ledger.store.sqlite_migrations.m014_serve_port
        "m014_serve_port",
        ("alter table public_url add column port integer",),
    ),
    (
        # Standard Webhooks' keys and rotation, as
        # ledger.store.sqlite_migrations.m015_webhook_rotation: a hook's secret kept as the
        # key's bytes (the same key), the previous secret of a hook being rotated
        "m015_webhook_rotation",
        (
            "alter table secrets drop constraint if exists secrets_kind_check",
            "alter table secrets add constraint secrets_kind_check check (kind in ("
            + ", ".join(f"'{k}'" for k in SECRET_KINDS_V6)
            + "))",
            "update secrets set seed = encode(convert_to(seed, 'UTF8'), 'hex') "
            "where kind = 'webhook'",
            "alter table webhooks add column rotated_until text",
        ),
    ),
)
MIGRATION_NAMES = tuple(name for name, _ in MIGRATIONS)
