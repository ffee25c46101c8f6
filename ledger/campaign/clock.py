"""The one clock the ledger reads: the laptop's UTC time, as stored in ``recorded_at``.

Pure functions take ``at=``; only the front ends (CLI, table shell, web) call :func:`now`.
A clock behind the ledger's head is worded by :func:`clock_warning`.
"""

from __future__ import annotations

import datetime


def now() -> str:
    """The current UTC time as stored in ``recorded_at``: ``"2026-11-26T19:00:00.000000Z"``."""
    moment = datetime.datetime.now(datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


#: A clock behind the ledger's head by less than this is not worth a warning (two machines'
#: clocks differ by milliseconds); its appends are stamped with the head's time all the same.
CLOCK_SLACK = datetime.timedelta(seconds=1)


def clock_warning(behind: datetime.timedelta) -> str:
    """What to tell the person whose clock is ``behind`` the ledger's last ``recorded_at``
    (:attr:`ledger.campaign.aggregate.Campaign.clock_behind`): ``"the clock is 90 minutes behind the ledger: ..."``."""
    seconds = int(behind.total_seconds())
    if seconds < 120:
        amount = f"{seconds} second{'s' if seconds != 1 else ''}"
    elif seconds < 120 * 60:
        amount = f"{seconds // 60} minutes"
    elif seconds < 48 * 3600:
        amount = f"{seconds // 3600} hours"
    else:
        amount = f"{seconds // 86400} days"
    return (
        f"the clock is {amount} behind the ledger: what you record is stamped with the "
        "ledger's last time instead, so its times never go backwards (set this computer's "
        "date and time)"
    )
