"""The training dashboard: watch a run, stop it, run it again, save the result and hand it to every pane."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header

from core.errors import BPEError
from core.model import BPEModel
from core.train.events import StopReason

from bpe_tui.screens.path_dialog import PathDialog
from bpe_tui.session import LoadedTokenizer
from bpe_tui.training_process import TrainingSpec
from bpe_tui.widgets.merge_table import MergeTable
from bpe_tui.widgets.progress_panel import ProgressPanel
from bpe_tui.widgets.sparkline_panel import SparklinePanel
from bpe_tui.widgets.training_runner import TrainingRunner


def default_save_path(spec: TrainingSpec, model: BPEModel, folder: Path) -> Path:
    """Where a finished run is offered to be saved: ``<corpus stem>-<vocab size>.json`` in ``folder``."""
    stem = spec.corpus_path.stem if spec.corpus_path is not None else "samples"
    return folder / f"{stem}-{model.vocab_size}.json"


class DashboardScreen(Screen):
    """Owns the training runner; everything shown here is set by handlers of the runner's messages."""

    @dataclass
    class Saved(Message):
        """The trained tokenizer was written to ``path`` (atomically)."""

        model: BPEModel
        path: Path

    @dataclass
    class SaveFailed(Message):
        """Saving to ``path`` failed; ``reason`` is one line."""

        path: Path
        reason: str

    BINDINGS = [
        Binding("s", "stop", "Stop", tooltip="Cancel the run; nothing is saved"),
        Binding("r", "restart", "Run again", tooltip="Start the last run again"),
        Binding("ctrl+s", "save", "Save", tooltip="Save the last trained tokenizer"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._spec: TrainingSpec | None = None
        self._offer_save = False
        self._model: BPEModel | None = None
        self._session_index: int | None = None
        self._longest = b""

    def compose(self) -> ComposeResult:
        services = self.app.services  # type: ignore[attr-defined]
        yield Header()
        yield ProgressPanel(id="progress")
        with Horizontal(id="dashboard-body"):
            yield MergeTable(id="merges")
            yield SparklinePanel(id="side")
        yield Footer()
        yield TrainingRunner(
            source_factory=services.source_factory,
            probe_factory=services.probe_factory,
            clock=services.clock,
            post_interval=services.post_interval,
            id="runner",
        )

    @property
    def runner(self) -> TrainingRunner:
        return self.query_one(TrainingRunner)

    @property
    def running(self) -> bool:
        return self.runner.running

    @property
    def model(self) -> BPEModel | None:
        """The tokenizer of the last run that finished, ``None`` before one has."""
        return self._model

    def start(self, spec: TrainingSpec, *, offer_save: bool = True) -> None:
        """Start ``spec`` (stopping any run in progress); ``offer_save`` asks where to save when it ends."""
        self._spec = spec
        self._offer_save = offer_save
        self._longest = b""
        self.query_one(ProgressPanel).show_run(
            f"{spec.label or 'run'} → vocab {spec.vocab_size:,}"
            + (f" · specials {' '.join(spec.special_tokens)}" if spec.special_tokens else "")
        )
        self.query_one(MergeTable).reset()
        self.query_one(SparklinePanel).reset()
        self.runner.start(spec)
        self.refresh_bindings()

    def stop_training(self) -> None:
        self.runner.stop()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "stop":
            return self.running
        if action == "restart":
            return self._spec is not None and not self.running
        if action == "save":
            return self._model is not None
        return True

    def action_stop(self) -> None:
        self.runner.stop()

    def action_restart(self) -> None:
        if self._spec is not None and not self.running:
            self.start(self._spec, offer_save=True)

    # -- runner messages ----------------------------------------------------------------------------------

    def _stale(self, message: TrainingRunner.RunMessage) -> bool:
        """A message queued before its run was replaced by a newer one: showing it would corrupt the display."""
        return message.run != self.runner.run

    def on_training_runner_progressed(self, message: TrainingRunner.Progressed) -> None:
        if self._stale(message):
            return
        self.query_one(ProgressPanel).show_progress(
            message.phase,
            message.done,
            message.total,
            message.phase_elapsed,
            message.rss,
            message.peak_rss,
            message.merges_done,
        )

    def on_training_runner_merges_received(self, message: TrainingRunner.MergesReceived) -> None:
        if self._stale(message):
            return
        self.query_one(MergeTable).append(message.merges)
        self.query_one(SparklinePanel).add_counts(merge.count for merge in message.merges)
        longest = max((merge.token for merge in message.merges), key=len, default=b"")
        if len(longest) > len(self._longest):
            self._longest = longest
            self.query_one(ProgressPanel).show_longest(longest)

    def on_training_runner_samples_measured(self, message: TrainingRunner.SamplesMeasured) -> None:
        if self._stale(message):
            return
        self.query_one(SparklinePanel).show_measure(message.measured)

    def on_training_runner_finished(self, message: TrainingRunner.Finished) -> None:
        if self._stale(message):
            return
        self.query_one(MergeTable).flush()
        model = message.model
        self._model = model
        label = message.spec.label or model.name
        loaded = LoadedTokenizer.from_model(model, name=f"trained: {label} {model.vocab_size}")
        self._session_index = self.app.session.add_tokenizer(loaded)  # type: ignore[attr-defined]
        self.query_one(ProgressPanel).show_outcome("done", complete=True, detail=StopReason(message.reason).wording)
        self.refresh_bindings()
        self.notify(
            f"{len(model.merges):,} merges, vocab {model.vocab_size:,}. Every pane can use it now.",
            title="Training finished",
            markup=False,
        )
        if self._offer_save:
            self.action_save()

    def on_training_runner_failed(self, message: TrainingRunner.Failed) -> None:
        if self._stale(message):
            return
        self.query_one(MergeTable).flush()
        self.query_one(ProgressPanel).show_outcome("failed", complete=False)
        self.refresh_bindings()
        self.notify(message.message, title="Training failed", severity="error", timeout=10, markup=False)

    def on_training_runner_stopped(self, message: TrainingRunner.Stopped) -> None:
        if self._stale(message):
            return
        self.query_one(MergeTable).flush()
        self.query_one(ProgressPanel).show_outcome("stopped", complete=False)
        self.refresh_bindings()
        self.notify(
            f"Stopped after {message.merges_done:,} merges; nothing was saved.", title="Training stopped", markup=False
        )

    # -- saving -----------------------------------------------------------------------------------------------

    def action_save(self) -> None:
        """Ask where to save the last trained tokenizer, then save it atomically in a thread."""
        if self._model is None or self._spec is None:
            return
        model = self._model
        folder = self.app.services.corpus_root  # type: ignore[attr-defined]
        default = default_save_path(self._spec, model, folder)

        def chosen(path: Path | None) -> None:
            if path is None:
                self.notify("Not saved; press ctrl+s on the dashboard to save it later.", markup=False)
            else:
                self._save(model, path)

        self.app.push_screen(
            PathDialog("Save the tokenizer as (bpe-tui JSON)", str(default), "Save", must_exist=False), chosen
        )

    @work(thread=True, exclusive=True, exit_on_error=False, group="save")
    def _save(self, model: BPEModel, path: Path) -> None:
        from core.formats import save_tokenizer

        try:
            save_tokenizer(model, path, format="bpe-tui")
        except (BPEError, OSError) as error:
            self.post_message(self.SaveFailed(path, str(error)))
        else:
            self.post_message(self.Saved(model, path))

    def on_dashboard_screen_saved(self, message: Saved) -> None:
        session = self.app.session  # type: ignore[attr-defined]
        index = self._session_index
        if index is not None and index < len(session.tokenizers) and session.tokenizers[index].model is message.model:
            session.replace_tokenizer(index, session.tokenizers[index].with_source(message.path))
        self.notify(f"Saved to {message.path}", title="Tokenizer saved", markup=False)

    def on_dashboard_screen_save_failed(self, message: SaveFailed) -> None:
        self.notify(
            f"{message.path}: {message.reason}", title="Could not save", severity="error", timeout=10, markup=False
        )
