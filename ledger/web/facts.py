"""Facts in sentences: what the audit page says about one event, in words a player
reads at the table, never a Python value (no ``[(20, 14)]``, ``None``, ``True`` or dict).

:func:`audit_facts` turns the dict of :func:`ledger.history.audit.audit` into a verdict
sentence and a list of :class:`Fact` (label, sentence, nested facts); :func:`field_facts`
turns any recorded payload into facts (booleans as yes/no, lists joined, dicts and lists of
dicts nested, dice as faces: ``"d20 showed 14"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ledger.campaign.aggregate import Campaign

#: Shown for a field without a value.
NOTHING = "—"

#: Fields of a roll said once, in the dice and source sentences, not again among the fields.
RANDOMNESS = ("source", "draws", "nonce", "client_seed", "scheme", "request", "entropy")


@dataclass(frozen=True)
class Fact:
    """One thing the page says: ``label`` (``"Dice"``), ``text`` (a sentence or a value in
    words, ``""`` when only ``children`` say it) and ``children`` (nested facts: a dict or a
    list of dicts recorded in a field)."""

    label: str
    text: str
    children: tuple[Fact, ...] = field(default=())


def dice_words(draws: Any) -> str:
    """A roll's draws (``[[sides, face], ...]``) in words, in the order drawn, dice of the
    same size together: ``"d20 showed 14"``, ``"2d6 showed 3 and 5"``, ``"4 Fudge dice
    showed +, −, · and +"`` (a 3-sided die is a Fudge die: :func:`ledger.history.recap.die_label`).
    """
    from ledger.history.recap import die_label

    groups: list[tuple[int, list[str]]] = []
    for pair in draws or []:
        sides, face = int(pair[0]), int(pair[1])
        if groups and groups[-1][0] == sides:
            groups[-1][1].append(die_label(sides, face))
        else:
            groups.append((sides, [die_label(sides, face)]))
    said = []
    for sides, faces in groups:
        count = f"{len(faces)} " if len(faces) > 1 else "a "
        if sides == 3:
            die = "Fudge dice" if len(faces) > 1 else "Fudge die"
            said.append(f"{count}{die} showed {joined(faces)}".removeprefix("a "))
        else:
            prefix = f"{len(faces)}d{sides}" if len(faces) > 1 else f"d{sides}"
            said.append(f"{prefix} showed {joined(faces)}")
    return "; ".join(said) if said else "no dice"


def joined(items: list[str]) -> str:
    """``["a", "b", "c"]`` as ``"a, b and c"``."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def when(stamp: Any) -> str:
    """An ISO timestamp in words: ``"1 March 2026 at 19:00:05 UTC"`` (as given if unread)."""
    try:
        at = datetime.fromisoformat(str(stamp).replace("Z", "+00:00"))
    except ValueError:
        return str(stamp)
    return f"{at.day} {at:%B %Y} at {at:%H:%M:%S} UTC"


def label_of(key: str) -> str:
    """A field's name as a label: ``"client_seed"`` → ``"Client seed"``."""
    words = str(key).replace("_", " ").replace("-", " ").strip()
    return words[:1].upper() + words[1:] if words else NOTHING


def value_words(value: Any) -> str:
    """A scalar or a list of scalars in words: yes/no, a dash for nothing, lists joined."""
    if value is None or value == "":
        return NOTHING
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list | tuple):
        if not value:
            return "none"
        if all(isinstance(v, list | tuple) and len(v) == 2 for v in value) and all(
            isinstance(x, int) and not isinstance(x, bool) for v in value for x in v
        ):  # dice as [sides, face] (an imported roll's ``dice``)
            return dice_words(value)
        return ", ".join(value_words(v) for v in value)
    if isinstance(value, Mapping):
        return "; ".join(f"{label_of(k).lower()} {value_words(v)}" for k, v in value.items())
    return str(value)


def _nested(value: Any) -> bool:
    if isinstance(value, Mapping):
        return bool(value)
    return isinstance(value, list | tuple) and any(isinstance(v, Mapping) for v in value)


def field_facts(data: Mapping[str, Any], *, skip: tuple[str, ...] = ()) -> list[Fact]:
    """Every field of a recorded payload as a :class:`Fact` (``skip``: fields said
    elsewhere). A dict becomes nested facts, a list of dicts one nested fact per item
    (labelled by its ``name`` field when it has one), draws the dice in words."""
    out: list[Fact] = []
    for key, value in data.items():
        if key in skip:
            continue
        if key == "draws":
            out.append(Fact("Dice", dice_words(value)))
        elif isinstance(value, Mapping) and value:
            out.append(Fact(label_of(key), "", tuple(field_facts(value))))
        elif _nested(value):
            items = []
            for i, item in enumerate(value, 1):
                if isinstance(item, Mapping):
                    name = item.get("name")
                    rest = {k: v for k, v in item.items() if k != "name"} if name else item
                    text = value_words(rest) if not any(map(_nested, rest.values())) else ""
                    kids = tuple(field_facts(rest)) if not text else ()
                    items.append(Fact(str(name) if name else f"{i}", text, kids))
                else:
                    items.append(Fact(f"{i}", value_words(item)))
            out.append(Fact(label_of(key), "", tuple(items)))
        else:
            out.append(Fact(label_of(key), value_words(value)))
    return out


def _by(actor: str) -> str:
    return "the GM" if actor == "gm" else actor


def source_sentence(a: Mapping[str, Any], data: Mapping[str, Any]) -> str | None:
    """How a roll's dice came to be, in one sentence (``None``: not a roll)."""
    from ledger.dice.engine import DOWNTIME_SCHEME, REQUESTED_SCHEME

    if "draws" not in data or "source" not in data:
        return None
    if data["source"] == "physical":
        return f"Entered by {_by(a['recorded_by'])} (physical dice: the faces read at the table)."
    number = a["session"]
    seed = (
        f"the downtime seed of session {number}"
        if data.get("scheme") == DOWNTIME_SCHEME
        else f"session {number}'s seed"
    )
    said = f"Drawn by the ledger from {seed}"
    if data.get("nonce") is not None:
        nonce = int(data["nonce"])
        said += f", its engine roll number {nonce + 1} (nonce {nonce})"
    if data.get("scheme") == REQUESTED_SCHEME:
        said += ", with the entropy the roller's device sent"
    seed_text = data.get("client_seed") or ""
    if seed_text.startswith("blind:"):
        said += ", with a secret of the GM's ledger (a blind roll)"
    elif seed_text:
        said += f", with the client seed “{seed_text}”"
    return said + "."


def verdict_sentence(a: Mapping[str, Any], data: Mapping[str, Any]) -> str:
    """The audit's verdict in one sentence a player reads (the mismatch and tamper verdicts
    keep the audit's own words, which name the problem)."""
    from ledger.dice.engine import DOWNTIME_SCHEME

    verdict, number = a["verdict"], a["session"]
    downtime = data.get("scheme") == DOWNTIME_SCHEME
    seed = f"the downtime seed of session {number}" if downtime else f"session {number}'s seed"
    if verdict == "verified":
        return (
            f"Verified: the revealed seed gives these dice ({seed}), and the result is what "
            "the rules give for them."
        )
    if verdict == "pending":
        if downtime:
            return f"Not yet verifiable: {seed} is revealed later; then anyone can recompute these dice."
        return (
            f"Not yet verifiable: session {number} is still open. Its seed is revealed when it "
            "ends; then anyone can recompute these dice."
        )
    if verdict == "recorded" and "draws" in data:
        return (
            f"Recorded: physical dice entered by {_by(a['recorded_by'])}. The ledger proves the "
            "entry is unchanged since it was recorded, not what the dice on the table showed; "
            "its result is what the rules give for its inputs and dice."
        )
    if verdict == "recorded":
        return "Recorded: the hash chain proves it is unchanged since it was recorded."
    if verdict == "imported":
        return (
            "Imported, not verifiable: the ledger never saw these dice; it proves only that "
            f"the entry is unchanged since {_by(a['recorded_by'])} imported it."
        )
    return f"{verdict.capitalize()}: {a['detail']}"


def proof_sentence(proof: Mapping[str, Any] | None) -> str | None:
    """Where the event stands against the signed checkpoints (``None``: nothing known)."""
    if not proof:
        return None
    if proof.get("checkpoint") is None:
        return "No signed checkpoint holds it yet: the GM signs one at the end of a session."
    size = proof["checkpoint"]
    if proof.get("verified"):
        return f"In the signed checkpoint of events 1 to {size}: its inclusion proof checks."
    return f"Against the signed checkpoint of events 1 to {size}: {proof.get('problem')}."


STATUS = {
    "standing": "Standing: no correction changes it.",
    "retracted": "Retracted by a correction: it no longer counts.",
    "amended": "Amended by a correction: see the corrections below.",
}


def audit_facts(
    campaign: Campaign, a: Mapping[str, Any], data: Mapping[str, Any]
) -> dict[str, Any]:
    """The audit page's words: ``{"what", "mark", "kind", "outcome", "verdict", "facts", "fields"}`` from
    :func:`ledger.history.audit.audit`'s dict ``a`` and its payload ``data``.

    ``what``: the event as the log says it (:func:`ledger.history.words.line`); ``mark`` and
    ``outcome``: a roll's ✔ ◐ ✘ and its verdict in words (as recorded; ``kind`` the
    verdict's code); ``verdict``:
    :func:`verdict_sentence`; ``facts``: dice, source, who could know the dice, when and by
    whom, status, rule, checkpoint, fingerprint, original and corrected results; ``fields``:
    every recorded field (:func:`field_facts`; a roll's randomness is in ``facts``)."""
    from ledger.events import Roll
    from ledger.history.recap import MARKS
    from ledger.history.words import line

    rec = campaign.record(a["seq"])
    facts: list[Fact] = []
    if "draws" in data:
        facts.append(Fact("Dice", dice_words(data["draws"]) + "."))
    source = source_sentence(a, data)
    if source:
        facts.append(Fact("How", source))
    origin = a.get("imported")
    if origin:  # a roll imported from another tool's chat log
        when_said = f" at {origin['at']}" if origin.get("at") else ""
        facts.append(
            Fact(
                "Source",
                f"This roll was imported from {origin['tool']} ({origin['message']}), said by "
                f"{origin['speaker']}{when_said}: not verifiable, the ledger never saw the dice.",
            )
        )
        facts.append(Fact("Original text", str(origin.get("text") or NOTHING)))
    if a.get("predictable"):
        text = a["predictable"]["text"]
        facts.append(Fact("Who could know the dice", text[:1].upper() + text[1:] + "."))
    elif a.get("no_dice"):
        text = a["no_dice"]
        facts.append(Fact("Dice", text[:1].upper() + text[1:] + "."))
    session = a["session"]
    where = f"in session {session}" if session is not None else "between sessions"
    facts.append(
        Fact("Recorded", f"By {_by(a['recorded_by'])} on {when(a['recorded_at'])}, {where}.")
    )
    if a.get("name"):
        facts.append(Fact("Character", str(a["name"])))
    facts.append(Fact("Status", STATUS.get(a["status"], a["status"])))
    rule = a["rule"]
    book = rule["book"] + (f", {rule['section']}" if rule.get("section") else "")
    facts.append(Fact("Rule", book))
    checkpoint = proof_sentence(a.get("proof"))
    if checkpoint:
        facts.append(Fact("Checkpoint", checkpoint))
    checked = a.get("checked")
    if checked:  # audit by proof: what was hashed and re-derived
        facts.append(Fact("What the audit checked", checked[:1].upper() + checked[1:] + "."))
    if a.get("original"):
        facts.append(Fact("Originally", a["original"]))
    if "corrected" in a:
        now = a["corrected"]
        facts.append(Fact("Now", now if now is not None else "It no longer counts."))
    facts.append(Fact("Type", str(a["type"])))
    skip = RANDOMNESS if "draws" in data else ()
    verdict = campaign.system.verdict(rec.data) if isinstance(rec.data, Roll) else None
    return {
        "what": line(campaign, rec).text,
        "mark": MARKS.get(verdict or "", ""),
        "kind": verdict or "",
        "outcome": {"mixed": "mixed result"}.get(verdict or "", verdict or ""),
        "verdict": verdict_sentence(a, data),
        "facts": facts,
        "fields": field_facts(data, skip=skip),
    }
