"""Campaign Ledger: an event-sourced campaign engine with rule-system plugins.

The public API for plugin authors (docs/plugin-guide.md, "Public API"): everything a rule
system, a plugin command or a listener needs is importable from ``ledger``; chart helpers
from :mod:`ledger.rules.charts`, test helpers from :mod:`ledger.testing`. A plugin imports nothing
else from ``ledger`` (tests/test_public_api.py holds the bundled plugins to it).

The helpers for plugin commands (``App``, ``pass_app``, ``echo_json``, ``json_option``,
``now``, ``describe``) and ``Campaign`` are imported on first use, so that ``import ledger``
stays lean: use them inside a command's body (or ``register_commands``), not at a plugin
module's top level.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ledger.dice.engine import (
    DiceError,
    DiceSource,
    EngineDice,
    PhysicalDice,
    ReplayDice,
    parse_faces,
)
from ledger.errors import RuleError
from ledger.events import (
    CampaignCreated,
    CharacterCreated,
    ContestOpposed,
    Corrected,
    Event,
    NoteAdded,
    Recorded,
    Roll,
    SceneEnded,
    SceneStarted,
    SessionAbandoned,
    SessionEnded,
    SessionStarted,
    StoredEvent,
    TimePassed,
    Visibility,
    event_tag,
)
from ledger.rules.changes import entry_changes
from ledger.rules.exact import (
    at_least,
    at_least_table,
    chance_table,
    contest,
    fraction_text,
    fraction_texts,
    mean,
    most_likely,
    pool_distribution,
    shifted,
    summary,
)
from ledger.rules.form import FUDGE_FACES
from ledger.rules.hookspecs import hookimpl
from ledger.rules.names import closest_name, find_name, name_in
from ledger.rules.projection import applying_seq
from ledger.rules.roll_inputs import Opponent, RollParam, RollRequest
from ledger.rules.sheet_check import check_sheet
from ledger.rules.sheets import Line, Section, Sheet, Table, Track, signed
from ledger.rules.spans import DAY, HOUR, WEEK, TimeDice, parse_duration, span_words
from ledger.rules.system import RuleSystem, applies, describes
from ledger.rules.wording import counted
from ledger.templating import fill

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign
    from ledger.cli import App, echo_json, json_option, now, pass_app
    from ledger.history.words import describe

#: ``{name: module}`` of the names imported on first use (PEP 562).
_LAZY = {
    "App": "ledger.cli",
    "pass_app": "ledger.cli",
    "echo_json": "ledger.cli",
    "json_option": "ledger.cli",
    "now": "ledger.cli",
    "describe": "ledger.history.words",
    "Campaign": "ledger.campaign.aggregate",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ledger' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    # rule systems
    "RuleSystem",
    "RollParam",
    "RollRequest",
    "FUDGE_FACES",
    "Opponent",
    "RuleError",
    "applies",
    "describes",
    # words (RuleSystem.describe, describe_changes) and names typed by a person
    "fill",
    "counted",
    "entry_changes",
    "name_in",
    "closest_name",
    "find_name",
    # sheets (RuleSystem.sheet_layout)
    "Sheet",
    "Section",
    "Line",
    "Track",
    "Table",
    "check_sheet",
    "signed",
    # exact odds
    "pool_distribution",
    "at_least",
    "at_least_table",
    "mean",
    "most_likely",
    "shifted",
    "contest",
    "fraction_text",
    "fraction_texts",
    "summary",
    "chance_table",
    "ContestOpposed",
    "applying_seq",
    "hookimpl",
    # events
    "Event",
    "Roll",
    "Recorded",
    "StoredEvent",
    "Visibility",
    "event_tag",
    "CampaignCreated",
    "CharacterCreated",
    "SessionStarted",
    "SessionEnded",
    "SessionAbandoned",
    "SceneStarted",
    "SceneEnded",
    "NoteAdded",
    "Corrected",
    "TimePassed",
    # in-fiction time
    "DAY",
    "HOUR",
    "WEEK",
    "TimeDice",
    "parse_duration",
    "span_words",
    # dice sources
    "DiceSource",
    "DiceError",
    "EngineDice",
    "PhysicalDice",
    "ReplayDice",
    "parse_faces",
    # plugin commands and listeners (imported on first use)
    "App",
    "Campaign",
    "pass_app",
    "echo_json",
    "json_option",
    "now",
    "describe",
]
