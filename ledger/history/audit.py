"""Audit of one event (usually a disputed roll), proven from a checkpoint, not replayed.

:func:`audit` gathers who recorded it, when, in which session, the source and every draw,
the rule system's fields (modifiers, band), the rule text it came from, the corrections
that touch it, and a verdict:

- the event is proven by proof (:mod:`ledger.history.audit_proof`): its inclusion in the
  newest signed checkpoint, the hash chain from the nearest proven anchor (a checkpoint, or
  the head ``verify`` proved) to the event (else: the first bad seq), its result re-derived
  from the newest snapshot before it; whole-file checks (SQLite's integrity check, the chain
  from the first event, every other roll) are ``verify``'s;
- an engine roll of an ended session: recomputed from the revealed seed (docs/architecture.md): ``verified`` when the recorded draws are what the committed seed
  gives at the recorded nonce and client seed, ``MISMATCH`` otherwise;
- an engine roll of an open session: verifiable after the session ends;
- a physical roll: the ledger proves the entry has not changed since it was recorded, not
  what the table's dice showed;
- every roll (engine or physical): its recorded result is re-derived from its inputs and
  dice (:func:`result_of`); ``MISMATCH`` when it does not follow from them.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

import msgspec

from ledger.campaign.aggregate import NotFound
from ledger.dice.engine import (
    DOWNTIME_SCHEME,
    PREDICTABILITY,
    REQUESTED_SCHEME,
    SCHEME,
    predictability,
    verify_draws,
)
from ledger.errors import RuleError
from ledger.events import Roll, RollImported
from ledger.history.audit_proof import checked_text, prove_back, prove_chain
from ledger.rules.results import NOT_FOLLOWING, result_problem
from ledger.rules.roll_inputs import Opponent

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign


def audit(campaign: Campaign, seq: int, *, as_gm: bool) -> dict[str, Any]:
    """Everything about event ``seq`` as a JSON-ready dict with a ``verdict``.

    :raises ledger.errors.NotFound: no such event.
    :raises RuleError: a player asks about a GM-only event.
    """
    rec = campaign.record(seq)
    if rec.visibility == "gm" and not as_gm:
        raise RuleError(f"event {seq} is GM-only: ask the GM for an audit")
    data = msgspec.to_builtins(rec.data)
    data.pop("type", None)
    names = campaign.characters()
    from ledger.campaign.corrections import in_force
    from ledger.history.words import sentence, summary

    corrections = campaign.corrections()
    touched = []
    for cseq, corr in corrections.by_target.get(seq, []):
        crec = campaign.record(cseq)
        touched.append(
            {
                "seq": cseq,
                "action": corr.action,
                "reason": corr.reason,
                "by": crec.actor,
                "at": crec.recorded_at,
                "data": corr.data,
                "sentence": sentence(campaign, crec),
            }
        )
    system = campaign.system
    section = system.rule_section(rec.data)
    rule = {
        "system": system.id,
        "book": system.book_title,
        "seed": system.source,
        "section": section,
    }
    chain = prove_chain(campaign, seq)
    result: dict[str, Any] = {
        "seq": seq,
        "type": rec.type,
        "character": rec.stream,
        "name": names.get(rec.stream),
        "recorded_by": rec.actor,
        "recorded_at": rec.recorded_at,
        "session": rec.session,
        "visibility": rec.visibility,
        "hash": rec.hash,
        "data": data,
        "description": system.describe(rec.data),
        "rule": rule,
        "corrections": touched,
        "status": "retracted"
        if seq in corrections.retracted
        else "amended"
        if seq in corrections.amended
        else "standing",
    }
    # a forged result of this very roll is the roll's verdict, not the chain's
    chain_ok = chain.ok or (
        chain.bad_seq == seq and (chain.problem or "").startswith(NOT_FOLLOWING)
    )
    if isinstance(rec.data, Roll):  # who could have known the dice in advance
        code = predictability(rec.data)
        if code == "no-dice":  # no draw to have known: say so, and nothing about foreknowledge
            result["no_dice"] = PREDICTABILITY[code]
        else:
            result["predictable"] = {"by": code, "text": PREDICTABILITY[code]}
    elif isinstance(rec.data, RollImported):  # where it came from, as that tool wrote it
        result["predictable"] = {"by": "imported", "text": PREDICTABILITY["imported"]}
        result["imported"] = imported_source(rec.data)
    snapshot: list[int] = []  # where the re-derivation's fold started, if it ran
    verdict, detail = _verdict(campaign, rec, chain_ok, as_gm=as_gm, snapshot=snapshot)
    if chain_ok and snapshot and min(snapshot) < chain.start:
        # every event the re-derivation folded is hashed too, back from the anchor
        prove_back(campaign, chain, min(snapshot))
        if not chain.ok:
            chain_ok = False
            verdict, detail = _verdict(campaign, rec, chain_ok, as_gm=as_gm, snapshot=[])
    result["chain"] = {"ok": chain.ok, "bad_seq": chain.bad_seq, "problem": chain.problem,
                       "from": chain.start, "anchor": chain.anchor, "anchor_seq": chain.anchor_seq,
                       "events": chain.events}  # fmt: skip
    if not chain_ok:
        detail += f" (seq {chain.bad_seq}: {chain.problem})"
    from ledger.history.tree_proofs import against_checkpoint

    result["proof"] = proof = against_checkpoint(campaign, seq, rec.hash)  #
    if proof["checkpoint"] is not None and not proof["verified"]:
        verdict, detail = "tampered", f"{detail}; {proof['problem']}"
    result["verdict"], result["detail"] = verdict, detail
    result["checked"] = checked_text(chain, proof, min(snapshot) if snapshot else None)
    if touched:  # the original result and the one in force after the corrections
        result["original"] = summary(campaign, rec.data, rec.stream)
        now = in_force(campaign, rec, corrections)
        result["corrected"] = None if now is None else summary(campaign, now, rec.stream)
    return result


def imported_source(event: RollImported) -> dict[str, Any]:
    """Where an imported roll came from: ``{"tool": "Roll20", "message": "message
    -M5KELlQ...", "speaker", "at", "formula", "total", "text"}``, the original text as the
    file had it."""
    from ledger.history.words import TOOL_NAMES

    key = event.key
    message = f"message hash {key[7:23]}…" if key.startswith("sha256:") else f"message {key}"
    return {
        "tool": TOOL_NAMES.get(event.tool, event.tool),
        "message": message,
        "key": key,
        "speaker": event.speaker,
        "at": event.at,
        "formula": event.formula,
        "total": event.total,
        "text": event.text,
    }


def result_of(
    campaign: Campaign, rec: Any, *, as_gm: bool, snapshot: list[int] | None = None
) -> str | None:
    """Does a roll's recorded result follow from its inputs and dice?

    Re-derives it (:func:`ledger.rules.results.result_problem`) against its character's state
    just before it, in the asker's view, with the corrections then in force.

    :param snapshot: a list the seqs of the snapshots the states (the roller's, an
        opponent's) were folded from are appended to (0: from the first event).
    :returns: ``None`` when it does, else the sentence naming the fields that differ.
    """
    try:
        state = campaign.state_of(rec.stream, upto=rec.seq - 1, as_gm=as_gm, save_snapshots=False)
    except NotFound:
        return f"a roll of {rec.stream!r}, who was not a character before it"
    if snapshot is not None:
        snapshot.append(campaign.reader.last_snapshot)
    names = campaign.characters()
    name = names.get(rec.stream, "")
    opponent = None
    oid = campaign.system.opponent_of(rec.data)
    if oid is not None:
        try:
            opponent = Opponent(
                oid,
                name=names.get(oid, ""),
                state=campaign.state_of(oid, upto=rec.seq - 1, as_gm=as_gm, save_snapshots=False),
            )
            if snapshot is not None:
                snapshot.append(campaign.reader.last_snapshot)
        except NotFound:
            return f"a roll against {oid!r}, who was not a character before it"
    try:
        return result_problem(campaign.system, state, rec.data, name=name, opponent=opponent)
    except (KeyError, TypeError, AttributeError, IndexError, ValueError) as e:
        return f"the rules cannot re-derive it: {type(e).__name__} {e}"


def _verdict(
    campaign: Campaign, rec: Any, chain_ok: bool, *, as_gm: bool, snapshot: list[int]
) -> tuple[str, str]:
    event = rec.data
    if not chain_ok:
        return "tampered", "the hash chain does not verify up to this event: the log was changed"
    if isinstance(event, RollImported):
        origin = imported_source(event)
        return (
            "imported",
            f"imported from {origin['tool']} ({origin['message']}), not verifiable: the ledger "
            "never saw these dice; it proves only that the entry is unchanged since it was "
            f"imported by {rec.actor}",
        )
    if not isinstance(event, Roll):
        return "recorded", "not a roll: the hash chain proves it is unchanged since it was recorded"
    problem = result_of(campaign, rec, as_gm=as_gm, snapshot=snapshot)
    if problem:
        return "mismatch", f"MISMATCH: {NOT_FOLLOWING}: {problem}"
    if event.source == "physical":
        return (
            "recorded",
            f"physical dice entered by {rec.actor}: the ledger proves the entry is "
            "unchanged since it was recorded, not what the dice on the table showed; its "
            "result is what the rules give for its inputs and dice",
        )
    number = rec.session
    downtime = event.scheme == DOWNTIME_SCHEME
    kinds = ("downtime.committed", "downtime.revealed") if downtime else (
        "session.started", "session.ended")
    commitment = reveal = None
    revealed_at = 0
    for other in campaign.records(types=list(kinds)):
        payload: Any = other.data
        if payload.number == number:
            if other.type == kinds[0]:
                commitment = payload.seed_commitment
            else:
                reveal, revealed_at = payload.seed_reveal, other.seq
    what = f"the downtime seed of session {number}" if downtime else f"session {number}'s seed"
    if reveal is None:
        return (
            "pending",
            f"engine roll of session {number}, still open: verifiable after the session ends"
            if not downtime
            else f"engine roll drawn from {what}: verifiable once it is revealed",
        )
    if revealed_at < rec.seq:
        return "mismatch", f"drawn after {what} was revealed at seq {revealed_at}"
    seed = bytes.fromhex(reveal)
    if hashlib.sha256(seed).hexdigest() != commitment:
        return "mismatch", f"{what} as revealed does not match its commitment"
    scheme = DOWNTIME_SCHEME if downtime else SCHEME
    engine_before = campaign.store.engine_rolls(
        campaign.id, number, before=rec.seq, scheme=scheme if downtime else None
    ) + (1 if downtime else 0)
    if event.nonce is None or event.nonce != engine_before:
        return "mismatch", f"nonce {event.nonce} should be {engine_before} (engine rolls before it)"
    requested = event.scheme == REQUESTED_SCHEME
    bad = verify_draws(
        seed, campaign.id, number, event.nonce, event.client_seed or "", event.draws,
        scheme=REQUESTED_SCHEME if requested else scheme,
        request=event.request if isinstance(event.request, int) else None,
        entropy=event.entropy if isinstance(event.entropy, str) else None,
    )  # fmt: skip
    if bad:
        return "mismatch", f"MISMATCH: {bad}"
    source = (
        f"the downtime seed committed at the end of session {number} gives (scheme {scheme}, "
        if downtime
        else f"the seed committed at the start of session {number} gives ("
    )
    return (
        "verified",
        f"verified: these are the dice {source}nonce {event.nonce}, client seed "
        f"{event.client_seed!r}); its result is what the rules give for them",
    )
