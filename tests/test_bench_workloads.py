"""Every ledger the benchmarks measure is a valid campaign (issue 28: "make every figure
honest").

A bench ledger that fails ``verify`` makes ``audit`` stop early and the replay skip nothing
it should refuse: its figures measure something else. Each workload of bench/ is built here
at a small size and checked with the project's own verify (chain, versions, sessions, every
roll's result re-derived by its rule system).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import cases  # noqa: E402
import workload  # noqa: E402

from ledger.history.verify import verify_store  # noqa: E402
from ledger.store.sqlite import Store  # noqa: E402

EVENTS = 2_000  # two sessions of the workload


def assert_verifies(store: object, campaign: str = workload.CAMPAIGN) -> None:
    report = verify_store(store, campaign)
    assert report.ok, f"seq {report.bad_seq}: {report.problem}"
    assert report.results_unchecked is None
    assert report.results_checked > 0  # the rolls' results were re-derived, not skipped


def verifies(path: Path) -> int:
    """Verify the bench campaign in the file at ``path``; its event count."""
    store = Store(str(path))
    try:
        assert_verifies(store)
        return store.head(workload.CAMPAIGN).seq
    finally:
        store.close()


def test_workload_batches_via_store_append_verify(tmp_path: Path) -> None:
    """Cases 1, 2, 4, 6 and 8 (append, replay, as-of, memory, reads) run on this ledger."""
    db = tmp_path / "store.db"
    work = cases.batches(EVENTS)
    cases.ledger_store_append(str(db), work)
    assert verifies(db) == 7 + sum(len(events) for _, events, _ in work)


def test_workload_batches_via_campaign_append_verify(tmp_path: Path) -> None:
    db = tmp_path / "campaign.db"
    cases.ledger_campaign_append(str(db), cases.batches(EVENTS))
    assert verifies(db) > EVENTS


def test_durable_single_appends_verify(tmp_path: Path) -> None:
    """Case 3 ends inside an open session: its seed is kept as ``session start`` keeps it."""
    db = tmp_path / "durable.db"
    events = [e for _, evs, _ in cases.batches(EVENTS) for e in evs][:50]
    cases.ledger_durable(str(db), events)
    assert verifies(db) == 7 + 50


def test_ledger_after_the_early_correction_verifies(tmp_path: Path) -> None:
    """Case 7 retracts an early ``experience_marked``: later checks still follow."""
    db = tmp_path / "correction.db"
    cases.ledger_store_append(str(db), cases.batches(EVENTS))
    seq, _ = cases.correct_early(str(db), "isa")
    assert seq < 100
    verifies(db)


def test_postgres_workload_verifies(postgres_server: str) -> None:
    """bench/postgres.py's append and replay ledger, on PostgreSQL."""
    import postgres

    with postgres.schema(postgres_server) as (url, _):
        camp = postgres.new_campaign(url)
        try:
            cases.append_work(camp.store, cases.batches(EVENTS))
            assert_verifies(camp.store)
        finally:
            camp.store.close()


def test_postgres_hosted_load_verifies(postgres_server: str, tmp_path: Path) -> None:
    """bench/postgres.py's many-writer case: what ``Campaign.append`` and
    ``PostgresStore.append`` writers leave verifies, nothing lost or twice; the floor and
    eventsourcing's recorder store every row of the same plan."""
    import postgres

    setup = postgres.HostedSetup(postgres_server, 4)
    plan = postgres.hosted_plan(4, 2, 3)
    rows = postgres.floor_rows(setup.created, plan)
    for kind in postgres.HOSTED_CASES:
        found = postgres.hosted_run(
            postgres_server, setup, kind, plan, rows if kind == "floor" else None, tmp_path
        )
        counted = {k: v for k, v in found.items() if k in postgres.HOSTED_PROBLEMS}
        assert counted and not any(counted.values()), (kind, found)
        assert found["events"] == sum(n for appends in plan for _, n in appends)


def test_every_roll_result_is_the_rules_own() -> None:
    """The workload resolves each roll with the rules: all three bands, experience, and a
    check made while winded carries the condition's penalty."""
    from ledger_d20_world.events import CheckRolled

    events = [e for _, evs in workload.sessions(EVENTS) for e in evs]
    checks = [e for e in events if isinstance(e, CheckRolled)]
    assert {c.outcome for c in checks} == {"good", "messy", "bad"}
    assert any(c.experience for c in checks)
    assert any(c.condition_penalty for c in checks)


@pytest.mark.parametrize("seed", [1, 2])
def test_other_seeds_verify_too(tmp_path: Path, seed: int) -> None:
    """Not one lucky seed: the workload is valid for others too."""
    db = tmp_path / f"seed{seed}.db"
    cases.ledger_store_append(str(db), cases.batches(EVENTS, seed=seed))
    verifies(db)


def test_floors_and_peers_do_the_same_job(tmp_path: Path) -> None:
    """The replay floor decodes every row (GM-only rows with their salt too) into its own
    event class with one plain decoder; the append floors write the store's rows; and
    eventsourcing's application, fed our payload structs through its transcoder, reaches
    the same character states as the ledger's replay."""
    import sqlite3

    import msgspec

    from ledger.campaign.aggregate import open_campaign
    from ledger.store.sqlite import COLUMNS

    db = tmp_path / "ledger.db"
    work = cases.batches(EVENTS)
    _, rows = cases.ledger_store_append(str(db), work)
    store = Store(str(db))
    stored = list(store.rows(workload.CAMPAIGN))
    want = open_campaign(store, workload.CAMPAIGN).states()
    store.close()
    assert any(r.visibility == "gm" for r in stored)
    decode = cases.floor_decoder().decode
    for r in stored:
        assert type(decode(r.data)).__struct_config__.tag == r.type
    assert cases.decode_rows((r.data,) for r in stored) == len(stored)
    for method in cases.FLOOR_METHODS:
        floor = tmp_path / f"floor-{method}.db"
        cases.floor_append(str(floor), rows, method=method)
        written = sqlite3.connect(floor).execute(
            f"select {', '.join(COLUMNS)} from events where seq > 7 order by seq"
        )
        assert [tuple(r) for r in written] == [tuple(r) for r in rows]
    _, ids = cases.es_append(str(tmp_path / "es.db"), work)
    app = cases.es_app_open(str(tmp_path / "es.db"))
    got = {s: app.repository.get(i).state for s, i in ids.items()}
    app.close()
    assert msgspec.to_builtins(got) == msgspec.to_builtins(want)


def test_the_page_bench_asks_every_page_and_each_answers(tmp_path: Path) -> None:
    """bench/pages.py signs in the GM and a player and renders each page it lists (three
    requests each here: the figures are the bench's to report, not this test's)."""
    import pages  # noqa: E402 (bench/, on the path above)

    db = tmp_path / "the-world.db"
    found = pages.measure(db, pages.build(db), requests=3)
    assert list(found) == [name for name, _, _ in pages.PAGES]
    assert all(0 < f["median_ms"] <= f["p90_ms"] for f in found.values())
