"""Dice sources: verifiable engine rolls (commit and reveal) and physical entry.

docs/events.md "Engine dice schemes". A mechanic asks its :class:`DiceSource` for dice
in the order the rule lists them (``d(sides)`` or ``fudge()``); the source records every
draw as ``(sides, value)`` with ``1 <= value <= sides``.

Engine words: block ``b`` is ``HMAC-SHA256(key=seed, msg=json.dumps(["ledger-roll-v1",
campaign, session, nonce, client_seed, b], separators=(",", ":")).encode())``, read as eight
4-byte big-endian unsigned words. A requested roll (``ledger-roll-v2``) puts the request's
seq and the roller's entropy (64 hex digits) before the block number:
``["ledger-roll-v2", campaign, session, nonce, client_seed, request, entropy, b]``. A die of ``n`` faces takes the next word ``u``; if
``u < 2**32 - (2**32 % n)`` its face is ``u % n + 1``, else the word is dropped.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import struct
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import msgspec

from ledger.errors import LedgerError

SCHEME = "ledger-roll-v1"
#: Advancement and other between-session engine rolls: keyed by a downtime seed.
DOWNTIME_SCHEME = "ledger-downtime-v1"
#: A requested roll answered with the roller's entropy: the request's seq and the
#: entropy join the message, so nobody could know the draw before the entropy arrived.
REQUESTED_SCHEME = "ledger-roll-v2"
SCHEMES = (SCHEME, DOWNTIME_SCHEME, REQUESTED_SCHEME)
#: The roller's entropy: 32 bytes, written as 64 lower-case hex digits.
ENTROPY_BYTES = 32
FUDGE = {1: -1, 2: 0, 3: 1}
_FUDGE_TOKENS = {"+": 3, "+1": 3, "0": 2, ".": 2, " ": 2, "-": 1, "-1": 1, "−": 1, "−1": 1, "·": 2}
MAX_SIDES = 1000


class DiceError(LedgerError):
    """Dice input that cannot be: faces a die cannot show, too few or too many dice.
    Nothing was written; front ends show it next to the dice (the form's dice field, the
    API's ``/dice``)."""


def new_seed() -> bytes:
    """A fresh 32-byte session seed from :mod:`secrets`."""
    return secrets.token_bytes(32)


def commitment(seed: bytes) -> str:
    """``sha256(seed)`` in hex: the seed commitment published at session start."""
    return hashlib.sha256(seed).hexdigest()


def engine_words(
    seed: bytes,
    campaign: str,
    session: int,
    nonce: int,
    client_seed: str,
    scheme: str = SCHEME,
    request: int | None = None,
    entropy: str | None = None,
) -> Iterator[int]:
    """The endless stream of 32-bit words for one engine roll (docs/events.md step 2).

    :param scheme: :data:`SCHEME` (``seed`` is a session's seed, ``session`` its number),
        :data:`DOWNTIME_SCHEME` (``seed`` is the downtime seed committed at the end of
        session ``session``) or :data:`REQUESTED_SCHEME` (a session's seed, with the roll
        request's ``request`` seq and the roller's ``entropy``); the scheme name is the
        message's first element.
    :raises DiceError: a :data:`REQUESTED_SCHEME` roll without a request seq and entropy of
        64 lower-case hex digits.
    """
    head: list[Any] = [scheme, campaign, session, nonce, client_seed]
    if scheme == REQUESTED_SCHEME:  # checked now, not at the first draw
        head += [request, check_entropy(entropy)]
        if type(request) is not int or request < 1:
            raise DiceError("a requested roll names its request's seq")
    return _words(seed, head)


def _words(seed: bytes, head: list[Any]) -> Iterator[int]:
    block = 0
    while True:
        msg = json.dumps([*head, block], separators=(",", ":")).encode()
        digest = hmac.new(seed, msg, hashlib.sha256).digest()
        yield from struct.unpack(">8I", digest)
        block += 1


def check_entropy(entropy: Any) -> str:
    """``entropy`` when it is 64 lower-case hex digits (32 bytes).

    :raises DiceError: anything else.
    """
    if (
        not isinstance(entropy, str)
        or len(entropy) != 2 * ENTROPY_BYTES
        or entropy.strip("0123456789abcdef")
    ):
        raise DiceError("the roller's entropy is 32 bytes written as 64 lower-case hex digits")
    return entropy


def face_from_words(words: Iterator[int], sides: int) -> int:
    """Rejection sampling (docs/events.md step 3): the face ``1..sides`` of the next die."""
    limit = 2**32 - (2**32 % sides)
    for u in words:
        if u < limit:
            return u % sides + 1
    raise AssertionError("word stream ended")  # pragma: no cover - the stream is endless


class DiceSource:
    """Where a roll's dice come from. Subclasses implement :meth:`_draw`."""

    source: str = ""

    def __init__(self) -> None:
        self.draws: list[tuple[int, int]] = []

    def _draw(self, sides: int) -> int:
        raise DiceError("no dice source")

    def d(self, sides: int) -> int:
        """One die of ``sides`` faces: its face, 1..sides."""
        if not 2 <= sides <= MAX_SIDES:
            raise DiceError(f"a die needs 2 to {MAX_SIDES} sides, not {sides}")
        value = self._draw(sides)
        self.draws.append((sides, value))
        return value

    def roll(self, count: int, sides: int) -> list[int]:
        """``count`` dice of ``sides`` faces, in order."""
        return [self.d(sides) for _ in range(count)]

    def fudge(self, count: int = 1) -> list[int]:
        """``count`` Fudge dice (3-sided, 1 → −1, 2 → 0, 3 → +1), faces in −1..+1."""
        return [FUDGE[self.d(3)] for _ in range(count)]

    def finish(self) -> None:
        """Called after the mechanic drew its dice (physical entry checks nothing is left)."""

    def fields(self) -> dict[str, Any]:
        """The roll-event fields of docs/events.md: ``source``, ``draws``, ``nonce``, ``client_seed``."""
        return {"source": self.source, "draws": list(self.draws)}


class EngineDice(DiceSource):
    """Dice drawn from a secret seed (a session's, or a downtime seed with
    ``scheme=DOWNTIME_SCHEME``): verifiable once the seed is revealed."""

    source = "engine"

    def __init__(
        self,
        seed: bytes,
        campaign: str,
        session: int,
        nonce: int,
        client_seed: str = "",
        scheme: str = SCHEME,
        request: int | None = None,
        entropy: str | None = None,
    ) -> None:
        super().__init__()
        self.nonce = nonce
        self.client_seed = client_seed
        self.scheme = scheme
        self.request, self.entropy = request, entropy
        self._words = engine_words(
            seed, campaign, session, nonce, client_seed, scheme, request, entropy
        )

    def _draw(self, sides: int) -> int:
        return face_from_words(self._words, sides)

    def fields(self) -> dict[str, Any]:
        out = {**super().fields(), "nonce": self.nonce, "client_seed": self.client_seed}
        if self.scheme != SCHEME:
            out["scheme"] = self.scheme
        if self.scheme == REQUESTED_SCHEME:
            out["request"], out["entropy"] = self.request, self.entropy
        return out


class PhysicalDice(DiceSource):
    """Faces entered by hand from real dice (``--dice``), checked against each die drawn.

    :param faces: tokens in roll order: integers (``"4"``), or Fudge signs for a Fudge die
        (``"+"``, ``"-"``, ``"0"``). ``"+,+,-,0"``, ``"++-0"`` and ``"3 5"`` are parsed by
        :func:`parse_faces`.
    :raises DiceError: from :meth:`d` when a face cannot be shown by the die the rule asks
        for; from :meth:`finish` when faces are left over.
    """

    source = "physical"

    def __init__(self, faces: Sequence[str]) -> None:
        super().__init__()
        self.faces = list(faces)
        self._next = 0
        self._fudge = False
        self.ran_short = False  # the roll asked for more dice than were entered

    def fudge(self, count: int = 1) -> list[int]:
        self._fudge = True
        try:
            return super().fudge(count)
        finally:
            self._fudge = False

    def _draw(self, sides: int) -> int:
        position = self._next + 1
        if self._next >= len(self.faces):
            self.ran_short = True
            raise DiceError(
                f"the dice gave {len(self.faces)} {'face' if len(self.faces) == 1 else 'faces'}, "
                "too few: enter every die the roll uses"
            )
        token = self.faces[self._next].strip()
        self._next += 1
        if self._fudge:
            if token not in _FUDGE_TOKENS:
                raise DiceError(f"die {position} is a Fudge die: enter +, - or 0, not {token!r}")
            return _FUDGE_TOKENS[token]
        try:
            value = int(token)
        except ValueError:
            raise DiceError(
                f"die {position} is a d{sides}: enter a number, not {token!r}"
            ) from None
        if not 1 <= value <= sides:
            raise DiceError(f"die {position} is a d{sides} and cannot show {value} (1 to {sides})")
        return value

    def finish(self) -> None:
        if self._next < len(self.faces):
            raise DiceError(
                f"the dice gave {len(self.faces)} faces but the roll uses {self._next}; "
                "remove the extra faces"
            )


class CountingDice(PhysicalDice):
    """The dice a roll asks for, counted: the entered faces are not read, every die
    answers its lowest face (``1``, Fudge ``0``). For the "how many dice" answer after too
    few faces (:func:`dice_needed`); never a real roll.

    :param faces: tokens as for :class:`PhysicalDice` (only their count matters here).
    :param most: the count at which it stops (:class:`DiceError`), so a roll that keeps
        asking cannot run for ever.
    """

    def __init__(self, faces: Sequence[str], most: int = 1000) -> None:
        super().__init__(faces)
        self.most = most
        self.kinds: list[str] = []

    def _draw(self, sides: int) -> int:
        if len(self.kinds) >= self.most:
            raise DiceError(f"the roll asks for more than {self.most} dice")
        self.kinds.append("dF" if self._fudge else f"d{sides}")
        return 2 if self._fudge else 1  # dF's middle face (0): _draw gives 1..3 for dF

    def finish(self) -> None:
        """Nothing to check: the faces were only counted."""


def dice_needed(resolve: Callable[[DiceSource], Any], faces: Sequence[str]) -> str | None:
    """How many dice a roll uses, in words (``"2 d20"``, ``"4 dF then 1 d6"``), worked out
    by running ``resolve`` again with :class:`CountingDice`; ``None`` when that fails (the
    count depends on faces not entered in a way the lowest faces do not show).

    :param resolve: ``lambda dice: system.resolve(state, request, dice)``.
    """
    counter = CountingDice(faces)
    try:
        resolve(counter)
    except Exception:  # the padded faces led somewhere the rules refuse: no count to give
        return None
    if len(counter.kinds) <= len(faces):
        return None
    runs: list[list[Any]] = []
    for kind in counter.kinds:
        if runs and runs[-1][1] == kind:
            runs[-1][0] += 1
        else:
            runs.append([1, kind])
    return " then ".join(f"{n} {kind}" for n, kind in runs)


class ReplayDice(DiceSource):
    """The recorded draws of a roll, handed out again in order: re-deriving a roll's result.

    ``resolve(state, request, ReplayDice(roll))`` must give ``roll`` back when the recorded
    result is what the rules give for its inputs and draws (docs/architecture.md: ``verify``, ``import`` and ``audit`` re-derive every roll). :meth:`fields`
    returns the recorded ``source``, ``draws``, ``nonce``, ``client_seed`` (and ``scheme``
    when it is not the default), so a faithful re-derivation equals the roll field for field.

    :param roll: the recorded roll event (a :class:`ledger.events.Roll`).
    :raises DiceError: from :meth:`d` when the rule asks for a die of other sides than the
        one recorded at that place, or for more dice than were recorded; from :meth:`finish`
        when recorded draws are left over.
    """

    def __init__(self, roll: Any) -> None:
        super().__init__()
        self.source = roll.source
        self.recorded = [(int(s), int(v)) for s, v in roll.draws]
        self.nonce = roll.nonce
        self.client_seed = roll.client_seed
        self.scheme = roll.scheme
        self.request = getattr(roll, "request", None)
        self.entropy = getattr(roll, "entropy", None)

    def _draw(self, sides: int) -> int:
        i = len(self.draws)
        if i >= len(self.recorded):
            raise DiceError(
                f"the rules draw more dice than the {len(self.recorded)} recorded"
            )
        rec_sides, value = self.recorded[i]
        if rec_sides != sides:
            raise DiceError(
                f"die {i + 1} is recorded as a d{rec_sides} but the rules draw a d{sides} there"
            )
        return value

    def finish(self) -> None:
        if len(self.draws) < len(self.recorded):
            raise DiceError(
                f"{len(self.recorded)} dice are recorded but the rules draw {len(self.draws)}"
            )

    def fields(self) -> dict[str, Any]:
        out = {**super().fields()}
        if self.source == "engine" or self.nonce is not None:
            out["nonce"], out["client_seed"] = self.nonce, self.client_seed
        if self.scheme != SCHEME:
            out["scheme"] = self.scheme
        for name in ("request", "entropy"):  # a requested roll's (UNSET on others)
            value = getattr(self, name)
            if value is not None and value is not msgspec.UNSET:
                out[name] = value
        return out


def parse_faces(text: str) -> list[str]:
    """Split ``--dice`` text into face tokens.

    Commas or spaces separate faces (``"3,5"``, ``"3 5"``, ``"+,+,-,0"``); a string of only
    Fudge signs may be run together (``"++-0"``).

    :raises DiceError: on empty input.
    """
    text = text.strip()
    if not text:
        raise DiceError("the dice are empty: give the faces, e.g. 3,5 or ++-0")
    signs = "+-0.−·"
    tokens: list[str] = []
    for token in text.replace(",", " ").split():
        if len(token) > 1 and all(c in signs for c in token):
            tokens.extend(token)  # a run of Fudge signs: "++-0"
        else:
            tokens.append(token)
    return tokens


def verify_draws(
    seed: bytes,
    campaign: str,
    session: int,
    nonce: int,
    client_seed: str,
    draws: Sequence[Sequence[int]],
    *,
    scheme: str = SCHEME,
    request: int | None = None,
    entropy: str | None = None,
) -> str | None:
    """Recompute an engine roll's draws from the revealed seed (of ``scheme``; a requested
    roll's ``request`` seq and ``entropy`` too).

    :returns: ``None`` when every recorded ``[sides, value]`` is what the seed gives, else a
        sentence naming the first die that differs (or what is wrong with the entropy).
    """
    try:
        words = engine_words(seed, campaign, session, nonce, client_seed, scheme, request, entropy)
    except DiceError as e:
        return str(e)
    for i, (sides, value) in enumerate(draws, start=1):
        expected = face_from_words(words, sides)
        if expected != value:
            return f"die {i} (d{sides}) shows {value} but the seed gives {expected}"
    return None


#: Who could have known an engine roll before it was drawn, by :func:`predictability` code.
PREDICTABILITY = {
    "physical": "physical dice, entered by hand",
    "gm-seed": "drawn from the GM's seed alone: the GM could have known it in advance",
    "gm-secret": "a GM-only roll, drawn from the GM's seed and a secret of the GM's ledger",
    "client-seed": "drawn from the GM's seed and a client seed a player typed at the table",
    "roller-entropy": "drawn with the roller's own entropy: nobody could have known it in advance",
    "imported": "imported from another tool's chat log: the ledger never saw these dice",
    "no-dice": "no dice were drawn: the rules give this result without rolling",
}


def predictability(roll: Any) -> str:
    """Who could have known ``roll``'s dice in advance, as a code of
    :data:`PREDICTABILITY`: ``"imported"`` for a roll imported from another tool;
    ``"no-dice"`` for a result the rules give without drawing a die (nobody drew, so
    nobody could or could not have known anything); ``"physical"``; ``"roller-entropy"`` for a requested roll
    answered with the roller's entropy (``ledger-roll-v2``); ``"client-seed"`` when a
    player typed a client seed; ``"gm-secret"`` for a blind roll's secret client seed;
    else ``"gm-seed"`` (the GM's machine could compute it from the session or downtime seed
    alone).

    :param roll: a roll event or its payload dict (``source``, ``scheme``, ``client_seed``).
    """
    get = roll.get if isinstance(roll, dict) else (lambda k, d=None: getattr(roll, k, d))
    if get("source") == "imported":  # a roll.imported, as the fairness report reads it
        return "imported"
    draws = get("draws")
    if isinstance(draws, list | tuple) and not draws:  # settled by the rules, not the dice
        return "no-dice"
    if get("source") != "engine":
        return "physical"
    if get("scheme") == REQUESTED_SCHEME:
        return "roller-entropy"
    client_seed = get("client_seed") or ""
    if client_seed.startswith("blind:"):
        return "gm-secret"
    return "client-seed" if client_seed else "gm-seed"
