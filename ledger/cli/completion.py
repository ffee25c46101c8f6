"""Shell completion for ``campaign`` in bash, zsh and fish, from the campaign itself.

Click's completion (``_CAMPAIGN_COMPLETE=bash_source campaign``, docs/cli.md "Shell
completion") asks this module what to offer; it answers with what the table shell offers
(:func:`ledger.cli.play.candidates`): commands, options, the campaign's characters, a
character's skills, a system's named values (DR names), record events and their fields. The
ledger is the one ``--db`` on the line names (or ``CAMPAIGN_DB``, or ``campaign.db``). Where
the campaign has nothing to offer (a ``--sheet FILE``, ``--db`` itself), click's own
completion answers (file names).
"""

from __future__ import annotations

import os

from click.shell_completion import (
    BashComplete,
    CompletionItem,
    FishComplete,
    ShellComplete,
    ZshComplete,
    add_completion_class,
)


def _ledger_of(args: list[str]) -> tuple[str, str | None]:
    """The ``--db`` and ``--campaign`` typed before the command (else the defaults)."""
    db = os.environ.get("CAMPAIGN_DB", "campaign.db")
    campaign = None
    words = iter(args)
    for word in words:
        name, eq, value = word.partition("=")
        if name not in ("--db", "--campaign"):
            if not word.startswith("-"):
                break  # the command: global options come before it
            continue
        if not eq:
            value = next(words, "")
        if name == "--db":
            db = value
        else:
            campaign = value or None
    return db, campaign


class _FromCampaign(ShellComplete):
    """Completions from the campaign (:func:`ledger.cli.play.candidates`), falling back to
    click's own (file names for ``PATH`` options) when the campaign offers nothing."""

    def get_completions(self, args: list[str], incomplete: str) -> list[CompletionItem]:
        from ledger.cli.base import App
        from ledger.cli.play import candidates

        db, campaign = _ledger_of(args)
        app = App(db, campaign, None, "gm")
        try:
            found = candidates(app, args, incomplete)
        finally:
            app.close()
        if found:
            return [CompletionItem(value) for value in found]
        if args and args[-1] == "--db":
            return [CompletionItem(incomplete, type="file")]
        return super().get_completions(args, incomplete)


class LedgerBash(_FromCampaign, BashComplete):
    """bash: ``eval "$(_CAMPAIGN_COMPLETE=bash_source campaign)"``."""


class LedgerZsh(_FromCampaign, ZshComplete):
    """zsh: ``eval "$(_CAMPAIGN_COMPLETE=zsh_source campaign)"``."""


class LedgerFish(_FromCampaign, FishComplete):
    """fish: ``_CAMPAIGN_COMPLETE=fish_source campaign | source``."""


def register() -> None:
    """Make ``campaign``'s completion in the three shells answer from the campaign."""
    for cls in (LedgerBash, LedgerZsh, LedgerFish):
        add_completion_class(cls)  # type: ignore[type-abstract]


__all__ = ["LedgerBash", "LedgerFish", "LedgerZsh", "register"]
