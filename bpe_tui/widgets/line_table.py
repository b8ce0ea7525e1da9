"""What the tables drawn line by line share: fixed-width cells, a header line, and a row cursor on keys and clicks.

A ``DataTable`` measures and stores every cell of every row as rows are added. The vocabulary (50k
rows) and the merges of a running training (thousands a second) cannot afford that, so their tables are
``ScrollView``s that format only the rows on screen. Line 0 of the view is the header; the rows scroll
under it.
"""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style as RichStyle
from textual import events
from textual.binding import Binding
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from bpe_tui.terminal_cells import measure_as_terminals

measure_as_terminals()  # rows are cut and padded by terminal cells (see bpe_tui.terminal_cells)

GAP = " "
"""Between two cells."""


def fit_cells(text: str, width: int, right: bool) -> str:
    """Pad or cut ``text`` to exactly ``width`` cells; double-width characters count as two.

    >>> fit_cells("日本語", 5, False), fit_cells("ab", 4, True)
    ('日本…', '  ab')
    """
    length = cell_len(text)
    if length > width:
        return set_cell_size(text, width - 1) + "…"
    padding = " " * (width - length)
    return padding + text if right else text + padding


def line_width(widths: tuple[int, ...]) -> int:
    """Cells in a line of cells this wide: a margin, the cells and the gaps between them.

    >>> line_width((3, 8))
    13
    """
    return 1 + sum(widths) + len(GAP) * (len(widths) - 1)


class LineTable(ScrollView, can_focus=True):
    """A header line, rows under it, and a row cursor. A subclass says how many rows there are
    (``row_count``) and draws each line (``render_line``), with ``header_strip`` for line 0."""

    COMPONENT_CLASSES = {"line-table--header", "line-table--cursor"}

    DEFAULT_CSS = """
    LineTable {
        background: $surface;
        color: $foreground;
        & > .line-table--header { text-style: bold; background: $panel; color: $foreground; }
        & > .line-table--cursor {
            background: $block-cursor-blurred-background;
            color: $block-cursor-blurred-foreground;
        }
        &:focus > .line-table--cursor {
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

    cursor: reactive[int] = reactive(0)
    """Position of the cursor among the rows."""

    @property
    def row_count(self) -> int:
        raise NotImplementedError

    def _cursor_moved(self) -> None:
        """Called when the cursor has moved to another row (by a key, a click or the program)."""

    def watch_cursor(self, old: int, new: int) -> None:
        if old == new:
            return
        self._scroll_to_cursor()
        # Right after new rows the new virtual size is not laid out yet and a scroll would be clamped.
        self.call_after_refresh(self._scroll_to_cursor)
        self._cursor_moved()
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        # A shorter view keeps its scroll offset: the cursor's row (the newest merge, a found token) would be
        # left below the bottom edge.
        self.call_after_refresh(self._scroll_to_cursor)

    def _scroll_to_cursor(self) -> None:
        """Scroll just enough to show the cursor row below the header."""
        body = max(1, self.scrollable_content_region.height - 1)
        if self.cursor < self.scroll_y:
            self.scroll_to(y=self.cursor, animate=False, immediate=True, force=True)
        elif self.cursor >= self.scroll_y + body:
            self.scroll_to(y=self.cursor - body + 1, animate=False, immediate=True, force=True)

    def action_move(self, step: int) -> None:
        if self.row_count:
            self.cursor = min(max(self.cursor + step, 0), self.row_count - 1)

    def action_page(self, direction: int) -> None:
        self.action_move(direction * max(1, self.scrollable_content_region.height - 2))

    def action_jump(self, position: int) -> None:
        if self.row_count:
            self.cursor = position % self.row_count

    def on_click(self, event: events.Click) -> None:
        if event.y >= 1:
            position = int(self.scroll_y) + event.y - 1
            if 0 <= position < self.row_count:
                self.cursor = position

    def row_style(self, position: int, extra: RichStyle | None = None) -> RichStyle:
        """The style of row ``position``: the widget's, then ``extra``, then the cursor's when it is there."""
        style = self.rich_style if extra is None else self.rich_style + extra
        if position == self.cursor:
            style += self.get_component_rich_style("line-table--cursor")
        return style

    def header_strip(self, titles: tuple[str, ...], widths: tuple[int, ...], right: tuple[bool, ...]) -> Strip:
        """Line 0: the column titles."""
        style = self.rich_style + self.get_component_rich_style("line-table--header")
        text = GAP.join(fit_cells(*cell) for cell in zip(titles, widths, right))
        return self.crop(Strip([Segment(" " + text, style)]), style)

    def crop(self, strip: Strip, style: RichStyle) -> Strip:
        """``strip`` seen through the view: scrolled sideways and as wide as the view, padded in ``style``."""
        scroll_x = self.scroll_offset.x
        return strip.crop_extend(scroll_x, scroll_x + self.scrollable_content_region.width, style)
