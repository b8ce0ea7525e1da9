"""The vocabulary as a searchable table, drawn line by line so a 50k-token vocabulary costs only what is on screen.

A ``DataTable`` measures and stores every cell of every row up front, which takes seconds for GPT-2's
50,257 tokens. Here the rows are plain tuples built once in a worker (``build_rows``), a filter is a
list of row indices (``filter_rows``), and ``render_line`` formats only the visible rows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from bpe_tui.text import escape_token, hex_bytes
from bpe_tui.widgets.columns import fit_cells
from core.analysis.merge_tree import MergeIndex
from core.model import BPEModel


@dataclass(frozen=True, slots=True)
class VocabRow:
    """One vocabulary entry, with everything the table shows already formatted.

    Attributes:
        id: the token id.
        token: the token's bytes.
        shown: the token made safe for display (``escape_token``).
        rank: the merge that made it, ``None`` for bytes and specials.
        parents: the merged pair, made safe and joined, ``""`` when there is none.
        count: the pair count when it was merged, ``None`` when unknown.
        key: lower-cased decoded text, what a text query is matched against.
    """

    id: int
    token: bytes
    shown: str
    rank: int | None
    parents: str
    count: int | None
    key: str


def build_rows(model: BPEModel, index: MergeIndex) -> list[VocabRow]:
    """One row per vocabulary entry, by id. Meant for a worker thread: a large vocabulary takes a noticeable time."""
    rows: list[VocabRow] = []
    for token_id in sorted(model.vocab):
        token = model.vocab[token_id]
        pair = index.parents(token)
        rows.append(
            VocabRow(
                id=token_id,
                token=token,
                shown=escape_token(token),
                rank=index.rank_of(token),
                parents=f"{escape_token(pair[0])} + {escape_token(pair[1])}" if pair else "",
                count=index.count_of(token),
                key=token.decode("utf-8", errors="replace").casefold(),
            )
        )
    return rows


_HEX_QUERY = re.compile(r"[0-9a-fA-F]{2}(?: [0-9a-fA-F]{2})+")
_HEX_BYTE = re.compile(r"[0-9a-fA-F]{2}")


def filter_rows(rows: Sequence[VocabRow], query: str) -> list[int]:
    """Indices of the rows matching ``query``; every row for an empty query.

    A query matches a row whose decoded text contains it (ignoring case), whose id it is (digits), or,
    for two or more spaced hex pairs such as ``e3 81``, whose bytes contain those bytes. A single hex
    pair such as ``0a`` also finds the token of that one byte; only that one, since tokens merely holding
    the byte would swamp the text matches of queries like ``de`` (byte ``de`` is in many Japanese tokens).

    >>> rows = [VocabRow(0, b"The", "The", None, "", None, "the"), VocabRow(1, b"\\xe3\\x81", "", 0, "", 9, "")]
    >>> filter_rows(rows, "th"), filter_rows(rows, "1"), filter_rows(rows, "E3 81"), filter_rows(rows, "")
    ([0], [1], [1], [0, 1])
    >>> rows.append(VocabRow(10, b"\\n", "↵", None, "", None, "\\n"))
    >>> filter_rows(rows, "0a"), filter_rows(rows, "0A")
    ([2], [2])
    """
    if not query:
        return list(range(len(rows)))
    needle = query.casefold()
    wanted_id = int(query) if query.isdigit() else None
    wanted_bytes = bytes.fromhex(query) if _HEX_QUERY.fullmatch(query) else None
    wanted_byte = bytes.fromhex(query) if _HEX_BYTE.fullmatch(query) else None
    return [
        position
        for position, row in enumerate(rows)
        if needle in row.key
        or row.id == wanted_id
        or (wanted_bytes is not None and wanted_bytes in row.token)
        or row.token == wanted_byte
    ]


COLUMNS: tuple[tuple[str, int, bool], ...] = (
    ("id", 7, True),
    ("token", 20, False),
    ("len", 4, True),
    ("rank", 7, True),
    ("count", 8, True),
    ("parents", 24, False),
    ("bytes", 30, False),
)
"""(title, least width in cells, right-aligned). Most telling first, so an 80-column terminal shows them.
Text columns are cut to their width with an ellipsis; number columns widen to fit (:func:`column_widths`)."""


def column_widths(rows: Sequence[VocabRow]) -> tuple[int, ...]:
    """Each column's width for ``rows``: a number is never cut, so number columns widen to the widest one.

    Counts from a large corpus run to ten digits and more (``4,993,210`` was drawn ``4,993,2…``).

    >>> column_widths([VocabRow(7, b"a", "a", 3, "", 4_993_210, "a")])[4]
    9
    >>> column_widths([]) == tuple(width for _, width, _ in COLUMNS)
    True
    """
    widest = {
        "id": max((row.id for row in rows), default=0),
        "len": max((len(row.token) for row in rows), default=0),
        "rank": max((row.rank or 0 for row in rows), default=0),
    }
    widths = []
    for title, width, _ in COLUMNS:
        if title == "count":
            width = max(width, len(f"{max((row.count or 0 for row in rows), default=0):,}"))
        elif title in widest:
            width = max(width, len(str(widest[title])))
        widths.append(width)
    return tuple(widths)

_GAP = 1


def _cells(row: VocabRow) -> tuple[str, ...]:
    return (
        str(row.id),
        row.shown,
        str(len(row.token)),
        "—" if row.rank is None else str(row.rank),
        "—" if row.count is None else f"{row.count:,}",
        row.parents,
        hex_bytes(row.token),
    )


class VocabTable(ScrollView, can_focus=True):
    """Vocabulary rows with a header and a row cursor; only the visible lines are ever formatted."""

    COMPONENT_CLASSES = {"vocab-table--header", "vocab-table--cursor", "vocab-table--special"}

    DEFAULT_CSS = """
    VocabTable {
        background: $surface;
        color: $foreground;
        & > .vocab-table--header { text-style: bold; background: $panel; color: $foreground; }
        & > .vocab-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
        }
        & > .vocab-table--special { color: $warning; }
        &:focus > .vocab-table--cursor {
            background: $block-cursor-background;
            color: $block-cursor-foreground;
            text-style: $block-cursor-text-style;
        }
    }
    """

    BINDINGS = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First", show=False),
        Binding("end", "jump(-1)", "Last", show=False),
    ]

    @dataclass
    class RowHighlighted(Message):
        """The row under the cursor changed."""

        vocab_table: VocabTable
        row: VocabRow

        @property
        def control(self) -> VocabTable:
            return self.vocab_table

    cursor: reactive[int] = reactive(0)
    """Position of the cursor within the visible (filtered) rows."""

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._rows: list[VocabRow] = []
        self._visible: list[int] = []
        self._specials: frozenset[bytes] = frozenset()
        self._widths = column_widths([])
        self._width = sum(self._widths) + _GAP * (len(COLUMNS) - 1) + 1

    @property
    def visible_count(self) -> int:
        return len(self._visible)

    @property
    def total_count(self) -> int:
        return len(self._rows)

    @property
    def current_row(self) -> VocabRow | None:
        if not self._visible:
            return None
        return self._rows[self._visible[min(self.cursor, len(self._visible) - 1)]]

    def set_rows(self, rows: list[VocabRow], specials: frozenset[bytes] = frozenset()) -> None:
        """Show a new vocabulary, unfiltered."""
        self._rows = rows
        self._specials = specials
        self._widths = column_widths(rows)
        self._width = sum(self._widths) + _GAP * (len(COLUMNS) - 1) + 1
        self.set_visible(list(range(len(rows))))

    def set_visible(self, visible: list[int]) -> None:
        """Show only the rows at these indices (a filter's result); the cursor goes to the top."""
        self._visible = visible
        self.virtual_size = Size(self._width, len(visible) + 1)
        self.scroll_to(y=0, animate=False, immediate=True, force=True)
        self.set_reactive(VocabTable.cursor, 0)  # no watcher: it would announce a second time
        self._announce()
        self.refresh()

    def _announce(self) -> None:
        row = self.current_row
        if row is not None:
            self.post_message(self.RowHighlighted(self, row))

    def watch_cursor(self, old: int, new: int) -> None:
        if old == new:
            return
        self._scroll_to_cursor()
        # Right after set_rows the new virtual size is not laid out yet and a scroll would be clamped.
        self.call_after_refresh(self._scroll_to_cursor)
        self._announce()
        self.refresh()

    def _scroll_to_cursor(self) -> None:
        """Scroll just enough to show the cursor row below the header."""
        body = max(1, self.scrollable_content_region.height - 1)
        if self.cursor < self.scroll_y:
            self.scroll_to(y=self.cursor, animate=False, immediate=True, force=True)
        elif self.cursor >= self.scroll_y + body:
            self.scroll_to(y=self.cursor - body + 1, animate=False, immediate=True, force=True)

    def show_at_top(self, position: int) -> None:
        """Put the cursor on ``position`` and scroll it to the top row (once the new rows are laid out)."""
        if not 0 <= position < len(self._visible):
            return
        self.cursor = position
        self.scroll_to(y=position, animate=False, immediate=True, force=True)
        self.call_after_refresh(self.scroll_to, y=position, animate=False, immediate=True, force=True)

    def action_move(self, step: int) -> None:
        if self._visible:
            self.cursor = min(max(self.cursor + step, 0), len(self._visible) - 1)

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self.scrollable_content_region.height - 2))

    def action_jump(self, position: int) -> None:
        if self._visible:
            self.cursor = position % len(self._visible)

    def on_click(self, event: events.Click) -> None:
        if event.y >= 1:
            position = int(self.scroll_y) + event.y - 1
            if 0 <= position < len(self._visible):
                self.cursor = position

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            header = self.get_component_rich_style("vocab-table--header")
            titles = tuple(title for title, _, _ in COLUMNS)
            return self._strip(titles, base + header, scroll_x, width)
        position = scroll_y + y - 1
        if position >= len(self._visible):
            return Strip.blank(width, base)
        row = self._rows[self._visible[position]]
        style = base
        if row.token in self._specials:
            style += self.get_component_rich_style("vocab-table--special", partial=True)
        if position == self.cursor:
            style += self.get_component_rich_style("vocab-table--cursor")
        return self._strip(_cells(row), style, scroll_x, width)

    def _strip(self, cells: tuple[str, ...], style: RichStyle, scroll_x: int, width: int) -> Strip:
        text = (" " * _GAP).join(
            fit_cells(cell, width, right) for cell, width, (_, _, right) in zip(cells, self._widths, COLUMNS)
        )
        strip = Strip([Segment(" " + text, style)])
        return strip.crop_extend(scroll_x, scroll_x + width, style)
