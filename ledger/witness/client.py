"""A log's side of C2SP tlog-witness: ask a witness to cosign a checkpoint.

:func:`add_checkpoint` posts ``old SIZE``, the consistency proof and the signed checkpoint to
``URL/add-checkpoint`` and returns the witness's cosignature line, verified against the
witness's key. Every failure is a :class:`~ledger.witness.state.WitnessError` subclass with a
one-line message: :class:`WitnessConflict` (409: the witness holds another size; retry from
``.size``), :class:`WitnessRefused` (another 4xx/5xx, with the witness's reason),
:class:`WitnessUnavailable` (no answer) and :class:`BadWitnessAnswer` (an answer that is not
a valid cosignature by the witness's key).

Uses the standard library's ``urllib`` only.
"""

from __future__ import annotations

import base64
import re
import urllib.error
import urllib.request
from collections.abc import Sequence
from urllib.parse import urlsplit

from ledger.text import printable
from ledger.trust.cosignature import CosignatureVerifier, verify_cosignature
from ledger.trust.notes import NoteError
from ledger.witness.state import WitnessError

#: The most bytes of an answer read.
MAX_ANSWER = 64 * 1024
#: The longest reason of a witness's shown.
MAX_REASON = 200


class WitnessConflict(WitnessError):
    """409: the witness last cosigned a checkpoint of :attr:`size`, not of the old size
    sent. Send a proof from :attr:`size` (if it is smaller than the checkpoint's: the
    witness was behind) or find out why it is ahead (the log was rolled back)."""

    def __init__(self, url: str, size: int) -> None:
        super().__init__(
            f"the witness at {url} last cosigned this log at size {size}: "
            f"send a consistency proof from size {size}"
        )
        self.size = size


class WitnessRefused(WitnessError):
    """The witness refused the checkpoint (:attr:`status`: 400 malformed, 403 a signature,
    404 an origin it does not follow, 409 at the size it last cosigned: another root there,
    a fork; 422 an inconsistency, ...); :attr:`reason` is its word, made printable and cut
    short."""

    def __init__(self, url: str, status: int, reason: str) -> None:
        what = {
            400: "refused the request as malformed",
            403: "refused the checkpoint's signature",
            404: "does not follow this log (trust its key there: `campaign witness trust VKEY`)",
            409: "refused the checkpoint as a fork of the one it cosigned",
            413: "refused the request as too large",
            422: "refused the checkpoint as inconsistent with what it saw",
        }.get(status, f"answered HTTP {status}")
        super().__init__(f"the witness at {url} {what}: {reason or 'no reason given'}")
        self.status = status
        self.reason = reason


class WitnessUnavailable(WitnessError):
    """The witness could not be reached or did not answer in time. Nothing was cosigned
    (as far as this side knows): try again later."""


class BadWitnessAnswer(WitnessError):
    """The witness answered 200 with no valid cosignature by its key, or a 409 without a
    size: do not count it as a witness."""


def check_witness_url(url: str) -> str:
    """``url`` without a trailing slash if it is ``http(s)://HOST[:PORT][/PREFIX]``.

    :raises WitnessError: another scheme, no host, a query, fragment or user name.
    """
    parts = urlsplit(url.strip())
    try:
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        raise WitnessError(f"{url!r} is not a witness URL: its port is not a number") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WitnessError(
            f"{url!r} is not a witness URL: give http://HOST:PORT or https://HOST/PREFIX"
        )
    if parts.query or parts.fragment or "@" in parts.netloc:
        raise WitnessError(f"{url!r} is not a witness URL: leave out ?, # and user names")
    return url.strip().rstrip("/")


def request_body(note_text: str, old_size: int, proof: Sequence[bytes]) -> bytes:
    """The ``add-checkpoint`` body: ``old SIZE``, one base64 line per proof hash, an empty
    line, the signed checkpoint note."""
    lines = [f"old {old_size}"] + [base64.b64encode(h).decode() for h in proof]
    return ("\n".join(lines) + "\n\n" + note_text).encode()


def _reason(raw: bytes) -> str:
    text = raw[: MAX_REASON * 4].decode("utf-8", "replace").strip()
    return printable(text)[:MAX_REASON]


def add_checkpoint(
    url: str,
    note_text: str,
    old_size: int,
    proof: Sequence[bytes],
    *,
    witness_key: str | CosignatureVerifier,
    timeout: float = 10.0,
) -> str:
    """Ask the witness at ``url`` to cosign the checkpoint ``note_text``.

    :param url: the witness's submission prefix (``http://HOST:PORT``); ``/add-checkpoint``
        is added.
    :param note_text: the checkpoint as a signed note (signed by the log's key).
    :param old_size: the size the witness last cosigned (0 the first time).
    :param proof: the consistency proof from ``old_size`` to the checkpoint's size (32-byte
        hashes, RFC 9162; empty when ``old_size`` is 0 or equal to the size).
    :param witness_key: the witness's cosigner key ``NAME+KEYID+BASE64(0x04 ‖ KEY)``: the
        answer is accepted only with a valid cosignature by it.
    :param timeout: seconds to wait for the witness.
    :returns: the cosignature line (``— NAME BASE64\\n``), verified over ``note_text``.
    :raises WitnessConflict: 409, with the witness's size (not ``old_size``).
    :raises WitnessRefused: any other refusal (400, 403, 404, 422, 5xx; a 409 at
        ``old_size``: another root at that size, a fork).
    :raises WitnessUnavailable: no connection, a timeout, a broken answer.
    :raises BadWitnessAnswer: a 200 without a valid cosignature by ``witness_key``.
    :raises WitnessError: a bad URL or key, a negative size.
    """
    base = check_witness_url(url)
    if old_size < 0:
        raise WitnessError("the old size cannot be negative")
    try:
        verifier = (
            witness_key
            if isinstance(witness_key, CosignatureVerifier)
            else CosignatureVerifier.parse(witness_key.strip())
        )
    except NoteError as e:
        raise WitnessError(f"not a witness key ({e}): give NAME+KEYID+BASE64") from None
    request = urllib.request.Request(
        f"{base}/add-checkpoint",
        data=request_body(note_text, old_size, proof),
        method="POST",
        headers={"Content-Type": "text/plain; charset=utf-8"},
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            status, raw = response.status, response.read(MAX_ANSWER + 1)
            content_type = response.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        status, content_type = e.code, e.headers.get("Content-Type", "")
        try:
            raw = e.read(MAX_ANSWER + 1)
        except OSError:
            raw = b""
        finally:
            e.close()
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", e)
        raise WitnessUnavailable(
            f"the witness at {base} did not answer: {printable(str(reason))} (try again later)"
        ) from None
    if status == 409:
        match = re.fullmatch(rb"(0|[1-9][0-9]{0,18})\n", raw)
        if not match or not content_type.startswith("text/x.tlog.size"):
            raise BadWitnessAnswer(f"the witness at {base} answered 409 without its size")
        if int(match.group(1)) == old_size:  # at the size sent: another root there
            raise WitnessRefused(
                base, 409, f"it cosigned another root at size {old_size}: the log forked"
            )
        raise WitnessConflict(base, int(match.group(1)))
    if status != 200:
        raise WitnessRefused(base, status, _reason(raw))
    return _cosignature_in(base, raw, verifier, note_text)


def _cosignature_in(base: str, raw: bytes, verifier: CosignatureVerifier, note: str) -> str:
    """The first line of the answer that is a valid cosignature by ``verifier``."""
    if len(raw) > MAX_ANSWER:
        raise BadWitnessAnswer(f"the witness at {base} answered more than {MAX_ANSWER} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadWitnessAnswer(
            f"the witness at {base} answered with text that is not UTF-8"
        ) from None
    for line in text.splitlines(keepends=True):
        if not line.startswith(f"— {verifier.name} "):
            continue
        try:
            verify_cosignature(verifier, note, line)
        except NoteError:
            continue
        return line if line.endswith("\n") else line + "\n"
    raise BadWitnessAnswer(
        f"the witness at {base} answered without a valid cosignature by {verifier.key()}"
    )
