"""The dashboard's table of merges: appended to in batches as they arrive, never rebuilt.

Cells are ``rich.text.Text`` built from ``render.render_token``, never strings, because ``DataTable``
parses string cells as markup and a token such as ``[b]`` would be eaten.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.text import Text
from textual.widgets import DataTable

from core.events import MergeMade

from bpe_tui.render import render_token


def merge_row(merge: MergeMade) -> tuple[Text, ...]:
    """One merge as table cells: rank, left, right, new token, count, runner-up count, tie mark."""
    return (
        Text(str(merge.rank), justify="right"),
        Text(render_token(merge.left)),
        Text(render_token(merge.right)),
        Text(render_token(merge.token), style="bold"),
        Text(f"{merge.count:,}", justify="right"),
        Text(f"{merge.runner_up_count:,}", justify="right"),
        Text("tie", style="bold yellow") if merge.won_tie else Text(""),
    )


class MergeTable(DataTable):
    """The latest merges, newest at the bottom; keeps the last ``max_rows`` so memory stays flat."""

    DEFAULT_CSS = "MergeTable { height: 1fr; }"

    COLUMNS: tuple[tuple[str, int | None], ...] = (
        ("#", None),
        ("left", 8),
        ("right", 8),
        ("token", 10),
        ("count", None),
        ("2nd", None),
        ("tie", 3),
    )
    """(label, width): token columns have fixed widths so one long token cannot push the counts off screen;
    ``2nd`` is the runner-up pair's count, equal to ``count`` when the tie rule decided."""

    def __init__(self, *, max_rows: int = 2000, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.max_rows = max_rows
        self._first_rank = 0

    def on_mount(self) -> None:
        for label, width in self.COLUMNS:
            self.add_column(label, width=width)

    def reset(self) -> None:
        """Forget all rows (a new run starts)."""
        self.clear()
        self._first_rank = 0

    def append(self, merges: Iterable[MergeMade]) -> None:
        """Add a batch of merges; follows the newest row unless the user moved the cursor up."""
        following = self.row_count == 0 or self.cursor_row >= self.row_count - 1
        for merge in merges:
            self.add_row(*merge_row(merge), key=str(merge.rank))
        while self.row_count > self.max_rows:
            self.remove_row(str(self._first_rank))
            self._first_rank += 1
        if following and self.row_count:
            self.move_cursor(row=self.row_count - 1, animate=False)
