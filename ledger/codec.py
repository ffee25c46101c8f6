"""The one place events become bytes and bytes become events.

- :func:`encode_data` gives a payload's canonical JSON (keys sorted at every level, no
  whitespace, UTF-8): what the ``data`` column stores and what the hash chain covers.
- :class:`Codec` decodes stored payloads of one campaign's event types through a single
  ``msgspec.json.Decoder(Union[...])`` tagged by ``type``, upcasting old shapes on read.
"""

from __future__ import annotations

import datetime
import secrets
from collections.abc import Callable, Iterable
from typing import Any, Union

import msgspec

from .events import CORE_EVENT_TYPES, Envelope, Event, event_tag


def _enc_hook(obj: Any) -> Any:
    # freezegun's FakeDatetime is refused by msgspec (msgspec issue #678)
    if isinstance(obj, datetime.datetime | datetime.date):
        return obj.isoformat()
    raise TypeError(f"cannot encode {type(obj).__name__}")


_encoder = msgspec.json.Encoder(enc_hook=_enc_hook, order="sorted")
encode_canonical = _encoder.encode


def encode_data(event: Event) -> bytes:
    """Canonical JSON of a payload (includes its ``type`` tag)."""
    return _encoder.encode(event)


SALT = "salt"
"""Key of the random salt in a GM-only payload (a reserved field name)."""


_SALT_TEXT = f'"{SALT}":"'
_SALT_MARK = _SALT_TEXT.encode()


def salted(data: bytes) -> bytes:
    """A GM-only payload with a random 128-bit ``salt`` added (canonical JSON).

    A player's export keeps a GM-only event's hash; without the salt a small hidden value
    (a favour delta of -2) could be found by hashing guesses. The salt makes the hash a
    hiding commitment; the GM's export carries it, so the chain still recomputes.
    """
    payload = msgspec.json.decode(data)
    payload[SALT] = secrets.token_hex(16)
    return _encoder.encode(payload)


def canonical_envelope(envelope: Envelope) -> bytes:
    """Canonical JSON of an envelope without its hash: the bytes the chain hashes."""
    return _encoder.encode(envelope)


class UnknownEventType(ValueError):
    """A payload whose ``type`` no installed rule system declares."""


class Codec:
    """Decoder for one campaign: the core event types plus its rule system's.

    :param event_types: plugin event classes (the core's are always included).
    :param upcasters: ``{type tag: fn(dict) -> dict}`` applied to stored payloads of that
        type before decoding (old shapes are upcast on read, never rewritten).
    :raises TypeError: two classes share a tag (msgspec refuses the union).
    """

    def __init__(
        self,
        event_types: Iterable[type[Event]] = (),
        upcasters: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] | None = None,
    ) -> None:
        types = tuple(CORE_EVENT_TYPES) + tuple(event_types)
        self.types: dict[str, type[Event]] = {event_tag(t): t for t in types}
        self.upcasters = dict(upcasters or {})
        union = Union[types]  # type: ignore[valid-type]  # noqa: UP007
        self._decoder = msgspec.json.Decoder(union)
        self._list_decoder = msgspec.json.Decoder(list[union])  # type: ignore[valid-type]
        #: ``raw_decode(bytes | str) -> Event``: the union decoder itself, no upcasting and
        #: no friendly error (the projection's hot path; fall back to :meth:`decode`).
        self.raw_decode = self._decoder.decode

    def decode(self, data: bytes | str, type_: str | None = None) -> Event:
        """Decode one stored payload.

        :raises UnknownEventType: the type is not registered.
        :raises msgspec.ValidationError: the payload does not fit its type.
        """
        if type_ is not None and type_ in self.upcasters:
            raw = self.upcasters[type_](msgspec.json.decode(data))
            raw.pop(SALT, None)
            return msgspec.convert(raw, self.types[type_])
        salted_payload = _SALT_MARK in data if isinstance(data, bytes) else _SALT_TEXT in data
        if salted_payload:
            raw = msgspec.json.decode(data)  # a salted GM-only payload: drop the salt
            if isinstance(raw, dict) and isinstance(raw.get(SALT), str):
                del raw[SALT]
                cls = self.types.get(raw.get("type", ""))
                if cls is None:
                    raise UnknownEventType(f"unknown event type {type_!r}")
                return msgspec.convert(raw, cls)
        try:
            return self._decoder.decode(data)
        except msgspec.ValidationError as e:
            if "Invalid value" in str(e) and "`$.type`" in str(e):
                raise UnknownEventType(f"unknown event type {type_!r}") from None
            raise

    def convert(self, type_: str, data: dict[str, Any], *, strict: bool = True) -> Event:
        """Build a payload of ``type_`` from builtins (e.g. a parsed command line).

        :raises UnknownEventType: the type is not registered.
        :raises msgspec.ValidationError: a field is missing, unknown, or of the wrong type.
        """
        cls = self.types.get(type_)
        if cls is None:
            raise UnknownEventType(f"unknown event type {type_!r}")
        return msgspec.convert(data, cls, strict=strict)
