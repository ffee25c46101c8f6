"""The in-browser verifier as one self-contained HTML file."""

from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"

#: The ES modules the downloaded verifier inlines, dependencies first (a file opened from the
#: disk cannot import another file: each module's imports are dropped and its exports made
#: plain declarations of the one inline module).
MODULES = ("witness.js", "verify-checkpoints.js")
_IMPORT = re.compile(r"^import\s[^;]*;\s*$", re.MULTILINE)
_EXPORT = re.compile(r"^export\s+(?=(?:async\s+)?function\b|class\b|const\b|let\b)", re.MULTILINE)


def inline_modules(names: tuple[str, ...] = MODULES) -> str:
    """The static ES modules ``names`` as one module's text: their ``import`` lines removed
    and ``export`` keywords dropped, in order (each module may use the earlier ones' names).

    :raises ValueError: a module's text holds ``</script`` (it would end the inline script).
    """
    parts = []
    for name in names:
        text = _EXPORT.sub("", _IMPORT.sub("", (STATIC / name).read_text()))
        if "</script" in text.lower():
            raise ValueError(f"{name} holds '</script': it cannot be inlined")
        parts.append(f"// --- {name} ---\n{text}")
    return "\n".join(parts)


def verifier_html() -> str:
    """The verifier page with its scripts and style inlined: one file that checks an export
    (its chain, seeds, engine rolls, checkpoints and cosignatures) with WebCrypto alone,
    opened from the disk (``campaign export --verifier FILE``)."""
    from ledger.web.common import render

    return render(
        "verifier.html.j2",
        script=(STATIC / "verify.js").read_text() + "\n" + (STATIC / "verify-page.js").read_text(),
        module=inline_modules(),
        style=(STATIC / "site.css").read_text(),
    )
