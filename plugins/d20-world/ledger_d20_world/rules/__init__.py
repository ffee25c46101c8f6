"""The mechanics of d20-world (seed 001_a3a02f9b7363775f.txt): the :class:`Rules` mixin of
:class:`ledger_d20_world.system.D20World`.

:meth:`Rules.resolve` makes checks ("Checks") and shock rolls ("Wounds"), each keeping what
it was asked by option name (``inputs``, recorded by the core and read back by the core's
default ``request_of``); the rest reads a recorded roll back (``rederive``, ``automatic``,
``harm_of``), writes what a roll brings with it (``follow_ups``), keeps GM-only facts secret
(``blind_form``, ruling R33) and advances a session (``advance``). The pure functions are in :mod:`.mechanics`
(numbers of the rules) and :mod:`.ops` (operations on a character's state).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import msgspec
from msgspec import UNSET

from ledger import (
    DiceError,
    DiceSource,
    Event,
    Recorded,
    Roll,
    RollRequest,
    RuleError,
    RuleSystem,
    event_tag,
)

from ..events import (
    GRANTED,
    IMPOSED,
    AttackResolved,
    BlindCheckRolled,
    CheckRolled,
    ConditionAdded,
    ConditionEnded,
    DamageTaken,
    ExperienceMarked,
    GroupObjectiveContributed,
    HiddenConditionAdded,
    HiddenConditionEnded,
    Rested,
    ShockRolled,
    SkillIncreased,
    TraitInvocation,
    WoundHealed,
)
from ..state import Band, Character, Condition, Options
from .clock import Clock
from .mechanics import (
    band_of,
    check_gate,
    combine_modes,
    contribute,
    damage_dealt,
    dice_count,
    experience_for,
    is_shock,
    kept_die,
    xp_threshold,
)
from .ops import (
    condition_penalty,
    dead_check,
    find,
    hidden_penalty,
    is_self,
    need,
    skill_for_check,
    weapon_attack,
    wound_total,
)

#: Events whose effect later public checks itemise (wound penalty, proficiency, jinx): they
#: cannot be recorded blind (ruling R33).
BLIND_REFUSED = (
    DamageTaken,
    AttackResolved,
    WoundHealed,
    ExperienceMarked,
    SkillIncreased,
    Rested,
    ShockRolled,
)


def parse_invocations(text: str | list[Any] | None) -> list[TraitInvocation]:
    """The option trait → invocations ("Traits"): ``"NAME:help"`` or ``"NAME:hinder"``,
    several separated by commas. A list of ``{"trait", "mode"}`` entries (the inputs of a
    check recorded before rolls kept them whose trait name holds a comma) is taken as it is.

    :raises RuleError: an entry without ``:help`` or ``:hinder``.
    """
    if isinstance(text, list):
        return msgspec.convert(text, list[TraitInvocation], from_attributes=True)
    if not text:
        return []
    found = []
    for part in text.split(","):
        name, sep, mode = part.rpartition(":")
        mode = mode.strip().casefold()
        if not sep or not name.strip() or mode not in ("help", "hinder"):
            raise RuleError(
                f"the trait {part.strip()!r} must be NAME:help or NAME:hinder, e.g. 'Wiry:help'",
                param="trait",
            )
        found.append(TraitInvocation(trait=name.strip(), mode=mode))  # type: ignore[arg-type]
    return found


class Rules(Clock, RuleSystem[Character, Options]):
    """Mixin of :class:`ledger_d20_world.system.D20World`: resolving, reading back and
    advancing (seed 001_a3a02f9b7363775f.txt, "Core Rules", "Harm", "Magic")."""

    def resolve(self, state: Character, request: RollRequest, dice: DiceSource) -> Roll:
        """A check ("Checks") or, with ``--shock``, the shock roll ("Wounds").

        The gate (time/tools/skill/help, ruling R1) decides whether dice are rolled; trait
        invocations and ``--advantage``/``--disadvantage`` add sources (ruling R3); the d20s
        are drawn in order (two with advantage or disadvantage); penalties are wound damage,
        condition penalties and, for spells, jinx (ruling R7). An attack on a character on
        the ledger (``request.opponent`` with ``--weapon ITEM``, ruling R38) has tools: the
        weapon ("Attacking": "time, tools (a weapon), and skill (to use that weapon)",
        ruling R44), unless the request gives ``tools`` as false (an attack recorded in an
        earlier release, read back so).

        :raises RuleError: unknown skill (without ``--practice``), unknown or spent trait,
            too many traits, a trait or objective on an automatic result, a dead character,
            a spell that is not known, no shock roll owed, a shock roll against a character,
            an attack without a weapon item that deals damage (see :func:`.ops.weapon_attack`).
        :raises ledger.DiceError: d20 faces outside 1–20 (from ``dice``).
        """
        p = request.params
        if p.get("shock"):
            if request.skill:
                raise RuleError(
                    "the shock roll uses no skill: roll only “Shock roll after a wound”",
                    param="shock",
                )
            if request.opponent is not None:
                raise RuleError(
                    "the shock roll is the wounded character's own 1d6 against their wounds "
                    '("Wounds"), not a roll against anyone: roll it '
                    "against no character on the ledger",
                    param="shock",
                )
            return self._shock(state, request, dice)
        if not request.skill:
            raise RuleError("name the skill the check uses (Climb, for one)")
        dead_check(state)
        skill = skill_for_check(state, request.skill, practice=bool(p.get("practice")))
        if p.get("spell") and not (skill.known and skill.spell):
            raise RuleError(
                f"{state.name} does not know a spell called {request.skill!r}: a spell can be "
                "cast only if known (Magic), and unknown spells cannot be practised"
            )
        spell = skill.spell and skill.known
        has_skill = skill.known and skill.proficiency >= 1
        help_from = str(p.get("help_from") or "")
        if help_from and is_self(help_from, request.character, request.name or state.name):
            raise RuleError(
                f'{state.name} cannot help their own check: help is "an ally who also has '
                'time, tools, or skill" (Checks); name another character as the help',
                param="help_from",
            )
        attack: dict[str, Any] = {}
        if request.opponent is not None:
            attack = weapon_attack(state, request.opponent, p.get("weapon"))
        elif p.get("weapon"):
            raise RuleError(
                "the weapon is the item of an attack on a character: name the target on the "
                "ledger (or record attack-resolved with its weapon damage)",
                param="weapon",
            )
        # "Attacking": "time, tools (a weapon), and skill (to use that weapon)": the weapon
        # is the attack's tools (ruling R44), except in a check recorded in an earlier release
        tools = bool(p.get("tools")) or (bool(attack) and p.get("tools") is not False)
        gate = check_gate(
            time=bool(p.get("time")),
            tools=tools,
            skill=has_skill,
            help=bool(help_from),
            one_factor_no_help=self.options.one_factor_no_help,
        )
        invocations = parse_invocations(p.get("trait"))
        self._check_invocations(state, invocations)
        objective = p.get("objective")
        wound_pen = wound_total(state)
        cond_pen = condition_penalty(state)
        hidden = hidden_penalty(state)
        jinx_pen = (state.jinx + (1 if self.options.jinx_before_check else 0)) if spell else 0
        common: dict[str, Any] = dict(
            character=request.character,
            skill=skill.name,
            proficiency=skill.proficiency,
            known=skill.known,
            time=bool(p.get("time")),
            tools=tools,
            has_skill=has_skill,
            help_from=help_from,
            gate=gate,
            spell=spell,
            wound_penalty=wound_pen,
            condition_penalty=cond_pen,
            jinx_penalty=jinx_pen,
            **attack,
        )
        if gate in ("auto_fail", "auto_success"):
            extras = [n for n in ("advantage", "disadvantage") if p.get(n)]
            if invocations or extras or objective:
                what = (
                    "a trait"
                    if invocations
                    else ("an objective" if objective else f"“{self.roll_label(extras[0])}”")
                )
                raise RuleError(
                    f"no check is made ({gate.replace('_', ' ')}: "
                    f"{'failure' if gate == 'auto_fail' else 'success'} is certain), so "
                    f"{what} cannot apply; drop it"
                    + (
                        f", or record {_contribution_of(state, objective)} without rolling"
                        if objective
                        else ""
                    )
                )
            outcome: Band = "bad" if gate == "auto_fail" else "good"
            settled = CheckRolled(
                **common, outcome=outcome, miscast=spell and outcome == "bad", **dice.fields()
            )
            try:
                dice.finish()
            except DiceError as e:  # faces typed for a check that is not made: say why
                raise DiceError(f"{e} ({self.automatic(settled)})") from None
            return settled
        advantages, disadvantages = [], []
        if gate == "advantage":
            advantages.append(f"help from {help_from}")
        if gate == "disadvantage":
            disadvantages.append(f"help from {help_from}" if help_from else "only one factor")
        for inv in invocations:
            (advantages if inv.mode == "help" else disadvantages).append(f"trait {inv.trait}")
        if p.get("advantage"):
            advantages.append(GRANTED)
        if p.get("disadvantage"):
            disadvantages.append(IMPOSED)
        mode = combine_modes(len(advantages), len(disadvantages))
        if objective:
            i = need(state.objectives, objective, "objective", state.name)
            objective = state.objectives[i].name
            # refuse early (nothing drawn) if the contribution is impossible
            contribute(
                state.objectives[i],
                skill=skill.name,
                band="good",
                distinct_skills=self.options.objective_distinct_skills == "enforce",
            )
        try:
            faces = dice.roll(dice_count(mode), 20)
        except DiceError as e:  # say why the count is what it is ("Checks", step 2)
            if mode == "normal":
                raise
            why = "advantage" if mode == "advantage" else "disadvantage"
            keep = "higher" if mode == "advantage" else "lower"
            sources = advantages if mode == "advantage" else disadvantages
            raise DiceError(
                f"{e} ({why}: {', '.join(sources)}; 2 d20, the {keep} is kept)"
            ) from None
        kept = kept_die(faces, mode)
        total = kept + skill.proficiency - wound_pen - cond_pen - jinx_pen - hidden
        band = band_of(total)
        hinder = any(i.mode == "hinder" for i in invocations)
        if hidden:  # only a rolled check has a total for it to change (ruling R33)
            common["hidden_modifier"] = hidden
        return CheckRolled(
            **common,
            mode=mode,
            invocations=invocations,
            advantages=advantages,
            disadvantages=disadvantages,
            dice=faces,
            kept=kept,
            total=total,
            outcome=band,
            experience=experience_for(band, kept, hinder=hinder),
            miscast=spell and band != "good",
            objective=objective,
            **dice.fields(),
        )

    def automatic(self, event: Roll) -> RuleError | None:
        """A check settled without a roll ("Checks": none of time, tools or skill is an
        automatic failure, all three an automatic success; ruling R1 for one factor
        without help): the sentence ``campaign roll`` shows before writing it. An attack's
        weapon is named as its tools (ruling R44)."""
        if not isinstance(event, CheckRolled) or event.gate not in ("auto_fail", "auto_success"):
            return None
        tools = "tools"
        if event.tools and isinstance(event.weapon, str):  # the weapon is the tools (R44)
            tools = f"tools ({event.weapon})"
        factors = [n for n, has in (("time", event.time), (tools, event.tools),
                                    ("skill", event.has_skill)) if has]  # fmt: skip
        has = (
            " and ".join([", ".join(factors[:-1]), factors[-1]] if len(factors) > 1 else factors)
            or "none of time, tools or skill"
        )
        result = "failure" if event.gate == "auto_fail" else "success"
        alone = " and no help" if event.gate == "auto_fail" and factors else ""
        return RuleError(
            f"no check is made: {event.character}'s {event.skill} has {has}{alone}, so the "
            f"rules give an automatic {result}",
            param="time",
        )

    def settled_without_dice(self, event: Roll) -> RuleError | None:
        """A request the rules settle without a check ("Checks": "If you have neither time,
        tools, nor skill, failure is certain. No check is required." and "If you have time,
        tools, and skill, success is certain."; ruling R1: one of them and no help, failure
        is certain), named by what the request gave, as the roll form labels it: "With
        neither Time nor Tools no check is made (d20-world, Checks; ruling R1): ...".
        ``None`` for a check that rolls the d20."""
        if not isinstance(event, CheckRolled) or event.gate not in ("auto_fail", "auto_success"):
            return None
        tools = "Tools"
        if event.tools and isinstance(event.weapon, str):  # the weapon is the tools (R44)
            tools = f"Tools ({event.weapon})"
        if event.gate == "auto_success":
            return RuleError(
                f"With Time, {tools} and skill no check is made ({self.id}, Checks): success "
                "is certain, so there is nothing to roll; record the success, or ask without "
                "Time or Tools",
                param="time",
            )
        missing = [n for n, has in (("Time", event.time), ("Tools", event.tools),
                                    ("skill", event.has_skill)) if not has]  # fmt: skip
        alone = len(missing) < 3
        said = (
            f"neither {missing[0]} nor {missing[1]}" if len(missing) == 2
            else "neither Time, Tools nor skill" if len(missing) == 3
            else f"no {missing[0]} and no help"
        )  # fmt: skip
        rule = "; ruling R1" if alone else ""
        return RuleError(
            f"With {said} no check is made ({self.id}, Checks{rule}): failure is certain, so "
            "there is nothing to roll; ask with Time or Tools"
            + (", or with help from an ally" if alone else ""),
            param="time",
        )

    def follow_ups(self, state: Character, event: Roll, *, seq: int) -> list[Event]:
        """A check made towards a shared objective (``--objective NAME`` naming one) counts
        for every character: its contribution goes on the campaign stream in the check's
        batch, naming the check (``seq``), so every state folds it and the contributor's
        state checks it matches the check (ruling R43)."""
        if (
            type(event) is not CheckRolled
            or not event.objective
            or event.gate in ("auto_fail", "auto_success")
        ):
            return []
        i = find(state.objectives, event.objective)
        if i is None or not state.objectives[i].group:
            return []
        return [
            GroupObjectiveContributed(
                objective=state.objectives[i].name,
                by=event.character,
                skill=event.skill,
                outcome=event.outcome,
                check=seq,
            )
        ]

    def follow_up_of(self, event: Event) -> int | None:
        """A shared objective's contribution written with its check (``check``, ruling R43);
        one recorded by hand (no ``check``, or a check counted again later) is its own."""
        if isinstance(event, GroupObjectiveContributed) and event.check:
            return event.check
        return None

    def harm_of(self, event: Roll) -> tuple[str, int] | None:
        """The harm of an attack on a character on the ledger (``--apply``): the weapon's
        damage in full on a good outcome or an automatic success ("no rolls are necessary
        for attacks if the attacker has time, tools (a weapon), and skill"), half on a messy
        one (ruling R5), none on a bad one ("Attacking"). ``None`` for other rolls."""
        if not isinstance(event, CheckRolled) or not isinstance(event.vs_character, str):
            return None
        if not isinstance(event.weapon_damage, int):
            return None
        outcome = "auto_hit" if event.gate == "auto_success" else event.outcome
        amount = damage_dealt(event.weapon_damage, outcome, self.options.messy_damage_rounding)
        return event.vs_character, amount

    def rederive(self, state: Character, event: Roll, *, name: str, opponent: Any = None) -> Roll:
        """The roll the rules give for ``event``'s recorded inputs and draws (ruling R33).

        A check's hidden modifier comes from the hidden conditions in ``state`` when it is
        the GM's view (``state.gm_view``: a GM-only event was folded into it), so the GM's
        verify checks its size. A player's view cannot know hidden conditions: there the
        recorded ``hidden_modifier`` is taken as given (one stand-in hidden condition of that
        size), and everything else is checked as usual.

        :raises RuleError: the rules refuse the recorded inputs, or a hidden modifier below 1.
        """
        if (
            isinstance(event, CheckRolled)
            and not state.gm_view
            and event.hidden_modifier is not UNSET
        ):
            size = event.hidden_modifier
            if not isinstance(size, int) or size < 1:
                raise RuleError(f"a hidden modifier is 1 or more, not {size!r}")
            stand_in = Condition(name="hidden modifier", check_penalty=size, hidden=True)
            state = msgspec.structs.replace(state, conditions=(*state.conditions, stand_in))
        derived = super().rederive(state, event, name=name, opponent=opponent)
        if isinstance(event, BlindCheckRolled) and type(derived) is CheckRolled:
            return BlindCheckRolled(**msgspec.structs.asdict(derived))  # ruling R34
        return derived

    def _check_invocations(self, state: Character, invocations: list[TraitInvocation]) -> None:
        limit = self.options.max_trait_invocations_per_check
        if len(invocations) > limit:
            raise RuleError(
                f"at most {limit} trait invocation(s) per check (ruling R3), not {len(invocations)}"
            )
        seen = set()
        for inv in invocations:
            i = need(state.traits, inv.trait, "trait", state.name, param="trait")
            trait = state.traits[i]
            if trait.name in seen:
                raise RuleError(f"trait {trait.name} is invoked twice on one check")
            seen.add(trait.name)
            if inv.mode == "help" and not trait.can_help:
                raise RuleError(
                    f"{trait.name} was already invoked to help: it can help again after a "
                    "natural 20"
                )
            if inv.mode == "hinder" and not trait.can_hinder:
                raise RuleError(
                    f"{trait.name} was already invoked to hinder: it can hinder again after a "
                    "natural 1"
                )

    def _shock(self, state: Character, request: RollRequest, dice: DiceSource) -> ShockRolled:
        if not state.pending_shock:
            raise RuleError(
                f"{state.name} owes no shock roll: it follows a new wound (record "
                "damage-taken or attack-resolved first)"
            )
        die = dice.d(6)
        total = wound_total(state)
        return ShockRolled(
            character=request.character,
            die=die,
            wound_total=total,
            shock=is_shock(die, total),
            **dice.fields(),
        )

    def harm_event(self, state: Any, character: str, amount: int) -> Event:
        """``campaign damage CHARACTER AMOUNT``: a plain ``damage_taken`` of ``amount``
        ("Harm"; armour and broken items are named with ``campaign record damage-taken``)."""
        return DamageTaken(character=character, amount=amount)

    def blind_form(self, event: Event) -> Event:
        """A GM-only (``--blind``) event in the form that keeps it secret (ruling R33).

        A blind ``condition-added`` is a hidden condition (``hidden-condition-added``): its
        penalty counts in later public checks as one unexplained hidden modifier, never as
        "−N conditions"; it may not change capacity (what a character carries is never
        secret). A blind ``condition-ended`` is ``hidden-condition-ended``. A blind check is a
        :class:`BlindCheckRolled`, which changes nothing on the sheet (ruling R34). Harm,
        healing, experience, increases, rests and shock rolls cannot be blind: later public
        checks itemise their effect (wound penalty, proficiency, jinx). Everything else is
        kept as it is.

        :raises RuleError: a blind condition with a capacity change, or an event of the
            kinds above.
        """
        if isinstance(event, ConditionAdded):
            if event.capacity_delta:
                raise RuleError(
                    "a blind condition cannot change capacity: what a character carries is "
                    "never secret (ruling R33); record it in the open, or without "
                    "a capacity change"
                )
            return HiddenConditionAdded(
                character=event.character,
                condition=event.condition,
                check_penalty=event.check_penalty,
                ends_when=event.ends_when,
                ends_on=event.ends_on,
                lasts_minutes=event.lasts_minutes,
            )
        if isinstance(event, ConditionEnded):
            return HiddenConditionEnded(character=event.character, condition=event.condition)
        if type(event) is CheckRolled:
            return BlindCheckRolled(**msgspec.structs.asdict(event))
        if isinstance(event, GroupObjectiveContributed) and event.check is not None:
            raise RuleError(
                "a blind check contributes to no objective (ruling R34): roll it without "
                "an objective, or in the open",
                param="objective",
            )
        if isinstance(event, BLIND_REFUSED):
            name = event_tag(type(event)).split(".", 1)[1].replace("_", "-")
            raise RuleError(
                f"{name} cannot be recorded blind: later public checks "
                "would show its effect itemised (ruling R33); record it in the open, or "
                "keep a secret penalty with hidden-condition-added"
            )
        return event

    def advance(
        self,
        states: dict[str, Any],
        session: int,
        session_events: Sequence[Recorded],
        dice: Callable[[str], DiceSource],
        choices: dict[str, Any],
    ) -> list[Event]:
        """End of session (docs/rulings/d20-world.md, rulings R8 and R16).

        - ``--choice rest=all`` or ``rest=ID,ID``: the named characters rest after the session
          (a :class:`Rested` event; jinx recovery, "Jinx"), once per session.
        - With option ``defer_skill_increase_to_session_end``: one :class:`SkillIncreased` per
          skill whose experience reached 10 + proficiency ("Skills").

        Idempotent through state: a character already rested after ``session`` and skills
        below their threshold give nothing.

        :raises RuleError: ``rest`` names a character not in the campaign.
        """
        out: list[Event] = []
        rest = str(choices.get("rest", "") or "")
        if rest:
            ids = (
                list(states)
                if rest.strip() == "all"
                else [r.strip() for r in rest.split(",") if r.strip()]
            )
            unknown = [r for r in ids if r not in states]
            if unknown:
                raise RuleError(
                    f"rest names unknown characters {', '.join(unknown)} "
                    f"(characters: {', '.join(states)})"
                )
            for cid in ids:
                st = states[cid]
                if isinstance(st, Character) and st.rested_after_session < session and not st.dead:
                    out.append(Rested(character=cid, session=session))
        if self.options.defer_skill_increase_to_session_end:
            for cid, st in states.items():
                if not isinstance(st, Character):
                    continue
                for s in st.skills:
                    if s.experience >= xp_threshold(s):
                        out.append(
                            SkillIncreased(
                                character=cid, skill=s.name, proficiency=s.proficiency + 1
                            )
                        )
        return out


def _contribution_of(state: Character, objective: str) -> str:
    """The event that records a contribution by hand to ``objective`` (ruling R43)."""
    i = find(state.objectives, objective)
    shared = i is not None and state.objectives[i].group
    return "group-objective-contributed" if shared else "objective-contributed"
