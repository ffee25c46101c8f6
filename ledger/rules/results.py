"""Re-deriving recorded results: a roll is what its rule system's ``resolve`` gives.

docs/events.md "Engine dice schemes": a roll's recorded result (total, band, margin,
kept dice, experience, ...) is what its rule system's :meth:`~ledger.RuleSystem.resolve`
gives for its recorded inputs and draws. The hash chain only proves bytes were not changed
after they were written; :func:`result_problem` proves the written result follows from the
rules. ``verify``, ``import`` and ``audit`` call it for every roll, engine and physical.
"""

from __future__ import annotations

import array
import itertools
from collections.abc import Callable, Iterable
from typing import Any

import msgspec
from msgspec import UNSET

from ledger.codec import Codec
from ledger.dice.engine import DiceError
from ledger.errors import RuleError
from ledger.events import (
    CAMPAIGN_STREAM,
    CharacterCreated,
    ContestOpposed,
    Corrected,
    Event,
    Roll,
    StoredEvent,
    event_tag,
)
from ledger.rules.projection import Corrections, Projector, companions_of, corrections_from
from ledger.rules.roll_inputs import Opponent
from ledger.rules.spans import SPAN_HEADS, consequence_seqs, span_correction_problem
from ledger.rules.system import RuleSystem

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


def _fields(event: Event) -> dict[str, Any]:
    """An event's payload as plain data, without its ``type`` tag."""
    data: dict[str, Any] = msgspec.to_builtins(event)
    data.pop("type", None)
    return data


#: ``rows_of(seq, stream)``: the stored events (oldest first) of ``stream`` and the campaign
#: stream with seq below ``seq``: what a refold reads.
RowsOf = Callable[[int, str], Iterable[StoredEvent]]


class StreamsBySeq:
    """The stream of each seq fed, in 4 bytes a seq (an index into the streams seen), so a
    log of millions of events is checked in flat memory."""

    def __init__(self) -> None:
        self._at = array.array("I")  # seq i + 1: index into _names (0: not fed)
        self._names: list[str | None] = [None]
        self._index: dict[str, int] = {}

    def put(self, seq: int, stream: str) -> None:
        """Note ``stream`` as the stream of ``seq`` (seqs not fed before it: none)."""
        if seq - 1 > len(self._at):
            self._at.extend(itertools.repeat(0, seq - 1 - len(self._at)))
        i = self._index.get(stream)
        if i is None:
            i = self._index[stream] = len(self._names)
            self._names.append(stream)
        self._at.append(i)

    def get(self, seq: int) -> str | None:
        """The stream of ``seq``, or ``None`` (not fed, or outside the log read)."""
        return self._names[self._at[seq - 1]] if 0 < seq <= len(self._at) else None


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
        self._kept: list[StoredEvent] | None = [] if rows_of is None else None
        self._rows_of = rows_of
        self._streams = StreamsBySeq()  # the stream of each seq fed
        self._contest: tuple[int, str, str] | None = None  # (seq, roller, opponent) awaiting
        # the harm each contest roll deals by the rules, as ``(character, payload)``
        self._harm_given: dict[int, tuple[str, dict[str, Any]] | None] = {}
        self._harm_due: tuple[int, int] | None = None  # (harm seq, roll seq) awaiting
        # roll seq: (harm seq, roll type, harm type) of each harm applied with its roll
        self._harm_links: dict[int, tuple[int, str, str]] = {}
        self._roll_types: dict[int, str] = {}  # contest roll seq: its type
        self._tail: tuple[int, str] | None = None  # the roll whose batch may still run on
        self._follow_due: list[Event] = []  # its follow-ups not yet read
        # the campaign-stream facts a character created later holds too (held_by_newcomers)
        self._shared: list[tuple[int, Event]] = []  # with the corrections in force
        self._shared_log: list[tuple[int, Event]] = []  # as written
        # roll seq: (its type, [(seq, type)] of the follow-ups written with it)
        self._follow_links: dict[int, tuple[str, list[tuple[int, str]]]] = {}
        self._spans: dict[int, range] = {}  # time.passed seq: the seqs of its consequences
        self.checked = 0

    def feed(self, stored: StoredEvent) -> str | None:
        """Check one event (a roll's result) and fold it into the states.

        :returns: ``None``, or one sentence: the roll's result does not follow from its
            inputs and dice (:func:`result_problem`), or the data does not decode.
        """
        seq, stream, type_, data = stored.seq, stored.stream, stored.type, stored.data
        if self._kept is not None:
            self._kept.append(stored)
        self._streams.put(seq, stream)
        try:
            problem = self._link_problem(seq, stream, type_, data)
            if problem:
                return problem
            problem = self._follow_up_problem(seq, type_, data)
            if problem:
                return problem
            if type_ == "correction.recorded":
                correction = self.codec.decode(data, type_)
                self._pairs.append((seq, correction))
                self.corrections = corrections_from(self._pairs)
                self._fresh = set()
                self._shared = self._shared_in_force()
                return self._replay_corrected(seq, correction)
            elif type_ in SPAN_HEADS:  # its consequences follow it: time, a turn
                self._spans[seq] = consequence_seqs(seq, self.codec.decode(data, type_))
            elif type_ == "character.created":
                event = self.codec.decode(data, type_)
                assert isinstance(event, CharacterCreated)
                self.names[event.character] = event.name
            elif type_ in self.roll_types:
                problem = self._check(seq, stream, self.codec.decode(data, type_))
                if problem:
                    return problem
            kept = len(self._shared)
            self.projector.fold([stored], self.states, self.corrections, shared=self._shared)
            self._shared_log += self._shared[kept:]
        except (msgspec.ValidationError, msgspec.DecodeError, ValueError) as e:
            return f"its data does not decode as {type_}: {e}"
        except RuleError as e:  # the rules refuse it (a log written past the rules)
            return f"the rules refuse: {e}"
        return None

    def _link_problem(self, seq: int, stream: str, type_: str, data: Any) -> str | None:
        """A roll against a character on the ledger is followed by that character's
        ``contest.opposed`` naming it, and a ``contest.opposed`` follows its roll."""
        awaiting, self._contest = self._contest, None
        due, self._harm_due = self._harm_due, None
        if due is not None:
            problem = self._harm_problem(due, seq, stream, type_, data)
            if problem:
                return problem
        if type_ == "contest.opposed":
            link = self.codec.decode(data, type_)
            assert isinstance(link, ContestOpposed)
            if awaiting is None or (link.roll, link.roller, link.character) != awaiting:
                return (
                    f"a contest.opposed naming roll {link.roll} of {link.roller!r} "
                    "that is not the roll just before it against this character"
                )
            if link.harm is not UNSET:
                self._harm_due = (link.harm, link.roll)
            else:
                self._harm_given.pop(link.roll, None)
                self._roll_types.pop(link.roll, None)
            return None
        if awaiting is not None:
            return (
                f"roll {awaiting[0]} was made against {awaiting[2]!r}, but their side of it "
                "(contest.opposed) does not follow it"
            )
        if type_ in self.roll_types:
            opponent = self.system.opponent_of(self.codec.decode(data, type_))
            if opponent is not None:
                self._contest = (seq, stream, opponent)
        return None

    def _harm_problem(
        self, due: tuple[int, int], seq: int, stream: str, type_: str, data: Any
    ) -> str | None:
        """The event after a ``contest.opposed`` naming harm is that harm, as the rules
        give it for the roll (``--apply``)."""
        harm_seq, roll_seq = due
        if seq != harm_seq:
            return (
                f"roll {roll_seq}'s contest.opposed names its harm as event {harm_seq}, "
                "but that event does not follow it"
            )
        given = self._harm_given.pop(roll_seq, None)
        if given is None:
            return f"roll {roll_seq} deals no harm by the rules, but event {seq} records harm"
        who, payload = given
        recorded = msgspec.to_builtins(self.codec.decode(data, type_))
        recorded.pop("type", None)
        if stream != who or recorded != payload:
            return (
                f"event {seq} records harm {recorded!r} on {stream!r}; the rules give "
                f"{payload!r} on {who!r} for roll {roll_seq}"
            )
        self._harm_links[roll_seq] = (seq, self._roll_types.pop(roll_seq, ""), type_)
        return None

    def _expected_harm(
        self, event: Roll, states: dict[str, Any]
    ) -> tuple[str, dict[str, Any]] | None:
        """``(character, payload)`` of the harm ``event`` deals by the rules, with the
        characters' ``states`` just before it (``None``: no harm)."""
        dealt = self.system.harm_of(event)
        if dealt is None or dealt[1] <= 0 or dealt[0] not in states:
            return None
        who, amount = dealt
        try:
            harm = self.system.harm_event(states[who], who, amount)
        except RuleError:
            return None
        payload = msgspec.to_builtins(harm)
        payload.pop("type", None)
        return who, payload

    def pending_problem(self) -> str | None:
        """At the end of a log: a last roll against a character whose
        ``contest.opposed`` is missing, or whose follow-ups are (``None`` when none is)."""
        if self._contest is None:
            return self._missing_follow_ups()
        seq, _roller, opponent = self._contest
        return (
            f"roll {seq} was made against {opponent!r}, but their side of it "
            "(contest.opposed) does not follow it"
        )

    def _replay_corrected(self, seq: int, correction: Any) -> str | None:
        """Replay the streams a correction touches with it in force: a correction
        after which the rules refuse an event is a problem naming that event."""
        earlier: dict[int, Any] = dict(self._pairs)
        problem = self._companions_problem(seq, correction, earlier)
        if problem:
            return problem
        target = correction.target
        while target in earlier:  # a correction of a correction: its event's streams
            target = earlier[target].target
        stream = self._streams.get(target)
        streams = list(self.names) if stream in (None, CAMPAIGN_STREAM) else [stream]
        for corr in (correction, earlier.get(correction.target)):
            if isinstance(corr, Corrected):
                streams += [
                    s for c in companions_of(corr)
                    if (s := self._streams.get(c)) is not None
                ]
        if CAMPAIGN_STREAM in streams:  # a follow-up on the campaign stream: everyone
            streams = list(self.names)
        for name in streams:
            try:
                self._refold(seq, name)
            except RuleError as e:
                return f"the rules refuse the corrected history of event {target}: {e}"
        return None

    def _shared_in_force(self) -> list[tuple[int, Event]]:
        """The kept group facts with today's corrections: retracted ones dropped, amended
        ones as amended."""
        out = []
        for seq, event in self._shared_log:
            if seq in self.corrections.retracted:
                continue
            if seq in self.corrections.amended:
                event = self.codec.amended(event_tag(type(event)), self.corrections.amended[seq])
            out.append((seq, event))
        return out

    def _follow_up_problem(self, seq: int, type_: str, data: Any) -> str | None:
        """A roll's follow-ups (:meth:`RuleSystem.follow_ups`) come right after it in
        its batch (after its opponent's side and harm), exactly as the rules give them for
        the roll; an event that is part of a roll (``part_of_roll``) comes nowhere else.
        Keeps each roll's follow-ups for checking corrections later. Only the rows of a
        roll's batch, and ``part_of_roll`` types, are decoded."""
        tail = self._tail
        if type_ in self.roll_types:
            problem = self._missing_follow_ups()
            self._tail, self._follow_due = (seq, type_), []
            return problem
        if tail is not None and (
            type_ == "contest.opposed" or self._harm_links.get(tail[0], (None,))[0] == seq
        ):
            return None
        cls = self.codec.types.get(type_)
        if tail is None and not (cls is not None and cls.part_of_roll):
            return None
        event = self.codec.decode(data, type_)
        if tail is not None:
            roll_seq, roll_type = tail
            due = self._follow_due
            while due and type(due[0]).visibility == "gm" and due[0] != event:
                due.pop(0)  # a GM-only follow-up is not in a player's copy
            if due:
                want = due.pop(0)
                if want != event:
                    return (
                        f"roll {roll_seq} is followed by {event_tag(type(want))} "
                        f"{_fields(want)!r} by the rules; event {seq} is {type_} "
                        f"{_fields(event)!r}"
                    )
                self._follow_links.setdefault(roll_seq, (roll_type, []))[1].append((seq, type_))
                return None
            self._tail = None
        if type(event).part_of_roll:
            return (
                f"event {seq} ({type_}) is part of roll {self.system.follow_up_of(event)}, but "
                "it is not written with it as the rules give it"
            )
        return None

    def _missing_follow_ups(self) -> str | None:
        """The follow-ups the last roll is still owed (``None``: none)."""
        due = [e for e in self._follow_due if type(e).visibility != "gm"]
        if not due or self._tail is None:
            return None
        return (
            f"roll {self._tail[0]} is followed by {event_tag(type(due[0]))} "
            f"{_fields(due[0])!r} by the rules, but it does not follow it"
        )

    def _companions_problem(
        self, seq: int, correction: Corrected, earlier: dict[int, Any]
    ) -> str | None:
        """A correction's companions are the harm its roll applied, as the rules give it
        for the roll as corrected; a correction of a correction names none."""
        companions = companions_of(correction)
        if not companions:
            return None
        span = self._spans.get(correction.target)
        if span is not None:  # a span retracted with its consequences
            return span_correction_problem(seq, correction, companions, span)
        link = self._harm_links.get(correction.target)
        roll_type, follows = self._follow_links.get(correction.target, ("", []))
        parts = {s for s, _ in follows} | ({link[0]} if link else set())
        if correction.target in earlier or not set(companions) <= parts:
            return (
                f"correction {seq} also corrects event(s) {sorted(companions)}, which are not "
                f"the harm or follow-ups event {correction.target} was written with"
            )
        if follows:
            problem = self._follow_ups_problem(seq, correction, companions, roll_type, follows)
            if problem or link is None or link[0] not in companions:
                return problem
        assert link is not None
        harm_seq, roll_type, harm_type = link
        given: tuple[str, dict[str, Any]] | None = None
        if correction.action == "amend":
            amended = self.codec.amended(roll_type, correction.data or {})
            assert isinstance(amended, Roll)
            dealt = self.system.harm_of(amended)
            if dealt is not None and dealt[1] > 0:
                state = self._state_before(correction.target, dealt[0])
                if state is not None:
                    given = self._expected_harm(amended, {dealt[0]: state})
        recorded = companions[harm_seq]
        if recorded is not None:
            event = self.codec.amended(harm_type, recorded)
            recorded = msgspec.to_builtins(event)
            recorded.pop("type", None)
        if (given[1] if given else None) != recorded:
            return (
                f"correction {seq} sets the harm of roll {correction.target} (event "
                f"{harm_seq}) to {recorded!r}; the rules give "
                f"{given[1] if given else None!r} for the roll as corrected"
            )
        return None

    def _follow_ups_problem(
        self,
        seq: int,
        correction: Corrected,
        companions: dict[int, dict[str, Any] | None],
        roll_type: str,
        follows: list[tuple[int, str]],
    ) -> str | None:
        """The follow-ups a correction changes are what the rules give for its roll as
        corrected (none when it is retracted)."""
        given: dict[int, dict[str, Any] | None] = {s: None for s, _ in follows}
        if correction.action == "amend":
            amended = self.codec.amended(roll_type, correction.data or {})
            assert isinstance(amended, Roll)
            stream = self._streams.get(correction.target) or ""
            state = self._state_before(correction.target, stream)
            again = (
                self.system.follow_ups(state, amended, seq=correction.target)
                if state is not None
                else []
            )
            for (fseq, _), event in zip(follows, again, strict=False):
                payload = msgspec.to_builtins(event)
                payload.pop("type", None)
                given[fseq] = payload
        for fseq, ftype in follows:
            if fseq not in companions:
                continue
            recorded = companions[fseq]
            if recorded is not None:
                recorded = msgspec.to_builtins(self.codec.amended(ftype, recorded))
                recorded.pop("type", None)
            if recorded != given[fseq]:
                return (
                    f"correction {seq} sets event {fseq}, written with roll "
                    f"{correction.target}, to {recorded!r}; the rules give {given[fseq]!r} "
                    "for the roll as corrected"
                )
        return None

    def _state_before(self, seq: int, stream: str) -> Any | None:
        """``stream``'s state just before ``seq`` with today's corrections."""
        return self.projector.fold(self._rows_before(seq, stream), {}, self.corrections).get(
            stream
        )

    def _rows_before(self, seq: int, stream: str) -> Iterable[StoredEvent]:
        """The events of ``stream`` and the campaign stream before ``seq``."""
        if self._rows_of is not None:
            return self._rows_of(seq, stream)
        assert self._kept is not None
        streams = (stream, CAMPAIGN_STREAM)
        return [e for e in self._kept if e.seq < seq and e.stream in streams]

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
        self._follow_due = list(self.system.follow_ups(state, event, seq=seq))
        if oid is not None:
            self._roll_types[seq] = event_tag(type(event))
            before = {stream: state}
            if opponent is not None:
                before[oid] = opponent.state
            self._harm_given[seq] = self._expected_harm(event, before)
        self.checked += 1
        return None

    def _refold(self, seq: int, stream: str) -> None:
        """Fold ``stream`` again from the start up to ``seq`` with today's corrections."""
        states = self.projector.fold(self._rows_before(seq, stream), {}, self.corrections)
        if stream in states:
            self.states[stream] = states[stream]
        else:
            self.states.pop(stream, None)
        assert self._fresh is not None
        self._fresh.add(stream)
