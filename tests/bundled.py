"""The bundled campaigns (campaigns/) built once per test run and copied for each test.

Building all five takes tens of seconds; many tests read them (golden recaps and sheets,
the rules' answers, a round trip). :func:`built_campaigns` builds each once, at 2026-03-01
19:00 UTC with the golden randomness of :func:`golden_randomness`, into a folder every
pytest-xdist worker of the run shares (a file lock lets one worker build while the others
wait); conftest's ``bundled`` fixture hands a test its own copy, mode 0600.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import types
from pathlib import Path

import pytest
from filelock import FileLock

from ledger.cli.demo import build, bundled_campaigns

#: the bundled campaigns: every folder of campaigns/ with a campaign.toml
NAMES = sorted(p.name for p in bundled_campaigns().iterdir() if (p / "campaign.toml").exists())
#: the clock every build runs at (frozen: the builds are byte-identical run to run)
BUILT_AT = "2026-03-01 19:00:00"


def golden_randomness(mp: pytest.MonkeyPatch, label: bytes = b"golden") -> None:
    """Session seeds, checkpoint keys, passport ids and payload salts from counters that
    start at 0 (each labelled ``label``), so a build is byte-identical every run: what the
    golden recaps and sheets (tests/golden) were made with."""
    counter = iter(range(1000))
    mp.setattr(
        "ledger.dice.engine.new_seed",
        lambda: hashlib.sha256(b"%s %d" % (label, next(counter))).digest(),
    )
    keys = iter(range(1000))  # the campaigns' checkpoint keys, in campaign.created
    mp.setattr(
        "ledger.campaign.checkpoints.new_key_seed",
        lambda: hashlib.sha256(b"%s key %d" % (label, next(keys))).digest(),
    )
    passports = iter(range(1000))  # each character's passport id, in its first chronicle entry
    mp.setattr(
        "ledger.trust.chronicle.new_passport_id",
        lambda: hashlib.sha256(b"%s passport %d" % (label, next(passports))).hexdigest()[:32],
    )
    salts = iter(range(10**6))
    # only the codec's salts: sqlite-utils takes savepoint names from secrets.token_hex too,
    # so a new migration would shift every salt (and every receipt) after it
    fixed = types.SimpleNamespace(token_hex=lambda n: f"{next(salts):0{2 * n}x}")
    mp.setattr("ledger.codec.secrets", fixed)


def build_golden(name: str, db: Path) -> None:
    """Build bundled campaign ``name`` into a fresh ledger file ``db`` at :data:`BUILT_AT`
    with :func:`golden_randomness` (counters from 0 for this one campaign)."""
    from freezegun import freeze_time

    with pytest.MonkeyPatch.context() as mp, freeze_time(BUILT_AT):
        golden_randomness(mp)
        build(bundled_campaigns() / name, db, quiet=True)


def built_campaigns(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder holding ``NAME.db`` for every bundled campaign, built once for the run:
    under xdist in the folder the workers share (the first to take the lock builds), else
    in the run's own temporary folder."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    root = shared / "bundled-campaigns"
    with FileLock(str(root) + ".lock"):
        done = root / "done"
        if not done.exists():
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir()
            for name in NAMES:
                build_golden(name, root / f"{name}.db")
            done.write_text("\n".join(NAMES) + "\n")
    return root


def copy_built(root: Path, name: str, to: Path) -> Path:
    """A copy of bundled campaign ``name`` from ``root`` at ``to`` (its WAL too, if any),
    mode 0600; returns ``to``.

    :raises KeyError: ``name`` is not a bundled campaign.
    """
    if name not in NAMES:
        raise KeyError(f"no bundled campaign {name!r}: {', '.join(NAMES)}")
    for suffix in ("", "-wal"):
        source = Path(f"{root / name}.db{suffix}")
        if source.exists():
            target = Path(f"{to}{suffix}")
            shutil.copyfile(source, target)
            target.chmod(0o600)
    return to
