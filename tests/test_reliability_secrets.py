"""Secrets: GM-only events and unrevealed session seeds never reach a player.

The promises: a player's view (sheet, log, recap, export, audit, ...) never contains a
GM-only event's data or any state derived from it; a session's seed stays in the secrets
table until ``session end`` reveals it. Hypothesis builds campaigns of public and GM-only
events (secret notes with distinctive values, blind rolls, corrections), then every player
read command is searched for the hidden values; every command, GM views included, is
searched for the unrevealed seed.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import sqlite3

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.cli import cli

SETTINGS = settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
#: the same properties searched ten times as far, with the slow tests (``-m slow``; CI)
THOROUGH = settings(SETTINGS, max_examples=100)
OPS = st.lists(
    st.one_of(
        st.tuples(st.just("secret"), st.sampled_from(["ann", "bob"]), st.integers(10**6, 10**7)),
        st.tuples(st.just("blind"), st.sampled_from(["ann", "bob"])),
        st.tuples(st.just("hurt"), st.sampled_from(["ann", "bob"]), st.integers(0, 3)),
        st.tuples(st.just("roll"), st.sampled_from(["ann", "bob"])),
        st.tuples(st.just("scene")),
        st.tuples(st.just("session")),
    ),
    min_size=1,
    max_size=10,
)
PLAYER_READS = [
    ["sheet", "ann", "--json"],
    ["sheet", "bob", "--json"],
    ["sheet", "bob"],
    ["log", "--json"],
    ["log"],
    ["export"],
    ["verify", "--json"],
    ["session", "list", "--json"],
]
OPTIONAL = [["recap", "--session", "1"], ["audit", "1"]]  # once the commands exist


def invoke(db, *args):
    return CliRunner().invoke(cli, ["--db", db, *args], catch_exceptions=False)


def build(db, tmp_path, ops):
    """A toy campaign from ``ops``; returns (hidden values, blind roll seqs, public rolls)."""
    assert invoke(db, "new", "toybox", "--system", "toy").exit_code == 0
    for name, skills in (("Ann Vance", "brawl = 2"), ("Bob Marsh", "sneak = 1")):
        sheet = tmp_path / f"{name.split()[0]}.toml"
        sheet.write_text(f'name = "{name}"\n[skills]\n{skills}\n')
        assert invoke(db, "character", "add", "--sheet", str(sheet)).exit_code == 0
    skill = {"ann": "brawl", "bob": "sneak"}
    hidden, blind, public = set(), [], {"ann": 0, "bob": 0}
    open_ = False
    for op in ops:
        if op[0] == "secret":
            r = invoke(db, "record", "secret-noted", "--character", op[1], "--value", str(op[2]))
            hidden.add(str(op[2]))
        elif op[0] == "blind":
            r = invoke(db, "roll", op[1], skill[op[1]], "--dice", "6,6", "--blind", "--json")
            blind.append(json.loads(r.output)["seq"])
        elif op[0] == "hurt":
            r = invoke(db, "record", "hurt", "--character", op[1], "--amount", str(op[2]))
        elif op[0] == "roll":
            r = invoke(db, "roll", op[1], skill[op[1]], "--dice", "1,2")
            public[op[1]] += 1
        elif op[0] == "scene":
            r = invoke(db, "scene", "end")
        else:
            r = invoke(db, "session", "end" if open_ else "start")
            open_ = not open_
        assert r.exit_code == 0, r.output
    return hidden, blind, public


@pytest.fixture
def dbs(toy_system, tmp_path, frozen):
    counter = itertools.count()
    return lambda: str(tmp_path / f"s{next(counter)}.db")


@SETTINGS
@given(ops=OPS)
def test_player_views_hide_gm_events(dbs, tmp_path, ops):
    player_views_hide_gm_events(dbs(), tmp_path, ops)


@pytest.mark.slow
@THOROUGH
@given(ops=OPS)
def test_player_views_hide_gm_events_thoroughly(dbs, tmp_path, ops):
    player_views_hide_gm_events(dbs(), tmp_path, ops)


def player_views_hide_gm_events(db, tmp_path, ops):
    """Every player read of the campaign ``ops`` build holds no GM-only value, and the
    player's export verifies, stubs and all."""
    hidden, blind, public = build(db, tmp_path, ops)
    commands = PLAYER_READS + [c for c in OPTIONAL if c[0] in cli.commands]
    for args in commands:
        result = invoke(db, "--as", "player", *args)
        if args in OPTIONAL:  # recap of a session not played yet: a one-line refusal
            assert result.exit_code in (0, 1), (args, result.output)
        else:
            assert result.exit_code == 0, (args, result.output)
        for value in hidden:
            assert value not in result.output, (args, value)
        assert "toy.secret_noted" not in result.output, args  # a stub keeps no type
    log = json.loads(invoke(db, "--as", "player", "log", "--json").output)
    assert all(set(e) == {"seq", "hash", "redacted"} for e in log if e["seq"] in blind)
    for character, count in public.items():  # state derived from blind rolls is hidden too
        sheet = json.loads(invoke(db, "--as", "player", "sheet", character, "--json").output)
        assert sheet["rolls"] == count and "secret" not in sheet
    export = [json.loads(x) for x in invoke(db, "export").output.splitlines()]
    trust = [x for x in export if "kind" in x]  # checkpoints carry only size and root
    assert all(set(x) == {"kind", "campaign", "size", "note", "made_at"} for x in trust)
    export = [x for x in export if "kind" not in x]
    stubs = [x for x in export if x.get("redacted")]
    assert all(set(x) == {"seq", "campaign", "prev_hash", "hash", "redacted"} for x in stubs)
    assert all("visibility" in x and x["visibility"] == "public" for x in export if x not in stubs)
    # and the project's own verifier accepts the player's copy, stubs and all
    from ledger.exchange.ndjson import parse_lines, verify_export

    report = verify_export(parse_lines(invoke(db, "export").stdout_bytes.splitlines()))[1]
    assert report.ok and report.stubs == len(stubs), report.problem


@SETTINGS
@given(ops=OPS)
def test_unrevealed_seed_never_leaves_the_secrets_table(dbs, tmp_path, ops):
    unrevealed_seed_stays_in_the_secrets_table(dbs(), tmp_path, ops)


@pytest.mark.slow
@THOROUGH
@given(ops=OPS)
def test_unrevealed_seed_never_leaves_the_secrets_table_thoroughly(dbs, tmp_path, ops):
    unrevealed_seed_stays_in_the_secrets_table(dbs(), tmp_path, ops)


def unrevealed_seed_stays_in_the_secrets_table(db, tmp_path, ops):
    """The open session's seed and the checkpoint key of the campaign ``ops`` build are in
    no event and no command's output, GM's or player's; only the commitment is public."""
    build(db, tmp_path, ops)
    conn = sqlite3.connect(db)
    seeds_sql = "select seed from secrets where kind != 'checkpoint'"
    seeds = [s for (s,) in conn.execute(seeds_sql)]
    if not seeds:  # no session open: open one, with an engine roll drawn from its seed
        assert invoke(db, "session", "start").exit_code == 0
        assert invoke(db, "roll", "ann", "brawl").exit_code == 0
        seeds = [s for (s,) in conn.execute(seeds_sql)]
    ((key,),) = conn.execute("select seed from secrets where kind = 'checkpoint'")
    (seed,) = seeds
    raw = bytes.fromhex(seed)
    events = b"".join(
        r[0].encode() for r in conn.execute("select data || hash || prev_hash from events")
    )
    conn.close()
    assert seed.encode() not in events and raw not in events
    assert key.encode() not in events and bytes.fromhex(key) not in events  # the signing key
    commit = hashlib.sha256(raw).hexdigest()
    assert commit.encode() in events  # only the commitment is public
    reads = PLAYER_READS + [c for c in OPTIONAL if c[0] in cli.commands]
    for who in ("gm", "player"):
        for args in [*reads, ["export"], ["character", "list"], ["record", "list"]]:
            result = invoke(db, "--as", who, *args)
            assert seed not in result.output and seed.upper() not in result.output, (who, args)
            assert key not in result.output, (who, args)  # nor the checkpoint key


def test_amending_a_gm_event_keeps_the_new_value_hidden(dbs, tmp_path):
    db = dbs()
    build(db, tmp_path, [("secret", "bob", 4242424)])
    assert invoke(db, "correct", "4", "--set", "value=7777777", "--reason", "typo").exit_code == 0
    for args in (["log", "--json"], ["export"]):
        assert "7777777" not in invoke(db, "--as", "player", *args).output, args


def test_redacted_stub_does_not_reveal_small_secrets(dbs, tmp_path):
    from ledger.store.sqlite import chain_hash

    db = dbs()
    build(db, tmp_path, [("secret", "bob", 1000042)])
    stub = next(
        json.loads(x) for x in invoke(db, "export").output.splitlines() if '"redacted"' in x
    )
    import msgspec

    from ledger.codec import canonical_envelope
    from ledger.events import Envelope

    # the stub shows only seq, campaign and hashes: grant the player every other envelope
    # field (from the GM's copy), so only the salted data is left to guess
    gm = next(
        json.loads(x)
        for x in invoke(db, "--as", "gm", "export").output.splitlines()
        if json.loads(x)["seq"] == stub["seq"]
    )
    fields = {k: v for k, v in gm.items() if k not in ("hash", "data")}
    for guess in range(10**6, 10**6 + 100):  # a player's brute force over plausible values
        data = f'{{"character":"bob","type":"toy.secret_noted","value":{guess}}}'.encode()
        envelope = Envelope(**fields, data=msgspec.Raw(data))
        assert chain_hash(stub["prev_hash"], canonical_envelope(envelope)) != stub["hash"], guess
