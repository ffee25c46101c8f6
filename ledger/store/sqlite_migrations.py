"""The SQLite schema's migrations, in order (sqlite-utils' ``Migrations``; the PostgreSQL twins are
in :mod:`ledger.store.pgmigrations`). Never edit a released one; add ``m0NN_...``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ledger.chain import COLUMNS

if TYPE_CHECKING:  # sqlite-utils imports numpy when installed: only load it when needed
    import sqlite3

    import sqlite_utils
    from sqlite_utils.migrations import Migrations

#: The types of a session's opening and closing events: ``session list`` reads every one of
#: them (two a session, scattered over the whole file), so they have an index of their own.
SESSION_MARKS = ("session.started", "session.ended", "session.abandoned")
#: ``type in (...)`` over :data:`SESSION_MARKS`, spelt out: SQLite uses a partial index only
#: for a query whose WHERE holds the index's own term, literally (not as bound parameters).
_MARKS_TERM = "type in (" + ", ".join(f"'{t}'" for t in SESSION_MARKS) + ")"


def m001_events(db: sqlite_utils.Database) -> None:
    """The events table, its indexes and the append-only triggers."""
    db.execute(
        """
        create table events (
            campaign text not null,
            seq integer not null,
            stream text not null,
            version integer not null,
            type text not null,
            data text not null,
            recorded_at text not null,
            actor text not null,
            session integer,
            visibility text not null check (visibility in ('public', 'gm')),
            prev_hash text not null,
            hash text not null,
            primary key (campaign, seq),
            unique (campaign, stream, version)
        )
        """
    )
    db.execute("create index events_type on events (campaign, type, seq)")
    db.execute("create index events_stream on events (campaign, stream, seq)")
    db.execute("create index events_session on events (campaign, session)")
    for op in ("update", "delete"):
        db.execute(
            f"create trigger events_no_{op} before {op} on events "
            "begin select raise(abort, 'events are append-only'); end"
        )


def m002_secrets_snapshots(db: sqlite_utils.Database) -> None:
    """Secrets (unrevealed seeds) and the snapshot cache."""
    db.execute(
        "create table secrets (campaign text not null, session integer not null, "
        "seed text not null, primary key (campaign, session))"
    )
    db.execute(
        "create table snapshots (campaign text not null, stream text not null, "
        "seq integer not null, as_gm integer not null, state blob not null, "
        "primary key (campaign, stream, as_gm, seq))"
    )


def m003_snapshot_fingerprints(db: sqlite_utils.Database) -> None:
    """Snapshots carry a fingerprint (``basis``, ``digest``: :mod:`ledger.rules.snapshots`).

    The old snapshots are dropped: they are a cache without a fingerprint, so none could be
    trusted (the next reads rebuild them).
    """
    db.execute("drop table snapshots")
    db.execute(
        "create table snapshots (campaign text not null, stream text not null, "
        "seq integer not null, as_gm integer not null, basis text not null, "
        "digest text not null, state blob not null, "
        "primary key (campaign, stream, as_gm, seq, basis))"
    )


def m004_secret_kinds(db: sqlite_utils.Database) -> None:
    """Secrets get a ``kind``: ``"session"`` (a session's seed) or ``"downtime"`` (the
    downtime seed committed at a session's end); the key is (campaign, kind, session)."""
    db.execute(
        "create table secrets_v3 (campaign text not null, session integer not null, "
        "kind text not null default 'session' check (kind in ('session', 'downtime')), "
        "seed text not null, primary key (campaign, kind, session))"
    )
    db.execute(
        "insert into secrets_v3 (campaign, session, kind, seed) "
        "select campaign, session, 'session', seed from secrets"
    )
    db.execute("drop table secrets")
    db.execute("alter table secrets_v3 rename to secrets")


def m005_read_indexes(db: sqlite_utils.Database) -> None:
    """Indexes for the read paths: a session's events in ``seq`` order (``recap``,
    ``log --session``, ``advance``, ``--as-of session:N``) and the last event recorded at or
    before a time (``--as-of TIME``). Replaces ``events_session (campaign, session)``."""
    db.execute("create index events_session_seq on events (campaign, session, seq)")
    db.execute("drop index events_session")
    db.execute("create index events_time on events (campaign, recorded_at, seq)")


def m006_access(db: sqlite_utils.Database) -> None:
    """Access links of the web view (``campaign access``): one row per link, the token
    kept only as its sha256 (``token_hash``); ``role`` is ``"gm"`` or ``"player"``,
    ``characters`` a JSON list of character ids granted beyond the sheets' ``player``
    field; a revoked link keeps its row with ``revoked_at`` set."""
    db.execute(
        "create table access (id integer primary key, campaign text not null, "
        "who text not null, role text not null check (role in ('gm', 'player')), "
        "characters text not null default '[]', token_hash text not null unique, "
        "created_at text not null, revoked_at text)"
    )


def m007_session_marks(db: sqlite_utils.Database) -> None:
    """``session list``: the sessions' opening and closing events (:data:`SESSION_MARKS`)
    in a partial index holding every column, in ``seq`` order. The list reads two rows a
    session from that index alone instead of looking each one up in a file of a million
    events (7 ms of the 10 ms it took at 1,000,000 events); the index holds only those rows."""
    db.execute(
        f"create index events_session_marks on events (campaign, seq, "
        f"{', '.join(c for c in COLUMNS if c not in ('campaign', 'seq'))}) "
        f"where {_MARKS_TERM}"
    )


def m008_web_sessions(db: sqlite_utils.Database) -> None:
    """Web sessions and form nonces of the web view, so a restart logs nobody out.

    ``web_sessions``: one row per signed-in device of an access link: the session id's
    sha256 only (``sid_hash``), a device label (``"Safari on iPhone"``), when it began, was
    last used (idle expiry) and ended (``/logout``), and its write bucket (``tokens`` left as
    of ``tokens_at``). ``web_nonces``: each roll form's one-time nonce, as its sha256, and when
    it was used (a replayed form finds it used).
    """
    db.execute(
        "create table web_sessions (id integer primary key, campaign text not null, "
        "access_id integer not null, sid_hash text not null unique, device text not null, "
        "created_at text not null, seen_at text not null, ended_at text, "
        "tokens real not null, tokens_at text not null)"
    )
    db.execute("create index web_sessions_campaign on web_sessions (campaign, access_id)")
    db.execute(
        "create table web_nonces (id integer primary key, session_id integer not null, "
        "nonce_hash text not null unique, issued_at text not null, used_at text)"
    )
    db.execute("create index web_nonces_session on web_nonces (session_id, id)")


def m009_public_url(db: sqlite_utils.Database) -> None:
    """Where players reach the web view: one row per campaign, the public base URL
    ``campaign serve`` last announced (its ``--url``, or the address it bound), so
    ``campaign access add`` prints links that open (:meth:`Store.public_url`)."""
    db.execute(
        "create table public_url (campaign text primary key, url text not null, "
        "set_at text not null)"
    )


def m010_merkle_checkpoints(db: sqlite_utils.Database) -> None:
    """Each campaign's Merkle tree, its checkpoints and their cosignatures (:mod:`ledger.store.tree`): ``merkle_frontier``, ``merkle_tiles``, ``checkpoints``,
    ``cosignatures``, filled for the events already stored (O(n) once). Secrets may also be
    of kind ``"checkpoint"`` (the campaign's signing key)."""
    from ledger.store.tree import M010_TABLES, SECRET_KINDS, fill_trees

    kinds = ", ".join(f"'{k}'" for k in SECRET_KINDS)
    db.execute(
        "create table secrets_v4 (campaign text not null, session integer not null, "
        f"kind text not null default 'session' check (kind in ({kinds})), "
        "seed text not null, primary key (campaign, kind, session))"
    )
    db.execute(
        "insert into secrets_v4 (campaign, session, kind, seed) "
        "select campaign, session, kind, seed from secrets"
    )
    db.execute("drop table secrets")
    db.execute("alter table secrets_v4 rename to secrets")
    for sql in M010_TABLES:
        db.execute(sql.format(text="text not null", blob="blob"))
    fill_trees(db.conn, "?")


def m011_api_tokens(db: sqlite_utils.Database) -> None:
    """Bearer tokens of the JSON API (``campaign access add NAME --api``): one row per
    token, kept only as its sha256 (``token_hash``); ``scope`` is ``"read"``, ``"roll"`` or
    ``"gm"``; ``characters`` a JSON list of character ids granted by name; a revoked token
    keeps its row with ``revoked_at`` set."""
    db.execute(
        "create table api_tokens (id integer primary key, campaign text not null, "
        "who text not null, scope text not null check (scope in ('read', 'roll', 'gm')), "
        "characters text not null default '[]', token_hash text not null unique, "
        "created_at text not null, revoked_at text)"
    )
    db.execute("create index api_tokens_campaign on api_tokens (campaign, id)")


def m012_webhooks(db: sqlite_utils.Database) -> None:
    """Webhooks to the group chat (``campaign webhook``, :mod:`ledger.store.hooks`): the
    hooks with their cursor, retry state and lease, and a bounded delivery log. Secrets may
    also be of kind ``"webhook"`` (a hook's signing secret, its id in ``session``)."""
    from ledger.store.hooks import SECRET_KINDS_V5, WEBHOOK_TABLES

    kinds = ", ".join(f"'{k}'" for k in SECRET_KINDS_V5)
    db.execute(
        "create table secrets_v5 (campaign text not null, session integer not null, "
        f"kind text not null default 'session' check (kind in ({kinds})), "
        "seed text not null, primary key (campaign, kind, session))"
    )
    db.execute(
        "insert into secrets_v5 (campaign, session, kind, seed) "
        "select campaign, session, kind, seed from secrets"
    )
    db.execute("drop table secrets")
    db.execute("alter table secrets_v5 rename to secrets")
    for sql in WEBHOOK_TABLES:
        db.execute(sql.format(text="text not null", id="integer primary key autoincrement"))


def m013_verified(db: sqlite_utils.Database) -> None:
    """What ``campaign verify`` last proved of each campaign: the head ``seq`` and
    its ``hash``, so ``audit`` chains from there (:mod:`ledger.history.audit_proof`) and never
    proves it twice; used only while the stored event ``seq`` still has that hash."""
    db.execute(
        "create table verified (campaign text primary key, seq integer not null, "
        "hash text not null, verified_at text not null)"
    )


def m014_serve_port(db: sqlite_utils.Database) -> None:
    """The port ``campaign serve`` keeps for each campaign: a ``port`` column beside the
    public URL (``None`` until first served). Phones remember a campaign per address, port
    included, so ``serve`` listens on the same port every time unless told to move
    (:meth:`Store.serve_port`)."""
    db.execute("alter table public_url add column port integer")


def m015_webhook_rotation(db: sqlite_utils.Database) -> None:
    """Webhooks follow Standard Webhooks (:mod:`ledger.exchange.webhooks`): a hook's secret
    is kept as the HMAC key's bytes, so a secret kept before (whose key was the ASCII text
    of its hex digits) becomes those bytes: the same key, receivers need no new secret. A
    hook being rotated keeps the secret it replaces (kind ``"webhook-previous"``) until its
    ``rotated_until``."""
    from ledger.store.hooks import SECRET_KINDS_V6

    kinds = ", ".join(f"'{k}'" for k in SECRET_KINDS_V6)
    db.execute(
        "create table secrets_v6 (campaign text not null, session integer not null, "
        f"kind text not null default 'session' check (kind in ({kinds})), "
        "seed text not null, primary key (campaign, kind, session))"
    )
    db.execute(
        "insert into secrets_v6 (campaign, session, kind, seed) select campaign, session, kind, "
        "case when kind = 'webhook' then lower(hex(seed)) else seed end from secrets"
    )
    db.execute("drop table secrets")
    db.execute("alter table secrets_v6 rename to secrets")
    db.execute("alter table webhooks add column rotated_until text")


MIGRATION_NAMES = (
    "m001_events",
    "m002_secrets_snapshots",
    "m003_snapshot_fingerprints",
    "m004_secret_kinds",
    "m005_read_indexes",
    "m006_access",
    "m007_session_marks",
    "m008_web_sessions",
    "m009_public_url",
    "m010_merkle_checkpoints",
    "m011_api_tokens",
    "m012_webhooks",
    "m013_verified",
    "m014_serve_port",
    "m015_webhook_rotation",
)


_migrations: Migrations | None = None


def get_migrations() -> Migrations:
    """The ``sqlite_utils`` migration set ``"ledger"`` (built on first use: importing
    sqlite-utils costs more than the rest of start-up)."""
    global _migrations
    if _migrations is None:
        from sqlite_utils.migrations import Migrations

        _migrations = Migrations("ledger")
        _migrations()(m001_events)
        _migrations()(m002_secrets_snapshots)
        _migrations()(m003_snapshot_fingerprints)
        _migrations()(m004_secret_kinds)
        _migrations()(m005_read_indexes)
        _migrations()(m006_access)
        _migrations()(m007_session_marks)
        _migrations()(m008_web_sessions)
        _migrations()(m009_public_url)
        _migrations()(m010_merkle_checkpoints)
        _migrations()(m011_api_tokens)
        _migrations()(m012_webhooks)
        _migrations()(m013_verified)
        _migrations()(m014_serve_port)
        _migrations()(m015_webhook_rotation)
    return _migrations


def new_schema() -> tuple[str, ...]:
    """The statements that make an empty file the schema :func:`get_migrations` builds:
    each ``create`` of every table, index, trigger and view the migrations leave, in the
    order SQLite keeps them (its own tables and automatic indexes left to it).

    A new ledger runs these and records every migration as applied (:func:`create_schema`),
    in half the time applying the migrations one by one takes. They are read once a
    process from the migrations themselves, applied to an empty database in memory, so the
    two can never differ.

    :raises RuntimeError: the migrations applied are not :data:`MIGRATION_NAMES` (a
        migration added without its name there).
    """
    global _new_schema
    if _new_schema is None:
        import sqlite3

        import sqlite_utils

        conn = sqlite3.connect(":memory:")
        try:
            get_migrations().apply(sqlite_utils.Database(conn))
            found = conn.execute(
                "select name, sql from sqlite_master where sql is not null order by rowid"
            ).fetchall()
            names = {r[0] for r in conn.execute("select name from _sqlite_migrations")}
        finally:
            conn.close()
        if names != set(MIGRATION_NAMES):  # a migration added without its name in the list
            raise RuntimeError(f"the migrations applied {sorted(names)}, not MIGRATION_NAMES")
        _new_schema = tuple(str(sql) for name, sql in found if not name.startswith("sqlite_"))
    return _new_schema


_new_schema: tuple[str, ...] | None = None


def create_schema(conn: sqlite3.Connection, at: str) -> None:
    """Make the empty database of ``conn`` a ledger at once: :func:`new_schema`, and every
    migration of :data:`MIGRATION_NAMES` recorded as applied ``at`` (sqlite-utils' form,
    ``str(datetime.now(timezone.utc))``). Run inside the caller's write transaction, which
    has seen that the file holds no table."""
    for statement in new_schema():
        conn.execute(statement)
    conn.executemany(
        "insert into _sqlite_migrations (migration_set, name, applied_at) values (?, ?, ?)",
        [("ledger", name, at) for name in MIGRATION_NAMES],
    )
