"""Draw the web app's icons: ``ledger/web/static/icons/`` ``icon-192.png``,
``icon-512.png`` (purpose "any": a rounded ink tile) and ``maskable-512.png`` (full bleed,
the die inside the central 80 % safe zone a launcher's mask never cuts). A twenty-sided
die's face-on outline in the site's colours (``site.css``: ink ``#2b2118``, paper
``#fbf7ef``, accent ``#8c3b2f``), drawn at 4x and scaled down for smooth edges.

Run once after changing the drawing: ``uv run python docs/make_icons.py`` (Pillow), then
commit the PNGs.
"""

from __future__ import annotations

import math
from pathlib import Path

from PIL import Image, ImageDraw

OUT = Path(__file__).resolve().parent.parent / "ledger" / "web" / "static" / "icons"
INK, PAPER, ACCENT = "#2b2118", "#fbf7ef", "#c8553f"


def die(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    """A d20 seen face on: a hexagon, the front triangle, the lines to the corners."""
    hexagon = [
        (cx + r * math.cos(math.radians(90 + 60 * i)), cy - r * math.sin(math.radians(90 + 60 * i)))
        for i in range(6)
    ]
    inner = [(cx, cy - 0.55 * r), (cx - 0.5 * r, cy + 0.32 * r), (cx + 0.5 * r, cy + 0.32 * r)]
    width = max(2, round(r * 0.07))
    draw.polygon(hexagon, fill=PAPER)
    draw.polygon(inner, fill=ACCENT)
    pairs = [(0, 0), (1, 0), (1, 1), (5, 0), (5, 2), (2, 1), (3, 1), (3, 2), (4, 2)]
    for h, t in pairs:
        draw.line([hexagon[h], inner[t]], fill=INK, width=width)
    draw.line([*inner, inner[0]], fill=INK, width=width, joint="curve")
    draw.line([*hexagon, hexagon[0]], fill=INK, width=width, joint="curve")


def icon(size: int, *, maskable: bool) -> Image.Image:
    """One icon, ``size`` px square (RGBA; the maskable one opaque to its edges)."""
    big = size * 4
    image = Image.new("RGBA", (big, big), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    if maskable:
        draw.rectangle([0, 0, big, big], fill=INK)
        radius = big * 0.30  # inside the safe zone: a circle of 40 % of the size
    else:
        draw.rounded_rectangle([0, 0, big - 1, big - 1], radius=big * 0.18, fill=INK)
        radius = big * 0.38
    die(draw, big / 2, big / 2, radius)
    return image.resize((size, size), Image.Resampling.LANCZOS)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    icon(192, maskable=False).save(OUT / "icon-192.png", optimize=True)
    icon(512, maskable=False).save(OUT / "icon-512.png", optimize=True)
    icon(512, maskable=True).save(OUT / "maskable-512.png", optimize=True)


if __name__ == "__main__":
    main()
