"""The in-browser verifier as one self-contained HTML file (#18)."""

from __future__ import annotations

from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"


def verifier_html() -> str:
    """The verifier page with its script and style inlined: one file that checks an export
    with WebCrypto alone, opened from the disk (``campaign export --verifier FILE``)."""
    from ledger.web.common import render

    return render(
        "verifier.html.j2",
        script=(STATIC / "verify.js").read_text() + "\n" + (STATIC / "verify-page.js").read_text(),
        style=(STATIC / "site.css").read_text(),
    )
