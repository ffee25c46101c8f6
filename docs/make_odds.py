"""Generate docs/odds.md and its charts (docs/img/) from the rule systems' exact odds.

    uv run python docs/make_odds.py           # write docs/odds.md and docs/img/*.png
    uv run python docs/make_odds.py --check   # exit 1 if docs/odds.md is stale (CI)

Every number comes from the installed rule systems' own ``odds`` (the same code as
``campaign odds``), through each system's ``odds_series`` and ``draw_odds`` (the same chart
as ``--plot``); the fairness example runs :mod:`ledger.fairness` on fixed, seeded dice. Nothing depends on the clock or on chance, so
the output is the same on every run. ``--check`` only builds the Markdown (fast, no
drawing) and checks that every chart it embeds exists.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

from ledger.dice import fairness as fair
from ledger.dice.engine import EngineDice
from ledger.rules import charts
from ledger.rules.plugins import rule_systems

DOCS = Path(__file__).resolve().parent
OUT = DOCS / "odds.md"
IMG = DOCS / "img"

# (system id, chart params, file, caption)
CHARTS: list[tuple[str, dict[str, Any], str, str]] = [
    ("wyrd-engine", {"skill": 0}, "odds-wyrd-engine.png", "The Wyrd Engine, untrained (skill +0)"),
    ("decision-dice", {"stat": 0}, "odds-decision-dice.png", "Decision dice, STAT 0"),
    ("decision-dice", {}, "odds-decision-dice-family.png", "Decision dice, every STAT"),
    ("d20-world", {"proficiency": 0}, "odds-d20-world.png", "d20 World, no penalties"),
    ("terran-engine", {"effect": "1d"}, "odds-terran-engine.png", "The Terran Engine"),
    ("spellwoven", {}, "odds-spellwoven.png", "Spellwoven, 3d10"),
]
FAIRNESS_IMG = "fairness-example.png"


def pct(p: Fraction, digits: int = 1) -> str:
    """``Fraction(1, 8)`` → ``"12.5%"``; certainties without decimals."""
    if p in (0, 1):
        return f"{int(p * 100)}%"
    return f"{float(p) * 100:.{digits}f}%"


def both(p: Fraction) -> str:
    """``"61.7% (50/81)"``."""
    return f"{pct(p)} ({p.numerator}/{p.denominator})" if p not in (0, 1) else pct(p)


def table(head: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def system(system_id: str) -> Any:
    return rule_systems()[system_id].configure({})


def image(file: str, caption: str) -> str:
    return f"![{caption}](img/{file})"


# --- sections ---------------------------------------------------------------------------------


def wyrd() -> str:
    data = system("wyrd-engine").odds_series({"skill": 0})
    ladders = data["ladders"]
    rows = []
    for i, (dr, name, _, _) in enumerate(ladders[0]):
        rows.append([f"{name} ({dr:+d})"] + [both(ladders[s][i][2]) for s in range(4)])
    dist = data["distribution"]
    return "\n\n".join(
        [
            "## The Wyrd Engine: 4dF + skill against a Difficulty Rating",
            "From The Wyrd Engine Core Mechanics. The text illustrates its dice with three figures "
            "(the 4dF distribution, the success rate with the difficulty levels superimposed, "
            "and the same shifted by skill); here they are redrawn from exact values. A total "
            "that meets the DR succeeds (ruling: `total >= DR`; a tie is its own band, shown "
            "amber, and still succeeds).",
            image("odds-wyrd-engine.png", "The Wyrd Engine odds, skill +0"),
            "4dF: " + ", ".join(f"{k:+d}: {both(p)}" for k, p in dist.items()) + ".",
            "Success probability per skill level (the text's table, exact; the text prints "
            "38.7% where the exact value is 31/81 = 38.3%):",
            table(["Difficulty", "+0 Untrained", "+1 Novice", "+2 Skilled", "+3 Expert"], rows),
            "`campaign odds wyrd-engine --skill 2 --plot odds.png` draws the same panels for "
            "any skill (the middle panel shows that skill's bands; `--dr good` outlines one "
            "rating).",
        ]
    )


def decision() -> str:
    data = system("decision-dice").odds_series({"stat": 0})
    modes = data["modes"]
    targets = sorted(modes["normal"]["targets"])
    rows = []
    for t in targets:
        if t > 20:
            continue
        label = f"{t}" + (f" ({data['scale'][t]})" if t in data["scale"] else "")
        rows.append([label] + [both(modes[m]["targets"][t]) for m in modes])
    head = ["target"] + [f"{modes[m]['dice']} ({m})" for m in modes]
    by_stat = system("decision-dice").odds({})["success_by_stat"]
    rungs = [r for r in next(iter(by_stat.values())) if "beyond" not in r]
    family_table = table(
        ["2d6 + STAT"] + [r.replace('"', "") for r in rungs],
        [[row.removeprefix("STAT ")] + [both(Fraction(cells[r])) for r in rungs]
         for row, cells in by_stat.items()],
    )  # fmt: skip
    return "\n\n".join(
        [
            "## Decision dice: success by target, with advantage and disadvantage",
            "From the Core Mechanics page of the Decision Dice rules. Roll 2d6 + STAT + modifiers against a target "
            "number; advantage adds a third d6 and all three are summed (3d6, not 3d6 keep "
            "two), disadvantage removes one (1d6). The dotted lines are the text's difficulty "
            "scale.",
            image("odds-decision-dice.png", "Decision dice odds"),
            "Chance to meet each target with STAT 0 (add your STAT and modifiers to the dice, "
            "or give `--stat`/`--modifier` to `campaign odds decision-dice`):",
            table(head, rows),
            "Without `--stat`, `campaign odds decision-dice` gives the family: the chance at "
            "each rung of the difficulty scale for every STAT from 0 to 10 (the campaign's "
            "`stat_min`..`stat_max`), and `--plot` draws it per mode (`--target N` keeps one "
            "target):",
            image("odds-decision-dice-family.png", "Decision dice: success by STAT"),
            family_table,
        ]
    )


def d20() -> str:
    data = system("d20-world").odds_series({})
    modes = data["modes"]
    rows = []
    for p in range(0, 11):
        cells = [
            " · ".join(pct(modes[m][p][b]) for b in ("bad", "messy", "good")) for m in modes
        ]
        rows.append([f"{p:+d}"] + cells)
    return "\n\n".join(
        [
            "## d20 World: bands with advantage and disadvantage",
            "From the untitled d20 rules of The World. Roll a d20 (two and keep the higher with "
            "advantage, the lower with disadvantage), add proficiency, subtract penalties: "
            "8 or less is bad, 9-17 messy, 18 or more good. The outlined bar is the "
            "proficiency asked for (`--proficiency`).",
            image("odds-d20-world.png", "d20 World odds"),
            "bad · messy · good by proficiency − penalties (exact fractions: "
            "`campaign odds d20-world --proficiency N --json`):",
            table(["modifier", "normal", "advantage", "disadvantage"], rows),
            "Without `--proficiency`, `campaign odds d20-world [--penalty N] [--advantage]` "
            "gives this family (proficiency +0 to +10, with the expected experience) and "
            "`--plot` draws it with every bar's chance of a good result on top.",
        ]
    )


def terran() -> str:
    data = system("terran-engine").odds_series({"effect": "1d"})
    rows = [
        [str(n)] + [both(b[k]) for k in ("fail", "mixed", "success")]
        for n, b in data["bands"].items()
    ]
    return "\n\n".join(
        [
            "## The Terran Engine: Risky Action bands by pool size",
            "From Terran Engine SRD v0.4.5, section 2.1. Roll the pool (Light and Dark dice "
            "together); the highest die decides: 1-3 fail, 4-5 mixed, a 6 succeeds. An "
            "empty pool fails (ruling R3). The right panel is a 1d Effect roll, whose sixes "
            "explode.",
            image("odds-terran-engine.png", "The Terran Engine odds"),
            table(["dice", "fail", "mixed", "success"], rows),
            "This table is what `campaign odds terran-engine` gives without options. With "
            "`--threshold T` (Roll Advancement, T = Ego_max + HP_max) or `--rating R` (Skill "
            "Development, 3 × R) but no `--spend`, it gives the chance for each Experience "
            "spent until success is 99% sure, and `--plot` adds those curves.",
        ]
    )


def spellwoven() -> str:
    data = system("spellwoven").odds_series({})
    rows = []
    for s, v in sorted(data["by_skill"].items()):
        al = v["at_least"]
        mean = sum((k * p for k, p in v["distribution"].items()), Fraction(0))
        rows.append(
            [str(s)]
            + [pct(al.get(k, Fraction(0))) for k in range(1, 5)]
            + [f"{float(mean):.2f}"]
        )
    return "\n\n".join(
        [
            "## Spellwoven: success counts by skill",
            "From Spellwoven: Rules for the Game. Roll 3d10; each die equal to or under the Skill "
            "Level scores a success and a 1 scores one more (from Skill Level 10 the "
            "\"Skill level 10+\" table gives more). A difficulty of k needs at least k "
            "successes.",
            image("odds-spellwoven.png", "Spellwoven odds"),
            "Chance of at least k successes (exact fractions: "
            "`campaign odds spellwoven --skill N --json`):",
            table(["Skill", "≥ 1", "≥ 2", "≥ 3", "≥ 4", "mean"], rows),
            "This is the family `campaign odds spellwoven` gives without `--skill`; with "
            "`--difficulty D` (or `--target A`, the Attribute: D = A − 1) it lists the chance "
            "to pass that difficulty at every Skill Level, and `--plot` draws its curve "
            "thicker.",
        ]
    )


# --- fairness ---------------------------------------------------------------------------------


def fairness_example() -> list[fair.DieReport]:
    """Fixed example dice: Isa's loaded physical d20 (a 20 three times as often), Bram's
    honest one, and 1,000 real engine rolls of 2d6 from a fixed session seed."""
    rng = random.Random(8)
    rolls = [
        fair.RollDraws(i, "isa", "physical", 1, ((20, face),))
        for i, face in enumerate(rng.choices(range(1, 21), weights=[1] * 19 + [3], k=240))
    ]
    rolls += [
        fair.RollDraws(1000 + i, "bram", "physical", 1, ((20, rng.randint(1, 20)),))
        for i in range(240)
    ]
    seed = hashlib.sha256(b"docs/odds.md example session").digest()
    for nonce in range(1000):
        dice = EngineDice(seed, "example", 1, nonce, "")
        dice.roll(2, 6)
        draws = tuple((int(s), int(v)) for s, v in dice.fields()["draws"])
        rolls.append(fair.RollDraws(2000 + nonce, "bram", "engine", 1, draws))
    return fair.report(rolls)


def fairness_section(reports: list[fair.DieReport]) -> str:
    rows = []
    for r in reports:
        who = "everyone" if r.roller == fair.EVERYONE else r.roller
        p = "—" if r.p is None else fair.format_p(r.p)
        rows.append([f"{r.source} {r.die}", who, str(r.dice), p, r.status])
    return "\n\n".join(
        [
            "## Are the dice fair? `campaign fairness`",
            "`campaign fairness [--character NAME] [--source engine|physical] [--session N] "
            "[--plot FILE] [--json]` counts the faces of every die in the log (each roll "
            "event's `draws`) per die size, source and roller, and tests them against a fair "
            "die with Pearson's chi-square goodness-of-fit test (`scipy.stats.chisquare`, "
            "sides − 1 degrees of freedom). Corrections are honoured: a retracted roll does "
            "not count, an amended one counts with its amended dice; like every read command "
            "it gives the players' view unless asked `--as gm`, so blind GM rolls count only "
            "in the GM's.",
            "The verdict does not over-claim:",
            "\n".join(
                [
                    f"- fewer than {fair.MIN_EXPECTED} dice expected per face (100 d20, 30 "
                    "d6): *too few to judge*, whatever the counts look like;",
                    f"- p below {fair.FLAG_P}: *flagged*, unlikely to be a fair die (a fair "
                    "die does this less than 1 time in 1,000);",
                    f"- p below {fair.WATCH_P}: *worth watching* (with many dice checked, "
                    "this happens to fair dice now and then);",
                    f"- p above {1 - fair.FLAG_P:g}: *suspiciously even*: real dice are "
                    "rarely this regular (were the faces typed from real rolls?);",
                    "- otherwise *consistent with a fair die*, which never proves a die fair.",
                ]
            ),
            "An example with fixed dice: Isa's d20 shows a 20 three times as often as any "
            "other face, Bram's d20 is honest, and the engine's dice are 1,000 real engine "
            "rolls of 2d6 from a fixed session seed.",
            image(FAIRNESS_IMG, "Fairness example"),
            table(["dice", "roller", "dice counted", "p", "verdict"], rows),
        ]
    )


# --- the page ---------------------------------------------------------------------------------


def markdown(reports: list[fair.DieReport]) -> str:
    parts = [
        "# Odds and dice fairness",
        "<!-- Generated by docs/make_odds.py from the rule systems' exact odds: edit the "
        "script, then run `uv run python docs/make_odds.py`. CI runs it with --check. -->",
        "Every rule system answers `campaign odds SYSTEM [options]` with exact "
        "probabilities (fractions such as `50/81` with `--json`). "
        "`--plot FILE.png` (or `.svg`, `.pdf`) also draws the system's chart, like the ones "
        "below. Each chart's numbers are cross-checked against icepool in "
        "tests/test_charts.py.",
        wyrd(),
        decision(),
        d20(),
        terran(),
        spellwoven(),
        fairness_section(reports),
    ]
    return "\n\n".join(parts) + "\n"


def draw(reports: list[fair.DieReport]) -> list[Path]:
    IMG.mkdir(exist_ok=True)
    written = []
    for system_id, params, file, _ in CHARTS:
        fig = charts.odds_figure(system(system_id), params)
        charts.save(fig, str(IMG / file))
        written.append(IMG / file)
    names = {"isa": "Isa", "bram": "Bram"}
    fig = charts.fairness_figure(reports, "Dice fairness: an example", names)
    charts.save(fig, str(IMG / FAIRNESS_IMG))
    written.append(IMG / FAIRNESS_IMG)
    return written


def main(argv: list[str] | None = None, echo: Callable[[str], None] = print) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/odds.md is stale")
    args = parser.parse_args(argv)
    reports = fairness_example()
    text = markdown(reports)
    if args.check:
        problems = []
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            problems.append(f"{OUT.relative_to(DOCS.parent)} is stale")
        files = [file for _, _, file, _ in CHARTS] + [FAIRNESS_IMG]
        problems += [f"docs/img/{f} is missing" for f in files if not (IMG / f).exists()]
        if problems:
            echo("; ".join(problems) + ": run `uv run python docs/make_odds.py`")
            return 1
        echo("docs/odds.md is current")
        return 0
    OUT.write_text(text, encoding="utf-8")
    for path in draw(reports):
        echo(f"wrote {path.relative_to(DOCS.parent)}")
    echo(f"wrote {OUT.relative_to(DOCS.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
