"""The Wyrd Engine rule system: 4dF + skill + trait against a Difficulty Rating.

Source: 000_60e07241544698f0.txt, chapter "The Wyrd Engine Core Mechanics"; digest
``rules/wyrd-engine.md`` with its rulings (C1–C17). Mechanics live in
:mod:`ledger_wyrd_engine.mechanics`, appliers in :mod:`ledger_wyrd_engine.appliers`, odds in
:mod:`ledger_wyrd_engine.odds`; this module binds them to :class:`ledger.RuleSystem`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from ledger import (
    DiceError,
    DiceSource,
    Event,
    Opponent,
    PhysicalDice,
    Recorded,
    Roll,
    RollParam,
    RollRequest,
    RuleError,
    RuleSystem,
    Sheet,
)

from . import events as ev
from . import recap
from .appliers import Appliers, find_boon, find_trait
from .ladder import (
    BAND_LABELS,
    DR_NAMES,
    SKILL_LEVELS,
    dr_label,
    dr_ladder,
    level_name,
    parse_dr,
    signed,
)
from .mechanics import (
    TRAIT_BONUS,
    attack_result,
    check_total,
    contest_band,
    d6_as_fudge,
    faces_text,
    fudge_sum,
    initiative_order,
    passive_band,
    wound_penalty,
)
from .odds import contest_odds, ladder_odds, passive_bands, percent, ratio
from .sheet import validate_sheet
from .state import (
    SEVERITIES,
    WOUND_CAPACITY,
    WOUND_PENALTY,
    Character,
    Options,
    Trait,
    Wound,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

SOURCE = "000_60e07241544698f0.txt"


class WyrdEngine(Appliers, RuleSystem):
    """The Wyrd Engine (000_60e07241544698f0.txt): 4dF, skills 0…+3, traits, stress and
    wounds. Configure with :class:`~ledger_wyrd_engine.state.Options`."""

    id = "wyrd-engine"
    name = "The Wyrd Engine"
    source = SOURCE
    book = "The Wyrd Engine Core Mechanics"
    example_roll = 'roll julian investigate --dr good --dice ++-0  # "Skills in Action": 4 vs Good (+2), success'
    has_harm = True  # `campaign damage` appends damage_taken (harm_event)
    event_types = ev.EVENT_TYPES
    state_type = Character
    options_type = Options
    roll_params = (
        RollParam("dr", "Wyrd Engine: Difficulty Rating, a number or a name (good, Difficult).",
                  suggestions=DR_NAMES),
        RollParam("trait", "Wyrd Engine: the one trait, gear or boon invoked (they don't stack: "
                  "a second --trait is refused).", multiple=True),
        RollParam("boost", "Wyrd Engine: spend a held boost of +1 or +2.", type=int, min=1, max=2),
        RollParam("teamwork", "Wyrd Engine: an ally's teamwork bonus, +1 (or +2).", type=int, min=1, max=2),
        RollParam("vs", "Wyrd Engine: the opponent's rating; they roll 4dF too.", type=int, min=-10, max=20),
        RollParam("opponent", "Wyrd Engine: who opposes the roll (for the record)."),
        RollParam("attack", "Wyrd Engine: with --vs, an attack (hits if strictly higher).",
                  is_flag=True),
        RollParam("defend", "Wyrd Engine: with --vs, a defence against an attack.", is_flag=True),
        RollParam("physical", "Wyrd Engine: count the roll as a physical action.", is_flag=True),
        RollParam("vs_trait", "Wyrd Engine: with --vs-character, the one trait or gear the "
                  "opponent invokes (+2)."),
        RollParam("situational", "Wyrd Engine: a situational modifier the GM sets (a manoeuvre's "
                  "edge, an improvised weapon, an impaired character), kept apart from the "
                  "DR; say why with --situation.", type=int, min=-6, max=6),
        RollParam("situation", "Wyrd Engine: why --situational applies, e.g. 'improvised weapon', "
                  "'impaired (drugged)', 'disarmed him last turn'.",
                  suggestions=("manoeuvre", "improvised weapon", "impaired")),
        RollParam("initiative", "Wyrd Engine: roll for initiative, 4dF + Notice (or the skill "
                  "named), no DR; against --vs/--vs-character the higher acts first.",
                  is_flag=True),
    )  # fmt: skip
    contests = True
    sections = {  # the seed section each event type implements (shown by audits)
        "wyrd-engine.check_rolled": (
            "Fudge dice (4dF); Difficulty Levels: Passive Opposition, Active Opposition; Attacking and Defending"
        ),
        "wyrd-engine.damage_taken": "Damage: Stress and Wounds",
        "wyrd-engine.wound_inflicted": "Damage: Stress and Wounds; Weapons and Gear in Combat",
        "wyrd-engine.wound_described": "Damage: Stress and Wounds",
        "wyrd-engine.wound_healed": "Healing and Recovery",
        "wyrd-engine.stress_cleared": "Damage: Stress and Wounds",
        "wyrd-engine.trait_ability_used": "Traits: Using Traits in Play",
        "wyrd-engine.boon_granted": "Active Opposition",
        "wyrd-engine.boon_used": "Active Opposition",
        "wyrd-engine.boost_gained": "Boosts: Optional Rule for Increasing Success",
        "wyrd-engine.boost_used": "Boosts: Optional Rule for Increasing Success",
        "wyrd-engine.death_recorded": "Death and the End of Combat",
        "wyrd-engine.gear_gained": "Gear as Traits; Step 4: Select Gear",
        "wyrd-engine.gear_lost": "Gear as Traits",
        "wyrd-engine.trait_gained": "Traits",
        "wyrd-engine.trait_lost": "Traits",
    }
    odds_params = (
        RollParam("skill", "Wyrd Engine: the modifier added to 4dF (skill + bonuses).", type=int, min=-10, max=20),
        RollParam("dr", "Wyrd Engine: one Difficulty Rating (default: the whole ladder).",
                  suggestions=DR_NAMES),
        RollParam("vs", "Wyrd Engine: an opponent's rating for a contest.", type=int, min=-10, max=20),
    )

    # --- configuration -------------------------------------------------------------------

    @property
    def opts(self) -> Options:
        """The bound campaign options (defaults when the system is not configured)."""
        return self.options if isinstance(self.options, Options) else Options()

    def configure(self, options: dict[str, Any] | None = None) -> RuleSystem:
        """Bind campaign options (see :class:`~ledger_wyrd_engine.state.Options`).

        :raises RuleError: an unknown option, a wrong type, or a value out of range.
        """
        bound = super().configure(options)
        opts = bound.options
        assert isinstance(opts, Options)
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

    # --- characters ----------------------------------------------------------------------

    def create_sheet(self, sheet: dict[str, Any]) -> dict[str, Any]:
        """Validate a sheet by the creation rules (see :func:`~ledger_wyrd_engine.sheet.
        validate_sheet`; 000_60e07241544698f0.txt, "Character Creation").

        :raises RuleError: naming every broken creation rule.
        """
        return validate_sheet(sheet, self.opts.skill_list)

    def initial_state(self, character: str, name: str, sheet: dict[str, Any]) -> Character:
        """A new character: no stress (``stress_max`` from ``stress_boxes``), no wounds."""
        traits = msgspec.convert(sheet.get("traits", []), tuple[Trait, ...])
        gear = msgspec.convert(sheet.get("gear", []), tuple[Trait, ...])
        return Character(
            id=character,
            name=name,
            npc=bool(sheet.get("npc", False)),
            concept=sheet.get("concept", ""),
            appearance=sheet.get("appearance", ""),
            personality=sheet.get("personality", ""),
            backstory=sheet.get("backstory", ""),
            notes=sheet.get("notes", ""),
            skills=dict(sheet.get("skills", {})),
            traits=traits,
            gear=gear,
            stress_max=self.opts.stress_boxes,
        )

    def npc_sheet(self, name: str, skills: dict[str, int]) -> dict[str, Any]:
        """A non-player character: ``npc = true`` and the given ratings; no traits or gear
        needed (000_60e07241544698f0.txt, "Traits": "Non-player characters and monsters
        can have fewer or far more traits"; digest §3)."""
        return {"name": name, "npc": True, "skills": dict(skills)}

    def skills_of(self, state: Character) -> Iterable[str]:
        """The character's rated skills, then the setting's other skills."""
        own = list(state.skills)
        return own + [s for s in self.opts.skill_list if s not in state.skills]

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
        for skill in self.opts.skill_list:
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
                f"record it with `campaign record trait-ability-used --trait '{trait.name}'`"
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
        problems = []
        traits = p.get("trait") or ()
        traits = (traits,) if isinstance(traits, str) else tuple(traits)
        if len(traits) > 1:
            problems.append(
                f"invoke one trait, not {len(traits)} ({', '.join(traits)}): traits don't "
                "stack (\"How Traits Work\"; ruling C11)"
            )
        situational = p.get("situational") or 0
        situation = (p.get("situation") or "").strip()
        if situational and not situation:
            problems.append(
                "say why with --situation, e.g. --situation 'improvised weapon': a "
                "situational modifier is recorded with its reason"
            )
        if situation and not situational:
            problems.append("--situation is the reason for --situational N: give the modifier too")
        dr_text = p.get("dr")
        vs = p.get("vs")
        attack, defend = bool(p.get("attack")), bool(p.get("defend"))
        opponent = request.opponent
        opposed = vs is not None or opponent is not None
        if initiative and dr_text is not None:
            problems.append(
                "initiative has no DR: the highest roll acts first (\"Initiative: Who Acts "
                "First?\"); leave --dr out"
            )
        if initiative and (p.get("attack") or p.get("defend")):
            problems.append("an initiative roll is not an --attack or a --defend")
        if not opposed and dr_text is None and not initiative:
            problems.append(
                "give --dr (a number or a name like good), or --vs / --vs-character for an "
                "opponent"
            )
        if opposed and dr_text is not None:
            problems.append("give either --dr (passive) or an opponent (opposed), not both")
        if vs is not None and opponent is not None:
            problems.append(
                "give the opponent as --vs RATING or --vs-character NAME, not both: a "
                "character's rating comes from their sheet"
            )
        if opponent is not None and p.get("opponent"):
            problems.append("--opponent names an opponent off the ledger: leave it out with --vs-character")
        if p.get("vs_trait") and opponent is None:
            problems.append("--vs-trait is the trait of the opponent named with --vs-character")
        if attack and defend:
            problems.append("a roll is --attack or --defend, not both")
        if (attack or defend) and not opposed:
            problems.append(
                "--attack and --defend need an opponent: --vs RATING or --vs-character NAME"
            )
        boost = p.get("boost") or 0
        if boost and boost not in (1, 2):
            problems.append(f"--boost is 1 or 2, not {boost}")
        teamwork = p.get("teamwork") or 0
        if teamwork and teamwork not in (1, 2):
            problems.append(f"--teamwork is +1 (or +2 in special cases), not {teamwork}")
        if problems:
            raise RuleError(*problems)
        if boost and not any(b.value == boost for b in state.boosts):
            held = ", ".join(f"+{b.value}" for b in state.boosts) or "none"
            raise RuleError(f"{state.name} holds no +{boost} boost (held: {held})")
        comparison = self.opts.dr_comparison
        dr, dr_name = parse_dr(dr_text, comparison) if dr_text is not None else (None, None)

        skill, rating = self.skill_rating(state, request.skill or "Notice")
        rating_skill, trait, kind, bonus = skill, None, None, 0
        if traits:
            skill, rating_skill, trait, kind, bonus = self._invoke(state, skill, traits[0])
            skill, _ = self.skill_rating(state, skill)
            rating_skill, rating = self.skill_rating(state, rating_skill)
        physical_set = {s.lower() for s in self.opts.physical_skills}
        physical = bool(p.get("physical")) or skill.lower() in physical_set or (
            rating_skill.lower() in physical_set
        )
        affected = {k: w.affected_skills for k, w in state.wounds.items()}
        penalty = wound_penalty(affected, {skill, rating_skill}, physical)

        side: dict[str, Any] = {}
        if opponent is not None:
            default = (
                "Notice" if initiative and not opponent.skill
                else "Athletics" if attack else "Fight" if defend else skill
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
            margin, outcome = passive_band(total, dr, comparison, self.opts.minor_cost_margins)
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
                opponent.name or opponent.character if opponent is not None
                else (p.get("opponent") or "opposition") if vs is not None else None
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
                    "`boon-used` for them and roll with --vs RATING"
                )
            skill, rating_skill, trait, _kind, bonus = self._invoke(state, skill, trait_name)
            skill, _ = self.skill_rating(state, skill)
            rating_skill, rating = self.skill_rating(state, rating_skill)
        physical_set = {s.lower() for s in self.opts.physical_skills}
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

    def request_of(self, event: Roll) -> RollRequest:
        """The ``campaign roll`` request :meth:`resolve` turned into a recorded roll.

        Reads only the roll's inputs: ``skill``, ``dr`` (passive) or ``opposition``,
        ``opponent`` and ``mode`` (contest, attack, defence), ``trait``, ``boost``,
        ``teamwork`` and ``physical``; never its faces, rating, penalty, total, margin or
        outcome, which :meth:`resolve` derives again from the state and the draws
        (000_60e07241544698f0.txt, "Conflict resolution at a glance"). ``physical`` is read
        as the ``--physical`` flag: a roll of a physical skill records ``True`` either way.

        :raises RuleError: ``event`` is not a :class:`~ledger_wyrd_engine.events.CheckRolled`.
        """
        if not isinstance(event, ev.CheckRolled):
            return super().request_of(event)
        params: dict[str, Any] = {}
        if event.mode == "initiative":
            params["initiative"] = True
            if event.vs_character is None and event.opposition is not None:
                params["vs"] = event.opposition
                params["opponent"] = event.opponent
            elif event.vs_trait:
                params["vs_trait"] = event.vs_trait
        elif event.mode == "passive":
            if event.dr is not None:
                params["dr"] = event.dr
        else:
            if event.vs_character is None:
                params["vs"] = event.opposition
                params["opponent"] = event.opponent
            elif event.vs_trait:
                params["vs_trait"] = event.vs_trait
            params["attack"] = event.mode == "attack"
            params["defend"] = event.mode == "defence"
        for key, value in (("trait", event.trait), ("boost", event.boost),
                           ("teamwork", event.teamwork), ("physical", event.physical),
                           ("situational", event.situational),
                           ("situation", event.situation)):
            if value:
                params[key] = value
        opponent = None
        if event.vs_character is not None:
            opponent = Opponent(event.vs_character, skill=event.vs_skill)
        return RollRequest(event.character, "", event.skill, params, opponent)

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

    # --- reading -------------------------------------------------------------------------

    def harm_event(self, state: Any, character: str, amount: int) -> Event:
        """``campaign damage CHARACTER AMOUNT``: a plain ``damage_taken`` of ``amount``
        (digest §4.1, "Damage: Stress and Wounds": soaked by stress, then wounds)."""
        return ev.DamageTaken(character=character, amount=amount)

    def describe(self, event: Event) -> str | None:
        """One line per Wyrd Engine event, prefixed with the character id, e.g. ``julian:
        Investigate +3, dice [+ + − ·] = +1, total 4 vs Difficult/Good (+2): success
        (margin 2)``; ``None`` for other events."""
        line = self._describe(event)
        who = getattr(event, "character", None)
        return f"{who}: {line}" if line and who else line

    def _describe(self, event: Event) -> str | None:
        if isinstance(event, ev.CheckRolled):
            return describe_roll(event, self.opts.dr_comparison)
        if isinstance(event, ev.DamageTaken):
            ratio_ = event.ratio if event.ratio is not None else self.opts.damage_ratio
            per = f" at {ratio_}-to-1" if ratio_ != 1 else ""
            skills = f" (wounds affect {', '.join(event.affected_skills)})" if (
                event.affected_skills) else ""  # fmt: skip
            return f"takes {event.amount} damage{per}{skills}"
        if isinstance(event, ev.WoundInflicted):
            return f"takes a {event.severity} wound{_skills_note(event.affected_skills)}"
        if isinstance(event, ev.WoundDescribed):
            return f"{event.severity} wound{_skills_note(event.affected_skills)}"
        if isinstance(event, ev.WoundHealed):
            return f"{event.severity} wound healed ({event.method.replace('_', ' ')})"
        if isinstance(event, ev.StressCleared):
            return "stress cleared"
        if isinstance(event, ev.TraitAbilityUsed):
            return f"uses {event.trait}" + (f": {event.note}" if event.note else "")
        if isinstance(event, ev.BoonGranted):
            return f"gains the boon {event.boon!r} (+2, this scene)"
        if isinstance(event, ev.BoonUsed):
            return f"uses the boon {event.boon!r}"
        if isinstance(event, ev.BoostGained):
            return f"gains a +{event.value} boost" + (
                f" ({event.description})" if event.description else "")  # fmt: skip
        if isinstance(event, ev.BoostUsed):
            return f"spends a +{event.value} boost"
        if isinstance(event, ev.DeathRecorded):
            return "dies" + (f": {event.reason}" if event.reason else "")
        if isinstance(event, ev.GearGained | ev.TraitGained):
            what = "gear" if isinstance(event, ev.GearGained) else "the Trait"
            does = event.text or _trait_does(event)
            why = f" ({event.reason})" if event.reason else ""
            return f"gains {what} {event.name}" + (f" – {does}" if does else "") + why
        if isinstance(event, ev.GearLost):
            return f"loses the gear {event.gear}" + (f" ({event.reason})" if event.reason else "")
        if isinstance(event, ev.TraitLost):
            return f"loses the Trait {event.trait}" + (
                f" ({event.reason})" if event.reason else "")  # fmt: skip
        return None

    def describe_changes(self, before: Any, after: Any, *, as_gm: bool) -> list[str]:
        """What changed on a character in the rule text's words (see :mod:`.recap`): stress
        drawn as boxes, each wound with the rolls it penalises now ("Damage: Stress and
        Wounds"), abilities used and ready again, boons and boosts."""
        own = recap.change_sentences(before, after, as_gm=as_gm)
        if before is None:
            return own
        return own + self.generic_changes(before, after, skip=recap.HANDLED)

    def recap_lines(self, record: Recorded, *, as_gm: bool) -> list[str]:
        """Rule notes for a recap ("Interpreting Failure", "Active Opposition", damage)."""
        return recap.recap_notes(record)

    def sheet_view(self, state: Character, *, as_gm: bool) -> dict[str, Any]:
        """The sheet as JSON: skills with level names, traits, gear, stress track, wounds with
        their penalties, capacity left, abilities used, boons, boosts and status flags.
        The Wyrd Engine has no GM-only facts, so both views are the same."""
        wounds: dict[str, Any] = {}
        for severity in SEVERITIES:
            w: Wound | None = state.wounds.get(severity)
            wounds[severity] = None if w is None else {
                "absorbed": w.absorbed,
                "penalty": -WOUND_PENALTY[severity],
                "affects": list(w.affected_skills) or (
                    ["physical actions"] if severity == "severe" else []),
                "description": w.description,
            }  # fmt: skip
        penalties: dict[str, int] = {}
        for taken, wound in state.wounds.items():
            for s in wound.affected_skills:
                penalties[s] = penalties.get(s, 0) - WOUND_PENALTY[taken]
        free = sum(WOUND_CAPACITY[s] for s in SEVERITIES if s not in state.wounds)
        skills = sorted(state.skills.items(), key=lambda kv: (-kv[1], kv[0]))
        return {
            "id": state.id,
            "name": state.name,
            "system": self.id,
            "npc": state.npc,
            **{k: getattr(state, k) for k in (
                "concept", "appearance", "personality", "backstory", "notes")
               if getattr(state, k)},
            "skills": [{"skill": s, "rating": r, "level": level_name(r)} for s, r in skills],
            "traits": [_trait_view(t) for t in state.traits],
            "gear": [_trait_view(t) for t in state.gear],
            "stress": {
                "marked": state.stress,
                "boxes": state.stress_max,
                "track": "".join("[x]" if i < state.stress else "[ ]"
                                 for i in range(state.stress_max)),
            },
            "wounds": wounds,
            "penalties": penalties,
            "severe_physical_penalty": -3 if "severe" in state.wounds else 0,
            "capacity_remaining": state.stress_max - state.stress + free,
            "used_this_scene": list(state.used_this_scene),
            "used_this_session": list(state.used_this_session),
            "boons": [msgspec.to_builtins(b) for b in state.boons],
            "boosts": [msgspec.to_builtins(b) for b in state.boosts],
            "taken_out": state.taken_out,
            "at_risk_of_death": state.at_risk_of_death,
            "dead": state.dead,
            "overflow": state.overflow,
        }  # fmt: skip

    def sheet_layout(self, state: Character, *, as_gm: bool) -> Sheet:
        """The sheet in the book's words (:func:`.layout.sheet_layout`); no GM-only facts."""
        from .layout import sheet_layout

        physical = tuple(self.opts.physical_skills)
        return sheet_layout(state, system_name=self.name, physical_skills=physical, as_gm=as_gm)

    # --- sessions and odds ---------------------------------------------------------------

    def advance(
        self,
        states: dict[str, Any],
        session: int,
        session_events: Sequence[Recorded],
        dice: Callable[[str], DiceSource],
        choices: dict[str, Any],
    ) -> list[Event]:
        """No advancement: "The Wyrd Engine prioritises narrative impact over mechanical
        advancement" (000_60e07241544698f0.txt, "Character Creation"; digest §5). Session
        resets happen on ``session.ended``. Always ``[]``."""
        return []

    def odds_series(self, params: dict[str, Any]) -> dict[str, Any]:
        """The Wyrd Engine's three figures: the numbers of the odds chart
        (see :func:`.chart.odds_series`)."""
        from .chart import odds_series

        return odds_series(self, params)

    def draw_odds(self, data: dict[str, Any]) -> Figure:
        """The odds chart of :meth:`odds_series`'s data (see :func:`.chart.draw_odds`)."""
        from .chart import draw_odds

        return draw_odds(data)

    def odds(self, params: dict[str, Any]) -> dict[str, Any]:
        """Exact odds of ``4dF + skill`` (digest §2.7): with ``vs``, a contest's band split
        and the attack hit chance; with ``dr``, that DR; otherwise every DR of the ladder.
        Fractions are ``"n/d"`` strings.

        Without ``skill``, the family: P(success) by DR for each skill level of the book's
        table ("Success probability per skill level": Untrained +0 to Expert +3).

        :raises RuleError: ``vs`` without ``skill``, both ``dr`` and ``vs``, or an unknown
            DR name.
        """
        skill = params.get("skill")
        if params.get("dr") is not None and params.get("vs") is not None:
            raise RuleError("give either --dr or --vs, not both")
        comparison = self.opts.dr_comparison
        margins = tuple(self.opts.minor_cost_margins)
        if skill is None:
            if params.get("vs") is not None:
                raise RuleError("a contest needs --skill N (the roller's modifier) with --vs")
            return self._family(params.get("dr"), comparison, margins)
        out: dict[str, Any] = {"system": self.id, "skill": skill, "dice": "4dF",
                               "comparison": comparison}  # fmt: skip
        if params.get("vs") is not None:
            bands = contest_odds(skill, params["vs"])
            hit = bands["success"] + bands["success_with_style"]
            out.update(vs=params["vs"], bands={b: ratio(f) for b, f in bands.items()},
                       win=ratio(hit), attack_hits=ratio(hit), percent=percent(hit))  # fmt: skip
            return out
        if params.get("dr") is not None:
            dr, name = parse_dr(params["dr"], comparison)
            bands = passive_bands(skill, dr, comparison, margins)
            win = 1 - bands["failure"]
            alias = next((a for n, v, a in dr_ladder(comparison) if v == dr), None)
            out["ladder"] = [{
                "dr": dr, "name": name, "alias": alias, "success": ratio(win),
                "percent": percent(win), "bands": {b: ratio(f) for b, f in bands.items()},
            }]  # fmt: skip
            return out
        out["ladder"] = ladder_odds(skill, comparison, margins)
        return out


    def _family(
        self, dr_text: Any, comparison: str, margins: tuple[int, ...]
    ) -> dict[str, Any]:
        """``odds`` without ``--skill``: ``{"skills": {"Expert/Great (+3)": {DR name:
        P(success)}}}`` for every skill level (000_60e07241544698f0.txt, "Difficulty Levels",
        table "Success probability per skill level"), one DR when ``dr_text`` names one."""
        wanted = parse_dr(dr_text, comparison)[0] if dr_text is not None else None
        family: dict[str, dict[str, str]] = {}
        for name, rating, alias in SKILL_LEVELS:
            row = {}
            for item in ladder_odds(rating, comparison, margins):
                if wanted is None or item["dr"] == wanted:
                    row[f"{item['name']} ({signed(item['dr'])})"] = item["success"]
            family[f"{name}/{alias} ({signed(rating)})"] = row
        return {"system": self.id, "dice": "4dF", "comparison": comparison,
                "success_by_skill": family}  # fmt: skip


def _trait_view(trait: Trait) -> dict[str, Any]:
    """A trait as JSON without its empty fields."""
    return {k: v for k, v in msgspec.to_builtins(trait).items() if v not in (None, "")}


def _split_sign_runs(dice: DiceSource) -> None:
    """Let ``--dice "++-0 0000"`` mean eight Fudge faces (the roller's, then the opponent's),
    and read six-sided dice rolled in their stead (``--dice "2 5 3 6"`` or ``"2536"``).

    ``ledger.dice.parse_faces`` splits on spaces and commas but keeps each run of signs as one
    token; a run of Fudge signs is split here into one face per sign before any die is drawn.
    Every Wyrd Engine die is a Fudge die, so a digit 1 to 6 is a d6 standing in for one, and
    a run of such digits is one d6 a digit: "use any normal six-sided die and declare 1 and 2
    to be −, 3 and 4 to be ·, and 5 and 6 to be +" (000_60e07241544698f0.txt, "Fudge dice
    (4dF)"; :func:`~ledger_wyrd_engine.mechanics.d6_as_fudge`). The draw is recorded as the
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


def _skills_note(skills: Sequence[str]) -> str:
    return f" ({', '.join(skills)})" if skills else ""


def describe_roll(event: ev.CheckRolled, comparison: str = ">=") -> str:
    """``Investigate +3, dice [+ + − ·] = +1, total 4 vs Difficult/Good (+2): success
    (margin 2)`` (and the opponent's dice for contests, attacks and defences)."""
    skill = event.skill
    if event.rating_skill != event.skill:
        skill += f" (as {event.rating_skill})"
    parts = [f"{skill} {signed(event.rating)}"]
    if event.trait:
        bonus = f" {signed(event.trait_bonus)}" if event.trait_bonus else ""
        parts.append(f"{event.trait}{bonus}")
    if event.boost:
        parts.append(f"boost +{event.boost}")
    if event.teamwork:
        parts.append(f"teamwork +{event.teamwork}")
    if event.wound_penalty:
        parts.append(f"wounds −{event.wound_penalty}")
    if event.situational:
        parts.append(f"{event.situation} {signed(event.situational).replace('-', '−')}")
    text = ", ".join(parts) + f", dice {faces_text(event.dice)} = {signed(event.roll)}"
    text += f", total {event.total}"
    label = BAND_LABELS.get(event.outcome, event.outcome)
    if event.mode in ("contest", "initiative") and event.outcome == "tie":
        label = CONTEST_TIE if event.mode == "contest" else "tie (resolved narratively)"
    if event.mode == "passive" and event.dr is not None:
        return f"{text} vs {dr_label(event.dr, comparison)}: {label} (margin {event.margin})"
    if event.mode == "initiative" and event.opposition_total is None:
        return f"initiative {text}"
    if event.vs_character is not None:
        opp = f"{event.opponent} ({event.vs_skill} {signed(event.vs_rating or 0)}"
        if event.vs_trait:
            opp += f", {event.vs_trait} {signed(event.vs_trait_bonus)}"
        if event.vs_wound_penalty:
            opp += f", wounds −{event.vs_wound_penalty}"
        opp += ")"
    else:
        opp = f"{event.opponent} {signed(event.opposition or 0)}"
    opp += f" {faces_text(event.opposition_dice or [])} = {event.opposition_total}"
    tail = f" (damage {event.damage})" if event.damage else ""
    verb = {"attack": "attacks", "defence": "defends against", "contest": "vs",
            "initiative": "initiative vs"}[event.mode]  # fmt: skip
    return f"{text} {verb} {opp}: {label}{tail}"


CONTEST_TIE = "tie: no winner"
"""A contest tie (ruling C15: "a tie has no winner"); a passive tie succeeds (ruling C1)."""


def _trait_does(event: ev.GearGained | ev.TraitGained) -> str:
    """What a new trait or gear does, in the book's words ("+2 to Fight when dueling",
    "once per scene", "Use Will instead of Athletics"; "How Traits Work")."""
    when = f" {event.when}" if event.when else ""
    if event.kind == "bonus":
        return f"+2 to {event.skill}{when}"
    if event.kind == "substitution":
        return f"Use {event.skill} instead of {event.instead_of}{when}"
    if event.kind == "ability":
        return f"once per {event.once_per}{when}"
    return f"may roll {event.skill}{when}" if event.skill else when.strip()
