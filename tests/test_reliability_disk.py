"""A full disk loses nothing and never reads as success.

Each test puts one side of a command on a small tmpfs (:mod:`tests.tmpfs`, root only) and
checks the contract: the command either succeeds whole (its file verifies) or says, in one
line, "the disk is full at PATH (N kB free): nothing was written; free space and run it
again", exit 1, with nothing at the target, no temporary file left and every other file as
it was.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from ledger.campaign.aggregate import open_campaign
from ledger.events import NoteAdded
from ledger.store.sqlite import Store

from .test_outputs import checkpoint, refused, run
from .test_reliability_fuzz import fingerprint
from .tmpfs import mounts_fixture  # noqa: F401  (the fixture `mounts`)

AT = "2026-03-01T19:30:00.000000Z"
#: The notes that make the test campaign big enough to matter (2,000 of ~400 bytes: a
#: ledger of about 1.8 MB, an export of about 1.1 MB).
NOTES, NOTE = 2000, "x" * 400


def full(result, path: str) -> None:
    """The one line a full disk gets, naming ``path``."""
    refused(result, f"the disk is full at {path} (", "kB free): nothing was written")


def no_temporary_files(folder: Path) -> None:
    assert [p.name for p in folder.iterdir() if p.name.startswith(".campaign")] == []


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Made once for the module: the toy campaign with session 1 played and ended, then
    2,000 notes; its GM export, receipt and size as a ledger imported on a roomy disk."""
    from freezegun import freeze_time

    from ledger.rules.plugins import pm, rule_systems

    from .toy import ToyPlugin

    folder = tmp_path_factory.mktemp("big")
    path = str(folder / "ledger.db")
    pm.register(ToyPlugin(), name="toy")
    rule_systems.cache_clear()
    try:
        with freeze_time("2026-03-01 19:00:00", tick=True):
            commands = (
                ["new", "toybox", "--system", "toy"],
                ["session", "start"],
                ["roll", "ann", "brawl"],
                ["session", "end"],
            )
            sheet = folder / "ann.toml"
            sheet.write_text('name = "Ann Vance"\n[skills]\nbrawl = 2\n')
            for args in commands[:1]:
                assert run(path, *args).exit_code == 0, args
            assert run(path, "character", "add", "--sheet", str(sheet)).exit_code == 0
            for args in commands[1:]:
                assert run(path, *args).exit_code == 0, args
            store = Store(path)
            campaign = open_campaign(store)
            for i in range(0, NOTES, 100):
                notes = [NoteAdded(text=f"{i + k} {NOTE}") for k in range(100)]
                campaign.append(notes, actor="gm", at=AT)
            store.close()
            checkpoint(path)
            export = str(folder / "big.ndjson")
            assert run(path, "--as", "gm", "export", "-o", export).exit_code == 0
            roomy = str(folder / "measured.db")
            assert run(roomy, "import", export).exit_code == 0
            receipt = run(path, "verify").output.strip().splitlines()[-1]
    finally:
        pm.unregister(name="toy")
        rule_systems.cache_clear()
    return path, export, receipt, os.path.getsize(roomy)


@pytest.fixture
def big(built, toy_system, tmp_path):
    """A copy of the module's big ledger (``big.path``), its GM export (``big.export``),
    receipt and size as a freshly imported ledger (``big.size``, bytes)."""
    import shutil

    class Big:
        path = str(tmp_path / "ledger.db")
        export, receipt, size = built[1:]

    shutil.copy(built[0], Big.path)  # with its mode, as `cp` copies a ledger
    return Big


def sound(path: str) -> bool:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return conn.execute("pragma integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


@pytest.mark.parametrize("share", [0.6, 0.95, 1.05, 1.3, 1.7, 2.5])
def test_import_into_a_new_file_on_a_small_disk_is_whole_or_nothing(big, mounts, share):
    # Seen: on a disk with room for the WAL but not for the checkpoint, `import` printed
    # "Imported … chain and rolls verified", then failed, and left a corrupt ledger at the
    # path (integrity_check: "btreeInitPage() returns error code 11"): the checkpoint at
    # close failed silently and the temporary file was linked without its -wal
    size_kb = int(big.size * share) // 1024
    disk = mounts.tmpfs("disk", size_kb)
    target = str(disk / "restored.db")
    result = run(target, "import", big.export)
    if result.exit_code == 0:
        assert result.output.strip().splitlines()[-1].startswith("Imported campaign toybox")
        assert sound(target)
        verified = run(target, "verify")
        assert verified.exit_code == 0, verified.output
        assert verified.output.strip().splitlines()[-1] == big.receipt
        assert not os.path.exists(target + "-wal")
    else:
        full(result, target)
        assert "Imported" not in result.output
        assert sorted(p.name for p in disk.iterdir()) == []  # no ledger, no temporary file
    # room for the ledger once is enough: it is never built in a WAL and then copied
    assert (result.exit_code == 0) == (share >= 1.05), (share, result.output)


def test_copy_into_a_new_file_on_a_small_disk_leaves_nothing(big, mounts):
    disk = mounts.tmpfs("disk", big.size // 2 // 1024)
    target = str(disk / "copy.db")
    full(run(big.path, "copy", big.path, target), target)
    assert sorted(p.name for p in disk.iterdir()) == []


def test_copy_into_an_existing_ledger_on_a_full_disk_changes_nothing(big, mounts):
    disk = mounts.tmpfs("disk", big.size // 2 // 1024)
    target = str(disk / "other.db")
    assert run(target, "new", "other", "--system", "toy").exit_code == 0
    checkpoint(target)
    before = fingerprint(target)
    full(run(big.path, "copy", big.path, target), target)
    assert fingerprint(target) == before
    assert run(target, "verify").exit_code == 0
    assert run(target, "--campaign", "toybox", "log").exit_code == 1  # nothing copied


def test_import_into_an_existing_ledger_on_a_full_disk_changes_nothing(big, mounts):
    disk = mounts.tmpfs("disk", big.size // 2 // 1024)
    target = str(disk / "other.db")
    assert run(target, "new", "other", "--system", "toy").exit_code == 0
    checkpoint(target)
    before = fingerprint(target)
    full(run(target, "import", big.export), target)
    assert fingerprint(target) == before
    assert run(target, "verify").exit_code == 0
    assert [p.name for p in disk.iterdir()] == ["other.db"]


def test_reading_a_ledger_on_a_full_disk_says_the_disk_is_full(big, mounts):
    # Seen: "the ledger file cannot be used: disk I/O error" (SQLite cannot make the -shm)
    disk = mounts.tmpfs("disk", big.size // 1024 + 256)
    ledger = disk / "ledger.db"
    ledger.write_bytes(Path(big.path).read_bytes())
    mounts.fill(disk)
    for args in (["log"], ["verify"], ["sheet", "ann"], ["session", "list"]):
        full(run(str(ledger), *args), str(ledger))
    full(run(str(ledger), "note", "hello"), str(ledger))
    os.remove(disk / "filler")
    assert run(str(ledger), "verify").output.strip().splitlines()[-1] == big.receipt


@pytest.mark.parametrize(
    "command",
    [
        ["--as", "gm", "export", "-o", "{out}"],
        ["backup", "{out}"],
        ["recap", "--session", "1", "-o", "{out}"],
        ["recap", "--session", "1", "--format", "html", "-o", "{out}"],
        ["odds", "toy", "--target", "8", "--plot", "{png}"],
        ["fairness", "--plot", "{png}"],
    ],
    ids=["export", "backup", "recap", "recap-html", "odds-plot", "fairness-plot"],
)
def test_an_output_on_a_full_disk_keeps_the_old_file(big, mounts, command):
    # the ledger is on a roomy disk, the output on a full one: the old output stays whole
    disk = mounts.tmpfs("disk", 512)
    out, png = disk / "out.txt", disk / "chart.png"
    out.write_text("yesterday's\n")
    png.write_bytes(b"yesterday's chart")
    target = str(out if "{out}" in command else png)
    args = [a.format(out=out, png=png) for a in command]
    mounts.fill(disk)
    before = fingerprint(big.path)
    full(run(big.path, *args), target)
    assert out.read_text() == "yesterday's\n"
    assert png.read_bytes() == b"yesterday's chart"
    no_temporary_files(disk)
    assert fingerprint(big.path) == before


def test_standard_output_on_a_full_disk_says_the_file_is_incomplete(mounts, tmp_path):
    # `campaign export > file` on a full disk: the shell made the file, so this command
    # cannot take back what it wrote; it names the file and says it is incomplete
    import subprocess
    import sys

    ledger = str(tmp_path / "wyrd.db")
    assert run(ledger, "new", "casebook", "--system", "wyrd-engine").exit_code == 0
    store = Store(ledger)
    campaign = open_campaign(store)
    campaign.append([NoteAdded(text=f"{i} {NOTE}") for i in range(200)], actor="gm", at=AT)
    store.close()
    disk = mounts.tmpfs("disk", 32)
    out = disk / "export.ndjson"
    with open(out, "wb") as f:
        done = subprocess.run(
            [sys.executable, "-c", "from ledger.cli import main; main()", "--db", ledger, "export"],
            stdout=f,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert lines == [
        f"Error: the disk is full at {out} (0 kB free): what was written there is "
        "incomplete; free space and run it again"
    ], done.stderr
