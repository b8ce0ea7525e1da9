"""The dashboard's side panel: a sparkline of merge counts and the samples' bytes/token as training goes on."""

from __future__ import annotations

import math
from collections.abc import Iterable

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Label, Sparkline, Static

from bpe_tui.text import counted
from bpe_tui.training_process import SamplesMeasured


class SparklinePanel(Vertical):
    """Merge counts fall by orders of magnitude over a run, so the sparkline plots their logarithm."""

    DEFAULT_CSS = """
    SparklinePanel { border: round $primary; padding: 0 1; height: 1fr; }
    SparklinePanel #spark-box { height: auto; margin-bottom: 1; }
    SparklinePanel Sparkline { height: 3; }
    SparklinePanel #bpt { height: auto; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._counts: list[float] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="spark-box"):
            yield Label("count per merge (log)", markup=False)
            yield Sparkline([], id="counts", summary_function=max)
        yield Static("bytes/token of the samples appear here during a run", id="bpt", markup=False)

    def on_mount(self) -> None:
        self.border_title = "Counts · bytes/token"

    def reset(self) -> None:
        self._counts = []
        self.query_one("#counts", Sparkline).data = []
        self.query_one("#bpt", Static).update("measuring…")

    def add_counts(self, counts: Iterable[int]) -> None:
        """Append the counts of a batch of merges."""
        self._counts.extend(math.log10(max(count, 1)) for count in counts)
        self.query_one("#counts", Sparkline).data = list(self._counts)

    def show_unmeasured(self, reason: str) -> None:
        """Replace "measuring…" when a run ends without a measurement: nothing more will come."""
        self.query_one("#bpt", Static).update(Content.styled(reason, "dim"))

    def show_measure(self, measured: SamplesMeasured) -> None:
        """Show the latest bytes/token of each sample, with the change since the first measurement."""
        rows: list[Content | str] = [Content.styled(f"bytes/token after {counted(measured.merges_done, 'merge')}", "dim")]
        for name, value in measured.bytes_per_token:
            rows.append(Content.assemble(f"{name:<9}", (f"{value:5.2f}", "bold")))
        self.query_one("#bpt", Static).update(Content("\n").join(rows))
