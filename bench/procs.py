"""Timing whole processes as users run them: with byte-code compiled.

A user who installs with ``pip`` or ``uv`` gets every module compiled to ``.pyc`` (the
installers compile them), so a process imports byte-code and does not compile source. A
machine (or a shell) that sets ``PYTHONDONTWRITEBYTECODE=1`` never writes the ``.pyc`` of
an editable checkout, and every process then compiles each module it imports again: a
``campaign roll`` took about three times as long that way here. So before any process is
timed, :func:`compiled_env` compiles the environment's packages and this checkout's
sources (``python -m compileall``, once), and the timed processes run with that variable
removed from their environment. :data:`BYTECODE` says so in every report.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: What the reports say about the processes' byte-code.
BYTECODE = (
    "byte-code compiled (`python -m compileall` of the environment's packages and the "
    "checkout's ledger/ and plugins/ before timing; PYTHONDONTWRITEBYTECODE removed from "
    "the timed processes' environment)"
)


@functools.cache
def compiled_env() -> tuple[tuple[str, str], ...]:
    """Compile the environment's packages and the checkout's sources once; the environment
    (as ``(name, value)`` pairs) timed processes run with: this one's, without
    ``PYTHONDONTWRITEBYTECODE``."""
    paths = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    paths |= {str(ROOT / "ledger"), str(ROOT / "plugins")}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *sorted(p for p in paths if Path(p).exists())],
        check=False,  # a file that does not compile (a test fixture) is no reason to stop
        env=env,
        stdout=subprocess.DEVNULL,
    )
    return tuple(env.items())


def env(**extra: str) -> dict[str, str]:
    """The timed processes' environment (:func:`compiled_env`) with ``extra`` added."""
    return {**dict(compiled_env()), **extra}


def timed(cmd: list[str], environ: dict[str, str]) -> float:
    """Seconds from start to exit of ``cmd`` (its output discarded; a failure raises)."""
    t = time.perf_counter()
    subprocess.run(cmd, check=True, env=environ, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t
