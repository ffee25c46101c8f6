"""The ledger's errors: one family, recognised by type (never by message text).

::

    LedgerError
    ├── RuleError        a rule refuses an action (``problems``: one sentence each;
    │                    ``param``: the roll option it is about)
    ├── DiceError        dice that cannot be (faces a die cannot show, too few or too many)
    └── StoreError       the store refuses a write or cannot be used
        ├── ConflictError     an expected stream version is stale
        ├── StoreUnavailable  the database cannot be reached (nothing written: try again)
        └── CommitUnknown     the database went away while committing (look before retrying)

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

    :param param: the roll option (its declared name, ``"time"``) the refusal is about, or
        ``None``. The sentence names the option by its label, never by a command-line flag;
        each front end words the field itself: the CLI adds ``(--time)``, the phone's form
        shows the sentence next to the field, the JSON API's problem document points at
        ``/params/time``.
    """

    def __init__(self, *problems: str, param: str | None = None) -> None:
        self.problems = [p for p in problems if p]
        self.param = param
        super().__init__("; ".join(self.problems))


class StoreError(LedgerError):
    """The store refuses a write or cannot be used (unknown campaign, bad batch, a database
    that cannot be reached). Nothing written."""


class ConflictError(StoreError):
    """An expected stream version is stale: someone else appended first. Nothing written."""


class StoreUnavailable(StoreError):
    """The database cannot be reached just now: the server refused the connection or went
    away (a restart, a failover, a terminated backend), or no working connection came within
    the wait. Nothing was written, so the same work may safely be tried again; the store
    opens a fresh connection for its next call (a PostgreSQL store; a SQLite file never
    raises it)."""


class CommitUnknown(StoreError):
    """The database went away while a write was committing, and its outcome could not be
    learned afterwards: the write may or may not be stored. Not retried: look (the log, the
    head) before writing the same thing again, or it may be stored twice."""


class NotFound(RuleError):
    """A campaign, character or event that does not exist (with suggestions)."""
