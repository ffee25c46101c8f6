"""The one clock the ledger reads: the laptop's UTC time, as stored in ``recorded_at``.

Pure functions take ``at=``; only the front ends (CLI, table shell, web) call :func:`now`.
"""

from __future__ import annotations

import datetime


def now() -> str:
    """The current UTC time as stored in ``recorded_at``: ``"2026-11-26T19:00:00.000000Z"``."""
    moment = datetime.datetime.now(datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
