"""Re-deriving recorded results: a roll is what its rule system's ``resolve`` gives.

DESIGN.md "Dice and verifiable randomness": a roll's recorded result (total, band, margin,
kept dice, experience, ...) is what its rule system's :meth:`~ledger.RuleSystem.resolve`
gives for its recorded inputs and draws. The hash chain only proves bytes were not changed
after they were written; :func:`result_problem` proves the written result follows from the
rules. ``verify``, ``import`` and ``audit`` call it for every roll, engine and physical.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from .codec import Codec
from .dice import DiceError
from .events import CAMPAIGN_STREAM, CharacterCreated, Event, Roll, event_tag
from .projection import Corrections, Projector, corrections_from
from .rulesystem import Opponent, RuleError, RuleSystem

_SHOWN = 3  # differing fields named in a problem sentence
#: How ``verify``, ``import`` and ``audit`` begin the problem of a forged result.
NOT_FOLLOWING = "the recorded result does not follow from its dice"


def result_problem(
    system: RuleSystem, state: Any, event: Roll, *, name: str, opponent: Opponent | None = None
) -> str | None:
    """Does ``event``'s recorded result follow from its inputs and draws?

    :param state: the character's state just before the roll (see
        :meth:`RuleSystem.rederive`).
    :param opponent: for a roll against a character on the ledger
        (:meth:`RuleSystem.opponent_of`), that character's name and state just before it.
    :returns: ``None`` when :meth:`RuleSystem.rederive` gives ``event`` back field for field,
        else one sentence naming the first fields that differ, recorded beside re-derived
        (``"recorded total 15, outcome 'success'; the rules give total 7, outcome
        'failure'"``), or why the rules refuse the recorded inputs.
    """
    try:
        if system.opponent_of(event) is not None:  # systems without contests need no keyword
            derived = system.rederive(state, event, name=name, opponent=opponent)
        else:
            derived = system.rederive(state, event, name=name)
    except (RuleError, DiceError) as e:
        return f"the rules refuse its recorded inputs and dice: {e}"
    recorded_fields = msgspec.to_builtins(event)
    derived_fields = msgspec.to_builtins(derived)
    if recorded_fields == derived_fields:
        return None
    keys = [
        k
        for k in sorted(set(recorded_fields) | set(derived_fields))
        if recorded_fields.get(k) != derived_fields.get(k)
    ]
    shown = keys[:_SHOWN]
    more = f" (and {len(keys) - _SHOWN} more)" if len(keys) > _SHOWN else ""
    recorded = ", ".join(f"{k} {recorded_fields.get(k)!r}" for k in shown)
    given = ", ".join(f"{k} {derived_fields.get(k)!r}" for k in shown)
    return f"recorded {recorded}{more}; the rules give {given} for its inputs and dice"


#: ``rows_of(seq, stream)``: the rows (in :data:`ledger.store.COLUMNS` order, oldest first)
#: of ``stream`` and the campaign stream with seq below ``seq``: what a refold reads.
RowsOf = Callable[[int, str], Iterable[tuple[Any, ...]]]


class ResultCheck:
    """Re-derives every roll's recorded result while a log is read in order (``verify``,
    ``import``, ``campaign verify FILE``).

    Feed it every row whose data is present, oldest first (:meth:`feed`); a redacted stub of
    a player's copy is left out, so the states are the player's view there and the GM's view
    on the GM's log. Each roll is checked with :func:`result_problem` against its
    character's state just before it, with the corrections then in force. A correction
    changes history: the states of the streams rolled on after it are folded again from the
    start (through ``rows_of``, or the rows kept in memory when ``rows_of`` is ``None``).

    :param system: the campaign's configured rule system.
    :param codec: the campaign's codec.
    :param rows_of: see :data:`RowsOf`; ``None`` keeps every fed row in memory instead.
    :ivar checked: rolls whose results re-derived.
    """

    def __init__(self, system: RuleSystem, codec: Codec, rows_of: RowsOf | None = None) -> None:
        self.system = system
        self.codec = codec
        self.projector = Projector(system, codec)
        self.roll_types = {tag for tag, cls in codec.types.items() if issubclass(cls, Roll)}
        self.states: dict[str, Any] = {}
        self.names: dict[str, str] = {}
        self.corrections = Corrections()
        self._pairs: list[tuple[int, Event]] = []
        self._fresh: set[str] | None = None  # after a correction: streams folded again since
        self._kept: list[tuple[Any, ...]] | None = [] if rows_of is None else None
        self._rows_of = rows_of
        self._streams: list[str | None] = []  # stream of seq i + 1 (None: not fed)
        self._contest: tuple[int, str, str] | None = None  # (seq, roller, opponent) awaiting
        self._brought: list[Event] = []  # the contest_events of the last contest, awaited
        self._bringing: list[Event] = []  # those of the roll awaiting its contest.opposed
        self.checked = 0

    def feed(self, row: tuple[Any, ...]) -> str | None:
        """Check one row (a roll's result) and fold it into the states.

        :param row: in :data:`ledger.store.COLUMNS` order, ``data`` as bytes or text.
        :returns: ``None``, or one sentence: the roll's result does not follow from its
            inputs and dice (:func:`result_problem`), or the data does not decode.
        """
        seq, stream, type_, data = row[0], row[2], row[4], row[5]
        if self._kept is not None:
            self._kept.append(row)
        self._streams.extend([None] * (seq - 1 - len(self._streams)))
        self._streams.append(stream)
        try:
            problem = self._link_problem(seq, stream, type_, data)
            if problem:
                return problem
            if type_ == "correction.recorded":
                correction = self.codec.decode(data, type_)
                self._pairs.append((seq, correction))
                self.corrections = corrections_from(self._pairs)
                self._fresh = set()
                return self._replay_corrected(seq, correction)
            elif type_ == "character.created":
                event = self.codec.decode(data, type_)
                assert isinstance(event, CharacterCreated)
                self.names[event.character] = event.name
            elif type_ in self.roll_types:
                problem = self._check(seq, stream, self.codec.decode(data, type_))
                if problem:
                    return problem
            if self._fresh is not None and stream in self.states and stream not in self._fresh:
                self._refold(seq, stream)  # a correction elsewhere may change it (#16)
            self.projector.fold([row], self.states, self.corrections)
        except (msgspec.ValidationError, msgspec.DecodeError, ValueError) as e:
            return f"its data does not decode as {type_}: {e}"
        except RuleError as e:  # the rules refuse it (a log written past the rules)
            return f"the rules refuse: {e}"
        return None

    def _link_problem(self, seq: int, stream: str, type_: str, data: Any) -> str | None:
        """A roll against a character on the ledger is followed by that character's
        ``contest.opposed`` naming it, and a ``contest.opposed`` follows its roll (#16)."""
        awaiting, self._contest = self._contest, None
        brought, self._brought = self._brought, []
        if brought:  # the opponent's side a roll brings, right after its contest.opposed
            if type_ != event_tag(type(brought[0])) or self.codec.decode(data, type_) != brought[0]:
                return (
                    f"a roll against a character on the ledger brings their "
                    f"{event_tag(type(brought[0]))} right after its contest.opposed, and it "
                    "does not follow as the roll gives it"
                )
            self._brought = brought[1:]
            return None
        if type_ == "contest.opposed":
            link = self.codec.decode(data, type_)
            if awaiting is None or (link.roll, link.roller, link.character) != awaiting:  # type: ignore[attr-defined]
                return (
                    f"a contest.opposed naming roll {link.roll} of {link.roller!r} "  # type: ignore[attr-defined]
                    "that is not the roll just before it against this character"
                )
            self._brought, self._bringing = self._bringing, []
            return None
        if awaiting is not None:
            return (
                f"roll {awaiting[0]} was made against {awaiting[2]!r}, but their side of it "
                "(contest.opposed) does not follow it"
            )
        if type_ in self.roll_types:
            roll = self.codec.decode(data, type_)
            opponent = self.system.opponent_of(roll)
            if opponent is not None:
                self._contest = (seq, stream, opponent)
                assert isinstance(roll, Roll)
                self._bringing = self.system.contest_events(roll, seq)
        elif type_.startswith(f"{self.system.id}.") and type_ in self.codec.types and (
            came := self.system.came_with(self.codec.decode(data, type_))
        ) is not None:
            return f"it names roll {came}, but does not come with it (right after its contest.opposed)"
        return None

    def pending_problem(self) -> str | None:
        """At the end of a log: a last roll against a character whose
        ``contest.opposed`` is missing (``None`` when there is none)."""
        if self._contest is None:
            return None
        seq, _roller, opponent = self._contest
        return (
            f"roll {seq} was made against {opponent!r}, but their side of it "
            "(contest.opposed) does not follow it"
        )

    def _replay_corrected(self, seq: int, correction: Any) -> str | None:
        """Replay the streams a correction touches with it in force (#14): a correction
        after which the rules refuse an event is a problem naming that event."""
        earlier: dict[int, Any] = dict(self._pairs)
        target = correction.target
        while target in earlier:  # a correction of a correction: its event's streams
            target = earlier[target].target
        stream = self._streams[target - 1] if 0 < target <= len(self._streams) else None
        streams = list(self.names) if stream in (None, CAMPAIGN_STREAM) else [stream]
        for name in streams:
            try:
                self._refold(seq, name)
            except RuleError as e:
                return f"the rules refuse the corrected history of event {target}: {e}"
        return None

    def _check(self, seq: int, stream: str, event: Event) -> str | None:
        assert isinstance(event, Roll)
        if self._fresh is not None and stream not in self._fresh:
            self._refold(seq, stream)
        state = self.states.get(stream)
        if state is None:
            return f"a roll of {stream!r}, who is not a character of this campaign"
        opponent = None
        oid = self.system.opponent_of(event)
        if oid is not None:
            if self._fresh is not None and oid not in self._fresh:
                self._refold(seq, oid)
            if oid in self.states:
                opponent = Opponent(oid, name=self.names.get(oid, ""), state=self.states[oid])
        try:
            problem = result_problem(
                self.system, state, event, name=self.names.get(stream, ""), opponent=opponent
            )
        except (KeyError, TypeError, AttributeError, IndexError, ValueError) as e:
            problem = f"the rules cannot re-derive it: {type(e).__name__} {e}"
        if problem:
            return f"{NOT_FOLLOWING}: {problem}"
        self.checked += 1
        return None

    def _refold(self, seq: int, stream: str) -> None:
        """Fold ``stream`` again from the start up to ``seq`` with today's corrections."""
        if self._rows_of is not None:
            rows: Iterable[tuple[Any, ...]] = self._rows_of(seq, stream)
        else:
            assert self._kept is not None
            rows = [r for r in self._kept if r[0] < seq and r[2] in (stream, CAMPAIGN_STREAM)]
        states = self.projector.fold(rows, {}, self.corrections)
        if stream in states:
            self.states[stream] = states[stream]
        else:
            self.states.pop(stream, None)
        assert self._fresh is not None
        self._fresh.add(stream)
