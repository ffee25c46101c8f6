"""Code and docs speak to their readers: no issue numbers, no notes to the project's own
planning files, no paths of the machine they were written on (docs/changelog.md keeps the
history, with its issue numbers)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = {".py", ".md", ".js", ".j2", ".css", ".html", ".toml", ".txt"}
#: what a reader of the code or the docs has no use for, each with why
UNSAID = {
    # an entry's own "#12" (its seq, as the log shows it) is a reader's word; "(#28)",
    # "before #28", "#25 redesign" are the project's history
    "an issue number": re.compile(
        r"\(#\d+[),;:]|\b(?:[Bb]efore|[Ss]ee|[Ii]ssues?|[Ss]ince|[Aa]fter|goals of)\s+#\d{1,3}\b"
        r"|#\d{1,3}\s+(?:redesign|work)\b|#\d{1,3},\s*#\d{1,3}"
    ),
    "the design notes of the project's planning": re.compile(r"\bDESIGN\.md\b|\bBRIEF\b"),
    "the digest of a rule text": re.compile(r"\bdigest §|shared/(rules|seeds)\b|rules digest"),
    "a path of a machine": re.compile(r"/work/|/root/|/home/(?!you/)\w"),
}


def read_by_people() -> list[Path]:
    """Every file of ledger/, plugins/ and docs/ a person reads, but the changelog."""
    found = []
    for top in ("ledger", "plugins", "docs"):
        for path in sorted((ROOT / top).rglob("*")):
            rel = path.relative_to(ROOT).as_posix()
            if (
                path.is_file()
                and path.suffix in SUFFIXES
                and rel != "docs/changelog.md"
                and "/.venv/" not in f"/{rel}"
                and "/__pycache__/" not in f"/{rel}"
            ):
                found.append(path)
    return found


def unsaid(text: str) -> list[str]:
    """What in ``text`` a reader has no use for: ``["an issue number: '(#28)'", ...]``."""
    return [
        f"{why}: {match.group(0)!r}"
        for why, pattern in UNSAID.items()
        for match in pattern.finditer(text)
    ]


@pytest.mark.parametrize(
    "text, found",
    [
        ("The append is faster (#28).", ["an issue number: '(#28)'"]),
        ("Before #28 an append was ...", ["an issue number: 'Before #28'"]),
        ('"Undo #12", the entry "#39 success"', []),
        ("as DESIGN.md says", ["the design notes of the project's planning: 'DESIGN.md'"]),
        ("(digest §2.4)", ["the digest of a rule text: 'digest §'"]),
        ("see /work/main/ledger", ["a path of a machine: '/work/'"]),
        ("color: #998d7f; &#39; issue-free text; msgspec's hexdigest()", []),
    ],
)
def test_the_check_finds_what_it_looks_for(text, found):
    assert unsaid(text) == found


def test_code_and_docs_hold_no_history_and_no_machine_path():
    problems = []
    for path in read_by_people():
        text = path.read_text(encoding="utf-8", errors="replace")
        for line_no, line in enumerate(text.splitlines(), start=1):
            for found in unsaid(line):
                problems.append(f"{path.relative_to(ROOT)}:{line_no}: {found}")
    assert problems == [], "\n".join(problems[:40]) + f"\n({len(problems)} in all)"
