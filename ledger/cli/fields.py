"""An event's fields as command-line options (``campaign record``, ``campaign systems
SYSTEM``): the functions of :mod:`ledger.rules.fields` (the GM's page parses fields the
same way), with :func:`parse_value` refusing as a click usage error (exit 2).
"""

from __future__ import annotations

from typing import Any

import click
from msgspec import inspect as mi

from ledger.rules import fields as _fields
from ledger.rules.fields import (
    FieldError,
    describe_type,
    field_lines,
    fields_of,
    is_list,
    item_type,
    option_name,
    recordable,
    roll_events,
)

__all__ = [
    "FieldError",
    "describe_type",
    "field_lines",
    "fields_of",
    "is_list",
    "item_type",
    "option_name",
    "parse_value",
    "recordable",
    "roll_events",
]


def parse_value(field: str, t: mi.Type, text: str) -> Any:
    """One typed value, parsed by the field's declared type (:func:`ledger.rules.fields.parse_value`).

    :raises click.UsageError: the text is not a value of that type; the message names the
        option, the value and what the option takes.
    """
    try:
        return _fields.parse_value(field, t, text)
    except FieldError as e:
        raise click.UsageError(e.message) from None
