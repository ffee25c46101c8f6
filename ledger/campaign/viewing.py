"""A character's sheet as one viewer may see it: computed here once, for every front end.

``campaign sheet`` (and the same command in ``campaign play``), the web view's sheet pages
(a player's and the GM's) and the JSON API's ``GET /sheet/{character}`` all show
:func:`sheet_for`'s :class:`~ledger.rules.sheets.Sheet`; each only frames and renders it
(a heading, text, HTML or JSON).

The rule system lays the sheet out (:meth:`~ledger.rules.system.RuleSystem.sheet_layout`)
from the state the viewer may know: the players' state leaves out every GM-only event. Its
layout is then checked, never trusted:

- a players' sheet loses every item marked GM-only, even one a rule system put in the
  players' layout by mistake (:func:`~ledger.rules.sheets.players_only`);
- the GM's sheet marks ``[GM]`` every item the players' sheet does not show as it is
  (:func:`~ledger.rules.sheets.mark_gm_only`): a fact players do not see, or see otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ledger.rules.sheets import Sheet, mark_gm_only, players_only

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

__all__ = ["sheet_for"]


def sheet_for(
    campaign: Campaign,
    character: str,
    *,
    as_gm: bool,
    upto: int | None = None,
    save_snapshots: bool = True,
) -> Sheet:
    """``character``'s sheet as the GM (``as_gm``) or a player may see it, as of ``upto``.

    :param character: the character's id.
    :param as_gm: the GM's sheet (every fact, GM-only ones marked) or a players' sheet (no
        GM-only item, and nothing derived from a GM-only event).
    :param upto: the sheet after the event at this seq (default: the head).
    :param save_snapshots: whether replaying may save state snapshots (a web read does
        not: it keeps reads free of writes).
    :returns: the rule system's layout, checked; its title and subtitle are the system's
        (a front end heads it as it likes). ``as_gm`` on it says whose it is.
    :raises NotFound: no such character at ``upto``.
    """
    system = campaign.system
    players_state = campaign.state_of(
        character, upto=upto, as_gm=False, save_snapshots=save_snapshots
    )
    players = players_only(system.sheet_layout(players_state, as_gm=False))
    if not as_gm:
        return players
    state = campaign.state_of(character, upto=upto, as_gm=True, save_snapshots=save_snapshots)
    return mark_gm_only(system.sheet_layout(state, as_gm=True), players)
