"""A test file run again in a pytest of its own, for the slow twins that search further."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_again(file: str, env: dict[str, str], tmp_path: Path) -> str:
    """The tests of ``file`` that are not slow, run in a pytest of their own (one process)
    with ``env`` added to the environment, so that settings read when the file is imported
    (how many examples a property tries) apply; its output. Fails the calling test, with
    the output's end, when any of them fails."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", file, "-q", "-n0", "-m", "not slow",
         "-p", "no:cacheprovider", "--basetemp", str(tmp_path / "run")],
        env={**os.environ, **env}, capture_output=True, text=True,
        cwd=Path(__file__).parent.parent,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    return done.stdout
