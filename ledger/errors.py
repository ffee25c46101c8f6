"""The ledger's errors: one family, recognised by type (never by message text).

::

    LedgerError
    ├── RuleError        a rule refuses an action (``problems``: one sentence each;
    │   │                ``param``: the roll option it is about)
    │   ├── NotFound     a campaign, character or event that does not exist
    │   └── Refused      what someone entered at the table is refused, with why (``reason``)
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

from typing import Literal


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
    head) before writing the same thing again, or it may be stored twice.

    When the write appended events, ``campaign``, ``seq`` and ``hash`` name the batch's
    last event as it would be stored (the batch is stored exactly when the campaign's event
    at ``seq`` has that ``hash``); ``None`` otherwise.
    """

    def __init__(
        self,
        message: str,
        *,
        campaign: str | None = None,
        seq: int | None = None,
        hash: str | None = None,
    ) -> None:
        super().__init__(message)
        self.campaign = campaign
        self.seq = seq
        self.hash = hash


class NotFound(RuleError):
    """A campaign, character or event that does not exist (with suggestions)."""


#: Why an entry was refused: ``input`` (what was sent is malformed or missing: no dice, no
#: reason, bad entropy), ``rules`` (the rules or the dice refuse it), ``automatic`` (the rules
#: settle it without dice and that was not accepted), ``conflict`` (another entry came
#: first, or the same form was sent twice), ``missing`` (no such thing for this person),
#: ``closed`` (a roll request already answered or withdrawn).
Reason = Literal["input", "rules", "automatic", "conflict", "missing", "closed"]


class Refused(RuleError):
    """What someone entered at the table is refused; nothing was written. The one refusal
    every front end shows: a roll, an answer to a roll request, an undo, a tap of the GM's
    page. It carries the sentence and data; each front end words it for its own controls
    and transport (the CLI prints the line and exits 1, a page shows it by the field and
    picks its status from ``reason``, the API puts it in a problem document).

    :ivar text: the one sentence (``str()`` of the error), without "nothing was written".
    :ivar reason: why (:data:`Reason`): the API and the pages answer 404 ``missing``, 409
        ``closed`` and ``conflict``, else 422.
    :ivar dice: the entered faces are at fault (a form shows it by the dice).
    :ivar secret: the sentence hides a GM-only reason (a player refused by a GM-only fact).
    :ivar automatic: for ``automatic``, the rules' own sentence (the CLI asks with it).
    :ivar param: the roll option the refusal is about (``"time"``), ``"dice"`` for the dice,
        or ``None``: each front end places it (the form's field, the API's JSON pointer).
    """

    def __init__(
        self,
        text: str,
        *,
        reason: Reason = "rules",
        dice: bool = False,
        automatic: str = "",
        secret: bool = False,
        param: str | None = None,
    ) -> None:
        super().__init__(text, param="dice" if dice else param)
        self.text = text
        self.reason: Reason = reason
        self.dice = dice
        self.secret = secret
        self.automatic = automatic
