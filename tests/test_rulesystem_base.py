"""What the RuleSystem base class owns for every plugin: describe dispatch, the chart."""

from __future__ import annotations

import sys
import types
from fractions import Fraction

from ledger import describes

from .toy import Hurt, LuckUsed, Toy


class Worded(Toy):
    """The toy system, with words for two of its events."""

    @describes(Hurt)
    def _hurt(self, event: Hurt) -> str:
        return f"{event.character}: loses {event.amount} hp"

    @describes(LuckUsed)
    def _luck(self, event: LuckUsed) -> str | None:
        return None if event.character == "nobody" else f"{event.character}: pushes their luck"


def test_describe_dispatches_on_the_event_class():
    system = Worded().configure({})
    assert system.describe(Hurt(character="ann", amount=2)) == "ann: loses 2 hp"
    assert system.describe(LuckUsed(character="ann")) == "ann: pushes their luck"
    assert system.describe(LuckUsed(character="nobody")) is None
    assert Toy().configure({}).describe(Hurt(character="ann", amount=2)) is None  # unmarked


def test_a_subclass_rewords_an_event_and_a_configured_copy_keeps_its_own_self():
    class Louder(Worded):
        @describes(Hurt)
        def _loud(self, event: Hurt) -> str:
            return f"{event.character}: LOSES {event.amount} HP ({self.options!r})"

    base = Louder()
    base.describe(Hurt(character="a", amount=1))  # builds the table on the unconfigured one
    system = base.configure({})
    line = system.describe(Hurt(character="ann", amount=3))
    assert line is not None and line.startswith("ann: LOSES 3 HP")
    assert "Options(" in line  # the configured copy's options, not the original's None


def test_the_chart_module_answers_odds_series_and_draw_odds(monkeypatch):
    module = types.ModuleType("toy_chart_for_test")
    calls: list[str] = []

    def odds_series(system, params):
        calls.append("series")
        return {"success": Fraction(1, 3), "params": params, "id": system.id}

    def draw_odds(data):
        calls.append("draw")
        return ("figure", data["success"])

    module.odds_series = odds_series  # type: ignore[attr-defined]
    module.draw_odds = draw_odds  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "toy_chart_for_test", module)

    class Charted(Toy):
        chart = "toy_chart_for_test"

    system = Charted().configure({})
    data = system.odds_series({"skill": 2})
    assert data == {"success": Fraction(1, 3), "params": {"skill": 2}, "id": "toy"}
    assert system.draw_odds(data) == ("figure", Fraction(1, 3))
    assert calls == ["series", "draw"]


def test_without_a_chart_module_the_generic_series_is_used():
    data = Toy().configure({}).odds_series({"skill": 2, "target": 8})
    assert data and all(isinstance(v, Fraction) for v in data.values()), data



def test_a_subclass_made_elsewhere_finds_its_parents_relative_chart(monkeypatch):
    """``chart = ".odds"`` resolves against the package of the class that names it, not of
    a subclass defined in another module (a test's)."""
    import importlib

    package = types.ModuleType("toy_pkg_for_test")
    package.__path__ = []  # type: ignore[attr-defined]
    odds = types.ModuleType("toy_pkg_for_test.odds")
    odds.odds_series = lambda system, params: {"from": "toy_pkg_for_test.odds"}  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "toy_pkg_for_test", package)
    monkeypatch.setitem(sys.modules, "toy_pkg_for_test.odds", odds)
    Named = type("Named", (Toy,), {"chart": ".odds", "__module__": "toy_pkg_for_test.system"})

    class Elsewhere(Named):  # defined in this test module
        pass

    assert importlib.import_module(".odds", "toy_pkg_for_test") is odds
    assert Elsewhere().configure({}).odds_series({}) == {"from": "toy_pkg_for_test.odds"}


def test_an_event_subclass_is_worded_as_its_parent_unless_worded_itself():
    class BigHurt(Hurt, frozen=True, kw_only=True, tag="toy.big_hurt"):
        """A hurt of a bigger kind."""

    system = Worded().configure({})
    assert system.describe(BigHurt(character="ann", amount=9)) == "ann: loses 9 hp"


def test_a_system_as_registered_has_its_default_options():
    """Before ``configure``, an instance holds ``options_type()`` (not ``None``), so what
    its methods read of ``self.options`` is the book's default."""
    system = Toy()
    assert isinstance(system.options, Toy.options_type)
    assert system.configure({}).options == system.options
