"""A league on the ledger's event store (SQLite and PostgreSQL): an entry is accepted only
if it extends its character's newest; two tables at once, a passport cut short, a replay
and a table outside the keyring are each refused, naming which; conflicts are kept and
shown to both GMs."""

from __future__ import annotations

import threading

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from ledger.cli import cli
from ledger.league.core import League
from ledger.league.server import make_app
from ledger.store.opening import StoreSource, open_store
from ledger.trust import chronicle
from ledger.trust.notes import Signer, sign

AT = "2026-03-01T19:00:00.000000Z"


def _entry(signer, passport, previous, session, table=None):
    """A signed entry of Isa (the league checks signatures and the chain, not the rules)."""
    entry = chronicle.Entry(
        passport=passport, character="isa", name="Isa", table=table or signer.name,
        checkpoint=(10 * session, bytes(32)), session=session, system="d20-world",
        options={}, events=(1, "0" * 64), state="1" * 64, previous=previous, changed=(),
    )
    return sign(entry.text(), signer)


def _hash(note):
    return chronicle.entry_hash(note[: note.rfind("\n\n") + 1])


@pytest.fixture
def tables():
    return Signer.generate("campaign-ledger/mara"), Signer.generate("campaign-ledger/oskar")


@pytest.fixture
def league(store_target, tables):
    store = open_store(store_target)
    made = League.init(store, "marches", at=AT)
    for t in tables:
        made.trust(t.verifier.key(), at=AT)
    yield made
    store.close()


PID = "ab" * 16


def test_each_cheat_is_refused_naming_which(league, tables):
    mara, oskar = tables
    first = _entry(mara, PID, chronicle.NO_PREVIOUS, 1)
    assert league.submit(first, at=AT).status == "accepted"
    monday = _entry(mara, PID, _hash(first), 2)
    assert league.submit(monday, at=AT).status == "accepted"
    # the same night at Oskar's: extends the same entry Mara's Monday extends
    same_night = _entry(oskar, PID, _hash(first), 1)
    verdict = league.submit(same_night, at=AT)
    assert verdict.status == "refused" and "played at two tables at once" in verdict.problem
    assert verdict.conflict == monday  # the league's entry, for both GMs to see
    death = _entry(mara, PID, _hash(monday), 3)  # Isa dies on Wednesday
    assert league.submit(death, at=AT).status == "accepted"
    cut = _entry(oskar, PID, _hash(first), 2)  # her passport cut back to before the death
    verdict = league.submit(cut, at=AT)
    assert verdict.status == "refused" and "cut short" in verdict.problem
    assert league.check_head(PID, _hash(monday)).startswith("the passport was cut short")
    assert league.check_head(PID, _hash(death)) is None
    assert league.submit(monday, at=AT).status == "known"  # a table submitting again
    stranger = Signer.generate("campaign-ledger/elsewhere")
    verdict = league.submit(_entry(stranger, "cd" * 16, chronicle.NO_PREVIOUS, 1), at=AT)
    assert verdict.problem == "the table campaign-ledger/elsewhere is not a member of the league"
    forged = _entry(stranger, "cd" * 16, chronicle.NO_PREVIOUS, 1, table="campaign-ledger/mara")
    assert "signature does not verify" in league.submit(forged, at=AT).problem
    kept = league.refused("campaign-ledger/mara")  # Mara sees Oskar's refused entries too
    assert [k["entry"] for k in kept] == [same_night, cut] and kept[0]["conflict"] == monday
    assert [e.session for e in league.accepted(PID)] == [1, 2, 3]


def test_races_on_one_head_accept_exactly_one(store_target, tables):
    """Two tables submit entries extending the same head at once, 20 times: exactly one
    wins each time (the store's expected version decides; the loser reads again)."""
    mara, oskar = tables
    store = open_store(store_target)
    made = League.init(store, "marches", at=AT)
    for t in tables:
        made.trust(t.verifier.key(), at=AT)
    for race in range(20):
        pid = f"{race:032x}"
        head = _entry(mara, pid, chronicle.NO_PREVIOUS, 1)
        assert made.submit(head, at=AT).status == "accepted"
        entries = [_entry(t, pid, _hash(head), 2) for t in tables]
        verdicts: list = [None, None]
        barrier = threading.Barrier(2)

        def go(i, barrier=barrier, verdicts=verdicts, entries=entries):
            own = open_store(store_target)
            try:
                barrier.wait(timeout=30)
                verdicts[i] = League(own, "marches").submit(entries[i], at=AT).status
            finally:
                own.close()

        threads = [threading.Thread(target=go, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
        assert sorted(verdicts) == ["accepted", "refused"], verdicts
        assert len(made.accepted(pid)) == 2
    store.close()


def test_the_http_api(store_target, tables):
    mara, oskar = tables
    store = open_store(store_target)
    made = League.init(store, "marches", at=AT)
    made.trust(mara.verifier.key(), at=AT)
    client = TestClient(make_app(StoreSource(store_target), "marches"))
    first = _entry(mara, PID, chronicle.NO_PREVIOUS, 1)
    got = client.post("/entries", content=first)
    assert got.status_code == 200 and got.json()["status"] == "accepted"
    got = client.post("/entries", content=_entry(oskar, PID, _hash(first), 1))
    assert got.status_code == 409 and "not a member" in got.json()["problem"]
    assert client.post("/entries", content="hello\n\n— x AAAA\n").status_code == 400
    assert client.post("/entries", content="x" * 70000).status_code == 413
    assert client.get(f"/characters/{PID}").json()["head"] == _hash(first)
    from ledger.trust.notes import Checkpoint, Verifier, open_note

    note = client.get("/checkpoint").text
    open_note(note, [Verifier.parse(made.vkey)])
    assert Checkpoint.parse(note[: note.rfind("\n\n") + 1]).size == store.head("league-marches").seq
    store.close()


def _chain(league, signer, count, pid=PID):
    """``count`` entries of one character accepted in a chain; the last entry's hash."""
    previous = chronicle.NO_PREVIOUS
    for session in range(1, count + 1):
        note = _entry(signer, pid, previous, session)
        assert league.submit(note, at=AT).status == "accepted"
        previous = _hash(note)
    return previous


def test_the_league_log_is_a_checkpointed_log_with_consistency_proofs_and_tiles(
    store_target, tables, tmp_path
):
    """A GM holding an early checkpoint holds the league to it: every later checkpoint
    comes with a consistency proof that verifies, and a forged history does not; the log's
    tiles (C2SP tlog-tiles), over HTTP or written as static files, give the checkpoint's
    root again."""
    import base64

    from ledger.league.tiles import TileError, root_from_tiles
    from ledger.trust import merkle
    from ledger.trust.notes import Checkpoint, Verifier, open_note

    mara, _ = tables
    store = open_store(store_target)
    made = League.init(store, "marches", at=AT)
    made.trust(mara.verifier.key(), at=AT)
    client = TestClient(make_app(StoreSource(store_target), "marches"))
    league_key = [Verifier.parse(made.vkey)]

    def checkpoint():
        note = client.get("/checkpoint").text
        open_note(note, league_key)
        return Checkpoint.parse(note[: note.rfind("\n\n") + 1])

    _chain(made, mara, 5)
    early = checkpoint()  # what a GM kept on Monday
    _chain(made, mara, 300, pid="cd" * 16)  # past one full tile of 256 leaves
    late = checkpoint()
    assert late.size == early.size + 300 > 256
    got = client.get(f"/proof/consistency?old={early.size}").json()
    assert (got["old"], got["new"]) == (early.size, late.size)
    proof = [base64.b64decode(h) for h in got["proof"]]
    merkle.verify_consistency(early.size, late.size, early.root, late.root, proof)
    with pytest.raises(merkle.ProofError):  # a league that rewrote Monday's history
        merkle.verify_consistency(early.size, late.size, bytes(32), late.root, proof)
    assert client.get("/proof/consistency?old=0").status_code == 400
    assert client.get(f"/proof/consistency?old={late.size + 1}").status_code == 400
    assert client.get("/proof/consistency?old=x").status_code == 400

    def over_http(path):
        got = client.get("/" + path)
        assert got.status_code == 200, (path, got.text)
        return got.content

    assert root_from_tiles(over_http, late.size) == late.root
    assert root_from_tiles(over_http, early.size) == early.root  # the partial tile of then
    full = client.get("/tile/0/000")
    assert len(full.content) == 256 * 32 and "immutable" in full.headers["cache-control"]
    assert client.get("/tile/0/000.p/5").content == full.content[: 5 * 32]  # still served
    assert client.get("/tile/0/009").status_code == 404  # beyond the tree
    assert client.get("/tile/0/x1").status_code == 404
    bundle = client.get("/tile/entries/000").content
    assert len(bundle) == 256 * 34 and bundle[:2] == b"\x00\x20"
    assert merkle.leaf_hash(bundle[2:34]) == full.content[:32]  # entry 0's leaf
    # the same tiles as static files, for any web server or mirror
    out = tmp_path / "tiles"
    run = CliRunner().invoke(cli, ["--db", store_target, "league", "tiles", "--out", str(out)])
    assert run.exit_code == 0, run.output
    kept = (out / "checkpoint").read_text()
    open_note(kept, league_key)
    size = Checkpoint.parse(kept[: kept.rfind("\n\n") + 1]).size
    assert root_from_tiles(lambda p: (out / p).read_bytes(), size) == Checkpoint.parse(
        kept[: kept.rfind("\n\n") + 1]
    ).root
    edge = out / f"tile/0/001.p/{size - 256}"  # a mirror that lies about the newest entries
    edge.write_bytes(bytes(32) + edge.read_bytes()[32:])
    assert root_from_tiles(lambda p: (out / p).read_bytes(), size) != late.root
    with pytest.raises(TileError):
        root_from_tiles(lambda p: b"short", size)
    store.close()


def test_one_commit_decides_a_batch_as_the_entries_one_by_one_would(league, tables):
    """A batch holding a character's next two entries, two rivals on one head, an entry
    accepted before and a new character: each gets the verdict it would get alone."""
    mara, oskar = tables
    first = _entry(mara, PID, chronicle.NO_PREVIOUS, 1)
    second = _entry(mara, PID, _hash(first), 2)
    other = "ef" * 16
    head = _entry(mara, other, chronicle.NO_PREVIOUS, 1)
    assert league.submit(head, at=AT).status == "accepted"
    rivals = [_entry(t, other, _hash(head), 2) for t in tables]
    fresh = _entry(oskar, "12" * 16, chronicle.NO_PREVIOUS, 1)
    batch = [first, second, *rivals, head, fresh]
    verdicts = league.commit([league.check(n) for n in batch], at=AT)
    assert [v.status for v in verdicts] == ["accepted"] * 3 + ["refused", "known", "accepted"]
    assert "played at two tables at once" in verdicts[3].problem
    assert verdicts[3].conflict == rivals[0]
    assert [e.hash for e in league.accepted(PID)] == [_hash(first), _hash(second)]
    assert league.newest(other) == (2, league.accepted(other)[-1])


def test_an_intake_commits_many_threads_submissions_exactly_as_alone(store_target, league, tables):
    """Twelve tables' threads submit at once through one Intake (as `league serve`'s
    workers do), two of them racing on one head: every other entry is accepted, and
    exactly one of the rivals."""
    from ledger.league.intake import Intake

    mara, oskar = tables
    head = _entry(mara, PID, chronicle.NO_PREVIOUS, 1)
    assert league.submit(head, at=AT).status == "accepted"
    notes = [_entry(mara, f"{i:032x}", chronicle.NO_PREVIOUS, 1) for i in range(10)]
    notes += [_entry(t, PID, _hash(head), 2) for t in tables]
    intake = Intake("marches")
    verdicts: list = [None] * len(notes)
    barrier = threading.Barrier(len(notes))

    def go(i):
        own = open_store(store_target)
        try:
            barrier.wait(timeout=30)
            verdicts[i] = intake.submit(own, notes[i], at=AT)
        finally:
            own.close()

    threads = [threading.Thread(target=go, args=(i,)) for i in range(len(notes))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert [v.status for v in verdicts[:10]] == ["accepted"] * 10
    assert sorted(v.status for v in verdicts[10:]) == ["accepted", "refused"]
    assert len(league.accepted(PID)) == 2
    assert sorted({v.seq for v in verdicts if v.status == "accepted"}) == sorted(
        v.seq for v in verdicts if v.status == "accepted"
    )  # each accepted entry has a place of its own in the log
