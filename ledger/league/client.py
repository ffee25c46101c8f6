"""A table talking to its league over HTTP (:mod:`ledger.league.server`): submit entries,
read a character's head, read the conflicts kept. The league's checkpoint is checked against
the key the table was given (``--league-key``), so a table knows which league it talks to.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from ledger.trust.notes import NoteError, Verifier, open_note


class LeagueUnreachable(OSError):
    """The league did not answer (offline): submit later with ``campaign league submit``."""


def _call(url: str, data: bytes | None = None) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except (urllib.error.URLError, OSError) as e:
        raise LeagueUnreachable(f"the league at {url} does not answer ({e})") from None


class LeagueClient:
    """The league at ``url`` whose checkpoint key is ``vkey``.

    :raises NoteError: a malformed key.
    """

    def __init__(self, url: str, vkey: str) -> None:
        self.url = url.rstrip("/")
        self.verifier = Verifier.parse(vkey)

    def check(self) -> None:
        """Check the league's checkpoint is signed by its key.

        :raises LeagueUnreachable: offline. :raises NoteError: another league answered.
        """
        status, body = _call(self.url + "/checkpoint")
        if status != 200:
            raise NoteError(f"the league answered {status} for its checkpoint")
        open_note(body, [self.verifier])

    def submit(self, note: str) -> dict[str, Any]:
        """Submit one signed entry: the league's verdict (``status``, ``problem``, ``conflict``)."""
        status, body = _call(self.url + "/entries", note.encode())
        try:
            return dict(json.loads(body))
        except ValueError:
            return {"status": "refused", "problem": f"the league answered {status}"}

    def head(self, passport: str) -> str | None:
        """The league's newest entry hash for ``passport`` (``None``: none)."""
        _, body = _call(f"{self.url}/characters/{passport}")
        return json.loads(body).get("head")

    def check_head(self, passport: str, head: str) -> str | None:
        """``None`` when a passport whose last entry is ``head`` is the league's newest for
        its character (or the league knows none of it), else why not (one line).

        :raises LeagueUnreachable: offline. :raises NoteError: the league's answer is not one.
        """
        from urllib.parse import quote

        status, body = _call(f"{self.url}/characters/{quote(passport, safe='')}?head={quote(head)}")
        try:
            answer = json.loads(body)
            problem = answer["problem"]
        except (ValueError, KeyError, TypeError):
            raise NoteError(f"the league answered {status} without a verdict on the head") from None
        return None if problem is None else str(problem)

    def refused(self, table: str) -> list[dict[str, str]]:
        """The conflicts kept that involve ``table``."""
        from urllib.parse import quote

        _, body = _call(f"{self.url}/refused?table={quote(table)}")
        return list(json.loads(body))
