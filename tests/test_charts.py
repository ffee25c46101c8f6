"""Odds charts: the numbers behind each chart against icepool, the drawing, `odds --plot`.

Each rule system computes its odds its own way (closed forms, enumeration, icepool); here
every distribution a chart draws is rebuilt independently with icepool from the rule text,
so a chart cannot silently draw a wrong curve.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import icepool
import pytest

from ledger.errors import RuleError
from ledger.rules import charts
from ledger.rules.plugins import rule_systems
from ledger.rules.system import RuleSystem

PNG = b"\x89PNG\r\n\x1a\n"


def system(system_id: str) -> Any:
    return rule_systems()[system_id].configure({})


def exact(die: icepool.Die) -> dict[int, Fraction]:
    """``{outcome: probability}`` of an icepool die, exactly."""
    denominator = die.denominator()
    return {int(k): Fraction(q, denominator) for k, q in die.items() if q}


def at_least(die: icepool.Die, target: int) -> Fraction:
    return sum((p for k, p in exact(die).items() if k >= target), Fraction(0))


FUDGE = icepool.Die([-1, 0, 1])


# --- the Wyrd Engine: 4dF -----------------------------------------------------------------


def test_wyrd_4df_distribution_matches_icepool():
    """The distribution is recovered from the plugin's ladders; icepool sums 4dF directly
    (000_60e07241544698f0.txt, "Dice": the 4dF figure)."""
    data = system("wyrd-engine").odds_series({})
    assert data["distribution"] == exact(4 @ FUDGE)
    assert data["distribution"][0] == Fraction(19, 81)


@pytest.mark.parametrize("skill", [-1, 0, 1, 2, 3, 5])
def test_wyrd_success_by_dr_matches_icepool(skill):
    """P(4dF + skill >= DR) for every DR of the ladder (ruling: a tie succeeds)."""
    data = system("wyrd-engine").odds_series({"skill": skill})
    ladder = data["ladders"][skill]
    assert [dr for dr, *_ in ladder] == list(range(-3, 7))
    for dr, _, p, bands in ladder:
        assert p == at_least(4 @ FUDGE + skill, dr), (skill, dr)
        assert sum(bands.values()) == 1
        assert bands["failure"] == 1 - p
    # the text's table, column +1, row Basic: 81.5 %
    if skill == 1:
        assert dict((dr, p) for dr, _, p, _ in ladder)[0] == Fraction(22, 27)


def test_wyrd_marks_the_dr_asked_for_by_name_or_alias():
    wyrd = system("wyrd-engine")
    assert wyrd.odds_series({"skill": 2, "dr": "good"})["dr"] == 2
    assert wyrd.odds_series({"skill": 2, "dr": "Formidable"})["dr"] == 3
    assert wyrd.odds_series({"skill": 2})["dr"] is None


# --- decision dice: 2d6, advantage 3d6, disadvantage 1d6 -----------------------------------


@pytest.mark.parametrize("stat", [0, 3])
def test_decision_dice_match_icepool(stat):
    """002_735c6d6cd834a641.txt, "Advantage and Disadvantage": advantage *adds* a d6 and
    all three are summed ("for a total of 3d6"), it is not 3d6 keep the 2 highest;
    disadvantage removes one (1d6)."""
    data = system("decision-dice").odds_series({"stat": stat})
    for mode, n in (("normal", 2), ("advantage", 3), ("disadvantage", 1)):
        die = n @ icepool.d6 + stat
        got = data["modes"][mode]
        assert got["distribution"] == exact(die), mode
        for target, p in got["targets"].items():
            assert p == at_least(die, target), (mode, target)
    assert data["modes"]["advantage"]["distribution"] != exact(
        icepool.d6.pool(3).highest(2).sum() + stat
    )
    assert data["scale"] == {
        6: "Simple Task",
        12: "Challenging Task",
        18: "Strenuous Task",
        20: "Impossible Task",
    }


# --- d20-world: d20 with advantage and disadvantage ----------------------------------------


def _d20_bands(die: icepool.Die, modifier: int) -> dict[str, Fraction]:
    """001_a3a02f9b7363775f.txt, "Checks": total ≤ 8 bad, 9-17 messy, ≥ 18 good."""
    out = {"bad": Fraction(0), "messy": Fraction(0), "good": Fraction(0)}
    for kept, p in exact(die).items():
        total = kept + modifier
        out["bad" if total <= 8 else "messy" if total <= 17 else "good"] += p
    return out


def test_d20_bands_match_icepool():
    d20 = icepool.d20
    dice = {
        "normal": d20,
        "advantage": icepool.highest(d20, d20),
        "disadvantage": icepool.lowest(d20, d20),
    }
    data = system("d20-world").odds_series({"proficiency": 2, "penalty": 1})
    assert data["proficiency"] == 2 and data["penalty"] == 1
    for mode, by_prof in data["modes"].items():
        assert list(by_prof) == list(range(11))
        for prof, bands in by_prof.items():
            assert bands == _d20_bands(dice[mode], prof - 1), (mode, prof)
    # worked by hand: proficiency 0, advantage: good 111/400
    zero = system("d20-world").odds_series({})
    assert zero["modes"]["advantage"][0]["good"] == Fraction(111, 400)


# --- the Terran Engine: highest die of the pool --------------------------------------------


def test_terran_bands_match_icepool():
    """003_2aeb47bc6ca82a40.txt, "2.1": the highest die decides: 1-3 fail, 4-5 mixed, 6
    success; an empty pool fails."""
    data = system("terran-engine").odds_series({"pool": 10})
    assert list(data["bands"]) == list(range(11))
    assert data["bands"][0] == {"fail": 1, "mixed": 0, "success": 0}
    for n in range(1, 11):
        highest = exact(icepool.d6.pool(n).highest(1).sum())
        expected = {
            "fail": sum((p for h, p in highest.items() if h <= 3), Fraction(0)),
            "mixed": sum((p for h, p in highest.items() if h in (4, 5)), Fraction(0)),
            "success": highest.get(6, Fraction(0)),
        }
        assert data["bands"][n] == expected, n


def test_terran_effect_series_when_asked():
    data = system("terran-engine").odds_series({"effect": "1d", "upto": 12})
    effect = data["effect"]
    assert effect["distribution"][3] == Fraction(1, 6)
    assert 6 not in effect["distribution"]  # a six always explodes
    assert effect["tail"][0] == 12
    assert sum(effect["distribution"].values()) + effect["tail"][1] == 1


# --- Spellwoven: 3d10 roll-under success counts --------------------------------------------


@pytest.mark.parametrize("skill", range(1, 10))
def test_spellwoven_success_counts_match_icepool(skill):
    """004_663ae3e4ecc71fd1.txt, "Overview: The Basic Mechanic": below Skill Level 10 a
    d10 equal to or under the Skill scores a success and a 1 scores one more; three dice."""
    die = icepool.d10.map(lambda face: (face <= skill) + (face == 1))
    data = system("spellwoven").odds_series({})
    got = data["by_skill"][skill]
    three = 3 @ die
    assert got["distribution"] == exact(three)
    for k, p in got["at_least"].items():
        assert p == at_least(three, k)


def test_spellwoven_series_covers_every_level_and_follows_the_mode():
    normal = system("spellwoven").odds_series({"skill": 5})
    assert sorted(normal["by_skill"]) == list(range(1, 21))
    assert normal["skill"] == 5 and normal["mode"] == "normal" and normal["pool"] == 3
    better = system("spellwoven").odds_series({"advantage": True})
    assert better["mode"] == "advantage"
    assert better["by_skill"][5]["at_least"][2] > normal["by_skill"][5]["at_least"][2]


# --- drawing -------------------------------------------------------------------------------


CASES = [
    ("wyrd-engine", {"skill": 2, "dr": "good"}),
    ("wyrd-engine", {"skill": 0}),
    ("decision-dice", {"stat": 1, "advantage": True}),
    ("d20-world", {"proficiency": 3}),
    ("terran-engine", {"pool": 3, "effect": "2d"}),
    ("spellwoven", {}),
    ("spellwoven", {"skill": 7, "disadvantage": True}),
]


@pytest.mark.parametrize(("system_id", "params"), CASES)
def test_every_chart_draws(system_id, params, tmp_path):
    fig = charts.odds_figure(system(system_id), params)
    assert fig.axes and all(ax.has_data() for ax in fig.axes if ax.get_visible())
    path = tmp_path / "chart.png"
    charts.save(fig, str(path))
    assert path.read_bytes()[:8] == PNG


def test_svg_output_is_reproducible(tmp_path):
    one, two = tmp_path / "one.svg", tmp_path / "two.svg"
    for path in (one, two):
        charts.save(charts.odds_figure(system("d20-world"), {}), str(path))
    assert one.read_bytes() == two.read_bytes()
    assert b"<svg" in one.read_bytes()


def test_check_path_refuses_other_formats_and_missing_folders(tmp_path):
    assert charts.check_path(str(tmp_path / "a.PNG")) == "png"
    with pytest.raises(charts.ChartError, match=r"name a \.png, \.svg or \.pdf"):
        charts.check_path(str(tmp_path / "a.jpg"))
    with pytest.raises(charts.ChartError, match="does not exist"):
        charts.check_path(str(tmp_path / "nope" / "a.png"))


def test_frac_reads_the_plugins_fractions():
    assert charts.frac("3/20") == Fraction(3, 20)
    assert charts.frac("1") == 1 and charts.frac("0/1") == 0
    with pytest.raises(ValueError):
        charts.frac(0.5)


# --- degrading when a plugin's odds are missing or broken ----------------------------------


def broken(system_id: str, answer: Any) -> Any:
    """The installed ``system_id`` with unfinished odds: ``odds`` returns (or raises)
    ``answer``; its own ``odds_series``/``draw_odds`` are kept."""

    def odds(self: Any, params: dict[str, Any]) -> Any:
        if isinstance(answer, BaseException):
            raise answer
        return answer

    base = type(system(system_id))
    return type(f"Broken{base.__name__}", (base,), {"odds": odds})().configure({})


@pytest.mark.parametrize(
    ("system_id", "answer", "message"),
    [
        ("wyrd-engine", {"system": "wyrd-engine"}, "have no 'ladder'"),
        ("wyrd-engine", NotImplementedError(), "cannot be charted"),
        ("decision-dice", {"dice": "2d6"}, r"cannot be charted \(KeyError"),
        ("terran-engine", {"risky_action": {"fail": "one half"}}, "cannot be charted"),
        ("spellwoven", {"by_skill": {"1": {"distribution": {}}}}, "cannot be charted"),
        ("d20-world", {"bad": "2/5"}, "cannot be charted"),
    ],
)
def test_unfinished_odds_give_one_clear_error(system_id, answer, message):
    with pytest.raises(charts.ChartError, match=message) as info:
        charts.odds_figure(broken(system_id, answer), {})
    assert system_id in str(info.value)
    assert "\n" not in str(info.value)


def test_unfinished_odds_of_a_system_without_its_own_chart(toy_system):
    toy = broken("toy", {"note": "nothing yet"})
    with pytest.raises(charts.ChartError, match="toy's odds hold no probabilities written n/d"):
        charts.odds_figure(toy, {})


def test_a_drawing_that_fails_gives_one_clear_error():
    class HalfDrawn(type(system("spellwoven"))):  # type: ignore[misc]
        def draw_odds(self, data):
            return data["no such panel"]

    with pytest.raises(charts.ChartError, match=r"spellwoven's odds cannot be charted \(KeyError"):
        charts.odds_figure(HalfDrawn().configure({}), {})


def test_a_rule_refusal_passes_through():
    with pytest.raises(RuleError, match="proficiency"):
        charts.odds_figure(system("d20-world"), {"proficiency": -1})


# --- the CLI -------------------------------------------------------------------------------


def test_odds_plot_writes_the_chart_and_still_prints_the_odds(invoke, tmp_path):
    path = tmp_path / "odds.png"
    result = invoke("odds", "wyrd-engine", "--skill", "2", "--plot", str(path))
    assert result.exit_code == 0, result.output
    assert "Chart: " in result.output and "Difficult" in result.output
    assert path.read_bytes()[:8] == PNG
    svg = tmp_path / "odds.svg"
    result = invoke("odds", "d20-world", "--json", "--plot", str(svg))
    assert result.exit_code == 0, result.output
    assert result.output.startswith("{") and "Chart" not in result.output
    assert svg.exists()


def test_odds_plot_refuses_bad_files_and_writes_nothing(invoke, tmp_path):
    for name, code in (("odds.txt", 2), ("missing/odds.png", 2)):
        result = invoke("odds", "d20-world", "--plot", str(tmp_path / name))
        assert result.exit_code == code, result.output
        assert result.output.startswith("Error: ") and result.output.count("\n") == 1
    assert list(tmp_path.iterdir()) == []
    # a number out of range is refused first (usage, exit 2): no chart for impossible odds
    result = invoke("odds", "d20-world", "--proficiency", "-2", "--plot", str(tmp_path / "x.png"))
    assert result.exit_code == 2 and not (tmp_path / "x.png").exists()


def test_a_system_without_its_own_chart_gets_the_generic_one(toy_system, invoke, tmp_path):
    path = tmp_path / "toy.png"
    result = invoke("odds", "toy", "--target", "8", "--plot", str(path))
    assert result.exit_code == 0, result.output
    assert path.read_bytes()[:8] == PNG
    series = charts.generic_series(system("toy"), {"target": 8})
    assert series == {"success": Fraction(15, 36)}


# --- docs/make_odds.py ---------------------------------------------------------------------


def test_make_odds_check_finds_a_stale_page(tmp_path, monkeypatch):
    import importlib.util
    from pathlib import Path

    script = Path(__file__).parent.parent / "docs" / "make_odds.py"
    spec = importlib.util.spec_from_file_location("make_odds", script)
    assert spec is not None and spec.loader is not None
    make_odds = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_odds)
    page = tmp_path / "docs" / "odds.md"
    page.parent.mkdir()
    monkeypatch.setattr(make_odds, "DOCS", page.parent)
    monkeypatch.setattr(make_odds, "OUT", page)
    monkeypatch.setattr(make_odds, "IMG", script.parent / "img")
    said: list[str] = []
    page.write_text("# Odds\n\nan old page\n")
    assert make_odds.main(["--check"], echo=said.append) == 1
    assert "docs/odds.md is stale" in said[-1]
    page.write_text(make_odds.markdown(make_odds.fairness_example()))
    assert make_odds.main(["--check"], echo=said.append) == 0
    text = page.read_text()
    assert "| Challenging (+1) | 38.3% (31/81) |" in text
    assert "| physical d20 | isa | 240 |" in text and "flagged" in text


def test_slow_work_shows_a_spinner_on_a_terminal_only(monkeypatch):
    # "progress or a spinner on anything over a second": --plot was silent for 8 seconds
    import io
    import sys

    from ledger.cli.base import spinner

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with spinner("Drawing odds.png…"):
        pass
    assert "Drawing odds.png" in terminal.getvalue()
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    with spinner("Drawing odds.png…"):
        pass
    assert piped.getvalue() == ""


def test_wyrd_odds_plot_without_a_skill_draws_the_family(invoke, tmp_path):
    # Seen: `odds wyrd-engine --plot x.png` without --skill refused instead of drawing
    chart = tmp_path / "family.png"
    result = invoke("odds", "wyrd-engine", "--plot", str(chart))
    assert result.exit_code == 0, result.output
    assert chart.stat().st_size > 10_000
    assert "Expert/Great (+3):" in result.output


def test_a_system_gets_the_generic_chart_through_the_rulesystem_defaults(toy_system):
    # The toy system overrides neither odds_series nor draw_odds (docs/plugin-guide.md)
    toy = system("toy")
    assert type(toy).odds_series is RuleSystem.odds_series
    assert toy.odds_series({"target": 8}) == {"success": Fraction(15, 36)}
    fig = toy.draw_odds({"success": Fraction(15, 36)})
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["success"]


def test_the_core_chart_module_knows_no_rule_system():
    # Issue 17: each plugin draws its own chart; a sixth system must not need the core changed
    from pathlib import Path

    text = Path(charts.__file__).read_text(encoding="utf-8").lower()
    for word in (
        "wyrd", "d20", "decision", "terran", "spellwoven",  # the five systems
        "4df", "proficiency", "risky", "skill", "difficulty", "effect", "2d6", "advantage",
    ):  # fmt: skip
        assert word not in text, word
    for system_id in rule_systems():
        assert system_id not in text


# --- families: `odds SYSTEM` without the skill or stat (issue 15) ----------------------------


def test_decision_dice_family_series_are_the_odds_rows():
    dd = system("decision-dice")
    data = dd.odds_series({"bonus": 1})
    assert data["family"] and data["modifiers"] == 1
    assert list(data["modes"]) == ["normal", "advantage", "disadvantage"]
    normal = data["modes"]["normal"]["by_target"]["Challenging Task (12)"]
    assert list(normal) == list(range(0, 11))
    for stat, p in normal.items():  # each point is `odds --stat S --bonus 1 --target 12`
        assert p == Fraction(dd.odds({"stat": stat, "bonus": 1, "target": "12"})["success"])
    adv = data["modes"]["advantage"]["by_target"]["Impossible Task (20)"]
    assert adv[8] == at_least(3 @ icepool.d6 + 9, 20)
    assert list(dd.odds_series({"target": "8"})["modes"]["normal"]["by_target"]) == ["target 8"]


def test_d20_family_series_outlines_nothing():
    data = system("d20-world").odds_series({})
    assert data["proficiency"] is None
    assert data["modes"]["advantage"][0]["good"] == Fraction(111, 400)


def test_terran_spend_family_series():
    data = system("terran-engine").odds_series({"threshold": 8})
    (curve,) = data["spend"].values()
    assert curve[2] == Fraction(5, 12) and max(curve.values()) >= Fraction(99, 100)


def test_spellwoven_family_series_keeps_the_difficulty():
    data = system("spellwoven").odds_series({"target": 3})
    assert data["difficulty"] == 2 and data["skill"] is None
    assert sorted(data["by_skill"]) == list(range(1, 21))


FAMILIES = [
    ("d20-world", [], "advantage (2d20, keep higher):"),
    ("d20-world", ["--penalty", "2", "--disadvantage"], "mode: disadvantage"),
    ("decision-dice", [], "STAT 10:"),
    ("decision-dice", ["--target", "challenging", "--advantage"], "target 12:"),
    ("terran-engine", [], "risky_action_table:"),
    ("terran-engine", ["--threshold", "20", "--rating", "3"], "advancement_by_spend:"),
    ("spellwoven", [], "pass_by_skill:"),
    ("spellwoven", ["--difficulty", "3", "--weakness"], "3 Very difficult:"),
]


@pytest.mark.parametrize(("system_id", "options", "shown"), FAMILIES)
def test_odds_plot_without_the_skill_or_stat_draws_the_family(
    invoke, tmp_path, system_id, options, shown
):
    # Issue 15: "`odds` without a skill/stat draws the whole family of curves"
    chart = tmp_path / "family.png"
    result = invoke("odds", system_id, *options, "--plot", str(chart))
    assert result.exit_code == 0, result.output
    assert shown in result.output and f"Chart: {chart}" in result.output
    png = chart.read_bytes()
    assert png[:8] == PNG
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert 800 <= width <= 2200 and 400 <= height <= 700, (width, height)
    assert len(png) > 30_000


def test_the_family_in_json_has_exact_fractions(invoke):
    import json

    result = invoke("odds", "decision-dice", "--json")
    assert result.exit_code == 0, result.output
    row = json.loads(result.output)["success_by_stat"]["STAT 3"]
    assert row["Challenging Task (12)"] == "5/18"  # 2d6 >= 9
    result = invoke("odds", "d20-world", "--json")
    assert json.loads(result.output)["bands_by_proficiency"]["normal (1d20)"]["+2"]["good"] == "1/4"


# --- the shared helpers that read a system's odds back ----------------------------------------


def test_numbered_family_rows_and_transposed_read_odds_tables_back():
    assert charts.numbered({"3": "1/6", "4": "1/3"}) == {3: Fraction(1, 6), 4: Fraction(1, 3)}
    family = {"STAT -1": {"8+": "5/18", "12+": "0/1"}, "STAT 0": {"8+": "5/12", "12+": "1/36"}}
    rows = charts.family_rows(family)
    assert rows == {
        -1: {"8+": Fraction(5, 18), "12+": 0},
        0: {"8+": Fraction(5, 12), "12+": Fraction(1, 36)},
    }
    assert charts.transposed(rows) == {
        "8+": {-1: Fraction(5, 18), 0: Fraction(5, 12)},
        "12+": {-1: 0, 0: Fraction(1, 36)},
    }
    # chosen columns in order, named, 0 where a row lacks one
    assert charts.transposed({1: {2: Fraction(1, 2)}, 2: {}}, [2], name=lambda k: f"≥ {k}") == {
        "≥ 2": {1: Fraction(1, 2), 2: 0}
    }
    with pytest.raises(ValueError):
        charts.family_rows({"STAT": {"8+": "1/2"}})


def test_by_variant_asks_the_odds_once_per_variant(toy_system):
    toy = system("toy")
    got = charts.by_variant(toy, {"target": 8}, lambda odds: odds["success"],
                            [("eight", {}), ("twelve", {"target": 12})])  # fmt: skip
    assert got == {"eight": toy.odds({"target": 8})["success"],
                   "twelve": toy.odds({"target": 12})["success"]}  # fmt: skip
    assert list(got) == ["eight", "twelve"]


def test_the_drawing_helpers_draw_what_they_are_given():
    two = {t: Fraction(6 - abs(t - 7), 36) for t in range(2, 13)}
    one = {t: Fraction(1, 6) for t in range(1, 7)}
    fig = charts.curve_panels(
        {"left": {"a": two}, "right": {"a": one, "b": two}},
        xlabel="STAT", ylabel="chance", title="both",
    )  # fmt: skip
    left, right = fig.axes[:2]
    assert [left.get_title(), right.get_title()] == ["left", "right"]
    assert left.get_ylabel() == "chance" and right.get_xlabel() == "STAT"
    assert len(right.lines) == 2 and list(right.lines[1].get_xdata()) == list(range(2, 13))
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["a"]
    ax = charts.figure(6, 4).subplots()
    charts.side_by_side(ax, {"2d": two, "1d": one}, headroom=1.5)
    assert len(ax.patches) == 11 + 6 and ax.get_ylim()[1] == pytest.approx(1 / 6 * 1.5)
    charts.marks(ax, {12: "hard", 6: "easy"})
    assert [t.get_text() for t in ax.texts][-2:] == ["easy", "hard"]


def test_totals_figure_draws_each_variant_and_the_named_targets():
    from ledger import at_least_table, pool_distribution

    variants = {
        f"{n}d6": {"distribution": (d := pool_distribution(range(1, 7), n)),
                   "targets": at_least_table(d, 2, 13)}
        for n in (1, 2)
    }  # fmt: skip
    fig = charts.totals_figure(variants, title="all", totals_title="totals", named={12: "hard"})
    a, b = fig.axes
    assert a.get_title() == "totals" and b.get_xlabel() == "target number"
    assert [line.get_label() for line in b.lines if line.get_label() in variants] == ["1d6", "2d6"]
    two = next(line for line in b.lines if line.get_label() == "2d6")
    assert list(two.get_ydata())[6] == pytest.approx(15 / 36)  # P(2d6 >= 8), x = 8
    assert [t.get_text() for t in b.texts] == ["hard"]
    assert a.get_ylim()[1] == pytest.approx(1 / 6 * 1.1)


def test_successes_figure_draws_at_least_k_by_level_and_the_shown_counts():
    from ledger import at_least_table, pool_distribution

    # a pool of n coins, each a success on heads: level n rolls n coins
    by_level = {}
    for n in range(1, 7):
        dist = pool_distribution((0, 1), n)
        by_level[n] = {"distribution": dist, "at_least": at_least_table(dist, 1)}
    fig = charts.successes_figure(
        by_level, [2, 6, 9], name="Rank", axis="Rank", bold=2, title="coins",
        chances_title="at least k", counts_title="how many",
    )  # fmt: skip
    a, b = fig.axes
    labels = [line.get_label() for line in a.lines]
    assert labels == ["≥ 1", "≥ 2", "≥ 3", "≥ 4", "≥ 5", "≥ 6"]
    assert a.lines[1].get_linewidth() == 3 and a.lines[4].get_linestyle() == "--"
    assert list(a.lines[2].get_ydata())[:3] == [0, 0, pytest.approx(1 / 8)]  # 3 heads of 3
    assert [t.get_text() for t in b.get_legend().get_texts()] == ["Rank 2", "Rank 6"]
    assert len(b.patches) == 3 + 7
