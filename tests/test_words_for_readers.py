"""Code, tests and docs speak to their readers: no issue numbers, no notes to the project's
own planning files, no paths of the machine they were written on (docs/changelog.md keeps the
history, with its issue numbers). The examples below of what a reader has no use for are
built from pieces, so that this file's own lines hold none of it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = {".py", ".md", ".js", ".j2", ".css", ".html", ".toml", ".txt"}
#: what a reader of the code or the docs has no use for, each with why: the same patterns CI's
#: grep uses (.ci/unsaid). An entry's own "#12" (its seq, as the log shows it) is a reader's
#: word; an issue number in parentheses, after "before" or "see", or before "redesign" is the
#: project's history.
UNSAID = {
    why: re.compile(pattern)
    for why, pattern in (
        line.split("\t", 1)
        for line in (ROOT / ".ci" / "unsaid.tsv").read_text(encoding="utf-8").splitlines()
        if line.strip()
    )
}
#: the pieces of the examples: an issue number, the planning notes' file, a rule digest's
#: section mark and a machine's path
ISSUE = "#28"
PLANNING = "DESIGN" + ".md"
DIGEST = "digest" + " §"
MACHINE = "/wo" + "rk/"
#: where people read: what CI's grep scans
TOPS = ("ledger", "plugins", "docs", "tests", "bench", "README.md")


def read_by_people() -> list[Path]:
    """Every file of ledger/, plugins/, docs/, tests/ and bench/ a person reads, and the
    README, but the changelog."""
    found = []
    for top in TOPS:
        base = ROOT / top
        for path in sorted(base.rglob("*")) if base.is_dir() else [base]:
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
    """What in ``text`` a reader has no use for: ``["<why>: '<what>'", ...]``, each why as
    .ci/unsaid.tsv words it."""
    return [
        f"{why}: {match.group(0)!r}"
        for why, pattern in UNSAID.items()
        for match in pattern.finditer(text)
    ]


SAMPLES = [
    (f"The append is faster ({ISSUE}).", [f"an issue number: '({ISSUE})'"]),
    (f"Before {ISSUE} an append was ...", [f"an issue number: 'Before {ISSUE}'"]),
    ('"Undo #12", the entry "#39 success"', []),
    (f"as {PLANNING} says", [f"the design notes of the project's planning: '{PLANNING}'"]),
    (f"({DIGEST}2.4)", [f"the digest of a rule text: '{DIGEST}'"]),
    (f"see {MACHINE}main/ledger", [f"a path of a machine: '{MACHINE}'"]),
    ("color: #998d7f; &#39; issue-free text; msgspec's hexdigest()", []),
    ("a file of /home/you/campaigns", []),
]


@pytest.mark.parametrize("text, found", SAMPLES)
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


def test_ci_grep_flags_the_same_lines_as_this_test(tmp_path):
    """.ci/unsaid (grep -P over the same patterns) and :func:`unsaid` agree, line by line,
    and both leave docs/changelog.md alone."""
    if (
        shutil.which("bash") is None
        or subprocess.run(["grep", "-P", "x"], input="x", capture_output=True, text=True).returncode
    ):
        pytest.skip("needs bash and a grep with -P (GNU grep)")
    (tmp_path / "docs").mkdir()
    lines = [text for text, _ in SAMPLES]
    (tmp_path / "docs" / "page.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "docs" / "changelog.md").write_text(f"faster ({ISSUE})\n", encoding="utf-8")
    run = subprocess.run(
        ["bash", str(ROOT / ".ci" / "unsaid"), str(tmp_path)], capture_output=True, text=True
    )
    assert run.returncode == 1, run.stderr
    flagged = [int(line.split(":")[1]) for line in run.stdout.splitlines()]
    assert all(line.startswith("docs/page.md:") for line in run.stdout.splitlines())
    assert flagged == [n for n, (_, found) in enumerate(SAMPLES, start=1) if found]


def test_ci_grep_passes_on_this_checkout():
    """What CI runs before the tests passes today."""
    if subprocess.run(["grep", "-P", "x"], input="x", capture_output=True, text=True).returncode:
        pytest.skip("needs a grep with -P (GNU grep)")
    run = subprocess.run(["bash", str(ROOT / ".ci" / "unsaid")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def help_texts() -> list[tuple[str, str]]:
    """``[(where, text)]``: every text of the installed rule systems that help, the GM's page,
    ``audit`` and docs/events.md show as written: each event type's docstring, each
    ``sections`` entry, each roll option's label and help."""
    from ledger.rules.plugins import rule_systems

    texts = []
    for sid, system in sorted(rule_systems().items()):
        for cls in system.event_types:
            texts.append((f"{sid} {cls.__name__}", cls.__doc__ or ""))
        for tag, section in system.sections.items():
            texts.append((f"{sid} sections[{tag!r}]", section))
        for param in system.roll_options:
            texts.append((f"{sid} option {param.name}", f"{param.label} {param.help}"))
    return texts


def test_help_texts_name_the_book_not_the_seed_file_and_hold_no_issue_number():
    """Help shows a rule system's docstrings as written (nothing cleans them at run time),
    so they name the book by its title, never a seed file, and hold no issue reference."""
    from ledger.rules.wording import SEED_NAME

    issue = re.compile(r"(?<![\w&])#\d+\b")
    texts = help_texts()
    assert len(texts) > 50  # every installed system's events, sections and options
    problems = [
        f"{where}: {m.group(0)!r}"
        for where, text in texts
        for m in (*SEED_NAME.finditer(text), *issue.finditer(text))
    ]
    assert problems == []
