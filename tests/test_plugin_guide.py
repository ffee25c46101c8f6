"""docs/plugin-guide.md's examples run.

Every ```python block of the guide is executed, each in a namespace of its own, with the
package `campaign plugin new coin-flip` writes importable (the guide's examples build on
it); a block whose first line is ``# fragment`` (part of a module: a method, a relative
import) is only compiled. A ``RuleSystemContract`` subclass an example defines runs its
checks. The shell lines of "Start here" run in a shell with a fresh ``$HOME``: the folder
they create is the one the install and test lines name (a quoted ``~`` would not expand).
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from ledger.rules.scaffold import write_plugin
from ledger.testing import RuleSystemContract

ROOT = Path(__file__).resolve().parent.parent
GUIDE = ROOT / "docs" / "plugin-guide.md"
#: a fenced block, indented or not (inside a list item), with its language
FENCE = re.compile(
    r"^(?P<indent> *)```(?P<lang>[\w-]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S
)
FRAGMENT = "# fragment"


def blocks(lang: str) -> list[tuple[int, str]]:
    """``(line number, code)`` of every block of ``lang`` in the guide, dedented."""
    text = GUIDE.read_text()
    return [
        (text.count("\n", 0, m.start()) + 1, textwrap.dedent(m["body"]))
        for m in FENCE.finditer(text)
        if m["lang"] == lang
    ]


PYTHON = blocks("python")


@pytest.fixture(scope="module")
def coin_flip(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """``ledger_coin_flip``, as ``campaign plugin new coin-flip`` writes it, importable for
    the module's tests (not registered: the examples use the class itself)."""
    parent = tmp_path_factory.mktemp("plugins")
    write_plugin("coin-flip", parent)
    sys.path.insert(0, str(parent / "coin-flip"))
    try:
        yield
    finally:
        sys.path.remove(str(parent / "coin-flip"))
        for name in [m for m in sys.modules if m.split(".")[0] == "ledger_coin_flip"]:
            del sys.modules[name]
        importlib.invalidate_caches()


def test_the_guide_has_examples_that_run_and_fragments_marked():
    runnable = [code for _, code in PYTHON if not code.startswith(FRAGMENT)]
    assert len(runnable) >= 8 and len(PYTHON) > len(runnable)
    joined = "\n".join(runnable)
    for shown in ("RuleSystemContract", "@describes", "def sheet_layout", "def verdict",
                  "def automatic", "def npc_sheet", "suggestions=", "def odds_series"):  # fmt: skip
        assert shown in joined, shown


def run_example(code: str, name: str) -> None:
    """Execute one example in a namespace of its own (a fragment is only compiled), then
    the checks of any ``RuleSystemContract`` subclass it defines."""
    compiled = compile(code, name, "exec")
    if code.startswith(FRAGMENT):
        return  # part of a module: it must parse; the template runs the real one
    namespace: dict[str, object] = {"__name__": name.replace(":", "_").replace(".", "_")}
    exec(compiled, namespace)
    for value in list(namespace.values()):
        if (
            inspect.isclass(value)
            and issubclass(value, RuleSystemContract)
            and value is not RuleSystemContract
        ):
            run_contract(value)


def run_contract(cls: type[RuleSystemContract]) -> None:
    """Every check of a ``RuleSystemContract`` subclass, as pytest would run them."""
    checks = [name for name in dir(cls) if name.startswith("test_")]
    assert len(checks) >= 6
    for name in checks:
        check = getattr(cls(), name)
        if "engine" in inspect.signature(check).parameters:
            check(engine=False)
            check(engine=True)
        else:
            check()


@pytest.mark.parametrize("line, code", PYTHON, ids=[f"line{n}" for n, _ in PYTHON])
def test_each_python_example_runs(coin_flip, tmp_path, monkeypatch, line, code):
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    run_example(code, f"{GUIDE.name}:{line}")


def test_a_broken_example_fails(coin_flip):
    """The test above could fail: the guide's old ``Line("…", "…")`` (positional) does not
    run, and a contract example whose sheet the rules refuse fails its checks."""
    with pytest.raises(TypeError):
        run_example('from ledger import Line\nLine("Investigate", "+3 (Great)")\n', "old")
    with pytest.raises(Exception, match="skills"):
        run_example(
            "from ledger.testing import RuleSystemContract\n"
            "from ledger_coin_flip import CoinFlip\n"
            "class TestOld(RuleSystemContract):\n"
            "    system = CoinFlip()\n"
            '    sheet = {"id": "ann", "name": "Ann", "luck": 2}\n',
            "old",
        )
    run_example("# fragment\nfrom .system import CoinFlip\n", "fragment")  # compiled only


def start_here() -> str:
    """The shell lines (``$ ...``) of the first console block, "Start here"."""
    ((_, block), *_) = blocks("console")
    return "\n".join(line[2:] for line in block.splitlines() if line.startswith("$ "))


def played(lines: str, home: Path) -> list[Path]:
    """Run shell ``lines`` in bash with ``$HOME`` = ``home``: ``mkdir`` and ``campaign plugin
    new`` for real; ``pip`` and ``pytest`` print their arguments and the other ``campaign``
    lines do nothing. Returns the paths ``pip`` and ``pytest`` were given (extras left off)."""
    fake = (
        'pip() { printf "ARG %s\\n" "$@"; }\n'
        'pytest() { printf "ARG %s\\n" "$@"; }\n'
        'campaign() { if [ "$1 $2" = "plugin new" ]; then command campaign "$@"; fi; }\n'
    )
    env = {
        **os.environ,
        "HOME": str(home),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    done = subprocess.run(
        ["bash", "-euc", fake + lines], env=env, capture_output=True, text=True, cwd=home
    )
    assert done.returncode == 0, done.stdout + done.stderr
    args = [a[4:] for a in done.stdout.splitlines() if a.startswith("ARG ") and "/" in a]
    return [Path(re.sub(r"\[[\w,]+\]$", "", a)) for a in args]


def test_the_install_lines_name_the_folder_plugin_new_writes(tmp_path):
    """The "Start here" lines played in a shell: the folder `plugin new` writes is the one the
    install and test lines name."""
    lines = start_here()
    assert "pip install -e" in lines and "campaign plugin new" in lines
    paths = played(lines, tmp_path)
    written = tmp_path / "code" / "coin-flip"
    assert (written / "pyproject.toml").is_file() and (
        written / "ledger_coin_flip" / "__init__.py"
    ).is_file()
    assert paths == [written, written]  # pip install -e PATH[test]; pytest PATH


def test_the_check_catches_a_quoted_tilde(tmp_path):
    """The old lines name ``~/code/coin-flip`` literally: the quotes keep the shell from
    expanding ``~``, so pip would look for a folder named ``~`` under the current one."""
    old = 'mkdir -p ~/code\ncampaign plugin new coin-flip --dir ~/code\npip install -e "~/code/coin-flip[test]"\n'
    (path,) = played(old, tmp_path)
    assert path == Path("~/code/coin-flip") and not path.exists()
    assert path != tmp_path / "code" / "coin-flip" and (tmp_path / "code" / "coin-flip").is_dir()


# --- the frictions a stranger met, each held by a check ----------------------------------

HOOKS = ROOT / "docs" / "plugin-hooks.md"


def test_every_core_path_the_plugin_docs_name_exists():
    """docs/plugin-hooks.md once named ledger/hookspecs.py (it is ledger/rules/hookspecs.py)."""
    for doc in (GUIDE, HOOKS):
        named = set(re.findall(r"`(ledger/[\w/]+\.(?:py|css|j2|md))`", doc.read_text()))
        assert named, doc.name
        missing = sorted(p for p in named if not (ROOT / p).exists())
        assert missing == [], (doc.name, missing)
    assert "ledger/rules/hookspecs.py" in HOOKS.read_text()


def test_the_guide_points_to_public_names_only_where_a_plugin_imports():
    """``applying_seq`` is ``ledger.applying_seq``, never the non-public
    ``ledger.rules.projection.applying_seq``; every name the guide tells a plugin to import
    from ``ledger`` is in ``ledger.__all__``."""
    import ledger

    text = GUIDE.read_text()
    assert "ledger.rules.projection" not in text and "ledger.applying_seq" in text
    for names in re.findall(r"^from ledger import ([\w, ]+)$", text, re.M):
        assert set(names.replace(" ", "").split(",")) <= set(ledger.__all__), names


def test_skills_of_is_documented_for_what_it_feeds():
    """It feeds the forms' skill buttons and completion, not a "did you mean"."""
    from ledger.rules.system import RuleSystem

    doc = RuleSystem.skills_of.__doc__ or ""
    assert "did you mean" not in doc and "roll form" in doc
    row = next(line for line in GUIDE.read_text().splitlines() if line.startswith("| `skills_of"))
    assert "roll form" in row and 'Not a "did you mean"' in row


def test_the_forms_help_prefix_rule_is_the_one_documented(coin_flip):
    """The guide's rule: a help starting with the system's name and a colon is shown
    without it, capitalised; a help holding command-line text is not shown."""
    from ledger_coin_flip import CoinFlip

    from ledger.web.roll_help import option_hint

    system = CoinFlip()
    assert option_hint(system, "coin flip: the number to meet.") == "The number to meet."
    assert option_hint(system, "spellwoven: the number to meet.") == "Spellwoven: the number to meet."
    assert option_hint(system, "Give --target 8.") == "" and option_hint(system, "see `odds`") == ""
    text = GUIDE.read_text()
    assert "starts\nwith the system's name and a colon" in text and "not shown on the form" in text


def test_the_contracts_docstring_names_every_check():
    """Each ``test_`` of the contract is named in its module's docstring (the time hook and
    the verdict words were once missing) and in the guide's section on it."""
    from ledger.testing import contracts

    doc = contracts.__doc__ or ""
    for words in ("time_passed", "verdict", "blind_form", "rederive", "appliers are pure"):
        assert words in doc, words
    section = GUIDE.read_text().split("### The contract every system passes", 1)[1][:2500]
    assert "the time hook" in section and "verdict words" in section


def test_the_sites_chips_leave_the_roll_forms_pills_alone():
    """site.css's link pills (``a.chip``) no longer style the roll form's ``label.chip``,
    whose pill is its ``span`` (roll-form.css): one pill, not a pill in a pill."""
    static = ROOT / "ledger" / "web" / "static"
    site = re.sub(r"/\*.*?\*/", "", (static / "site.css").read_text(), flags=re.S)
    selectors = [s.strip() for rule in re.findall(r"([^{}]+)\{", site) for s in rule.split(",")]
    chips = [s for s in selectors if ".chip" in s]
    assert sorted(chips) == ["a.chip", "a.chip.on"], chips
    form = (ROOT / "ledger" / "web" / "templates" / "roll.html.j2").read_text()
    assert '<label class="chip">' in form and ".chip span" in (static / "roll-form.css").read_text()


def test_the_contract_catches_bad_verdict_words_and_a_time_hook_out_of_order(coin_flip):
    """The contract's two newer checks could fail: a verdict outside the log's three words
    or missing for a recorded outcome; a ``time_passed`` whose rolls are not one per draw
    in the order drawn."""
    from ledger_coin_flip import CoinFlip, Improved

    from ledger import RuleError

    def contract(system: object) -> RuleSystemContract:
        cls = type("TestIt", (RuleSystemContract,), {
            "system": system, "sheet": {"id": "ann", "name": "Ann", "skills": {"climb": 1}}})  # fmt: skip
        return cls()

    class Unmarked(CoinFlip):
        def verdict(self, event):
            return None

    class Worded(CoinFlip):
        def verdict(self, event):
            return "great"

    with pytest.raises(AssertionError, match="has no verdict"):
        contract(Unmarked()).test_verdict_words()
    with pytest.raises(AssertionError, match="verdict 'great'"):
        contract(Worded()).test_verdict_words()
    contract(CoinFlip()).test_verdict_words()

    class Skipping(CoinFlip):
        def time_passed(self, states, span, dice=None):
            if dice is None or span.minutes < 60:
                return []
            dice("first")  # drawn, never recorded
            source = dice("second")
            die = source.d(6)
            return [Improved(character="ann", skill="climb", for_session=1, die=die,
                             improved=die > 1, **source.fields())]  # fmt: skip

    with pytest.raises(RuleError, match="drew 2 engine roll"):
        contract(Skipping()).test_time_passing_is_pure_and_gives_the_systems_events()
