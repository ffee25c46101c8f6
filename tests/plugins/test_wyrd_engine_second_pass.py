"""The Wyrd Engine, second pass: what a GM still tracked by hand.

Every number is the book's (000_60e07241544698f0.txt): Julian's Investigate +3 and Notice +2
("Example Character"), the dice of "Analysing a Crime Scene" (+ + − ·, total 4 against
Good), the Example Attack's thug (Athletics +1), the d6 stand-in of "Fudge dice (4dF)".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from freezegun import freeze_time

from ledger.testing import as_json, ok, refused

CAMPAIGN = Path(__file__).resolve().parents[2] / "campaigns" / "grand-casebook"


@pytest.fixture
def casebook(tmp_path: Path) -> Path:
    db = tmp_path / "casebook.db"
    with freeze_time("2026-03-01 19:00:00", tick=True):
        ok(db, "new", "casebook", "--system", "wyrd-engine")
        for stem in ("julian", "felix", "jonathan"):
            ok(db, "character", "add", "--sheet", str(CAMPAIGN / "characters" / f"{stem}.toml"))
        ok(db, "npc", "add", "Thug", "--skill", "Athletics=1", "--skill", "Notice=0")
        ok(db, "session", "start")
    return db


# --- the d6 stand-in ("Fudge dice (4dF)") ----------------------------------------------------


@freeze_time("2026-03-01 19:05:00", tick=True)
@pytest.mark.parametrize("faces", ["5 6 1 3", "5,6,2,4", "5614", "+ 6 1 0"])
def test_six_sided_dice_stand_in_for_fudge_dice(casebook: Path, faces: str) -> None:
    """"declare 1 and 2 to be −, 3 and 4 to be ·, and 5 and 6 to be +": d6 faces 5 6 1 3 are
    the book's + + − · of "Analysing a Crime Scene": Investigate +3, total 4 against Good."""
    out = as_json(casebook, "roll", "julian", "investigate", "--dr", "good", "--dice", faces)
    assert (out["dice"], out["roll"], out["total"], out["outcome"]) == (
        [1, 1, -1, 0], 1, 4, "success")  # fmt: skip
    assert [d for d in out["draws"]] == [[3, 3], [3, 3], [3, 1], [3, 2]]  # Fudge draws


@freeze_time("2026-03-01 19:05:00", tick=True)
@pytest.mark.parametrize("faces", ["7 1 1 1", "5617", "1 2 3 9"])
def test_a_face_no_six_sided_die_shows_is_refused(casebook: Path, faces: str) -> None:
    output = refused(casebook, "roll", "julian", "investigate", "--dr", "good", "--dice", faces)
    assert "six-sided" in output and "1 to 6" in output


# --- traits don't stack ------------------------------------------------------------------------


@freeze_time("2026-03-01 19:05:00", tick=True)
def test_two_traits_are_refused_not_the_last_kept(casebook: Path) -> None:
    """"How Traits Work": one +2 per roll (ruling C11): a second --trait is refused."""
    output = refused(casebook, "roll", "felix", "crafts", "--dr", "good",
                     "--trait", "Master Tinkerer", "--trait", "Master Tinkerer",
                     "--dice", "0000")  # fmt: skip
    assert "traits don't stack" in output
    out = as_json(casebook, "roll", "felix", "crafts", "--dr", "good",
                  "--trait", "Master Tinkerer", "--dice", "0000")  # fmt: skip
    assert out["trait_bonus"] == 2


# --- a situational modifier, recorded as such ----------------------------------------------------


@freeze_time("2026-03-01 19:05:00", tick=True)
def test_situational_modifier_is_recorded_apart_from_the_dr(casebook: Path) -> None:
    """"Improvised Weapons may impose a penalty unless the character is skilled in their
    use": Jonathan (Fight +2) with a chair, −1, against Fair (+1): · · · · gives 1, a tie."""
    out = as_json(casebook, "roll", "jonathan", "fight", "--dr", "fair", "--situational", "-1",
                  "--situation", "improvised weapon", "--dice", "0000")  # fmt: skip
    assert (out["dr"], out["situational"], out["situation"]) == (1, -1, "improvised weapon")
    assert (out["total"], out["margin"], out["outcome"]) == (1, 0, "tie")
    line = ok(casebook, "log").output.splitlines()[-1]
    assert "improvised weapon −1" in line and "Challenging/Fair (+1)" in line
    # impaired (drugged) below Untrained: the modifier may take a total below the skill's
    out = as_json(casebook, "roll", "julian", "notice", "--dr", "0", "--situational", "-3",
                  "--situation", "impaired (drugged)", "--dice", "0000")  # fmt: skip
    assert (out["total"], out["outcome"]) == (-1, "failure")
    assert "OK" in ok(casebook, "verify").output  # re-derived with the modifier


@freeze_time("2026-03-01 19:05:00", tick=True)
@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--situational", "-1"), "--situation"),
        (("--situation", "manoeuvre"), "give the modifier too"),
        (("--situational", "9", "--situation", "x"), "-6<=x<=6"),
    ],
)
def test_situational_modifier_needs_its_reason(
    casebook: Path, args: tuple[str, ...], words: str
) -> None:
    output = refused(casebook, "roll", "julian", "fight", "--dr", "1", *args, "--dice", "0000")
    assert words in output


def test_odds_of_a_situational_modifier_are_the_shifted_modifier() -> None:
    """The modifier adds to the dice like a skill: Fight +2 with −1 has the odds of +1."""
    from ledger.campaign.aggregate import load_system

    system = load_system("wyrd-engine")
    assert system.odds({"skill": 2 - 1, "dr": "fair"})["ladder"][0]["success"] == "50/81"  # 4dF >= 0: 31 + 19 of 81


# --- initiative ("Initiative: Who Acts First?") --------------------------------------------------


@freeze_time("2026-03-01 19:05:00", tick=True)
def test_initiative_is_4df_plus_notice_with_no_dr(casebook: Path) -> None:
    """"roll 4dF + Notice (or another relevant skill). The highest roll acts first, with
    ties resolved narratively." Julian's Notice is +2."""
    out = as_json(casebook, "roll", "julian", "--initiative", "--dice", "+0-0")
    assert (out["mode"], out["skill"], out["total"], out["dr"]) == ("initiative", "Notice", 2, None)
    assert out["outcome"] == "initiative"
    out = as_json(casebook, "roll", "julian", "--initiative", "--vs-character", "thug",
                  "--dice", "0000 ++00")  # fmt: skip
    assert (out["vs_skill"], out["total"], out["opposition_total"]) == ("Notice", 2, 2)
    assert out["outcome"] == "tie"
    assert "tie (resolved narratively)" in ok(casebook, "log").output.splitlines()[-2]
    out = as_json(casebook, "roll", "julian", "athletics", "--initiative", "--vs", "1",
                  "--dice", "+000 0000")  # fmt: skip
    assert (out["skill"], out["outcome"], out["margin"]) == ("Athletics", "acts_first", 1)
    assert "OK" in ok(casebook, "verify").output
    assert "no DR" in refused(casebook, "roll", "julian", "--initiative", "--dr", "good",
                              "--dice", "0000")  # fmt: skip


# --- a contest tie has no winner (ruling C15) ---------------------------------------------------


@freeze_time("2026-03-01 19:05:00", tick=True)
def test_contest_tie_reads_as_no_winner(casebook: Path) -> None:
    out = as_json(casebook, "roll", "julian", "athletics", "--vs-character", "thug",
                  "--dice", "0000 0000")  # fmt: skip
    assert (out["total"], out["opposition_total"], out["outcome"]) == (1, 1, "tie")
    line = ok(casebook, "log").output.splitlines()[-2]
    assert "tie: no winner" in line and "succeeds" not in line
    # a passive tie still succeeds (ruling C1): Julian's ambush, W4
    as_json(casebook, "roll", "julian", "stealth", "--dr", "0", "--dice", "0000")
    assert "succeeds" in ok(casebook, "log").output.splitlines()[-1]


# --- damage names the skills its wound affects ("Example Wound") ----------------------------


@freeze_time("2026-03-01 19:05:00", tick=True)
def test_damage_names_the_skills_of_its_wound(casebook: Path) -> None:
    """"Josephine Langley is shot during a gunfight and takes +2 damage. She has no remaining
    Stress boxes, so she takes a Moderate Wound ... applying a -2 penalty to Athletics and
    Fight rolls." A wound that names no skill says the GM still has to."""
    ok(casebook, "character", "add", "--sheet", str(CAMPAIGN / "characters" / "josephine.toml"))
    ok(casebook, "record", "damage-taken", "--character", "josephine", "--amount", "5")
    out = ok(casebook, "damage", "josephine", "2", "--affects", "Athletics",
             "--affects", "Fight").output  # fmt: skip
    assert "Moderate Wound (absorbs 2 of 2): −2 to Athletics, Fight rolls" in out
    sheet = as_json(casebook, "sheet", "josephine")
    assert sheet["wounds"]["moderate"]["affects"] == ["Athletics", "Fight"]
    assert sheet["penalties"] == {"Athletics": -2, "Fight": -2}
    out = ok(casebook, "damage", "josephine", "1").output
    assert "Mild Wound (absorbs 1 of 1): −1 to relevant skill rolls (the GM names them)" in out
    assert "--affects" in refused(casebook, "damage", "josephine", "1", "--affects", " ")
