"""The dashboard's table of merges, drawn line by line: a new merge costs a list append, a frame only the rows on screen.

It was a ``DataTable``, whose every added row bumped a counter that keys its whole render cache, so each
batch of merges re-rendered every visible cell, and whose rows were measured as they were added, even
while hidden: the largest cost on the UI thread while a run merged (``benchmarks/README.md``, UI
latency). Here the newest ``keep`` merges sit in a deque, each row's cells are formatted once, when it
is first drawn, and ``render_line`` joins the cells of the rows on screen.

Token cells come from ``text.escape_token`` and are drawn as plain segments, never parsed as markup, so
a token such as ``[b]`` shows as itself.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from rich.segment import Segment
from textual.geometry import Size
from textual.strip import Strip

from core.train.events import MergeMade

from bpe_tui.text import escape_token
from bpe_tui.widgets.line_table import GAP, LineTable, fit_cells, line_width

COLUMNS: tuple[tuple[str, int, bool], ...] = (
    ("#", 1, True),
    ("left", 8, False),
    ("right", 8, False),
    ("token", 10, False),
    ("count", 5, True),
    ("2nd", 5, True),
    ("tie", 3, False),
)
"""(title, least width in cells, right-aligned). Token columns have fixed widths, cut with an ellipsis, so one
long token cannot push the counts off screen; the number columns widen to their widest value. ``2nd`` is
the runner-up pair's count, equal to ``count`` when the tie rule decided."""

_TOKEN, _TIE = 3, 6
"""The columns drawn in a style of their own: the new token (bold) and the tie mark."""


def merge_cells(merge: MergeMade) -> tuple[str, ...]:
    """One merge as the text of its cells: rank, left, right, new token, count, runner-up count, tie mark.

    >>> from core.train.events import MergeMade
    >>> merge_cells(MergeMade(rank=3, left=b" t", right=b"he", new_id=259, count=1200,
    ...                       runner_up_count=1200, won_tie=True))
    ('3', '·t', 'he', '·the', '1,200', '1,200', 'tie')
    """
    return (
        str(merge.rank),
        escape_token(merge.left),
        escape_token(merge.right),
        escape_token(merge.token),
        f"{merge.count:,}",
        f"{merge.runner_up_count:,}",
        "tie" if merge.won_tie else "",
    )


class MergeTable(LineTable):
    """The latest merges, newest at the bottom, with a row cursor that follows the newest unless moved up.

    A fast run makes thousands of merges a second: ``append`` only queues them, and a timer shows what
    was queued ``flush_seconds`` apart, only while its screen is the one shown. Every merge still
    reaches the counters and the sparkline; the table keeps the newest ``keep``.
    """

    COMPONENT_CLASSES = {"merge-table--token", "merge-table--tie"}

    DEFAULT_CSS = """
    MergeTable {
        height: 1fr;
        & > .merge-table--token { text-style: bold; }
        & > .merge-table--tie { text-style: bold; color: $readable-warning; }
    }
    """

    FLUSH_SECONDS = 0.5
    """How often queued merges are shown while a run goes on (a test may raise it: see ``flush``)."""

    def __init__(self, *, keep: int = 1000, flush_seconds: float | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.keep = keep
        self.flush_seconds = self.FLUSH_SECONDS if flush_seconds is None else flush_seconds
        self._rows: deque[MergeMade] = deque(maxlen=keep)
        self._pending: deque[MergeMade] = deque(maxlen=keep)
        self._cells: dict[int, tuple[str, ...]] = {}
        """Formatted cells by rank: each row is formatted once, when first drawn."""
        self._widths = tuple(width for _, width, _ in COLUMNS)

    @property
    def row_count(self) -> int:
        return len(self._rows)

    @property
    def ranks(self) -> list[int]:
        """The ranks of the merges shown, top to bottom."""
        return [merge.rank for merge in self._rows]

    def on_mount(self) -> None:
        self.set_interval(self.flush_seconds, self._flush_if_shown)

    def _flush_if_shown(self) -> None:
        if self.screen.is_current:
            self.flush()

    def reset(self) -> None:
        """Forget all rows (a new run starts)."""
        self._rows.clear()
        self._pending.clear()
        self._cells.clear()
        self._widths = tuple(width for _, width, _ in COLUMNS)
        self.set_reactive(MergeTable.cursor, 0)
        self.virtual_size = Size(line_width(self._widths), 1)
        self.scroll_to(y=0, animate=False, immediate=True, force=True)
        self.refresh()

    def append(self, merges: Iterable[MergeMade]) -> None:
        """Queue a batch of merges; they are shown at the next flush."""
        self._pending.extend(merges)

    def flush(self) -> None:
        """Show the queued merges now (the dashboard calls this when a run ends, so the last ones show)."""
        if not self._pending:
            return
        following = not self._rows or self.cursor >= len(self._rows) - 1
        dropped = max(0, len(self._rows) + len(self._pending) - self.keep)
        self._rows.extend(self._pending)
        self._pending.clear()
        if len(self._cells) > 2 * self.keep:
            oldest = self._rows[0].rank
            self._cells = {rank: cells for rank, cells in self._cells.items() if rank >= oldest}
        self._widths = self._column_widths()
        self.virtual_size = Size(line_width(self._widths), len(self._rows) + 1)
        if following:
            self.set_reactive(MergeTable.cursor, len(self._rows) - 1)
            self._scroll_to_cursor()
            self.call_after_refresh(self._scroll_to_cursor)
        elif dropped:  # the rows moved up under the cursor: keep it, and the view, on the same merges
            self.set_reactive(MergeTable.cursor, max(0, self.cursor - dropped))
            self.scroll_to(y=max(0, self.scroll_y - dropped), animate=False, immediate=True, force=True)
        self.refresh()

    def _column_widths(self) -> tuple[int, ...]:
        """Number columns as wide as their widest value among the rows kept (counts fall as a run goes on)."""
        rows = self._rows
        widest = {
            "#": len(str(rows[-1].rank)) if rows else 1,
            "count": len(f"{max((m.count for m in rows), default=0):,}"),
            "2nd": len(f"{max((m.runner_up_count for m in rows), default=0):,}"),
        }
        return tuple(max(width, widest.get(title, 0)) for title, width, _ in COLUMNS)

    def render_line(self, y: int) -> Strip:
        right = tuple(right for _, _, right in COLUMNS)
        if y == 0:
            return self.header_strip(tuple(title for title, _, _ in COLUMNS), self._widths, right)
        position = self.scroll_offset.y + y - 1
        if position >= len(self._rows):
            return Strip.blank(self.scrollable_content_region.width, self.rich_style)
        merge = self._rows[position]
        cells = self._cells.get(merge.rank)
        if cells is None:
            cells = self._cells[merge.rank] = merge_cells(merge)
        texts = [fit_cells(*cell) for cell in zip(cells, self._widths, right)]
        style = self.row_style(position)
        token = style + self.get_component_rich_style("merge-table--token", partial=True)
        # Under the cursor the tie mark takes the cursor's colour: its own is drawn for the table's background
        # and all but vanished on the cursor's (1.0-1.4:1 on gruvbox, nord, tokyo-night, catppuccin-latte).
        tie = self.row_style(position, self.get_component_rich_style("merge-table--tie", partial=True))
        return self.crop(Strip([
            Segment(" " + GAP.join(texts[:_TOKEN]) + GAP, style),
            Segment(texts[_TOKEN], token),
            Segment(GAP + GAP.join(texts[_TOKEN + 1:_TIE]) + GAP, style),
            Segment(texts[_TIE], tie),
        ]), style)
