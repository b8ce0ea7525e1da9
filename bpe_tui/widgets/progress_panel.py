"""The dashboard's status block: run, phase, progress bar with percent and ETA, merges/s and how many merges
were ties, RSS, longest token, how long the Pile would take to read at this run's rate, and how the run
ended (a failure's reason, what a stop kept)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Label, ProgressBar, Static

from core.train.events import ShardsRead

from bpe_tui.text import escape_token, eta, format_bytes, format_eta, format_rate, hex_bytes, rate, shards_line
from bpe_tui.throughput import training_estimate_line

PHASE_LABELS = {"idle": "idle", "reading": "reading", "counting": "counting pairs", "merging": "merging"}

LONGEST_CELLS = 32
"""Most cells the longest token's text takes, so that its length and bytes still show after it at 80
columns (it can be a run of hundreds of kanji)."""

ETA_AFTER_SECONDS = 1.0
"""How long a phase runs before its ETA is shown. The first merges are the slowest (the most frequent pairs
touch the most words), so an ETA from the first tenth of a second said 3:44:26 for a 12 s run."""


def shown_eta(done: int, total: int, phase_elapsed: float) -> float | None:
    """The ETA the dashboard shows: none until the phase has run ``ETA_AFTER_SECONDS`` and done something.

    >>> shown_eta(5, 1000, 0.1), shown_eta(0, 1000, 3.0), shown_eta(500, 1000, 2.0)
    (None, None, 2.0)
    """
    if phase_elapsed < ETA_AFTER_SECONDS:
        return None
    return eta(done, total, phase_elapsed)


class ProgressPanel(Vertical):
    """Shows where a run is. The dashboard calls the ``show_*`` methods from its message handlers.

    Progress arrives ten times a second. Each line it changes has a fixed size (one row, a fixed width or
    the panel's), so it is redrawn without a layout pass: a relayout of the screen made the compositor
    repaint every widget it touched, the merge table's rows among them. A line whose text is unchanged is
    not touched at all.
    """

    DEFAULT_CSS = """
    ProgressPanel { height: auto; padding: 0 1; border: round $primary; }
    ProgressPanel #progress-row { height: 1; }
    ProgressPanel #phase { width: 16; }
    ProgressPanel #bar { width: 1fr; }
    ProgressPanel #eta { width: 24; text-align: right; }
    ProgressPanel .line { height: 1; text-wrap: nowrap; text-overflow: ellipsis; }
    ProgressPanel #outcome { height: auto; display: none; }
    ProgressPanel #outcome.-shown { display: block; }
    ProgressPanel #outcome.-failed { color: $text-error; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._merges_done = 0
        self._merge_rate: float | None = None
        self._peak_rss = 0
        self._read_rate: float | None = None
        self._read_over = False
        """Whether the run's reading phase is over (so no rate now means a corpus too small to time)."""
        self._ties = 0
        self._rates_tail = ""
        self._shards_work = ""
        self._lines: dict[str, object] = {}
        """What each fixed-size line shows, by id, as last set by ``_put``."""

    def compose(self) -> ComposeResult:
        yield Static("no run yet", id="run", classes="line", markup=False)
        with Horizontal(id="progress-row"):
            yield Label("idle", id="phase", markup=False)
            yield ProgressBar(total=1, show_eta=False, id="bar")
            yield Label(format_eta(None), id="eta", markup=False)
        yield Static("", id="rates", classes="line", markup=False)
        yield Static("longest token: —", id="longest", classes="line", markup=False)
        yield Static(training_estimate_line(None), id="estimate", classes="line", markup=False)
        yield Static("", id="outcome", markup=False)

    def on_mount(self) -> None:
        self.border_title = "Training"

    def _put(self, line: str, content: str | Content) -> None:
        """Show ``content`` on fixed-size line ``line`` (an id), unless it shows it already; no relayout."""
        if self._lines.get(line) == content:
            return
        self._lines[line] = content
        self.query_one(f"#{line}", Static).update(content, layout=False)

    def show_run(self, title: str) -> None:
        """Start a fresh run display."""
        self.query_one("#run", Static).update(title)
        self.query_one("#phase", Label).update("starting")
        self.query_one("#bar", ProgressBar).update(total=1, progress=0)
        self.query_one("#eta", Label).update(format_eta(None))
        self.query_one("#rates", Static).update("")
        self.query_one("#longest", Static).update("longest token: —")
        self.query_one("#outcome", Static).remove_class("-shown", "-failed").update("")
        self.query_one("#estimate", Static).update(training_estimate_line(None))
        self._merges_done, self._merge_rate, self._peak_rss, self._read_rate = 0, None, 0, None
        self._read_over = False
        self._ties, self._rates_tail, self._shards_work = 0, "", ""
        self._lines.clear()

    def show_progress(
        self, phase: str, done: int, total: int, phase_elapsed: float, rss: int, peak_rss: int, merges_done: int,
        read_rate: float | None = None,
        shards: ShardsRead | None = None,
    ) -> None:
        """Update phase, bar, ETA, the rates line (while reading shards: their progress instead of merges)
        and, from the reading rate, the estimate for the Pile."""
        self._put("phase", PHASE_LABELS.get(phase, phase))
        self.query_one("#bar", ProgressBar).update(total=max(total, 1), progress=min(done, max(total, 1)))
        self._put("eta", format_eta(shown_eta(done, total, phase_elapsed)))
        self._merges_done, self._peak_rss = merges_done, peak_rss
        self._merge_rate = rate(merges_done, phase_elapsed) if phase == "merging" else None
        read_over = phase != "reading"
        if (read_rate, read_over) != (self._read_rate, self._read_over):
            self._read_rate, self._read_over = read_rate, read_over
            self._put("estimate", training_estimate_line(read_rate, read_over=read_over))
        # A process not yet (or no longer) measured reads 0: a dash, not "RSS 0 B".
        now = format_bytes(rss) if rss else "—"
        peak = format_bytes(peak_rss) if peak_rss else "—"
        self._shards_work = (
            shards_line(shards).replace(", ", " · ") if shards is not None and phase == "reading" else ""
        )
        self._rates_tail = f" · RSS {now} (peak {peak})"
        self._draw_rates()

    def show_outcome(self, text: str, *, complete: bool, detail: str = "", note: str = "", failed: bool = False) -> None:
        """Show how the run ended: ``detail`` says why in place of the ETA, ``note`` is a line below
        (a failure's reason, what a stop kept); a complete run fills the bar.

        The rates line keeps the merges made, their rate and the peak RSS; the RSS of a process that
        has ended is no longer shown.
        """
        self._put("phase", text)
        self._put("eta", detail)
        if complete:
            bar = self.query_one("#bar", ProgressBar)
            bar.update(progress=bar.total or 1)
        self._rates_tail = f" · peak RSS {format_bytes(self._peak_rss)}" if self._peak_rss else ""
        self._shards_work = ""
        self._draw_rates()
        outcome = self.query_one("#outcome", Static)
        outcome.update(note)
        outcome.set_class(bool(note), "-shown")
        outcome.set_class(failed, "-failed")

    def show_ties(self, ties: int) -> None:
        """How many of the merges so far were decided by the tie rule (the runner-up had the same count)."""
        self._ties = ties
        if self._rates_tail:  # the rates line is drawn once progress has been shown
            self._draw_rates()

    def _draw_rates(self) -> None:
        if self._shards_work:
            self._put("rates", f"{self._shards_work}{self._rates_tail}")
            return
        ties = f" ({self._ties:,} {'tie' if self._ties == 1 else 'ties'})" if self._merges_done else ""
        self._put("rates", f"merges {self._merges_done:,}{ties} · {format_rate(self._merge_rate, 'merges')}{self._rates_tail}")

    def show_longest(self, token: bytes) -> None:
        """The longest token so far, as safe text (cut to ``LONGEST_CELLS``) and as bytes."""
        shown = Content(escape_token(token))
        if shown.cell_length > LONGEST_CELLS:
            shown = shown.truncate(LONGEST_CELLS - 1) + "…"
        text = Content.assemble(
            "longest token: ",
            shown.stylize("bold"),
            f"  ({len(token)} bytes: {hex_bytes(token[:16])}{' …' if len(token) > 16 else ''})",
        )
        self._put("longest", text)
