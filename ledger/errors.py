"""The ledger's errors: one family, recognised by type (never by message text).

::

    LedgerError
    ├── RuleError        a rule refuses an action (``problems``: one sentence each)
    └── StoreError       the store refuses a write or cannot be used
        └── ConflictError  an expected stream version is stale

Each backend translates its driver's errors into these at its own boundary, so nothing above
``ledger.store`` imports a driver or reads an error's text. Every one means: nothing was
written. The CLI prints ``str(error)`` on one line and exits 1.
"""

from __future__ import annotations


class LedgerError(Exception):
    """Base of every error the ledger raises on purpose. Nothing was written."""


class RuleError(LedgerError):
    """A rule refuses an action. ``problems`` lists every broken rule as a sentence.

    The CLI prints them on one line and exits 1; nothing is written.
    """

    def __init__(self, *problems: str) -> None:
        self.problems = [p for p in problems if p]
        super().__init__("; ".join(self.problems))


class StoreError(LedgerError):
    """The store refuses a write or cannot be used (unknown campaign, bad batch, a database
    that cannot be reached). Nothing written."""


class ConflictError(StoreError):
    """An expected stream version is stale: someone else appended first. Nothing written."""


class NotFound(RuleError):
    """A campaign, character or event that does not exist (with suggestions)."""
