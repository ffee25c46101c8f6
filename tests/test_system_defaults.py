"""What a rule system need not write: its event types and their sections come from its
appliers, describers and event classes."""

from __future__ import annotations

from ledger_decision_dice import DecisionDice

from ledger import Event, applies, describes


class Found(Event, frozen=True, kw_only=True, tag="deflt.found"):
    """Found something."""

    section = "Finding"
    character: str


class Noted(Event, frozen=True, kw_only=True, tag="deflt.noted"):
    """Worded only (no applier)."""

    character: str


class Foreign(Event, frozen=True, kw_only=True, tag="elsewhere.seen"):
    """Another system's event, applied here too."""

    character: str


class Deflt(DecisionDice):
    """A system that only writes its events' appliers and words."""

    id = "deflt"

    @applies(Found, Foreign)
    def on_found(self, state, event):
        return state

    @describes(Noted)
    def say_noted(self, event):
        return "noted"


def test_event_types_are_what_the_system_applies_or_describes_under_its_id():
    assert Deflt.event_types == (Found, Noted)  # appliers first; another id's left out
    assert Deflt.sections == {"deflt.found": "Finding"}


def test_a_subclass_adds_its_own_and_a_declaration_wins():
    class More(Deflt):
        @applies(Noted)
        def on_noted(self, state, event):
            return state

    class Declared(Deflt):
        event_types = (Found,)
        sections = {"deflt.found": "Elsewhere"}

    class Below(Declared):
        @applies(Noted)
        def on_noted(self, state, event):
            return state

    assert More.event_types == (Found, Noted)
    assert Declared.event_types == Below.event_types == (Found,)
    assert Below.sections == {"deflt.found": "Elsewhere"}


def test_the_bundled_systems_register_every_event_of_their_module():
    from ledger_decision_dice import events

    own = {
        v
        for v in vars(events).values()
        if isinstance(v, type) and issubclass(v, Event) and v.__module__ == events.__name__
    }
    assert set(DecisionDice.event_types) == own
    assert set(DecisionDice.sections) == {t.__struct_config__.tag for t in own}


class Lost(Event, frozen=True, kw_only=True, tag="deflt.lost"):
    """Worded by its line template."""

    line = "{character} loses {item} ({dice[0]} of {dice})"
    character: str
    item: str
    dice: list[int]


def test_an_event_without_a_describer_is_worded_by_its_line_template():
    system = Deflt()
    assert system.describe(Lost(character="jen", item="rope", dice=[3, 4])) == (
        "jen loses rope (3 of [3, 4])"
    )
    assert system.describe(Noted(character="jen")) == "noted"  # a describer wins
    assert system.describe(Found(character="jen")) is None  # neither: the core's words


def test_the_bundled_line_templates_read_as_before():
    from ledger_decision_dice.events import ItemRemoved, SupplyRolled

    system = DecisionDice()
    rolled = SupplyRolled(
        character="jen",
        item="Kit",
        die="d8",
        dice=[2],
        total=2,
        target=4,
        after="d6",
        outcome="failure",
        source="physical",
        draws=[],
    )
    assert system.describe(rolled) == "jen: supply roll Kit d8 shows 2 → d6"
    assert system.describe(ItemRemoved(character="jen", item="Kit")) == "jen loses Kit"
