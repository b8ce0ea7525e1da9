"""A small table of texts against their tokenizations: chars, bytes, tokens, bytes/token and chars/token."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import DataTable

from core.analysis.compare import TextStats

STAT_COLUMNS = ("text", "chars", "bytes", "tokens", "bytes/token", "chars/token")


def stat_cells(label: str, stats: TextStats | None) -> tuple[Text, ...]:
    """The cells of one row; ``None`` stats (not measured yet) show as dashes.

    >>> [cell.plain for cell in stat_cells("english", TextStats(chars=10, bytes=12, tokens=4))]
    ['english', '10', '12', '4', '3.00', '2.50']
    """
    if stats is None:
        values = ["…"] * 5
    else:
        values = [
            f"{stats.chars:,}",
            f"{stats.bytes:,}",
            f"{stats.tokens:,}",
            f"{stats.bytes_per_token:.2f}",
            f"{stats.chars_per_token:.2f}",
        ]
    return (Text(label, style="bold"), *(Text(value, justify="right") for value in values))


class TextStatsTable(DataTable[Text]):
    """English against Japanese (or any few texts) for the active tokenizer, one row each.

    Cells are ``Text`` rather than ``str``: ``DataTable`` parses strings as markup.
    """

    DEFAULT_CSS = """
    TextStatsTable {
        height: auto;
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(cursor_type="none", zebra_stripes=True, show_cursor=False, name=name, id=id, classes=classes)
        self.can_focus = False

    def show(self, rows: Sequence[tuple[str, TextStats | None]]) -> None:
        """Replace the rows with ``(label, stats)`` pairs (columns too, so their widths fit the new values)."""
        self.clear(columns=True)
        cells = [stat_cells(label, stats) for label, stats in rows]
        for position, title in enumerate(STAT_COLUMNS):
            # Explicit widths: auto widths are measured lazily and came out stale when rows were swapped fast.
            width = max([len(title), *(cell_len(row[position].plain) for row in cells)])
            self.add_column(Text(title, justify="left" if title == "text" else "right"), key=title, width=width)
        for (label, _), row in zip(rows, cells):
            self.add_row(*row, key=label)
