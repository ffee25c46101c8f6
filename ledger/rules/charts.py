"""Shared chart helpers: the figure and file handling every odds chart uses, and the
dice-fairness chart.

Part of the plugin API (docs/plugin-guide.md, "Drawing odds"). A rule system draws its own
odds chart through two :class:`ledger.RuleSystem` methods, so this module knows no game:

- :meth:`~ledger.RuleSystem.odds_series` asks the system's own exact odds
  (:meth:`~ledger.RuleSystem.odds`, fractions as ``"n/d"``) for every point the chart needs
  and returns plain data (:class:`fractions.Fraction` values; read them with :func:`frac`,
  a table with :func:`numbered`, a family with :func:`family_rows` and :func:`transposed`,
  ask for a nested key with :func:`ask`, the odds of each variant with :func:`by_variant`);
- :meth:`~ledger.RuleSystem.draw_odds` turns that data into a matplotlib
  :class:`~matplotlib.figure.Figure` with the helpers here: :func:`figure`,
  :func:`percent_axis`, :func:`bar_labels`, :func:`distribution`, :func:`side_by_side`,
  :func:`stacked`, :func:`curves`, :func:`curve_panels`, :func:`outline`, :func:`marks`,
  :func:`legend_below`; whole charts of two common mechanics (:func:`totals_figure`, a total
  against a target number; :func:`successes_figure`, a pool counting successes); and the
  palette (:data:`BAD`, :data:`MIXED`, :data:`GOOD`, :data:`BEST`, :data:`LINES`).

Their defaults draw a horizontal bar for every probability the system's ``odds`` returns
(:func:`generic_series`, :func:`draw_generic`). :func:`odds_figure` is the one entry point
(``campaign odds --plot`` wraps it in a spinner and writes the file with :func:`save`); a
plugin whose odds lack what its chart needs gets one :class:`ChartError` line naming the
system, never a traceback.

matplotlib is imported only when a chart is drawn, and only its object-oriented API is used
(``Figure``, no pyplot, no global state, no display): the Agg renderer writes the file.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from ledger.errors import RuleError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from ledger.dice.fairness import DieReport

T = TypeVar("T")
X = TypeVar("X")
K = TypeVar("K")


class ChartedSystem(Protocol):
    """What the helpers here ask of a rule system: its id, its exact odds, and its own
    chart's data and drawing. Every :class:`ledger.RuleSystem` is one; this module names
    no class of :mod:`ledger.rules.system`, which imports it (for the default chart)."""

    @property
    def id(self) -> str:
        """The system's id, naming it in a :class:`ChartError`."""
        ...

    def odds(self, params: dict[str, Any]) -> dict[str, Any]:
        """Exact probabilities; fractions as ``"n/d"`` strings
        (:meth:`ledger.RuleSystem.odds`)."""
        ...

    def odds_series(self, params: dict[str, Any]) -> dict[str, Any]:
        """The data the odds chart draws (:meth:`ledger.RuleSystem.odds_series`)."""
        ...

    def draw_odds(self, data: dict[str, Any]) -> Figure:
        """The odds chart of ``data`` (:meth:`ledger.RuleSystem.draw_odds`)."""
        ...


FORMATS = ("png", "svg", "pdf")
"""File formats a chart can be saved in (chosen by the file's suffix)."""

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
BAD = "#D55E00"
"""Vermilion: failure, the worst band."""
MIXED = "#E69F00"
"""Orange: a mixed or partial result, a tie."""
GOOD = "#009E73"
"""Bluish green: success."""
BEST = "#0072B2"
"""Blue: the best band, or a plain distribution."""
FEW = "#9A9A9A"
"""Grey: too little to judge."""
LINES = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
"""Colours for several curves in one panel, in order (cycled)."""


class ChartError(RuleError):
    """A chart cannot be drawn: the system's odds lack what it needs, or a bad file name."""


def check_path(path: str) -> str:
    """The format of a chart file from its suffix (``.png``, ``.svg`` or ``.pdf``).

    :raises ChartError: another suffix, or a folder that does not exist.
    """
    fmt = os.path.splitext(path)[1].lower().lstrip(".")
    if fmt not in FORMATS:
        raise ChartError(
            f"cannot write a chart to {path!r}: name a .png, .svg or .pdf file (e.g. odds.png)"
        )
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ChartError(f"cannot write a chart to {path!r}: the folder {folder} does not exist")
    return fmt


def save(fig: Figure, path: str) -> None:
    """Write ``fig`` to ``path`` (format from the suffix), reproducibly: no timestamps or
    version stamps in the file, a fixed SVG id salt.

    :raises ChartError: see :func:`check_path`. :raises OSError: the file cannot be written.
    """
    import matplotlib

    fmt = check_path(path)
    metadata: dict[str, Any] = {
        "png": {"Software": None},
        "svg": {"Date": None, "Creator": None},
        "pdf": {"CreationDate": None, "Creator": None, "Producer": None},
    }[fmt]
    with matplotlib.rc_context({"svg.hashsalt": "campaign-ledger", "svg.fonttype": "none"}):
        fig.savefig(path, format=fmt, metadata=metadata, dpi=110)


def frac(text: Any) -> Fraction:
    """``"3/20"`` (or ``"1"``, ``"0/1"``, an int, a Fraction) as a :class:`Fraction`.

    :raises ValueError: anything else (a float, ``None``, ``"one half"``).
    """
    if isinstance(text, Fraction | int) and not isinstance(text, bool):
        return Fraction(text)
    if isinstance(text, str):
        return Fraction(text.strip())
    raise ValueError(f"{text!r} is not a probability written n/d")


def ask(system: ChartedSystem, params: dict[str, Any], *keys: str) -> Any:
    """``system.odds(params)[keys[0]][keys[1]]...``, for an ``odds_series`` that needs one
    part of the odds.

    :raises ChartError: a key is missing (names the system, the params and the dotted key).
    :raises RuleError: the system refuses the params.
    """
    result = system.odds(params)
    value: Any = result
    for k in keys:
        if not isinstance(value, dict) or k not in value:
            shown = ", ".join(f"--{n} {v}" for n, v in params.items()) or "no options"
            raise ChartError(
                f"{system.id}'s odds ({shown}) have no {'.'.join(keys)!r}: "
                "the chart needs it (is the plugin finished?)"
            )
        value = value[k]
    return value


def checked(system: ChartedSystem, build: Callable[[], T]) -> T:
    """``build()``, with the errors of unfinished odds (a missing key, a value that is not a
    fraction, ``NotImplementedError``) turned into one :class:`ChartError` line naming the
    system. :class:`ChartError` and the system's own :class:`RuleError` pass through."""
    try:
        return build()
    except RuleError:
        raise
    except (KeyError, TypeError, ValueError, ZeroDivisionError, NotImplementedError) as e:
        raise ChartError(
            f"{system.id}'s odds cannot be charted ({type(e).__name__}: {e}); "
            "`campaign odds` without --plot still shows them"
        ) from None


def without(params: dict[str, Any], *names: str) -> dict[str, Any]:
    """``params`` less ``names`` (the options a chart varies itself)."""
    return {k: v for k, v in params.items() if k not in names}


def by_variant(
    system: ChartedSystem,
    params: dict[str, Any],
    read: Callable[[dict[str, Any]], T],
    variants: Iterable[tuple[str, dict[str, Any]]],
) -> dict[str, T]:
    """``{name: read(system.odds({**params, **extra}))}`` for each ``(name, extra)`` of
    ``variants``, in order: a chart of the same roll in several variants (each a few more
    params, e.g. a switch set) reads each one's odds so."""
    return {name: read(system.odds({**params, **extra})) for name, extra in variants}


def numbered(table: Mapping[Any, Any]) -> dict[int, Fraction]:
    """An odds table keyed by number, ``{"3": "1/6", "4": "1/3"}``, as ``{3: Fraction(1, 6),
    4: Fraction(1, 3)}``, in its order.

    :raises ValueError: a key that is not a whole number, a value that is not ``"n/d"``.
    """
    return {int(k): frac(v) for k, v in table.items()}


def family_rows(table: Mapping[str, Mapping[str, Any]]) -> dict[int, dict[str, Fraction]]:
    """A family of chances as the odds report it (one row per stat or level, labelled by a
    number at its end: ``{"STAT -1": {"Simple (6)": "7/12"}}``, as
    :func:`ledger.chance_table` builds it) as ``{-1: {"Simple (6)": Fraction(7, 12)}}``.

    :raises ValueError: a row label that does not end in a whole number, a value that is
        not ``"n/d"``.
    """
    return {
        int(str(row).rsplit(" ", 1)[-1]): {str(k): frac(v) for k, v in cells.items()}
        for row, cells in table.items()
    }


def transposed(
    rows: Mapping[X, Mapping[K, Fraction]],
    columns: Iterable[K] | None = None,
    name: Callable[[K], str] = str,
) -> dict[str, dict[X, Fraction]]:
    """One curve per column of a table ``{x: {column: P}}`` (a row per stat or level), for
    :func:`curves`: ``{name(column): {x: P}}``, 0 where a row lacks the column.
    ``columns``: those to draw, in order (default: the first row's)."""
    if columns is None:
        columns = next(iter(rows.values()), {})
    return {name(c): {x: row.get(c, Fraction(0)) for x, row in rows.items()} for c in columns}


# --- the default chart: every probability the odds hold ---------------------------------------


def generic_series(system: ChartedSystem, params: dict[str, Any]) -> dict[str, Fraction]:
    """Every probability in ``system.odds(params)``, by its dotted path (the default
    :meth:`~ledger.RuleSystem.odds_series`), e.g. ``{"success": Fraction(15, 36)}``.

    :raises ChartError: the odds hold no ``"n/d"`` value from 0 to 1 at all.
    """

    def build() -> dict[str, Fraction]:
        out: dict[str, Fraction] = {}

        def walk(prefix: str, value: Any) -> None:
            if isinstance(value, dict):
                for k, v in value.items():
                    walk(f"{prefix}.{k}" if prefix else str(k), v)
            elif isinstance(value, list):
                for i, v in enumerate(value):
                    walk(f"{prefix}[{i}]", v)
            elif isinstance(value, str) and "/" in value:
                try:
                    p = frac(value)
                except ValueError:
                    return
                if 0 <= p <= 1:
                    out[prefix] = p

        walk("", system.odds(params))
        if not out:
            raise ChartError(f"{system.id}'s odds hold no probabilities written n/d to draw")
        return out

    return checked(system, build)


def draw_generic(title: str, data: dict[str, Fraction]) -> Figure:
    """A horizontal bar per probability (the first 40), labelled by its dotted path: the
    default :meth:`~ledger.RuleSystem.draw_odds`. ``title`` heads it (the system id)."""
    items = list(data.items())[:40]
    fig = figure(9, 1.2 + 0.28 * len(items))
    ax = fig.subplots()
    ys = list(range(len(items)))[::-1]
    ax.barh(ys, [float(p) for _, p in items], color=BEST)
    for y, (_, p) in zip(ys, items, strict=True):
        ax.annotate(f"{float(p):.1%}", (float(p), y), va="center", fontsize=7, xytext=(2, 0),
                    textcoords="offset points")  # fmt: skip
    ax.set_yticks(ys, [k for k, _ in items], fontsize=8)
    from matplotlib.ticker import PercentFormatter

    ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_xlim(0, 1.1)
    ax.set_title(f"{title}: exact odds")
    return fig


def odds_figure(system: ChartedSystem, params: dict[str, Any]) -> Figure:
    """The odds chart of ``system`` for the ``odds`` params given: the system's own
    :meth:`~ledger.RuleSystem.odds` first (its refusal wins), then
    :meth:`~ledger.RuleSystem.odds_series` and :meth:`~ledger.RuleSystem.draw_odds`.

    :param system: a configured rule system (``rule_systems()[id].configure({})``).
    :param params: the system's own ``odds_params`` values, converted.
    :raises ChartError: the system's odds lack what the chart needs (one line).
    :raises RuleError: the system refuses the params (as ``campaign odds`` would).
    """
    checked(system, lambda: system.odds(params))
    data = checked(system, lambda: system.odds_series(params))
    return checked(system, lambda: system.draw_odds(data))


# --- drawing helpers ----------------------------------------------------------------------------


def figure(width: float, height: float) -> Figure:
    """An empty figure ``width`` × ``height`` inches (110 dpi when saved) with constrained
    layout; add panels with ``fig.subplots(rows, cols)``."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def percent_axis(ax: Axes, top: float = 1.0) -> None:
    """The y axis as percentages from 0 to ``top`` (1.0 = 100%; give a little more, e.g.
    1.08, to leave room for labels above the bars), with a light grid behind the data."""
    from matplotlib.ticker import PercentFormatter

    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
    ax.set_ylim(0, top)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)


def bar_labels(ax: Axes, xs: Sequence[float], ys: Sequence[Fraction]) -> None:
    """Each bar's percentage above it (``12.5%``); with more than 12 bars, smaller and only
    for bars of 1% or more."""
    for x, y in zip(xs, ys, strict=True):
        if y >= Fraction(1, 100) or (y and len(xs) <= 12):
            ax.annotate(
                f"{float(y):.1%}", (x, float(y)), ha="center", va="bottom",
                fontsize=7 if len(xs) <= 12 else 5.5,
                xytext=(0, 2), textcoords="offset points",
            )  # fmt: skip


def distribution(
    ax: Axes, dist: Mapping[int, Fraction], *, color: str = BEST, width: float = 0.8,
    headroom: float = 1.18,
) -> None:  # fmt: skip
    """A bar per value of ``dist`` (``{value: P}``) with its percentage on top, and a
    percent axis up to ``headroom`` × the highest bar."""
    xs = list(dist)
    ax.bar(xs, [float(p) for p in dist.values()], color=color, width=width)
    bar_labels(ax, xs, list(dist.values()))
    percent_axis(ax, max(float(p) for p in dist.values()) * headroom)


def side_by_side(
    ax: Axes, dists: Mapping[str, Mapping[int, Fraction]], *, colors: Sequence[str] = LINES,
    headroom: float = 1.18,
) -> None:  # fmt: skip
    """The bars of several distributions (``{label: {value: P}}``) side by side at each
    value, coloured in order from ``colors`` and labelled for a legend; a lone distribution
    gets its percentages on top. The percent axis goes up to ``headroom`` × the highest
    bar."""
    width = 0.8 / max(1, len(dists))
    for i, (label, dist) in enumerate(dists.items()):
        xs = [k + (i - (len(dists) - 1) / 2) * width for k in dist]
        ax.bar(xs, [float(p) for p in dist.values()], width, color=colors[i % len(colors)],
               label=label)  # fmt: skip
        if len(dists) == 1:
            bar_labels(ax, xs, list(dist.values()))
    percent_axis(ax, max(float(p) for d in dists.values() for p in d.values()) * headroom)


def stacked(
    ax: Axes, xs: Sequence[Any], rows: Sequence[Mapping[str, Fraction]], bands: Sequence[str],
    colors: Sequence[str], labels: Sequence[str], width: float = 0.8,
) -> None:  # fmt: skip
    """Stacked bars: at each ``xs[i]`` the ``bands`` of ``rows[i]`` (``{band: P}``, summing
    to 1) from the bottom up, each band in its colour with its legend label."""
    bottom = [0.0] * len(xs)
    for band, color, label in zip(bands, colors, labels, strict=True):
        heights = [float(r.get(band, 0)) for r in rows]
        ax.bar(xs, heights, width, bottom=bottom, color=color, label=label, edgecolor="white",
               linewidth=0.5)  # fmt: skip
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]


def curves(
    ax: Axes, lines: Mapping[str, Mapping[Any, Fraction]], *,
    colors: Sequence[str] = LINES, bold: str | None = None, **style: Any,
) -> None:  # fmt: skip
    """A line with round markers per entry of ``lines`` (``{label: {x: P}}``), coloured in
    order from ``colors``; the line labelled ``bold`` drawn thicker. ``style`` goes to
    matplotlib's ``Axes.plot`` (``markersize=3``, ``linestyle="--"``)."""
    for i, (label, points) in enumerate(lines.items()):
        ax.plot(
            list(points), [float(p) for p in points.values()], marker="o",
            color=colors[i % len(colors)], label=label,
            linewidth=3 if bold is not None and label == bold else None, **style,
        )  # fmt: skip


def outline(ax: Axes, x: Any, top: float = 1.0, width: float = 0.9) -> None:
    """A black frame around the bar at ``x`` (the case the user asked about)."""
    ax.bar([x], [top], width, fill=False, edgecolor="black", linewidth=1.5)


def curve_panels(
    panels: Mapping[str, Mapping[str, Mapping[Any, Fraction]]], *, xlabel: str, ylabel: str,
    title: str, colors: Sequence[str] = LINES, width: float = 15, height: float = 4.6,
) -> Figure:  # fmt: skip
    """One panel per entry of ``panels`` (``{panel title: {label: {x: P}}}``), side by side
    on one percent axis, a curve per label (:func:`curves`, coloured in order from
    ``colors``), whole numbers along x, one legend below (:func:`legend_below`): e.g. the
    chance of success by STAT in each variant of a roll, a curve per target."""
    from matplotlib.ticker import MaxNLocator

    fig = figure(width, height)
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    for ax, (name, lines) in zip(axes, panels.items(), strict=True):
        curves(ax, lines, colors=colors)
        ax.set_title(name)
        ax.set_xlabel(xlabel)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        percent_axis(ax, 1.04)
    axes[0].set_ylabel(ylabel)
    legend_below(fig, axes[0])
    fig.suptitle(title)
    return fig


def totals_figure(
    variants: Mapping[str, Mapping[str, Mapping[int, Fraction]]], *, title: str,
    totals_title: str, colors: Sequence[str] = LINES, named: Mapping[float, str] | None = None,
) -> Figure:  # fmt: skip
    """The chart of a roll whose total meets a target number, a curve per variant of the roll
    (``{label: {"distribution": {total: P}, "targets": {target: P(total >= target)}}}``,
    coloured in order from ``colors``): how likely each total is (``totals_title``), and the
    chance to meet each target, with the ``named`` targets marked (:func:`marks`). ``title``
    heads the figure."""
    from matplotlib.ticker import MaxNLocator

    fig = figure(13, 4.6)
    a, b = fig.subplots(1, 2)
    curves(a, {label: v["distribution"] for label, v in variants.items()}, colors=colors)
    curves(b, {label: v["targets"] for label, v in variants.items()}, colors=colors)
    a.set_title(totals_title)
    a.set_xlabel("total")
    a.xaxis.set_major_locator(MaxNLocator(integer=True))
    b.xaxis.set_major_locator(MaxNLocator(integer=True))
    a.legend(fontsize=8)
    highest = max(float(p) for v in variants.values() for p in v["distribution"].values())
    percent_axis(a, highest * 1.1)
    marks(b, named or {})
    b.set_title("Chance to meet the target number (total ≥ target)")
    b.set_xlabel("target number")
    b.legend(fontsize=8, loc="center right", framealpha=0.9)
    percent_axis(b, 1.04)
    fig.suptitle(title)
    return fig


def successes_figure(
    by_level: Mapping[int, Mapping[str, Mapping[int, Fraction]]], shown: Iterable[int], *,
    name: str, axis: str, title: str, chances_title: str, counts_title: str,
    bold: int | None = None, most: int = 6,
) -> Figure:  # fmt: skip
    """The chart of a dice pool that counts successes, from ``by_level`` (``{level:
    {"distribution": {successes: P}, "at_least": {k: P(successes >= k)}}}``): the chance of
    at least k successes by level for k = 1..``most`` (past 4 dashed; ``bold``'s curve
    thicker), titled ``chances_title``, and beside it the success counts of the ``shown``
    levels (those of ``by_level``), titled ``counts_title``. A level is ``f"{name} {n}"``
    in the legend (``"Rank 3"``), the levels' axis is labelled ``axis``; ``title`` heads the
    figure."""
    fig = figure(13, 4.6)
    a, b = fig.subplots(1, 2)
    top = min(max(max(v["at_least"]) for v in by_level.values()), most)
    rows = {n: by_level[n]["at_least"] for n in sorted(by_level)}
    solid, dashed = (transposed(rows, ks, name=lambda k: f"≥ {k}")
                     for ks in (range(1, min(top, 4) + 1), range(5, top + 1)))  # fmt: skip
    curves(a, solid, bold=None if bold is None else f"≥ {bold}", markersize=3, linestyle="-")
    curves(a, dashed, colors=LINES[len(solid) :], markersize=3, linestyle="--")
    a.set_xticks(list(rows))
    a.set_xlabel(axis)
    a.set_title(chances_title)
    a.legend(fontsize=8, title="successes", title_fontsize=8)
    percent_axis(a, 1.04)
    counts = {f"{name} {n}": by_level[n]["distribution"] for n in shown if n in by_level}
    side_by_side(b, counts, headroom=1.15)
    b.set_xlabel("successes")
    b.set_title(counts_title)
    b.legend(fontsize=8)
    fig.suptitle(title)
    return fig


def marks(ax: Axes, labels: Mapping[float, str], top: float = 1.0) -> None:
    """A dotted grey line at each ``x`` of ``labels`` (``{x: label}``, e.g. the book's named
    target numbers), its label written upwards beside it from ``top`` down, left to right."""
    for x, label in sorted(labels.items()):
        ax.axvline(x, color="grey", linestyle=":", linewidth=1)
        ax.annotate(label, (x, top), rotation=90, fontsize=7, ha="right", va="top",
                    xytext=(-2, 0), textcoords="offset points")  # fmt: skip


def legend_below(fig: Figure, ax: Axes, first: int | None = None) -> None:
    """One legend for every panel, in a row below them, from the entries of ``ax`` (the
    first ``first`` of them, or all)."""
    handles, labels = ax.get_legend_handles_labels()
    handles, labels = handles[:first], labels[:first]
    fig.legend(handles, labels, loc="outside lower center", ncol=len(labels), fontsize=8)


# --- dice fairness ------------------------------------------------------------------------------


def fairness_figure(reports: Iterable[DieReport], title: str, names: dict[str, str]) -> Figure:
    """One panel per tested group: observed count of each face, the fair expectation and
    its ±2 standard deviation band (binomial), the verdict in the panel title.

    :param reports: groups with at least one die (at most 12 are drawn, flagged first).
    :param names: character id → display name.
    :raises ChartError: no dice to draw.
    """
    from ledger.dice.fairness import EVERYONE, FLAG_P, format_p

    groups = [r for r in reports if r.dice]
    if not groups:
        raise ChartError("no dice to draw: the filters match no rolls")
    groups.sort(key=lambda r: not r.flagged)  # stable: flagged first, then report order
    groups = groups[:12]
    cols = min(3, len(groups))
    rows = (len(groups) + cols - 1) // cols
    fig = figure(5.2 * cols, 3.3 * rows + 0.6)
    axes = fig.subplots(rows, cols, squeeze=False)
    for ax in axes.flat[len(groups) :]:
        ax.set_visible(False)
    for ax, r in zip(axes.flat, groups, strict=False):
        faces = list(range(1, r.sides + 1))
        p_face = 1 / r.sides
        sd = (r.dice * p_face * (1 - p_face)) ** 0.5
        color = {"flagged": BAD, "watch": MIXED, "too-even": MIXED, "too-few": FEW}.get(
            r.status, BEST
        )
        ax.axhspan(max(0.0, r.expected - 2 * sd), r.expected + 2 * sd, color="grey", alpha=0.25,
                   label="a fair die's usual range (±2 sd per face)", zorder=0)  # fmt: skip
        ax.bar(faces, r.observed, color=color, width=0.75, zorder=2, alpha=0.9,
               label="times rolled")  # fmt: skip
        ax.axhline(r.expected, color="black", linewidth=1, label="fair expectation", zorder=3)
        if r.sides == 3:
            ax.set_xticks(faces, ["−", "blank", "+"])
        else:
            ax.set_xticks(faces if r.sides <= 20 else faces[:: max(1, r.sides // 20)])
        who = "everyone" if r.roller == EVERYONE else names.get(r.roller, r.roller)
        p = "—" if r.p is None else format_p(r.p)
        if r.status == "too-even":
            p = f"> {1 - FLAG_P:g}"
        word = {"flagged": "UNLIKELY FAIR", "watch": "watch", "too-few": "too few to judge",
                "consistent": "consistent with fair", "too-even": "suspiciously even"}[r.status]  # fmt: skip
        ax.set_title(f"{r.source} {r.die}, {who}: {r.dice} dice\np = {p}: {word}", fontsize=9)
        ax.set_ylim(0, max(max(r.observed), r.expected + 2 * sd) * 1.15)
        ax.set_ylabel("times rolled", fontsize=8)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    key = [
        Patch(color=BEST, label="times rolled: consistent with fair"),
        Patch(color=MIXED, label="worth watching / suspiciously even"),
        Patch(color=BAD, label="flagged: unlikely fair"),
        Patch(color=FEW, label="too few to judge"),
        Line2D([], [], color="black", linewidth=1, label="fair expectation"),
        Patch(color="grey", alpha=0.25, label="a fair die's usual range (±2 sd per face)"),
    ]
    fig.legend(handles=key, loc="outside lower center", ncol=6, fontsize=8)
    fig.suptitle(title)
    return fig


__all__ = [
    "BAD",
    "BEST",
    "FEW",
    "FORMATS",
    "GOOD",
    "LINES",
    "MIXED",
    "ChartError",
    "ChartedSystem",
    "ask",
    "bar_labels",
    "by_variant",
    "check_path",
    "checked",
    "curve_panels",
    "curves",
    "distribution",
    "draw_generic",
    "fairness_figure",
    "family_rows",
    "figure",
    "frac",
    "generic_series",
    "legend_below",
    "marks",
    "numbered",
    "odds_figure",
    "outline",
    "percent_axis",
    "save",
    "side_by_side",
    "stacked",
    "successes_figure",
    "totals_figure",
    "transposed",
    "without",
]
