"""The dashboard's status block: run, phase, progress bar with percent and ETA, merges/s, RSS, longest token."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Label, ProgressBar, Static

from bpe_tui.text import escape_token, eta, format_bytes, format_eta, format_rate, hex_bytes, rate

PHASE_LABELS = {"idle": "idle", "reading": "reading", "counting": "counting pairs", "merging": "merging"}


class ProgressPanel(Vertical):
    """Shows where a run is. The dashboard calls the ``show_*`` methods from its message handlers."""

    DEFAULT_CSS = """
    ProgressPanel { height: auto; padding: 0 1; border: round $primary; }
    ProgressPanel #progress-row { height: 1; }
    ProgressPanel #phase { width: 16; }
    ProgressPanel #bar { width: 1fr; }
    ProgressPanel #eta { width: 24; text-align: right; }
    ProgressPanel .line { height: 1; }
    """

    def compose(self) -> ComposeResult:
        yield Static("no run yet", id="run", classes="line", markup=False)
        with Horizontal(id="progress-row"):
            yield Label("idle", id="phase", markup=False)
            yield ProgressBar(total=1, show_eta=False, id="bar")
            yield Label(format_eta(None), id="eta", markup=False)
        yield Static("", id="rates", classes="line", markup=False)
        yield Static("longest token: —", id="longest", classes="line", markup=False)

    def on_mount(self) -> None:
        self.border_title = "Training"

    def show_run(self, title: str) -> None:
        """Start a fresh run display."""
        self.query_one("#run", Static).update(title)
        self.query_one("#phase", Label).update("starting")
        self.query_one("#bar", ProgressBar).update(total=1, progress=0)
        self.query_one("#eta", Label).update(format_eta(None))
        self.query_one("#rates", Static).update("")
        self.query_one("#longest", Static).update("longest token: —")

    def show_progress(
        self, phase: str, done: int, total: int, phase_elapsed: float, rss: int, peak_rss: int, merges_done: int
    ) -> None:
        """Update phase, bar, ETA and the rates line."""
        self.query_one("#phase", Label).update(PHASE_LABELS.get(phase, phase))
        self.query_one("#bar", ProgressBar).update(total=max(total, 1), progress=min(done, max(total, 1)))
        self.query_one("#eta", Label).update(format_eta(eta(done, total, phase_elapsed)))
        merge_rate = format_rate(rate(merges_done, phase_elapsed) if phase == "merging" else None, "merges")
        self.query_one("#rates", Static).update(
            f"merges {merges_done:,} · {merge_rate} · RSS {format_bytes(rss)} (peak {format_bytes(peak_rss)})"
        )

    def show_outcome(self, text: str, *, complete: bool, detail: str = "") -> None:
        """Show how the run ended (``detail`` says why, in place of the ETA); a complete run fills the bar."""
        self.query_one("#phase", Label).update(text)
        self.query_one("#eta", Label).update(detail)
        if complete:
            bar = self.query_one("#bar", ProgressBar)
            bar.update(progress=bar.total or 1)

    def show_longest(self, token: bytes) -> None:
        """The longest token so far, as safe text and as bytes."""
        text = Content.assemble(
            "longest token: ",
            (escape_token(token), "bold"),
            f"  ({len(token)} bytes: {hex_bytes(token[:16])}{' …' if len(token) > 16 else ''})",
        )
        self.query_one("#longest", Static).update(text)
