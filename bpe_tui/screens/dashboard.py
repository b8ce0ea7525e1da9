"""The training dashboard: draws the run the app is following; its keys ask the app to stop, run again or save."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Header

from core.train.events import MergeMade, StopReason

from bpe_tui.messages import TrainingChanged
from bpe_tui.screens.pane_screen import PaneScreen
from bpe_tui.text import counted, shown_text
from bpe_tui.training_process import SamplesMeasured
from bpe_tui.training_runner import TrainingRunner
from bpe_tui.training_state import TrainingState
from bpe_tui.widgets.key_footer import KeyFooter
from bpe_tui.widgets.merge_table import MergeTable
from bpe_tui.widgets.progress_panel import ProgressPanel
from bpe_tui.widgets.sparkline_panel import SparklinePanel


class DashboardScreen(PaneScreen):
    """Shows the app's ``TrainingState``; it starts, stops and saves nothing itself.

    Each ``TrainingChanged`` brings the widgets up to date with the state, drawing only what is new since
    the last one (merges are appended, never redrawn), so a dashboard built in the middle of a run, or after
    it, catches up the same way. While another pane (or a dialog) is on screen the dashboard draws nothing:
    redrawing widgets nobody sees took the UI thread from the pane in use. It catches up when shown again.
    """

    class StopRequested(Message):
        """The user asked to cancel the run in progress."""

    class RestartRequested(Message):
        """The user asked to start the last run again."""

    class SaveRequested(Message):
        """The user asked to save the last trained tokenizer."""

    BINDINGS = [
        Binding("s", "stop", "Stop", tooltip="Stop the run; ctrl+s then saves its merges so far"),
        Binding("r", "restart", "Run again", tooltip="Start the last run again"),
        Binding("ctrl+s", "save", "Save", tooltip="Save the last trained tokenizer"),
    ]

    def __init__(self, training: TrainingState) -> None:
        """Args:
        training: the app's training state, which this screen only reads.
        """
        super().__init__()
        self._training = training
        self._run = 0
        self._merges_shown = 0
        self._progress: TrainingRunner.Progressed | None = None
        self._measured: SamplesMeasured | None = None
        self._outcome: TrainingRunner.Ended | None = None
        self._longest = b""
        self._ties = 0
        self._keys: tuple[bool, bool, bool] | None = None
        """What the keys depended on when last drawn: (running, a run to repeat, a tokenizer to save)."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield ProgressPanel(id="progress")
        with Horizontal(id="dashboard-body"):
            yield MergeTable(id="merges")
            yield SparklinePanel(id="side")
        yield KeyFooter()

    def on_mount(self) -> None:
        self._show_training()

    def on_screen_resume(self) -> None:
        """Shown again: draw what happened meanwhile. The merges it missed are queued on the table, which adds
        them at its next flush, after the pane is on screen: adding rows first made the switch wait for it."""
        self._show_training()

    def on_training_changed(self, message: TrainingChanged) -> None:
        if self.is_current:
            self._show_training()

    # -- keys: each one is a request to the app ---------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        training = self._training
        if action == "stop":
            return training.running
        if action == "restart":
            return training.spec is not None and not training.running
        if action == "save":
            return training.trained is not None
        return True

    def action_stop(self) -> None:
        self.post_message(self.StopRequested())

    def action_restart(self) -> None:
        self.post_message(self.RestartRequested())

    def action_save(self) -> None:
        self.post_message(self.SaveRequested())

    # -- drawing the state ------------------------------------------------------------------------------

    def _show_training(self) -> None:
        """Bring every widget up to date with the training state, touching only what changed."""
        training = self._training
        if training.run != self._run:
            self._show_new_run()
        if len(training.merges) > self._merges_shown:
            self._show_merges(training.merges[self._merges_shown :])
            self._merges_shown = len(training.merges)
        if training.progress is not self._progress:
            self._progress = progress = training.progress
            if progress is not None:
                self.query_one(ProgressPanel).show_progress(
                    progress.phase,
                    progress.done,
                    progress.total,
                    progress.phase_elapsed,
                    progress.rss,
                    progress.peak_rss,
                    progress.merges_done,
                    progress.read_rate,
                    progress.shards,
                )
        if training.measured is not self._measured:
            self._measured = measured = training.measured
            if measured is not None:
                self.query_one(SparklinePanel).show_measure(measured)
        if training.outcome is not self._outcome:
            self._outcome = outcome = training.outcome
            if outcome is not None:
                self._show_outcome(outcome)
        keys = (training.running, training.spec is not None, training.trained is not None)
        if keys != self._keys:
            self._keys = keys
            self.refresh_bindings()

    def _show_new_run(self) -> None:
        training = self._training
        self._run = training.run
        self._merges_shown = 0
        self._progress = self._measured = self._outcome = None
        self._longest = b""
        self._ties = 0
        spec = training.spec
        if spec is None:
            return
        self.query_one(ProgressPanel).show_run(
            shown_text(
                f"{spec.label or 'run'} → vocab {spec.vocab_size:,}"
                + (f" · specials {' '.join(spec.special_tokens)}" if spec.special_tokens else "")
            )
        )
        self.query_one(MergeTable).reset()
        self.query_one(SparklinePanel).reset()

    def _show_merges(self, merges: list[MergeMade]) -> None:
        self.query_one(MergeTable).append(merges)
        self.query_one(SparklinePanel).add_counts(merge.count for merge in merges)
        self._ties += sum(merge.won_tie for merge in merges)
        self.query_one(ProgressPanel).show_ties(self._ties)
        longest = max((merge.token for merge in merges), key=len, default=b"")
        if len(longest) > len(self._longest):
            self._longest = longest
            self.query_one(ProgressPanel).show_longest(longest)

    def _show_outcome(self, outcome: TrainingRunner.Ended) -> None:
        """Say how the run ended in the pane itself (a toast goes away): why it failed, what a stop kept."""
        self.query_one(MergeTable).flush()
        panel = self.query_one(ProgressPanel)
        if isinstance(outcome, TrainingRunner.Finished):
            panel.show_outcome("done", complete=True, detail=StopReason(outcome.reason).wording)
            return
        if isinstance(outcome, TrainingRunner.Failed):
            panel.show_outcome("failed", complete=False, note=f"failed: {shown_text(outcome.message)}", failed=True)
            unmeasured = "not measured: the run failed before a measurement"
        else:
            assert isinstance(outcome, TrainingRunner.Stopped)
            if outcome.loaded is not None:
                note = f"stopped after {counted(outcome.merges_done, 'merge')}; ctrl+s saves them (recorded as stopped)"
            else:
                note = "stopped before the first merge; nothing to save"
            panel.show_outcome("stopped", complete=False, detail=f"at {counted(outcome.merges_done, 'merge')}", note=note)
            unmeasured = "not measured: the run stopped before a measurement"
        if self._training.measured is None:
            self.query_one(SparklinePanel).show_unmeasured(unmeasured)
