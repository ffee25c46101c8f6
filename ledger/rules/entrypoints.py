"""Finding one plugin's entry point without importing :mod:`importlib.metadata`.

A one-shot command on one campaign needs one rule system. ``importlib.metadata`` finds it
correctly but costs 10-25 ms a process before it reads anything (it imports ``email``,
``zipfile``, ``csv``, ``tempfile``...), a fifth of a whole ``campaign roll``. This module reads
the same files for the common case, an installed distribution directory
(``NAME-VERSION.dist-info/entry_points.txt`` on ``sys.path``, as pip and uv install them,
editable installs included), and answers ``None`` for anything else (an egg, a zip, an odd
layout), so the caller falls back to ``importlib.metadata``. It never answers differently
from it: the first distribution on ``sys.path`` that declares the name wins, as
``importlib.metadata.entry_points`` yields them (tests/test_startup.py compares the two for
every bundled system).
"""

from __future__ import annotations

import os
import sys
from typing import NamedTuple


class Found(NamedTuple):
    """One entry point: ``module`` (dotted), ``attr`` (``""`` for a module), the
    distribution's ``name`` (as its METADATA spells it) and ``version``."""

    module: str
    attr: str
    name: str
    version: str


def _section(text: str, group: str) -> dict[str, str]:
    """``{name: value}`` of ``[group]`` in an entry_points.txt (INI: ``name = value``)."""
    found: dict[str, str] = {}
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("["):
            inside = line == f"[{group}]"
        elif inside and "=" in line:
            name, _, value = line.partition("=")
            found[name.strip()] = value.strip()
    return found


def _metadata_name(dist_info: str) -> str | None:
    """The ``Name:`` header of ``dist_info``/METADATA, or ``None``."""
    try:
        with open(os.path.join(dist_info, "METADATA"), encoding="utf-8") as f:
            for line in f:
                if line.startswith("Name:"):
                    return line[5:].strip()
                if not line.strip():  # the headers end at the first blank line
                    break
    except OSError:
        return None
    return None


def find(group: str, name: str, path: list[str] | None = None) -> Found | None:
    """The entry point ``name`` of ``group`` from the first ``*.dist-info`` on ``path``
    (default ``sys.path``) that declares it, or ``None`` when none does or a layout this
    reader does not know is in the way (the caller then asks ``importlib.metadata``)."""
    for entry in sys.path if path is None else path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for child in names:
            if child.endswith(".egg"):
                return None  # a zipped or unpacked egg: leave it to importlib.metadata
            legacy = child.endswith(".egg-info")
            if not legacy and not child.endswith(".dist-info"):
                continue
            full = os.path.join(entry or ".", child)
            try:
                with open(os.path.join(full, "entry_points.txt"), encoding="utf-8") as f:
                    text = f.read()
            except OSError:
                continue
            if f"[{group}]" not in text:
                continue
            value = _section(text, group).get(name)
            if value is None:
                continue
            if legacy:
                return None  # declared by a setup.py-era install: importlib.metadata reads it
            dist = _metadata_name(full)
            stem = child[: -len(".dist-info")]
            _, dash, version = stem.partition("-")
            if dist is None or not dash:
                return None
            module, _, attr = value.split("[")[0].partition(":")
            return Found(module.strip(), attr.strip(), dist, version)
    return None
