"""The dashboard's table of merges: appended to in batches as they arrive, never rebuilt.

Cells are ``rich.text.Text`` built from ``text.escape_token``, never strings, because ``DataTable``
parses string cells as markup and a token such as ``[b]`` would be eaten.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from rich.text import Text
from textual.widgets import DataTable

from core.train.events import MergeMade

from bpe_tui.text import escape_token


def merge_row(merge: MergeMade) -> tuple[Text, ...]:
    """One merge as table cells: rank, left, right, new token, count, runner-up count, tie mark."""
    return (
        Text(str(merge.rank), justify="right"),
        Text(escape_token(merge.left)),
        Text(escape_token(merge.right)),
        Text(escape_token(merge.token), style="bold"),
        Text(f"{merge.count:,}", justify="right"),
        Text(f"{merge.runner_up_count:,}", justify="right"),
        Text("tie", style="bold yellow") if merge.won_tie else Text(""),
    )


class MergeTable(DataTable):
    """The latest merges, newest at the bottom, appended in batches and never rebuilt per merge.

    A fast run makes thousands of merges a second, far more than a ``DataTable`` can take or anyone can
    read: every row added shifts and redraws the visible ones, and ``remove_row`` costs time in proportion
    to the table. So merges are buffered and added ``flush_seconds`` apart, at most ``per_flush`` of the
    newest each time (the rank column then skips ahead, which is honest about what is shown). Once the
    table holds ``2 * keep`` rows it is cut back to the newest ``keep`` in one go, at most once every few
    seconds. Every merge still reaches the counters and the sparkline. While its screen is not the one
    shown, the timer adds nothing (rows added to a hidden table still cost the UI thread a relayout); the
    queue, which keeps the newest ``per_flush``, is added at the first tick after it is shown again.
    """

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

    FLUSH_SECONDS = 0.5
    """How often queued merges are added while a run goes on (a test may raise it: see ``flush``)."""

    def __init__(
        self, *, keep: int = 500, per_flush: int = 40, flush_seconds: float | None = None, id: str | None = None
    ) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.keep = keep
        self.per_flush = per_flush
        self.flush_seconds = self.FLUSH_SECONDS if flush_seconds is None else flush_seconds
        self._pending: deque[MergeMade] = deque(maxlen=per_flush)
        self._shown: deque[MergeMade] = deque(maxlen=keep)

    def on_mount(self) -> None:
        for label, width in self.COLUMNS:
            self.add_column(label, width=width)
        self.set_interval(self.flush_seconds, self._flush_if_shown)

    def _flush_if_shown(self) -> None:
        if self.screen.is_current:
            self.flush()

    def reset(self) -> None:
        """Forget all rows (a new run starts)."""
        self.clear()
        self._pending.clear()
        self._shown.clear()

    def append(self, merges: Iterable[MergeMade]) -> None:
        """Queue a batch of merges; the newest ``per_flush`` are added at the next flush."""
        self._pending.extend(merges)

    def flush(self) -> None:
        """Add the queued merges now (the dashboard calls this when a run ends, so the last ones show)."""
        if not self._pending:
            return
        following = self.row_count == 0 or self.cursor_row >= self.row_count - 1
        batch = list(self._pending)
        self._pending.clear()
        self._shown.extend(batch)
        if self.row_count + len(batch) > 2 * self.keep:
            self.clear()
            batch = list(self._shown)
            following = True
        for merge in batch:
            self.add_row(*merge_row(merge), key=str(merge.rank))
        if following:
            self.move_cursor(row=self.row_count - 1, animate=False)
