"""Each rule system says what changed on a character in its book's words:
``RuleSystem.describe_changes`` for recaps and for every write's answer. Numbers are the
books' (seed files named in each test)."""

import re

from msgspec.structs import replace

from ledger.rules.plugins import rule_systems

PATH = re.compile(r"\w\[\d+\]|\w\.\w+:|\bNone\b|: *$|→ *$")


def said(system_id, before, after, *, as_gm=False):
    out = rule_systems()[system_id].describe_changes(before, after, as_gm=as_gm)
    for sentence in out:  # never a field path, None or an empty value
        assert not PATH.search(sentence), sentence
        assert sentence[:1].isupper() or not sentence[:1].isalpha(), sentence
    return out


def test_d20_world_experience_increase_conditions_and_objectives():
    """001_a3a02f9b7363775f.txt "Skills": a skill rises when its experience reaches
    10 + proficiency; "Conditions"; "Objectives"; "Bonds" (favor is The World's)."""
    from ledger_d20_world.state import Bond, Character, Condition, Objective, Skill, Wound

    isa = Character(id="isa", name="Isa Marrow",
                    skills=(Skill(name="Forage", proficiency=2),),
                    bonds=(Bond(name="the Guild", kind="faction", favor=1),))
    marked = replace(isa, skills=(Skill(name="Forage", proficiency=2, experience=5),))
    assert said("d20-world", isa, marked) == ["Forage +5 xp (5/12)"]
    risen = replace(isa, skills=(Skill(name="Forage", proficiency=3, experience=0),))
    assert said("d20-world", marked, risen) == ["Forage rose to +3 (0/13 xp)"]
    shaken = replace(isa, conditions=(Condition(name="shaken", check_penalty=1,
                                                ends_when="a night of sleep"),),
                     wounds=(Wound(number=1, damage=1, description="jaws"),))
    assert said("d20-world", isa, shaken) == [
        "Now shaken: −1 to checks until a night of sleep",
        "Wound 1: 1 damage (jaws)",
        "Checks now at −2 (wounds −1, conditions −1)",
    ]
    assert said("d20-world", shaken, isa) == [
        "No longer shaken", "Wound 1 healed", "No penalty on checks any more",
    ]
    vault = Objective(name="Open the vault", required_good=2, good=2, status="completed")
    assert said("d20-world", isa, replace(isa, objectives=(vault,))) == [
        "Objective 'Open the vault' completed (2/2 good checks)"
    ]
    tithe = replace(isa, bonds=(Bond(name="the Guild", kind="faction", favor=-1),))
    assert said("d20-world", isa, tithe, as_gm=True) == ["Favor of the Guild −2 (now −1)"]
    assert said("d20-world", isa, tithe) == []  # players never read favor


def test_wyrd_engine_stress_wounds_and_skill_levels():
    """000_60e07241544698f0.txt "Damage: Stress and Wounds": Josephine Langley takes +2 with
    no stress left: a Moderate Wound, −2 to Athletics and Fight; stress clears at the end of
    a scene; the skill ladder names +3 Expert/Great."""
    from ledger_wyrd_engine.state import Character, Wound

    jo = Character(id="josephine", name="Josephine Langley", stress=5, skills={"Fight": 1})
    shot = replace(jo, wounds={"moderate": Wound(absorbed=2, affected_skills=("Athletics", "Fight"),
                                                 description="shot")})
    assert said("wyrd-engine", jo, shot) == [
        "Moderate Wound (absorbs 2 of 2): −2 to Athletics, Fight rolls (shot)"
    ]
    assert said("wyrd-engine", jo, replace(jo, stress=0)) == ["Stress cleared"]
    assert said("wyrd-engine", replace(jo, stress=0), replace(jo, stress=3)) == [
        "Stress 3/5 [x][x][x][ ][ ]"
    ]
    julian = Character(id="julian", name="Julian Hargrave", skills={"Investigate": 2})
    assert said("wyrd-engine", julian, replace(julian, skills={"Investigate": 3})) == [
        "Investigate rose to Expert/Great (+3)"
    ]


def test_terran_engine_hp_wounds_and_skill_development():
    """003_2aeb47bc6ca82a40.txt "1.3.1 HP": at 0 HP Critically Wounded, −1d to every Light
    Dice Pool; "1.4 Advancements": Skill Development raises a Skill by 1."""
    from ledger_terran_engine.state import Character

    kit = Character(id="kit", name="Kit Ashdown", archetype="Hero",
                    rolled={"Strength": 1, "Agility": 1, "Insight": 1, "Charisma": 1},
                    skills={"Violence": 2}, hp=4, ego=4)
    hurt = replace(kit, hp=0, wound="critical")
    assert said("terran-engine", kit, hurt) == [
        "HP 4 → 0 (of 4)", "Critically Wounded: −1d to every Light Dice Pool"
    ]
    developed = replace(kit, skills={"Violence": 2, "Exploration": 1})
    assert said("terran-engine", kit, developed) == ["Exploration rose to 1"]


def test_decision_dice_supply_dice_and_trackers():
    """002_735c6d6cd834a641.txt "Supply Rolls": a supply die steps down d8 → d6."""
    from ledger_decision_dice.state import Character, Condition, Item

    jen = Character(character="jen", name="Nimble Jen", stats={"Agility": 1},
                    equipment=[Item(name="Climbing Kit", supply="d8")],
                    trackers={"Rifle ammunition": 60})
    after = replace(jen, equipment=[Item(name="Climbing Kit", supply="d6")],
                    trackers={"Rifle ammunition": 45},
                    conditions=[Condition(name="Higher ground", kind="advantage",
                                          rolls_left=1)])
    assert said("decision-dice", jen, after) == [
        "Climbing Kit's supply die d8 → d6",
        "Rifle ammunition 60% → 45%",
        "Now Higher ground: advantage for 1 roll",
    ]


def test_spellwoven_effort_and_conditions():
    """004_663ae3e4ecc71fd1.txt "Attributes and Effort": Effort is spent and refreshed by a
    night's sleep."""
    from ledger_spellwoven.state import Character

    jen = Character(id="jen", name="Nimble Jen", attributes={"Quickness": 3},
                    effort=2, effort_max=2)
    spent = replace(jen, effort=1, conditions=["Embarrassed"])
    assert said("spellwoven", jen, spent) == ["Effort 2 → 1 (of 2)", "Now Embarrassed"]
    assert said("spellwoven", spent, replace(spent, effort=2)) == ["Effort refreshed (2/2)"]


def test_generic_default_writes_sentences_for_a_system_that_gives_none():
    from ledger.rules.changes import sentences

    before = {"hp": 10, "stress": 0, "conditions": [], "wounds": {}, "note": "", "dead": False}
    after = {"hp": 8, "stress": 0, "conditions": [{"name": "shaken", "penalty": 1, "x": None}],
             "wounds": {"mild": {"absorbed": 1}}, "note": "", "dead": True}
    assert sentences(before, after) == [
        "Hp 10 → 8",
        "New condition 'shaken' (penalty 1)",
        "New wound 'mild' (absorbed 1)",
        "Now dead",
    ]
