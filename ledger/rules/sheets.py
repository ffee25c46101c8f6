"""Character sheets for people: a renderer-neutral description and its two renderings.

A rule system describes a character's sheet in its book's words with
:meth:`ledger.rules.system.RuleSystem.sheet_layout`, as a :class:`Sheet` of :class:`Section`\\ s
holding items:

- :class:`Line`: ``Investigate  +3 (Great)``, with an optional note (what it does now);
- :class:`Track`: boxes, drawn ``Stress [x][x][ ][ ][ ]``;
- :class:`Table`: columns and rows (a spell list, an inventory).

The core draws it: :func:`render_text` for the terminal (rich; plain text with no ANSI code
when ``color`` is false) and :func:`render_html` through ``templates/sheet.html.j2`` (the
fragment macro ``sheet_fragment`` is what a web page includes; the standalone page wraps it).

Every string is shown literally: rich markup (``[bold]``) is never interpreted, HTML is
escaped, and control characters show as visible escapes (:func:`ledger.text.printable`).

GM-only facts carry ``gm_only=True``; the renderers mark them ``[GM]``. A players' layout
must not contain them at all (the rule system leaves them out when ``as_gm`` is false).
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

import msgspec

from ledger.templating import environment

__all__ = [
    "Item",
    "Line",
    "Section",
    "Sheet",
    "Table",
    "Track",
    "generic_layout",
    "humanize",
    "mark_gm_only",
    "players_only",
    "render_html",
    "render_text",
    "signed",
]

#: The ``tone`` values an item may carry: ``""`` (plain), ``"good"`` (a benefit, a success),
#: ``"bad"`` (a wound, a penalty, a failure), ``"muted"`` (a reminder).
TONES = ("", "good", "bad", "muted")


class Line(msgspec.Struct, frozen=True, kw_only=True, tag="line"):
    """One labelled fact: ``label  value  (note)``.

    :param label: what it is, in the book's words (``"Investigate"``).
    :param value: its value as shown (``"+3 (Great)"``); may be empty.
    :param note: what it does now, or a reminder (``"−1 to all checks"``); may be empty.
    :param gm_only: a fact only the GM sees (shown only in the GM's layout, marked [GM]).
    :param tone: one of :data:`TONES`, for colour (``"bad"`` for a wound).
    """

    kind: ClassVar[str] = "line"
    label: str
    value: str = ""
    note: str = ""
    gm_only: bool = False
    tone: str = ""


class Track(msgspec.Struct, frozen=True, kw_only=True, tag="track"):
    """A row of boxes: ``Stress [x][x][ ][ ][ ]``.

    :param label: the track's name (``"Physical stress"``).
    :param marked: boxes marked (``0 <= marked``; more than ``boxes`` shows the excess).
    :param boxes: boxes on the track (``>= 0``).
    :param note: what the marks mean now (``"1 to go before taken out"``).
    :param gm_only: shown only in the GM's layout, marked [GM].
    """

    kind: ClassVar[str] = "track"
    label: str
    marked: int
    boxes: int
    note: str = ""
    gm_only: bool = False

    def drawn(self) -> str:
        """The boxes as text: ``[x][x][ ][ ]`` (marks past the last box as ``+N``)."""
        marked = max(0, self.marked)
        shown = min(marked, self.boxes)
        boxes = "[x]" * shown + "[ ]" * max(0, self.boxes - shown)
        if marked > self.boxes:
            boxes += f" +{marked - self.boxes}"
        return boxes or "(no boxes)"


class Table(msgspec.Struct, frozen=True, kw_only=True, tag="table"):
    """Rows under column headings (a spell list, an inventory).

    :param columns: the headings.
    :param rows: one tuple of cell texts per row, each as long as ``columns``.
    :param gm_only: the whole table is GM-only.
    """

    kind: ClassVar[str] = "table"
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...] = ()
    gm_only: bool = False


Item = Line | Track | Table


class Section(msgspec.Struct, frozen=True, kw_only=True):
    """A titled group of items (``"Skills"``, ``"Stress"``, ``"Wounds"``).

    :param title: the heading, in the book's words.
    :param items: what it holds, in reading order.
    :param note: one sentence under the heading (a rule reminder); may be empty.
    """

    title: str
    items: tuple[Item, ...] = ()
    note: str = ""


class Sheet(msgspec.Struct, frozen=True, kw_only=True):
    """A character sheet as a person reads it.

    :param title: the character's name.
    :param subtitle: one line under it (the system, a concept, an archetype).
    :param sections: in reading order; empty sections are not drawn.
    :param as_gm: whether this is the GM's layout (GM-only items may appear).
    """

    title: str
    subtitle: str = ""
    sections: tuple[Section, ...] = ()
    as_gm: bool = False

    def gm_items(self) -> Iterator[Item]:
        """Every GM-only item (none in a players' layout)."""
        for section in self.sections:
            for item in section.items:
                if item.gm_only:
                    yield item

    def text(self) -> str:
        """Every string of the sheet joined (for tests: "is this fact anywhere?")."""
        parts = [self.title, self.subtitle]
        for section in self.sections:
            parts += [section.title, section.note]
            for item in section.items:
                if isinstance(item, Line):
                    parts += [item.label, item.value, item.note]
                elif isinstance(item, Track):
                    parts += [item.label, item.note]
                else:
                    parts += list(item.columns) + [c for row in item.rows for c in row]
        return "\n".join(p for p in parts if p)


# --- helpers for layouts -----------------------------------------------------------------


def signed(n: int) -> str:
    """A modifier as the books print it: ``+2``, ``0``, ``−1`` (a real minus sign)."""
    return f"+{n}" if n > 0 else f"−{-n}" if n < 0 else "0"


def humanize(key: str) -> str:
    """A field name for people: ``"rested_after_session"`` → ``"Rested after session"``.

    Only a field name (lower-case letters, digits and underscores) is changed; any other
    key (a skill a player named ``"Lock-picking"``) is shown as it is.
    """
    if not re.fullmatch(r"[a-z][a-z0-9_]*", key):
        return key
    words = key.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def _empty(value: Any) -> bool:
    """Zero, false, ``None`` or empty: hidden by the generic layout."""
    return value is None or value is False or value == 0 or value == "" or value in ([], {})


def _inline(value: Any) -> str:
    if isinstance(value, bool):
        return "yes"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return ", ".join(_inline(v) for v in value if not _empty(v))
    if isinstance(value, dict):
        return ", ".join(
            f"{humanize(str(k))} {_inline(v)}" if v is not True else humanize(str(k))
            for k, v in value.items()
            if not _empty(v)
        )
    return str(value)


def _record(value: dict[str, Any]) -> Line:
    """A list entry (a dict) as one line: its first text field is the label."""
    label_key = next(
        (k for k in ("name", "label", "skill", "title", "id") if isinstance(value.get(k), str)),
        None,
    )
    rest = {k: v for k, v in value.items() if k != label_key}
    label = str(value[label_key]) if label_key else ""
    return Line(label=label or _inline(rest), value=_inline(rest) if label else "")


def _items(value: dict[str, Any]) -> list[Item]:
    items: list[Item] = []
    for key, v in value.items():
        if _empty(v):
            continue
        if isinstance(v, list) and any(isinstance(x, dict) for x in v):
            for x in v:
                if isinstance(x, dict):
                    line = _record(x)
                    items.append(msgspec.structs.replace(line, note=humanize(str(key))))
                elif not _empty(x):
                    items.append(Line(label=humanize(str(key)), value=_inline(x)))
        else:
            items.append(Line(label=humanize(str(key)), value=_inline(v)))
    return items


def generic_layout(view: dict[str, Any], *, title: str, subtitle: str = "") -> Sheet:
    """A readable sheet from any JSON-ready ``sheet_view`` dict.

    Top-level scalars and lists go in a first section titled ``subtitle or "Sheet"``; each
    top-level dict becomes a section of its own. Zero, false and empty values are hidden;
    field names are shown as words (``"Rested after session"``), never as paths; a list of
    records shows one line per record, labelled by its ``name`` (or ``label``, ``skill``,
    ``title``, ``id``) field. Nothing is marked GM-only: :func:`mark_gm_only` does that by
    comparing with the players' layout.
    """

    def own_section(v: Any) -> bool:
        return isinstance(v, dict) or (isinstance(v, list) and any(isinstance(x, dict) for x in v))

    top = {k: v for k, v in view.items() if not own_section(v)}
    top.pop("name", None)
    sections = [Section(title="Sheet", items=tuple(_items(top)))]
    for key, v in view.items():
        if isinstance(v, dict):
            sections.append(Section(title=humanize(str(key)), items=tuple(_items(v))))
        elif own_section(v):
            lines = [_record(x) if isinstance(x, dict) else Line(label=_inline(x)) for x in v]
            items = tuple(line for line in lines if line.label or line.value)
            sections.append(Section(title=humanize(str(key)), items=items))
    return Sheet(
        title=title,
        subtitle=subtitle,
        sections=tuple(s for s in sections if s.items),
    )


def mark_gm_only(gm: Sheet, player: Sheet) -> Sheet:
    """``gm`` with every item the players' layout does not show as it is marked GM-only.

    The rule system marks the facts it knows are secret; this catches the rest (a state
    changed by an event recorded ``--blind``): an item of the GM's sheet that is not, equal,
    in the players' section of the same title is GM-only. Returns ``gm`` with
    ``as_gm=True``.
    """
    shown: dict[str, list[Item]] = {}
    for section in player.sections:
        shown.setdefault(section.title, []).extend(section.items)
    sections = []
    for section in gm.sections:
        seen = list(shown.get(section.title, ()))
        items = []
        for item in section.items:
            if item in seen:
                seen.remove(item)
                items.append(item)
            else:
                items.append(msgspec.structs.replace(item, gm_only=True))
        sections.append(msgspec.structs.replace(section, items=tuple(items)))
    return msgspec.structs.replace(gm, sections=tuple(sections), as_gm=True)


def players_only(sheet: Sheet) -> Sheet:
    """``sheet`` without any GM-only item (and ``as_gm=False``): what players may see."""
    sections = []
    for section in sheet.sections:
        items = tuple(item for item in section.items if not item.gm_only)
        sections.append(msgspec.structs.replace(section, items=items))
    return msgspec.structs.replace(sheet, sections=tuple(sections), as_gm=False)


# --- text ---------------------------------------------------------------------------------

#: Width of plain text output (golden files, pipes): wide enough for a phone's chat.
PLAIN_WIDTH = 78
GM_MARK = "[GM]"
#: Widest label column; longer labels wrap.
LABEL_WIDTH = 30
#: A note goes after its value (``value · note``) when both take at most this many columns,
#: else on the line under the value.
INLINE_NOTE = 44


def _show(text: str) -> str:
    from ledger.text import printable

    return printable(text)


def _visible(sections: Iterable[Section]) -> list[Section]:
    return [s for s in sections if s.items or s.note]


def render_text(sheet: Sheet, *, color: bool, width: int | None = None) -> str:
    """The sheet for a terminal (``color``: rich panels and colour) or as plain text.

    Plain text (``color=False``) holds no ANSI code and no box drawing: a heading per
    section and aligned columns, ``PLAIN_WIDTH`` wide unless ``width`` is given. Every
    string is shown literally (rich markup is never parsed).

    :param width: columns to fit (default: :data:`PLAIN_WIDTH`, or the terminal's when
        ``color``).
    """
    from rich import box
    from rich.console import Console, Group
    from rich.panel import Panel
    from rich.table import Table as RichTable
    from rich.text import Text

    out = io.StringIO()
    console = Console(
        file=out,
        width=width or (None if color else PLAIN_WIDTH),
        force_terminal=color,
        no_color=not color,
        color_system="standard" if color else None,
        highlight=False,
        emoji=False,
        markup=False,
        legacy_windows=False,
        soft_wrap=False,
    )
    styles = {"good": "green", "bad": "bold red", "muted": "dim", "": ""}

    def gm(cell: Text, item: Item) -> Text:
        if item.gm_only:
            cell.append(" ")
            cell.append(GM_MARK, style="bold magenta")
        return cell

    def new_grid() -> RichTable:
        grid = RichTable.grid(padding=(0, 2))
        grid.add_column(max_width=LABEL_WIDTH)
        grid.add_column(ratio=1)
        return grid

    def cell(item: Line | Track) -> Text:
        """The value, and the note after it when both fit on one line, else under it."""
        if isinstance(item, Track):
            value = Text(item.drawn(), style="yellow")
            note_style = "dim"
        else:
            value = Text(_show(item.value), style=styles.get(item.tone, ""))
            note_style = "red" if item.tone == "bad" else "dim"
        note = _show(item.note)
        if note:
            if not value.plain:
                value.append(note, style=note_style)
            elif len(value.plain) + len(note) + 3 <= INLINE_NOTE:
                value.append(" · ", style="dim")
                value.append(note, style=note_style)
            else:
                value.append("\n" + note, style=note_style)
        return gm(value, item)

    def section_body(section: Section) -> Group:
        parts: list[Any] = []
        if section.note:
            parts.append(Text(_show(section.note), style="italic dim"))
        grid = new_grid()
        rows = 0
        for item in section.items:
            if isinstance(item, Table):
                if rows:
                    parts.append(grid)
                    grid = new_grid()
                    rows = 0
                table = RichTable(
                    box=box.SIMPLE_HEAD if color else box.ASCII2,
                    show_edge=False,
                    pad_edge=False,
                    header_style="bold" if color else "",
                )
                for col in item.columns:
                    table.add_column(Text(_show(col)))
                for row in item.rows:
                    table.add_row(*(Text(_show(c)) for c in row))
                if item.gm_only:
                    parts.append(Text(GM_MARK, style="bold magenta"))
                parts.append(table)
                continue
            grid.add_row(Text(_show(item.label), style="bold"), cell(item))
            rows += 1
        if rows:
            parts.append(grid)
        return Group(*parts)

    if color:
        head = Text(_show(sheet.title), style="bold")
        if sheet.subtitle:
            head.append("  " + _show(sheet.subtitle), style="dim")
        console.print(head)
        for section in _visible(sheet.sections):
            console.print(
                Panel(
                    section_body(section),
                    title=Text(_show(section.title), style="bold cyan"),
                    title_align="left",
                    box=box.ROUNDED,
                    border_style="cyan",
                )
            )
    else:
        console.print(Text(_show(sheet.title)))
        if sheet.subtitle:
            console.print(Text(_show(sheet.subtitle)))
        for section in _visible(sheet.sections):
            console.print()
            console.print(Text(_show(section.title)))
            console.print(Text("-" * min(len(_show(section.title)), PLAIN_WIDTH)))
            console.print(section_body(section))
    text = out.getvalue()
    if not color:
        text = "\n".join(line.rstrip() for line in text.splitlines()) + "\n"
    return text


# --- HTML ---------------------------------------------------------------------------------




def render_html(sheet: Sheet, *, standalone: bool = True) -> str:
    """The sheet as HTML through ``templates/sheet.html.j2`` (autoescaped).

    :param standalone: a whole page (inline CSS, no external resource, readable at 390 px
        wide); ``False`` gives only the fragment (``<section class="sheet">…``) a web page
        includes, with the CSS in a ``<style>`` it can place once (``sheet.html.j2``'s
        ``sheet_css`` macro).

    A jinja2 page can include the same fragment itself::

        {% from "sheet.html.j2" import sheet_css, sheet_fragment %}
        <style>{{ sheet_css() }}</style> ... {{ sheet_fragment(sheet) }}
    """
    template = environment().get_template("sheet.html.j2")
    module = template.module
    if standalone:
        return template.render(sheet=sheet).lstrip()
    return f"<style>{module.sheet_css()}</style>\n{module.sheet_fragment(sheet)}"
