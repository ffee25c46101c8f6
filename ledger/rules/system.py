"""The rule-system interface every plugin implements (docs/plugin-guide.md).

A plugin subclasses :class:`RuleSystem`, registers an instance through the
``register_rule_systems`` hook, and the engine does the rest: it decodes the plugin's event
types, folds them through the plugin's appliers into per-character state, calls
:meth:`RuleSystem.resolve` for ``campaign roll``, :meth:`RuleSystem.advance` for
``campaign advance`` and :meth:`RuleSystem.odds` for ``campaign odds``.

Dispatch is resolved once: :func:`applies` marks appliers and :func:`describes` marks the
methods that word an event; :meth:`RuleSystem.appliers` and :meth:`RuleSystem.describers`
build the ``{event class: function}`` tables the projection and :mod:`ledger.history.words`
use for every event. A system names its chart module (:attr:`RuleSystem.chart`) and the base
class wires ``campaign odds --plot`` to it.

The marks and their tables live in :mod:`ledger.rules.marks`, the words a system gives
(describe, changes, recap notes, verdicts) in :mod:`ledger.rules.wording`;
both are importable from here as before.

A system is generic in its state and options types, ``RuleSystem[Character, Options]``, so
``self.options`` is typed in every method without a check.
"""

from __future__ import annotations

import abc
import copy
import functools
import importlib
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Self, TypeVar

import msgspec

from ledger.errors import RuleError
from ledger.events import Event, Recorded, Roll, RollInputs, TimePassed, event_tag
from ledger.rules.form import RollForm
from ledger.rules.marks import applies, describes, marked
from ledger.rules.roll_inputs import Opponent, RollParam, RollRequest
from ledger.rules.turns import Turns
from ledger.rules.wording import SEED_NAME, VERDICTS, Wording

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ledger.dice.engine import DiceSource
    from ledger.rules.sheets import Sheet

__all__ = [
    "SEED_NAME",
    "VERDICTS",
    "OptionsT",
    "RuleSystem",
    "StateT",
    "applies",
    "describes",
]

#: Class attributes a rule system no longer declares: each option's label, default, whether
#: it is common and its odds role are fields of its one :class:`RollParam`.
_SECOND_DECLARATIONS = (
    "roll_params", "odds_params", "roll_labels", "roll_defaults", "common_roll_params",
    "refusal_fields",
)

#: A rule system's per-character state (a frozen ``msgspec.Struct``).
StateT = TypeVar("StateT")
#: A rule system's campaign options (a ``msgspec.Struct``, every field defaulted).
OptionsT = TypeVar("OptionsT")


def _derive_event_types(cls: type[RuleSystem[Any, Any]]) -> None:
    """Set ``cls.event_types`` and ``cls.sections`` from its marks and its events' ``section``
    unless the class (or a parent) declares them."""
    if "event_types" in vars(cls):
        cls._declares_event_types = True
    elif not cls._declares_event_types:
        found: dict[type[Event], None] = {}
        for attr in ("__ledger_applies__", "__ledger_describes__"):
            for klass in reversed(cls.__mro__):
                for value in vars(klass).values():
                    found.update(dict.fromkeys(getattr(value, attr, ())))
        prefix = f"{cls.id}."
        cls.event_types = tuple(t for t in found if cls.id and event_tag(t).startswith(prefix))
    if "sections" in vars(cls):
        cls._declares_sections = True
    elif not cls._declares_sections:
        cls.sections = {
            event_tag(t): getattr(t, "section", "")
            for t in cls.event_types
            if getattr(t, "section", "")
        }


@functools.cache
def _fields_of(options_type: type[msgspec.Struct]) -> dict[str, msgspec.structs.FieldInfo]:
    """``{option name: field}`` of a system's ``options_type``, read once per class
    (msgspec evaluates the class's annotations each time it is asked)."""
    return {f.encode_name: f for f in msgspec.structs.fields(options_type)}


class RuleSystem(Wording, RollForm, Turns, abc.ABC, Generic[StateT, OptionsT]):
    """Base class of a rule system. Subclass and set the class attributes.

    :cvar id: the system id, e.g. ``"wyrd-engine"``; prefix of its event tags.
    :cvar name: human name, e.g. ``"The Wyrd Engine"``.
    :cvar source: the seed file of the rule text, e.g. ``"000_60e07241544698f0.txt"``: for
        developers (docstrings cite it); people are shown :attr:`book` instead.
    :cvar book: the title of the book the rules come from, as its text gives it (e.g.
        ``"Terran Engine SRD v0.4.5"``); ``campaign systems``, ``audit`` and help show it
        (default: :attr:`name`). Event docstrings, shown as help, name it, not :attr:`source`.
    :cvar event_types: the plugin's event classes (tags ``"<id>.<past_tense>"``). Default:
        every event class of this system (its tag starts with ``"<id>."``) that one of its
        methods :func:`applies` or :func:`describes`, appliers first, in the order they are
        written: an event type is written once, as its class, and named by its applier.
    :cvar state_type: a frozen ``msgspec.Struct`` holding one character's state (it is
        encoded for snapshots, so keep it msgspec-serialisable).
    :cvar options_type: a ``msgspec.Struct`` of campaign options, every field defaulted.
    :cvar roll_options: every option of the system's rolls and odds, each declared once
        (:class:`~ledger.rules.roll_inputs.RollParam`: name, label in the book's words, help,
        type, range or choices, default, common, words, and whether the roll, the odds or
        both take it). ``campaign roll``/``request``/``odds``, the roll form, the GM's
        request form, the API's schema and completion all read it: see
        :attr:`roll_params` and :attr:`odds_params`.
    :cvar sections: ``{type tag: section of the seed it implements}``, shown by audits.
        Default: each of :attr:`event_types` by its own ``section`` class variable
        (a class attribute of the event: ``section = "Supply Rolls"``).
    :cvar example_roll: one ``campaign roll`` line (without ``campaign``) from the book's
        worked examples, shown by ``roll --help`` in a campaign of this system and by
        ``campaign systems ID``; a comment after ``#`` says where in the book it is from.
    :cvar contests: the system resolves rolls against a character on the ledger
        (:class:`Opponent` in :attr:`RollRequest.opponent`); its roll events then record
        the opponent's id in a field ``vs_character`` (read back by :meth:`opponent_of`).
    :cvar has_harm: ``True`` when :meth:`harm_event` turns an amount of damage into an event
        (``campaign damage CHARACTER AMOUNT``); ``False`` (the default): the system records
        harm in its own terms only (``campaign record ...``).
    :cvar chart: the module that draws this system's odds chart, relative to the system's
        package (``".odds"``) or absolute: its ``odds_series(system, params)`` and
        ``draw_odds(data)`` answer :meth:`odds_series` and :meth:`draw_odds`; ``""`` (the
        default): a generic bar per probability.
    :cvar time_spans: the book's named spans of time ``campaign time pass`` takes besides
        ``8h``/``3d``/``2w``: ``{words: (minutes, rest)}`` (``{"a night's sleep": (480,
        True)}``); ``rest`` says the characters rest through it.
    :cvar upcasters: ``{type tag: {stored schema version: step}}`` (or one function per tag;
        :class:`ledger.codec.Codec`, docs/plugin-guide.md "Revising an event type"): old
        shapes are upcast on read, never rewritten (the hash chain covers the stored bytes).

    Instances are configured per campaign with :meth:`configure`; ``self.options`` is then
    an ``options_type`` instance.
    """

    id: ClassVar[str] = ""
    name: ClassVar[str] = ""
    source: ClassVar[str] = ""
    book: ClassVar[str] = ""
    event_types: ClassVar[tuple[type[Event], ...]] = ()
    state_type: ClassVar[type[msgspec.Struct]]
    options_type: ClassVar[type[msgspec.Struct]]
    roll_options: ClassVar[tuple[RollParam, ...]] = ()
    upcasters: ClassVar[dict[str, Any]] = {}
    sections: ClassVar[dict[str, str]] = {}
    example_roll: ClassVar[str] = ""
    contests: ClassVar[bool] = False
    has_harm: ClassVar[bool] = False
    chart: ClassVar[str] = ""
    time_spans: ClassVar[dict[str, tuple[int, bool]]] = {}
    _declares_event_types: ClassVar[bool] = False
    _declares_sections: ClassVar[bool] = False

    #: the campaign options: every default on an instance as registered, the campaign's
    #: after :meth:`configure`
    options: OptionsT = None  # type: ignore[assignment]

    def __init__(self) -> None:
        if self.options is None and hasattr(type(self), "options_type"):
            self.options = self.options_type()  # type: ignore[assignment]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for old in _SECOND_DECLARATIONS:
            if old in vars(cls):
                raise TypeError(
                    f"{cls.__qualname__}.{old}: declare each option once in roll_options "
                    "(RollParam's label, default, common, choices and roll/odds say the rest)"
                )
        _derive_event_types(cls)
        names = [p.name for p in vars(cls).get("roll_options", ())]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise TypeError(f"{cls.__qualname__}.roll_options declares {twice[0]!r} twice")

    @property
    def roll_params(self) -> tuple[RollParam, ...]:
        """The options of this system's rolls (``campaign roll`` and ``request``, the forms,
        the API): :attr:`roll_options` the roll takes, in declaration order."""
        return tuple(p for p in self.roll_options if p.roll)

    @property
    def odds_params(self) -> tuple[RollParam, ...]:
        """The options ``campaign odds SYSTEM`` takes: :attr:`roll_options` the odds take
        (every roll option unless it says ``odds=False``, and the odds' own ones, which say
        ``roll=False``), each with its :attr:`~RollParam.odds_help` where it has one."""
        from dataclasses import replace

        return tuple(
            replace(p, help=p.odds_help) if p.odds_help else p
            for p in self.roll_options
            if p.odds
        )

    def configure(self, options: dict[str, Any] | None = None) -> Self:
        """A copy of this system bound to campaign ``options`` (validated).

        :raises RuleError: an unknown option, or a value of the wrong type (naming the
            option, what it takes and an example: :func:`ledger.kinds.option_problem`).
        """
        fields = _fields_of(self.options_type)
        unknown = sorted(set(options or {}) - set(fields))
        if unknown:
            raise RuleError(
                f"bad option for {self.id}: no option {', '.join(map(repr, unknown))} "
                f"(options: {', '.join(sorted(fields)) or 'none'})"
            )
        for key, value in (options or {}).items():  # each named, with what it takes
            try:
                msgspec.convert(value, fields[key].type, strict=False)
            except msgspec.ValidationError:
                from ledger.kinds import option_problem

                raise RuleError(option_problem(self.id, fields[key], value)) from None
        try:
            opts = msgspec.convert(options or {}, self.options_type, strict=False)
        except msgspec.ValidationError as e:
            raise RuleError(f"bad option for {self.id}: {e}") from None
        bound = copy.copy(self)
        bound.__dict__.pop("_describers", None)  # bound to the copy, not to this instance
        bound.options = opts  # type: ignore[assignment]  # an options_type instance
        return bound

    def appliers(self) -> dict[type[Event], Callable[[Any, Event], Any]]:
        """``{event class: bound applier}``, built once from the :func:`applies` marks."""
        return marked(self, "__ledger_applies__")

    @abc.abstractmethod
    def create_sheet(self, sheet: dict[str, Any]) -> dict[str, Any]:
        """Validate a character sheet (parsed TOML) and return it normalised.

        :raises RuleError: naming every broken creation rule at once.
        """

    @abc.abstractmethod
    def initial_state(self, character: str, name: str, sheet: dict[str, Any]) -> Any:
        """The ``state_type`` instance of a newly created character."""

    def sheet_view(self, state: Any, *, as_gm: bool) -> dict[str, Any]:
        """The sheet as a JSON-ready dict. With ``as_gm=False`` omit GM-only facts."""
        return msgspec.to_builtins(state)

    def sheet_layout(self, state: Any, *, as_gm: bool) -> Sheet:
        """The sheet as a person reads it (``campaign sheet``, ``--format html``, the web view).

        Override to lay the sheet out in the book's words: skills in rating order with the
        book's names, tracks drawn (:class:`ledger.rules.sheets.Track`), wounds and conditions with
        what they do now, zero/false/empty and internal fields left out. With
        ``as_gm=False`` the layout must hold no GM-only fact; with ``as_gm=True`` mark each
        with ``gm_only=True`` (the renderers show ``[GM]``).

        The default is :func:`ledger.rules.sheets.generic_layout` of :meth:`sheet_view`: zero,
        false and empty fields hidden, field names as words, never as paths.

        :returns: a :class:`ledger.rules.sheets.Sheet`.
        """
        from ledger.rules.sheets import generic_layout

        view = self.sheet_view(state, as_gm=as_gm)
        title = view.get("name") if isinstance(view.get("name"), str) else ""
        layout = generic_layout(view, title=title or "", subtitle=self.name)
        return msgspec.structs.replace(layout, as_gm=as_gm)

    # --- play ----------------------------------------------------------------------------

    @abc.abstractmethod
    def resolve(self, state: Any, request: RollRequest, dice: DiceSource) -> Roll:
        """Resolve a roll: draw dice from ``dice`` and return the roll event.

        The event carries every die face, modifier and the outcome band beside the fields
        :meth:`ledger.dice.engine.DiceSource.fields` gives (``source``, ``draws``, ``nonce``,
        ``client_seed``).

        :raises RuleError: unknown skill, impossible request.
        :raises ledger.dice.engine.DiceError: physical faces a die cannot show, too few or too many.
        """

    def request_of(self, event: Roll) -> RollRequest:
        """The request :meth:`resolve` turned into ``event``: the inverse of its inputs.

        The default reads the inputs the core records on the roll (``event.inputs``,
        :class:`ledger.events.RollInputs`: the skill as named, the declared options given,
        the opponent on the ledger), so a system need not write it. An override reads only
        the *input* fields of the recorded roll (the skill, the options the roll was asked
        with: DR, target, modifiers, traits, ...), never its results. Either way, for every
        event ``e`` that the core records::

            resolve(state, request_of(e), ReplayDice(e)) == e   (inputs aside)

        The core uses it to re-derive recorded results (``verify``, ``import``, ``audit``)
        and to re-resolve an amended roll (``correct``: the amended inputs are read back
        through this method). ``RollRequest.name`` is left empty: the core fills in the
        character's name.

        :raises RuleError: a roll recorded without its inputs (made by a release before
            they were kept, or by another system).
        """
        inputs = event.inputs
        if not isinstance(inputs, RollInputs):
            raise RuleError(f"{self.id} cannot re-derive {event_tag(type(event))} events")
        declared = {p.name: p for p in self.roll_params}
        params = {
            name: tuple(value) if declared[name].multiple and isinstance(value, list) else value
            for name, value in inputs.params.items()
            if name in declared
        }
        opponent = None
        if inputs.vs_character is not None:
            opponent = Opponent(inputs.vs_character, skill=inputs.vs_skill)
        character = str(getattr(event, "character", "") or "")
        return RollRequest(character, "", inputs.skill, params, opponent)

    def with_inputs(self, event: Roll, request: RollRequest) -> Roll:
        """``event`` as the core records it: with what it was asked (``inputs``) when this
        system reads its rolls back through the default :meth:`request_of`; unchanged when
        the system writes its own (its events hold their inputs in their own fields) or
        the event has its inputs already.

        :param request: the request :meth:`resolve` turned into ``event``; only the options
            this system declares are kept (by name, never a command-line flag).
        """
        if type(self).request_of is not RuleSystem.request_of or event.inputs is not msgspec.UNSET:
            return event
        declared = {p.name for p in self.roll_params}
        params = {
            name: list(value) if isinstance(value, tuple) else value
            for name, value in request.params.items()
            if name in declared and value is not None
        }
        opponent = request.opponent
        inputs = RollInputs(
            skill=request.skill,
            params=params,
            vs_character=opponent.character if opponent is not None else None,
            vs_skill=opponent.skill if opponent is not None else None,
        )
        return msgspec.structs.replace(event, inputs=inputs)

    def opponent_of(self, event: Event) -> str | None:
        """The id of the character on the ledger a recorded roll was made against
        (``--vs-character``), or ``None``: by default its ``vs_character`` field.

        The core uses it to link the roll with the opponent's ``contest.opposed`` event and
        to hand :meth:`rederive` the opponent's state as of the roll.
        """
        value = getattr(event, "vs_character", None)
        inputs = getattr(event, "inputs", None)
        if not value and isinstance(inputs, RollInputs):
            value = inputs.vs_character
        return value if isinstance(value, str) and value else None

    def rederive(
        self, state: Any, event: Roll, *, name: str, opponent: Opponent | None = None
    ) -> Roll:
        """The roll the rules give for ``event``'s recorded inputs and draws.

        :param state: the character's state just before the roll was appended (with the
            corrections then in force), as the fold gives it for the roll's stream.
        :param name: the character's display name.
        :param opponent: for a roll against a character on the ledger
            (:meth:`opponent_of`): that character's ``name`` and ``state`` just before the
            roll; merged into the :class:`Opponent` that :meth:`request_of` gives (which
            carries the recorded ``skill``).
        :returns: by default ``resolve(state, request_of(event), ReplayDice(event))``;
            override for rolls that :meth:`resolve` does not make (advancement rolls).
        :raises RuleError: the rules refuse the recorded inputs, or a roll against a
            character on the ledger is re-derived without that character's state.
        :raises ledger.dice.engine.DiceError: the rules draw other dice than were recorded.
        """
        from dataclasses import replace

        from ledger.dice.engine import ReplayDice

        request = replace(self.request_of(event), name=name)
        if request.opponent is not None:
            if request.opponent.character == request.character:
                raise RuleError(f"{name or request.character} cannot oppose their own roll")
            if opponent is None or opponent.state is None:
                raise RuleError(
                    f"the roll was made against {request.opponent.character!r}, whose state "
                    "before it is unknown (not a character of this campaign then)"
                )
            request = replace(
                request,
                opponent=replace(request.opponent, name=opponent.name, state=opponent.state),
            )
        dice = ReplayDice(event)
        result = self.resolve(state, request, dice)
        dice.finish()
        if isinstance(event.inputs, RollInputs) and result.inputs is msgspec.UNSET:
            result = msgspec.structs.replace(result, inputs=event.inputs)  # as recorded
        return result

    def harm_event(self, state: Any, character: str, amount: int) -> Event:
        """The event ``campaign damage CHARACTER AMOUNT`` appends: ``amount`` points of harm
        to ``character``, in the system's own terms. Override it and set ``has_harm = True``.

        :param state: the character's state now (GM view).
        :param character: the character's id.
        :param amount: 1 or more (the command refuses less).
        :returns: an event of this system; it is validated and applied like any other.
        :raises RuleError: the system records harm differently (the default), or the rules
            refuse this harm.
        """
        raise RuleError(f"{self.name} records harm differently: see `campaign record list`")

    def blind_form(self, event: Event) -> Event:
        """The event to append when ``event`` is recorded GM-only (``--blind``).

        Appliers see an event's payload, never its visibility, and later public events (a
        check's itemised penalties) are resolved from the GM's state. So an event whose
        effect a public event would itemise must not simply be hidden: return its GM-only
        counterpart (d20-world: a blind ``condition_added`` becomes ``hidden_condition_added``,
        whose penalty players see as one unexplained hidden modifier), or refuse it.

        Called by :meth:`ledger.campaign.aggregate.Campaign.append` for every event of a batch appended
        with ``visibility="gm"`` (rolls and corrections included), before validation.

        :returns: the event itself by default.
        :raises RuleError: the event cannot be kept secret (nothing is written).
        """
        return event

    def advance(
        self,
        states: dict[str, Any],
        session: int,
        session_events: Sequence[Recorded],
        dice: Callable[[str], DiceSource],
        choices: dict[str, Any],
    ) -> list[Event]:
        """End-of-session advancement: the events the rules give for one session.

        :param states: character id → state now (after advancement already appended).
        :param session: the session number being advanced.
        :param session_events: that session's events (corrections already honoured).
        :param dice: ``dice(client_seed)`` returns an engine dice source for one roll, drawn
            from the downtime seed committed at the session's end (scheme
            ``ledger-downtime-v1``). The client seed must be fixed by the rules before the
            roll, e.g. ``f"advance:{session}:{character}"``, never taken from a player's
            choices (a player could try client seeds until known dice pass). Under
            ``--dry-run`` the dice are placeholders: the outcome must follow from the dice
            alone, never from anything else random.
        :param choices: player choices given on the command line.
        :returns: events to append; must return ``[]`` when the session's advancement is
            already in the log (idempotence is checked by replay).
        """
        return []

    def time_passed(self, states: dict[str, Any], span: TimePassed) -> list[Event]:
        """What in-fiction time passing does, as the book says (``campaign time pass``).

        :param states: character id → state just before the span (GM view: GM-only
            conditions are there; their endings must be GM-only events too).
        :param span: the ``time.passed`` event: ``minutes``, the GM's ``words``, ``rest``
            (the characters rested through it) and ``care`` (they had proper care).
        :returns: the events the span implies, in order: a condition whose time ran out
            ends, a wound heals on the book's schedule, a rest recovers what the book says
            it recovers, an objective past its deadline fails. They are appended right after
            the ``time.passed`` in one batch, each validated and applied like any other,
            and are part of it (undoing it undoes them). Only what the text states: where
            it gives no number, read one from the campaign's options; where it is silent,
            return nothing. Default ``[]``: time changes nothing.

        Must be pure and depend on ``states``, ``span`` and the options only: the batch is
        checked on append by asking again.

        A rule that rolls (a healing roll per week of rest) adds a ``dice`` parameter to its
        override, ``def time_passed(self, states, span, dice=None)``: the core then passes
        ``dice(client_seed)``, which gives one engine dice source per roll, drawn from the
        open session's committed seed at its next nonce like any engine roll. Fix the
        client seed from the rules (``f"heal:{character}"``), return one roll event
        (``**source.fields()``) per call in the order drawn, and re-derive it in
        :meth:`rederive`; ``campaign verify`` re-checks its draws once the seed is revealed.
        Calling ``dice`` with no session open refuses the span (:class:`RuleError`).
        """
        return []

    def advance_odds(self, event: Event) -> dict[str, str] | None:
        """Exact odds of a planned advancement roll, shown by ``advance --dry-run``.

        :param event: a roll :meth:`advance` planned with placeholder dice: read its inputs
            (experience spent, threshold, ...), never its dice or outcome.
        :returns: ``{outcome: "n/d"}`` (e.g. ``{"success": "5/18"}``), or ``None`` when the
            rule system gives none.
        """
        return None

    @abc.abstractmethod
    def odds(self, params: dict[str, Any]) -> dict[str, Any]:
        """Exact probabilities for the mechanic; fractions as ``"n/d"`` strings."""

    def odds_series(self, params: dict[str, Any]) -> dict[str, Any]:
        """The numbers the odds chart draws for ``campaign odds SYSTEM [params] --plot``:
        whatever :meth:`draw_odds` needs, built from :meth:`odds` (asked once or for every
        point of a curve), probabilities as :class:`fractions.Fraction`. Kept apart from
        drawing so tests can check the numbers without matplotlib.

        Default: every ``"n/d"`` probability of ``odds(params)`` by its dotted path
        (:func:`ledger.rules.charts.generic_series`). Override with your game's own series; the
        helpers of :mod:`ledger.rules.charts` (``ask``, ``frac``, ``checked``) turn a missing or
        malformed value into one clear :class:`ledger.rules.charts.ChartError` line.

        :param params: the system's ``odds_params`` values, converted (as for :meth:`odds`).
        :raises RuleError: the params are refused (as :meth:`odds` refuses them).
        """
        module = self._chart_module()
        if module is not None:
            return dict(module.odds_series(self, params))
        from ledger.rules.charts import generic_series

        return generic_series(self, params)

    def draw_odds(self, data: dict[str, Any]) -> Figure:
        """The odds chart of :meth:`odds_series`'s ``data``, as a matplotlib
        :class:`~matplotlib.figure.Figure` (object-oriented API only, no pyplot): the core
        saves it to the ``--plot`` file (.png, .svg or .pdf).

        Default: a horizontal bar per probability (:func:`ledger.rules.charts.draw_generic`).
        Override with your game's chart, drawn with the helpers of :mod:`ledger.rules.charts`
        (``figure``, ``percent_axis``, ``stacked``, ``curves``, ``distribution``, ...);
        docs/plugin-guide.md "Drawing odds" shows one.
        """
        module = self._chart_module()
        if module is not None:
            return module.draw_odds(data)
        from ledger.rules.charts import draw_generic

        return draw_generic(self.id, data)

    def _chart_module(self) -> Any:
        """The :attr:`chart` module, imported on first use (``None`` without one)."""
        if not self.chart:
            return None
        # relative to the package of the class that names the chart (a subclass made
        # elsewhere, e.g. in a test, still finds its parent's chart)
        owner = next(k for k in type(self).__mro__ if "chart" in vars(k))
        package = owner.__module__.rpartition(".")[0] or owner.__module__
        return importlib.import_module(self.chart, package)

    def harm_of(self, event: Roll) -> tuple[str, int] | None:
        """The harm a roll against a character on the ledger deals (``campaign roll ...
        --vs-character X --apply``): ``(character id, amount)``, where the character is the
        opponent (an attack that hits) or the roller (a defence that fails) and the amount
        is what the system's harm event takes (``campaign damage``'s AMOUNT; 0 for a
        miss); ``None`` when the roll is not one that can harm (the default; ``--apply``
        is then refused)."""
        return None

    def follow_ups(self, state: Any, event: Roll, *, seq: int) -> list[Event]:
        """Events the rules append in the same batch right after the roll ``event`` (and
        its opponent's side and harm, if any): ``campaign roll`` writes them with it, so a
        roll and what it does to the campaign land together or not at all. ``state`` is the
        roller's state before the roll, ``seq`` the seq the roll will take. Each is
        validated and applied like any other event; an event without a ``character``
        goes to the campaign stream and so to every character (d20-world: a check's
        contribution to a shared objective, ruling R43; Terran Engine: an Effect on a
        Challenge the group shares, ruling T25). Default ``[]``."""
        return []

    def follow_up_of(self, event: Event) -> int | None:
        """The seq of the roll ``event`` was written with as one of its :meth:`follow_ups`
        (``None``: not a follow-up; the default). A follow-up is part of its roll: retracting
        the roll retracts it, amending the roll recomputes it (:mod:`ledger.campaign.corrections`),
        and ``verify`` checks both. The default reads the ``roll`` field of an event whose
        type says ``part_of_roll`` (it exists only with its roll, so it always names it:
        spellwoven's ``ContestEffortSpent``). Override it with :meth:`follow_ups` for an event
        that may also be written on its own; it must name its roll's seq (d20-world's
        ``check``, Terran Engine's ``roll``)."""
        roll = getattr(event, "roll", None) if type(event).part_of_roll else None
        return roll if isinstance(roll, int) else None

    def rule_section(self, event: Event) -> str | None:
        """The seed section an event implements (``sections``), for ``campaign audit``."""
        return self.sections.get(event_tag(type(event)))

    def automatic(self, event: Roll) -> str | RuleError | None:
        """A sentence when ``event`` is a result the rules give without rolling (an
        automatic failure or success), else ``None`` (the default). ``campaign roll`` shows
        it and asks before writing such a result, unless ``--auto`` says so up front.
        Return a :class:`RuleError` with ``param`` (not raised) when the sentence is about
        one option: the form shows it next to that field, the API points at it.

        Example (d20-world): ``"no check is made: Isa Marrow has none of time, tools or
        skill, so the rules give an automatic failure"``.
        """
        return None

    def settled_without_dice(self, event: Roll) -> str | RuleError | None:
        """Why a roll request for ``event`` asks for nothing: the rules give its result
        without a die. A request is refused with this sentence when it is made (``campaign
        request``, ``campaign play``, the GM's page and ``POST /api/v1/request`` alike), so
        no player is asked to "roll" dice that are never drawn.

        :param event: the roll the rules make of the request's inputs, resolved with
            throwaway dice (never written): read its inputs and gate, never its dice.
        :returns: one sentence in the book's words that names the options as a table says
            them, the rule (``"(d20-world, Checks)"``) and what to ask instead, e.g.
            ``"With neither Time nor Tools no check is made (d20-world, Checks): ..."``;
            a :class:`RuleError` with ``param`` (not raised) when it is about one option
            (d20-world's ``time``: the GM's form shows it by that field, the API points at
            ``/params/time``); ``None`` (the default): every request draws dice. A roll
            that draws no die all the same is refused by the core with a plainer sentence.
        """
        return None

    def npc_sheet(self, name: str, skills: dict[str, int]) -> dict[str, Any]:
        """The sheet of a quick non-player character (``campaign npc add NAME --skill
        X=N``), in the form :meth:`create_sheet` checks by the system's rules for NPCs.

        :param skills: ``{skill name: rating}`` as typed.
        :raises RuleError: the system's book gives no rules for NPCs (the default).
        """
        raise RuleError(
            f"{self.name} gives no rules for non-player characters: "
            "add one with a character sheet (docs/sheets.md)"
        )

    def skills_of(self, state: Any) -> Iterable[str]:
        """Skill names a character has: the web roll form's and the GM's request form's
        skill buttons, and the shell's completion (an unknown skill is ``resolve``'s own
        refusal, which should name the skills there are)."""
        return ()
