"""Pictures: odds charts for each rule system's mechanic, and the dice-fairness chart.

Two layers, so the numbers can be tested without drawing anything:

- ``*_series(system, params)`` ask the rule system's own exact odds
  (:meth:`ledger.RuleSystem.odds`, fractions as ``"n/d"``) for every point a chart needs
  and return :class:`fractions.Fraction` values;
- ``draw_*`` turn those series into a matplotlib :class:`~matplotlib.figure.Figure`.

matplotlib is imported only when a chart is drawn, and only its object-oriented API is used
(``Figure``, no pyplot, no global state, no display): the Agg renderer writes the file.

Charts are keyed by system id (the core never imports a plugin: it only reads what
``odds`` returns). A system without a dedicated chart gets a generic bar chart of every
probability its ``odds`` returns. When a plugin's odds lack what a chart needs,
:class:`ChartError` says which system and what is missing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .rulesystem import RuleError

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .fairness import DieReport
    from .rulesystem import RuleSystem

FORMATS = ("png", "svg", "pdf")
"""File formats a chart can be saved in (chosen by the file's suffix)."""

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
BAD, MIXED, GOOD, BEST = "#D55E00", "#E69F00", "#009E73", "#0072B2"
FEW = "#9A9A9A"
LINES = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")


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

    :raises ValueError: anything else.
    """
    if isinstance(text, Fraction | int) and not isinstance(text, bool):
        return Fraction(text)
    if isinstance(text, str):
        return Fraction(text.strip())
    raise ValueError(f"{text!r} is not a probability written n/d")


def _ask(system: RuleSystem, params: dict[str, Any], *keys: str) -> Any:
    """``system.odds(params)[keys[0]][keys[1]]...`` or a :class:`ChartError` naming the gap."""
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


def _checked(system: RuleSystem, build: Callable[[], Any]) -> Any:
    try:
        return build()
    except ChartError:
        raise
    except RuleError:
        raise
    except (KeyError, TypeError, ValueError, ZeroDivisionError, NotImplementedError) as e:
        raise ChartError(
            f"{system.id}'s odds cannot be charted ({type(e).__name__}: {e}); "
            "`campaign odds` without --plot still shows them"
        ) from None


def _without(params: dict[str, Any], *names: str) -> dict[str, Any]:
    return {k: v for k, v in params.items() if k not in names}


# --- series: the exact numbers behind each chart ---------------------------------------------


def wyrd_series(system: RuleSystem, params: dict[str, Any]) -> dict[str, Any]:
    """The Wyrd Engine's figures (000_60e07241544698f0.txt, "Skills", "Difficulty Levels").

    :param params: ``skill`` (default 0); ``dr`` marks one rating.
    :returns: ``skill``; ``distribution`` ``{4dF total -4..4: P}`` recovered from the
        ladders of skills 0..3 (``P(4dF >= DR - skill)``); ``ladders``
        ``{skill: [(dr, name, P(success), {band: P})]}`` for skills 0..3 and ``skill``.
    """
    skill = int(params.get("skill") or 0)

    def build() -> dict[str, Any]:
        ladders: dict[int, list[tuple[int, str, Fraction, dict[str, Fraction]]]] = {}
        tail: dict[int, Fraction] = {}
        wanted = str(params.get("dr", "")).strip().lower()
        marked = None
        for s in sorted({0, 1, 2, 3, skill}):
            rows = []
            for item in _ask(system, {"skill": s}, "ladder"):
                dr, p = int(item["dr"]), frac(item["success"])
                names = {str(dr), f"{dr:+d}", str(item.get("name")), str(item.get("alias"))}
                if wanted and wanted in {n.lower() for n in names}:
                    marked = dr
                bands = {k: frac(v) for k, v in item.get("bands", {}).items()}
                rows.append((dr, str(item.get("name") or dr), p, bands))
                if 0 <= s <= 3:
                    tail[dr - s] = p
            ladders[s] = rows
        lo, hi = min(tail), max(tail)
        distribution = {
            k: tail[k] - tail.get(k + 1, Fraction(0)) for k in range(lo, hi + 1) if k in tail
        }
        if tail[lo] != 1 or tail[hi] != 0:
            raise ChartError("wyrd-engine's ladders do not cover every 4dF total")
        return {
            "skill": skill,
            "dr": marked,
            "distribution": {k: p for k, p in distribution.items() if p},
            "ladders": ladders,
        }

    return _checked(system, build)


def decision_series(system: RuleSystem, params: dict[str, Any]) -> dict[str, Any]:
    """Decision dice (002_735c6d6cd834a641.txt, "Advantage and Disadvantage"): per mode
    (normal 2d6, advantage 3d6, disadvantage 1d6) the total's ``distribution`` and
    ``targets`` ``{target: P(total >= target)}``, with the stat and modifiers given.
    """
    base = _without(
        params, "advantage", "disadvantage", "target", "supply", "opponent",
        "opponent_advantage", "opponent_disadvantage", "opponent_modifier",
    )  # fmt: skip

    def build() -> dict[str, Any]:
        out: dict[str, Any] = {"modes": {}, "scale": {}}
        for mode, flags in (("normal", {}), ("advantage", {"advantage": True}),
                            ("disadvantage", {"disadvantage": True})):  # fmt: skip
            result = system.odds({**base, **flags})
            out["modes"][mode] = {
                "dice": str(result.get("dice", mode)),
                "distribution": {int(k): frac(v) for k, v in result["distribution"].items()},
                "targets": {int(k): frac(v) for k, v in result["targets"].items()},
            }
            out["modifier"] = int(result.get("modifier_total", 0))
            for label in result.get("difficulty_scale", {}):
                number = label.rsplit("(", 1)[-1].rstrip(")")
                if number.isdigit() and "beyond" not in label:
                    out["scale"][int(number)] = label.rsplit(" (", 1)[0].replace('"', "")
        return out

    return _checked(system, build)


def d20_series(system: RuleSystem, params: dict[str, Any], top: int = 10) -> dict[str, Any]:
    """d20-world bands (001_a3a02f9b7363775f.txt, "Checks"): per mode and proficiency
    ``0..max(top, proficiency)`` (with the penalty given) ``{bad, messy, good}``."""
    prof = int(params.get("proficiency") or 0)
    penalty = int(params.get("penalty") or 0)

    def build() -> dict[str, Any]:
        modes: dict[str, dict[int, dict[str, Fraction]]] = {}
        for mode, flags in (("normal", {}), ("advantage", {"advantage": True}),
                            ("disadvantage", {"disadvantage": True})):  # fmt: skip
            modes[mode] = {}
            for p in range(0, max(top, prof) + 1):
                r = system.odds({"proficiency": p, "penalty": penalty, **flags})
                modes[mode][p] = {b: frac(r[b]) for b in ("bad", "messy", "good")}
        return {"proficiency": prof, "penalty": penalty, "modes": modes}

    return _checked(system, build)


def terran_series(system: RuleSystem, params: dict[str, Any]) -> dict[str, Any]:
    """Terran Engine Risky Action bands (003_2aeb47bc6ca82a40.txt, "2.1") for pools
    ``0..max(8, pool)``, and the Effect distribution when ``effect`` is given ("2.2.1")."""
    pool = params.get("pool")

    def build() -> dict[str, Any]:
        top = max(8, int(pool or 0))
        bands = {
            n: {k: frac(v) for k, v in _ask(system, {"pool": n}, "risky_action").items()}
            for n in range(0, top + 1)
        }
        out: dict[str, Any] = {"pool": pool, "bands": bands}
        if params.get("effect"):
            ask = {"effect": params["effect"], "upto": int(params.get("upto") or 24)}
            effect = _ask(system, ask, "effect")
            out["effect"] = {
                "code": str(effect.get("code", params["effect"])),
                "distribution": {int(k): frac(v) for k, v in effect["distribution"].items()},
                "tail": (int(effect["tail_above"]["value"]), frac(effect["tail_above"]["p"])),
            }
        return out

    return _checked(system, build)


def spellwoven_series(system: RuleSystem, params: dict[str, Any]) -> dict[str, Any]:
    """Spellwoven success counts (004_663ae3e4ecc71fd1.txt, "Overview: The Basic Mechanic",
    "Difficulty levels"): per Skill Level 1..20 the ``distribution`` of successes and
    ``at_least`` ``{k: P(successes >= k)}``, in the mode, pool and bonus given."""
    base = _without(params, "skill", "difficulty", "target", "vs")

    def build() -> dict[str, Any]:
        result = system.odds(base)
        by_skill = {
            int(s): {
                "distribution": {int(k): frac(v) for k, v in v["distribution"].items()},
                "at_least": {int(k): frac(p) for k, p in v["at_least"].items()},
            }
            for s, v in result["by_skill"].items()
        }
        return {
            "skill": params.get("skill"),
            "mode": str(result.get("mode", "normal")),
            "pool": int(result.get("pool", 3)),
            "bonus": int(params.get("bonus") or 0),
            "by_skill": by_skill,
        }

    return _checked(system, build)


def generic_series(system: RuleSystem, params: dict[str, Any]) -> dict[str, Fraction]:
    """Every probability in ``system.odds(params)``, by its dotted path (for systems without
    a dedicated chart). :raises ChartError: the odds hold no ``"n/d"`` value at all."""

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

    return _checked(system, build)


# --- drawing ---------------------------------------------------------------------------------


def _figure(width: float, height: float) -> Figure:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    return fig


def _percent_axis(ax: Axes, top: float = 1.0) -> None:
    from matplotlib.ticker import PercentFormatter

    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=None))
    ax.set_ylim(0, top)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)


def _bar_labels(ax: Axes, xs: Sequence[float], ys: Sequence[Fraction]) -> None:
    for x, y in zip(xs, ys, strict=True):
        if y >= Fraction(1, 100) or (y and len(xs) <= 12):
            ax.annotate(
                f"{float(y):.1%}", (x, float(y)), ha="center", va="bottom",
                fontsize=7 if len(xs) <= 12 else 5.5,
                xytext=(0, 2), textcoords="offset points",
            )  # fmt: skip


def _stacked(
    ax: Axes, xs: Sequence[Any], rows: Sequence[dict[str, Fraction]], bands: Sequence[str],
    colors: Sequence[str], labels: Sequence[str], width: float = 0.8,
) -> None:  # fmt: skip
    bottom = [0.0] * len(xs)
    for band, color, label in zip(bands, colors, labels, strict=True):
        heights = [float(r.get(band, 0)) for r in rows]
        ax.bar(xs, heights, width, bottom=bottom, color=color, label=label, edgecolor="white",
               linewidth=0.5)  # fmt: skip
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]


def draw_wyrd(data: dict[str, Any]) -> Figure:
    """Three panels: the 4dF (+ skill) distribution, the bands by DR at ``skill``, and success
    by DR for skill levels 0..3 (the text's "4dF", "4dF-DR" and "shifted-DR" figures)."""
    skill = data["skill"]
    fig = _figure(15, 4.6)
    a, b, c = fig.subplots(1, 3)
    dist = data["distribution"]
    xs = [k + skill for k in dist]
    a.bar(xs, [float(p) for p in dist.values()], color=BEST, width=0.7)
    _bar_labels(a, xs, list(dist.values()))
    a.set_xticks(xs)
    a.set_title(f"4dF{skill:+d}: how likely each total is" if skill else "4dF: each total")
    a.set_xlabel("total" if skill else "4dF result")
    _percent_axis(a, max(float(p) for p in dist.values()) * 1.18)

    ladder = data["ladders"][skill]
    names = [f"{name} ({dr:+d})" for dr, name, _, _ in ladder]
    xs_b = list(range(len(ladder)))
    order = ("success_with_style", "success", "tie", "failure")
    if all(rows for _, _, _, rows in ladder):
        _stacked(
            b, xs_b, [bands for _, _, _, bands in ladder], order, (BEST, GOOD, MIXED, BAD),
            ("success with style", "success", "tie (succeeds)", "failure"),
        )  # fmt: skip
        b.legend(loc="upper center", bbox_to_anchor=(0.5, -0.32), ncol=4, fontsize=7)
    else:
        b.bar(xs_b, [float(p) for _, _, p, _ in ladder], color=GOOD)
    for x, (_, _, p, _) in zip(xs_b, ladder, strict=True):
        b.annotate(f"{float(p):.0%}", (x, float(p)), ha="center", va="bottom", fontsize=7,
                   xytext=(0, 1), textcoords="offset points")  # fmt: skip
    b.set_xticks(xs_b, names, rotation=45, ha="right", fontsize=8)
    b.set_ylabel("share of rolls (success % on top)")
    b.set_title(f"Skill {skill:+d}: outcome by Difficulty Rating (total ≥ DR succeeds)")
    _percent_axis(b, 1.08)
    for x, (dr, _, _, _) in zip(xs_b, ladder, strict=True):
        if dr == data.get("dr"):
            b.get_xticklabels()[x].set_fontweight("bold")
            b.bar([x], [1.0], 0.9, fill=False, edgecolor="black", linewidth=1.5)

    for i, (s, rows) in enumerate(sorted(data["ladders"].items())):
        label = {0: "Untrained", 1: "Novice", 2: "Skilled", 3: "Expert"}.get(s, "")
        c.plot(
            range(len(rows)), [float(p) for _, _, p, _ in rows], marker="o",
            color=LINES[i % len(LINES)], label=f"{s:+d} {label}".strip(),
            linewidth=3 if s == skill else 1.5,
        )  # fmt: skip
    c.set_xticks(range(len(ladder)), [name for _, name, _, _ in ladder], rotation=45,
                 ha="right", fontsize=8)  # fmt: skip
    c.set_title("Success by Difficulty Rating, per skill level")
    c.legend(fontsize=8, title="skill", title_fontsize=8)
    _percent_axis(c, 1.04)
    fig.suptitle("The Wyrd Engine: 4dF + skill against a Difficulty Rating (exact)")
    return fig


def draw_decision(data: dict[str, Any]) -> Figure:
    """Two panels: the distribution of the total and ``P(total >= target)`` for 2d6 / 3d6
    (advantage) / 1d6 (disadvantage), with the text's difficulty scale marked."""
    from matplotlib.ticker import MaxNLocator

    fig = _figure(13, 4.6)
    a, b = fig.subplots(1, 2)
    colors = {"normal": BEST, "advantage": GOOD, "disadvantage": BAD}
    for mode, d in data["modes"].items():
        label = f"{d['dice']} ({mode})"
        dist = d["distribution"]
        a.plot(list(dist), [float(p) for p in dist.values()], marker="o", color=colors[mode],
               label=label)  # fmt: skip
        tg = d["targets"]
        b.plot(list(tg), [float(p) for p in tg.values()], marker="o", color=colors[mode],
               label=label)  # fmt: skip
    mod = data.get("modifier", 0)
    a.set_title(f"Total of the decision dice {mod:+d}" if mod else "Total of the decision dice")
    a.set_xlabel("total")
    a.xaxis.set_major_locator(MaxNLocator(integer=True))
    b.xaxis.set_major_locator(MaxNLocator(integer=True))
    a.legend(fontsize=8)
    _percent_axis(a, max(float(p) for d in data["modes"].values()
                         for p in d["distribution"].values()) * 1.1)  # fmt: skip
    for number, label in sorted(data["scale"].items()):
        b.axvline(number, color="grey", linestyle=":", linewidth=1)
        b.annotate(label, (number, 1.0), rotation=90, fontsize=7, ha="right", va="top",
                   xytext=(-2, 0), textcoords="offset points")  # fmt: skip
    b.set_title("Chance to meet the target number (total ≥ target)")
    b.set_xlabel("target number")
    b.legend(fontsize=8, loc="center right", framealpha=0.9)
    _percent_axis(b, 1.04)
    fig.suptitle("Decision dice: success by target, with advantage and disadvantage (exact)")
    return fig


def draw_d20(data: dict[str, Any]) -> Figure:
    """One panel per mode (normal, advantage, disadvantage): bad / messy / good by
    proficiency, with the given proficiency's bar outlined."""
    fig = _figure(15, 4.4)
    axes = fig.subplots(1, 3, sharey=True)
    for ax, (mode, by_prof) in zip(axes, data["modes"].items(), strict=True):
        xs = list(by_prof)
        _stacked(ax, xs, list(by_prof.values()), ("bad", "messy", "good"), (BAD, MIXED, GOOD),
                 ("bad (total ≤ 8)", "messy (9-17)", "good (≥ 18)"))  # fmt: skip
        ax.set_title(
            f"{mode}"
            + (
                " (2d20, keep higher)"
                if mode == "advantage"
                else " (2d20, keep lower)"
                if mode == "disadvantage"
                else " (1d20)"
            )
        )
        ax.set_xticks(xs)
        ax.set_xlabel("proficiency" + (f" (penalty {data['penalty']})" if data["penalty"] else ""))
        p = data["proficiency"]
        ax.bar([p], [1.0], 0.9, fill=False, edgecolor="black", linewidth=1.5)
        good = by_prof[p]["good"]
        ax.annotate(f"good {float(good):.0%}", (p, 1.0), ha="center", va="bottom", fontsize=7)
        _percent_axis(ax, 1.08)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles[:3], labels[:3], loc="outside lower center", ncol=3, fontsize=8)
    fig.suptitle("d20 World: check outcome bands by proficiency (exact)")
    return fig


def draw_terran(data: dict[str, Any]) -> Figure:
    """Risky Action bands by pool size (and the Effect distribution when asked)."""
    effect = data.get("effect")
    fig = _figure(13 if effect else 8, 4.6)
    axes = fig.subplots(1, 2 if effect else 1, squeeze=False)[0]
    a = axes[0]
    xs = list(data["bands"])
    rows = list(data["bands"].values())
    _stacked(a, xs, rows, ("fail", "mixed", "success"), (BAD, MIXED, GOOD),
             ("fail (highest 1-3)", "mixed (4-5)", "success (a 6)"))  # fmt: skip
    for x, r in zip(xs, rows, strict=True):
        a.annotate(f"{float(r['success']):.0%}", (x, 1.0), ha="center", va="bottom", fontsize=7)
    if data.get("pool") is not None:
        a.bar([int(data["pool"])], [1.0], 0.9, fill=False, edgecolor="black", linewidth=1.5)
    a.set_xticks(xs)
    a.set_xlabel("dice in the pool (Light + Dark)")
    a.set_title("Risky Action: outcome by pool size (full-success % on top)")
    a.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3)
    _percent_axis(a, 1.08)
    if effect:
        b = axes[1]
        dist = effect["distribution"]
        b.bar(list(dist), [float(p) for p in dist.values()], color=BEST)
        _bar_labels(b, list(dist), list(dist.values()))
        b.set_title(f"Effect {effect['code']}: each value (sixes explode); "
                    f"P(> {effect['tail'][0]}) = {float(effect['tail'][1]):.1%}")  # fmt: skip
        b.set_xlabel("effect")
        _percent_axis(b, max(float(p) for p in dist.values()) * 1.18)
    fig.suptitle("The Terran Engine: Risky Actions (exact)")
    return fig


def draw_spellwoven(data: dict[str, Any]) -> Figure:
    """Chance of at least k successes by Skill Level, and success counts for a few levels."""
    fig = _figure(13, 4.6)
    a, b = fig.subplots(1, 2)
    by_skill = data["by_skill"]
    skills = sorted(by_skill)
    top = max(max(v["at_least"]) for v in by_skill.values())
    for i, k in enumerate(range(1, min(top, 6) + 1)):
        a.plot(skills, [float(by_skill[s]["at_least"].get(k, 0)) for s in skills], marker="o",
               markersize=3, color=LINES[i % len(LINES)], label=f"≥ {k}",
               linestyle="-" if k <= 4 else "--")  # fmt: skip
    a.set_xticks(skills)
    a.set_xlabel("Skill Level")
    a.set_title("Chance of at least k successes (difficulty k)")
    a.legend(fontsize=8, title="successes", title_fontsize=8)
    _percent_axis(a, 1.04)
    shown = [int(data["skill"])] if data.get("skill") else [3, 5, 7, 10, 15]
    shown = [s for s in shown if s in by_skill]
    width = 0.8 / max(1, len(shown))
    for i, s in enumerate(shown):
        dist = by_skill[s]["distribution"]
        xs = [k + (i - (len(shown) - 1) / 2) * width for k in dist]
        b.bar(xs, [float(p) for p in dist.values()], width, color=LINES[i % len(LINES)],
              label=f"Skill {s}")  # fmt: skip
        if len(shown) == 1:
            _bar_labels(b, xs, list(dist.values()))
    b.set_xlabel("successes")
    b.set_title("How many successes, by Skill Level")
    b.legend(fontsize=8)
    _percent_axis(b, max(float(p) for s in shown for p in by_skill[s]["distribution"].values())
                  * 1.15)  # fmt: skip
    mode = "" if data["mode"] == "normal" else f", {data['mode']}"
    bonus = f", +{data['bonus']} Effort" if data["bonus"] else ""
    fig.suptitle(f"Spellwoven: {data['pool']}d10 roll-under success counts{mode}{bonus} (exact)")
    return fig


def draw_generic(system_id: str, data: dict[str, Fraction]) -> Figure:
    """A horizontal bar per probability (the first 40) for systems without their own chart."""
    items = list(data.items())[:40]
    fig = _figure(9, 1.2 + 0.28 * len(items))
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
    ax.set_title(f"{system_id}: exact odds")
    return fig


CHARTS: dict[str, tuple[Callable[..., dict[str, Any]], Callable[[dict[str, Any]], Figure]]] = {
    "wyrd-engine": (wyrd_series, draw_wyrd),
    "decision-dice": (decision_series, draw_decision),
    "d20-world": (d20_series, draw_d20),
    "terran-engine": (terran_series, draw_terran),
    "spellwoven": (spellwoven_series, draw_spellwoven),
}


def odds_figure(system: RuleSystem, params: dict[str, Any]) -> Figure:
    """The odds chart of ``system`` for the ``odds`` params given.

    :param system: a configured rule system (``rule_systems()[id].configure({})``).
    :param params: the system's own ``odds_params`` values, converted.
    :raises ChartError: the system's odds lack what the chart needs.
    :raises RuleError: the system refuses the params (as ``campaign odds`` would).
    """
    chart = CHARTS.get(system.id)
    if chart is None:
        return draw_generic(system.id, generic_series(system, params))
    series, draw = chart
    _checked(system, lambda: system.odds(params))  # the system's own refusal comes first
    data = series(system, params)
    return _checked(system, lambda: draw(data))


def fairness_figure(reports: Iterable[DieReport], title: str, names: dict[str, str]) -> Figure:
    """One panel per tested group: observed count of each face, the fair expectation and
    its ±2 standard deviation band (binomial), the verdict in the panel title.

    :param reports: groups with at least one die (at most 12 are drawn, flagged first).
    :param names: character id → display name.
    :raises ChartError: no dice to draw.
    """
    from .fairness import EVERYONE, FLAG_P, format_p

    groups = [r for r in reports if r.dice]
    if not groups:
        raise ChartError("no dice to draw: the filters match no rolls")
    groups.sort(key=lambda r: not r.flagged)  # stable: flagged first, then report order
    groups = groups[:12]
    cols = min(3, len(groups))
    rows = (len(groups) + cols - 1) // cols
    fig = _figure(5.2 * cols, 3.3 * rows + 0.6)
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
    "CHARTS",
    "FORMATS",
    "ChartError",
    "check_path",
    "d20_series",
    "decision_series",
    "fairness_figure",
    "frac",
    "generic_series",
    "odds_figure",
    "save",
    "spellwoven_series",
    "terran_series",
    "wyrd_series",
]
