"""How each Terran Engine event changes a character (seed ``003_2aeb47bc6ca82a40.txt``).

Appliers are pure: each returns a new :class:`.state.Character` or raises
:class:`ledger.RuleError` when the event is impossible for the state (so it is never
written). Each cites the section of the SRD it applies.
"""

from __future__ import annotations

from msgspec.structs import replace

from ledger import (
    WEEK,
    RuleError,
    RuleSystem,
    SceneEnded,
    SessionEnded,
    SessionStarted,
    TimePassed,
    applies,
    applying_seq,
)

from . import state as st
from .events import (
    AdvancementChosen,
    AdvancementRolled,
    ArchetypeEvolved,
    AttributeLost,
    AttributeRolled,
    ChallengeClosed,
    ChallengeOpened,
    ComplicationAdded,
    ConditionTaken,
    ConsequenceRolled,
    DispositionReduced,
    EffectRolled,
    EgoPooled,
    EquipmentChanged,
    ExperienceGained,
    FortuneRolled,
    HarmTaken,
    Rallied,
    RestedNight,
    RiskyActionRolled,
    SharedChallengeClosed,
    SharedChallengeOpened,
    SharedDispositionReduced,
    SkillAdapted,
    SkillDevelopmentRolled,
    WoundRecovered,
)
from .rules import mechanics as m
from .rules.rolls import KINDS
from .state import Character, Options


def _alive(state: Character) -> None:
    why = st.out_of_play(state)
    if why:
        raise RuleError(why)


def _harm(state: Character, damage: int) -> Character:
    """The HP procedure (SEED "1.3.1") on ``state``; marks a take-out for Slow (R20)."""
    result = m.take_damage(state.hp, state.wound, damage)
    loss = result.attribute_loss
    if loss and not any(st.attribute_or_zero(state, a) > 0 for a in m.ATTRIBUTES):
        loss = 0  # no point left to lose
    return replace(
        state, hp=result.hp, wound=result.wound, pending_loss=state.pending_loss + loss,
        exchange_taken_out=state.exchange_taken_out or result.wound in ("mortal", "dead"),
    )


def _reduce(state: Character, name: str, amount: int) -> Character:
    """Lower a Challenge's Disposition; at 0 it is overcome (SEED "2.2")."""
    ch = st.find_challenge(state, name)
    if ch.status != "open":
        raise RuleError(f"the Challenge {ch.name} is already {ch.status}")
    left = max(0, ch.disposition - amount)
    done = left == 0
    new = replace(ch, disposition=left, status="overcome" if done else "open")
    overcame = state.exchange_overcame + [ch.name] if done else state.exchange_overcame
    return replace(state, challenges=st.replace_challenge(state, new), exchange_overcame=overcame)


def _open(state: Character, name: str, level: int, *, shared: bool = False) -> Character:
    name = name.strip()
    if not name:
        raise RuleError("a Challenge needs a name")
    for c in state.challenges:
        if c.name.casefold() == name.casefold() and c.status == "open":
            raise RuleError(f"{state.name} already faces an open Challenge called {c.name}")
    kept = [c for c in state.challenges if c.name.casefold() != name.casefold()]
    new = st.Challenge(
        name=name, level=level, disposition=m.disposition_of(level), shared=shared
    )
    return replace(state, challenges=kept + [new])


def _not_shared(state: Character, name: str, doing: str) -> None:
    """Refuse a one-character change to a shared Challenge (ruling T25)."""
    ch = st.find_challenge(state, name)
    if ch.shared:
        raise RuleError(
            f"{ch.name} is a Challenge the group shares: {doing} (ruling T25)"
        )


class Appliers(RuleSystem[Character, Options]):
    """The ``@applies`` methods: one per event type of the Terran Engine, and the core's
    scene and session events ("1.3", "1.4", "2.1", "2.2"; rulings T21, T22, R9)."""

    @applies(AttributeRolled)
    def on_attribute_rolled(self, state: Character, e: AttributeRolled) -> Character:
        """Set a creation Attribute; HP and Ego start at the new maxima ("1.2", "1.3")."""
        if e.attribute in state.rolled:
            raise RuleError(f"{state.name}'s {e.attribute} is already set")
        if e.value != m.attribute_from_faces(e.faces):
            right = m.attribute_from_faces(e.faces)
            raise RuleError(f"faces {e.faces} give {right}, not {e.value}")
        new = replace(state, rolled={**state.rolled, e.attribute: e.value})
        return replace(new, hp=st.hp_max(new), ego=st.ego_max(new))

    @applies(RiskyActionRolled)
    def on_risky_action(self, state: Character, e: RiskyActionRolled) -> Character:
        """Ego −= Ego lost; Ego 0 → lost; the Challenge's complication is used up; a Montage
        decides its Challenge ("2.1", "2.2.2", "1.3.2")."""
        _alive(state)
        lost_now = min(state.ego, e.ego_lost)
        ego = state.ego - lost_now
        challenges = state.challenges
        if e.challenge:
            ch = st.find_challenge(state, e.challenge)
            status = ch.status
            if e.montage:
                if ch.shared:
                    raise RuleError(
                        f"{ch.name} is a Challenge the group shares: a Montage resolves a "
                        "Challenge one character faces (ruling T25)"
                    )
                status = "failed" if e.outcome == "fail" else "overcome"
            challenges = st.replace_challenge(state, replace(ch, complication=0, status=status))
        return replace(
            state, ego=ego, lost=state.lost or (lost_now > 0 and ego == 0),
            ego_lost_session=state.ego_lost_session + lost_now, last_dark=len(e.dark),
            challenges=challenges, exchange_overcame=[], exchange_taken_out=False,
            last_outcome=e.outcome, montage_effects=[],
        )

    @applies(EffectRolled)
    def on_effect(self, state: Character, e: EffectRolled) -> Character:
        """An Effect on a Challenge lowers its Disposition, never reduced by armour ("2.2.1")."""
        _alive(state)
        if e.challenge:
            if st.has_condition(state, "Slow") and state.exchange_taken_out:
                raise RuleError(f"Slow: the consequence took {state.name} out first")
            ch = st.find_challenge(state, e.challenge)
            if ch.shared:  # the batch's shared_disposition_reduced lowers it (T25)
                if ch.status != "open":
                    raise RuleError(f"the Challenge {ch.name} is already {ch.status}")
                seq = applying_seq()
                if seq is None:
                    return state
                owed = st.OwedEffect(roll=seq, challenge=ch.name, value=e.value)
                return replace(state, owed_effects=[*state.owed_effects, owed])
            return _reduce(state, e.challenge, e.value)
        return state

    @applies(DispositionReduced)
    def on_disposition(self, state: Character, e: DispositionReduced) -> Character:
        """Disposition −amount by hand ("2.2"). :raises RuleError: negative amount."""
        if e.amount < 0:
            raise RuleError(f"an Effect lowers Disposition by 0 or more, not {e.amount}")
        _not_shared(
            state, e.challenge,
            f"record shared-disposition-reduced --challenge '{e.challenge}' --amount "
            f"{e.amount} --by NAME lowers it on every sheet",
        )
        return _reduce(state, e.challenge, e.amount)

    @applies(ConsequenceRolled)
    def on_consequence(self, state: Character, e: ConsequenceRolled) -> Character:
        """Harm (HP procedure), a complication or a fork ("2.2.1", "1.3.1")."""
        _alive(state)
        if e.consequence == "harm":
            if e.shield_sacrificed and not state.shield:
                raise RuleError(f"{state.name} has no shield to sacrifice")
            new = replace(state, shield=state.shield and not e.shield_sacrificed)
            return _harm(new, e.damage)
        if e.consequence == "complication" and e.challenge:
            ch = st.find_challenge(state, e.challenge)
            ch = replace(ch, complication=ch.complication + e.complication)
            ready = [*state.montage_effects, ch.name]
            return replace(state, challenges=st.replace_challenge(state, ch),
                           montage_effects=ready)
        if e.consequence == "fork" and e.fork:
            return _open(state, e.fork, m.fork_level(e.value))
        return state

    @applies(HarmTaken)
    def on_harm(self, state: Character, e: HarmTaken) -> Character:
        """Physical harm by hand: armour, shield, Protected, then HP ("2.2.1", "1.3.1")."""
        _alive(state)
        if e.effect < 0:
            raise RuleError(f"an Effect is 0 or more, not {e.effect}")
        if e.shield_sacrificed and not state.shield:
            raise RuleError(f"{state.name} has no shield to sacrifice")
        if any(not 1 <= f <= 6 for f in e.protected):
            raise RuleError(f"Protected's Dark Dice are d6: faces 1-6, not {e.protected}")
        damage = m.damage_after(
            e.effect, state.armour if e.armour else "none", state.shield and e.armour,
            sum(e.protected), e.shield_sacrificed,
        )
        new = replace(state, shield=state.shield and not e.shield_sacrificed)
        return _harm(new, damage)

    @applies(AttributeLost)
    def on_attribute_lost(self, state: Character, e: AttributeLost) -> Character:
        """The Mortal Wound's permanent point, chosen by the player ("1.3.1")."""
        if not state.pending_loss:
            raise RuleError(f"{state.name} owes no Attribute point (only a Mortal Wound takes one)")
        attribute = m.canonical(e.attribute, m.ATTRIBUTES, "Attribute")
        if st.attribute_or_zero(state, attribute) <= 0:
            raise RuleError(f"{state.name}'s {attribute} is 0: choose an Attribute above 0")
        new = replace(
            state, losses={**state.losses, attribute: state.losses.get(attribute, 0) + 1},
            pending_loss=state.pending_loss - 1,
        )
        return st.with_maxima_change(state, new)

    @applies(ConditionTaken)
    def on_condition(self, state: Character, e: ConditionTaken) -> Character:
        """A permanent Condition; Ego back to Ego_max ("1.3.2", "1.5"; R10).

        The same Condition is refused twice: the text's Conditions that are about no one thing
        (:data:`state.CONDITIONS_ONCE`) at all, the others (a fear, a moral code, a scar, a
        bond: Estranged may be taken for two people) with the same ``detail`` (ruling T19).
        """
        opts = self.options
        if state.wound == "dead" or st.retired(state):
            raise RuleError(f"{st.out_of_play(state)}: no Condition can help")
        if state.lost and not opts.allow_condition_at_zero:
            raise RuleError(
                f"{state.name} is lost (Ego reached 0); a Condition had to be taken before "
                "(campaign option allow_condition_at_zero)"
            )
        name = st.known_condition(e.condition, opts)
        focus, neglected = "", []
        if name == "Obsessive Focus":
            skills = st.skill_list(state, opts)
            focus = m.canonical(e.focus, skills, "Skill") if e.focus else ""
            neglected = [m.canonical(s, skills, "Skill") for s in e.neglected]
            if not focus or len(set(neglected)) != 3 or focus in neglected:
                raise RuleError(
                    "Obsessive Focus names one focus Skill (+1d) and three other "
                    "neglected Skills (-1d)"
                )
        if name in st.CONDITIONS_ONCE and st.has_condition(state, name):
            raise RuleError(f"{state.name} already has the Condition {name}; it is taken once")
        for had in state.conditions:
            if had.name == name and had.detail.strip().casefold() == e.detail.strip().casefold():
                about = f" ({had.detail})" if had.detail else ""
                raise RuleError(
                    f"{state.name} already has the Condition {name}{about}; the same Condition "
                    "is not taken twice (say what a new one is about in its detail)"
                )
        cond = st.Condition(name=name, detail=e.detail, focus=focus, neglected=neglected)
        new = replace(state, conditions=state.conditions + [cond], lost=False)
        return replace(new, ego=st.ego_max(new))

    @applies(RestedNight)
    def on_rest(self, state: Character, e: RestedNight) -> Character:
        """With no Wounds, HP recovers to HP_max after a well rested night ("1.3.1")."""
        return replace(state, hp=st.hp_max(state)) if state.wound == "none" else state

    @applies(WoundRecovered)
    def on_wound_recovered(self, state: Character, e: WoundRecovered) -> Character:
        """``weeks`` weeks with care, one step a week: Mortal → Critical → none; HP stays 0.

        (SEED "1.3.1": "A Mortal Wound becomes a Critical Wound through appropriate care and a
        week of rest. [...] A Critical Wound recovers in a week, also given appropriate care.")
        Weeks beyond what the Wound needs are rest that heals nothing more.

        :raises RuleError: no care, fewer than 1 week, or no Wound to recover from.
        """
        if not e.care or e.weeks < 1:
            raise RuleError(
                "a Wound recovers only after a week of rest with appropriate care "
                f"(weeks: 1 or more, not {e.weeks})" if e.care else
                "a Wound recovers only after a week of rest with appropriate care"
            )
        if state.wound in ("none", "dead"):
            raise RuleError(f"{state.name} has no Wound to recover from ({state.wound})")
        wound = state.wound
        for _ in range(min(e.weeks, 2)):
            wound = "critical" if wound == "mortal" else "none"
        rest = max(0, state.wound_rest - e.weeks * WEEK) if wound != "none" else 0
        return replace(state, wound=wound, wound_rest=rest)

    @applies(TimePassed)
    def on_time_passed(self, state: Character, e: TimePassed) -> Character:
        """Rest with appropriate care counts towards a Wound's week ("1.3.1": "through
        appropriate care and a week of rest"); the recovery itself is the
        ``wound_recovered`` written with the span (:meth:`Rules.time_passed`)."""
        if e.rest and e.care and state.wound in ("critical", "mortal"):
            return replace(state, wound_rest=state.wound_rest + e.minutes)
        return state

    @applies(EgoPooled)
    def on_ego_pooled(self, state: Character, e: EgoPooled) -> Character:
        """A companion pays part of a Montage's Ego cost ("2.2.2", R21)."""
        _alive(state)
        if not 1 <= e.amount <= state.ego:
            raise RuleError(f"{state.name} can pool 1 to {state.ego} Ego, not {e.amount}")
        ego = state.ego - e.amount
        return replace(
            state, ego=ego, lost=ego == 0, ego_lost_session=state.ego_lost_session + e.amount
        )

    @applies(Rallied)
    def on_rallied(self, state: Character, e: Rallied) -> Character:
        """+1d on Risky Actions until the end of the scene ("1.4", Rally)."""
        return replace(state, rallied=True)

    @applies(SkillAdapted)
    def on_skill_adapted(self, state: Character, e: SkillAdapted) -> Character:
        """Adapt or expand the character's Skill list ("1.2.1"; ruling T23).

        :raises RuleError: an empty name, a Skill already on the list, an Attribute's name,
            or ``replaces`` naming a Skill not on it.
        """
        opts = self.options
        if opts.attributes_only:
            raise RuleError("this campaign plays without Skills (attributes_only)")
        name = " ".join(e.skill.split())
        if not name:
            raise RuleError("name the Skill")
        have = st.skill_list(state, opts)
        if name.casefold() in {s.casefold() for s in have + m.ATTRIBUTES + KINDS}:
            raise RuleError(f"{name!r} is already a Skill or roll of {state.name}; choose "
                            "another name")
        skills, dropped = dict(state.skills), list(state.skills_dropped)
        if e.replaces:
            old = m.canonical(e.replaces, have, "Skill")
            rating = skills.pop(old, 0)
            if rating:
                skills[name] = rating
            dropped.append(old)
        added = [s for s in state.skills_added if s.casefold() != name.casefold()] + [name]
        dropped = [s for s in dropped if s.casefold() != name.casefold()]
        return replace(state, skills=skills, skills_added=added, skills_dropped=dropped)

    @applies(ArchetypeEvolved)
    def on_archetype_evolved(self, state: Character, e: ArchetypeEvolved) -> Character:
        """The character evolves beyond their Archetype ("1.1 Archetypes": "It is expected
        you will evolve beyond these initial Archetypes towards unique narratives"; T26).

        :raises RuleError: an empty narrative, the one they already have, or a character out
            of play (dead, lost, retired: "With the GM decide how your story ends").
        """
        _alive(state)
        text = " ".join(e.narrative.split())
        if not text:
            raise RuleError("say who they have become (the narrative)")
        now = state.narratives[-1] if state.narratives else state.archetype
        if text.casefold() == now.casefold():
            raise RuleError(f"{state.name} is already {now}: describe what they grow into")
        return replace(state, narratives=[*state.narratives, text])

    @applies(EquipmentChanged)
    def on_equipment(self, state: Character, e: EquipmentChanged) -> Character:
        """Change armour, shield or one weapon/tool ("2.2.1" tables)."""
        new = state
        if e.armour is not None:
            new = replace(new, armour=e.armour)
        if e.shield is not None:
            new = replace(new, shield=e.shield)
        if e.weapon:
            weapons = dict(new.weapons)
            if e.code:
                weapons[e.weapon] = str(m.parse_effect(e.code))
            else:
                weapons.pop(e.weapon, None)
            new = replace(new, weapons=weapons)
        return new

    @applies(ChallengeOpened)
    def on_challenge_opened(self, state: Character, e: ChallengeOpened) -> Character:
        """A Challenge with gang-up: level + 1 per two extra challenges ("2.2")."""
        return _open(state, e.challenge, m.ganged_level(m.level_index(e.level), e.count))

    @applies(ChallengeClosed)
    def on_challenge_closed(self, state: Character, e: ChallengeClosed) -> Character:
        """Close a Challenge by hand. :raises RuleError: a shared Challenge (T25)."""
        _not_shared(
            state, e.challenge,
            f"close it for everyone with `record shared-challenge-closed --challenge "
            f"'{e.challenge}' --status {e.status}`",
        )
        ch = st.find_challenge(state, e.challenge)
        return replace(state, challenges=st.replace_challenge(state, replace(ch, status=e.status)))

    @applies(SharedChallengeOpened)
    def on_shared_challenge_opened(
        self, state: Character, e: SharedChallengeOpened
    ) -> Character:
        """The group's Challenge, on every sheet at once: level with gang-up ("2.2": "increase
        the Challenge Level in one for each two additional challenges after the first"),
        Disposition of its level (ruling T25).

        :raises RuleError: no name, an unknown level, or a character already facing an open
            Challenge of that name.
        """
        level = m.ganged_level(m.level_index(e.level), e.count)
        return _open(state, e.challenge, level, shared=True)

    @applies(SharedDispositionReduced)
    def on_shared_disposition(self, state: Character, e: SharedDispositionReduced) -> Character:
        """Any character's Effect lowers the shared Challenge's one Disposition, on every
        sheet; at 0 it is overcome ("2.2": "Challenges have Disposition, which measures how
        much Effect they take to be overcame"; "Armours do not modify Effects applied to a
        Challenge's Disposition"; ruling T25).

        On the roller's sheet (``by``, with ``roll`` ≠ 0) the Effect roll ``roll`` must be in
        force with this Challenge and value: retracting or amending the roll alone is
        refused (retract this event first, then the roll).

        :raises RuleError: a negative amount, no such Challenge, a Challenge not shared or
            no longer open, or a roll that does not match.
        """
        if e.amount < 0:
            raise RuleError(f"an Effect lowers Disposition by 0 or more, not {e.amount}")
        ch = st.find_challenge(state, e.challenge)
        if not ch.shared:
            raise RuleError(
                f"{ch.name} is {state.name}'s own Challenge, not the group's: record "
                "disposition-reduced for that character"
            )
        owed = state.owed_effects
        if e.roll and state.id == e.by:
            match = [o for o in owed if o.roll == e.roll]
            if not match or match[0].challenge != ch.name or match[0].value != e.amount:
                raise RuleError(
                    f"roll {e.roll} is not an Effect of {e.amount} by {state.name} on "
                    f"{ch.name} in force: retract this event (the Effect's count toward the "
                    "shared Challenge) first, then the roll"
                )
            owed = [o for o in owed if o.roll != e.roll]
        new = _reduce(replace(state, owed_effects=owed), ch.name, e.amount)
        if state.id != e.by:  # Fast (R20) looks at the roller's own exchange only
            new = replace(new, exchange_overcame=state.exchange_overcame)
        return new

    @applies(SharedChallengeClosed)
    def on_shared_challenge_closed(
        self, state: Character, e: SharedChallengeClosed
    ) -> Character:
        """End the group's Challenge on every sheet (ruling T25).

        :raises RuleError: no such Challenge, not shared, or already closed.
        """
        ch = st.find_challenge(state, e.challenge)
        if not ch.shared:
            raise RuleError(f"{ch.name} is {state.name}'s own Challenge, not the group's")
        if ch.status != "open":
            raise RuleError(f"the Challenge {ch.name} is already {ch.status}")
        return replace(state, challenges=st.replace_challenge(state, replace(ch, status=e.status)))

    @applies(ComplicationAdded)
    def on_complication(self, state: Character, e: ComplicationAdded) -> Character:
        """−Nd on the next Risky Action related to the Challenge ("2.2.1")."""
        if e.dice < 0:
            raise RuleError(f"a complication is 0 or more dice, not {e.dice}")
        ch = st.find_challenge(state, e.challenge)
        ch = replace(ch, complication=ch.complication + e.dice)
        return replace(state, challenges=st.replace_challenge(state, ch))

    @applies(FortuneRolled)
    def on_fortune(self, state: Character, e: FortuneRolled) -> Character:
        """The Fortune die changes no state ("2.3")."""
        return state

    @applies(ExperienceGained)
    def on_experience(self, state: Character, e: ExperienceGained) -> Character:
        """Bank a session's Experience once ("1.4"; R12)."""
        if e.session in state.credited:
            raise RuleError(f"{state.name} already has the Experience of session {e.session}")
        if e.amount < 0:
            raise RuleError(f"Experience gained is 0 or more, not {e.amount}")
        return replace(
            state, experience=state.experience + e.amount, credited=state.credited + [e.session]
        )

    def _spend(self, state: Character, spent: int, session: int) -> Character:
        if not 1 <= spent <= state.experience:
            raise RuleError(
                f"{state.name} can spend 1 to {state.experience} Experience, not {spent}"
            )
        sessions = state.spent if session in state.spent else state.spent + [session]
        return replace(state, experience=state.experience - spent, spent=sessions)

    @applies(AdvancementRolled)
    def on_advancement_rolled(self, state: Character, e: AdvancementRolled) -> Character:
        """Spend Experience; on success gain the Advancement and +1 HP_max ("1.4")."""
        _alive(state)
        new = self._spend(state, e.spent, e.session)
        if not e.success:
            return new
        if e.advancement:
            return self._gain(new, e.advancement)
        return st.with_maxima_change(new, replace(new, unchosen=new.unchosen + 1))

    @applies(AdvancementChosen)
    def on_advancement_chosen(self, state: Character, e: AdvancementChosen) -> Character:
        """Choose an Advancement won earlier ("1.4")."""
        if not state.unchosen:
            raise RuleError(f"{state.name} has no Advancement won and waiting to be chosen")
        return self._gain(replace(state, unchosen=state.unchosen - 1), e.advancement)

    def _gain(self, state: Character, entry: str) -> Character:
        name = st.known_advancement(entry, self.options)
        if name.startswith("Extra Attribute"):
            attr = st.advancement_detail(name)
            if attr in state.rolled and (st.attribute(state, attr) or 0) >= m.ATTRIBUTE_MAX:
                raise RuleError(f"{state.name}'s {attr} is already 3, the most (R13)")
        new = replace(state, advancements=state.advancements + [name])
        if name == "Retire":
            new = replace(new, successor_advancements=m.successor_advancements(
                st.advancement_count(new)))
        return st.with_maxima_change(state, new)

    @applies(SkillDevelopmentRolled)
    def on_skill_development(self, state: Character, e: SkillDevelopmentRolled) -> Character:
        """Spend Experience; on success the Skill rises by 1 ("1.4")."""
        _alive(state)
        rating = st.session_sheet(state, e.session, e.sheet).skills.get(e.skill, 0)
        if rating != e.rating:
            raise RuleError(
                f"{state.name}'s {e.skill} was {rating} as session {e.session} ended, "
                f"not {e.rating}" if e.sheet == "session_end" else
                f"{state.name}'s {e.skill} is {rating}, not {e.rating}"
            )
        new = self._spend(state, e.spent, e.session)
        if e.success:
            now = new.skills.get(e.skill, 0)
            new = replace(new, skills={**new.skills, e.skill: now + 1})
        return new

    @applies(SceneEnded)
    def on_scene_ended(self, state: Character, e: SceneEnded) -> Character:
        """Rally bonuses end; finished Challenges leave the sheet (docs/rulings/terran-engine.md)."""
        return replace(
            state, rallied=False, challenges=[c for c in state.challenges if c.status == "open"],
            last_outcome=None, montage_effects=[],
        )

    @applies(SessionEnded)
    def on_session_ended(self, state: Character, e: SessionEnded) -> Character:
        """Keep the sheet as the session ends for its advancement (ruling T22)."""
        then = st.session_sheet(state, e.number, "current")
        return replace(state, session_sheets={**state.session_sheets, e.number: then})

    @applies(SessionStarted)
    def on_session_started(self, state: Character, e: SessionStarted) -> Character:
        """Reset the session's Ego-lost counter; option ``ego_resets_at_session_start`` (R9)."""
        new = replace(state, ego_lost_session=0)
        if self.options.ego_resets_at_session_start and not state.lost:
            new = replace(new, ego=st.ego_max(state))
        return new
