"""Dice fairness: observed face counts against a fair die, from the roll events' ``draws``.

Pure functions over roll payloads (no store, no clock, no printing). Every roll event carries
``source`` (``"engine"`` | ``"physical"``) and ``draws``, a list of ``[sides, value]`` pairs
(docs/events.md "Checking an export by hand"), so the faces every die showed can be counted without knowing the
rule system. A Fudge die is recorded as a 3-sided die (1 → −, 2 → blank, 3 → +).

Faces are grouped by die size, source and roller (the character the roll belongs to), plus
an "everyone" group per die size and source when more than one roller contributes. Each
group gets Pearson's chi-square goodness-of-fit test against the uniform distribution
(:func:`scipy.stats.chisquare`) and a plain-language verdict:

- fewer than :data:`MIN_EXPECTED` expected per face: too few dice to judge (the chi-square
  approximation is unreliable there, and only a grossly loaded die could show at all);
- ``p < FLAG_P`` (0.001): flagged, "unlikely to be a fair die";
- ``p < WATCH_P`` (0.01): uneven, worth watching (fair dice do this about 1 time in 100, and
  with many groups checked one such result now and then is expected);
- ``p > 1 - FLAG_P``: suspiciously even (real dice are rarely this regular: were the faces
  typed from real rolls?); not flagged as unfair;
- otherwise: consistent with a fair die (which never proves a die fair).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ledger.dice.engine import PREDICTABILITY, predictability

MIN_EXPECTED = 5
"""Fewest expected dice per face before a verdict is given (the usual chi-square rule)."""

FLAG_P = 0.001
"""p-values below this flag a die as unlikely to be fair."""

WATCH_P = 0.01
"""p-values below this (and not below :data:`FLAG_P`) are "worth watching"."""

EVERYONE = "*"
"""The roller of a group that pools every roller's dice."""


@dataclass(frozen=True)
class RollDraws:
    """The dice of one roll event.

    :ivar seq: the event's position in the log.
    :ivar roller: the stream the roll belongs to (a character id).
    :ivar source: ``"engine"`` or ``"physical"``.
    :ivar session: the session number of the envelope, or ``None``.
    :ivar draws: ``(sides, value)`` pairs in draw order, ``1 <= value <= sides``.
    :ivar predictable: who could have known the dice in advance, a code of
        :data:`ledger.dice.engine.PREDICTABILITY` (``"gm-seed"``, ``"roller-entropy"``, ...).
    """

    seq: int
    roller: str
    source: str
    session: int | None
    draws: tuple[tuple[int, int], ...]
    predictable: str = "physical"


@dataclass(frozen=True)
class DieReport:
    """The fairness test of one group of dice of one size.

    :ivar sides: faces of the die (3 for a Fudge die).
    :ivar source: ``"engine"`` or ``"physical"``.
    :ivar roller: a character id, or :data:`EVERYONE`.
    :ivar dice: dice counted (the test rests on these).
    :ivar rolls: roll events the dice come from.
    :ivar observed: count of each face ``1..sides`` (index 0 is face 1).
    :ivar expected: dice expected per face from a fair die (``dice / sides``).
    :ivar chi2: Pearson's statistic (``None`` with no dice).
    :ivar p: the chi-square p-value, 0..1 (``None`` with no dice).
    :ivar enough: at least :data:`MIN_EXPECTED` dice expected per face.
    :ivar flagged: enough dice and ``p < FLAG_P``.
    :ivar status: ``"too-few"``, ``"flagged"``, ``"watch"``, ``"too-even"`` (``p > 1 -
        FLAG_P``: more even than real dice land) or ``"consistent"``.
    :ivar verdict: one plain-language sentence.
    """

    sides: int
    source: str
    roller: str
    dice: int
    rolls: int
    observed: tuple[int, ...]
    expected: float
    chi2: float | None
    p: float | None
    enough: bool
    flagged: bool
    status: str
    verdict: str
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def die(self) -> str:
        """The die's name: ``"d20"``, or ``"dF"`` for a 3-sided (Fudge) die."""
        return die_name(self.sides)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (faces keyed by their number as text)."""
        return {
            "die": self.die,
            "sides": self.sides,
            "source": self.source,
            "roller": self.roller,
            "dice": self.dice,
            "rolls": self.rolls,
            "observed": {str(i + 1): n for i, n in enumerate(self.observed)},
            "expected_per_face": self.expected,
            "chi2": self.chi2,
            "df": self.sides - 1,
            "p": self.p,
            "enough": self.enough,
            "flagged": self.flagged,
            "status": self.status,
            "verdict": self.verdict,
        }


#: A Fudge die's recorded value (1..3 of a d3) as its face is entered and read.
FUDGE_FACES = {1: "−", 2: "0", 3: "+"}


def die_name(sides: int) -> str:
    """``"d20"`` for 20 sides; ``"dF"`` for 3 (the ledger records Fudge dice as d3)."""
    return "dF" if sides == 3 else f"d{sides}"


def draws_words(draws: Iterable[Sequence[int]]) -> str:
    """A roll's recorded draws as a person reads them, in order: ``"d20:16"``, and a Fudge
    die (recorded as d3) by its face as it is entered: ``"dF:+ dF:+ dF:− dF:0"``.

    :param draws: ``[sides, value]`` pairs, ``1 <= value <= sides``, as a roll event's
        ``draws`` field holds them.
    """
    return " ".join(
        f"dF:{FUDGE_FACES[value]}" if sides == 3 else f"d{sides}:{value}" for sides, value in draws
    )


def roll_draws(
    rows: Iterable[tuple[int, str, int | None, Mapping[str, Any]]],
) -> Iterator[RollDraws]:
    """The dice of every roll among ``rows``.

    :param rows: ``(seq, stream, session, payload)`` with the payload as a dict; payloads
        without ``draws`` and ``source`` (not rolls) are skipped.
    :raises ValueError: a draw that is not ``[sides, value]`` with ``1 <= value <= sides``.
    """
    for seq, stream, session, data in rows:
        draws = data.get("draws")
        source = data.get("source")
        if draws is None or source is None:
            continue
        pairs = []
        for d in draws:
            sides, value = int(d[0]), int(d[1])
            if sides < 2 or not 1 <= value <= sides:
                raise ValueError(f"event {seq} has an impossible draw {list(d)!r}")
            pairs.append((sides, value))
        yield RollDraws(seq, stream, str(source), session, tuple(pairs), predictability(data))


def by_predictability(rolls: Iterable[RollDraws]) -> dict[str, int]:
    """How many rolls each kind of foreknowledge covers, ``{code: count}`` in the order of
    :data:`ledger.dice.engine.PREDICTABILITY` (kinds with no roll left out)."""
    counts: dict[str, int] = {}
    for roll in rolls:
        counts[roll.predictable] = counts.get(roll.predictable, 0) + 1
    return {code: counts[code] for code in PREDICTABILITY if code in counts}


def select(
    rolls: Iterable[RollDraws],
    *,
    roller: str | None = None,
    source: str | None = None,
    session: int | None = None,
) -> Iterator[RollDraws]:
    """The rolls matching every filter given (``None``: any)."""
    for r in rolls:
        if roller is not None and r.roller != roller:
            continue
        if source is not None and r.source != source:
            continue
        if session is not None and r.session != session:
            continue
        yield r


def tally(rolls: Iterable[RollDraws]) -> dict[tuple[int, str, str], tuple[list[int], set[int]]]:
    """Face counts per ``(sides, source, roller)``, with the pooled :data:`EVERYONE` group
    for a die size and source that more than one roller used.

    :returns: ``{(sides, source, roller): (counts of faces 1..sides, seqs of the rolls)}``.
    """
    groups: dict[tuple[int, str, str], tuple[list[int], set[int]]] = {}
    for r in rolls:
        for sides, value in r.draws:
            key = (sides, r.source, r.roller)
            counts, seqs = groups.setdefault(key, ([0] * sides, set()))
            counts[value - 1] += 1
            seqs.add(r.seq)
    pooled: dict[tuple[int, str, str], tuple[list[int], set[int]]] = {}
    rollers: dict[tuple[int, str], int] = {}
    for (sides, source, _), (counts, seqs) in groups.items():
        rollers[(sides, source)] = rollers.get((sides, source), 0) + 1
        all_counts, all_seqs = pooled.setdefault((sides, source, EVERYONE), ([0] * sides, set()))
        for i, n in enumerate(counts):
            all_counts[i] += n
        all_seqs.update(seqs)
    for key, group in pooled.items():
        if rollers[(key[0], key[1])] > 1:
            groups[key] = group
    return groups


def chi_square(observed: Sequence[int]) -> tuple[float, float]:
    """Pearson's chi-square goodness-of-fit against equally likely faces.

    :param observed: count of each face (at least 2 faces, at least one die).
    :returns: ``(statistic, p-value)``; degrees of freedom ``len(observed) - 1``.
    :raises ValueError: fewer than 2 faces or no dice.
    """
    from scipy.stats import chisquare

    if len(observed) < 2 or sum(observed) == 0:
        raise ValueError("a chi-square test needs at least 2 faces and one die")
    result = chisquare(list(observed))
    return float(result.statistic), float(result.pvalue)


def judge(sides: int, source: str, roller: str, observed: Sequence[int], rolls: int) -> DieReport:
    """Test one group of dice and word the verdict without over-claiming.

    :param sides: faces of the die (``len(observed)``).
    :param observed: count of each face ``1..sides``.
    :param rolls: number of roll events the dice come from.
    """
    dice = sum(observed)
    label = die_name(sides)
    if dice == 0:
        return DieReport(
            sides, source, roller, 0, rolls, tuple(observed), 0.0, None, None, False, False,
            "too-few", f"no {label} rolled: nothing to judge",
        )  # fmt: skip
    expected = dice / sides
    stat, p = chi_square(observed)
    need = MIN_EXPECTED * sides
    enough = dice >= need
    hi = max(range(sides), key=lambda i: (observed[i] - expected, -i))
    lo = min(range(sides), key=lambda i: (observed[i] - expected, i))
    face = _face_label(sides)
    spread = (
        f"{face(hi)} came up {observed[hi]} times and {face(lo)} {observed[lo]}, "
        f"against {expected:.1f} expected each"
    )
    if not enough:
        status, flagged = "too-few", False
        verdict = (
            f"too few dice to judge: {dice} {label} so far; a fair test needs at least "
            f"{need} ({MIN_EXPECTED} expected per face), and until then only luck shows"
        )
    elif p < FLAG_P:
        status, flagged = "flagged", True
        verdict = (
            f"unlikely to be a fair die: a fair {label} gives counts this uneven less than "
            f"1 time in {round(1 / FLAG_P):,} (p = {format_p(p)}); {spread}"
        )
    elif p < WATCH_P:
        status, flagged = "watch", False
        verdict = (
            f"uneven, worth watching: a fair {label} gives counts this uneven about "
            f"1 time in {max(2, round(1 / p)):,} (p = {format_p(p)}), and with many dice "
            f"checked that happens now and then; keep recording ({spread})"
        )
    elif p > 1 - FLAG_P:
        status, flagged = "too-even", False
        verdict = (
            f"suspiciously even (p > {1 - FLAG_P:g}): real dice land this close to an even "
            f"spread less than 1 time in {round(1 / FLAG_P):,}; were these faces typed from "
            "real rolls?"
        )
    else:
        status, flagged = "consistent", False
        verdict = (
            f"consistent with a fair die (p = {format_p(p)}): {dice} {label} show no sign of "
            "bias (this cannot prove a die fair, only fail to find a bias)"
        )
    return DieReport(
        sides, source, roller, dice, rolls, tuple(observed), expected, stat, p, enough,
        flagged, status, verdict,
    )  # fmt: skip


def report(rolls: Iterable[RollDraws]) -> list[DieReport]:
    """One :class:`DieReport` per group of :func:`tally`, sorted by source, die, roller
    (the pooled :data:`EVERYONE` group first)."""
    groups = tally(rolls)
    out = [
        judge(sides, source, roller, counts, len(seqs))
        for (sides, source, roller), (counts, seqs) in groups.items()
    ]
    out.sort(key=lambda r: (r.source, r.sides, r.roller != EVERYONE, r.roller))
    return out


def format_p(p: float) -> str:
    """A p-value for people: ``0.43``, ``0.0071``, ``3.2e-09`` (never rounded to 0)."""
    if p >= 0.01:
        return f"{p:.2f}"
    if p >= 0.001:
        return f"{p:.2g}"
    return f"{p:.1e}"


def _face_label(sides: int) -> Any:
    if sides == 3:
        names = {0: "−", 1: "blank", 2: "+"}
        return lambda i: f"face {names[i]}"
    return lambda i: f"face {i + 1}"


__all__ = [
    "EVERYONE",
    "FUDGE_FACES",
    "FLAG_P",
    "MIN_EXPECTED",
    "WATCH_P",
    "DieReport",
    "RollDraws",
    "chi_square",
    "die_name",
    "draws_words",
    "format_p",
    "judge",
    "report",
    "roll_draws",
    "select",
    "tally",
]
