"""Pane 8, the vocabulary-size study: one training run, every size's figures in a table, and a plot.

The study trains (long work holding the GIL), so it runs in a child process (``bpe_tui.study_process``)
that a thread worker polls; the worker checks for cancellation between polls, posts progress at most ten
times a second, every size reached, and a final ``StudyDone``; the handlers only hand the results to
widgets. It starts only when asked
(``r``, or Enter in the sizes field), on the corpus chosen in the corpus pane (a text file or shards), or
the English sample. ``c`` switches the table between bytes per token and context coverage (the characters
and bytes of each text the first window holds, for the session's window sizes, which ``w`` edits).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable, Header, Input, Static
from textual.worker import get_current_worker

from bpe_tui.messages import SessionChanged
from bpe_tui.screens.pane_screen import PaneScreen
from bpe_tui.screens.windows_dialog import WindowsDialog
from bpe_tui.session import Session
from bpe_tui.text import escape_token, shown_text
from bpe_tui.widgets.key_footer import KeyFooter
from bpe_tui.widgets.study_plot import Series, StudyPlot
from bpe_tui.study_process import StudyProcess, StudySpec
from bpe_tui.training_process import Throttle, TrainingFailed, TrainingSource
from core.analysis.study import SizeMeasured, SizeReached, Study, StudyFinished, parse_sizes
from core.errors import BPEError
from core.train.events import PhaseProgress

DEFAULT_SIZES = "300,500,1000,2000"
STUDY_TEXTS = ("english", "japanese")
"""Bundled samples every study is measured on, besides the corpus itself."""
POSTS_PER_SECOND = 10

StudySourceFactory = Callable[[StudySpec], TrainingSource]


def study_series(study: Study) -> list[Series]:
    """One plot line per evaluation text: bytes/token at each size."""
    return [
        Series(name, tuple((size.vocab, size.bytes_per_token[name]) for size in study.sizes))
        for name in study.text_names
    ]


def coverage_rows(study: Study) -> list[tuple[Text, ...]]:
    """Coverage rows, one per size and evaluation text: vocab (on a size's first row), text, then
    ``characters / bytes`` the first window of each size holds."""
    rows = []
    for size in study.sizes:
        for index, name in enumerate(study.text_names):
            cells = size.coverage.get(name, {})
            rows.append((
                Text(f"{size.vocab:,}" if index == 0 else "", justify="right"),
                Text(name),
                *(Text(f"{cells[w][0]:,} / {cells[w][1]:,}" if w in cells else "—", justify="right")
                  for w in study.windows),
            ))
    return rows


def study_rows(study: Study) -> list[tuple[Text, ...]]:
    """Table rows: vocab, seconds, bytes/token per text, Japanese bare bytes, V*d, longest token."""
    rows = []
    for size in study.sizes:
        bare = "—" if size.japanese_bare_bytes is None else f"{size.japanese_bare_bytes:.1%}"
        rows.append((
            Text(f"{size.vocab:,}", justify="right"),
            Text(f"{size.seconds:.2f}", justify="right"),
            *(Text(f"{size.bytes_per_token[name]:.2f}", justify="right") for name in study.text_names),
            Text(bare, justify="right"),
            Text(f"{size.embedding:,}", justify="right"),
            Text(escape_token(size.longest_token)),
        ))
    return rows


class StudyScreen(PaneScreen):
    """Asks for sizes, runs the study on the chosen corpus and shows its table and plot."""

    AUTO_FOCUS = "#study-table"

    DEFAULT_CSS = """
    StudyScreen {
        #study-header { height: 1; padding: 0 1; background: $panel; text-wrap: nowrap; text-overflow: ellipsis; }
        #study-form { height: 1; margin: 0 1; }
        #study-form Static { width: auto; }
        #study-sizes { width: 1fr; }
        #study-status { height: 1; padding: 0 1; color: $text-muted; }
        #study-table { height: auto; max-height: 10; border: round $primary-muted; }
        #study-table:focus { border: round $primary; }
        #study-plot { border: round $primary-muted; padding: 0 1; }
    }
    """

    BINDINGS = [
        Binding("r", "run_study", "Run study"),
        Binding("s", "stop_study", "Stop"),
        Binding("slash", "edit_sizes", "Sizes", priority=True),
        Binding("c", "toggle_coverage", "Coverage", tooltip="Table: bytes/token, or context coverage per size"),
        Binding("w", "edit_windows", "Windows", tooltip="Context window sizes for the next study's coverage"),
        Binding("escape", "focus_table", "Table", show=False),
    ]

    @dataclass
    class StudyProgressed(Message, bubble=False):
        """The running study's state, as one line."""

        line: str

    @dataclass
    class StudyDone(Message, bubble=False):
        """A study finished."""

        study: Study
        corpus: str

    @dataclass
    class StudyFailed(Message, bubble=False):
        """A study could not run (bad sizes, an unreadable corpus)."""

        reason: str

    def __init__(self, session: Session, *, source_factory: StudySourceFactory = StudyProcess) -> None:
        """Args:
        session: the app's session (the corpus and the samples are read from it).
        source_factory: starts a study for a spec; the real one runs it in a child process.
        """
        super().__init__()
        self._session = session
        self._source_factory = source_factory
        self._studying = False
        self._shown: Study | None = None
        self.coverage_shown = False
        """Whether the table shows context coverage (``c``) rather than bytes per token."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="study-header", markup=False)
        with Horizontal(id="study-form"):
            yield Static("sizes ", markup=False)
            yield Input(DEFAULT_SIZES, id="study-sizes", compact=True)
        yield Static("r runs the study: one training run at the largest size", id="study-status", markup=False)
        yield DataTable(id="study-table", cursor_type="row", zebra_stripes=True)
        yield StudyPlot(id="study-plot")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.query_one("#study-table").border_title = "sizes"
        self.query_one("#study-plot").border_title = "bytes/token against vocab size"
        self._show_header()

    def on_session_changed(self, message: SessionChanged) -> None:
        self._show_header()

    def corpus(self) -> tuple[Path | None, str]:
        """The corpus a study would train on, and how to call it."""
        if self._session.corpus_path is not None:
            return self._session.corpus_path, shown_text(self._session.corpus_path.name)
        sample = self._session.sample_path("english")
        return sample, "english sample"

    def _show_header(self) -> None:
        _, label = self.corpus()
        self.query_one("#study-header", Static).update(
            Content.assemble(("study", "bold"), f"  corpus: {label}  ", ("(choose another in the corpus pane)", "dim"))
        )

    # -- running ---------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "run_study":
            return not self._studying
        if action == "stop_study":
            return self._studying
        if action == "edit_sizes" and isinstance(self.focused, Input):
            return None
        return True

    def action_run_study(self) -> None:
        path, label = self.corpus()
        if path is None:
            self.notify("No corpus: choose one in the corpus pane (1).", severity="warning")
            return
        sizes = self._sizes()
        if sizes is None:
            return
        samples = self._session.sample_texts()
        texts = tuple((name, samples[name]) for name in STUDY_TEXTS if name in samples)
        session = self._session
        spec = StudySpec(
            path, tuple(sizes), texts, special_tokens=session.special_tokens, windows=session.context_windows,
            text_field=session.text_field, skip_bad_records=session.skip_bad_records, errors=session.errors,
        )
        self._studying = True
        self.refresh_bindings()
        self.query_one("#study-status", Static).update(f"starting a study of {label}…")
        self._study(spec, label)

    def _sizes(self) -> list[int] | None:
        """The sizes typed in the field, or ``None`` after saying why they cannot be read."""
        try:
            return parse_sizes(self.query_one("#study-sizes", Input).value)
        except BPEError as error:
            self.notify(str(error), title="Study", severity="error", markup=False)
            return None

    def action_stop_study(self) -> None:
        self.workers.cancel_group(self, "study")

    @work(thread=True, exclusive=True, exit_on_error=False, group="study")
    def _study(self, spec: StudySpec, label: str) -> None:
        worker = get_current_worker()
        source = self._source_factory(spec)
        source.start()
        throttle = Throttle(1 / POSTS_PER_SECOND)
        while (batch := source.poll(0.1)) is not None:
            if worker.is_cancelled:
                source.cancel()
                self.post_message(self.StudyFailed("study stopped"))
                return
            for event in batch:
                if isinstance(event, StudyFinished):
                    self.post_message(self.StudyDone(event.study, label))
                elif isinstance(event, TrainingFailed):
                    self.post_message(self.StudyFailed(f"could not run the study: {event.message}"))
                elif isinstance(event, SizeReached):
                    line = f"reached {event.vocab:,} tokens after {event.seconds:.2f} s"
                    self.post_message(self.StudyProgressed(line))
                elif isinstance(event, SizeMeasured):
                    self.post_message(self.StudyProgressed(f"measured {event.done} of {event.total} sizes"))
                elif isinstance(event, PhaseProgress) and throttle.ready():
                    share = f" {event.done / event.total:.0%}" if event.total else ""
                    self.post_message(self.StudyProgressed(f"{event.phase}{share}"))

    # -- results ---------------------------------------------------------------------------------------

    @on(StudyProgressed)
    def _show_progress(self, message: StudyProgressed) -> None:
        self.query_one("#study-status", Static).update(message.line)

    @on(StudyDone)
    def _show_study(self, message: StudyDone) -> None:
        self._studying = False
        self.refresh_bindings()
        study = message.study
        self._shown = study
        self._fill_table()
        self.query_one(StudyPlot).show(study_series(study))
        status = f"{len(study.sizes)} sizes of {message.corpus}, one run; d = {study.d}"
        if study.unreached:
            status += f"; not reached (pairs ran out): {', '.join(f'{v:,}' for v in study.unreached)}"
        self.query_one("#study-status", Static).update(status)

    def _fill_table(self) -> None:
        """Show the study's rows in the view ``c`` chose (nothing before a study)."""
        study = self._shown
        table = self.query_one("#study-table", DataTable)
        table.border_title = "context coverage: characters / bytes the first window holds" if self.coverage_shown else "sizes"
        if study is None:
            return
        table.clear(columns=True)
        if self.coverage_shown:
            table.add_columns("vocab", "text", *(f"{window:,} tok" for window in study.windows))
            rows = coverage_rows(study)
        else:
            table.add_columns("vocab", "s", *(f"{name} b/t" for name in study.text_names), "ja bare", "V·d", "longest")
            rows = study_rows(study)
        for row in rows:
            table.add_row(*row)

    def action_toggle_coverage(self) -> None:
        self.coverage_shown = not self.coverage_shown
        self._fill_table()

    def action_edit_windows(self) -> None:
        def chosen(windows: tuple[int, ...] | None) -> None:
            if windows is not None:
                self._session.set_context_windows(windows)

        self.app.push_screen(WindowsDialog(self._session.context_windows), chosen)

    @on(StudyFailed)
    def _show_failure(self, message: StudyFailed) -> None:
        self._studying = False
        self.refresh_bindings()
        self.query_one("#study-status", Static).update(message.reason)

    # -- focus -----------------------------------------------------------------------------------------

    @on(Input.Submitted, "#study-sizes")
    def _sizes_submitted(self) -> None:
        # Sizes it cannot read keep the field, to be fixed: the table took focus, and the sizes typed again
        # went to the pane keys ("300" switched to the stepper).
        if self._sizes() is None:
            return
        self.action_focus_table()
        if not self._studying:
            self.action_run_study()

    def action_edit_sizes(self) -> None:
        self.set_focus(self.query_one("#study-sizes", Input))

    def action_focus_table(self) -> None:
        self.query_one("#study-table").focus()
