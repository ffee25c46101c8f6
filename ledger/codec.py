"""The one place events become bytes and bytes become events.

- :func:`encode_data` gives a payload's canonical JSON (keys sorted at every level, no
  whitespace, UTF-8): what the ``data`` column stores and what the hash chain covers.
- :class:`Codec` decodes stored payloads of one campaign's event types through a single
  ``msgspec.json.Decoder(Union[...])`` tagged by ``type``, upcasting old shapes on read.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterable
from typing import Any, Union

import msgspec
from msgspec.structs import asdict

from ledger.chain import _encoder, canonical_envelope, encode_canonical  # noqa: F401 (re-exported)
from ledger.events import CORE_EVENT_TYPES, Event, event_tag

SCHEMA = "schema_version"
"""Key of a payload's schema version (a reserved field name): written when the event class's
``schema_version`` is above 1, read as 1 when absent (every payload written before it)."""

_SCHEMA_TEXT = f'"{SCHEMA}":'
_SCHEMA_MARK = _SCHEMA_TEXT.encode()

SALT = "salt"
"""Key of the random salt in a GM-only payload (a reserved field name)."""


_SALT_TEXT = f'"{SALT}":"'
_SALT_MARK = _SALT_TEXT.encode()


def encode_data(event: Event, *, salt: str | None = None) -> bytes:
    """Canonical JSON of a payload (includes its ``type`` tag, and its ``schema_version``
    when the class's is above 1, so upcasters know the shape it was written in).

    :param salt: a GM-only payload's salt (:func:`salted`), written in the same pass: the
        bytes are those of adding ``"salt"`` to the encoded payload and encoding it again.
    """
    cls = type(event)
    version = cls.schema_version
    if version > 1 or salt is not None:
        extra: dict[str, Any] = {}
        if version > 1:
            extra[SCHEMA] = version
        if salt is not None:
            extra[SALT] = salt
        return _encoder.encode(_with_fields(cls, tuple(extra))(**asdict(event), **extra))
    return _encoder.encode(event)


#: ``{(event class, extra field names): its subclass with those str/int fields}``
_WIDER: dict[tuple[type[Event], tuple[str, ...]], type[Event]] = {}


def _with_fields(cls: type[Event], names: tuple[str, ...]) -> type[Event]:
    """A subclass of ``cls`` with the same tag and the reserved fields ``names``
    (``schema_version``, ``salt``) added: encoded with sorted keys it gives the payload with
    those keys in their sorted places, in one pass (no decode and re-encode)."""
    key = (cls, names)
    wider = _WIDER.get(key)
    if wider is None:
        fields = [(SCHEMA, int) if n == SCHEMA else (n, str) for n in names]
        made: Any = msgspec.defstruct(
            f"{cls.__name__}With{''.join(n.title() for n in names)}",
            fields,
            bases=(cls,),
            tag=cls.__struct_config__.tag,
            kw_only=True,
            frozen=True,
        )
        wider = _WIDER[key] = made
    return wider


def salted(data: bytes) -> bytes:
    """A GM-only payload with a random 128-bit ``salt`` added (canonical JSON).

    A player's export keeps a GM-only event's hash; without the salt a small hidden value
    (a favour delta of -2) could be found by hashing guesses. The salt makes the hash a
    hiding commitment; the GM's export carries it, so the chain still recomputes.
    """
    payload = msgspec.json.decode(data)
    payload[SALT] = new_salt()
    return _encoder.encode(payload)


def new_salt() -> str:
    """A fresh random 128-bit salt, in hex (:func:`salted`)."""
    return secrets.token_hex(16)


#: One upcast step or function: a payload dict (with ``type``) in, a newer payload dict out.
UpcastFn = Callable[[dict[str, Any]], dict[str, Any]]
#: What a rule system's ``upcasters`` maps a type tag to: ``{stored version: step}`` or one
#: function for every payload of the type (:class:`Codec`).
Upcaster = UpcastFn | dict[int, UpcastFn]


class SaltOnly(Event, frozen=True, kw_only=True, tag="ledger.salt-only"):
    """No event: the union member of a codec with no GM-only type (its salted decoder then
    refuses every payload, which takes the slow way)."""


class UnknownEventType(ValueError):
    """A payload whose ``type`` no installed rule system declares."""


class Codec:
    """Decoder for one campaign: the core event types plus its rule system's.

    :param event_types: plugin event classes (the core's are always included).
    :param upcasters: per type tag, either ``{stored schema version: fn(dict) -> dict}``
        (each step takes a payload of that version to the next; the steps from the payload's
        ``schema_version`` up to the class's run in order) or one ``fn(dict) -> dict``
        applied to every payload of that type (it reads ``dict["schema_version"]``). Old
        shapes are upcast on read, never rewritten; amended payloads of corrections too.
    :raises TypeError: two classes share a tag (msgspec refuses the union).
    """

    def __init__(
        self,
        event_types: Iterable[type[Event]] = (),
        upcasters: dict[str, Upcaster] | None = None,
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
        versioned = _SCHEMA_MARK in data if isinstance(data, bytes) else _SCHEMA_TEXT in data
        if (type_ is not None and type_ in self.upcasters) or versioned:
            raw = msgspec.json.decode(data)
            if isinstance(raw, dict):
                tag = type_ or raw.get("type")
                if not isinstance(tag, str) or tag not in self.types:
                    raise UnknownEventType(f"unknown event type {tag!r}")
                return msgspec.convert(self.upcast(tag, raw), self.types[tag])
        salted_payload = _SALT_MARK in data if isinstance(data, bytes) else _SALT_TEXT in data
        if salted_payload:
            try:  # a salted GM-only payload: one typed decode, then the salt dropped
                wide = self._salted_decoder().decode(data)
            except msgspec.ValidationError:
                wide = None  # a "salt" key that is not the top level's: the slow way
            if wide is not None:
                fields = asdict(wide)
                del fields[SALT]
                return self._unsalted[type(wide)](**fields)
            raw = msgspec.json.decode(data)
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

    def _salted_decoder(self) -> msgspec.json.Decoder[Any]:
        """The union decoder of the GM-only types (``visibility = "gm"``) with their
        ``salt``, made on first use: a GM-only payload decodes in one pass, as a public one
        does. A public type written GM-only (an append's own visibility) fails it and
        takes the slow way; making every type's salted class would cost each process
        milliseconds."""
        decoder = self.__dict__.get("_salted")
        if decoder is None:
            gm = [cls for cls in self.types.values() if cls.visibility == "gm"] or [SaltOnly]
            wide = {_with_fields(cls, (SALT,)): cls for cls in gm}
            self._unsalted: dict[type[Any], type[Event]] = wide
            union = Union[tuple(wide)]  # type: ignore[valid-type]  # noqa: UP007
            decoder = self.__dict__["_salted"] = msgspec.json.Decoder(union)
        return decoder

    def upcast(self, type_: str, raw: dict[str, Any]) -> dict[str, Any]:
        """A stored or amended payload (builtins, ``type`` optional) in the current shape of
        ``type_``: salt and ``schema_version`` dropped, the upcasters from its version run.

        :raises UnknownEventType: the type is not registered, or the payload's schema
            version is newer than the installed class's (upgrade the plugin) or has no
            upcaster step.
        :raises msgspec.ValidationError: a ``schema_version`` that is not a whole number >= 1.
        """
        cls = self.types.get(type_)
        if cls is None:
            raise UnknownEventType(f"unknown event type {type_!r}")
        raw = {"type": type_, **raw}
        raw.pop(SALT, None)
        stored = raw.pop(SCHEMA, 1)
        if type(stored) is not int or stored < 1:
            raise msgspec.ValidationError(f"{type_}: schema_version must be a whole number >= 1")
        current = cls.schema_version
        if stored > current:
            raise UnknownEventType(
                f"a {type_} payload has schema version {stored}, newer than the installed "
                f"rule system reads ({current}): upgrade the plugin"
            )
        upcaster = self.upcasters.get(type_)
        if isinstance(upcaster, dict):
            for version in range(stored, current):
                step = upcaster.get(version)
                if step is None:
                    raise UnknownEventType(
                        f"no upcaster for {type_} from schema version {version} to {version + 1}"
                    )
                raw = step(raw)
        elif upcaster is not None:
            raw = upcaster({**raw, SCHEMA: stored})
        raw.pop(SCHEMA, None)
        return raw

    def amended(self, type_: str, data: dict[str, Any]) -> Event:
        """The event an amending correction's ``data`` stands for, upcast from the schema
        version it was recorded in (:meth:`upcast`).

        :raises UnknownEventType: as :meth:`upcast`. :raises msgspec.ValidationError: the
            data does not fit the type.
        """
        return msgspec.convert(self.upcast(type_, data), self.types[type_])

    def stamped(self, type_: str, data: dict[str, Any]) -> dict[str, Any]:
        """Amended ``data`` (current shape, no ``type``) with the schema version it is
        written in, when the class's is above 1 (what :meth:`amended` reads back)."""
        cls = self.types.get(type_)
        if cls is not None and cls.schema_version > 1:
            return {**data, SCHEMA: cls.schema_version}
        return data

    def convert(self, type_: str, data: dict[str, Any], *, strict: bool = True) -> Event:
        """Build a payload of ``type_`` from builtins (e.g. a parsed command line).

        :raises UnknownEventType: the type is not registered.
        :raises msgspec.ValidationError: a field is missing, unknown, or of the wrong type.
        """
        cls = self.types.get(type_)
        if cls is None:
            raise UnknownEventType(f"unknown event type {type_!r}")
        return msgspec.convert(data, cls, strict=strict)
