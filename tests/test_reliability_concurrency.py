"""Concurrent writers: several processes appending to one ledger file at once.

The promise: 8 processes appending at once lose nothing, duplicate nothing, and
the chain verifies. Half the writers race on one stream with expected versions (optimistic
concurrency through :meth:`ledger.campaign.Campaign.append`, retrying on conflict); the
other half append batches to their own streams through :meth:`ledger.store.Store.append`.
Every writer reports what it was told: the rows it committed and the conflicts it got; the
test then checks the file against those reports.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ledger.campaign.aggregate import Campaign
from ledger.cli import cli
from ledger.history.verify import verify_store
from ledger.store.sqlite import ConflictError, Pending, Store

ROOT = Path(__file__).resolve().parents[1]
CAMPAIGN = "race"
AT = "2026-03-01T19:00:00.000000Z"
CONFLICT = re.compile(r"stream 'campaign' is at version (\d+), not the expected version (\d+)")


def worker(db: str, writer: int, mode: str, count: int, go: str, out: str) -> None:
    """One writer process: append ``count`` notes, then write a JSON report to ``out``.

    :param mode: ``"shared"`` (the campaign stream, expected versions, retry on conflict;
        every 10th batch deliberately uses a stale version and must be refused) or ``"own"``
        (its own stream ``w<writer>``, batches of 1-20, expected versions never stale).
    :param go: a file whose appearance starts every writer at once.
    """
    from ledger.campaign.aggregate import open_campaign
    from ledger.events import NoteAdded

    rng = random.Random(writer)
    store = Store(db)
    campaign = open_campaign(store, CAMPAIGN)
    report: dict[str, Any] = {"mode": mode, "batches": [], "conflicts": [], "stale_refused": []}
    while not os.path.exists(go):
        time.sleep(0.001)
    done = batch_no = 0
    while done < count:
        size = min(count - done, rng.randint(1, 5) if mode == "shared" else rng.randint(1, 20))
        batch_no += 1
        attempt = 0
        while True:
            texts = [f"w{writer}:{done + i}:a{attempt}" for i in range(size)]
            if mode == "shared":
                events = [NoteAdded(text=t) for t in texts]
                version = store.stream_version(CAMPAIGN, "campaign")
                time.sleep(rng.random() / 5000)  # "think" between reading and writing: races
                stale = batch_no % 10 == 0 and attempt == 0
                expected = {"campaign": version - 1 if stale else version}
                try:
                    recs = campaign.append(
                        events, actor=f"w{writer}", at=AT, expected_versions=expected
                    )
                except ConflictError as e:
                    (report["stale_refused"] if stale else report["conflicts"]).append(
                        {"texts": texts, "message": str(e)}
                    )
                    attempt += 1
                    continue
                seqs = [r.seq for r in recs]
            else:
                stream = f"w{writer}"
                version = store.stream_version(CAMPAIGN, stream)
                rows = store.append(
                    CAMPAIGN,
                    [Pending(NoteAdded(text=t, character=stream)) for t in texts],
                    actor=f"w{writer}",
                    recorded_at=AT,
                    session=None,
                    expected_versions={stream: version},
                )
                seqs = [e.seq for e in rows]
            report["batches"].append({"texts": texts, "seqs": seqs})
            break
        done += size
    Path(out).write_text(json.dumps(report))


def run_writers(tmp_path: Path, writers: int, count: int) -> tuple[str, list[dict]]:
    """Create the campaign, run ``writers`` processes at once, return their reports."""
    db = str(tmp_path / "race.db")
    Campaign.create(Store(db), CAMPAIGN, system="decision-dice", actor="gm", at=AT)
    go = tmp_path / "go"
    procs = []
    for w in range(writers):
        mode = "shared" if w % 2 == 0 else "own"
        out = str(tmp_path / f"w{w}.json")
        code = (
            "import sys; from tests.test_reliability_concurrency import worker; "
            "worker(sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), "
            "sys.argv[5], sys.argv[6])"
        )
        args = [sys.executable, "-c", code, db, str(w), mode, str(count), str(go), out]
        procs.append(
            subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        )
    time.sleep(0.5)  # let every writer import and open the ledger
    go.write_text("go")
    reports = []
    for w, proc in enumerate(procs):
        stdout, stderr = proc.communicate(timeout=600)
        assert proc.returncode == 0, f"writer {w} failed: {stderr.decode()[-2000:]}"
        reports.append(json.loads((tmp_path / f"w{w}.json").read_text()))
    return db, reports


def check_ledger(db: str, reports: list[dict], writers: int, count: int) -> dict[str, int]:
    """Every assertion of the concurrency bar; returns the figures for docs/reliability.md."""
    store = Store(db)
    rows = list(store.rows(CAMPAIGN, columns="seq, stream, version, data, actor"))
    seqs = [r[0] for r in rows]
    total = 1 + writers * count
    assert seqs == list(range(1, total + 1)), "seq is not gap-free 1..N (lost or extra events)"
    texts = Counter(json.loads(r[3]).get("text") for r in rows[1:])
    assert all(n == 1 for n in texts.values()), "an event was written twice"
    committed = {t for rep in reports for b in rep["batches"] for t in b["texts"]}
    assert len(committed) == writers * count
    assert set(texts) == committed, "the ledger and the writers disagree on what was committed"
    by_text = {json.loads(r[3])["text"]: r[0] for r in rows[1:]}
    for rep in reports:
        for batch in rep["batches"]:
            # each writer was told the truth, and its batch landed contiguously
            assert [by_text[t] for t in batch["texts"]] == batch["seqs"]
            assert batch["seqs"] == list(range(batch["seqs"][0], batch["seqs"][-1] + 1))
        for refused in rep["conflicts"] + rep["stale_refused"]:
            assert CONFLICT.search(refused["message"]), refused["message"]
            assert not set(refused["texts"]) & set(texts), "a refused batch was half-written"
    shared = [r[2] for r in rows if r[1] == "campaign"]
    assert shared == list(range(1, len(shared) + 1))
    report = verify_store(store, CAMPAIGN)
    assert report.ok, (report.bad_seq, report.problem)
    assert report.events == total
    result = CliRunner().invoke(cli, ["--db", db, "verify", "--json"])
    assert result.exit_code == 0 and json.loads(result.output)["ok"]
    stale = sum(len(rep["stale_refused"]) for rep in reports)
    assert stale == sum(len(rep["batches"]) // 10 for rep in reports if rep["mode"] == "shared"), (
        "a deliberately stale expected version was not refused"
    )
    return {
        "events": total,
        "conflicts_raced": sum(len(rep["conflicts"]) for rep in reports),
        "conflicts_stale": stale,
    }


def test_four_writers_small(tmp_path):
    """Fast version: 4 processes (2 shared, 2 own streams) x 100 events."""
    db, reports = run_writers(tmp_path, 4, 100)
    check_ledger(db, reports, 4, 100)


@pytest.mark.slow
def test_eight_writers_thousand_events_each(tmp_path):
    """The bar: 8 processes x 1,000 events, 4 racing on one stream with expected versions."""
    db, reports = run_writers(tmp_path, 8, 1000)
    figures = check_ledger(db, reports, 8, 1000)
    print(f"\nconcurrency figures: {figures}")
