"""Joining a table in a league: the check a passport's last entry must pass, shared by
``campaign character add --passport --league`` and the GM's web page."""

from __future__ import annotations

from collections.abc import Callable

from ledger.errors import RuleError


class LeagueNotAsked(RuleError):
    """The league could not be asked (offline, another league answered, a malformed key):
    ``str()`` is one line; nothing is written."""


def newest_head(url: str, vkey: str) -> Callable[[str, str], str | None]:
    """A check for :func:`ledger.history.passports.join`'s ``newest``: asks the league at
    ``url`` (checkpoint key ``vkey``) whether a passport's last entry is its newest for that
    character (``None``: it is; else why not, one line).

    The league's checkpoint is checked against ``vkey`` first, here.

    :raises LeagueNotAsked: the league does not answer, or answers with another key, or
        ``vkey`` is malformed (here, or when the check is asked).
    """
    from ledger.league.client import LeagueClient, LeagueUnreachable
    from ledger.trust.notes import NoteError

    try:
        client = LeagueClient(url, vkey)
        client.check()
    except (NoteError, LeagueUnreachable) as e:
        raise LeagueNotAsked(f"cannot ask the league about the passport: {e}") from None

    def newest(passport: str, head: str) -> str | None:
        try:
            return client.check_head(passport, head)
        except (NoteError, LeagueUnreachable) as e:
            raise LeagueNotAsked(f"cannot ask the league about the passport: {e}") from None

    return newest
