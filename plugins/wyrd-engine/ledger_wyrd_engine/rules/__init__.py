"""The Wyrd Engine's mechanics: the rules as pure functions and the :class:`Rules` mixin.

Source: 000_60e07241544698f0.txt, chapter "The Wyrd Engine Core Mechanics"; digest
``rules/wyrd-engine.md`` with its rulings (C1–C17). The pure functions live in
:mod:`.ladder` (the named ladders: Difficulty Ratings, skill levels, outcome bands) and
:mod:`.mechanics` (the 4dF roll, totals, bands, damage and wounds) and are re-exported
here; :class:`Rules` resolves rolls with them. A roll keeps what it was asked by option name
(``inputs``, recorded by the core), which the core's default ``request_of`` reads back to
re-derive it and to resolve an amended one again.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Self

from ledger import (
    DiceError,
    DiceSource,
    Event,
    Opponent,
    PhysicalDice,
    Recorded,
    Roll,
    RollRequest,
    RuleError,
    RuleSystem,
)

from .. import events as ev
from ..state import Character, Options
from .clock import Clock
from .ladder import (
    BAND_LABELS,
    BANDS,
    COMPARISONS,
    DR_LADDER,
    DR_NAMES,
    SKILL_LEVELS,
    SUCCESS_AT_COST,
    band_for_margin,
    dr_label,
    dr_ladder,
    dr_name,
    level_name,
    parse_dr,
    parse_rating,
    signed,
)
from .mechanics import (
    FUDGE_SIGNS,
    HEALING_METHODS,
    TRAIT_BONUS,
    Absorption,
    absorb,
    attack_result,
    check_healing,
    check_total,
    contest_band,
    d6_as_fudge,
    damage_units,
    faces_text,
    find_boon,
    find_trait,
    fudge_sum,
    initiative_order,
    passive_band,
    passive_margin,
    wound_penalty,
)

__all__ = [
    "BAND_LABELS", "BANDS", "COMPARISONS", "DR_LADDER", "DR_NAMES", "FUDGE_SIGNS",
    "HEALING_METHODS", "SKILL_LEVELS", "SUCCESS_AT_COST", "TRAIT_BONUS", "Absorption",
    "Rules", "absorb", "attack_result", "band_for_margin", "check_healing", "check_total",
    "contest_band", "d6_as_fudge", "damage_units", "dr_label", "dr_ladder", "dr_name",
    "faces_text", "find_boon", "find_trait", "fudge_sum", "initiative_order", "level_name",
    "parse_dr", "parse_rating", "passive_band", "passive_margin", "signed", "wound_penalty",
]  # fmt: skip


class Rules(Clock, RuleSystem[Character, Options]):
    """How the Wyrd Engine plays (a mixin of :class:`~ledger_wyrd_engine.system.WyrdEngine`):
    campaign options checked, skills looked up, rolls resolved and re-derived, harm of a
    hit, no advancement (000_60e07241544698f0.txt)."""

    # --- configuration -------------------------------------------------------------------

    def configure(self, options: dict[str, Any] | None = None) -> Self:
        """Bind campaign options (see :class:`~ledger_wyrd_engine.state.Options`).

        :raises RuleError: an unknown option, a wrong type, or a value out of range.
        """
        bound = super().configure(options)
        opts = bound.options
        problems = []
        if not 1 <= opts.stress_boxes <= 10:
            problems.append(
                f"stress_boxes is 1 to 10 (the book uses 5 or 3), not {opts.stress_boxes}"
            )
        if opts.damage_ratio not in (1, 2, 3):
            problems.append(f"damage_ratio is 1, 2 or 3 (to 1), not {opts.damage_ratio}")
        if any(m <= 0 for m in opts.minor_cost_margins):
            problems.append("minor_cost_margins lists positive margins only (e.g. [1])")
        if problems:
            raise RuleError(*problems)
        return bound

    # --- skills ------------------------------------------------------------------------

    def skills_of(self, state: Character) -> Iterable[str]:
        """The character's rated skills, then the setting's other skills."""
        own = list(state.skills)
        return own + [s for s in self.options.skill_list if s not in state.skills]

    def skill_rating(self, state: Character, name: str) -> tuple[str, int]:
        """``(canonical name, rating)`` of a skill; a setting skill the character lacks is 0
        ("Skills": "When a character lacks a skill, they roll with a default modifier of 0").

        :raises RuleError: a name that is neither the character's nor the setting's skill
            (with the closest names).
        """
        key = name.strip().lower()
        for skill, rating in state.skills.items():
            if skill.lower() == key:
                return skill, rating
        for skill in self.options.skill_list:
            if skill.lower() == key:
                return skill, 0
        known = list(self.skills_of(state))
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        close += [k for k in difflib.get_close_matches(key, [k.lower() for k in known], n=3)
                  if k not in (c.lower() for c in close)]  # fmt: skip
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
        raise RuleError(f"{state.name} has no skill {name!r} and the setting lists none{hint}")

    # --- rolls ---------------------------------------------------------------------------

    def _invoke(
        self, state: Character, skill: str, trait_name: str
    ) -> tuple[str, str, str, str, int]:
        """``(action skill, rating skill, trait name, kind, bonus)`` of one invoked trait
        ("How Traits Work"; ruling C11: one trait, gear trait or boon per roll)."""
        i = find_boon(state, trait_name)
        if i is not None:
            boon = state.boons[i]
            if boon.skill and boon.skill.lower() != skill.lower():
                raise RuleError(f"the boon {boon.name!r} helps {boon.skill}, not {skill}")
            return skill, skill, boon.name, "boon", TRAIT_BONUS
        trait = find_trait(state, trait_name)
        if trait is None:
            names = [t.name for t in (*state.traits, *state.gear)] + [b.name for b in state.boons]
            raise RuleError(
                f"{state.name} has no trait, gear or boon called {trait_name!r} "
                f"(has: {', '.join(names) or 'none'})"
            )
        if trait.kind == "ability":
            raise RuleError(
                f"{trait.name} is a once-per-{trait.once_per} ability, not a roll bonus: "
                f"record trait-ability-used for {trait.name!r} instead",
                param="trait",
            )
        if trait.kind == "substitution":
            assert trait.skill and trait.instead_of
            if skill.lower() == trait.instead_of.lower():
                return skill, trait.skill, trait.name, trait.kind, 0
            if skill.lower() == trait.skill.lower():
                return trait.instead_of, trait.skill, trait.name, trait.kind, 0
            raise RuleError(
                f"{trait.name} uses {trait.skill} instead of {trait.instead_of}, not for {skill}"
            )
        if trait.skill and trait.skill.lower() != skill.lower():
            what = "gives +2 to" if trait.kind == "bonus" else "permits rolls of"
            raise RuleError(f"{trait.name} {what} {trait.skill}, not {skill}")
        bonus = TRAIT_BONUS if trait.kind == "bonus" else 0
        return skill, skill, trait.name, trait.kind, bonus

    def resolve(self, state: Character, request: RollRequest, dice: DiceSource) -> ev.CheckRolled:
        """Roll 4dF + skill (+ one trait, boost, teamwork, − wounds) against ``--dr``, or
        against an opponent's 4dF + ``--vs`` as a contest, ``--attack`` or ``--defend``.

        Dice: the roller's four Fudge dice, then (with ``--vs``) the opponent's four.
        Sources (000_60e07241544698f0.txt): "Conflict resolution at a glance", "Passive
        Opposition", "Active Opposition", "Attacking and Defending", "Boosts", "Teamwork".

        :raises RuleError: no skill, unknown skill or trait, no DR and no ``--vs``, both DR
            and ``--vs``, ``--attack`` with ``--defend``, a boost not held, teamwork not 1–2,
            a dead character.
        :raises ledger.DiceError: physical faces that are not Fudge signs, too few or too many.
        """
        p = request.params
        if state.dead:
            raise RuleError(f"{state.name} is dead and cannot roll")
        initiative = bool(p.get("initiative"))
        if not request.skill and not initiative:
            raise RuleError("name the skill to roll, e.g. `campaign roll julian investigate`")
        problems: list[str] = []
        about: list[str] = []  # the option each problem is about (the first is the refusal's)

        def problem(text: str, option: str) -> None:
            problems.append(text)
            about.append(option)

        traits = p.get("trait") or ()
        traits = (traits,) if isinstance(traits, str) else tuple(traits)
        if len(traits) > 1:
            problem(
                f"invoke one trait, not {len(traits)} ({', '.join(traits)}): traits don't "
                'stack ("How Traits Work"; ruling C11)',
                "trait",
            )
        situational = p.get("situational") or 0
        situation = (p.get("situation") or "").strip()
        if situational and not situation:
            problem(
                "say why it applies, e.g. 'improvised weapon': a situational modifier is "
                "recorded with its reason",
                "situation",
            )
        if situation and not situational:
            problem(
                "why it applies is the reason for a situational modifier: give the modifier too",
                "situational",
            )
        dr_text = p.get("dr")
        vs = p.get("vs")
        attack, defend = bool(p.get("attack")), bool(p.get("defend"))
        opponent = request.opponent
        opposed = vs is not None or opponent is not None
        if initiative and dr_text is not None:
            problem(
                'initiative has no DR: the highest roll acts first ("Initiative: Who Acts '
                'First?"); leave the Difficulty Rating out',
                "dr",
            )
        if initiative and (p.get("attack") or p.get("defend")):
            problem("an initiative roll is not an attack or a defence", "initiative")
        if not opposed and dr_text is None and not initiative:
            problem(
                "give the Difficulty Rating (a number or a name like good), or an opponent: "
                "their rating, or a character on the ledger",
                "dr",
            )
        if opposed and dr_text is not None:
            problem(
                "give either the Difficulty Rating (passive) or an opponent (opposed), not both",
                "dr",
            )
        if vs is not None and opponent is not None:
            problem(
                "give the opponent as their rating or as a character on the ledger, not both: "
                "a character's rating comes from their sheet",
                "vs",
            )
        if opponent is not None and p.get("opponent"):
            problem(
                "who opposes names an opponent off the ledger: leave it out for a "
                "character on the ledger",
                "opponent",
            )
        if p.get("vs_trait") and opponent is None:
            problem(
                "the opponent's trait or gear is that of an opponent on the ledger: name them too",
                "vs_trait",
            )
        if attack and defend:
            problem("a roll is attacking or defending, not both", "attack")
        if (attack or defend) and not opposed:
            problem(
                "attacking and defending need an opponent: their rating, or a character on "
                "the ledger",
                "attack" if attack else "defend",
            )
        boost = p.get("boost") or 0
        if boost and boost not in (1, 2):
            problem(f"a boost spent is 1 or 2, not {boost}", "boost")
        teamwork = p.get("teamwork") or 0
        if teamwork and teamwork not in (1, 2):
            problem(
                f"the teamwork bonus is +1 (or +2 in special cases), not {teamwork}", "teamwork"
            )
        if problems:
            raise RuleError(*problems, param=about[0])
        if boost and not any(b.value == boost for b in state.boosts):
            held = ", ".join(f"+{b.value}" for b in state.boosts) or "none"
            raise RuleError(f"{state.name} holds no +{boost} boost (held: {held})")
        comparison = self.options.dr_comparison
        dr, dr_name = parse_dr(dr_text, comparison) if dr_text is not None else (None, None)

        skill, rating = self.skill_rating(state, request.skill or "Notice")
        rating_skill, trait, kind, bonus = skill, None, None, 0
        if traits:
            skill, rating_skill, trait, kind, bonus = self._invoke(state, skill, traits[0])
            skill, _ = self.skill_rating(state, skill)
            rating_skill, rating = self.skill_rating(state, rating_skill)
        physical_set = {s.lower() for s in self.options.physical_skills}
        physical = (
            bool(p.get("physical"))
            or skill.lower() in physical_set
            or (rating_skill.lower() in physical_set)
        )
        affected = {k: w.affected_skills for k, w in state.wounds.items()}
        penalty = wound_penalty(affected, {skill, rating_skill}, physical)

        side: dict[str, Any] = {}
        if opponent is not None:
            default = (
                "Notice"
                if initiative and not opponent.skill
                else "Athletics"
                if attack
                else "Fight"
                if defend
                else skill
            )
            side = self._opposing_side(opponent, default, p.get("vs_trait"))
            vs = side["vs_rating"] + side["vs_trait_bonus"] - side["vs_wound_penalty"]

        _split_sign_runs(dice)
        faces = dice.fudge(4)
        opp_faces = dice.fudge(4) if vs is not None else None
        dice.finish()
        roll = fudge_sum(faces)
        total = check_total(roll, rating, bonus, boost, teamwork, penalty, situational)
        mode = "passive"
        opp_total = None
        damage = 0
        if initiative:
            mode = "initiative"
            margin, outcome = 0, "initiative"
            if vs is not None:
                assert opp_faces is not None
                opp_total = fudge_sum(opp_faces) + vs
                margin, outcome = initiative_order(total, opp_total)
        elif dr is not None:
            margin, outcome = passive_band(total, dr, comparison, self.options.minor_cost_margins)
        else:
            assert opp_faces is not None and vs is not None
            opp_total = fudge_sum(opp_faces) + vs
            if attack:
                mode = "attack"
                hit, damage = attack_result(total, opp_total)
                margin, outcome = total - opp_total, "hit" if hit else "miss"
            elif defend:
                mode = "defence"
                hit, damage = attack_result(opp_total, total)
                margin, outcome = total - opp_total, "hit" if hit else "defended"
            else:
                mode = "contest"
                margin, outcome = contest_band(total, opp_total)
        return ev.CheckRolled(
            character=request.character,
            skill=skill,
            rating=rating,
            rating_skill=rating_skill,
            dice=faces,
            roll=roll,
            trait=trait,
            trait_kind=kind,
            trait_bonus=bonus,
            boost=boost,
            teamwork=teamwork,
            wound_penalty=penalty,
            total=total,
            mode=mode,  # type: ignore[arg-type]
            dr=dr,
            dr_name=dr_name,
            opponent=(
                opponent.name or opponent.character
                if opponent is not None
                else (p.get("opponent") or "opposition")
                if vs is not None
                else None
            ),
            opposition=vs,
            opposition_dice=opp_faces,
            opposition_total=opp_total,
            margin=margin,
            outcome=outcome,
            damage=damage,
            physical=physical,
            situational=situational,
            situation=situation,
            **side,
            **dice.fields(),
        )

    def _opposing_side(
        self, opponent: Opponent, default_skill: str, trait_name: str | None
    ) -> dict[str, Any]:
        """The ``vs_*`` fields of a roll against a character on the ledger: their skill
        (``--vs-skill``, else ``default_skill``), its rating, the one trait they invoke and
        their wound penalty, all read from their state (000_60e07241544698f0.txt,
        "Active Opposition": both sides roll 4dF + skill; "Attacking and Defending": the
        defender rolls Athletics to dodge or Fight to parry; "Damage: Stress and Wounds":
        wound penalties; "How Traits Work": one trait per roll).

        :raises RuleError: the opponent is dead, lacks the skill, or lacks the trait (or
            names a boon: it is spent by `boon-used`, not here).
        """
        state = opponent.state
        assert isinstance(state, Character)
        if state.dead:
            raise RuleError(f"{state.name} is dead and cannot oppose a roll")
        skill, rating = self.skill_rating(state, opponent.skill or default_skill)
        rating_skill, trait, bonus = skill, None, 0
        if trait_name:
            if find_boon(state, trait_name) is not None:
                raise RuleError(
                    f"{state.name}'s boon {trait_name!r} is spent when it is used: record "
                    "boon-used for them and roll against their rating (active opposition)",
                    param="trait",
                )
            skill, rating_skill, trait, _kind, bonus = self._invoke(state, skill, trait_name)
            skill, _ = self.skill_rating(state, skill)
            rating_skill, rating = self.skill_rating(state, rating_skill)
        physical_set = {s.lower() for s in self.options.physical_skills}
        physical = skill.lower() in physical_set or rating_skill.lower() in physical_set
        affected = {k: w.affected_skills for k, w in state.wounds.items()}
        return {
            "vs_character": opponent.character,
            "vs_skill": skill,
            "vs_rating": rating,
            "vs_trait": trait,
            "vs_trait_bonus": bonus,
            "vs_wound_penalty": wound_penalty(affected, {skill, rating_skill}, physical),
        }

    def harm_of(self, event: Roll) -> tuple[str, int] | None:
        """Who a roll against a character on the ledger harms, and by how much
        (``--apply``): an attack that hits harms the opponent, a defence that fails harms
        the roller, by the damage of the hit ("Attacking and Defending"; ruling C5); 0
        for a miss. ``None`` for a contest or a passive roll, which harm nobody."""
        if not isinstance(event, ev.CheckRolled) or event.vs_character is None:
            return None
        if event.mode == "attack":
            return event.vs_character, event.damage
        if event.mode == "defence":
            return event.character, event.damage
        return None

    # --- harm and sessions ---------------------------------------------------------------

    def harm_event(self, state: Any, character: str, amount: int) -> Event:
        """``campaign damage CHARACTER AMOUNT``: a plain ``damage_taken`` of ``amount``
        (docs/rulings/wyrd-engine.md, "Damage: Stress and Wounds": soaked by stress, then wounds)."""
        return ev.DamageTaken(character=character, amount=amount)

    def advance(
        self,
        states: dict[str, Any],
        session: int,
        session_events: Sequence[Recorded],
        dice: Callable[[str], DiceSource],
        choices: dict[str, Any],
    ) -> list[Event]:
        """No advancement: "The Wyrd Engine prioritises narrative impact over mechanical
        advancement" (000_60e07241544698f0.txt, "Character Creation"; docs/rulings/wyrd-engine.md). Session
        resets happen on ``session.ended``. Always ``[]``."""
        return []


def _split_sign_runs(dice: DiceSource) -> None:
    """Let ``--dice "++-0 0000"`` mean eight Fudge faces (the roller's, then the opponent's),
    and read six-sided dice rolled in their stead (``--dice "2 5 3 6"`` or ``"2536"``).

    ``ledger.dice.parse_faces`` splits on spaces and commas but keeps each run of signs as one
    token; a run of Fudge signs is split here into one face per sign before any die is drawn.
    Every Wyrd Engine die is a Fudge die, so a digit 1 to 6 is a d6 standing in for one, and
    a run of such digits is one d6 a digit: "use any normal six-sided die and declare 1 and 2
    to be −, 3 and 4 to be ·, and 5 and 6 to be +" (000_60e07241544698f0.txt, "Fudge dice
    (4dF)"; :func:`~ledger_wyrd_engine.rules.mechanics.d6_as_fudge`). The draw is recorded as the
    Fudge face it stands for.

    :raises ledger.DiceError: a digit no six-sided die shows (7, 8, 9, or a number > 6).
    """
    if isinstance(dice, PhysicalDice) and not dice.draws:
        tokens: list[str] = []
        for token in dice.faces:
            t = token.strip()
            if len(t) > 1 and all(c in "+-0.−·" for c in t):
                tokens.extend(t)
            elif t.isdigit() and t != "0" and t.isascii():
                if any(c not in "123456" for c in t):
                    raise DiceError(
                        f"{t!r} is no face of a six-sided die: a Fudge die is entered as +, - "
                        "or 0, or as the d6 standing in for it, 1 to 6 (1-2 −, 3-4 ·, 5-6 +)"
                    )
                tokens.extend({-1: "-", 0: "0", 1: "+"}[d6_as_fudge(int(c))] for c in t)
            else:
                tokens.append(token)
        dice.faces = tokens
