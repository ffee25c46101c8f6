"""The corpus's evenings: one :class:`ledger.testing.corpus.Play` per rule system shipped,
each holding every event kind the product writes (see ``ledger/testing/corpus.py``), and the
ledgers of older releases kept under tests/data/ (``old-release*.db``) when there are any."""

from __future__ import annotations

from pathlib import Path

from ledger.testing.corpus import Play

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"


def evening(
    system: str,
    folder: str,
    sheets: list[str],
    a: str,
    b: str,
    engine: str,
    physical: str,
    ask: str,
    more: list[str] | None = None,
) -> Play:
    """Three sessions of ``system`` with characters ``a`` and ``b`` (sheets from
    campaigns/FOLDER): ``engine`` is a roll's words for the engine (``SKILL --options``),
    ``physical`` one with ``--dice``, ``ask`` what a request asks of ``a``; ``more`` lines
    of the system's own in session 1."""
    lines = [
        f"new corpus --system {system} --title 'Corpus of {system}'",
        *(f"character add --sheet campaigns/{folder}/characters/{s}.toml" for s in sheets),
        "session start",
        f"roll {a} {engine}",
        f"roll {a} {physical}",
        f"roll {a} {engine} --blind",
        "note 'the door creaks open'",
        "note 'the butler did it' --blind",
        f"request {a} {ask}",
        f"roll {a} --answer {{request}} --entropy {{entropy}}",
        f"request {a} {ask}",
        "withdraw {request} --reason 'never mind'",
        f"encounter start {a} {b}",
        "encounter next",
        "encounter end",
        *(more or []),
        f"roll {a} {physical}",
        "correct 5 --reason 'misread the die'",
        "scene end",
        "time pass 8h",
        "undo --reason 'not yet' --yes",
        "session end",
        "@cosign",
        "session start",
        f"roll {a} {engine}",
        f"@foundry {a}",
        f"roll {a} {physical}",
        "note 'a second evening'",
        "session end",
        "session start",
        f"roll {a} {engine}",
        "checkpoint",
    ]
    return Play(system, lines, cwd=ROOT)


PLAYS = [
    evening("wyrd-engine", "grand-casebook", ["julian", "felix"], "julian", "felix",
            "notice --dr fair", "investigate --dr good --dice ++-0", "notice --dr fair",
            ["damage felix 2"]),
    evening("d20-world", "the-world", ["isa", "bram"], "isa", "bram",
            "Lockpicking --time", "Lockpicking --time --dice 12", "Lockpicking --time"),
    evening("decision-dice", "the-salt-road", ["jen", "oskar"], "jen", "oskar",
            "Wits --target 8", "Wits --target 8 --dice 4,5", "Wits --target 8"),
    evening("terran-engine", "the-drowned-marches", ["kit", "bo"], "kit", "bo",
            "Violence --attribute Agility", "Violence --attribute Agility --dice 4,5,2",
            "Violence --attribute Agility"),
    evening("spellwoven", "nimble-jen", ["jen", "housewife"], "jen", "housewife",
            "Sprint", "Sprint --dice 6,6,10", "Sprint"),
]  # fmt: skip


def old_release_ledgers() -> list[Path]:
    """Ledger files written by earlier releases (tests/data/old-release*.db), as they are:
    every verifier must agree on them too."""
    return sorted(DATA.glob("old-release*.db"))
